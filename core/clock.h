/* The checker's clocks: wall time (interpretation time, limits, a run's
 * total) and process CPU time (stage timings). The solver keeps a private clock of its own because
 * solver/ builds without any other directory. */
#ifndef PSI_CORE_CLOCK_H
#define PSI_CORE_CLOCK_H

/* Monotonic wall-clock time in seconds. */
double psi_now(void);

/* CPU time of the whole process (user + system, all threads) in seconds:
 * the clock of the stage times, which stays meaningful on a busy machine
 * where wall time also counts the time other processes ran. */
double psi_cpu_now(void);

#endif
