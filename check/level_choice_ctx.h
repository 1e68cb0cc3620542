/* The state of the choice search at the polynomial levels (see
 * level_choice.h), split by job: level_choice.c collects the choice
 * reads, encodes them and runs the search with the level check as its
 * theory; level_choice_prune.c excludes candidates before the search;
 * level_outcome.c gives optional transactions (unknown outcome) their
 * outcome variables. Internal to check/. Ownership: every array in a
 * cctx is malloc'd during psi_level_check_choices and freed before it
 * returns, except out (the caller's). */
#ifndef PSI_CHECK_LEVEL_CHOICE_CTX_H
#define PSI_CHECK_LEVEL_CHOICE_CTX_H

#include "check/level_choice.h"
#include "solver/sat.h"
#include "solver/theory.h"

#include <stdbool.h>
#include <stdint.h>

#define NONE UINT32_MAX

typedef struct cctx {
    const psi_history *h;
    psi_index *idx;
    psi_index view; /* idx with src (and info) swapped in */
    uint32_t *src;  /* [n_ops] the view's read_src */
    uint8_t *info;  /* [n_ops] the view's op_info, or NULL when idx's serves */
    bool per_read;  /* RC, PL-2 */
    psi_level level;
    /* Optional transactions (core/index.h, psi_index.opt; level_outcome.h):
     * absent [n_txns] the view's left-out ones (those the search has not
     * committed), out_var [n_txns] each one's outcome variable (0: none),
     * var_txn [n_vars + 1] the transaction of an outcome variable. All
     * NULL when the index has none. */
    uint8_t *absent;
    int *out_var;
    uint32_t *var_txn;
    int n_vars;      /* variables the search uses */
    int n_cand_vars; /* 1..n_cand_vars are candidates' (var_cand) */
    /* Pruning: each key's committed final writers, by session then
     * position: wt[woff[x] .. woff[x + 1]). */
    uint64_t *woff;
    uint32_t *wt;
    psi_level_choices *out;
    uint32_t *topo_rank; /* [n_txns] place in the known graph's order, NONE if unplaced */
    int *var;            /* [n_cand] solver variable of an open candidate, 0 if none */
    int *clause;
    size_t cap_clause;
    uint32_t *stamp;  /* [n_reads] dependency marks */
    uint32_t *tstamp; /* [n_txns] dependency marks of outcomes (with out_var) */
    uint32_t stamp_now;
    /* causal paths: BFS scratch [n_txns] */
    uint32_t *next, *next_op, *queue;
    /* search: candidate of each variable, read of each candidate, the
     * theory's notifications, its scratch and last violating results */
    uint64_t *var_cand;
    uint32_t *cand_read;
    struct lc_note *notes;
    size_t n_notes, cap_notes;
    psi_level_result scratch, last_bad;
    psi_status th_status;
    psi_diag *d;
} cctx;

/* A committed transaction of the index (optional ones included). */
static inline bool psi_lc_committed(const psi_history *h, uint32_t t)
{
    return t == PSI_INIT_TXN || h->txns[t].status == PSI_TXN_COMMITTED;
}

static inline uint32_t psi_lc_cand_txn(const cctx *c, uint32_t s)
{
    return s == PSI_SRC_INIT ? PSI_INIT_TXN : c->idx->op_txn[s];
}

/* The writer transaction of read event o in the view, NONE if o is none
 * or its writer is open. */
static inline uint32_t psi_lc_view_src_txn(const cctx *c, uint32_t o)
{
    uint8_t in = c->view.op_info[o];
    uint32_t s = PSI_SRC_NONE;
    if (in & PSI_OI_EXTERNAL_READ)
        s = c->src[o];
    else if (c->per_read && (in & PSI_OI_REPEAT_READ) && (in & PSI_OI_LIVE))
        s = psi_index_repeat_src(c->h, c->idx, o);
    return s == PSI_SRC_NONE ? NONE : psi_lc_cand_txn(c, s);
}

/* Pruning (level_choice_prune.c): excludes the candidates every commit
 * order refuses, settles reads left with one. false: out of memory. */
bool psi_lc_prune(cctx *c);

/* level_outcome.c. */
/* Allocates absent (every optional transaction absent) and out_var. */
bool psi_lc_outcome_init(cctx *c);
/* Outcome variables from c->n_vars + 1 on (level_outcome.h). false: out
 * of memory. */
bool psi_lc_outcome_vars(cctx *c, psi_sat *s);
/* The clauses tying reads to outcomes, once the candidates have their
 * variables (c->var). false: out of memory. */
bool psi_lc_outcome_clauses(cctx *c, psi_sat *s);
/* The model's outcomes into absent. */
void psi_lc_outcome_take(cctx *c, psi_sat *s);
/* absent: the optional transactions no committed reader needs under
 * the view's read-from (SI's, level_lattice.h), closed transitively. */
void psi_lc_outcome_closure(cctx *c);

#endif
