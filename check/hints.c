/* Known version orders as known edges (see hints.h). */
#include "check/hints.h"

#include "check/hints_resolver.h"

#include "core/keyname.h"
#include "core/txnid.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Orders edges by key, then endpoints, then line: the per-key consistency
 * check of a key whose edges are not one path. */
static int by_key(const void *a, const void *b)
{
    const psi_hint_edge *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

#define TID_SHARED (UINT32_MAX - 1)

/* Whether t is named by hints: committed, or the recorded initial state. */
static bool nameable(const psi_txn *t)
{
    return t->status == PSI_TXN_COMMITTED || t->status == PSI_TXN_INITIAL;
}

/* Fills r->by_tid when the committed transactions' ids are dense enough
 * (at most 4 slots a transaction); leaves it NULL otherwise. */
static psi_status index_tids(psi_resolver *r)
{
    const psi_history *h = r->h;
    uint64_t lo = UINT64_MAX, hi = 0, n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (nameable(&h->txns[t])) {
            lo = h->txns[t].id < lo ? h->txns[t].id : lo;
            hi = h->txns[t].id > hi ? h->txns[t].id : hi;
            n++;
        }
    if (!n || hi - lo >= 4 * n + 64)
        return PSI_OK;
    r->tid_min = lo;
    r->tid_span = hi - lo + 1;
    r->by_tid = malloc(r->tid_span * sizeof *r->by_tid);
    if (!r->by_tid)
        return psi_diag_nomem(r->d, "reading the version order");
    memset(r->by_tid, 0xff, r->tid_span * sizeof *r->by_tid);
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (nameable(&h->txns[t])) {
            uint32_t *slot = &r->by_tid[h->txns[t].id - lo];
            *slot = *slot == UINT32_MAX ? t : TID_SHARED;
        }
    return PSI_OK;
}

/* Committed (or initial-state) transaction (sid, tid), UINT32_MAX when
 * there is none. Histories mostly number transactions globally (by_tid
 * answers), or number sessions densely and a session's transactions in
 * ascending order: the name is then looked for as an offset from the
 * first session and by a binary search of that session's transactions (a
 * hit is verified). Any other name goes through the sorted table, which
 * is the answer whenever that search misses. */
uint32_t psi_hints_find_txn(psi_resolver *r, uint64_t sid, uint64_t tid, bool *nomem)
{
    const psi_history *h = r->h;
    if (r->by_tid && tid >= r->tid_min && tid - r->tid_min < r->tid_span) {
        uint32_t t = r->by_tid[tid - r->tid_min];
        if (t == UINT32_MAX)
            return UINT32_MAX; /* no committed transaction has that id */
        if (t != TID_SHARED)
            return h->sessions[h->txns[t].session].id == sid ? t : UINT32_MAX;
    }
    if (h->n_sessions && sid >= h->sessions[0].id && sid - h->sessions[0].id < h->n_sessions) {
        const psi_session *s = &h->sessions[sid - h->sessions[0].id];
        uint32_t b = s->first_txn, e = s->first_txn + s->n_txns;
        while (s->id == sid && b < e) {
            uint32_t m = b + (e - b) / 2;
            if (h->txns[m].id < tid)
                b = m + 1;
            else
                e = m;
        }
        if (s->id == sid && b < s->first_txn + s->n_txns && h->txns[b].id == tid &&
            nameable(&h->txns[b]))
            return b;
    }
    if (!r->tids.e &&
        psi_txn_lookup_init(&r->tids, h, true, "reading the version order", r->d) != PSI_OK) {
        *nomem = true;
        return UINT32_MAX;
    }
    return psi_txn_lookup_find(&r->tids, sid, tid);
}

/* Whether committed transaction t has a final write of dense key k: the
 * polygraph's writer list of k, or without one the resolver's key
 * writers, is sorted by transaction. */
static bool writes_key(const psi_resolver *r, uint32_t t, uint32_t k)
{
    const psi_polygraph *g = r->g;
    uint32_t b = g ? g->w_off[k] : r->kw->off[k], e = g ? g->w_off[k + 1] : r->kw->off[k + 1];
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        uint32_t mt = g ? g->op_txn[g->w_op[m]] : r->kw->wtx[m];
        if (mt == t)
            return true;
        if (mt < t)
            b = m + 1;
        else
            e = m;
    }
    return false;
}

psi_hint_txn psi_hint_chain_entry(const psi_version_order *vo, const psi_hint_chain *c, size_t i)
{
    assert(i < c->n);
    if (!c->txn)
        return c->tx[i];
    const psi_history *h = vo->named_in;
    const psi_txn *t = &h->txns[c->txn[i]];
    return (psi_hint_txn){.sid = h->sessions[t->session].id, .tid = t->id, .line = c->line};
}

/* The node of entry i of chain c on key k (a committed writer of k, or
 * the recorded initial state, which is the initial transaction), or an
 * error. */
static psi_status node_of(psi_resolver *r, const psi_hint_chain *c, size_t i, uint32_t k,
                          uint32_t *node)
{
    bool nomem = false;
    uint32_t t = psi_hints_entry_txn(r, c, i, &nomem);
    if (nomem)
        return PSI_ERR_NOMEM;
    if (t == UINT32_MAX) {
        psi_hint_txn x = psi_hint_chain_entry(r->vo, c, i);
        return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, x.line, 1,
                             "transaction (%llu,%llu) is not a committed transaction of %s",
                             (unsigned long long)x.sid, (unsigned long long)x.tid,
                             r->h->source ? r->h->source : "the history");
    }
    if (r->h->txns[t].status == PSI_TXN_INITIAL) {
        *node = PSI_INIT_TXN; /* merged into the initial transaction */
        return PSI_OK;
    }
    if (!writes_key(r, t, k)) {
        psi_hint_txn x = psi_hint_chain_entry(r->vo, c, i);
        return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, x.line, 1,
                             "transaction (%llu,%llu) does not write key %s, so it installs "
                             "no version of it",
                             (unsigned long long)x.sid, (unsigned long long)x.tid,
                             PSI_KEY_NAME(r->h, k));
    }
    *node = t;
    return PSI_OK;
}

/* The dense key chain c names, UINT32_MAX when the history has none. */
uint32_t psi_hints_chain_key(const psi_resolver *r, const psi_hint_chain *c)
{
    return c->key_name ? psi_key_lookup_name(&r->keys, c->key_name)
                       : psi_key_lookup_ext(&r->keys, c->key);
}

/* The lookups a resolver needs to name chains' transactions and keys. */
psi_status psi_hints_open(psi_resolver *r)
{
    psi_status st = r->keys_only ? PSI_OK : index_tids(r);
    return st == PSI_OK ? psi_key_lookup_init(&r->keys, r->h, r->d) : st;
}

void psi_hints_close(psi_resolver *r)
{
    if (r->keys.h)
        psi_key_lookup_free(&r->keys);
    psi_txn_lookup_free(&r->tids);
    free(r->by_tid);
}

static psi_status chain_edges(psi_resolver *r, const psi_hint_chain *c)
{
    uint32_t key = psi_hints_chain_key(r, c);
    if (key == UINT32_MAX && c->key_name)
        return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, c->line, 1,
                             "key %.200s is not in %s", c->key_name,
                             r->h->source ? r->h->source : "the history");
    if (key == UINT32_MAX)
        return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, c->line, 1,
                             "key %llu is not in the history", (unsigned long long)c->key);
    uint32_t prev = UINT32_MAX;
    for (size_t i = 0; i < c->n; i++) {
        uint32_t t = UINT32_MAX; /* node_of sets it on PSI_OK (GCC -O2 cannot see that) */
        psi_status st = node_of(r, c, i, key, &t);
        if (st != PSI_OK)
            return st;
        if (prev != UINT32_MAX) {
            if (t == prev) {
                psi_hint_txn x = psi_hint_chain_entry(r->vo, c, i);
                return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, c->line, 1,
                                     "transaction (%llu,%llu) is named twice in a row",
                                     (unsigned long long)x.sid, (unsigned long long)x.tid);
            }
            assert(r->n_e < r->cap_e);
            r->e[r->n_e++] = (psi_hint_edge){.from = prev, .to = t, .key = key, .line = c->line};
        }
        prev = t;
    }
    return PSI_OK;
}

/* A key's hint edges e[0..n) (sorted by from) must be acyclic: Kahn's
 * algorithm over the writers they name. The line of an edge left on a
 * cycle when they are not. */
static uint64_t cyclic_line(const psi_hint_edge *e, size_t n, uint32_t *indeg, uint32_t *queue,
                            uint8_t *done_edge)
{
    for (size_t i = 0; i < n; i++) {
        indeg[e[i].to]++;
        done_edge[i] = 0;
    }
    size_t qn = 0;
    for (size_t i = 0; i < n; i++) {
        if (indeg[e[i].from] == 0) {
            indeg[e[i].from] = UINT32_MAX; /* queued once */
            queue[qn++] = e[i].from;
        }
    }
    for (size_t qi = 0; qi < qn; qi++) {
        uint32_t u = queue[qi];
        /* Edges out of u: a run of the from-sorted array. */
        size_t b = 0, hi = n;
        while (b < hi) {
            size_t m = b + (hi - b) / 2;
            if (e[m].from < u)
                b = m + 1;
            else
                hi = m;
        }
        for (size_t i = b; i < n && e[i].from == u; i++) {
            done_edge[i] = 1;
            if (--indeg[e[i].to] == 0) {
                indeg[e[i].to] = UINT32_MAX;
                queue[qn++] = e[i].to;
            }
        }
    }
    uint64_t line = 0;
    for (size_t i = 0; i < n; i++) {
        if (!done_edge[i] && (!line || e[i].line < line))
            line = e[i].line;
        indeg[e[i].from] = indeg[e[i].to] = 0; /* scratch back to zero */
    }
    return line;
}

/* Groups r->e by key, keys ascending, keeping each key's edges in chain
 * order: a counting sort, skipped when the chains come key by key in
 * ascending order already (as witnesses write them). */
static psi_status group_keys(psi_resolver *r)
{
    size_t i = 1;
    while (i < r->n_e && r->e[i - 1].key <= r->e[i].key)
        i++;
    if (i >= r->n_e)
        return PSI_OK;
    uint32_t nk = r->g ? r->g->n_keys : r->h->n_keys;
    uint64_t *off = calloc((size_t)nk + 1, sizeof *off);
    psi_hint_edge *out = malloc(r->n_e * sizeof *out);
    if (!off || !out) {
        free(off);
        free(out);
        return psi_diag_nomem(r->d, "reading the version order");
    }
    for (i = 0; i < r->n_e; i++)
        off[r->e[i].key + 1]++;
    for (uint32_t k = 0; k < nk; k++)
        off[k + 1] += off[k];
    for (i = 0; i < r->n_e; i++)
        out[off[r->e[i].key]++] = r->e[i];
    free(off);
    free(r->e);
    r->e = out;
    r->cap_e = r->n_e;
    return PSI_OK;
}

/* Whether a key's edges e[0..n) form one path naming each transaction
 * once (one chain, or chains that continue each other): then they are
 * acyclic and no two are the same edge. stamp[t] == mark marks the
 * transactions seen in this key. */
static bool simple_path(const psi_hint_edge *e, size_t n, uint32_t *stamp, uint32_t mark)
{
    if (stamp[e[0].from] == mark)
        return false;
    stamp[e[0].from] = mark;
    for (size_t i = 0; i < n; i++) {
        if ((i && e[i].from != e[i - 1].to) || stamp[e[i].to] == mark)
            return false;
        stamp[e[i].to] = mark;
    }
    return true;
}

/* Per key: the hints must not contradict themselves, and each edge is
 * kept once (its first line). Leaves r->e grouped by key, keys ascending:
 * a key's edges in chain order when they form one path (the common case,
 * checked in one pass), else sorted by (from, to). */
static psi_status check_consistent(psi_resolver *r)
{
    psi_status st = group_keys(r);
    uint32_t *stamp = st == PSI_OK ? calloc(r->h->n_txns, sizeof *stamp) : NULL;
    /* Kahn's scratch, for keys that are not one path. */
    uint32_t *indeg = NULL, *queue = NULL;
    uint8_t *done = NULL;
    if (st == PSI_OK && !stamp)
        st = psi_diag_nomem(r->d, "reading the version order");
    size_t m = 0;
    uint32_t mark = 0;
    for (size_t b = 0; b < r->n_e && st == PSI_OK;) {
        size_t e = b;
        while (e < r->n_e && r->e[e].key == r->e[b].key)
            e++;
        assert(mark < UINT32_MAX);
        if (simple_path(r->e + b, e - b, stamp, ++mark)) {
            memmove(r->e + m, r->e + b, (e - b) * sizeof *r->e);
            m += e - b;
            b = e;
            continue;
        }
        if (!indeg) {
            indeg = calloc(r->h->n_txns, sizeof *indeg);
            queue = malloc((2 * r->n_e + 1) * sizeof *queue);
            done = malloc(r->n_e + 1);
            if (!indeg || !queue || !done) {
                st = psi_diag_nomem(r->d, "reading the version order");
                break;
            }
        }
        qsort(r->e + b, e - b, sizeof *r->e, by_key);
        uint64_t line = cyclic_line(r->e + b, e - b, indeg, queue, done);
        if (line) {
            st = psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, line, 1,
                               "the version order of key %s contradicts itself: its chains "
                               "order two writers both ways",
                               PSI_KEY_NAME(r->h, r->e[b].key));
            break;
        }
        /* One edge per (from, to), with its first line (sorted by line
         * last). */
        size_t g0 = m;
        for (size_t i = b; i < e; i++)
            if (m == g0 || r->e[m - 1].from != r->e[i].from || r->e[m - 1].to != r->e[i].to)
                r->e[m++] = r->e[i];
        b = e;
    }
    r->n_e = m;
    free(stamp);
    free(indeg);
    free(queue);
    free(done);
    return st;
}

/* psi_hints_resolve and psi_hints_resolve_index: r names the history and
 * its writer lists (r->g's, or r->kw). */
static psi_status resolve(psi_resolver *rp, psi_hints *out)
{
    psi_resolver r = *rp;
    const psi_version_order *vo = r.vo;
    psi_diag *d = r.d;
    out->file = malloc(strlen(vo->name ? vo->name : "") + 1);
    psi_status st = PSI_OK;
    if (!out->file) {
        st = psi_diag_nomem(d, "reading the version order");
        goto out;
    }
    strcpy(out->file, vo->name ? vo->name : "");
    if ((st = psi_hints_open(&r)) != PSI_OK)
        goto out;
    /* One edge per consecutive pair of every chain, at most. */
    for (size_t c = 0; c < vo->n_chains; c++)
        r.cap_e += vo->chains[c].n ? vo->chains[c].n - 1 : 0;
    if (!(r.e = malloc((r.cap_e ? r.cap_e : 1) * sizeof *r.e))) {
        st = psi_diag_nomem(d, "reading the version order");
        goto out;
    }
    for (size_t c = 0; c < vo->n_chains && st == PSI_OK; c++)
        st = chain_edges(&r, &vo->chains[c]);
    if (st == PSI_OK)
        st = check_consistent(&r);
    if (st != PSI_OK)
        goto out;
    out->e = r.e;
    out->n = out->n_all = r.n_e;
    r.e = NULL;
out:
    psi_hints_close(&r);
    free(r.e);
    if (st != PSI_OK)
        psi_hints_free(out);
    return st;
}

psi_status psi_hints_resolve(const psi_history *h, const psi_polygraph *g,
                             const psi_version_order *vo, psi_hints *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    assert(g->w_off && g->op_txn);
    psi_resolver r = {.h = h, .g = g, .vo = vo, .d = d};
    return resolve(&r, out);
}

psi_status psi_hints_resolve_index(const psi_history *h, const psi_index *idx,
                                   const psi_version_order *vo, psi_hints *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    /* each key's committed final writes by transaction, as the
     * polygraph's writer lists have them */
    psi_key_writers kw = {0};
    psi_status st = psi_key_writers_build(h, idx, &kw)
                        ? PSI_OK
                        : psi_diag_nomem(d, "reading the version order");
    psi_resolver r = {.h = h, .idx = idx, .vo = vo, .d = d, .kw = &kw};
    if (st == PSI_OK)
        st = resolve(&r, out);
    psi_key_writers_free(&kw);
    return st;
}

/* One chain of psi_hints_complete: key k's writers (marked in mark[], see
 * there) in its order into pos[w_off[k]..], true when it names each of
 * them exactly once (the recorded initial state may come first). */
static bool complete_chain(psi_resolver *r, const psi_hint_chain *c, uint32_t k, uint32_t *mark,
                           uint32_t *pos, bool *nomem)
{
    const psi_polygraph *g = r->g;
    uint32_t b = g->w_off[k], e = g->w_off[k + 1];
    size_t skip = 0;
    for (uint32_t i = b; i < e; i++)
        mark[g->op_txn[g->w_op[i]]] = i;
    for (size_t i = 0; i < c->n; i++) {
        uint32_t t = psi_hints_entry_txn(r, c, i, nomem);
        if (t == UINT32_MAX)
            return false;
        if (r->h->txns[t].status == PSI_TXN_INITIAL && i == 0) {
            skip = 1; /* the initial version comes first anyway */
            continue;
        }
        /* A mark outside k's range is another key's (ranges are disjoint);
         * a consumed one is UINT32_MAX, so a writer named twice fails. */
        uint32_t m = mark[t];
        if (m < b || m >= e || g->op_txn[g->w_op[m]] != t || c->n - skip != e - b)
            return false;
        mark[t] = UINT32_MAX;
        pos[b + i - skip] = m;
    }
    return c->n - skip == e - b;
}

/* The edges of complete chains, as psi_hints_resolve leaves them: keys
 * ascending, each key's in chain order (the recorded initial state's
 * first when it leads), with its line. */
static psi_status complete_edges(psi_resolver *r, const uint32_t *chain_of, const uint32_t *pos,
                                 psi_hints *out)
{
    const psi_polygraph *g = r->g;
    const psi_version_order *vo = r->vo;
    uint64_t n = 0;
    for (uint32_t k = 0; k < g->n_keys; k++)
        if (chain_of[k] != UINT32_MAX && vo->chains[chain_of[k]].n)
            n += vo->chains[chain_of[k]].n - 1;
    out->file = malloc(strlen(vo->name ? vo->name : "") + 1);
    out->e = malloc((n ? n : 1) * sizeof *out->e);
    if (!out->file || !out->e)
        return psi_diag_nomem(r->d, "reading the version order");
    strcpy(out->file, vo->name ? vo->name : "");
    for (uint32_t k = 0; k < g->n_keys; k++) {
        if (chain_of[k] == UINT32_MAX)
            continue;
        const psi_hint_chain *c = &vo->chains[chain_of[k]];
        uint32_t b = g->w_off[k], nw = g->w_off[k + 1] - b;
        uint32_t prev = c->n > nw ? PSI_INIT_TXN : UINT32_MAX;
        for (uint32_t i = 0; i < nw; i++) {
            uint32_t t = g->op_txn[g->w_op[pos[b + i]]];
            if (prev != UINT32_MAX)
                out->e[out->n++] =
                    (psi_hint_edge){.from = prev, .to = t, .key = k, .line = c->line};
            prev = t;
        }
    }
    assert(out->n == n);
    out->n_all = n;
    return PSI_OK;
}

psi_status psi_hints_complete(const psi_history *h, const psi_polygraph *g,
                              const psi_version_order *vo, uint32_t *pos, psi_hints *out,
                              bool *complete, psi_diag *d)
{
    *complete = false;
    memset(out, 0, sizeof *out);
    psi_resolver r = {.h = h, .g = g, .vo = vo, .d = d};
    /* chain_of[k]: the chain of key k, UINT32_MAX when none */
    uint32_t *chain_of = malloc(((size_t)g->n_keys + 1) * sizeof *chain_of);
    uint32_t *mark = malloc(((size_t)h->n_txns + 1) * sizeof *mark);
    psi_status st = PSI_OK;
    if (!chain_of || !mark || vo->n_chains >= UINT32_MAX)
        st = psi_diag_nomem(d, "reading the version order");
    else
        st = psi_hints_open(&r);
    bool ok = st == PSI_OK, nomem = false;
    if (ok) {
        memset(mark, 0xff, (size_t)h->n_txns * sizeof *mark);
        memset(chain_of, 0xff, (size_t)g->n_keys * sizeof *chain_of);
    }
    for (size_t c = 0; c < vo->n_chains && ok; c++) {
        uint32_t k = psi_hints_chain_key(&r, &vo->chains[c]);
        /* one chain per key: several are the general resolution's */
        ok = k != UINT32_MAX && chain_of[k] == UINT32_MAX;
        if (ok) {
            chain_of[k] = (uint32_t)c;
            ok = complete_chain(&r, &vo->chains[c], k, mark, pos, &nomem);
        }
    }
    /* A key with one writer needs no line; one with more does. */
    for (uint32_t k = 0; k < g->n_keys && ok; k++)
        if (chain_of[k] == UINT32_MAX) {
            ok = g->w_off[k + 1] - g->w_off[k] <= 1;
            if (g->w_off[k + 1] > g->w_off[k])
                pos[g->w_off[k]] = g->w_off[k];
        }
    if (nomem && st == PSI_OK)
        st = psi_diag_nomem(d, "reading the version order");
    if (ok && st == PSI_OK)
        st = complete_edges(&r, chain_of, pos, out);
    *complete = ok && st == PSI_OK;
    if (!*complete)
        psi_hints_free(out);
    psi_hints_close(&r);
    free(chain_of);
    free(mark);
    return st;
}

psi_status psi_hints_apply(const psi_hints *hs, psi_polygraph *g, psi_diag *d)
{
    for (uint64_t i = 0; i < hs->n; i++) {
        const psi_hint_edge *e = &hs->e[i];
        /* The initial transaction precedes every writer already. */
        if (e->from == PSI_INIT_TXN)
            continue;
        psi_status st = psi_polygraph_add_known(g, e->from, e->to, PSI_EDGE_WW, e->key,
                                                PSI_FROM_VERSION_ORDER, d);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

uint64_t psi_hints_line(const psi_hints *hs, uint32_t from, uint32_t to, uint32_t key)
{
    /* The key's group (keys ascending), then a scan of it: explanations
     * ask for a cycle's few edges only. */
    size_t b = 0, e = hs->n;
    while (b < e) {
        size_t m = b + (e - b) / 2;
        if (hs->e[m].key < key)
            b = m + 1;
        else
            e = m;
    }
    for (; b < hs->n && hs->e[b].key == key; b++)
        if (hs->e[b].from == from && hs->e[b].to == to)
            return hs->e[b].line;
    return 0;
}

void psi_hints_free(psi_hints *hs)
{
    free(hs->file);
    free(hs->e);
    memset(hs, 0, sizeof *hs);
}
