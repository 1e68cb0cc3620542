/* List-append version-order facts (see list_order.h). Shared by the
 * polygraph (SI, SER, PC, PSI) and the polynomial levels, so every level
 * reads the same order from the same lists. */
#include "core/list_order.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* The unique committed appender of value on key, or NONE. */
static uint32_t unique_appender(const psi_history *h, const psi_index *idx, uint32_t key,
                                uint64_t value)
{
    uint32_t w = psi_index_writer(idx, key, value);
    if (w == PSI_SRC_NONE || h->txns[idx->op_txn[w]].status != PSI_TXN_COMMITTED)
        return NONE;
    if (idx->dup_prev && idx->dup_prev[w] != PSI_SRC_NONE)
        return NONE; /* a repeated value: which append it was is unknown */
    return idx->op_txn[w];
}

bool psi_list_ww_facts(const psi_history *h, const psi_index *idx, psi_list_ww_fn fn, void *ctx,
                       bool *nomem)
{
    *nomem = false;
    if (!h->n_list_reads)
        return true;
    size_t nk = h->n_keys ? h->n_keys : 1;
    uint32_t *longest = malloc(nk * sizeof *longest);
    /* stamp[t] == key + 1: t appended an element of key's longest list. */
    uint32_t *stamp = calloc(h->n_txns ? h->n_txns : 1, sizeof *stamp);
    if (!longest || !stamp) {
        free(longest);
        free(stamp);
        *nomem = true;
        return false;
    }
    memset(longest, 0xff, nk * sizeof *longest);
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        if (!(idx->op_info[lr->op] & PSI_OI_LIVE))
            continue;
        uint32_t key = h->ops[lr->op].key;
        if (longest[key] == NONE || h->list_reads[longest[key]].len < lr->len)
            longest[key] = i;
    }
    bool ok = true;
    for (uint32_t key = 0; key < h->n_keys && ok; key++) {
        if (longest[key] == NONE)
            continue;
        const psi_list_read *lr = &h->list_reads[longest[key]];
        uint32_t prev = NONE, k = 0;
        for (; k < lr->len && ok; k++) {
            uint32_t t = unique_appender(h, idx, key, h->list_vals[lr->first + k]);
            if (t == NONE)
                break;
            stamp[t] = key + 1;
            if (prev != NONE && t != prev)
                ok = fn(ctx, prev, t, key);
            prev = t;
        }
        if (!ok || k < lr->len || prev == NONE)
            continue; /* an element without a unique appender, or [] */
        /* The tail: every other committed final append of key. */
        for (uint32_t j = idx->w_first[key]; j < idx->w_first[key + 1] && ok; j++) {
            uint32_t o = idx->w_op[j];
            uint32_t t = idx->op_txn[o];
            if (!(idx->op_info[o] & PSI_OI_FINAL_WRITE) || h->txns[t].status != PSI_TXN_COMMITTED ||
                stamp[t] == key + 1)
                continue;
            assert(t != prev);
            ok = fn(ctx, prev, t, key);
        }
    }
    free(longest);
    free(stamp);
    return ok;
}
