/* What the register formats (text, dbcop) cannot express, refused before
 * anything is written rather than converted lossily (see output.h). Each
 * writer checks transaction status itself: which outcomes a format has
 * differs between them. */
#include "formats/output.h"

psi_status psi_write_check_ops(const psi_history *h, uint32_t t, const char *path, const char *fmt,
                               const char *who, psi_diag *d)
{
    const psi_txn *tx = &h->txns[t];
    uint64_t sid = h->sessions[tx->session].id;
    const psi_op *ops = psi_txn_ops(h, t);
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        if (ops[i].flags & (PSI_OPF_LIST | PSI_OPF_APPEND))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) has a "
                                "list-append operation on key %llu; %s has only register reads "
                                "and writes",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned long long)h->keys[ops[i].key], who);
        /* A read of 0 that is not of the initial value (EDN's [:r k 0],
         * Cobra's, or AWDIT's recorded state) would read the initial value
         * in text and dbcop: a read of a value nobody wrote could become
         * a valid one. */
        if (ops[i].kind == PSI_OP_READ && ops[i].value == 0 &&
            !(ops[i].flags & (PSI_OPF_INIT | PSI_OPF_LIST)))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) reads "
                                "value 0 of key %llu, which is not the initial value here; %s "
                                "would read it as the initial value",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned long long)h->keys[ops[i].key], who);
        /* A written 0 is the initial value again in text and dbcop; from
         * formats where it is an ordinary value, it would change meaning. */
        if (ops[i].kind == PSI_OP_WRITE && ops[i].value == 0 &&
            (psi_format_is_jepsen(h->format) || h->format == PSI_FMT_COBRA))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) writes "
                                "value 0 to key %llu, which %s reserves for the initial value",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned long long)h->keys[ops[i].key], who);
    }
    return PSI_OK;
}

psi_status psi_write_check_jepsen(const psi_history *h, const char *path, const char *fmt,
                                  psi_diag *d)
{
    bool zero_is_initial = !psi_format_is_jepsen(h->format) && h->format != PSI_FMT_COBRA;
    if (!zero_is_initial)
        return PSI_OK;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        const psi_op *ops = psi_txn_ops(h, t);
        for (uint32_t i = 0; i < tx->n_ops; i++)
            if (ops[i].kind == PSI_OP_WRITE && ops[i].value == 0 &&
                !(ops[i].flags & PSI_OPF_APPEND))
                return psi_diag_set(
                    d, PSI_ERR_INPUT,
                    "%s: cannot write as %s: transaction %llu (session %llu) writes value 0 to "
                    "key %llu, which the %s format reads as the initial value written again; in "
                    "%s the initial value is nil and a written 0 is an ordinary value, so reads "
                    "of 0 would change meaning",
                    path, fmt, (unsigned long long)tx->id,
                    (unsigned long long)h->sessions[tx->session].id,
                    (unsigned long long)h->keys[ops[i].key], psi_format_name(h->format), fmt);
    }
    return PSI_OK;
}
