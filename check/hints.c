/* Known version orders as known edges (see hints.h). */
#include "check/hints.h"

#include "core/keyname.h"
#include "core/txnid.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Orders edges by key, then endpoints: the per-key consistency check. */
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

/* Orders edges by endpoints, then key: psi_hints_line's binary search. */
static int by_ends(const void *a, const void *b)
{
    const psi_hint_edge *x = a, *y = b;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

typedef struct resolver {
    const psi_history *h;
    const psi_polygraph *g;
    const psi_version_order *vo;
    psi_diag *d;
    psi_txn_lookup tids; /* committed and initial-state transactions */
    psi_key_lookup keys; /* by spelling or external integer */
    psi_hint_edge *e;
    size_t n_e, cap_e;
} resolver;

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
    uint32_t t = psi_txn_lookup_find(&r->tids, x->sid, x->tid);
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

static psi_status chain_edges(resolver *r, const psi_hint_chain *c)
{
    uint32_t key;
    if (c->key_name) {
        key = psi_key_lookup_name(&r->keys, c->key_name);
        if (key == UINT32_MAX)
            return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, c->line, 1,
                                 "key %.200s is not in %s", c->key_name,
                                 r->h->source ? r->h->source : "the history");
    } else {
        key = psi_key_lookup_ext(&r->keys, c->key);
        if (key == UINT32_MAX)
            return psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, c->line, 1,
                                 "key %llu is not in the history", (unsigned long long)c->key);
    }
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
            if (!psi_grow((void **)&r->e, &r->cap_e, r->n_e + 1, sizeof *r->e))
                return psi_diag_nomem(r->d, "reading the version order");
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

static psi_status check_consistent(resolver *r)
{
    if (r->n_e) /* qsort takes no NULL array, even empty */
        qsort(r->e, r->n_e, sizeof *r->e, by_key);
    uint32_t *indeg = calloc(r->h->n_txns, sizeof *indeg);
    uint32_t *queue = malloc((2 * r->n_e + 1) * sizeof *queue);
    uint8_t *done = malloc(r->n_e + 1);
    psi_status st = PSI_OK;
    if (!indeg || !queue || !done)
        st = psi_diag_nomem(r->d, "reading the version order");
    for (size_t b = 0; b < r->n_e && st == PSI_OK;) {
        size_t e = b;
        while (e < r->n_e && r->e[e].key == r->e[b].key)
            e++;
        uint64_t line = cyclic_line(r->e + b, e - b, indeg, queue, done);
        if (line)
            st = psi_diag_line(r->d, PSI_ERR_INPUT, r->vo->name, line, 1,
                               "the version order of key %s contradicts itself: its chains "
                               "order two writers both ways",
                               PSI_KEY_NAME(r->h, r->e[b].key));
        b = e;
    }
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
    if ((st = psi_txn_lookup_init(&r.tids, h, true, "reading the version order", d)) != PSI_OK ||
        (st = psi_key_lookup_init(&r.keys, h, d)) != PSI_OK)
        goto out;
    for (size_t c = 0; c < vo->n_chains && st == PSI_OK; c++)
        st = chain_edges(&r, &vo->chains[c]);
    if (st == PSI_OK)
        st = check_consistent(&r);
    if (st != PSI_OK)
        goto out;
    /* One edge per (from, to, key), with its first line. */
    if (r.n_e)
        qsort(r.e, r.n_e, sizeof *r.e, by_ends);
    size_t m = 0;
    for (size_t i = 0; i < r.n_e; i++)
        if (!m || r.e[m - 1].from != r.e[i].from || r.e[m - 1].to != r.e[i].to ||
            r.e[m - 1].key != r.e[i].key)
            r.e[m++] = r.e[i];
    out->e = r.e;
    out->n = m;
    r.e = NULL;
out:
    if (r.keys.h)
        psi_key_lookup_free(&r.keys);
    psi_txn_lookup_free(&r.tids);
    free(r.e);
    if (st != PSI_OK)
        psi_hints_free(out);
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
    size_t b = 0, e = hs->n;
    psi_hint_edge q = {.from = from, .to = to, .key = key};
    while (b < e) {
        size_t m = b + (e - b) / 2;
        int c = by_ends(&hs->e[m], &q);
        if (c == 0 || (hs->e[m].from == from && hs->e[m].to == to && hs->e[m].key == key))
            return hs->e[m].line;
        if (c < 0)
            b = m + 1;
        else
            e = m;
    }
    return 0;
}

void psi_hints_free(psi_hints *hs)
{
    free(hs->file);
    free(hs->e);
    memset(hs, 0, sizeof *hs);
}
