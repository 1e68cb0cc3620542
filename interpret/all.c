/* Independent violations one after the other (see all.h): take the last
 * one's transactions out, rebuild what is left as a history of its own,
 * check and explain it again. */
#include "interpret/all.h"
#include "interpret/kv.h"

#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

/* What is taken out of the original history so far. */
typedef struct rest {
    const psi_history *h;
    const psi_index *idx; /* the first check's: read_src, op_info, op_txn */
    uint8_t *out;         /* [n_txns] transaction taken out */
    uint8_t *drop;        /* [n_ops] read dropped */
    psi_kv *gone;         /* writes of the transactions taken out, sorted */
    size_t n_gone, cap_gone;
    uint32_t *txn_map; /* [n_txns] the history left: its transaction -> the original's */
    uint32_t *op_map;  /* [n_ops] its operation -> the original's */
} rest;

static bool gone(const rest *r, uint32_t key, uint64_t value)
{
    psi_kv k = {key, value};
    return r->n_gone && bsearch(&k, r->gone, r->n_gone, sizeof k, psi_kv_cmp) != NULL;
}

static bool take_out(rest *r, uint32_t t)
{
    if (t == PSI_INIT_TXN || r->out[t])
        return true;
    r->out[t] = 1;
    const psi_txn *tx = &r->h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        const psi_op *o = &r->h->ops[tx->first_op + i];
        if (o->kind != PSI_OP_WRITE)
            continue;
        if (!psi_grow((void **)&r->gone, &r->cap_gone, r->n_gone + 1, sizeof *r->gone))
            return false;
        r->gone[r->n_gone++] = (psi_kv){o->key, o->value};
    }
    return true;
}

/* Does the original's read op observe something taken out? (Internal
 * reads too: one that repeats a dropped external read would become
 * external in the history left.) */
static bool observes_gone(const rest *r, uint32_t op)
{
    const psi_op *o = &r->h->ops[op];
    if (o->kind != PSI_OP_READ)
        return false;
    if (o->flags & PSI_OPF_LIST) {
        uint32_t len;
        const uint64_t *v = psi_history_list(r->h, op, &len);
        for (uint32_t i = 0; i < len; i++)
            if (gone(r, o->key, v[i]))
                return true;
        return false;
    }
    return !(o->flags & PSI_OPF_INIT) && gone(r, o->key, o->value);
}

/* Drops read op and the reads of its key that follow it in its
 * transaction up to a write of the key: they repeat what it read, and one
 * of them would otherwise become the external read in its place. */
static void drop_read(rest *r, uint32_t op)
{
    uint32_t t = r->idx->op_txn[op];
    const psi_txn *tx = &r->h->txns[t];
    uint32_t key = r->h->ops[op].key;
    r->drop[op] = 1;
    for (uint32_t o = op + 1; o < tx->first_op + tx->n_ops; o++) {
        if (r->h->ops[o].key != key)
            continue;
        if (r->h->ops[o].kind == PSI_OP_WRITE)
            break;
        r->drop[o] = 1;
    }
}

/* The history left: every transaction not taken out, without the dropped
 * reads and the reads of what was taken out; names and places as in the
 * original. */
static psi_status build_rest(rest *r, psi_history **out, psi_diag *d)
{
    const psi_history *h = r->h;
    if (r->n_gone)
        qsort(r->gone, r->n_gone, sizeof *r->gone, psi_kv_cmp);
    psi_builder *b = psi_builder_new(h->source, h->format);
    if (!b)
        return psi_diag_nomem(d, "taking a violation out of the history");
    /* Same key and value names, so h's keys[] and values mean the same. */
    psi_status st = psi_builder_copy_names(b, h, d);
    psi_builder_set_rt_by_index(b, h->rt_by_index);
    uint32_t nt = 1, no = 0;
    for (uint32_t s = 0; s < h->n_sessions && st == PSI_OK; s++) {
        const psi_session *se = &h->sessions[s];
        for (uint32_t i = 0; i < se->n_txns && st == PSI_OK; i++) {
            uint32_t t = se->first_txn + i;
            if (r->out[t])
                continue;
            const psi_txn *tx = &h->txns[t];
            st = psi_builder_begin(b, se->id, tx->id, tx->src, d);
            if (st == PSI_OK && h->rt)
                st = psi_builder_set_rt(b, h->rt[t].invoke, h->rt[t].complete, d);
            if (st == PSI_OK && h->ts && h->ts[t].has)
                st = psi_builder_set_ts(b, h->ts[t].start, h->ts[t].commit, d);
            for (uint32_t k = 0; k < tx->n_ops && st == PSI_OK; k++) {
                uint32_t o = tx->first_op + k;
                const psi_op *op = &h->ops[o];
                if (r->drop[o] || observes_gone(r, o))
                    continue;
                if (op->flags & PSI_OPF_LIST) {
                    uint32_t len;
                    const uint64_t *v = psi_history_list(h, o, &len);
                    st = psi_builder_list_read(b, h->keys[op->key], v, len, d);
                } else {
                    st = psi_builder_op(b, (psi_op_kind)op->kind, h->keys[op->key], op->value,
                                        op->flags, d);
                }
                r->op_map[no++] = o;
            }
            if (st == PSI_OK)
                st = psi_builder_end(b, (psi_txn_status)tx->status, d);
            r->txn_map[nt++] = t;
        }
    }
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}

/* --timestamps for the history left: the lines of the first check's
 * timestamps (resolved onto transactions, first->ts) whose transactions
 * are still in it, with their lines in the file, into e[] (n_txns
 * entries); the sub-histories keep the original's names. */
static void timestamps_left(const rest *r, const psi_ts_info *ts, psi_hint_ts *e,
                            psi_timestamps *out)
{
    const psi_history *h = r->h;
    size_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (ts->line[t] && !r->out[t])
            e[n++] = (psi_hint_ts){.sid = h->sessions[h->txns[t].session].id,
                                   .tid = h->txns[t].id,
                                   .start = ts->start[t],
                                   .commit = ts->commit[t],
                                   .line = ts->line[t]};
    *out = (psi_timestamps){.name = ts->file, .e = e, .n = n};
}

/* Takes out the transactions of a violation found in the history left. */
static bool take_out_cex(rest *r, const psi_cex *cx)
{
    for (uint32_t i = 0; i < cx->n_txns; i++)
        if (!take_out(r, r->txn_map[cx->txns[i]]))
            return false;
    return true;
}

psi_status psi_all_find(const psi_history *h, const psi_check_result *first,
                        const psi_cex *first_cx, const psi_check_opts *co, const psi_cex_opts *xo,
                        uint32_t max, psi_all *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    out->graph_free = first->idx.n_anomalies;
    rest r = {.h = h, .idx = &first->idx};
    r.out = calloc(h->n_txns, 1);
    r.drop = calloc(h->n_ops ? h->n_ops : 1, 1);
    r.txn_map = calloc(h->n_txns, sizeof *r.txn_map);
    r.op_map = calloc(h->n_ops ? h->n_ops : 1, sizeof *r.op_map);
    psi_status st = PSI_OK;
    size_t cap = 0;
    psi_hint_ts *tse = NULL; /* --timestamps of the history left (timestamps_left) */
    if (!r.out || !r.drop || !r.txn_map || !r.op_map) {
        st = psi_diag_nomem(d, "listing every anomaly");
        goto done;
    }
    /* Graph-free anomalies are all listed already: drop their reads and
     * look for cycles among the rest. A first violation with a cycle is
     * taken out whole. */
    for (size_t i = 0; i < first->idx.n_anomalies; i++)
        drop_read(&r, first->idx.anomalies[i].op);
    if (first->reason != PSI_BY_ANOMALY && first_cx->present) {
        for (uint32_t i = 0; i < first_cx->n_txns; i++)
            if (!take_out(&r, first_cx->txns[i])) {
                st = psi_diag_nomem(d, "listing every anomaly");
                goto done;
            }
    }
    uint32_t found = first->reason == PSI_BY_ANOMALY ? 0 : 1;
    psi_check_opts o = *co;
    o.keep_model = false;
    /* --timestamps name transactions, some of which are taken out: each
     * history left gets those of its own. (Timestamps carried in the
     * history, EDN/JSON, are copied with its transactions.) */
    psi_timestamps tsl;
    if (co->timestamps && first->ts.file && first->ts.line) {
        if (!(tse = malloc(h->n_txns * sizeof *tse))) {
            st = psi_diag_nomem(d, "listing every anomaly");
            goto done;
        }
    }
    uint32_t quiet_rounds = 0; /* rounds that found only graph-free anomalies */
    for (uint32_t round = 0; round < max + 1 + quiet_rounds && st == PSI_OK; round++) {
        psi_history *left = NULL;
        if ((st = build_rest(&r, &left, d)) != PSI_OK) {
            if (st == PSI_ERR_INPUT) { /* nothing left to build a history of */
                st = PSI_OK;
                out->rest_checked = true;
                out->rest = PSI_ACCEPT;
            }
            break;
        }
        if (tse) {
            timestamps_left(&r, &first->ts, tse, &tsl);
            o.timestamps = &tsl;
        }
        psi_check_result res;
        st = psi_check(left, &o, &res, d);
        if (st != PSI_OK || res.verdict == PSI_ACCEPT || found >= max) {
            if (st == PSI_OK) {
                out->rest_checked = true;
                out->rest = res.verdict;
            }
            psi_check_result_free(&res);
            psi_history_free(left);
            break;
        }
        psi_cex cx;
        if ((st = psi_cex_build(left, &res, xo, &cx, d)) != PSI_OK) {
            psi_check_result_free(&res);
            psi_history_free(left);
            break;
        }
        bool progress = true;
        if (res.reason == PSI_BY_ANOMALY) {
            /* Not expected (only reads were dropped), but never loop: drop
             * these reads too, without listing them. */
            progress = res.idx.n_anomalies > 0;
            for (size_t i = 0; i < res.idx.n_anomalies; i++)
                drop_read(&r, r.op_map[res.idx.anomalies[i].op]);
            if (++quiet_rounds > 4)
                progress = false;
            psi_cex_free(&cx);
            psi_check_result_free(&res);
            psi_history_free(left);
        } else {
            if (!psi_grow((void **)&out->items, &cap, out->n + 1, sizeof *out->items)) {
                psi_cex_free(&cx);
                psi_check_result_free(&res);
                psi_history_free(left);
                st = psi_diag_nomem(d, "listing every anomaly");
                break;
            }
            out->items[out->n++] = (psi_all_item){.h = left, .res = res, .cx = cx};
            found++;
            progress = cx.n_txns > 0;
            if (!take_out_cex(&r, &cx)) {
                st = psi_diag_nomem(d, "listing every anomaly");
                break;
            }
        }
        if (!progress)
            break;
    }
done:
    free(tse);
    free(r.out);
    free(r.drop);
    free(r.gone);
    free(r.txn_map);
    free(r.op_map);
    if (st != PSI_OK)
        psi_all_free(out);
    return st;
}

void psi_all_free(psi_all *a)
{
    for (uint32_t i = 0; i < a->n; i++) {
        psi_cex_free(&a->items[i].cx);
        psi_check_result_free(&a->items[i].res);
        psi_history_free(a->items[i].h);
    }
    free(a->items);
    memset(a, 0, sizeof *a);
}
