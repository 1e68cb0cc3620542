/* Known version orders as known edges (see hints.h). */
#include "check/hints.h"

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

typedef struct resolver {
    const psi_history *h;
    const psi_polygraph *g; /* NULL in psi_hints_next, which has idx instead */
    const psi_index *idx;
    const psi_version_order *vo;
    psi_diag *d;
    /* committed and initial-state transactions, built on the first name
     * find_txn cannot place directly (tids.e NULL until then) */
    psi_txn_lookup tids;
    /* Committed and initial-state transactions by transaction id when the
     * ids span little more than the transactions (histories that number
     * them globally): by_tid[tid - tid_min] is the one with that id,
     * TID_SHARED when several have it, UINT32_MAX when none; NULL when the
     * ids are too sparse. */
    uint32_t *by_tid;
    uint64_t tid_min, tid_span;
    psi_key_lookup keys; /* by spelling or external integer */
    psi_hint_edge *e;    /* [cap_e]: one edge per consecutive pair of every chain */
    size_t n_e, cap_e;
} resolver;

#define TID_SHARED (UINT32_MAX - 1)

/* Whether t is named by hints: committed, or the recorded initial state. */
static bool nameable(const psi_txn *t)
{
    return t->status == PSI_TXN_COMMITTED || t->status == PSI_TXN_INITIAL;
}

/* Fills r->by_tid when the committed transactions' ids are dense enough
 * (at most 4 slots a transaction); leaves it NULL otherwise. */
static psi_status index_tids(resolver *r)
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
static uint32_t find_txn(resolver *r, uint64_t sid, uint64_t tid, bool *nomem)
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
 * polygraph's writer list of k is sorted by transaction. */
static bool writes_key(const psi_polygraph *g, uint32_t t, uint32_t k)
{
    uint32_t b = g->w_off[k], e = g->w_off[k + 1];
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        uint32_t mt = g->op_txn[g->w_op[m]];
        if (mt == t)
            return true;
        if (mt < t)
            b = m + 1;
        else
            e = m;
    }
    return false;
}

/* The node of hint transaction x on key k (a committed writer of k, or the
 * recorded initial state, which is the initial transaction), or an error. */
static psi_status node_of(resolver *r, const psi_hint_txn *x, uint32_t k, uint32_t *node)
{
    bool nomem = false;
    uint32_t t = find_txn(r, x->sid, x->tid, &nomem);
    if (nomem)
        return PSI_ERR_NOMEM;
    if (t == UINT32_MAX)
        return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, x->line, 1,
                             "transaction (%llu,%llu) is not a committed transaction of %s",
                             (unsigned long long)x->sid, (unsigned long long)x->tid,
                             r->h->source ? r->h->source : "the history");
    if (r->h->txns[t].status == PSI_TXN_INITIAL) {
        *node = PSI_INIT_TXN; /* merged into the initial transaction */
        return PSI_OK;
    }
    if (!writes_key(r->g, t, k))
        return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, x->line, 1,
                             "transaction (%llu,%llu) does not write key %s, so it installs "
                             "no version of it",
                             (unsigned long long)x->sid, (unsigned long long)x->tid,
                             PSI_KEY_NAME(r->h, k));
    *node = t;
    return PSI_OK;
}

/* The dense key chain c names, UINT32_MAX when the history has none. */
static uint32_t chain_key(const resolver *r, const psi_hint_chain *c)
{
    return c->key_name ? psi_key_lookup_name(&r->keys, c->key_name)
                       : psi_key_lookup_ext(&r->keys, c->key);
}

/* The lookups a resolver needs to name chains' transactions and keys. */
static psi_status resolver_open(resolver *r)
{
    psi_status st = index_tids(r);
    return st == PSI_OK ? psi_key_lookup_init(&r->keys, r->h, r->d) : st;
}

static void resolver_close(resolver *r)
{
    if (r->keys.h)
        psi_key_lookup_free(&r->keys);
    psi_txn_lookup_free(&r->tids);
    free(r->by_tid);
}

static psi_status chain_edges(resolver *r, const psi_hint_chain *c)
{
    uint32_t key = chain_key(r, c);
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
        psi_status st = node_of(r, &c->tx[i], key, &t);
        if (st != PSI_OK)
            return st;
        if (prev != UINT32_MAX) {
            if (t == prev)
                return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, c->line, 1,
                                     "transaction (%llu,%llu) is named twice in a row",
                                     (unsigned long long)c->tx[i].sid,
                                     (unsigned long long)c->tx[i].tid);
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
static psi_status group_keys(resolver *r)
{
    size_t i = 1;
    while (i < r->n_e && r->e[i - 1].key <= r->e[i].key)
        i++;
    if (i >= r->n_e)
        return PSI_OK;
    uint32_t nk = r->g->n_keys;
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
static psi_status check_consistent(resolver *r)
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

psi_status psi_hints_resolve(const psi_history *h, const psi_polygraph *g,
                             const psi_version_order *vo, psi_hints *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    assert(g->w_off && g->op_txn);
    resolver r = {.h = h, .g = g, .vo = vo, .d = d};
    out->file = malloc(strlen(vo->name ? vo->name : "") + 1);
    psi_status st = PSI_OK;
    if (!out->file) {
        st = psi_diag_nomem(d, "reading the version order");
        goto out;
    }
    strcpy(out->file, vo->name ? vo->name : "");
    if ((st = resolver_open(&r)) != PSI_OK)
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
    out->n = r.n_e;
    r.e = NULL;
out:
    resolver_close(&r);
    free(r.e);
    if (st != PSI_OK)
        psi_hints_free(out);
    return st;
}

/* One chain of psi_hints_complete: key k's writers (marked in mark[], see
 * there) in its order into pos[w_off[k]..], true when it names each of
 * them exactly once (the recorded initial state may come first). */
static bool complete_chain(resolver *r, const psi_hint_chain *c, uint32_t k, uint32_t *mark,
                           uint32_t *pos, bool *nomem)
{
    const psi_polygraph *g = r->g;
    uint32_t b = g->w_off[k], e = g->w_off[k + 1];
    size_t skip = 0;
    for (uint32_t i = b; i < e; i++)
        mark[g->op_txn[g->w_op[i]]] = i;
    for (size_t i = 0; i < c->n; i++) {
        uint32_t t = find_txn(r, c->tx[i].sid, c->tx[i].tid, nomem);
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
static psi_status complete_edges(resolver *r, const uint32_t *chain_of, const uint32_t *pos,
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
    return PSI_OK;
}

psi_status psi_hints_complete(const psi_history *h, const psi_polygraph *g,
                              const psi_version_order *vo, uint32_t *pos, psi_hints *out,
                              bool *complete, psi_diag *d)
{
    *complete = false;
    memset(out, 0, sizeof *out);
    resolver r = {.h = h, .g = g, .vo = vo, .d = d};
    /* chain_of[k]: the chain of key k, UINT32_MAX when none */
    uint32_t *chain_of = malloc(((size_t)g->n_keys + 1) * sizeof *chain_of);
    uint32_t *mark = malloc(((size_t)h->n_txns + 1) * sizeof *mark);
    psi_status st = PSI_OK;
    if (!chain_of || !mark || vo->n_chains >= UINT32_MAX)
        st = psi_diag_nomem(d, "reading the version order");
    else
        st = resolver_open(&r);
    bool ok = st == PSI_OK, nomem = false;
    if (ok) {
        memset(mark, 0xff, (size_t)h->n_txns * sizeof *mark);
        memset(chain_of, 0xff, (size_t)g->n_keys * sizeof *chain_of);
    }
    for (size_t c = 0; c < vo->n_chains && ok; c++) {
        uint32_t k = chain_key(&r, &vo->chains[c]);
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
    resolver_close(&r);
    free(chain_of);
    free(mark);
    return st;
}

/* Whether op o is the final write of its key by a transaction that takes
 * part (committed): the writers a complete order must name. */
static bool named_write(const psi_index *idx, uint32_t o)
{
    return (idx->op_info[o] & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) ==
           (PSI_OI_LIVE | PSI_OI_FINAL_WRITE);
}

/* Key k's committed writers' final writes, sorted by transaction, as CSR
 * over dense keys: off[k]..off[k + 1] index into wop and wtx (wop's
 * transactions, for a binary search that stays in one array). Built only
 * for a transaction too large to scan (BIG_TXN). */
typedef struct key_writers {
    uint32_t *off, *wop, *wtx;
} key_writers;

/* Transactions with more operations than this are looked up in
 * key_writers instead of scanned: a chain per key naming a transaction
 * that writes every key would make scanning quadratic. */
#define BIG_TXN 64

static bool key_writers_build(const psi_history *h, const psi_index *idx, key_writers *kw)
{
    kw->off = calloc((size_t)h->n_keys + 2, sizeof *kw->off);
    uint64_t n = 0;
    for (uint32_t o = 0; kw->off && o < h->n_ops; o++)
        if (named_write(idx, o)) {
            kw->off[h->ops[o].key + 2]++;
            n++;
        }
    if (kw->off && n < UINT32_MAX) {
        kw->wop = malloc((n ? n : 1) * sizeof *kw->wop);
        kw->wtx = malloc((n ? n : 1) * sizeof *kw->wtx);
    }
    if (!kw->wop || !kw->wtx)
        return false;
    for (uint32_t k = 0; k < h->n_keys; k++)
        kw->off[k + 2] += kw->off[k + 1];
    /* Transaction by transaction, so each key's list is sorted by
     * transaction: operations need not be in transaction order (a
     * generated history keeps them in the order they ran). */
    for (uint32_t t = 0; t < h->n_txns; t++)
        for (uint32_t o = h->txns[t].first_op; o < h->txns[t].first_op + h->txns[t].n_ops; o++)
            if (named_write(idx, o)) {
                uint32_t i = kw->off[h->ops[o].key + 1]++;
                kw->wop[i] = o;
                kw->wtx[i] = t;
            }
    return true;
}

/* Committed transaction t's final write of key k, UINT32_MAX when it has
 * none (or when out of memory: *nomem set). */
static uint32_t write_of(const resolver *r, key_writers *kw, uint32_t t, uint32_t k, bool *nomem)
{
    const psi_txn *tx = &r->h->txns[t];
    if (tx->n_ops <= BIG_TXN) {
        for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++)
            if (r->h->ops[o].key == k && named_write(r->idx, o))
                return o;
        return UINT32_MAX;
    }
    if (!kw->off && !key_writers_build(r->h, r->idx, kw)) {
        *nomem = true;
        return UINT32_MAX;
    }
    uint32_t b = kw->off[k], e = kw->off[k + 1];
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (kw->wtx[m] == t)
            return kw->wop[m];
        if (kw->wtx[m] < t)
            b = m + 1;
        else
            e = m;
    }
    return UINT32_MAX;
}

/* A final write no chain has named yet (psi_hints_next's marker). */
#define UNNAMED (UINT32_MAX - 1)

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(p)   __builtin_prefetch(p)
#define PREFETCH_W(p) __builtin_prefetch(p, 1)
#else
#define PREFETCH(p)   ((void)(p))
#define PREFETCH_W(p) ((void)(p))
#endif

/* How far ahead psi_hints_next fetches the id table slot of a chain's
 * entries (its transaction record is fetched half as far ahead). */
#define AHEAD 16

/* What psi_hints_next keeps per transaction, in one 16-byte record so a
 * chain entry costs one random line, not the transaction, its operations
 * and their flags (the chains visit transactions in version order, which
 * is all over the history). */
typedef struct txn_rec {
    uint32_t first_op, n_ops;
    uint32_t sess; /* its session; REC_INITIAL, REC_UNNAMEABLE instead */
    uint32_t used; /* slots taken: entries naming it so far */
} txn_rec;

#define REC_INITIAL    UINT32_MAX       /* the recorded initial state */
#define REC_UNNAMEABLE (UINT32_MAX - 1) /* not committed: no chain names it */

/* The transaction the id table names for entry x without a doubt,
 * UINT32_MAX when it does not say (find_txn decides those). */
static inline uint32_t table_txn(const resolver *r, const psi_hint_txn *x)
{
    if (!r->by_tid || x->tid - r->tid_min >= r->tid_span)
        return UINT32_MAX;
    uint32_t t = r->by_tid[x->tid - r->tid_min];
    return t < r->h->n_txns ? t : UINT32_MAX;
}

/* The transaction chain entry x names, UINT32_MAX when none (find_txn's
 * answer, from the records when the id table says). */
static inline uint32_t entry_txn(resolver *r, const txn_rec *rec, const psi_hint_txn *x,
                                 bool *nomem)
{
    uint32_t t = table_txn(r, x);
    if (t == UINT32_MAX)
        return find_txn(r, x->sid, x->tid, nomem);
    uint32_t s = rec[t].sess;
    if (s == REC_INITIAL)
        return r->h->sessions[r->h->txns[t].session].id == x->sid ? t : UINT32_MAX;
    return s < r->h->n_sessions && r->h->sessions[s].id == x->sid ? t : UINT32_MAX;
}

/* One chain of psi_hints_next, for key k (nw writers), first pass: each
 * entry takes a slot in its transaction's range of next[] and kk[] (its
 * j-th slot at first_op + j), kk the key, next the transaction of the
 * chain's next entry (PSI_HINT_LAST after the last). False when the chain
 * cannot be complete: an entry that names no committed transaction, the
 * initial state after the first entry, more entries than k has writers or
 * a transaction than it has operations. */
static bool place_chain(resolver *r, txn_rec *rec, const psi_hint_chain *c, uint32_t k, uint32_t nw,
                        uint32_t *next, uint32_t *kk, uint32_t *first, bool *nomem)
{
    uint32_t named = 0, prev = UINT32_MAX;
    for (size_t i = 0; i < c->n; i++) {
        /* Independent loads, fetched ahead: the id slot of entry
         * i + AHEAD, the record of i + AHEAD / 2. Here, not in a function
         * of their own: GCC finds such a function pure and drops its
         * calls. */
        if (r->by_tid && i + AHEAD < c->n && c->tx[i + AHEAD].tid - r->tid_min < r->tid_span)
            PREFETCH(&r->by_tid[c->tx[i + AHEAD].tid - r->tid_min]);
        uint32_t ta = i + AHEAD / 2 < c->n ? table_txn(r, &c->tx[i + AHEAD / 2]) : UINT32_MAX;
        if (ta != UINT32_MAX)
            PREFETCH_W(&rec[ta]);
        uint32_t t = entry_txn(r, rec, &c->tx[i], nomem);
        if (t == UINT32_MAX || rec[t].sess == REC_UNNAMEABLE)
            return false;
        if (rec[t].sess == REC_INITIAL) {
            if (i == 0)
                continue; /* the initial version comes first anyway */
            return false;
        }
        txn_rec *x = &rec[t];
        if (++named > nw || x->used == x->n_ops)
            return false;
        uint32_t slot = x->first_op + x->used++;
        kk[slot] = k;
        if (prev == UINT32_MAX)
            first[k] = t;
        else
            next[prev] = t;
        prev = slot;
    }
    if (prev != UINT32_MAX)
        next[prev] = PSI_HINT_LAST;
    return named == nw;
}

/* The second pass, over transactions in order: transaction t's slots
 * (place_chain) become next[] of its final writes of their keys. False
 * when a slot's key has no final write in t, or two slots name one
 * (a writer named twice). scratch: room for 2 * t's operations. */
static bool settle_txn(resolver *r, key_writers *kw, const txn_rec *x, uint32_t t, uint32_t *next,
                       const uint32_t *kk, uint32_t *scratch, bool *nomem)
{
    uint32_t b = x->first_op, m = x->used;
    for (uint32_t j = 0; j < m; j++) {
        scratch[2 * j] = kk[b + j];
        scratch[2 * j + 1] = next[b + j];
    }
    for (uint32_t o = b; o < b + x->n_ops; o++)
        next[o] = UNNAMED;
    for (uint32_t j = 0; j < m; j++) {
        uint32_t o = write_of(r, kw, t, scratch[2 * j], nomem);
        if (o == UINT32_MAX || next[o] != UNNAMED)
            return false;
        next[o] = scratch[2 * j + 1];
    }
    return true;
}

psi_status psi_hints_next(const psi_history *h, const psi_index *idx, const psi_version_order *vo,
                          uint32_t *next, uint32_t *first, uint32_t *kk, bool *complete,
                          psi_diag *d)
{
    *complete = false;
    resolver r = {.h = h, .idx = idx, .vo = vo, .d = d};
    key_writers kw = {0};
    uint8_t *has_chain = calloc((size_t)h->n_keys + 1, 1);
    uint32_t *nw = calloc((size_t)h->n_keys + 1, sizeof *nw); /* writers per key */
    /* kk: the key of each slot (place_chain); scratch: settle_txn's */
    txn_rec *rec = malloc(((size_t)h->n_txns + 1) * sizeof *rec);
    uint32_t *scratch = NULL, max_ops = 0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        max_ops = h->txns[t].n_ops > max_ops ? h->txns[t].n_ops : max_ops;
    scratch = malloc((2 * (size_t)max_ops + 2) * sizeof *scratch);
    psi_status st = PSI_OK;
    if (!has_chain || !nw || !rec || !scratch)
        st = psi_diag_nomem(d, "reading the version order");
    else
        st = resolver_open(&r);
    bool ok = st == PSI_OK, nomem = false;
    if (ok) {
        memset(first, 0xff, (size_t)h->n_keys * sizeof *first);
        for (uint32_t o = 0; o < h->n_ops; o++)
            nw[h->ops[o].key] += named_write(idx, o);
        for (uint32_t t = 0; t < h->n_txns; t++) {
            const psi_txn *tx = &h->txns[t];
            uint32_t s = tx->status == PSI_TXN_INITIAL     ? REC_INITIAL
                         : tx->status == PSI_TXN_COMMITTED ? tx->session
                                                           : REC_UNNAMEABLE;
            /* the initial transaction (t 0) is named only as the
             * recorded initial state, which is another transaction */
            rec[t] = (txn_rec){.first_op = tx->first_op,
                               .n_ops = tx->n_ops,
                               .sess = t ? s : REC_UNNAMEABLE,
                               .used = 0};
        }
    }
    for (size_t c = 0; c < vo->n_chains && ok; c++) {
        uint32_t k = chain_key(&r, &vo->chains[c]);
        /* one chain per key: several are the general resolution's */
        ok = k != UINT32_MAX && !has_chain[k];
        if (ok) {
            has_chain[k] = 1;
            ok = place_chain(&r, rec, &vo->chains[c], k, nw[k], next, kk, first, &nomem);
        }
    }
    /* Every operation's next[] is set here, chained or not. */
    for (uint32_t t = 0; t < h->n_txns && ok; t++)
        ok = settle_txn(&r, &kw, &rec[t], t, next, kk, scratch, &nomem);
    /* A key with one writer needs no line; one with more does. */
    bool lone = false;
    for (uint32_t k = 0; k < h->n_keys && ok; k++)
        if (!has_chain[k]) {
            ok = nw[k] <= 1;
            lone |= nw[k] == 1;
        }
    for (uint32_t o = 0; ok && lone && o < h->n_ops; o++)
        if (named_write(idx, o) && !has_chain[h->ops[o].key]) {
            first[h->ops[o].key] = idx->op_txn[o];
            next[o] = PSI_HINT_LAST;
        }
    if (nomem && st == PSI_OK)
        st = psi_diag_nomem(d, "reading the version order");
    *complete = ok && st == PSI_OK;
    resolver_close(&r);
    free(kw.off);
    free(kw.wop);
    free(kw.wtx);
    free(has_chain);
    free(nw);
    free(rec);
    free(scratch);
    return st;
}

/* The choice read (index into idx->amb) of transaction t on key k,
 * UINT32_MAX when t's read of k has no choice: amb is in operation order
 * and t's operations are one range. */
static uint32_t amb_of(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t k)
{
    uint32_t b = 0, e = idx->n_amb, lo = h->txns[t].first_op, hi = lo + h->txns[t].n_ops;
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (idx->amb[m].op < lo)
            b = m + 1;
        else
            e = m;
    }
    for (; b < idx->n_amb && idx->amb[b].op < hi; b++)
        if (idx->amb[b].key == k)
            return b;
    return UINT32_MAX;
}

/* The candidate of choice read a that read line x names, UINT32_MAX when
 * none (or out of memory: *nomem). */
static uint32_t named_candidate(resolver *r, const psi_amb_read *a, const psi_hint_read *x,
                                bool *nomem)
{
    const psi_index *idx = r->idx;
    bool init = x->init;
    uint32_t w = UINT32_MAX;
    if (!init) {
        w = find_txn(r, x->writer.sid, x->writer.tid, nomem);
        if (w == UINT32_MAX)
            return UINT32_MAX;
        /* the recorded initial state is merged into the initial value */
        init = r->h->txns[w].status == PSI_TXN_INITIAL;
    }
    for (uint32_t j = 0; j < a->n; j++) {
        uint32_t c = idx->amb_cand[a->first + j];
        if (init ? c == PSI_SRC_INIT : c != PSI_SRC_INIT && idx->op_txn[c] == w)
            return c;
    }
    return UINT32_MAX;
}

psi_status psi_hints_choices(const psi_history *h, const psi_index *idx,
                             const psi_version_order *vo, uint32_t *src, bool *all, psi_diag *d)
{
    *all = false;
    if (!idx->n_amb) {
        *all = true;
        return PSI_OK;
    }
    if (!vo->n_reads)
        return PSI_OK;
    resolver r = {.h = h, .idx = idx, .vo = vo, .d = d};
    uint8_t *seen = calloc(idx->n_amb, 1);
    psi_status st = seen ? resolver_open(&r) : psi_diag_nomem(d, "reading the version order");
    bool ok = st == PSI_OK, nomem = false;
    for (size_t i = 0; ok && i < vo->n_reads; i++) {
        const psi_hint_read *x = &vo->reads[i];
        /* Only a reader's first read of a key has a writer under SI and
         * SER; lines that name no choice read of the history are not this
         * pass's to judge (nothing else reads them). */
        if (x->event)
            continue;
        uint32_t t = find_txn(&r, x->reader.sid, x->reader.tid, &nomem);
        uint32_t k = t == UINT32_MAX || h->txns[t].status != PSI_TXN_COMMITTED ? UINT32_MAX
                     : x->key_name ? psi_key_lookup_name(&r.keys, x->key_name)
                                   : psi_key_lookup_ext(&r.keys, x->key);
        uint32_t a = k == UINT32_MAX ? UINT32_MAX : amb_of(h, idx, t, k);
        if (a == UINT32_MAX)
            continue;
        /* one line per read, naming one of its candidates */
        uint32_t c = seen[a] ? UINT32_MAX : named_candidate(&r, &idx->amb[a], x, &nomem);
        ok = c != UINT32_MAX;
        seen[a] = 1;
        src[a] = c;
    }
    for (uint32_t a = 0; ok && a < idx->n_amb; a++)
        ok = seen[a];
    if (nomem && st == PSI_OK)
        st = psi_diag_nomem(d, "reading the version order");
    *all = ok && st == PSI_OK;
    resolver_close(&r);
    free(seen);
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
