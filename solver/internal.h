/* The solver's private state and the small helpers every solver file shares.
 *
 * Internal literals are unsigned: 2*v for variable v (0-based) and 2*v+1 for
 * its negation. Clauses live in one flat arena of uint32_t words addressed by
 * offsets ("crefs"), so a reference costs 4 bytes and clause memory is
 * contiguous; see clause.c for the layout. Not for use outside solver/. */
#ifndef PSI_SOLVER_INTERNAL_H
#define PSI_SOLVER_INTERNAL_H

#include "invariants.h"
#include "options.h"
#include "sat.h"
#include "theory.h"
#include "vec.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

typedef uint32_t lit_t;

#define LIT_UNDEF UINT32_MAX
/* Reason codes besides arena offsets. */
#define REASON_NONE   UINT32_MAX       /* decision or root-level unit */
#define REASON_THEORY (UINT32_MAX - 1) /* implied by the theory, not yet explained */
#define REASON_UNIT   (UINT32_MAX - 2) /* explained by a theory lemma of size one */
#define CREF_MAX      (UINT32_MAX - 16)

/* Clause header: word 0 = size, word 1 = flags and glue. CL_THEORY marks a
 * theory lemma (an explanation stored by psi_reason_of): its implied literal
 * may deserve a lower level than the one the theory implied it at, so after
 * a backjump such a clause can be unit without being propagated. That is
 * sound, merely a missed implication, and the one exception to "nothing is
 * unit at a fixpoint" that the debug checker allows. */
#define CL_HDR        2
#define CL_LEARNT     1u
#define CL_DELETED    2u
#define CL_THEORY     4u
#define CL_MOVED      8u
#define CL_USED       16u /* learned clause took part in an analysis since the last reduction */
#define CL_VIVIFIED   32u /* learned clause vivify.c tried already (or made) */
#define CL_GLUE_SHIFT 8

/* A watch: the blocking literal and the clause; binary clauses keep the
 * other literal as blocker and are flagged so propagation never touches
 * the arena for them. */
#define WATCH_BIN 0x80000000u
typedef struct watch {
    lit_t blocker;
    uint32_t ref; /* cref | WATCH_BIN */
} watch;

typedef struct watches {
    watch *w;
    uint32_t n, cap;
} watches;

struct psi_sat {
    /* Variables (indexed by 0-based var) and literals. */
    uint32_t nvars, cap_vars;
    int8_t *vals;        /* per literal: 1 true, -1 false, 0 unassigned */
    uint32_t *level;     /* per var */
    uint32_t *reason;    /* per var: cref or REASON_* */
    uint32_t *trail_pos; /* per var: index on the trail */
    uint8_t *phase;      /* per var: saved polarity, 1 = negative */
    uint8_t *target;     /* per var: polarity in the longest conflict-free trail */
    uint8_t *best;       /* per var: polarity in the longest such trail since the last rephase */
    uint8_t *seen;       /* per var: analysis marks */
    uint8_t *observed;   /* per var: theory wants to hear about it */
    double *activity;    /* per var: VSIDS score */
    watches *watches;    /* per literal: clauses watching that literal */
    /* Decision heap (binary max-heap on activity). */
    uint32_t *heap, heap_n;
    uint32_t *heap_pos; /* UINT32_MAX when not in the heap */
    double var_inc, var_decay;

    /* Trail. */
    lit_t *trail;
    uint32_t trail_n, qhead, theory_head;
    u32vec trail_lim; /* trail size at the start of each level */

    /* Clause arena. */
    uint32_t *arena;
    size_t arena_n, arena_cap, arena_wasted;
    u32vec originals, learnts;

    /* Analysis scratch. */
    u32vec learnt, to_clear, stack, tconfl;
    uint32_t *lvl_stamp; /* per level, for glue */
    uint32_t lvl_stamp_cap, stamp;

    /* Assumptions and the final conflict (public literals). */
    u32vec assumptions;
    psi_lits final_conflict;
    uint8_t *failed; /* per literal */

    /* Model after SAT, per var: 1 true, -1 false. */
    int8_t *model;
    bool has_model;
    bool inconsistent; /* empty clause derived at root */
    bool nomem;

    /* Theory. */
    bool has_theory;
    psi_theory theory;
    psi_theory_out tout;
    u32vec late; /* root literals observed after they were handed over */
    psi_lits scratch;

    /* Search control. The schedules below start from the options. */
    psi_sat_options opt;
    bool started; /* a solve has begun: options are fixed from then on */
    int64_t conflict_limit;
    double time_limit, start_time;
    double theory_wall; /* coarse wall seconds in theory callbacks, this solve */
    uint64_t conflicts_at_start;
    void (*progress)(void *ctx, uint64_t conflicts); /* psi_sat_set_progress */
    void *progress_ctx;
    double ema_fast, ema_slow;
    double ema_trail; /* trail size at conflicts (restart blocking) */
    uint64_t ema_count;
    uint64_t restart_at_conflicts, conflicts_since_restart;
    bool stable;
    uint64_t mode_switch_at, mode_len;
    uint64_t mode_props_unit, mode_props_at; /* opt.mode_ticks: the first focused phase's
                                              * propagations, and when the phase ends */
    uint64_t luby_i, luby_limit;
    uint64_t reduce_at, reduce_inc;
    uint32_t target_assigned; /* size of the trail saved in target[] */
    uint32_t best_assigned;   /* size of the trail saved in best[] */
    uint64_t rephase_at, rephases;
    uint64_t walks;           /* local-search rounds (walk.c) */
    uint32_t walk_broken;     /* original clauses the last walk left falsified */
    uint64_t props_at_walk;   /* propagations when the last walk ended */
    uint32_t simplified_root; /* root trail size at the last simplification */
    uint64_t simplify_at;     /* conflicts before the next simplification */
    uint64_t props_at_vivify; /* search propagations when the last vivification ended */
    bool vivify_due;          /* a reduction asked for a vivification round */
    bool sym_tried;           /* the first solve looked for symmetries (opt.symmetry) */
    bool sym_added;           /* ... and added clauses breaking them: one-shot from then on */
    bool resume;              /* psi_sat_set_resume: keep a model's trail for the next solve */

    /* Debug checker (invariants.h; used only with PSI_CHECK). */
    psi_check_sched check;
    bool check_fixpoint; /* check the fixpoint after a checked conflict */

    /* Proof. */
    FILE *proof;
    char *proof_buf;
    size_t proof_n;

    psi_sat_stats st;
};

/* Literal helpers. */
static inline uint32_t lit_var(lit_t l)
{
    return l >> 1;
}
static inline lit_t lit_neg(lit_t l)
{
    return l ^ 1u;
}
static inline lit_t lit_of_int(int x)
{
    return x > 0 ? (lit_t)(x - 1) * 2u : (lit_t)(-(x + 1)) * 2u + 1u;
}
static inline int lit_to_int(lit_t l)
{
    int v = (int)lit_var(l) + 1;
    return (l & 1u) ? -v : v;
}
static inline uint32_t *cl_lits(psi_sat *s, uint32_t cref)
{
    return s->arena + cref + CL_HDR;
}
static inline uint32_t cl_size(const psi_sat *s, uint32_t cref)
{
    return s->arena[cref];
}
static inline uint32_t cl_flags(const psi_sat *s, uint32_t cref)
{
    return s->arena[cref + 1];
}
static inline uint32_t decision_level(const psi_sat *s)
{
    return (uint32_t)s->trail_lim.n;
}

bool psi_watch_grow(watches *ws);

/* Appends a watch; the growth path is out of line to keep propagation tight. */
static inline bool psi_watch_push(watches *ws, watch w)
{
    if (ws->n == ws->cap && !psi_watch_grow(ws))
        return false;
    ws->w[ws->n++] = w;
    return true;
}

/* clause.c: arena allocation, attaching, deleting, garbage collection. */
uint32_t psi_clause_new(psi_sat *s, const lit_t *lits, uint32_t n, bool learnt, uint32_t glue);
void psi_clause_attach(psi_sat *s, uint32_t cref);
void psi_clause_delete(psi_sat *s, uint32_t cref);
bool psi_clause_locked(const psi_sat *s, uint32_t cref);
bool psi_clause_satisfied(const psi_sat *s, uint32_t cref);
bool psi_clause_collect(psi_sat *s);

/* Are all n literals false? For assertions on conflicts and lemmas. */
static inline bool psi_all_false(const psi_sat *s, const lit_t *lits, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (s->vals[lits[i]] >= 0)
            return false;
    return true;
}

/* assign.c: trail and backtracking. Chronological backtracking (Nadel and
 * Ryvchin, SAT 2018) makes the trail "out of order": an implied literal
 * takes the highest level of its reason's other literals, which may be
 * below the current decision level, so levels need not increase along the
 * trail. What holds: a literal's level is at most the decision level at the
 * time it was assigned, every reason literal precedes the literal it implies
 * on the trail and has a level no higher than it, and everything before
 * trail_lim[k] has a level of at most k. */
static inline void psi_assign_at(psi_sat *s, lit_t l, uint32_t reason, uint32_t level)
{
    uint32_t v = lit_var(l);
    assert(v < s->nvars && s->vals[l] == 0 && s->vals[lit_neg(l)] == 0);
    assert(s->trail_n < s->nvars && level <= (uint32_t)s->trail_lim.n);
    s->vals[l] = 1;
    s->vals[lit_neg(l)] = -1;
    s->level[v] = level;
    s->reason[v] = reason;
    s->trail_pos[v] = s->trail_n;
    s->trail[s->trail_n++] = l;
}

/* Assigns at the current decision level (decisions, theory implications). */
static inline void psi_assign(psi_sat *s, lit_t l, uint32_t reason)
{
    psi_assign_at(s, l, reason, (uint32_t)s->trail_lim.n);
}
void psi_backtrack(psi_sat *s, uint32_t level);
void psi_new_level(psi_sat *s);

/* options.c: defaults, and the schedules that start from the options. */
void psi_options_init(psi_sat *s);

/* heap.c: VSIDS decisions. */
bool psi_heap_insert(psi_sat *s, uint32_t v);
uint32_t psi_heap_pop(psi_sat *s);
void psi_var_bump(psi_sat *s, uint32_t v);
void psi_var_decay(psi_sat *s);

/* propagate.c: unit propagation plus the theory; returns the conflict. */
typedef struct conflict {
    const uint32_t *lits; /* NULL: no conflict */
    uint32_t n;
} conflict;
conflict psi_propagate(psi_sat *s);

/* analyze.c */
int psi_analyze(psi_sat *s, conflict c, uint32_t *bt_level, uint32_t *glue);
int psi_analyze_final(psi_sat *s, lit_t p);
uint32_t psi_reason_of(psi_sat *s, uint32_t v);

/* reduce.c */
bool psi_reduce(psi_sat *s);
bool psi_simplify(psi_sat *s);

/* proof.c */
void psi_proof_add(psi_sat *s, const lit_t *lits, uint32_t n);
void psi_proof_delete(psi_sat *s, const lit_t *lits, uint32_t n);
void psi_proof_flush(psi_sat *s);

/* walk.c: local search from the saved phases, at the root, without a
 * theory; sets phase[] and target[] to the best assignment found within
 * flips steps. False on ENOMEM (phases unchanged). */
bool psi_walk(psi_sat *s, uint64_t flips, bool use_target);

/* symmetry.c: static symmetry breaking at the first solve (opt.symmetry):
 * adds lex-leader clauses for the verified row and column swaps of a
 * pigeonhole-like matrix. They are not implied by the formula (only
 * satisfiability is kept), hence no proof, theory or assumptions with it,
 * and no clauses or assumptions after it (sat.c refuses them). Returns 0
 * or PSI_SAT_ENOMEM. */
int psi_symmetry_break(psi_sat *s);

/* vivify.c: shortens learned clauses by probing (opt.vivify_effort), at
 * the root at a propagation fixpoint, without a theory or assumptions.
 * False on ENOMEM. */
bool psi_vivify(psi_sat *s);

/* search.c */
int psi_search(psi_sat *s);

/* invariants.c: the debug checker. psi_sat_check_invariants returns false
 * and describes the first violation in why. Reads only. Every mode checks
 * the trail, levels, reasons and the decision heap, in O(variables). */
typedef enum psi_sat_check_mode {
    PSI_SAT_CHECK_STRUCTURE, /* + clause lists and watches: O(clause memory) */
    PSI_SAT_CHECK_FIXPOINT,  /* + what holds after propagation without conflict */
    PSI_SAT_CHECK_ALL,       /* both */
} psi_sat_check_mode;
bool psi_sat_check_invariants(const psi_sat *s, psi_sat_check_mode mode, char *why, size_t why_n);
void psi_sat_check_or_die(const psi_sat *s, psi_sat_check_mode mode);

#endif
