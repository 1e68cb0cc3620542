/* The polygraph construction steps shared by the whole history and its
 * sub-histories (see polygraph_steps.h). */
#include "core/polygraph_steps.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>

psi_status psi_emit(psi_emitter *em, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    if (em->g)
        return psi_polygraph_add_known(em->g, from, to, type, key, PSI_FROM_HISTORY, em->d);
    psi_sub_polygraph *S = em->S;
    uint32_t lf = em->local[from], lt = em->local[to];
    if (lf == UINT32_MAX || lt == UINT32_MAX || lf == lt)
        return PSI_OK;
    if (!psi_grow((void **)&S->e, &S->cap_e, (size_t)S->n_e + 1, sizeof *S->e) ||
        S->n_e == UINT32_MAX)
        return psi_diag_nomem(em->d, "rebuilding a sub-history");
    uint8_t origin = em->cons < 0 ? PSI_FROM_HISTORY : PSI_FROM_CONSTRAINT;
    S->e[S->n_e++] = (psi_sub_edge){
        .e = {.from = lf, .to = lt, .key = key, .type = (uint8_t)type, .origin = origin},
        .cons = em->cons,
        .rc = em->rc,
        .side = em->side,
        .on = 1};
    return PSI_OK;
}

/* psi_edge_fn adapter, for constraint sides. */
bool psi_emit_fn(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    psi_emitter *em = ctx;
    em->st = psi_emit(em, from, to, type, key);
    return em->st == PSI_OK;
}

/* SO between consecutive committed transactions of each session, and the
 * initial transaction (when taking part) before each session's first.
 * txns: the sub-history's transactions, sorted; NULL for the whole
 * history. Transactions of a session are contiguous and in session order,
 * and sessions follow each other (history.h), so index order is enough. */
psi_status psi_so_edges(psi_emitter *em, const psi_history *h, const uint32_t *txns, uint32_t n,
                        bool has_init, uint64_t *count)
{
    uint32_t prev = PSI_INIT_TXN, total = txns ? n : h->n_txns;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t t = txns ? txns[i] : i;
        if (t == PSI_INIT_TXN || (!txns && h->txns[t].status != PSI_TXN_COMMITTED))
            continue;
        bool first = prev == PSI_INIT_TXN || h->txns[prev].session != h->txns[t].session;
        if (!first || has_init) {
            psi_status st = psi_emit(em, first ? PSI_INIT_TXN : prev, t, PSI_EDGE_SO, UINT32_MAX);
            if (st != PSI_OK)
                return st;
            (*count)++;
        }
        prev = t;
    }
    return PSI_OK;
}

/* WR from the writer every external read observed (reads of the initial
 * value need none: the initial transaction precedes everyone). The whole
 * history is walked in operation order and keeps one edge for consecutive
 * reads of one writer by one reader; a sub-history is walked transaction
 * by transaction and keeps one edge per key. */
psi_status psi_wr_edges(psi_emitter *em, const psi_history *h, const psi_index *idx,
                        const uint32_t *txns, uint32_t n, uint64_t *count)
{
    psi_polygraph *g = em->g;
    uint32_t total = txns ? n : 1;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t first = txns ? h->txns[txns[i]].first_op : 0;
        uint32_t end = txns ? first + h->txns[txns[i]].n_ops : h->n_ops;
        for (uint32_t o = first; o < end; o++) {
            uint32_t w = idx->read_src[o];
            if (w >= PSI_SRC_INIT)
                continue; /* not an external read of a committed writer */
            uint32_t from = idx->op_txn[w], to = idx->op_txn[o];
            if (!txns && g->n_known && g->known[g->n_known - 1].from == from &&
                g->known[g->n_known - 1].to == to && g->known[g->n_known - 1].type == PSI_EDGE_WR)
                continue;
            psi_status st = psi_emit(em, from, to, PSI_EDGE_WR, h->ops[o].key);
            if (st != PSI_OK)
                return st;
            (*count)++;
        }
    }
    return PSI_OK;
}

/* The initial transaction is first in every version order: every reader
 * of the key's initial value (readers[0..nr), transactions) anti-depends
 * on every writer (final writes w_op[0..nw)) other than itself. */
psi_status psi_init_rw_edges(psi_emitter *em, const uint32_t *op_txn, uint32_t key,
                             const uint32_t *readers, uint32_t nr, const uint32_t *w_op,
                             uint32_t nw, uint64_t *count)
{
    for (uint32_t r = 0; r < nr; r++) {
        for (uint32_t w = 0; w < nw; w++) {
            uint32_t writer = op_txn[w_op[w]];
            if (writer == readers[r])
                continue;
            psi_status st = psi_emit(em, readers[r], writer, PSI_EDGE_RW, key);
            if (st != PSI_OK)
                return st;
            (*count)++;
        }
    }
    return PSI_OK;
}

/* Writers a < b of a key's list w_op (in transaction order) as a pair. */
psi_pair psi_writer_pair(const uint32_t *op_txn, const uint32_t *w_op, uint32_t a, uint32_t b,
                         uint32_t key)
{
    uint32_t oa = w_op[a], ob = w_op[b];
    return (psi_pair){.t = op_txn[oa], .s = op_txn[ob], .k = {.key = key, .op_t = oa, .op_s = ob}};
}

/* One side of writer pair (t, s) over keys ks[0..n): WW from the writer
 * installed first to the other (once, keyed by the first key), and RW from
 * every reader of the first writer's write of each key to the other. */
bool psi_side_edges(const psi_polygraph *g, uint32_t t, uint32_t s, const psi_ckey *ks, uint32_t n,
                    bool either, psi_edge_fn fn, void *ctx)
{
    uint32_t from = either ? t : s, to = either ? s : t;
    if (!fn(ctx, from, to, PSI_EDGE_WW, ks[0].key))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t op = either ? ks[i].op_t : ks[i].op_s, nr;
        const uint32_t *rd = psi_polygraph_readers(g, op, &nr);
        for (uint32_t r = 0; r < nr; r++)
            if (rd[r] != to && !fn(ctx, rd[r], to, PSI_EDGE_RW, ks[i].key))
                return false;
    }
    return true;
}
