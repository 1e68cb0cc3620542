/* Writer for Jepsen JSON histories, the inverse of the JSON reader
 * (json_scan.c + read_edn.c) and the JSON twin of write_edn.c: the same
 * operations, one JSON object per line (JSON Lines), an invoke followed by
 * its completion:
 *     {"type":"invoke","f":"txn","value":[["r",1,null],["w",1,3]],"process":2}
 *     {"type":"ok","f":"txn","value":[["r",1,5],["w",1,3]],"process":2,"index":7}
 * The invoke carries the writes and null for every read; the completion
 * the values read, the status ("ok" committed, "fail" aborted, "info"
 * unknown) and the transaction id as "index". Sessions become processes,
 * written session by session in order, so reading back gives the same
 * sessions, order and ids. Micro-ops: ["r",k,v] (["r",k,null] for an
 * initial-value read), ["w",k,v], ["append",k,v], ["r",k,[v1,...,vn]] for
 * list reads. A completion whose reads the reader would take for "not
 * known" carries "polysi/reads":"observed" (see write_edn.c and
 * psi_write_needs_observed_mark). JSON has no comments: the header comment
 * of psi_write_history is not written. Output goes through psi_out. */
#include "formats/write.h"

#include "core/vec.h"
#include "formats/output.h"

#include <stdlib.h>
#include <string.h>

/* Output text, grown as needed and flushed every FLUSH_AT bytes. */
typedef struct json_text {
    char *buf;
    size_t n, cap;
    bool nomem;
} json_text;

static void put(json_text *l, const char *s, size_t n)
{
    if (l->nomem || !psi_grow((void **)&l->buf, &l->cap, l->n + n, 1)) {
        l->nomem = true;
        return;
    }
    memcpy(l->buf + l->n, s, n);
    l->n += n;
}

static void puts_(json_text *l, const char *s)
{
    put(l, s, strlen(s));
}

static void put_u64(json_text *l, uint64_t v)
{
    char tmp[PSI_U64_DIGITS];
    put(l, tmp, (size_t)(psi_put_u64(tmp, v) - tmp));
}

/* The micro-ops of transaction t; reads as null when `invoke`. */
static void put_ops(json_text *l, const psi_history *h, uint32_t t, bool invoke)
{
    const psi_txn *tx = &h->txns[t];
    puts_(l, "[");
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        const psi_op *op = &h->ops[o];
        if (i)
            puts_(l, ",");
        if (op->kind == PSI_OP_WRITE) {
            puts_(l, op->flags & PSI_OPF_APPEND ? "[\"append\"," : "[\"w\",");
            put_u64(l, h->keys[op->key]);
            puts_(l, ",");
            put_u64(l, op->value);
            puts_(l, "]");
            continue;
        }
        puts_(l, "[\"r\",");
        put_u64(l, h->keys[op->key]);
        if (invoke) {
            puts_(l, ",null]");
        } else if (op->flags & PSI_OPF_LIST) {
            uint32_t n;
            const uint64_t *vals = psi_history_list(h, o, &n);
            puts_(l, ",[");
            for (uint32_t j = 0; j < n; j++) {
                if (j)
                    puts_(l, ",");
                put_u64(l, vals[j]);
            }
            puts_(l, "]]");
        } else if (op->flags & PSI_OPF_INIT) {
            puts_(l, ",null]");
        } else {
            puts_(l, ",");
            put_u64(l, op->value);
            puts_(l, "]");
        }
    }
    puts_(l, "]");
}

static const char *status_type(uint8_t st)
{
    switch ((psi_txn_status)st) {
    case PSI_TXN_COMMITTED:
    case PSI_TXN_INITIAL: /* committed as recorded; the check merged it */
        return "\"ok\"";
    case PSI_TXN_ABORTED:
        return "\"fail\"";
    case PSI_TXN_UNKNOWN:
        return "\"info\"";
    }
    return "\"info\"";
}

psi_status psi_write_json_commented(const psi_history *h, const char *path, const char *comment,
                                    psi_diag *d)
{
    (void)comment; /* JSON has no comments */
    psi_status st = psi_write_check_jepsen(h, path, "json", d);
    if (st != PSI_OK)
        return st;
    psi_out *o = psi_out_open(path, d);
    if (!o)
        return d ? d->status : PSI_ERR_IO;
    enum { FLUSH_AT = 1 << 16 };
    json_text l = {0};
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            puts_(&l, "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":");
            put_ops(&l, h, t, true);
            puts_(&l, ",\"process\":");
            put_u64(&l, se->id);
            puts_(&l, "}\n{\"type\":");
            puts_(&l, status_type(h->txns[t].status));
            puts_(&l, ",\"f\":\"txn\",\"value\":");
            put_ops(&l, h, t, false);
            puts_(&l, ",\"process\":");
            put_u64(&l, se->id);
            puts_(&l, ",\"index\":");
            put_u64(&l, h->txns[t].id);
            if (psi_write_needs_observed_mark(h, t))
                puts_(&l, ",\"polysi/reads\":\"observed\"");
            puts_(&l, "}\n");
            if (l.nomem) {
                free(l.buf);
                psi_out_close(o, false, d);
                return psi_diag_nomem(d, "writing JSON");
            }
            if (l.n >= FLUSH_AT) {
                psi_out_write(o, l.buf, l.n);
                l.n = 0;
            }
        }
    }
    psi_out_write(o, l.buf, l.n);
    free(l.buf);
    return psi_out_close(o, true, d);
}

psi_status psi_write_json(const psi_history *h, const char *path, psi_diag *d)
{
    return psi_write_json_commented(h, path, NULL, d);
}
