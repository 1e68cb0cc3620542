/* Start and commit timestamps (see timestamps.h). */
#include "check/timestamps.h"

#include "core/txnid.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Edges between two groups of transactions with equal commit times. */
#define MAX_TIE_EDGES 1000000u

static bool committed(const psi_history *h, uint32_t t)
{
    return t != PSI_INIT_TXN && h->txns[t].status == PSI_TXN_COMMITTED;
}

psi_status psi_ts_resolve(const psi_history *h, const psi_index *idx, const psi_timestamps *ts,
                          psi_ts_info *out, psi_diag *d)
{
    (void)idx;
    memset(out, 0, sizeof *out);
    uint32_t n = h->n_txns;
    psi_txn_lookup tids = {0};
    const char *name = ts->name ? ts->name : "";
    out->file = malloc(strlen(name) + 1);
    out->start = calloc(n ? n : 1, sizeof *out->start);
    out->commit = calloc(n ? n : 1, sizeof *out->commit);
    out->line = calloc(n ? n : 1, sizeof *out->line);
    psi_status st = PSI_OK;
    if (!out->file || !out->start || !out->commit || !out->line) {
        st = psi_diag_nomem(d, "reading timestamps");
        goto out;
    }
    strcpy(out->file, name);
    if ((st = psi_txn_lookup_init(&tids, h, true, "reading timestamps", d)) != PSI_OK)
        goto out;
    uint32_t n_committed = 0;
    for (uint32_t t = 1; t < n; t++)
        n_committed += h->txns[t].status == PSI_TXN_COMMITTED;
    for (size_t i = 0; i < ts->n && st == PSI_OK; i++) {
        const psi_hint_ts *e = &ts->e[i];
        uint32_t t = psi_txn_lookup_find(&tids, e->sid, e->tid);
        if (t == UINT32_MAX) {
            st = psi_diag_line(d, PSI_ERR_INPUT, name, e->line, 1,
                               "transaction (%llu,%llu) is not a committed transaction of %s",
                               (unsigned long long)e->sid, (unsigned long long)e->tid,
                               h->source ? h->source : "the history");
            break;
        }
        assert(e->start <= e->commit);
        if (h->txns[t].status != PSI_TXN_COMMITTED)
            continue; /* the recorded initial state: it precedes everyone anyway */
        if (out->line[t])
            st = psi_diag_line(d, PSI_ERR_INPUT, name, e->line, 1,
                               "(%llu,%llu) already has timestamps (line %llu)",
                               (unsigned long long)e->sid, (unsigned long long)e->tid,
                               (unsigned long long)out->line[t]);
        out->start[t] = e->start;
        out->commit[t] = e->commit;
        out->line[t] = e->line;
        out->n_with++;
    }
    out->complete = st == PSI_OK && out->n_with == n_committed;
out:
    psi_txn_lookup_free(&tids);
    if (st != PSI_OK)
        psi_ts_info_free(out);
    return st;
}

typedef struct by_commit {
    int64_t c;
    uint32_t txn;
} by_commit;

static int by_commit_cmp(const void *a, const void *b)
{
    const by_commit *x = a, *y = b;
    if (x->c != y->c)
        return x->c < y->c ? -1 : 1;
    return x->txn < y->txn ? -1 : x->txn > y->txn;
}

/* The committed transactions with timestamps, by commit time. */
static by_commit *sorted_by_commit(const psi_history *h, const psi_ts_info *info, uint32_t *n)
{
    by_commit *v = malloc(((size_t)info->n_with + 1) * sizeof *v);
    if (!v)
        return NULL;
    uint32_t m = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (committed(h, t) && info->line[t])
            v[m++] = (by_commit){info->commit[t], t};
    if (m)
        qsort(v, m, sizeof *v, by_commit_cmp);
    *n = m;
    return v;
}

bool psi_ts_can_replay(const psi_history *h, const psi_ts_info *info, bool ser)
{
    if (!info->complete || h->n_list_reads)
        return false;
    if (!ser)
        return true;
    uint32_t n;
    by_commit *v = sorted_by_commit(h, info, &n);
    bool distinct = v != NULL;
    for (uint32_t i = 1; distinct && i < n; i++)
        distinct = v[i].c != v[i - 1].c;
    free(v);
    return distinct;
}

/* Session order among the timestamped transactions: each commits before
 * the next one starts (SER: commits). */
static void check_sessions(const psi_history *h, const psi_ts_info *info, bool ser,
                           psi_ts_violation *v)
{
    for (uint32_t s = 0; s < h->n_sessions && !v->kind; s++) {
        uint32_t prev = UINT32_MAX;
        const psi_session *se = &h->sessions[s];
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            if (!committed(h, t) || !info->line[t])
                continue;
            if (prev != UINT32_MAX &&
                !(info->commit[prev] < (ser ? info->commit[t] : info->start[t]))) {
                *v = (psi_ts_violation){.kind = PSI_TS_SESSION_ORDER,
                                        .a = prev,
                                        .b = t,
                                        .key = UINT32_MAX,
                                        .op = UINT32_MAX,
                                        .other = UINT32_MAX};
                return;
            }
            prev = t;
        }
    }
}

/* The state of the replay: per key the latest installed version. */
typedef struct replay {
    const psi_history *h;
    const psi_index *idx;
    const psi_ts_info *info;
    bool ser;
    uint64_t *val; /* [n_keys] */
    uint32_t *w;   /* [n_keys] its writer (PSI_INIT_TXN: the initial value) */
    int64_t *c;    /* [n_keys] its commit time */
    uint32_t *own; /* [n_keys] the transaction that last wrote it in its own reads pass */
    psi_ts_violation *v;
} replay;

/* Names the violation of read op o of t, which did not see the current
 * version of its key. */
static void bad_read(replay *r, uint32_t t, uint32_t o)
{
    uint32_t k = r->h->ops[o].key;
    uint32_t src = r->idx->read_src ? r->idx->read_src[o] : PSI_SRC_NONE;
    uint32_t w = src < PSI_SRC_INIT ? r->idx->op_txn[src] : PSI_INIT_TXN;
    int64_t when = r->ser ? r->info->commit[t] : r->info->start[t];
    if (src < PSI_SRC_INIT && committed(r->h, w) && r->info->line[w] &&
        r->info->commit[w] >= when) {
        *r->v = (psi_ts_violation){
            .kind = PSI_TS_FUTURE_READ, .a = w, .b = t, .key = k, .op = o, .other = UINT32_MAX};
        return;
    }
    *r->v = (psi_ts_violation){.kind = PSI_TS_STALE_READ,
                               .a = r->w[k],
                               .b = t,
                               .key = k,
                               .op = o,
                               .other = src == PSI_SRC_NONE ? UINT32_MAX : w};
}

/* t's reads against the current versions (its own writes aside). */
static void reads_of(replay *r, uint32_t t)
{
    const psi_txn *tx = &r->h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops && !r->v->kind; i++) {
        uint32_t o = tx->first_op + i;
        const psi_op *op = &r->h->ops[o];
        if (op->kind == PSI_OP_WRITE)
            r->own[op->key] = t;
        else if (r->own[op->key] != t && op->value != r->val[op->key])
            bad_read(r, t, o);
    }
}

/* t's final writes become the current versions (SI: unless a version of
 * the key committed since t started). */
static void install(replay *r, uint32_t t)
{
    const psi_txn *tx = &r->h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops && !r->v->kind; i++) {
        uint32_t o = tx->first_op + i;
        if (!(r->idx->op_info[o] & PSI_OI_FINAL_WRITE))
            continue;
        uint32_t k = r->h->ops[o].key;
        if (!r->ser && r->w[k] != PSI_INIT_TXN && r->c[k] >= r->info->start[t]) {
            *r->v = (psi_ts_violation){.kind = PSI_TS_CONCURRENT_WRITERS,
                                       .a = r->w[k],
                                       .b = t,
                                       .key = k,
                                       .op = UINT32_MAX,
                                       .other = UINT32_MAX};
            return;
        }
        r->val[k] = r->h->ops[o].value;
        r->w[k] = t;
        r->c[k] = r->info->commit[t];
    }
}

typedef struct event {
    int64_t ts;
    uint32_t txn;
    uint32_t commit; /* 0 start, 1 commit: starts first at equal times */
} event;

static int event_cmp(const void *a, const void *b)
{
    const event *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->commit != y->commit)
        return x->commit < y->commit ? -1 : 1;
    return x->txn < y->txn ? -1 : x->txn > y->txn;
}

psi_status psi_ts_replay(const psi_history *h, const psi_index *idx, const psi_ts_info *info,
                         bool ser, psi_ts_violation *v, psi_diag *d)
{
    memset(v, 0, sizeof *v);
    check_sessions(h, info, ser, v);
    if (v->kind)
        return PSI_OK;
    uint32_t nk = h->n_keys ? h->n_keys : 1;
    replay r = {.h = h, .idx = idx, .info = info, .ser = ser, .v = v};
    r.val = calloc(nk, sizeof *r.val);
    r.w = calloc(nk, sizeof *r.w);
    r.c = calloc(nk, sizeof *r.c);
    r.own = calloc(nk, sizeof *r.own);
    event *ev = NULL;
    by_commit *order = NULL;
    psi_status st = PSI_OK;
    if (!r.val || !r.w || !r.c || !r.own) {
        st = psi_diag_nomem(d, "replaying timestamps");
        goto out;
    }
    if (ser) {
        /* Commit order is the serial order. */
        uint32_t n;
        if (!(order = sorted_by_commit(h, info, &n))) {
            st = psi_diag_nomem(d, "replaying timestamps");
            goto out;
        }
        for (uint32_t i = 0; i < n && !v->kind; i++) {
            reads_of(&r, order[i].txn);
            if (!v->kind)
                install(&r, order[i].txn);
        }
        goto out;
    }
    ev = malloc(((size_t)info->n_with * 2 + 1) * sizeof *ev);
    if (!ev) {
        st = psi_diag_nomem(d, "replaying timestamps");
        goto out;
    }
    size_t ne = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (!committed(h, t))
            continue;
        ev[ne++] = (event){info->start[t], t, 0};
        ev[ne++] = (event){info->commit[t], t, 1};
    }
    qsort(ev, ne, sizeof *ev, event_cmp);
    for (size_t i = 0; i < ne && !v->kind; i++) {
        if (ev[i].commit)
            install(&r, ev[i].txn);
        else
            reads_of(&r, ev[i].txn);
    }
out:
    free(r.val);
    free(r.w);
    free(r.c);
    free(r.own);
    free(ev);
    free(order);
    return st;
}

/* ---- Partial timestamps ---- */

typedef struct kwrite {
    uint32_t key, txn;
    int64_t start, commit;
} kwrite;

static int kw_by_start(const void *a, const void *b)
{
    const kwrite *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->txn < y->txn ? -1 : x->txn > y->txn;
}

static int kw_by_commit(const void *a, const void *b)
{
    const kwrite *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->commit != y->commit)
        return x->commit < y->commit ? -1 : 1;
    return x->txn < y->txn ? -1 : x->txn > y->txn;
}

/* The visibility order of SI as sparse DEP edges: for each timestamped b
 * (in session order) and each other session p, an edge from the latest
 * transaction of p committed before b starts, when b's session
 * predecessor did not already have it (then it reaches b through it). */
static psi_status frontier_edges(const psi_history *h, const psi_ts_info *info, psi_polygraph *g,
                                 psi_diag *d)
{
    uint32_t S = h->n_sessions;
    if (S > PSI_TS_MAX_FRONTIER_SESSIONS)
        return PSI_OK;
    /* Per session: its timestamped transactions (commits increase along
     * it: check_sessions). */
    uint32_t *off = calloc((size_t)S + 1, sizeof *off);
    uint32_t *lst = malloc(((size_t)info->n_with + 1) * sizeof *lst);
    uint32_t *last = calloc((size_t)S * S + 1, sizeof *last);
    psi_status st = PSI_OK;
    if (!off || !lst || !last) {
        st = psi_diag_nomem(d, "adding timestamp edges");
        goto out;
    }
    for (uint32_t s = 0; s < S; s++) {
        off[s + 1] = off[s];
        const psi_session *se = &h->sessions[s];
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++)
            if (committed(h, t) && info->line[t])
                lst[off[s + 1]++] = t;
    }
    for (uint32_t q = 0; q < S && st == PSI_OK; q++) {
        for (uint32_t i = off[q]; i < off[q + 1] && st == PSI_OK; i++) {
            uint32_t b = lst[i];
            for (uint32_t p = 0; p < S && st == PSI_OK; p++) {
                if (p == q)
                    continue;
                /* How many of p's transactions commit before b starts. */
                uint32_t lo = off[p], hi = off[p + 1];
                while (lo < hi) {
                    uint32_t m = lo + (hi - lo) / 2;
                    if (info->commit[lst[m]] < info->start[b])
                        lo = m + 1;
                    else
                        hi = m;
                }
                uint32_t f = lo - off[p];
                uint32_t *seen = &last[(size_t)q * S + p];
                if (f > *seen) {
                    st = psi_polygraph_add_known(g, lst[off[p] + f - 1], b, PSI_EDGE_SO, UINT32_MAX,
                                                 PSI_FROM_TIMESTAMPS, d);
                    *seen = f;
                }
            }
        }
    }
out:
    free(off);
    free(lst);
    free(last);
    return st;
}

psi_status psi_ts_constrain(const psi_history *h, const psi_index *idx, const psi_ts_info *info,
                            bool ser, psi_polygraph *g, psi_ts_violation *v, psi_diag *d)
{
    memset(v, 0, sizeof *v);
    check_sessions(h, info, ser, v);
    if (v->kind)
        return PSI_OK;
    /* A read of a version committed after it started (SER: after it
     * committed). */
    for (uint32_t o = 0; o < h->n_ops && !v->kind; o++) {
        if (!(idx->op_info[o] & PSI_OI_EXTERNAL_READ) || !(idx->op_info[o] & PSI_OI_LIVE))
            continue;
        uint32_t src = idx->read_src[o];
        if (src >= PSI_SRC_INIT)
            continue;
        uint32_t w = idx->op_txn[src], t = idx->op_txn[o];
        if (w == t || !info->line[w] || !info->line[t])
            continue;
        if (info->commit[w] >= (ser ? info->commit[t] : info->start[t]))
            *v = (psi_ts_violation){.kind = PSI_TS_FUTURE_READ,
                                    .a = w,
                                    .b = t,
                                    .key = h->ops[o].key,
                                    .op = o,
                                    .other = UINT32_MAX};
    }
    if (v->kind)
        return PSI_OK;
    /* Timestamped writers per key. */
    kwrite *kw = NULL;
    size_t n = 0, cap = 0;
    psi_status st = PSI_OK;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        if (!(idx->op_info[o] & PSI_OI_FINAL_WRITE) || !(idx->op_info[o] & PSI_OI_LIVE))
            continue;
        uint32_t t = idx->op_txn[o];
        if (!committed(h, t) || !info->line[t])
            continue;
        if (!psi_grow((void **)&kw, &cap, n + 1, sizeof *kw)) {
            free(kw);
            return psi_diag_nomem(d, "adding timestamp edges");
        }
        kw[n++] = (kwrite){h->ops[o].key, t, info->start[t], info->commit[t]};
    }
    if (!ser && n) {
        /* SI: no two overlapping writers of a key. */
        qsort(kw, n, sizeof *kw, kw_by_start);
        /* The sweep proper: per key, the writer with the latest commit so
         * far; overlap iff it commits at or after the next one starts. */
        size_t best = 0;
        for (size_t i = 0; i < n && !v->kind; i++) {
            if (i == 0 || kw[i].key != kw[i - 1].key) {
                best = i;
                continue;
            }
            if (kw[best].commit >= kw[i].start)
                *v = (psi_ts_violation){.kind = PSI_TS_CONCURRENT_WRITERS,
                                        .a = kw[best].txn,
                                        .b = kw[i].txn,
                                        .key = kw[i].key,
                                        .op = UINT32_MAX,
                                        .other = UINT32_MAX};
            else if (kw[i].commit > kw[best].commit)
                best = i;
        }
    }
    if (!v->kind && n) {
        /* Commit order is the version order of the timestamped writers. */
        qsort(kw, n, sizeof *kw, kw_by_commit);
        for (size_t i = 1; i < n && st == PSI_OK; i++)
            if (kw[i].key == kw[i - 1].key && kw[i - 1].commit < kw[i].commit)
                st = psi_polygraph_add_known(g, kw[i - 1].txn, kw[i].txn, PSI_EDGE_WW, kw[i].key,
                                             PSI_FROM_TIMESTAMPS, d);
    }
    free(kw);
    if (st != PSI_OK || v->kind)
        return st;
    if (!ser)
        return frontier_edges(h, info, g, d);
    /* SER: the commit order, group by group of equal commit times (every
     * member of one group before every member of the next; beyond
     * MAX_TIE_EDGES such edges a tie is left unordered, which only
     * weakens the check). */
    uint32_t m;
    by_commit *order = sorted_by_commit(h, info, &m);
    if (!order)
        return psi_diag_nomem(d, "adding timestamp edges");
    for (uint32_t b = 0, pb = UINT32_MAX; b < m && st == PSI_OK;) {
        uint32_t e = b;
        while (e < m && order[e].c == order[b].c)
            e++;
        if (pb != UINT32_MAX && (uint64_t)(b - pb) * (e - b) <= MAX_TIE_EDGES)
            for (uint32_t i = pb; i < b && st == PSI_OK; i++)
                for (uint32_t j = b; j < e && st == PSI_OK; j++)
                    st = psi_polygraph_add_known(g, order[i].txn, order[j].txn, PSI_EDGE_SO,
                                                 UINT32_MAX, PSI_FROM_TIMESTAMPS, d);
        pb = b;
        b = e;
    }
    free(order);
    return st;
}

psi_status psi_ts_commit_order(const psi_history *h, const psi_ts_info *info, uint32_t **order,
                               uint32_t *n, psi_diag *d)
{
    by_commit *v = sorted_by_commit(h, info, n);
    *order = v ? malloc(((size_t)*n + 1) * sizeof **order) : NULL;
    if (!*order) {
        free(v);
        *n = 0;
        return psi_diag_nomem(d, "ordering by timestamps");
    }
    for (uint32_t i = 0; i < *n; i++)
        (*order)[i] = v[i].txn;
    free(v);
    return PSI_OK;
}

void psi_ts_info_free(psi_ts_info *info)
{
    free(info->file);
    free(info->start);
    free(info->commit);
    free(info->line);
    memset(info, 0, sizeof *info);
}
