/* Writer of the PolySI text format (formats.md §1): one operation per line,
 * `r(KEY,VALUE,SESSION,TXN)` / `w(...)`, session by session (sorted by id),
 * each session's transactions in order, each transaction's operations in
 * program order, with the history's own session and transaction ids.
 *
 * The format expresses committed register histories, and aborted
 * transactions of one write each as IsoVista's `w(KEY,VALUE,SESSION,-1)`
 * lines (so a read of an aborted write, G1a, survives the conversion);
 * they are written after their session's committed transactions, where the
 * reader puts them back (it gives them fresh ids). Anything else is refused
 * with a diagnostic rather than converted lossily: transactions of unknown
 * outcome, aborted transactions that read or write more than once,
 * list-append operations, and (see write_check.c) values whose meaning
 * would change, and transactions without operations (no line to live on).
 * Reads of the initial value are written with value 0.
 *
 * Reading the output back with psi_read_text_buf gives the same sessions,
 * transactions (ids of committed ones, order, status) and operations. */
#include "formats/write.h"

#include "formats/output.h"

#include <assert.h>
#include <string.h>

static const char *status_name(uint8_t st)
{
    return st == PSI_TXN_ABORTED ? "aborted" : st == PSI_TXN_UNKNOWN ? "of unknown outcome" : "";
}

/* Refuses what the text format cannot say. */
static psi_status check_expressible(const psi_history *h, const char *path, psi_diag *d)
{
    psi_status whole = psi_write_check_whole(h, path, "text", d);
    if (whole != PSI_OK)
        return whole;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        uint64_t sid = h->sessions[tx->session].id;
        if (tx->status == PSI_TXN_ABORTED &&
            (tx->n_ops != 1 || psi_txn_ops(h, t)[0].kind != PSI_OP_WRITE))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as text: transaction %llu (session %llu) is "
                                "aborted with %u operation%s%s; the text format has aborted "
                                "transactions only as IsoVista's TXN -1 lines, one write each",
                                path, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned)tx->n_ops, tx->n_ops == 1 ? "" : "s",
                                tx->n_ops == 1 ? " (a read)" : "");
        if (tx->status != PSI_TXN_COMMITTED && tx->status != PSI_TXN_ABORTED)
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as text: transaction %llu (session %llu) is "
                                "%s, and the text format has only committed transactions and "
                                "aborted writes",
                                path, (unsigned long long)tx->id, (unsigned long long)sid,
                                status_name(tx->status));
        if (tx->n_ops == 0)
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as text: transaction %llu (session %llu) has "
                                "no operations, and the text format is one line per operation",
                                path, (unsigned long long)tx->id, (unsigned long long)sid);
        psi_status st = psi_write_check_ops(h, t, path, "text", "the text format", d);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

psi_status psi_write_text_commented(const psi_history *h, const char *path, const char *comment,
                                    psi_diag *d)
{
    psi_status st = check_expressible(h, path, d);
    if (st != PSI_OK)
        return st;
    psi_out *o = psi_out_open(path, d);
    if (!o)
        return d ? d->status : PSI_ERR_IO;
    psi_out_comment(o, "# ", comment);
    enum { BUF = 1 << 16, LINE_MAX_BYTES = 4 + 4 * (PSI_U64_DIGITS + 1) + 1 };
    _Static_assert(BUF > LINE_MAX_BYTES, "buffer holds a line");
    char buf[BUF];
    size_t n = 0;
    /* Each session's committed transactions, then its aborted writes. */
    for (uint32_t s = 0; s < 2 * h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s / 2];
        bool aborted = s % 2;
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            const psi_txn *tx = &h->txns[t];
            if ((tx->status == PSI_TXN_ABORTED) != aborted)
                continue;
            const psi_op *ops = psi_txn_ops(h, t);
            for (uint32_t i = 0; i < tx->n_ops; i++) {
                if (n > BUF - LINE_MAX_BYTES) {
                    psi_out_write(o, buf, n);
                    n = 0;
                }
                char *p = buf + n;
                *p++ = ops[i].kind == PSI_OP_WRITE ? 'w' : 'r';
                *p++ = '(';
                /* Integers (check_expressible refused names). */
                uint64_t key = 0, value = 0;
                bool ints = psi_history_key_u64(h, ops[i].key, &key) &&
                            psi_history_value_u64(h, ops[i].value, &value);
                assert(ints);
                (void)ints;
                p = psi_put_u64(p, key);
                *p++ = ',';
                p = psi_put_u64(p, (ops[i].flags & PSI_OPF_INIT) ? 0 : value);
                *p++ = ',';
                p = psi_put_u64(p, se->id);
                *p++ = ',';
                if (aborted) {
                    memcpy(p, "-1", 2);
                    p += 2;
                } else {
                    p = psi_put_u64(p, tx->id);
                }
                *p++ = ')';
                *p++ = '\n';
                n = (size_t)(p - buf);
            }
        }
    }
    psi_out_write(o, buf, n);
    return psi_out_close(o, true, d);
}

psi_status psi_write_text(const psi_history *h, const char *path, psi_diag *d)
{
    return psi_write_text_commented(h, path, NULL, d);
}
