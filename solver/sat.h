/* Public API of the CDCL SAT solver (psi_sat_*).
 *
 * Literals are DIMACS-style ints: variable v >= 1 is the literal v, its
 * negation is -v. Variables are created on demand by the largest |literal|
 * mentioned. Typical use:
 *
 *     psi_sat *s = psi_sat_new();          // NULL when out of memory
 *     int c[] = {1, -2};
 *     psi_sat_add_clause(s, c, 2);         // any time between solves
 *     psi_sat_assume(s, 2);                // only for the next solve
 *     switch (psi_sat_solve(s)) {
 *     case PSI_SAT_SAT:   psi_sat_value(s, 1) ... // +1 true, -1 false
 *     case PSI_SAT_UNSAT: psi_sat_failed(s, 2) ... // assumption in the core?
 *     }
 *     psi_sat_free(s);
 *
 * Ownership: the solver owns everything it allocates; arrays it returns stay
 * valid until the next call that changes the solver. A FILE* given for proofs
 * stays owned by the caller. The solver never prints and has no globals, so
 * any number of solvers can live in one process (one thread per solver). */
#ifndef PSI_SOLVER_SAT_H
#define PSI_SOLVER_SAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct psi_sat psi_sat;

/* Results of psi_sat_solve (SAT-competition exit codes for the first three). */
enum {
    PSI_SAT_UNKNOWN = 0, /* a conflict or time limit was hit */
    PSI_SAT_SAT = 10,
    PSI_SAT_UNSAT = 20,
    PSI_SAT_ENOMEM = -1, /* memory ran out; the solver can only be freed */
    PSI_SAT_EINVAL = -2, /* a literal was 0 or out of range */
};

typedef struct psi_sat_stats {
    uint64_t decisions, propagations, conflicts, restarts;
    uint64_t learned, learned_literals; /* clauses learned, their total length */
    uint64_t minimized_literals;        /* removed by clause minimization */
    uint64_t shrunk_literals;           /* removed by shrinking after it (analyze.c) */
    uint64_t symmetries;                /* swaps broken by symmetry.c (opt.symmetry) */
    uint64_t reductions, deleted;       /* reduceDB runs, clauses removed by them */
    uint64_t chrono_backtracks;         /* conflicts that undid only their own level */
    uint64_t blocked_restarts;          /* conflicts that postponed a restart */
    uint64_t rephases, walks;           /* phase resets, local searches among them */
    uint64_t vivify_tried, vivified;    /* learned clauses probed, shortened (vivify.c) */
    uint64_t vivify_removed;            /* literals removed by vivification */
    uint64_t vivify_propagations;       /* its propagations (not in propagations) */
    uint64_t theory_calls;              /* literals handed to the theory */
    uint64_t theory_conflicts, theory_propagations, theory_explanations;
    double theory_seconds; /* CPU time inside theory callbacks (estimate: see sat.c) */
    double solve_seconds;  /* CPU time of the calling thread inside psi_sat_solve */
    uint64_t vars, clauses;
} psi_sat_stats;

psi_sat *psi_sat_new(void);
void psi_sat_free(psi_sat *s);

/* Makes sure variables 1..n exist. Returns 0 or PSI_SAT_ENOMEM. */
int psi_sat_reserve(psi_sat *s, int n);
int psi_sat_nvars(const psi_sat *s);

/* Suggests deciding the variable of lit as lit: its saved phase (and stable
 * mode's target phase) start there, and phase saving takes over once the
 * search has assigned it. A hint from the caller's knowledge of the problem
 * (encode/ derives one from the known graph's order); any call between
 * solves (psi_sat_set_option resets every phase to initial_phase, so set
 * options first). Returns 0, PSI_SAT_ENOMEM or PSI_SAT_EINVAL. */
int psi_sat_set_phase(psi_sat *s, int lit);

/* Initial decision order: variable v (1..n) starts with activity prio[v-1]
 * (each in [0, 1), below any conflict's bump, so it only orders variables
 * the search has not yet found in a conflict: the highest first). Before
 * the first solve only. Returns 0, PSI_SAT_ENOMEM or PSI_SAT_EINVAL. */
int psi_sat_set_priorities(psi_sat *s, const double *prio, size_t n);

/* Adds the clause lits[0..n-1] (n = 0 makes the formula unsatisfiable).
 * Allowed between solves, never inside theory callbacks. Returns 0,
 * PSI_SAT_ENOMEM or PSI_SAT_EINVAL. */
int psi_sat_add_clause(psi_sat *s, const int *lits, size_t n);

/* Incremental refinement (lazy clause generation): with on != 0, a solve
 * that answers SAT keeps its trail, and the next solve continues from it
 * instead of the root. A clause added in between undoes only the levels it
 * must (to where it is unit, or both its highest literals unassigned when
 * it is false with two at the top level), so a caller that refutes models
 * one clause at a time does not pay for re-deciding every variable after
 * each model. Saved phases are kept either way. The model (psi_sat_value)
 * is gone once a clause is added, as without it. A solve goes back to the
 * root when it has assumptions, after psi_sat_observe, after any answer
 * but SAT, and when it is turned off (off is the default). A theory's
 * prepare (theory.h) runs only for solves that start at the root, so a
 * theory changing what prepare sets up calls psi_sat_root first (the
 * acyclicity theory does so when an edge is added). */
void psi_sat_set_resume(psi_sat *s, int on);

/* Assumes lit for the next psi_sat_solve call only. */
int psi_sat_assume(psi_sat *s, int lit);

/* Returns PSI_SAT_SAT, PSI_SAT_UNSAT, PSI_SAT_UNKNOWN or PSI_SAT_ENOMEM. */
int psi_sat_solve(psi_sat *s);

/* After SAT: +1 if lit is true in the model, -1 if false (every variable is
 * assigned in a model; 0 only for unknown variables or without a model). */
int psi_sat_value(const psi_sat *s, int lit);

/* After UNSAT under assumptions: nonzero iff the assumption lit is part of
 * the final conflict (a subset of the assumptions that is already
 * unsatisfiable together with the clauses). The whole subset as an array: */
int psi_sat_failed(const psi_sat *s, int lit);
const int *psi_sat_final_conflict(const psi_sat *s, size_t *n);

/* Limits for subsequent solves: a negative value removes the limit. The
 * conflict limit counts per call; the time limit is wall-clock seconds. */
void psi_sat_set_conflict_limit(psi_sat *s, int64_t conflicts);
void psi_sat_set_time_limit(psi_sat *s, double seconds);

/* Progress: fn(ctx, conflicts so far) is called every 256 decisions while
 * solving, where the time limit is checked (NULL: none). It must not call
 * back into the solver. */
void psi_sat_set_progress(psi_sat *s, void (*fn)(void *ctx, uint64_t conflicts), void *ctx);

/* Tuning options by name (options.h lists each with its meaning, default
 * and range), e.g. psi_sat_set_option(s, "luby_unit", 256). Only before the
 * first psi_sat_solve, because the restart and reduction schedules start
 * from them. Returns 0, or PSI_SAT_EINVAL for an unknown name, a value out
 * of range or not whole for a whole-number option, or a call after solving
 * began. psi_sat_get_option stores the current value in *value. */
int psi_sat_set_option(psi_sat *s, const char *name, double value);
int psi_sat_get_option(const psi_sat *s, const char *name, double *value);

/* Writes a text DRAT proof (learned lemmas, deletions, final empty clause)
 * to f, which the caller opened and closes after psi_sat_free. Only
 * meaningful for pure CNF: with a theory attached the proof would need
 * theory lemmas as axioms, so proof output is refused (returns
 * PSI_SAT_EINVAL). Must be called before the first clause is added. */
int psi_sat_set_proof(psi_sat *s, FILE *f);

void psi_sat_get_stats(const psi_sat *s, psi_sat_stats *out);

#endif
