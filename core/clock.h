/* The one wall clock of the checker (stage timings, interpretation time,
 * limits). The solver keeps a private clock of its own because solver/
 * builds without any other directory. */
#ifndef PSI_CORE_CLOCK_H
#define PSI_CORE_CLOCK_H

/* Monotonic wall-clock time in seconds. */
double psi_now(void);

#endif
