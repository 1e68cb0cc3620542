/* Settling transactions of unknown outcome while the index is built
 * (index.h: promoted, optional or absent; index_ctx.h). */
#include "core/index_ctx.h"

#include <assert.h>
#include <stdlib.h>

/* Pass 4 helpers: an unknown transaction becomes committed (the only
 * writer a committed read can have observed) or optional (one of several),
 * and an optional one committed; each pushes t for its reads. */
static void promote(index_ctx *c, uint32_t t, uint32_t *stack, size_t *sp)
{
    c->h->txns[t].status = PSI_TXN_COMMITTED;
    c->idx->n_promoted++;
    stack[(*sp)++] = t;
}

static psi_status make_optional(index_ctx *c, uint32_t t, uint32_t *stack, size_t *sp)
{
    psi_index *idx = c->idx;
    if (!idx->opt && !(idx->opt = calloc(c->h->n_txns, 1)))
        return psi_diag_nomem(c->d, "settling transactions of unknown outcome");
    c->h->txns[t].status = PSI_TXN_COMMITTED;
    c->h->txns[t].open_outcome = 1;
    idx->opt[t] = 1;
    idx->n_opt++;
    stack[(*sp)++] = t;
    return PSI_OK;
}

static void commit_optional(index_ctx *c, uint32_t t, uint32_t *stack, size_t *sp)
{
    assert(psi_index_optional(c->idx, t));
    c->idx->opt[t] = 0;
    c->h->txns[t].open_outcome = 0;
    c->idx->n_opt--;
    c->idx->n_promoted++;
    if (stack)
        stack[(*sp)++] = t;
}

/* Pass 4: the reads of committed (and optional) transactions settle the
 * unknown transactions that wrote what they read. A committed read whose
 * value only one unknown transaction (and no committed or optional one)
 * wrote promotes it; its only candidate being one optional transaction
 * commits that one; otherwise every unknown writer of the value becomes
 * optional: whether it committed is the solver's choice (encode.h), not
 * settled here. Transitive: promoted and optional transactions' reads
 * are read in turn. Each transaction is pushed at most twice (optional,
 * then committed). */
psi_status psi_index_settle_unknown(index_ctx *c)
{
    psi_history *h = c->h;
    /* Most histories have none: then no read needs looking at. */
    bool any = false;
    for (uint32_t t = 1; t < h->n_txns && !any; t++)
        any = h->txns[t].status == PSI_TXN_UNKNOWN;
    if (!any)
        return PSI_OK;
    uint32_t *stack = malloc(2 * (size_t)h->n_txns * sizeof *stack);
    if (!stack)
        return psi_diag_nomem(c->d, "settling transactions of unknown outcome");
    size_t sp = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].status == PSI_TXN_COMMITTED)
            stack[sp++] = t;
    psi_status st = PSI_OK;
    while (sp && st == PSI_OK) {
        uint32_t t = stack[--sp];
        bool t_opt = psi_index_optional(c->idx, t);
        const psi_txn *tx = &h->txns[t];
        for (uint32_t i = 0; i < tx->n_ops && st == PSI_OK; i++) {
            uint32_t o = tx->first_op + i;
            const psi_op *op = &h->ops[o];
            /* repeat reads are read events too (RC, PL-2): they settle
             * the writers they observe like first reads */
            if (!(c->idx->op_info[o] & (PSI_OI_EXTERNAL_READ | PSI_OI_REPEAT_READ)) ||
                (op->flags & PSI_OPF_INIT))
                continue;
            uint32_t w = psi_index_writer(c->idx, op->key, op->value);
            if (w == PSI_SRC_NONE)
                continue;
            /* The other transactions that wrote the value: committed ones,
             * optional ones (the first and whether there are more), and
             * unknown ones (likewise). */
            bool committed = false, more_opt = false, more_unk = false;
            uint32_t one_opt = PSI_SRC_NONE, one_unk = PSI_SRC_NONE;
            for (uint32_t v = w; v != PSI_SRC_NONE; v = prev_dup(c->idx, v)) {
                uint32_t vt = c->idx->op_txn[v];
                if (vt == t)
                    continue;
                if (h->txns[vt].status == PSI_TXN_COMMITTED) {
                    if (!psi_index_optional(c->idx, vt))
                        committed = true;
                    else if (one_opt == PSI_SRC_NONE)
                        one_opt = vt;
                    else
                        more_opt |= one_opt != vt;
                } else if (h->txns[vt].status == PSI_TXN_UNKNOWN && !(c->never && c->never[vt])) {
                    if (one_unk == PSI_SRC_NONE)
                        one_unk = vt;
                    else
                        more_unk |= one_unk != vt;
                }
            }
            if (!t_opt && !committed && one_opt == PSI_SRC_NONE && one_unk != PSI_SRC_NONE &&
                !more_unk) {
                promote(c, one_unk, stack, &sp);
                continue;
            }
            if (!t_opt && !committed && one_unk == PSI_SRC_NONE && one_opt != PSI_SRC_NONE &&
                !more_opt) {
                commit_optional(c, one_opt, stack, &sp);
                continue;
            }
            for (uint32_t v = w; v != PSI_SRC_NONE && st == PSI_OK; v = prev_dup(c->idx, v)) {
                uint32_t vt = c->idx->op_txn[v];
                if (vt != t && h->txns[vt].status == PSI_TXN_UNKNOWN && !(c->never && c->never[vt]))
                    st = make_optional(c, vt, stack, &sp);
            }
        }
    }
    free(stack);
    return st;
}

/* After pass 6: a committed transaction's read resolved to an optional
 * writer alone needs that writer, which is then committed (transitively);
 * the anomalies of the reads of those it commits become the history's.
 * An optional transaction left with an anomaly of its own can never
 * commit: *dead counts them (marked in dead[]). */
psi_status psi_index_settle_optional(index_ctx *c, uint8_t *dead, uint32_t *n_dead)
{
    psi_history *h = c->h;
    psi_index *idx = c->idx;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t o = 0; o < h->n_ops; o++) {
            uint32_t w = idx->read_src[o];
            if (w >= PSI_SRC_INIT || psi_index_optional(idx, idx->op_txn[o]) ||
                h->txns[idx->op_txn[o]].status != PSI_TXN_COMMITTED ||
                !psi_index_optional(idx, idx->op_txn[w]))
                continue;
            commit_optional(c, idx->op_txn[w], NULL, NULL);
            changed = true;
        }
    }
    *n_dead = 0;
    size_t kept = 0;
    for (size_t i = 0; i < c->n_opt_anom; i++) {
        psi_anomaly a = c->opt_anom[i];
        if (psi_index_optional(idx, a.txn)) {
            *n_dead += !dead[a.txn];
            dead[a.txn] = 1;
            c->opt_anom[kept++] = a;
            continue;
        }
        psi_status st = psi_index_add_anomaly(c, a);
        if (st != PSI_OK)
            return st;
    }
    c->n_opt_anom = kept;
    return PSI_OK;
}
