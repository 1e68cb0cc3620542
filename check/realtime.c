/* Real-time edges by a frontier sweep (see realtime.h). */
#include "check/realtime.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>

/* One event of the sweep: a committed transaction's invoke or completion. */
typedef struct rt_event {
    uint64_t time;
    uint32_t txn;
    uint32_t completes; /* 0: invoke, 1: completion */
} rt_event;

/* Time order; at equal times invokes first, since precedence is strict
 * (an invoke at the time of a completion does not follow it). */
static int event_cmp(const void *x, const void *y)
{
    const rt_event *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->completes != b->completes)
        return a->completes < b->completes ? -1 : 1;
    return (a->txn > b->txn) - (a->txn < b->txn);
}

typedef struct rt_sweep {
    const psi_history *h;
    psi_rt_edge_fn fn;
    void *ctx;
    psi_diag *d;
    uint32_t *front; /* the frontier (realtime.h) */
    size_t n_front, cap_front;
    uint8_t *in_front; /* [n_txns] */
    /* The sources of the transaction's edges, src[first[t] .. first[t] +
     * count[t]), recorded at its invoke: they are what it replaces. */
    uint32_t *src;
    size_t n_src, cap_src;
    uint64_t *first;
    uint32_t *count;
} rt_sweep;

static psi_status on_invoke(rt_sweep *s, uint32_t t)
{
    s->first[t] = s->n_src;
    s->count[t] = 0;
    if (!psi_grow((void **)&s->src, &s->cap_src, s->n_src + s->n_front, sizeof *s->src))
        return psi_diag_nomem(s->d, "adding real-time edges");
    for (size_t i = 0; i < s->n_front; i++) {
        psi_status st = s->fn(s->ctx, s->front[i], t);
        if (st != PSI_OK)
            return st;
        s->src[s->n_src++] = s->front[i];
        s->count[t]++;
    }
    return PSI_OK;
}

static psi_status on_complete(rt_sweep *s, uint32_t t)
{
    /* The members t got edges from now reach later invokes through t. */
    for (uint32_t i = 0; i < s->count[t]; i++)
        s->in_front[s->src[s->first[t] + i]] = 0;
    size_t n = 0;
    for (size_t i = 0; i < s->n_front; i++)
        if (s->in_front[s->front[i]])
            s->front[n++] = s->front[i];
    s->n_front = n;
    if (!psi_grow((void **)&s->front, &s->cap_front, s->n_front + 1, sizeof *s->front))
        return psi_diag_nomem(s->d, "adding real-time edges");
    s->front[s->n_front++] = t;
    s->in_front[t] = 1;
    return PSI_OK;
}

psi_status psi_rt_edges(const psi_history *h, psi_rt_edge_fn fn, void *ctx, psi_diag *d)
{
    assert(h->rt);
    size_t n_ev = 0;
    rt_event *ev = malloc(2 * (size_t)h->n_txns * sizeof *ev);
    rt_sweep s = {.h = h,
                  .fn = fn,
                  .ctx = ctx,
                  .d = d,
                  .in_front = calloc(h->n_txns, 1),
                  .first = malloc(h->n_txns * sizeof *s.first),
                  .count = calloc(h->n_txns, sizeof *s.count)};
    psi_status st = PSI_OK;
    if (!ev || !s.in_front || !s.first || !s.count) {
        st = psi_diag_nomem(d, "adding real-time edges");
        goto out;
    }
    /* The initial transaction precedes everything by session order
     * already; it takes no part. */
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (h->txns[t].status != PSI_TXN_COMMITTED)
            continue;
        const psi_rt *r = &h->rt[t];
        assert(r->invoke <= r->complete);
        ev[n_ev++] = (rt_event){r->invoke, t, 0};
        if (r->complete != PSI_RT_OPEN)
            ev[n_ev++] = (rt_event){r->complete, t, 1};
    }
    if (n_ev)
        qsort(ev, n_ev, sizeof *ev, event_cmp);
    for (size_t i = 0; i < n_ev && st == PSI_OK; i++)
        st = ev[i].completes ? on_complete(&s, ev[i].txn) : on_invoke(&s, ev[i].txn);
out:
    free(ev);
    free(s.front);
    free(s.in_front);
    free(s.src);
    free(s.first);
    free(s.count);
    return st;
}

typedef struct to_known {
    psi_polygraph *g;
    psi_diag *d;
} to_known;

static psi_status add_known(void *ctx, uint32_t from, uint32_t to)
{
    to_known *k = ctx;
    return psi_polygraph_add_known(k->g, from, to, PSI_EDGE_SO, UINT32_MAX, PSI_FROM_REALTIME,
                                   k->d);
}

psi_status psi_rt_constrain(const psi_history *h, psi_polygraph *g, uint64_t *n_added, psi_diag *d)
{
    uint64_t before = g->n_known;
    to_known k = {.g = g, .d = d};
    psi_status st = psi_rt_edges(h, add_known, &k, d);
    *n_added = st == PSI_OK ? g->n_known - before : 0;
    return st;
}
