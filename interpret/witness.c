/* Reading a witness off the solver's model (see witness.h); the text
 * format and its writer are formats/witness.c. */
#include "interpret/witness.h"

#include <stdlib.h>
#include <string.h>

typedef struct wg {
    uint32_t n;
    uint64_t *off; /* CSR out-edges */
    uint32_t *to;
    uint64_t m, cap;
    uint32_t *ef, *et; /* edge list before CSR */
} wg;

static bool wg_add(wg *g, uint32_t from, uint32_t to)
{
    if (from == to)
        return true;
    if (g->m == g->cap) {
        uint64_t cap = g->cap ? 2 * g->cap : 1024;
        uint32_t *f = realloc(g->ef, cap * sizeof *f);
        if (!f)
            return false;
        g->ef = f;
        uint32_t *t = realloc(g->et, cap * sizeof *t);
        if (!t)
            return false;
        g->et = t;
        g->cap = cap;
    }
    g->ef[g->m] = from;
    g->et[g->m++] = to;
    return true;
}

typedef struct side_ctx {
    wg *g;
    bool ser;
    bool ok;
} side_ctx;

static bool add_side_edge(void *vctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    side_ctx *c = vctx;
    (void)key;
    if (type == PSI_EDGE_RW && !c->ser)
        return true;
    c->ok = wg_add(c->g, from, to);
    return c->ok;
}

/* Kahn's algorithm; pos[v] = rank. Returns 1 when every node is ordered,
 * 0 when the graph is cyclic, -1 when memory ran out (kept apart so an
 * allocation failure is never reported as a cyclic model). */
static int topo(wg *g, uint32_t *order, uint32_t *pos)
{
    uint32_t n = g->n;
    uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg);
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    g->to = malloc((g->m ? g->m : 1) * sizeof *g->to);
    if (!indeg || !g->off || !g->to) {
        free(indeg);
        return -1;
    }
    for (uint64_t i = 0; i < g->m; i++) {
        g->off[g->ef[i] + 1]++;
        indeg[g->et[i]]++;
    }
    for (uint32_t v = 0; v < n; v++)
        g->off[v + 1] += g->off[v];
    uint64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!fill) {
        free(indeg);
        return -1;
    }
    memcpy(fill, g->off, ((size_t)n + 1) * sizeof *fill);
    for (uint64_t i = 0; i < g->m; i++)
        g->to[fill[g->ef[i]]++] = g->et[i];
    free(fill);
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
        if (!indeg[v])
            order[tail++] = v;
    while (head < tail) {
        uint32_t v = order[head++];
        pos[v] = head - 1;
        for (uint64_t k = g->off[v]; k < g->off[v + 1]; k++)
            if (--indeg[g->to[k]] == 0)
                order[tail++] = g->to[k];
    }
    free(indeg);
    return tail == n ? 1 : 0;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Transaction t as the witness names it. */
static psi_witness_txn ext_txn(const psi_history *h, uint32_t t)
{
    return (psi_witness_txn){.sid = h->sessions[h->txns[t].session].id, .tid = h->txns[t].id};
}

psi_status psi_witness_build(const psi_history *h, const psi_check_result *res, bool ser,
                             psi_witness *w, psi_diag *d)
{
    memset(w, 0, sizeof *w);
    w->has_isolation = true;
    w->ser = ser;
    const psi_polygraph *g = &res->g;
    wg G = {.n = h->n_txns};
    uint32_t *order = malloc((size_t)h->n_txns * sizeof *order);
    uint32_t *pos = malloc((size_t)h->n_txns * sizeof *pos);
    psi_status st = PSI_OK;
    if (!order || !pos)
        goto nomem;
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (e->type == PSI_EDGE_RW && !ser)
            continue;
        if (!wg_add(&G, e->from, e->to))
            goto nomem;
    }
    for (uint32_t c = 0; c < g->n_cons; c++) {
        if (g->cons[c].state != PSI_C_OPEN)
            continue; /* its edges are known edges already */
        if (!res->model_either) {
            st = psi_diag_set(d, PSI_ERR_USAGE, "no model kept: run psi_check with keep_model");
            goto out;
        }
        side_ctx sc = {.g = &G, .ser = ser, .ok = true};
        psi_constraint_for_each(g, &g->cons[c], res->model_either[c], add_side_edge, &sc);
        if (!sc.ok)
            goto nomem;
    }
    int sorted = topo(&G, order, pos);
    if (sorted < 0)
        goto nomem;
    if (!sorted) {
        st = psi_diag_set(d, PSI_ERR_INPUT,
                          "the model's dependency graph is cyclic; no witness can be written");
        goto out;
    }
    /* Every key with a committed writer gets a line; for SER the order
     * line lists every committed transaction once. */
    uint32_t nw = g->n_keys ? g->w_off[g->n_keys] : 0;
    size_t cap_tx = (size_t)nw + (ser ? h->n_txns : 0);
    w->tx = malloc((cap_tx ? cap_tx : 1) * sizeof *w->tx);
    w->keys = malloc((g->n_keys ? g->n_keys : 1) * sizeof *w->keys);
    if (!w->tx || !w->keys)
        goto nomem;
    uint64_t *tmp = malloc((nw ? nw : 1) * sizeof *tmp);
    if (!tmp)
        goto nomem;
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t t = g->op_txn[g->w_op[i]];
        tmp[i] = (uint64_t)pos[t] << 32 | t;
    }
    for (uint32_t k = 0; k < g->n_keys; k++) {
        uint32_t n = g->w_off[k + 1] - g->w_off[k];
        if (n == 0)
            continue;
        qsort(tmp + g->w_off[k], n, sizeof *tmp, u64_cmp);
        w->keys[w->n_keys++] = (psi_witness_line){.key = h->keys[k], .first = w->n_tx, .n = n};
        for (uint32_t i = g->w_off[k]; i < g->w_off[k + 1]; i++)
            w->tx[w->n_tx++] = ext_txn(h, (uint32_t)tmp[i]);
    }
    free(tmp);
    if (ser) {
        w->has_order = true;
        w->order.first = w->n_tx;
        for (uint32_t i = 0; i < h->n_txns; i++) {
            uint32_t t = order[i];
            if (t != PSI_INIT_TXN && h->txns[t].status == PSI_TXN_COMMITTED)
                w->tx[w->n_tx++] = ext_txn(h, t);
        }
        w->order.n = w->n_tx - w->order.first;
    }
    goto out;
nomem:
    st = psi_diag_nomem(d, "building a witness");
out:
    free(G.ef);
    free(G.et);
    free(G.off);
    free(G.to);
    free(order);
    free(pos);
    if (st != PSI_OK)
        psi_witness_free(w);
    return st;
}
