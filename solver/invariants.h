/* The debug checker: full re-verification of the solver's invariants (trail,
 * levels, reasons, watches, decision heap, propagation fixpoint; the
 * acyclicity theory's order, adjacency lists and activation stack).
 *
 * The cheap, local invariants are plain assert()s at the places that
 * maintain them and vanish with NDEBUG. The checks here scan whole data
 * structures, so they run only in builds configured with the CMake option
 * PSI_CHECK (compile definition PSI_CHECK=1; the test build turns it on):
 * the CDCL core checks after conflicts (search.c), the theory after
 * backtracking (acyclic_theory.c). A violation is a bug in the solver: the
 * message goes to stderr and the process aborts, the only place the solver
 * ever prints. The check functions themselves are always compiled, so unit
 * tests can call them on purpose-built states in any build. */
#ifndef PSI_SOLVER_INVARIANTS_H
#define PSI_SOLVER_INVARIANTS_H

#include <stdbool.h>
#include <stdint.h>

#if defined(PSI_CHECK) && PSI_CHECK
#define PSI_CHECKING 1
#else
#define PSI_CHECKING 0
#endif

/* How often a full check runs. Each one scans everything, big instances
 * see many thousands of conflicts, the test suite solves tens of thousands
 * of instances, and it must stay fast. So: the first PSI_CHECK_FIRST calls
 * of every solver are checked. After that, on instances whose scan costs
 * at most PSI_CHECK_UNIT steps, each call up to the PSI_CHECK_DENSE-th is
 * checked, then every k-th with k = calls / DENSE growing, so the number of
 * checks grows only like DENSE * ln(calls / DENSE) while early search,
 * where most bugs show, is covered in full. On bigger instances k is
 * multiplied by size / UNIT, which keeps the checking work per solver near
 * FIRST * size + DENSE * UNIT * (1 + ln(calls / DENSE)) steps. (Checking
 * each of the first hundred calls on every instance, whatever its size,
 * tripled the CPU time of the ASan test suite; this schedule adds about a
 * fifth.) */
#define PSI_CHECK_FIRST 10
#define PSI_CHECK_DENSE 100
#define PSI_CHECK_UNIT  1024

typedef struct psi_check_sched {
    uint64_t calls, next;
} psi_check_sched;

/* Counts a call of a check that would scan about size items; true when
 * this one should run. */
bool psi_check_due(psi_check_sched *c, uint64_t size);

/* Reports a violated invariant (who: "sat" or "acyclic") and aborts. */
_Noreturn void psi_check_fail(const char *who, const char *why);

#endif
