/* Reading a witness off the solver's model and writing it (see witness.h). */
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

psi_status psi_witness_build(const psi_history *h, const psi_check_result *res, bool ser,
                             psi_witness *w, psi_diag *d)
{
    memset(w, 0, sizeof *w);
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
    w->n_keys = g->n_keys;
    w->key_off = malloc(((size_t)g->n_keys + 1) * sizeof *w->key_off);
    uint32_t nw = g->n_keys ? g->w_off[g->n_keys] : 0;
    w->key_txn = malloc((nw ? nw : 1) * sizeof *w->key_txn);
    if (!w->key_off || !w->key_txn)
        goto nomem;
    for (uint32_t k = 0; k <= g->n_keys; k++)
        w->key_off[k] = k < g->n_keys ? g->w_off[k] : nw;
    uint64_t *tmp = malloc((nw ? nw : 1) * sizeof *tmp);
    if (!tmp)
        goto nomem;
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t t = g->op_txn[g->w_op[i]];
        tmp[i] = (uint64_t)pos[t] << 32 | t;
    }
    for (uint32_t k = 0; k < g->n_keys; k++)
        qsort(tmp + g->w_off[k], g->w_off[k + 1] - g->w_off[k], sizeof *tmp, u64_cmp);
    for (uint32_t i = 0; i < nw; i++)
        w->key_txn[i] = (uint32_t)tmp[i];
    free(tmp);
    if (ser) {
        w->order = malloc((size_t)h->n_txns * sizeof *w->order);
        if (!w->order)
            goto nomem;
        for (uint32_t i = 0; i < h->n_txns; i++) {
            uint32_t t = order[i];
            if (t != PSI_INIT_TXN && h->txns[t].status == PSI_TXN_COMMITTED)
                w->order[w->n_order++] = t;
        }
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

static void put_txn(const psi_history *h, uint32_t t, FILE *f)
{
    fprintf(f, " (%llu,%llu)", (unsigned long long)h->sessions[h->txns[t].session].id,
            (unsigned long long)h->txns[t].id);
}

bool psi_witness_write(const psi_history *h, const psi_witness *w, FILE *f)
{
    fprintf(f,
            "# polysi-solve witness for %s: the version order of every key, first\n"
            "# installed first (the initial value precedes them all)%s.\n"
            "# Re-check with: polysi-solve verify-witness%s HISTORY THIS-FILE\n",
            h->source ? h->source : "a history", w->ser ? ", and a serialization order" : "",
            w->ser ? " --isolation ser" : "");
    fprintf(f, "polysi-witness 1\nisolation %s\n", w->ser ? "ser" : "si");
    for (uint32_t k = 0; k < w->n_keys; k++) {
        if (w->key_off[k] == w->key_off[k + 1])
            continue;
        fprintf(f, "key %llu", (unsigned long long)h->keys[k]);
        for (uint32_t i = w->key_off[k]; i < w->key_off[k + 1]; i++)
            put_txn(h, w->key_txn[i], f);
        fputc('\n', f);
    }
    if (w->ser) {
        fputs("order", f);
        for (uint32_t i = 0; i < w->n_order; i++)
            put_txn(h, w->order[i], f);
        fputc('\n', f);
    }
    return !ferror(f);
}

void psi_witness_free(psi_witness *w)
{
    free(w->key_off);
    free(w->key_txn);
    free(w->order);
    memset(w, 0, sizeof *w);
}
