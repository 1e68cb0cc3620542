/* Recognizing a recorded initial state (see psi_index_mark_initial in
 * index.h). Tools such as IsoVista's collectors, Plume and AWDIT record
 * the initial state as a first transaction writing 0 to every key. Left as
 * an ordinary transaction it could be serialized between two others and
 * hide their anomalies (a write skew over the keys it initializes would
 * look serializable), so it is merged into the implicit initial
 * transaction, which precedes every session (design decision 4). */
#include "core/index.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>

/* Only committed transactions whose every operation writes 0 qualify. */
static bool writes_only_zero(const psi_history *h, uint32_t t)
{
    const psi_txn *tx = &h->txns[t];
    if (tx->status != PSI_TXN_COMMITTED || tx->n_ops == 0)
        return false;
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        const psi_op *op = &h->ops[tx->first_op + i];
        if (op->kind != PSI_OP_WRITE || op->value != 0 || (op->flags & PSI_OPF_APPEND))
            return false;
    }
    return true;
}

/* In a history whose initial state is recorded (AWDIT's test format: no
 * implicit initial value, a read of 0 reads a recorded write of 0), the
 * reader leaves reads of 0 unflagged. Once transaction t is merged into
 * the initial transaction its writes are no longer indexed as writes, so a
 * read of 0 of a key t wrote must become a read of the initial value
 * (PSI_OPF_INIT), which keeps every other writer of 0 as a candidate too.
 * Reads of 0 of keys t did not write stay ordinary reads: the initial
 * state recorded nothing for them. */
static psi_status flag_recorded_initial_reads(psi_history *h, uint32_t t, psi_diag *d)
{
    if (h->initial_state != PSI_INITIAL_RECORDED)
        return PSI_OK;
    uint8_t *wrote = calloc(h->n_keys ? h->n_keys : 1, 1);
    if (!wrote)
        return psi_diag_nomem(d, "marking the recorded initial state");
    const psi_txn *it = &h->txns[t];
    for (uint32_t i = 0; i < it->n_ops; i++) {
        const psi_op *op = &h->ops[it->first_op + i];
        assert(op->kind == PSI_OP_WRITE && op->key < h->n_keys);
        wrote[op->key] = 1;
    }
    for (uint32_t o = 0; o < h->n_ops; o++) {
        psi_op *op = &h->ops[o];
        if (op->kind == PSI_OP_READ && op->value == 0 && !(op->flags & PSI_OPF_LIST) &&
            wrote[op->key])
            op->flags |= PSI_OPF_INIT;
    }
    free(wrote);
    return PSI_OK;
}

psi_status psi_index_mark_initial(psi_history *h, const psi_init_opts *o, uint32_t *txn,
                                  psi_diag *d)
{
    *txn = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].status == PSI_TXN_INITIAL) {
            *txn = t; /* marked by an earlier check of the same history */
            return PSI_OK;
        }
    psi_init_mode mode = o ? o->mode : PSI_INIT_AUTO;
    if (mode == PSI_INIT_NONE)
        return PSI_OK;
    if (mode == PSI_INIT_NAMED) {
        for (uint32_t t = 1; t < h->n_txns; t++) {
            const psi_txn *tx = &h->txns[t];
            if (tx->id != o->id || h->sessions[tx->session].id != o->session)
                continue;
            if (!writes_only_zero(h, t))
                return psi_diag_set(
                    d, PSI_ERR_INPUT,
                    "%s: transaction (%llu,%llu) (at %llu) named by --init is not a committed "
                    "transaction that only writes the initial value 0",
                    h->source, (unsigned long long)o->session, (unsigned long long)o->id,
                    (unsigned long long)tx->src);
            h->txns[t].status = PSI_TXN_INITIAL;
            *txn = t;
            return flag_recorded_initial_reads(h, t, d);
        }
        return psi_diag_set(d, PSI_ERR_INPUT, "%s: no transaction (%llu,%llu), named by --init",
                            h->source, (unsigned long long)o->session, (unsigned long long)o->id);
    }
    /* Auto: EDN's initial value is nil and Cobra's a marker, so a written
     * 0 there is an ordinary value. */
    if (psi_format_is_jepsen(h->format) || h->format == PSI_FMT_COBRA)
        return PSI_OK;
    uint32_t first = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (first == 0 || h->txns[t].src < h->txns[first].src)
            first = t;
    /* The status is the recorded one: psi_index_build has not promoted
     * transactions of unknown outcome yet, and one of those must not be
     * taken for the initial state. */
    if (first != 0 && writes_only_zero(h, first)) {
        h->txns[first].status = PSI_TXN_INITIAL;
        *txn = first;
        return flag_recorded_initial_reads(h, first, d);
    }
    return PSI_OK;
}
