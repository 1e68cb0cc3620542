/* Dropping aborted attempts' operations once validation has spoken (see
 * index.h, psi_index_drop_aborted).
 *
 * An aborted transaction takes part in nothing after validation: its
 * writes only matter for G1a (a committed read of one of them), which
 * validation has already looked for, and it has no edge in any graph. Yet
 * on histories of retried conflicts most operations are such attempts
 * (78 % at 10^6 committed transactions under zipf 0.99), and the history's
 * ops and the index's per-operation arrays kept them to the end. Here they
 * go: the kept operations move down in their order, every operation index
 * the index holds is renumbered, and the arrays shrink. Transactions keep
 * their indices, so nothing that names transactions changes. */
#include "core/index.h"

#include <assert.h>
#include <stdlib.h>

/* Shrinks *p to n elements of size elem (at least one, as the history's
 * arrays are never NULL); on failure the larger block stays, which is
 * only memory. */
static void shrink(void **p, size_t n, size_t elem)
{
    void *q = realloc(*p, (n ? n : 1) * elem);
    if (q)
        *p = q;
}

/* The new index of op o, a write or read of kept transaction t = op_txn[o]
 * as before the move. */
static inline uint32_t moved(const psi_history *h, const uint32_t *new_first,
                             const uint32_t *op_txn, uint32_t o)
{
    if (o >= PSI_SRC_INIT)
        return o; /* PSI_SRC_INIT, PSI_SRC_NONE */
    uint32_t t = op_txn[o];
    assert(new_first[t] != UINT32_MAX && "an index refers to a dropped operation");
    return new_first[t] + (o - h->txns[t].first_op);
}

psi_status psi_index_drop_aborted(psi_history *h, psi_index *idx, uint64_t *dropped, psi_diag *d)
{
    *dropped = 0;
    assert(idx->n_anomalies == 0);
    if (!idx->n_aborted || h->n_list_reads)
        return PSI_OK;
    uint64_t gone = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].status == PSI_TXN_ABORTED)
            gone += h->txns[t].n_ops;
    if (!gone)
        return PSI_OK;
    /* new_first[t]: where t's first operation goes, UINT32_MAX when t's
     * operations are dropped. Operations are walked in their order, so
     * the kept ones keep theirs; a transaction's are contiguous (history.h). */
    uint32_t *new_first = malloc((size_t)h->n_txns * sizeof *new_first);
    if (!new_first)
        return psi_diag_nomem(d, "dropping aborted transactions' operations");
    /* Value lookups are over: the write map and dup_prev name aborted
     * writes too, and nothing after the polygraph's construction asks. */
    psi_index_release_writes(idx);
    free(idx->dup_prev);
    idx->dup_prev = NULL;
    for (uint32_t t = 0; t < h->n_txns; t++)
        new_first[t] = UINT32_MAX;
    uint32_t n = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t t = idx->op_txn[o];
        assert(o - h->txns[t].first_op < h->txns[t].n_ops);
        if (h->txns[t].status == PSI_TXN_ABORTED)
            continue;
        if (o == h->txns[t].first_op)
            new_first[t] = n;
        n++;
    }
    assert((uint64_t)n + gone == h->n_ops);

    /* Values that are operation indices, renumbered while op_txn still
     * answers for the old ones. Aborted writes are nobody's source (that
     * would have been G1a), so every value has a new place. */
    for (uint32_t o = 0; o < h->n_ops; o++)
        idx->read_src[o] = moved(h, new_first, idx->op_txn, idx->read_src[o]);
    for (uint32_t a = 0; a < idx->n_amb; a++)
        idx->amb[a].op = moved(h, new_first, idx->op_txn, idx->amb[a].op);
    for (uint64_t c = 0; c < idx->n_amb_cand; c++)
        idx->amb_cand[c] = moved(h, new_first, idx->op_txn, idx->amb_cand[c]);

    /* Then the per-operation arrays move down (in place: n <= o). */
    uint32_t k = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t t = idx->op_txn[o];
        if (h->txns[t].status == PSI_TXN_ABORTED)
            continue;
        h->ops[k] = h->ops[o];
        idx->op_txn[k] = t;
        idx->read_src[k] = idx->read_src[o];
        idx->op_info[k] = idx->op_info[o];
        k++;
    }
    assert(k == n);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        psi_txn *tx = &h->txns[t];
        if (tx->status == PSI_TXN_ABORTED)
            tx->n_ops = 0;
        /* An empty transaction points at the start, which exists. */
        tx->first_op = tx->n_ops ? new_first[t] : 0;
    }
    free(new_first);
    h->n_ops = n;
    h->n_dropped_ops += gone;
    shrink((void **)&h->ops, n, sizeof *h->ops);
    shrink((void **)&idx->op_txn, n, sizeof *idx->op_txn);
    shrink((void **)&idx->read_src, n, sizeof *idx->read_src);
    shrink((void **)&idx->op_info, n, sizeof *idx->op_info);
    *dropped = gone;
    return PSI_OK;
}
