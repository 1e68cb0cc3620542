/* The whole check in one call, for the CLI and for library users:
 * validate (core/index) -> polygraph (core/polygraph) -> prune (prune/) ->
 * encode (encode/) -> solve (solver/) -> verdict. Every stage can be
 * switched and is timed and counted. interpret/ explains a finished result;
 * it never drives these stages itself.
 *
 * Ownership: psi_check fills *res, which owns the index, the polygraph, the
 * pruning result and the cycle it reports; psi_check_result_free releases
 * them. The history must outlive the result (it is referenced, and its
 * unknown-outcome transactions are settled in place by validation; with
 * drop_aborted, its aborted transactions' operations are taken out). */
#ifndef PSI_CHECK_CHECK_H
#define PSI_CHECK_CHECK_H

#include "check/hints.h"
#include "check/level.h"
#include "check/level_choice.h"
#include "check/timestamps.h"
#include "core/clock.h"
#include "core/history.h"
#include "core/index.h"
#include "core/polygraph.h"
#include "core/progress.h"
#include "prune/prune.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_check_opts {
    bool ser; /* serializability instead of snapshot isolation */
    /* The level (check/level.h); PSI_LEVEL_SI (0) with ser means SER.
     * RC, RA, CC and PL-2 skip the polygraph, pruning and the solver. */
    psi_level level;
    bool no_pruning;              /* --no-pruning */
    bool no_coalescing;           /* --no-coalescing */
    bool no_theory_propagation;   /* solver theory propagation off */
    bool exact_pruning;           /* --exact-pruning: rounds to the fixpoint (prune.h exact) */
    uint32_t threads;             /* --threads: pruning's workers; 0: all online cores, on
                                   * frontiers of 2^22 cells or more (prune.h) */
    uint64_t prune_stop_cells;    /* prune.h stop_cells (0: default; tests lower it) */
    uint64_t prune_probe_choices; /* prune.h probe_choices (0: default; tests set 1) */
    uint64_t prune_stop_open;     /* prune.h stop_open (0: default; tests set 1) */
    double time_limit;            /* seconds for the solver, <= 0: none */
    bool keep_model;              /* on accept, keep the solver's choice per constraint */
    psi_init_opts init;           /* --init: the recorded initial state (default auto) */
    /* --version-order: known version orders (check/hints.h), borrowed;
     * NULL: none. SI and SER only. */
    const psi_version_order *version_order;
    /* --timestamps: start/commit timestamps (check/timestamps.h), borrowed;
     * NULL: none. SI and SER only. */
    const psi_timestamps *timestamps;
    /* Called as each stage starts ("validate", "construct", "prune",
     * "encode", "solve"), so a caller can show progress or say in which
     * stage a limit was hit. May be NULL. */
    void (*on_stage)(void *ctx, const char *stage);
    void *stage_ctx;
    /* How far the long stages are: "prune" (round, constraints checked)
     * and "solve" (conflicts), see core/progress.h. fn may be NULL. */
    psi_progress progress;
    /* PL-2, RC, RA and CC with choice reads: search the choices at once,
     * without trying SI's read-from first (check/level_lattice.h); tests
     * compare the two ways. */
    bool search_choices;
    /* PSI: the theory checks one-RW cycles only when an RW edge becomes
     * active (psi_acyc_set_psi_eager off), so the per-model refinement
     * (level_psi.h) finds the rest; tests use it to reach that path, which
     * the eager theory leaves with nothing to find (without it, only
     * PSI_CHECK builds run the refinement, as an assertion). */
    bool psi_refine_only;
    /* Once validation finds no anomaly, drop the operations of aborted
     * transactions from h for the rest of the check (core/index.h,
     * psi_index_drop_aborted): on histories of retried conflicts they are
     * most of the operations and take part in nothing after validation.
     * Only the polygraph's levels drop (SI, SER, PC, PSI and their
     * variants). h is then no longer the input's whole: for a caller that
     * checks it once and explains the result (the CLI), not one that
     * checks it again or writes it out. */
    bool drop_aborted;
    /* SI and SER with read-from choices: from this many writer pairs
     * (every pair of writers of a key), the lazy check (check/lazy_rf.h)
     * runs before the polygraph, and its accept is the verdict (its
     * reject or giving up goes on the usual way); 0: the default
     * (check.c LAZY_PAIRS: never), UINT64_MAX: never. Tests set 1. */
    uint64_t lazy_pairs;
    /* SI and SER with read-from choices: the restricted problem tried
     * first (check/restricted.h; --restricted): PSI_RESTRICTED_AUTO (0)
     * under SI where seeding would keep most writer pairs (check.c
     * RESTRICTED_CHOICES), _ON always where it applies (SER too), _OFF
     * never. Its
     * accept is the verdict; its reject or giving up goes the usual way. */
    uint8_t restricted;
    /* Its window in transactions (0: the default, check.c); one retry
     * doubles it. */
    uint32_t restricted_window;
    /* The solver's conflicts per attempt (0: the default, check.c). */
    uint32_t restricted_conflicts;
} psi_check_opts;

/* psi_check_opts.restricted. */
enum { PSI_RESTRICTED_AUTO = 0, PSI_RESTRICTED_ON = 1, PSI_RESTRICTED_OFF = 2 };

typedef enum psi_verdict { PSI_ACCEPT = 0, PSI_REJECT = 1 } psi_verdict;

typedef enum psi_reject_reason {
    PSI_BY_NOTHING = 0,     /* accepted */
    PSI_BY_ANOMALY = 1,     /* a graph-free anomaly (see idx.anomalies) */
    PSI_BY_KNOWN_CYCLE = 2, /* the known graph has a forbidden cycle (prune.cycle[0]) */
    PSI_BY_PRUNING = 3,     /* a constraint with both sides impossible (prune.cycle[0..1]) */
    PSI_BY_SOLVER = 4,      /* no choice of the remaining constraints is acyclic */
    PSI_BY_LEVEL = 5,       /* a polynomial level's graph has a cycle (level.cycle) */
    PSI_BY_TIMESTAMPS = 6,  /* the timestamps show a violation directly (ts_violation) */
} psi_reject_reason;

/* The lazy check's result and counts (check/lazy_rf.h, internal). */
typedef enum psi_lazy_outcome {
    PSI_LAZY_ACCEPT = 0, /* a model whose order is a witness */
    PSI_LAZY_REJECT = 1, /* the relaxation is unsatisfiable */
    PSI_LAZY_GAVE_UP = 2 /* a bound below was reached: no verdict */
} psi_lazy_outcome;

/* "accept", "unsatisfiable", "gave up": what reports call o. */
const char *psi_lazy_outcome_name(psi_lazy_outcome o);

typedef struct psi_lazy_stats {
    uint32_t rounds;       /* models checked */
    uint64_t pairs;        /* writer-pair variables created */
    uint64_t rw_edges;     /* RW edges added */
    uint64_t choices;      /* read-from choices (candidates of reads with several) */
    uint64_t materialized; /* variables given to them (with the "others" ones) */
    uint64_t violations;   /* backward edges found over all models */
    uint64_t decisions, conflicts;
    double t_solve, t_check; /* CPU seconds in the solver, in the model checks */
} psi_lazy_stats;

/* The restricted problem's result and counts (check/restricted.h). */
typedef enum psi_restricted_outcome {
    PSI_RESTRICTED_ACCEPT = 0,  /* a model of the restriction: the verdict */
    PSI_RESTRICTED_REJECT = 1,  /* the restriction has no model: proves nothing */
    PSI_RESTRICTED_GAVE_UP = 2, /* the solver's conflict budget ran out */
    PSI_RESTRICTED_TOO_BIG = 3  /* the window would leave too many writer pairs open */
} psi_restricted_outcome;

/* "accept", "no model", "gave up", "too wide": what reports call o. */
const char *psi_restricted_outcome_name(psi_restricted_outcome o);

typedef struct psi_restricted_stats {
    uint32_t attempts;                      /* windows tried */
    uint32_t window;                        /* the last one, in transactions */
    uint64_t open_pairs;                    /* its writer pairs within the window */
    uint64_t choices_before, choices_after; /* its read-from candidates kept */
    uint32_t reads_before, reads_after;     /* reads with a choice, before and after */
    uint64_t skeleton_edges;                /* known edges the estimate added */
    double t;                               /* CPU seconds over all attempts */
} psi_restricted_stats;

/* The stages whose memory psi_check_stats records, in pipeline order. */
typedef enum psi_mem_stage {
    PSI_MEM_LOAD,
    PSI_MEM_VALIDATE,
    PSI_MEM_CONSTRUCT,
    PSI_MEM_PRUNE,
    PSI_MEM_ENCODE,
    PSI_MEM_SOLVE,
    PSI_MEM_STAGES
} psi_mem_stage;

/* "load", "validate", ... for s < PSI_MEM_STAGES. */
const char *psi_mem_stage_name(psi_mem_stage s);

typedef struct psi_check_stats {
    /* Stage times in CPU seconds (psi_cpu_now: user + system of the process,
     * so a stage running threads may show more than its wall time). */
    double t_validate, t_construct, t_prune, t_encode, t_solve;
    /* Shape. */
    uint32_t sessions, transactions, committed;
    uint64_t operations;
    /* Operations of aborted transactions dropped after validation
     * (psi_check_opts.drop_aborted); operations counts them. */
    uint64_t dropped_ops;
    /* The paper's Table 3 columns, before and after pruning. "Before"
     * counts the paper's polygraph: every writer pair of every key, and the
     * edges of both sides of each. constraints_generated is how many
     * (coalesced) constraints pruning actually created: only the pairs the
     * known graph leaves unordered (all of them with --no-pruning). */
    uint64_t known_edges_before, known_edges_after;
    uint64_t constraints_before, constraints_generated, constraints_after;
    uint64_t unknown_deps_before, unknown_deps_after;
    uint32_t prune_rounds;
    size_t prune_bytes;
    /* Solver. */
    uint64_t vars, theory_edges, decisions, propagations, conflicts, restarts, learned;
    uint64_t theory_calls, theory_conflicts, theory_propagations;
    double theory_seconds;
    /* PSI's refinement (level_psi.h): models it examined, clauses it added. */
    uint64_t psi_models, psi_clauses;
    /* The lazy check (lazy_rf.h), when it ran: lazy_outcome is its
     * psi_lazy_outcome (an accept is the verdict). */
    bool lazy_ran;
    uint8_t lazy_outcome;
    psi_lazy_stats lazy;
    /* The restricted problem (restricted.h), when it ran:
     * restricted_outcome is the last attempt's psi_restricted_outcome (an
     * accept is the verdict, and the stages' figures above are its). */
    bool restricted_ran;
    uint8_t restricted_outcome;
    psi_restricted_stats restricted;
    /* Memory after each stage (issue 17), in bytes, indexed by
     * psi_mem_stage: mem_peak[] is the process's peak resident set so far
     * (it only grows, and counts everything in the process: with several
     * histories checked in one process, the earlier ones too), mem_now[]
     * its resident set then, which drops when a stage frees its inputs.
     * PSI_MEM_LOAD is taken on entry to psi_check, with the history
     * loaded. 0: the stage did not run, or the platform cannot say. */
    uint64_t mem_peak[PSI_MEM_STAGES], mem_now[PSI_MEM_STAGES];
} psi_check_stats;

typedef struct psi_check_result {
    psi_verdict verdict;
    psi_reject_reason reason;
    psi_check_stats stats;
    psi_index idx;
    /* The polygraph; all zero where none was built: the polynomial levels,
     * complete timestamps, and a complete version order checked without
     * opts.keep_model (check/complete_pass.h: an accept, or a reject with
     * its cycle in prune.cycle[0]). */
    psi_polygraph g;
    /* After an accept of the restricted problem (restricted.h): its index,
     * whose read arrays g borrows; idx stays the history's own, and
     * model_choice is in its numbering. All zero otherwise. */
    psi_index cut_idx;
    psi_prune_result prune;
    /* PSI_BY_SOLVER: the cycle of the solver's last theory conflict, mapped
     * back to polygraph edges (may be empty). */
    psi_edge *solver_cycle;
    uint32_t solver_cycle_len;
    /* Accept with opts.keep_model: [g.n_cons] 1 when the model puts the
     * constraint's either side (t before s) in, 0 for the or side; entries
     * of constraints pruning resolved mirror their state. NULL otherwise. */
    uint8_t *model_either;
    /* Accept with opts.keep_model and reads with a choice of writers:
     * [idx.n_amb] the candidate (index into the read's candidates) the
     * model chose for each. NULL otherwise. */
    uint32_t *model_choice;
    /* With model_choice: the edges of the read-from choices (WR, and the
     * RW edges conditional on them) the model switched on. */
    psi_edge *model_choice_edges;
    uint64_t n_model_choice_edges;
    /* The level checked, and for the polynomial ones their result: on
     * accept a commit order, on PSI_BY_LEVEL the cycle. */
    psi_level level_checked;
    psi_level_result level;
    /* The polynomial levels on a history whose reads have a choice of
     * writers (check/level_choice.h): each such read, its candidates and
     * the writer it was resolved to (also in idx.read_src for the external
     * ones). Empty otherwise. */
    psi_level_choices rf;
    /* The known version orders used (opts.version_order), resolved: the
     * lines of the PSI_FROM_VERSION_ORDER edges in reported cycles. A
     * reject of a complete order without the polygraph resolves only the
     * edges its cycle rests on (psi_hints_of_cycle); n_all still counts
     * the whole order's. */
    psi_hints hints;
    /* The timestamps used (opts.timestamps), resolved; with
     * PSI_BY_TIMESTAMPS the violation they show. */
    psi_ts_info ts;
    psi_ts_violation ts_violation;
} psi_check_result;

/* Returns PSI_OK with a verdict, or an error (bad input, limits, memory):
 * then no verdict. Either way *res may hold what the stages built, so the
 * caller always ends with psi_check_result_free(res). */
psi_status psi_check(psi_history *h, const psi_check_opts *opts, psi_check_result *res,
                     psi_diag *d);
void psi_check_result_free(psi_check_result *res);

#endif
