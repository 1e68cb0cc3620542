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
 * psi_write_needs_observed_mark). Keys and values other than integers
 * are written as spelled (history.h) when JSON can say them: strings,
 * negative integers, booleans; a keyword or symbol is refused (as a
 * string it would merge :x with "x"). JSON has no comments: the header comment
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
    const char *bad; /* spelling of the first name JSON cannot write, or NULL */
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

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Whether spelling s (history.h: as the reader kept it) is a JSON value
 * that reads back as the same spelling: a string in JSON's escapes (EDN
 * strings may hold raw newlines or other escapes), an integer (negative
 * ones included), true or false. Keywords (:x) and symbols have no JSON
 * form: writing them as strings would merge :x with "x". */
static bool json_spellable(const char *s)
{
    size_t n = strlen(s);
    if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0)
        return true;
    if (n && (s[0] == '-' || (s[0] >= '0' && s[0] <= '9'))) {
        size_t i = s[0] == '-';
        if (i == n || (s[i] == '0' && n > i + 1))
            return false;
        for (; i < n; i++)
            if (s[i] < '0' || s[i] > '9')
                return false;
        return true;
    }
    if (n < 2 || s[0] != '"' || s[n - 1] != '"')
        return false;
    for (size_t i = 1; i + 1 < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == '"')
            return false;
        if (c != '\\')
            continue;
        char e = s[++i];
        if (e == 'u') {
            for (int k = 1; k <= 4; k++)
                if (i + (size_t)k + 1 >= n || !is_hex(s[i + (size_t)k]))
                    return false;
            i += 4;
        } else if (!strchr("\"\\/bfnrt", e) || e == '\0' || i + 1 >= n) {
            return false;
        }
    }
    return true;
}

/* Key k / value v: integers as numbers, names as spelled when JSON can
 * say them (else l->bad names the first that it cannot). */
static void put_name(json_text *l, const char *s)
{
    if (json_spellable(s))
        puts_(l, s);
    else if (!l->bad)
        l->bad = s;
}

static void put_key(json_text *l, const psi_history *h, uint32_t k)
{
    if (h->key_names)
        put_name(l, h->key_names[k]);
    else
        put_u64(l, h->keys[k]);
}

static void put_value(json_text *l, const psi_history *h, uint64_t v)
{
    if (h->value_names)
        put_name(l, psi_history_value_name(h, v, (char[24]){0}));
    else
        put_u64(l, v);
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
            put_key(l, h, op->key);
            puts_(l, ",");
            put_value(l, h, op->value);
            puts_(l, "]");
            continue;
        }
        puts_(l, "[\"r\",");
        put_key(l, h, op->key);
        if (invoke) {
            puts_(l, ",null]");
        } else if (op->flags & PSI_OPF_LIST) {
            uint32_t n;
            const uint64_t *vals = psi_history_list(h, o, &n);
            puts_(l, ",[");
            for (uint32_t j = 0; j < n; j++) {
                if (j)
                    puts_(l, ",");
                put_value(l, h, vals[j]);
            }
            puts_(l, "]]");
        } else if (op->flags & PSI_OPF_INIT) {
            puts_(l, ",null]");
        } else {
            puts_(l, ",");
            put_value(l, h, op->value);
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
            puts_(&l, "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":");
            put_ops(&l, h, t, true);
            puts_(&l, ",\"process\":");
            put_u64(&l, se->id);
            puts_(&l, "}\n");
        } else {
            puts_(&l, "{\"type\":");
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
        }
        if (l.nomem || l.bad) {
            const psi_session *bs = se;
            uint64_t id = h->txns[t].id;
            const char *bad = l.bad;
            free(l.buf);
            free(ev);
            psi_out_close(o, false, d);
            if (!bad)
                return psi_diag_nomem(d, "writing JSON");
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as json: transaction %llu (session %llu) "
                                "uses key or value %.200s, which JSON cannot spell (JSON has "
                                "strings, numbers and booleans, no keywords or symbols)",
                                path, (unsigned long long)id, (unsigned long long)bs->id, bad);
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

psi_status psi_write_json(const psi_history *h, const char *path, psi_diag *d)
{
    return psi_write_json_commented(h, path, NULL, d);
}
