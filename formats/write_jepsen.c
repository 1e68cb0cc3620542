/* The Jepsen writers' shared body (output.h, psi_write_jepsen): EDN
 * (write_edn.c) and JSON (write_json.c) write the same invoke and
 * completion lines with the same micro-ops, only spelled differently
 * (psi_jepsen_syntax), so the walk over sessions, transactions and
 * operations is written once here. */
#include "formats/output.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Output text, grown as needed and flushed every FLUSH_AT bytes. */
typedef struct jepsen_text {
    char *buf;
    size_t n, cap;
    bool nomem;
    const psi_jepsen_syntax *sx;
    const char *bad; /* spelling of the first name sx cannot write, or NULL */
} jepsen_text;

static void put(jepsen_text *l, const char *s, size_t n)
{
    if (l->nomem || !psi_grow((void **)&l->buf, &l->cap, l->n + n, 1)) {
        l->nomem = true;
        return;
    }
    memcpy(l->buf + l->n, s, n);
    l->n += n;
}

static void puts_(jepsen_text *l, const char *s)
{
    put(l, s, strlen(s));
}

static void put_u64(jepsen_text *l, uint64_t v)
{
    char tmp[PSI_U64_DIGITS];
    put(l, tmp, (size_t)(psi_put_u64(tmp, v) - tmp));
}

static void put_i64(jepsen_text *l, int64_t v)
{
    if (v < 0)
        puts_(l, "-");
    /* the magnitude as unsigned: -INT64_MIN does not fit an int64_t */
    put_u64(l, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

/* A name as spelled (history.h), when the format can say it (else l->bad
 * names the first that it cannot). */
static void put_name(jepsen_text *l, const char *s)
{
    if (!l->sx->spellable || l->sx->spellable(s))
        puts_(l, s);
    else if (!l->bad)
        l->bad = s;
}

/* Keys and values as spelled: names as read (:x, "acct 1", foo, -5),
 * integers as integers. */
static void put_key(jepsen_text *l, const psi_history *h, uint32_t k)
{
    if (h->key_names)
        put_name(l, h->key_names[k]);
    else
        put_u64(l, h->keys[k]);
}

static void put_value(jepsen_text *l, const psi_history *h, uint64_t v)
{
    if (h->value_names)
        put_name(l, psi_history_value_name(h, v, (char[24]){0}));
    else
        put_u64(l, v);
}

/* The micro-ops of transaction t; reads as nil when `invoke`. */
static void put_ops(jepsen_text *l, const psi_history *h, uint32_t t, bool invoke)
{
    const psi_jepsen_syntax *sx = l->sx;
    const psi_txn *tx = &h->txns[t];
    puts_(l, "[");
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        const psi_op *op = &h->ops[o];
        if (i)
            puts_(l, sx->sep);
        if (op->kind == PSI_OP_WRITE) {
            puts_(l, op->flags & PSI_OPF_APPEND ? sx->append : sx->w);
            put_key(l, h, op->key);
            puts_(l, sx->sep);
            put_value(l, h, op->value);
            puts_(l, "]");
            continue;
        }
        puts_(l, sx->r);
        put_key(l, h, op->key);
        puts_(l, sx->sep);
        if (invoke || (op->flags & (PSI_OPF_LIST | PSI_OPF_INIT)) == PSI_OPF_INIT) {
            puts_(l, sx->nil);
        } else if (op->flags & PSI_OPF_LIST) {
            uint32_t n;
            const uint64_t *vals = psi_history_list(h, o, &n);
            puts_(l, "[");
            for (uint32_t j = 0; j < n; j++) {
                if (j)
                    puts_(l, sx->sep);
                put_value(l, h, vals[j]);
            }
            puts_(l, "]");
        } else {
            put_value(l, h, op->value);
        }
        puts_(l, "]");
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

psi_status psi_write_jepsen(const psi_history *h, const char *path, const char *comment,
                            const psi_jepsen_syntax *sx, psi_diag *d)
{
    psi_status st = psi_write_check_whole(h, path, sx->fmt, d);
    if (st == PSI_OK)
        st = psi_write_check_jepsen(h, path, sx->fmt, d);
    if (st != PSI_OK)
        return st;
    psi_out *o = psi_out_open(path, d);
    if (!o)
        return d ? d->status : PSI_ERR_IO;
    if (sx->comment_prefix)
        psi_out_comment(o, sx->comment_prefix, comment);
    enum { FLUSH_AT = 1 << 16 };
    jepsen_text l = {.sx = sx};
    psi_write_event *ev;
    size_t n_ev;
    if ((st = psi_write_events(h, &ev, &n_ev, d)) != PSI_OK) {
        psi_out_close(o, false, d);
        return st;
    }
    for (size_t i = 0; i < n_ev; i++) {
        uint32_t t = ev[i].txn;
        const psi_session *se = &h->sessions[h->txns[t].session];
        assert(h->txns[t].status < sizeof sx->status / sizeof sx->status[0]);
        if (!ev[i].completes) {
            puts_(&l, sx->inv_head);
            put_ops(&l, h, t, true);
            puts_(&l, sx->process);
            put_u64(&l, se->id);
        } else {
            puts_(&l, sx->cmp_head);
            puts_(&l, sx->status[h->txns[t].status]);
            puts_(&l, sx->txn_value);
            put_ops(&l, h, t, false);
            puts_(&l, sx->process);
            put_u64(&l, se->id);
            puts_(&l, sx->index);
            put_u64(&l, h->txns[t].id);
            if (psi_write_needs_observed_mark(h, t))
                puts_(&l, sx->observed);
            /* the transaction's own timestamps (README, "Ordering
             * information"): dropped, a check of the file would not see
             * what they show */
            if (h->ts && h->ts[t].has) {
                puts_(&l, sx->start_ts);
                put_i64(&l, h->ts[t].start);
                puts_(&l, sx->commit_ts);
                put_i64(&l, h->ts[t].commit);
            }
        }
        puts_(&l, "}\n");
        if (l.nomem || l.bad) {
            const char *bad = l.bad;
            free(l.buf);
            free(ev);
            psi_out_close(o, false, d);
            if (!bad)
                return psi_diag_nomem(d, sx->writing);
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) "
                                "uses key or value %.200s, which %s",
                                path, sx->fmt, (unsigned long long)h->txns[t].id,
                                (unsigned long long)se->id, bad, sx->cannot_spell);
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
