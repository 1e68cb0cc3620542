/* Reachability for pruning: the known graph in core's kernel, its
 * topological order with the free u0 -> u1 edge, per-session frontiers,
 * and shortest paths for counterexamples (see reach.h). */
#include "prune/reach.h"

#include <stdlib.h>
#include <string.h>

static psi_status nomem(psi_diag *d)
{
    return psi_diag_nomem(d, "computing reachability");
}

/* Out-of-memory from the kernel is reported as this stage's. */
static psi_status stage_status(psi_status st, psi_diag *d)
{
    return st == PSI_ERR_NOMEM ? nomem(d) : st;
}

static bool live_txn(const psi_history *h, uint32_t t)
{
    return t == PSI_INIT_TXN || h->txns[t].status == PSI_TXN_COMMITTED;
}

static psi_status alloc_frontier(psi_reach *r, psi_diag *d)
{
    r->row_of = malloc((r->n ? r->n : 1) * sizeof *r->row_of);
    if (!r->row_of)
        return nomem(d);
    uint64_t rows = 0;
    for (uint32_t x = 0; x < r->n; x++)
        r->row_of[x] = live_txn(r->h, r->doubled ? x / 2 : x) ? (uint32_t)rows++ : UINT32_MAX;
    r->n_rows = rows;
    if (rows && (uint64_t)r->n_sessions > SIZE_MAX / sizeof *r->frontier / rows)
        return nomem(d);
    r->frontier = malloc((rows ? rows : 1) * r->n_sessions * sizeof *r->frontier);
    return r->frontier ? PSI_OK : nomem(d);
}

static inline void row_min(uint32_t *restrict dst, const uint32_t *restrict src, uint32_t S)
{
    for (uint32_t s = 0; s < S; s++)
        dst[s] = src[s] < dst[s] ? src[s] : dst[s];
}

static inline uint32_t *row_ptr(const psi_reach *r, uint32_t x)
{
    return r->frontier + (uint64_t)r->row_of[x] * r->n_sessions;
}

/* Rows in reverse topological order of the ordering graph: u1 (or a SER
 * node) from its DEP successors, u0 from u1 and its RW successors. */
static void compute_frontier(psi_reach *r, const uint32_t *order)
{
    const psi_graph *g = &r->graph;
    uint32_t S = r->n_sessions;
    memset(r->frontier, 0xff, (size_t)r->n_rows * S * sizeof *r->frontier);
    for (uint32_t i = r->n; i-- > 0;) {
        uint32_t x = order[i];
        if (r->row_of[x] == UINT32_MAX)
            continue; /* takes no part, has no edges */
        uint32_t *row = row_ptr(r, x);
        uint32_t u = r->doubled ? x / 2 : x;
        uint64_t b, e;
        if (r->doubled && !(x & 1u)) {
            memcpy(row, row_ptr(r, x + 1), S * sizeof *row);
            psi_graph_out(g, u, true, &b, &e);
            for (; b < e; b++)
                row_min(row, row_ptr(r, 2 * g->dst[b] + 1), S);
            continue;
        }
        psi_graph_out(g, u, false, &b, &e);
        for (; b < e; b++) {
            uint32_t v = g->dst[b];
            row_min(row, row_ptr(r, psi_reach_node(r, v, 0)), S);
            const psi_txn *tx = &r->h->txns[v];
            if (tx->session != PSI_NO_SESSION && tx->pos < row[tx->session])
                row[tx->session] = tx->pos;
        }
    }
}

static psi_status reach_build(psi_reach *r, const psi_history *h, const psi_edge_view *known,
                              bool doubled, uint32_t *cycle_node, psi_diag *d)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    r->doubled = doubled;
    r->n_txns = h->n_txns;
    r->n_sessions = h->n_sessions ? h->n_sessions : 1;
    *cycle_node = UINT32_MAX;
    unsigned flags = doubled ? PSI_GRAPH_SI | PSI_GRAPH_IN_ANTI : 0;
    psi_status st = psi_graph_build(&r->graph, h->n_txns, known, flags, d);
    if (st != PSI_OK)
        return stage_status(st, d);
    r->n = r->graph.n_nodes;
    uint32_t *order = malloc((r->n ? r->n : 1) * sizeof *order);
    if (!order)
        st = nomem(d);
    uint32_t n_ordered = 0;
    if (st == PSI_OK)
        st = stage_status(psi_graph_topo(&r->graph, true, order, &n_ordered, d), d);
    if (st == PSI_OK && n_ordered < r->n) {
        st = stage_status(psi_graph_cycle_node(&r->graph, order, n_ordered, cycle_node, d), d);
    } else if (st == PSI_OK) {
        st = alloc_frontier(r, d);
        if (st == PSI_OK)
            compute_frontier(r, order);
    }
    free(order);
    if (st != PSI_OK)
        psi_reach_free(r);
    return st;
}

psi_status psi_reach_build(psi_reach *r, const psi_history *h, const psi_polygraph *g, bool doubled,
                           uint32_t *cycle_node, psi_diag *d)
{
    psi_edge_view known = {.first = g->known, .n = g->n_known};
    return reach_build(r, h, &known, doubled, cycle_node, d);
}

psi_status psi_reach_build_view(psi_reach *r, const psi_history *h, const psi_edge_view *v,
                                uint32_t *cycle_node, psi_diag *d)
{
    return reach_build(r, h, v, false, cycle_node, d);
}

psi_status psi_reach_build_dep(psi_reach *r, const psi_history *h, const psi_polygraph *g,
                               uint32_t *cycle_node, psi_diag *d)
{
    /* The mask is only read while the rows are built (edge ids stay the
     * known-edge indices, so paths map back unchanged). */
    uint8_t *dep = malloc(g->n_known ? g->n_known : 1);
    if (!dep)
        return nomem(d);
    for (uint64_t i = 0; i < g->n_known; i++)
        dep[i] = !psi_edge_is_anti((psi_edge_type)g->known[i].type);
    psi_edge_view known = {.first = g->known, .n = g->n_known, .active = dep};
    psi_status st = reach_build(r, h, &known, false, cycle_node, d);
    free(dep);
    return st;
}

void psi_reach_free(psi_reach *r)
{
    psi_graph_free(&r->graph);
    free(r->frontier);
    free(r->row_of);
    memset(r, 0, sizeof *r);
}

bool psi_reach_to_anti(const psi_reach *r, uint32_t u, uint32_t t)
{
    uint64_t b, e;
    psi_graph_in(&r->graph, t, true, &b, &e);
    for (; b < e; b++) {
        uint32_t x = r->graph.in_src[b];
        if (u == 2 * x || psi_reach_to(r, u, x))
            return true;
    }
    return false;
}

psi_status psi_reach_path(const psi_reach *r, uint32_t from, uint32_t to, uint32_t **path,
                          uint32_t *len, psi_diag *d)
{
    *path = NULL;
    *len = 0;
    psi_graph_bfs w;
    if (psi_graph_bfs_init(&w, r->n, d) != PSI_OK)
        return nomem(d);
    uint32_t *p = malloc((r->n ? r->n : 1) * sizeof *p);
    if (!p) {
        psi_graph_bfs_free(&w);
        return nomem(d);
    }
    uint32_t n = psi_graph_path(&r->graph, &w, from, to, PSI_NO_NODE, p);
    psi_graph_bfs_free(&w);
    if (!n) {
        free(p);
        return PSI_OK;
    }
    *path = p;
    *len = n;
    return PSI_OK;
}

psi_status psi_reach_cycle(const psi_reach *r, uint32_t u, uint32_t **path, uint32_t *len,
                           psi_diag *d)
{
    return psi_reach_path(r, u, u, path, len, d);
}

size_t psi_reach_bytes(const psi_reach *r)
{
    size_t b = psi_graph_bytes(&r->graph);
    if (r->frontier)
        b += (size_t)r->n_rows * r->n_sessions * sizeof *r->frontier + (size_t)r->n * 4;
    return b;
}
