/* Writer of dbcop's bincode histories (formats.md §2), the inverse of
 * read_dbcop.c: sessions in model order (sorted by id), transactions in
 * session order, operations as events with success 1, aborted transactions
 * with success 0.
 *
 * The header is the one read from a dbcop file (psi_history.dbcop) when the
 * history has one; otherwise it is made up: id 0, the session and key
 * counts, the largest session and transaction sizes, info "polysi-solve"
 * and empty times. Refused, because dbcop cannot say them: transactions of
 * unknown outcome, list-append operations and writes of 0 (0 is the initial
 * value). Session and transaction ids are not stored: dbcop has none, and
 * read_dbcop.c numbers them in file order.
 *
 * A history read from a dbcop file in which every event succeeded is
 * written back byte for byte. */
#include "formats/write.h"

#include "formats/output.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static psi_status check_expressible(const psi_history *h, const char *path, psi_diag *d)
{
    psi_status whole = psi_write_check_whole(h, path, "dbcop", d);
    if (whole != PSI_OK)
        return whole;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        uint64_t sid = h->sessions[tx->session].id;
        if (tx->status == PSI_TXN_UNKNOWN)
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as dbcop: transaction %llu (session %llu) is "
                                "of unknown outcome; dbcop has only committed and aborted "
                                "transactions",
                                path, (unsigned long long)tx->id, (unsigned long long)sid);
        psi_status st = psi_write_check_ops(h, t, path, "dbcop", "dbcop", d);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

typedef struct dbcop_out {
    psi_out *o;
    unsigned char buf[1 << 16];
    size_t n;
} dbcop_out;

static void flush_if(dbcop_out *w, size_t need)
{
    if (w->n + need > sizeof w->buf) {
        psi_out_write(w->o, w->buf, w->n);
        w->n = 0;
    }
}

static void put_u8(dbcop_out *w, unsigned v)
{
    flush_if(w, 1);
    w->buf[w->n++] = (unsigned char)v;
}

static void put_u64(dbcop_out *w, uint64_t v)
{
    flush_if(w, 8);
    for (int i = 0; i < 8; i++)
        w->buf[w->n++] = (unsigned char)(v >> (8 * i));
}

static void put_str(dbcop_out *w, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u64(w, n);
    if (n) {
        flush_if(w, sizeof w->buf);
        psi_out_write(w->o, s, n);
    }
}

psi_status psi_write_dbcop(const psi_history *h, const char *path, psi_diag *d)
{
    psi_status st = check_expressible(h, path, d);
    if (st != PSI_OK)
        return st;

    psi_dbcop_meta m = h->dbcop;
    const char *info = m.info, *start = m.start, *end = m.end;
    if (!info && !start && !end) {
        uint64_t max_txns = 0, max_ops = 0;
        for (uint32_t s = 0; s < h->n_sessions; s++)
            if (h->sessions[s].n_txns > max_txns)
                max_txns = h->sessions[s].n_txns;
        for (uint32_t t = 1; t < h->n_txns; t++)
            if (h->txns[t].n_ops > max_ops)
                max_ops = h->txns[t].n_ops;
        m = (psi_dbcop_meta){.id = 0,
                             .n_sessions = h->n_sessions,
                             .n_vars = h->n_keys,
                             .n_txns = max_txns,
                             .n_evts = max_ops};
        info = "polysi-solve";
        start = end = "";
    }

    dbcop_out *w = malloc(sizeof *w);
    if (!w)
        return psi_diag_nomem(d, "writing the history");
    w->n = 0;
    w->o = psi_out_open(path, d);
    if (!w->o) {
        free(w);
        return d ? d->status : PSI_ERR_IO;
    }
    put_u64(w, m.id);
    put_u64(w, m.n_sessions);
    put_u64(w, m.n_vars);
    put_u64(w, m.n_txns);
    put_u64(w, m.n_evts);
    put_str(w, info);
    put_str(w, start);
    put_str(w, end);
    put_u64(w, h->n_sessions);
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        put_u64(w, se->n_txns);
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            const psi_txn *tx = &h->txns[t];
            const psi_op *ops = psi_txn_ops(h, t);
            put_u64(w, tx->n_ops);
            for (uint32_t i = 0; i < tx->n_ops; i++) {
                flush_if(w, 18);
                unsigned char *p = w->buf + w->n;
                /* Integers (psi_write_check_ops refused names). */
                uint64_t key = 0, value = 0;
                bool ints = psi_history_key_u64(h, ops[i].key, &key) &&
                            psi_history_value_u64(h, ops[i].value, &value);
                assert(ints);
                (void)ints;
                if (ops[i].flags & PSI_OPF_INIT)
                    value = 0;
                p[0] = ops[i].kind == PSI_OP_WRITE;
                for (int b = 0; b < 8; b++) {
                    p[1 + b] = (unsigned char)(key >> (8 * b));
                    p[9 + b] = (unsigned char)(value >> (8 * b));
                }
                p[17] = 1;
                w->n += 18;
            }
            put_u8(w, tx->status == PSI_TXN_COMMITTED);
        }
    }
    psi_out_write(w->o, w->buf, w->n);
    st = psi_out_close(w->o, true, d);
    free(w);
    return st;
}
