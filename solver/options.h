/* The solver's tuning options: every constant that steers the search, in one
 * table with its meaning, default and allowed range.
 *
 * X(name, kind, default, min, max, meaning): kind INT options take whole
 * numbers (stored as uint64_t), REAL options any value in range (double).
 * Set them by name with psi_sat_set_option (sat.h), before the first solve:
 * the restart, mode and reduction schedules start from them. The defaults
 * are the values the solver was tuned with (bench/solver/README.md); with
 * them its behaviour is exactly that of the constants they replaced.
 *
 * Restarts alternate between two modes (search.c): "focused" phases restart
 * when the fast average of learned-clause glue rises above restart_margin
 * times the slow one; "stable" phases restart on a Luby schedule. The first
 * focused and the first stable phase last mode_conflicts conflicts each;
 * each later pair of phases lasts twice as long as the one before. */
#ifndef PSI_SOLVER_OPTIONS_H
#define PSI_SOLVER_OPTIONS_H

#include <stdint.h>

/* clang-format off */
#define PSI_SAT_OPTIONS(X)                                                                         \
    X(decay_focused,     REAL, 0.95,  0.5, 1.0,                                                    \
      "VSIDS: activity decay per conflict in focused mode (bump increment grows by 1/decay)")      \
    X(decay_stable,      REAL, 0.975, 0.5, 1.0,                                                    \
      "VSIDS: activity decay per conflict in stable mode")                                         \
    X(ema_fast,          INT,  32,    1,   1e9,                                                    \
      "window, in conflicts, of the fast moving average of glue (focused restarts)")               \
    X(ema_slow,          INT,  4096,  1,   1e9,                                                    \
      "window, in conflicts, of the slow moving average of glue (focused restarts)")               \
    X(restart_margin,    REAL, 1.1,   1.0, 10.0,                                                   \
      "focused mode restarts when the fast glue average exceeds margin times the slow one")        \
    X(restart_min,       INT,  2,     1,   1e9,                                                    \
      "conflicts since the last restart before focused mode may restart again")                    \
    X(luby_unit,         INT,  512,   1,   1e9,                                                    \
      "stable mode: conflicts per unit of the Luby restart sequence (1 1 2 1 1 2 4 ...)")          \
    X(mode_conflicts,    INT,  1000,  1,   1e12,                                                   \
      "conflicts of the first focused and of the first stable phase; later pairs double")          \
    X(reduce_first,      INT,  2000,  1,   1e12,                                                   \
      "conflicts before the first reduction of the learned clauses")                               \
    X(reduce_step,       INT,  300,   1,   1e9,                                                    \
      "after the k-th reduction the next one comes k * reduce_step conflicts later")               \
    X(reduce_keep_glue,  INT,  2,     0,   1e9,                                                    \
      "learned clauses of glue at most this are kept forever (the core tier)")                     \
    X(reduce_fraction,   REAL, 0.5,   0.0, 1.0,                                                    \
      "share of the other unlocked learned clauses deleted per reduction, worst (glue, length) first")\
    X(reduce_tier2_glue, INT,  0,     0,   1e9,                                                    \
      "learned clauses of glue at most this survive a reduction if used in an analysis since the last")\
    X(glue_update,       INT,  1,     0,   1,                                                      \
      "1: a learned clause used in an analysis gets its glue recomputed, keeping the lower "      \
      "(not with a theory)")                                                                       \
    X(bump_reasons,      INT,  1,     0,   1,                                                      \
      "1: also bump the variables of the reasons of the learned clause's literals (Kissat; "      \
      "not with a theory)")                                                                        \
    X(simplify_interval, INT,  1000,  1,   1e12,                                                   \
      "conflicts between removals of clauses satisfied at the root (when new root units exist)")   \
    X(initial_phase,     INT,  0,     0,   1,                                                      \
      "polarity a variable is first decided with: 0 false (as MiniSat), 1 true")                  \
    X(restart_block,     REAL, 1.4,   0.0, 100.0,                                                  \
      "a conflict with a trail this many times the average postpones the next restart (0: off)")\
    X(restart_block_min, INT,  0,     0,   1e12,                                                   \
      "conflicts before restart blocking starts")                                                  \
    X(ema_trail,         INT,  5000,  1,   1e9,                                                    \
      "window, in conflicts, of the moving average of the trail size (restart blocking)")          \
    X(modes,             INT,  0,     0,   2,                                                      \
      "restart modes: 0 alternate focused and stable phases, 1 focused only, 2 stable only")       \
    X(target_phases,     INT,  1,     0,   2,                                                      \
      "decide by the longest conflict-free trail's polarities: 0 never, 1 in stable mode, 2 always")\
    X(rephase_interval,  INT,  1000,  0,   1e12,                                                   \
      "k-th reset of saved phases to the best trail's after k times this many conflicts "          \
      "(0: off; never with a theory)")                                                             \
    X(walk_effort,       INT,  100,   0,   1e6,                                                    \
      "every other rephase first walks (local search, walk.c) for this many flips per thousand "   \
      "propagations since the last walk (0: off; never with a theory)")                           \
    X(rephase_stable,    INT,  1,     0,   1,                                                      \
      "1: rephase only in stable mode (as Kissat); 0: in both modes")                             \
    X(rephase_cycle,     INT,  1,     0,   1,                                                      \
      "0: every rephase takes the best phases, every other one walks from them; 1: Kissat's "     \
      "cycle best, walk, inverted, best, walk, original (walks from the saved phases)")            \
    X(target_reset,      INT,  1,     0,   1,                                                      \
      "1: each restart forgets the target trail; 0: only a rephase does (CaDiCaL, Kissat; "       \
      "with a theory always 1)")                                                                   \
    X(mode_ticks,        INT,  1,     0,   1,                                                      \
      "1: after the first focused phase, mode phases last as many propagations as it took "       \
      "(doubling per pair) instead of conflicts (not with a theory)")                              \
    X(shrink,            INT,  1,     0,   1,                                                      \
      "1: after minimization, replace each level's learned literals by their block UIP when "     \
      "possible (Fleury and Biere, SAT 2021; not with a theory)")                                 \
    X(symmetry,          INT,  0,     0,   1,                                                      \
      "1: the first solve breaks verified row/column symmetries of a pigeonhole-like matrix "    \
      "(symmetry.c); one-shot: later clauses and assumptions are refused; not with a proof, a "  \
      "theory or assumptions")                                                                     \
    X(symmetry_clique,   INT,  1,     0,   1,                                                      \
      "with symmetry: when only the columns are interchangeable (a colouring's colours), fix "   \
      "the columns of a greedy clique of mutually exclusive rows (symmetry.c)")                    \
    X(binary_minimize,   INT,  30,    0,   1e9,                                                    \
      "learned clauses of up to this many literals lose those a binary clause with the asserting "\
      "literal resolves away (Glucose; 0: off; not with a theory)")                               \
    X(vivify_effort,     INT,  100,   0,   1e6,                                                    \
      "after each reduction, vivify learned clauses (vivify.c) for this many propagations per "   \
      "thousand of the search's since the last round (0: off; never with a theory)")             \
    X(vivify_glue,       INT,  6,     0,   1e9,                                                    \
      "learned clauses of glue at most this are vivified")                                         \
    X(chrono,            INT,  100,   0,   1e9,                                                    \
      "a backjump over more levels than this only undoes the conflict level (0: never)")
/* clang-format on */

#define PSI_SAT_OPT_TYPE_INT  uint64_t
#define PSI_SAT_OPT_TYPE_REAL double

/* The current values, one field per option (held by the solver). */
typedef struct psi_sat_options {
#define PSI_SAT_OPT_FIELD(name, kind, def, lo, hi, doc) PSI_SAT_OPT_TYPE_##kind name;
    PSI_SAT_OPTIONS(PSI_SAT_OPT_FIELD)
#undef PSI_SAT_OPT_FIELD
} psi_sat_options;

#endif
