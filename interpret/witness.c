/* Reading a witness off the solver's model and writing it (see witness.h).
 * The model's graph and its topological order are core's kernel
 * (core/graph.h). */
#include "interpret/witness.h"

#include "core/graph.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The edges the witness orders by: the model's active graph, without RW
 * edges under SI (see witness.h), self-loops left out. */
typedef struct wedges {
    psi_edge *e;
    uint64_t n, cap;
    bool ser;
} wedges;

static void wedge_add(wedges *w, const psi_edge *e)
{
    if ((e->type == PSI_EDGE_RW && !w->ser) || e->from == e->to)
        return;
    assert(w->n < w->cap);
    w->e[w->n++] = *e;
}

static bool add_side_edge(void *vctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    psi_edge e = {.from = from, .to = to, .key = key, .type = (uint8_t)type};
    wedge_add(vctx, &e);
    return true;
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
    wedges E = {.ser = ser};
    psi_graph G = {0};
    uint32_t *order = malloc((size_t)h->n_txns * sizeof *order);
    uint32_t *pos = malloc((size_t)h->n_txns * sizeof *pos);
    psi_status st = PSI_OK;
    if (!order || !pos)
        goto nomem;
    /* The known edges, then the chosen side of every open constraint
     * (resolved ones already have their edges among the known). */
    E.cap = g->n_known;
    for (uint32_t c = 0; c < g->n_cons; c++) {
        if (g->cons[c].state != PSI_C_OPEN)
            continue;
        if (!res->model_either) {
            st = psi_diag_set(d, PSI_ERR_USAGE, "no model kept: run psi_check with keep_model");
            goto out;
        }
        E.cap += psi_constraint_side_size(g, &g->cons[c], res->model_either[c]);
    }
    E.e = malloc((E.cap ? E.cap : 1) * sizeof *E.e);
    if (!E.e)
        goto nomem;
    for (uint64_t i = 0; i < g->n_known; i++)
        wedge_add(&E, &g->known[i]);
    for (uint32_t c = 0; c < g->n_cons; c++)
        if (g->cons[c].state == PSI_C_OPEN)
            psi_constraint_for_each(g, &g->cons[c], res->model_either[c], add_side_edge, &E);
    psi_edge_view view = {.first = E.e, .n = E.n};
    uint32_t n_ordered = 0;
    if (psi_graph_build(&G, h->n_txns, &view, 0, d) != PSI_OK ||
        psi_graph_topo(&G, false, order, &n_ordered, d) != PSI_OK)
        goto nomem; /* an allocation failure is never reported as a cyclic model */
    free(E.e);
    E.e = NULL;
    psi_graph_free(&G);
    if (n_ordered < h->n_txns) {
        st = psi_diag_set(d, PSI_ERR_INPUT,
                          "the model's dependency graph is cyclic; no witness can be written");
        goto out;
    }
    for (uint32_t i = 0; i < h->n_txns; i++)
        pos[order[i]] = i;
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
    free(E.e);
    psi_graph_free(&G);
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
