/* Copies of the index's dup_prev chains for pass 5 (index_ctx.h,
 * psi_index_dup_chain): every read of a repeated (key, value) walks the
 * same chain of its writes, so it is copied once, with each write's
 * transaction's session and place and its op_info bits side by side. */
#include "core/index_ctx.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>

const psi_dup_rec *psi_index_dup_chain(index_ctx *c, uint32_t last)
{
    const psi_index *idx = c->idx;
    if (!c->chain_at && !(c->chain_at = calloc(c->h->n_ops, sizeof *c->chain_at)))
        return NULL;
    if (c->chain_at[last])
        return c->chains + c->chain_at[last] - 1;
    size_t at = c->n_chains;
    for (uint32_t w = last;; w = prev_dup(idx, w)) {
        if (!psi_grow((void **)&c->chains, &c->cap_chains, c->n_chains + 1, sizeof *c->chains))
            return NULL;
        if (w == PSI_SRC_NONE) {
            c->chains[c->n_chains++] = (psi_dup_rec){.w = PSI_SRC_NONE};
            break;
        }
        const psi_txn *wt = &c->h->txns[idx->op_txn[w]];
        c->chains[c->n_chains++] =
            (psi_dup_rec){.w = w, .session = wt->session, .pos = wt->pos, .info = idx->op_info[w]};
    }
    assert(at < UINT32_MAX);
    c->chain_at[last] = (uint32_t)at + 1;
    return c->chains + at;
}
