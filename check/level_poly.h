/* The shared state of the polynomial levels' check (level.h), split
 * by job: level_poly.c builds the graph (SO, WR, the RC/RA forced edges,
 * list facts), orders it and finds the shortest cycle; level_cc.c adds
 * CC's forced edges from vector clocks over sessions. Internal to
 * check/. Ownership: everything an lctx points to is malloc'd by
 * psi_level_check and freed there before it returns. */
#ifndef PSI_CHECK_LEVEL_POLY_H
#define PSI_CHECK_LEVEL_POLY_H

#include "check/level.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#define NONE UINT32_MAX
/* Edge tags: SO, WR, or FORCED_BASE + index into forced[]. */
#define TAG_SO          0u
#define TAG_WR          1u
#define TAG_FORCED_BASE 2u
/* A list-append read's known version order on key (tag & ~TAG_LIST). */
#define TAG_LIST 0x80000000u
/* A given version order's pair on key (tag & ~TAG_ORDER): --version-order
 * at these levels (level.h, psi_level_check_hinted). Keys and forced
 * edges stay below it. */
#define TAG_ORDER 0x40000000u
/* CC refuses clock tables above this many entries (4 GiB): a history with
 * that many sessions times transactions needs another algorithm. */
#define MAX_CLOCK_ENTRIES (UINT64_C(1) << 30)

typedef struct cedge {
    uint32_t from, to, tag;
} cedge;

/* One RC pool entry: a key that became visible to the current
 * transaction through writer src, made visible by read op. */
typedef struct pool_ent {
    uint32_t next, src, op;
} pool_ent;

typedef struct lctx {
    const psi_history *h;
    const psi_index *idx;
    /* NULL, or [n_txns]: committed (optional) transactions left out, as
     * if aborted (psi_level_check_in) */
    const uint8_t *absent;
    /* the known version orders' edges (check/hints.h), NULL when none */
    const struct psi_hints *hints;
    psi_level level;
    bool per_read; /* RC, PL-2: every read not after an own write is a read event */
    psi_diag *d;
    cedge *e;
    size_t n_e, cap_e;
    psi_level_edge *forced;
    size_t n_forced, cap_forced;
    /* Per committed transaction t, its read events [r_off[t], r_off[t + 1])
     * in program order (key, source transaction, op) and the keys of its
     * final writes [w_off[t], w_off[t + 1]) in program order: built once in
     * one sequential pass (ev_build), because the passes below visit each
     * reader's sources and each writer's writes several times, and every
     * visit through ops[], op_info[] and op_txn[] was a cache miss per
     * operation on large histories. */
    uint32_t *r_off, *r_key, *r_src, *r_op; /* r_off [n_txns + 1], the others [reads] */
    uint32_t *w_off, *w_key;                /* w_off [n_txns + 1], w_key [final writes] */
    /* session << 32 | pos per transaction: SO tests without loading the
     * 40-byte transaction records */
    uint64_t *sp; /* [n_txns] */
    /* per-transaction scratch, indexed by key / transaction, stamped */
    uint32_t *key_stamp, *key_val, *key_head; /* [n_keys] */
    uint32_t *txn_stamp;                      /* [n_txns] */
    pool_ent *pool;                           /* RC lists of visible writers per key */
    size_t n_pool, cap_pool;
    uint32_t *srcs, *src_op; /* distinct sources of the current transaction */
    size_t n_srcs, cap_srcs;
    /* CC: vector clocks, one row of k positions + 1 per committed
     * transaction, row rank[t] for transaction t: ranks follow the
     * topological order of SO ∪ WR, so the rows a clock is pushed to and
     * the rows a read compares lie near each other in memory (by
     * transaction index they were a cache miss per edge and per read). */
    uint32_t *vc;   /* [n_live * k] */
    uint32_t *rank; /* [n_txns] row of each committed transaction, NONE otherwise */
    uint32_t k;
} lctx;

typedef struct csr {
    uint32_t n;
    uint64_t *off; /* [n + 1] */
    uint32_t *to, *tag;
} csr;

/* Whether t takes part: the initial transaction, or committed and not
 * left out. */
static inline bool psi_lp_committed(const lctx *c, uint32_t t)
{
    return t == PSI_INIT_TXN ||
           (c->h->txns[t].status == PSI_TXN_COMMITTED && !(c->absent && c->absent[t]));
}

/* t2 →(SO ∪ WR)+ t1 by CC's clocks (rank and vc filled). */
static inline bool psi_lp_hb_before(const lctx *c, uint32_t t2, uint32_t t1)
{
    if (t2 == PSI_INIT_TXN)
        return true;
    if (t1 == PSI_INIT_TXN)
        return false;
    assert(c->rank[t1] != NONE);
    return c->vc[(size_t)c->rank[t1] * c->k + (c->sp[t2] >> 32)] > (uint32_t)c->sp[t2];
}

/* The forced edge t2 -> t1 (level.h, psi_level_edge), unless SO (CC: SO
 * ∪ WR) implies it. false: out of memory. */
bool psi_lp_add_forced(lctx *c, uint32_t t2, uint32_t t1, uint32_t key, uint8_t premise,
                       uint32_t reader, uint32_t read_op, uint32_t read_op2);
/* The graph of edges e[0..n_e) over n nodes (skip_list: without the
 * list-append facts). false: out of memory. */
bool psi_lp_csr_build(const cedge *e, size_t n_e, uint32_t n, bool skip_list, csr *g);
void psi_lp_csr_free(csr *g);
/* Kahn over the committed transactions: order gets the ordered nodes;
 * returns how many. indeg is left with the remainder's in-degrees. */
uint32_t psi_lp_kahn(const lctx *c, const csr *g, uint32_t *order, uint32_t *indeg);
/* CC's forced edges (level_cc.c): clocks over SO ∪ WR, then per read the
 * latest writer of its key in each session of its causal past. A cycle
 * in SO ∪ WR adds none (finishing finds it). */
psi_status psi_lp_cc(lctx *c);

#endif
