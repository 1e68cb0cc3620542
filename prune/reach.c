/* Reachability for pruning: internal graph, topological order, per-session
 * frontiers, shortest paths for counterexamples (see reach.h). */
#include "prune/reach.h"

#include <stdlib.h>
#include <string.h>

static psi_status nomem(psi_diag *d)
{
    return psi_diag_nomem(d, "computing reachability");
}

/* Internal edges of one known edge: SI doubles them (see prune.h). */
static unsigned internal_edges(const psi_reach *r, const psi_edge *e, uint32_t from[2],
                               uint32_t to[2])
{
    if (!r->doubled) {
        from[0] = e->from;
        to[0] = e->to;
        return 1;
    }
    if (psi_edge_is_anti((psi_edge_type)e->type)) {
        from[0] = 2 * e->from;
        to[0] = 2 * e->to + 1;
        return 1;
    }
    from[0] = 2 * e->from;
    to[0] = 2 * e->to;
    from[1] = 2 * e->from + 1;
    to[1] = 2 * e->to;
    return 2;
}

static psi_status build_csr(psi_reach *r, const psi_polygraph *g, psi_diag *d)
{
    r->off = calloc((size_t)r->n + 2, sizeof *r->off);
    if (!r->off)
        return nomem(d);
    uint64_t m = 0;
    for (uint64_t i = 0; i < g->n_known; i++) {
        uint32_t f[2], t[2];
        unsigned k = internal_edges(r, &g->known[i], f, t);
        for (unsigned j = 0; j < k; j++)
            r->off[f[j] + 2]++;
        m += k;
    }
    r->m = m;
    r->dst = malloc((m ? m : 1) * sizeof *r->dst);
    r->eid = malloc((m ? m : 1) * sizeof *r->eid);
    if (!r->dst || !r->eid)
        return nomem(d);
    for (uint32_t u = 0; u < r->n; u++)
        r->off[u + 2] += r->off[u + 1];
    for (uint64_t i = 0; i < g->n_known; i++) {
        uint32_t f[2], t[2];
        unsigned k = internal_edges(r, &g->known[i], f, t);
        for (unsigned j = 0; j < k; j++) {
            uint64_t at = r->off[f[j] + 1]++;
            r->dst[at] = t[j];
            r->eid[at] = (uint32_t)i;
        }
    }
    if (!r->doubled)
        return PSI_OK;
    /* Sources of RW edges per target transaction. */
    uint32_t nt = r->h->n_txns;
    r->anti_off = calloc((size_t)nt + 2, sizeof *r->anti_off);
    if (!r->anti_off)
        return nomem(d);
    uint64_t na = 0;
    for (uint64_t i = 0; i < g->n_known; i++)
        if (psi_edge_is_anti((psi_edge_type)g->known[i].type)) {
            r->anti_off[g->known[i].to + 2]++;
            na++;
        }
    r->anti_src = malloc((na ? na : 1) * sizeof *r->anti_src);
    if (!r->anti_src)
        return nomem(d);
    for (uint32_t t = 0; t < nt; t++)
        r->anti_off[t + 2] += r->anti_off[t + 1];
    for (uint64_t i = 0; i < g->n_known; i++)
        if (psi_edge_is_anti((psi_edge_type)g->known[i].type))
            r->anti_src[r->anti_off[g->known[i].to + 1]++] = g->known[i].from;
    return PSI_OK;
}

/* Kahn's algorithm. Returns the number of nodes ordered; order[] holds them. */
static psi_status topo_order(const psi_reach *r, uint32_t *order, uint32_t *n_ordered, psi_diag *d)
{
    uint32_t *indeg = calloc(r->n ? r->n : 1, sizeof *indeg);
    if (!indeg)
        return nomem(d);
    for (uint64_t e = 0; e < r->m; e++)
        indeg[r->dst[e]]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t u = 0; u < r->n; u++)
        if (indeg[u] == 0)
            order[tail++] = u;
    while (head < tail) {
        uint32_t u = order[head++];
        for (uint64_t e = r->off[u]; e < r->off[u + 1]; e++)
            if (--indeg[r->dst[e]] == 0)
                order[tail++] = r->dst[e];
    }
    free(indeg);
    *n_ordered = tail;
    return PSI_OK;
}

/* Some node on a cycle, given that not every node could be ordered: every
 * unordered node keeps an unordered predecessor, but we search forward with
 * an iterative DFS restricted to unordered nodes and stop at a back edge. */
static psi_status find_cycle_node(const psi_reach *r, const uint32_t *order, uint32_t n_ordered,
                                  uint32_t *cycle_node, psi_diag *d)
{
    uint8_t *color = calloc(r->n ? r->n : 1, 1); /* 0 white, 1 gray, 2 black/ordered */
    uint32_t *stack = malloc((r->n ? r->n : 1) * sizeof *stack);
    uint64_t *cursor = malloc((r->n ? r->n : 1) * sizeof *cursor);
    if (!color || !stack || !cursor) {
        free(color);
        free(stack);
        free(cursor);
        return nomem(d);
    }
    for (uint32_t i = 0; i < n_ordered; i++)
        color[order[i]] = 2;
    *cycle_node = UINT32_MAX;
    for (uint32_t s = 0; s < r->n && *cycle_node == UINT32_MAX; s++) {
        if (color[s])
            continue;
        uint32_t sp = 0;
        stack[sp++] = s;
        cursor[s] = r->off[s];
        color[s] = 1;
        while (sp && *cycle_node == UINT32_MAX) {
            uint32_t u = stack[sp - 1];
            if (cursor[u] == r->off[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            uint32_t v = r->dst[cursor[u]++];
            if (color[v] == 1)
                *cycle_node = v;
            else if (color[v] == 0) {
                color[v] = 1;
                cursor[v] = r->off[v];
                stack[sp++] = v;
            }
        }
    }
    free(color);
    free(stack);
    free(cursor);
    return PSI_OK;
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
    for (uint32_t u = 0; u < r->n; u++)
        r->row_of[u] = live_txn(r->h, r->doubled ? u / 2 : u) ? (uint32_t)rows++ : UINT32_MAX;
    r->n_rows = rows;
    if (rows && (uint64_t)r->n_sessions > SIZE_MAX / sizeof *r->frontier / rows)
        return nomem(d);
    r->frontier = malloc((rows ? rows : 1) * r->n_sessions * sizeof *r->frontier);
    return r->frontier ? PSI_OK : nomem(d);
}

static void compute_frontier(psi_reach *r, const uint32_t *order)
{
    uint32_t S = r->n_sessions;
    memset(r->frontier, 0xff, (size_t)r->n_rows * S * sizeof *r->frontier);
    for (uint32_t i = r->n; i-- > 0;) {
        uint32_t u = order[i];
        if (r->row_of[u] == UINT32_MAX)
            continue; /* takes no part, has no edges */
        uint32_t *row = r->frontier + (uint64_t)r->row_of[u] * S;
        for (uint64_t e = r->off[u]; e < r->off[u + 1]; e++) {
            uint32_t v = r->dst[e];
            const uint32_t *vr = r->frontier + (uint64_t)r->row_of[v] * S;
            for (uint32_t s = 0; s < S; s++)
                row[s] = vr[s] < row[s] ? vr[s] : row[s];
            if (r->doubled && (v & 1u))
                continue; /* arriving at a v1 node does not reach v0 */
            const psi_txn *tx = &r->h->txns[r->doubled ? v / 2 : v];
            if (tx->session != PSI_NO_SESSION && tx->pos < row[tx->session])
                row[tx->session] = tx->pos;
        }
    }
}

psi_status psi_reach_build(psi_reach *r, const psi_history *h, const psi_polygraph *g, bool doubled,
                           uint32_t *cycle_node, psi_diag *d)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    r->doubled = doubled;
    r->n = doubled ? 2 * h->n_txns : h->n_txns;
    r->n_sessions = h->n_sessions ? h->n_sessions : 1;
    *cycle_node = UINT32_MAX;
    psi_status st = build_csr(r, g, d);
    uint32_t *order = NULL;
    if (st == PSI_OK && !(order = malloc((r->n ? r->n : 1) * sizeof *order)))
        st = nomem(d);
    uint32_t n_ordered = 0;
    if (st == PSI_OK)
        st = topo_order(r, order, &n_ordered, d);
    if (st == PSI_OK && n_ordered < r->n) {
        st = find_cycle_node(r, order, n_ordered, cycle_node, d);
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

void psi_reach_free(psi_reach *r)
{
    free(r->off);
    free(r->dst);
    free(r->eid);
    free(r->frontier);
    free(r->row_of);
    free(r->anti_off);
    free(r->anti_src);
    memset(r, 0, sizeof *r);
}

bool psi_reach_to_anti(const psi_reach *r, uint32_t u, uint32_t t)
{
    for (uint64_t i = r->anti_off[t]; i < r->anti_off[t + 1]; i++) {
        uint32_t x = r->anti_src[i];
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
    uint32_t *pedge = malloc((r->n ? r->n : 1) * sizeof *pedge);
    uint32_t *pnode = malloc((r->n ? r->n : 1) * sizeof *pnode);
    uint32_t *queue = malloc((r->n ? r->n : 1) * sizeof *queue);
    uint8_t *seen = calloc(r->n ? r->n : 1, 1);
    psi_status st = PSI_OK;
    if (!pedge || !pnode || !queue || !seen) {
        st = nomem(d);
        goto out;
    }
    /* BFS from `from`; `to` is found when first reached by an edge, so
     * from == to yields a shortest cycle. */
    uint32_t head = 0, tail = 0, found = UINT32_MAX, found_edge = 0, found_pred = 0;
    queue[tail++] = from;
    seen[from] = 1;
    while (head < tail && found == UINT32_MAX) {
        uint32_t u = queue[head++];
        for (uint64_t e = r->off[u]; e < r->off[u + 1]; e++) {
            uint32_t v = r->dst[e];
            if (v == to) {
                found = v;
                found_edge = (uint32_t)e;
                found_pred = u;
                break;
            }
            if (!seen[v]) {
                seen[v] = 1;
                pedge[v] = (uint32_t)e;
                pnode[v] = u;
                queue[tail++] = v;
            }
        }
    }
    if (found == UINT32_MAX)
        goto out;
    uint32_t n = 1;
    for (uint32_t u = found_pred; u != from; u = pnode[u])
        n++;
    *path = malloc(n * sizeof **path);
    if (!*path) {
        st = nomem(d);
        goto out;
    }
    *len = n;
    (*path)[n - 1] = r->eid[found_edge];
    uint32_t i = n - 1;
    for (uint32_t u = found_pred; u != from; u = pnode[u])
        (*path)[--i] = r->eid[pedge[u]];
out:
    free(pedge);
    free(pnode);
    free(queue);
    free(seen);
    return st;
}

psi_status psi_reach_cycle(const psi_reach *r, uint32_t u, uint32_t **path, uint32_t *len,
                           psi_diag *d)
{
    return psi_reach_path(r, u, u, path, len, d);
}

size_t psi_reach_bytes(const psi_reach *r)
{
    size_t b =
        ((size_t)r->n + 2) * sizeof *r->off + (size_t)r->m * (sizeof *r->dst + sizeof *r->eid);
    if (r->frontier)
        b += (size_t)r->n_rows * r->n_sessions * sizeof *r->frontier + (size_t)r->n * 4;
    if (r->anti_off)
        b += ((size_t)r->h->n_txns + 2) * sizeof *r->anti_off;
    return b;
}
