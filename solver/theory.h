/* How a theory plugs into the CDCL solver.
 *
 * A theory is a struct of callbacks plus an opaque context. The solver hands
 * it every assigned literal of an observed variable in trail order (after
 * unit propagation has reached a fixpoint), tells it when the trail shrinks,
 * and asks it lazily for the reason of a literal it implied, only when
 * conflict analysis actually needs that reason. All literals are DIMACS-style
 * ints as in sat.h.
 *
 * Contract:
 * - notify(ctx, lit, level): lit just became true at decision level level.
 *   The solver backtracks chronologically, so levels need not increase from
 *   one notification to the next: a literal may join the trail at a level
 *   below the current one, and survive a backtrack that removes literals
 *   notified before it. Return PSI_THEORY_OK, or PSI_THEORY_CONFLICT after
 *   putting into out a clause all of whose literals are currently false (may
 *   be empty: the formula is then unsatisfiable); the notification then
 *   counts as not made (the theory undoes what it did for lit) and, if a
 *   backtrack keeps lit, lit is notified again. Or PSI_THEORY_ENOMEM. Besides, out->implied
 *   may receive literals the theory infers from the current assignment; the
 *   solver assigns each one still unassigned and later calls explain for it
 *   if it needs a reason.
 * - explain(ctx, lit, out): out->clause := a clause containing lit whose
 *   other literals are false and were assigned before lit was implied.
 * - backtrack(ctx, level): forget every notification of a literal whose level
 *   is above level, wherever it lies in the sequence of notifications; those
 *   at or below level remain in force.
 * - prepare(ctx, out) (may be NULL): called at decision level 0 at the start
 *   of every solve that starts at the root (not one resuming a kept trail,
 *   sat.h psi_sat_set_resume); same return values as notify. Lets the theory finish
 *   set-up that is cheaper in bulk (e.g. a static sort of a known graph).
 * The callbacks must not call back into the solver except the read-only
 * psi_sat_root_value and psi_sat_current_value. */
#ifndef PSI_SOLVER_THEORY_H
#define PSI_SOLVER_THEORY_H

#include "sat.h"

#include <stdbool.h>
#include <stddef.h>

enum { PSI_THEORY_OK = 0, PSI_THEORY_CONFLICT = 1, PSI_THEORY_ENOMEM = -1 };

/* A growable int vector owned by the solver; theories only push/clear. */
typedef struct psi_lits {
    int *lits;
    size_t n, cap;
} psi_lits;

typedef struct psi_theory_out {
    psi_lits clause;  /* conflict or explanation clause */
    psi_lits implied; /* literals implied during notify */
} psi_theory_out;

/* Appends lit; false when memory ran out. */
bool psi_lits_push(psi_lits *v, int lit);

typedef struct psi_theory {
    void *ctx;
    int (*prepare)(void *ctx, psi_theory_out *out);
    int (*notify)(void *ctx, int lit, unsigned level, psi_theory_out *out);
    int (*explain)(void *ctx, int lit, psi_theory_out *out);
    void (*backtrack)(void *ctx, unsigned level);
} psi_theory;

/* Attaches t (copied; t->ctx stays owned by the caller and must outlive the
 * solver's use of it). NULL detaches. Only between solves. Attaching a
 * theory ends DRAT proof output (its lemmas are not clausal consequences). */
void psi_sat_set_theory(psi_sat *s, const psi_theory *t);

/* The theory will be notified of both polarities of var (>= 1). Creates
 * the variable if needed. Returns 0 or PSI_SAT_ENOMEM. */
int psi_sat_observe(psi_sat *s, int var);

/* Backtracks to decision level 0 between solves: ends a kept trail
 * (psi_sat_set_resume), so the next solve starts at the root and calls
 * prepare. For a theory about to change what prepare sets up. */
void psi_sat_root(psi_sat *s);

/* Value fixed at decision level 0: +1, -1, or 0 if not fixed (yet). */
int psi_sat_root_value(const psi_sat *s, int lit);

/* Current value on the trail (during search: +1, -1, 0 unassigned). */
int psi_sat_current_value(const psi_sat *s, int lit);

#endif
