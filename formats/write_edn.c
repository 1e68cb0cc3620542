/* Writer for Jepsen / Elle EDN histories (formats.md §4), the inverse of
 * read_edn.c. Each transaction becomes an :invoke line followed by its
 * completion, because Elle expects invoke/complete pairs:
 *     {:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 2}
 *     {:type :ok, :f :txn, :value [[:r 1 5] [:w 1 3]], :process 2, :index 7}
 * The invoke carries the writes and nil for every read (what a client knows
 * before running it); the completion carries the values read and its status
 * (:ok committed, :fail aborted, :info unknown) and the transaction id as
 * :index (the invoke has none, so ids read back unchanged; a tool that
 * wants a dense :index on every line must renumber). Sessions become
 * processes; transactions are written session by session in session order,
 * so reading back gives the same sessions and the same order.
 * Micro-ops: [:r k v] ([:r k nil] for an initial-value read), [:w k v],
 * [:append k v] for PSI_OPF_APPEND writes, [:r k [v1 ... vn]] for list reads.
 * By the reader's rules a nil read of a :fail completion and every read of
 * an :info completion mean "not known" (Jepsen clients return the invoke's
 * value when they fail). So that such reads of an aborted or unknown
 * transaction survive a round trip, its completion then carries
 * `:polysi/reads :observed`: its reads are what was observed, nil being the
 * initial value. Other tools ignore the unknown key.
 * Output goes through psi_out (output.h): a failed write leaves no partial
 * file, and "-" is standard output. */
#include "formats/write.h"

#include "core/vec.h"
#include "formats/output.h"

#include <stdlib.h>
#include <string.h>

/* Output text, grown as needed and flushed every FLUSH_AT bytes. */
typedef struct edn_line {
    char *buf;
    size_t n, cap;
    bool nomem;
} edn_line;

static void put(edn_line *l, const char *s, size_t n)
{
    if (l->nomem || !psi_grow((void **)&l->buf, &l->cap, l->n + n, 1)) {
        l->nomem = true;
        return;
    }
    memcpy(l->buf + l->n, s, n);
    l->n += n;
}

static void puts_(edn_line *l, const char *s)
{
    put(l, s, strlen(s));
}

static void put_u64(edn_line *l, uint64_t v)
{
    char tmp[PSI_U64_DIGITS];
    put(l, tmp, (size_t)(psi_put_u64(tmp, v) - tmp));
}

/* Keys and values as spelled (history.h): names are written back as read
 * (:x, "acct 1", foo, -5), integers as integers. */
static void put_key(edn_line *l, const psi_history *h, uint32_t k)
{
    if (h->key_names)
        puts_(l, h->key_names[k]);
    else
        put_u64(l, h->keys[k]);
}

static void put_value(edn_line *l, const psi_history *h, uint64_t v)
{
    if (h->value_names)
        puts_(l, psi_history_value_name(h, v, (char[24]){0}));
    else
        put_u64(l, v);
}

/* The micro-ops of transaction t; reads as nil when `invoke`. */
static void put_ops(edn_line *l, const psi_history *h, uint32_t t, bool invoke)
{
    const psi_txn *tx = &h->txns[t];
    puts_(l, "[");
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        const psi_op *op = &h->ops[o];
        if (i)
            puts_(l, " ");
        if (op->kind == PSI_OP_WRITE) {
            puts_(l, op->flags & PSI_OPF_APPEND ? "[:append " : "[:w ");
            put_key(l, h, op->key);
            puts_(l, " ");
            put_value(l, h, op->value);
            puts_(l, "]");
            continue;
        }
        puts_(l, "[:r ");
        put_key(l, h, op->key);
        if (invoke) {
            puts_(l, " nil]");
        } else if (op->flags & PSI_OPF_LIST) {
            uint32_t n;
            const uint64_t *vals = psi_history_list(h, o, &n);
            puts_(l, " [");
            for (uint32_t j = 0; j < n; j++) {
                if (j)
                    puts_(l, " ");
                put_value(l, h, vals[j]);
            }
            puts_(l, "]]");
        } else if (op->flags & PSI_OPF_INIT) {
            puts_(l, " nil]");
        } else {
            puts_(l, " ");
            put_value(l, h, op->value);
            puts_(l, "]");
        }
    }
    puts_(l, "]");
}

bool psi_write_needs_observed_mark(const psi_history *h, uint32_t t)
{
    const psi_txn *tx = &h->txns[t];
    if (tx->status == PSI_TXN_COMMITTED)
        return false;
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        const psi_op *op = &h->ops[tx->first_op + i];
        if (op->kind != PSI_OP_READ)
            continue;
        if (tx->status == PSI_TXN_UNKNOWN)
            return true;
        if ((op->flags & PSI_OPF_INIT) && !(op->flags & PSI_OPF_LIST))
            return true; /* written as nil */
    }
    return false;
}

static const char *status_keyword(uint8_t st)
{
    switch ((psi_txn_status)st) {
    case PSI_TXN_COMMITTED:
    case PSI_TXN_INITIAL: /* committed as recorded; the check merged it */
        return ":ok";
    case PSI_TXN_ABORTED:
        return ":fail";
    case PSI_TXN_UNKNOWN:
        return ":info";
    }
    return ":info";
}

psi_status psi_write_edn_commented(const psi_history *h, const char *path, const char *comment,
                                   psi_diag *d)
{
    psi_status st = psi_write_check_jepsen(h, path, "edn", d);
    if (st != PSI_OK)
        return st;
    psi_out *o = psi_out_open(path, d);
    if (!o)
        return d ? d->status : PSI_ERR_IO;
    psi_out_comment(o, "; ", comment);
    enum { FLUSH_AT = 1 << 16 };
    edn_line l = {0};
    psi_write_event *ev;
    size_t n_ev;
    if ((st = psi_write_events(h, &ev, &n_ev, d)) != PSI_OK) {
        psi_out_close(o, false, d);
        return st;
    }
    for (size_t i = 0; i < n_ev; i++) {
        uint32_t t = ev[i].txn;
        const psi_session *se = &h->sessions[h->txns[t].session];
        if (!ev[i].completes) {
            puts_(&l, "{:type :invoke, :f :txn, :value ");
            put_ops(&l, h, t, true);
            puts_(&l, ", :process ");
            put_u64(&l, se->id);
            puts_(&l, "}\n");
        } else {
            puts_(&l, "{:type ");
            puts_(&l, status_keyword(h->txns[t].status));
            puts_(&l, ", :f :txn, :value ");
            put_ops(&l, h, t, false);
            puts_(&l, ", :process ");
            put_u64(&l, se->id);
            puts_(&l, ", :index ");
            put_u64(&l, h->txns[t].id);
            if (psi_write_needs_observed_mark(h, t))
                puts_(&l, ", :polysi/reads :observed");
            puts_(&l, "}\n");
        }
        if (l.nomem) {
            free(l.buf);
            free(ev);
            psi_out_close(o, false, d);
            return psi_diag_nomem(d, "writing EDN");
        }
        if (l.n >= FLUSH_AT) {
            psi_out_write(o, l.buf, l.n);
            l.n = 0;
        }
    }
    free(ev);
    psi_out_write(o, l.buf, l.n);
    free(l.buf);
    return psi_out_close(o, true, d);
}

psi_status psi_write_edn(const psi_history *h, const char *path, psi_diag *d)
{
    return psi_write_edn_commented(h, path, NULL, d);
}
