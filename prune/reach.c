/* Reachability for pruning: per-transaction adjacency, topological order
 * of the (SI: doubled) graph, per-session frontiers, shortest paths for
 * counterexamples (see reach.h). */
#include "prune/reach.h"

#include <stdlib.h>
#include <string.h>

static psi_status nomem(psi_diag *d)
{
    return psi_diag_nomem(d, "computing reachability");
}

static void adj_free(psi_adj *a)
{
    free(a->off);
    free(a->dst);
    free(a->eid);
    memset(a, 0, sizeof *a);
}

/* Builds CSR adjacency over transactions from the known edges selected by
 * `want` (0: DEP, 1: ANTI, 2: every edge); `reverse` indexes by target. */
static psi_status adj_build(psi_adj *a, const psi_polygraph *g, uint32_t n_txns, int want,
                            bool reverse, psi_diag *d)
{
    a->off = calloc((size_t)n_txns + 2, sizeof *a->off);
    if (!a->off)
        return nomem(d);
    uint64_t m = 0;
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (want != 2 && (int)psi_edge_is_anti((psi_edge_type)e->type) != want)
            continue;
        a->off[(reverse ? e->to : e->from) + 2]++;
        m++;
    }
    a->dst = malloc((m ? m : 1) * sizeof *a->dst);
    a->eid = malloc((m ? m : 1) * sizeof *a->eid);
    if (!a->dst || !a->eid)
        return nomem(d);
    for (uint32_t u = 0; u < n_txns; u++)
        a->off[u + 2] += a->off[u + 1];
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (want != 2 && (int)psi_edge_is_anti((psi_edge_type)e->type) != want)
            continue;
        uint64_t at = a->off[(reverse ? e->to : e->from) + 1]++;
        a->dst[at] = reverse ? e->from : e->to;
        a->eid[at] = (uint32_t)i;
    }
    return PSI_OK;
}

/* Successors of internal node x, real edges only (virtual == false) or the
 * ordering graph with the free u0 -> u1 edge (virtual == true). Calls
 * visit(ctx, y, eid) for each; eid is UINT32_MAX for the free edge. */
typedef struct succ_iter {
    const psi_reach *r;
    uint32_t x;
    bool virt;
    int phase; /* 0: free edge, 1: dep, 2: anti, 3: done */
    uint64_t i, end;
} succ_iter;

static void succ_begin(succ_iter *it, const psi_reach *r, uint32_t x, bool virt)
{
    *it = (succ_iter){.r = r, .x = x, .virt = virt};
    if (!r->doubled) {
        it->phase = 1;
    } else if (x & 1u) {
        it->phase = 1; /* u1: DEP edges only */
    } else {
        it->phase = virt ? 0 : 1; /* u0: (free edge or DEP edges), then RW */
    }
    uint32_t u = r->doubled ? x / 2 : x;
    if (it->phase == 1) {
        it->i = r->dep.off[u];
        it->end = r->dep.off[u + 1];
    }
}

static bool succ_next(succ_iter *it, uint32_t *y, uint32_t *eid)
{
    const psi_reach *r = it->r;
    uint32_t u = r->doubled ? it->x / 2 : it->x;
    for (;;) {
        switch (it->phase) {
        case 0:
            *y = it->x + 1;
            *eid = UINT32_MAX;
            it->phase = 2;
            it->i = r->anti.off[u];
            it->end = r->anti.off[u + 1];
            return true;
        case 1:
            if (it->i < it->end) {
                *y = r->doubled ? 2 * r->dep.dst[it->i] : r->dep.dst[it->i];
                *eid = r->dep.eid[it->i++];
                return true;
            }
            if (r->doubled && !(it->x & 1u)) {
                it->phase = 2;
                it->i = r->anti.off[u];
                it->end = r->anti.off[u + 1];
                continue;
            }
            it->phase = 3;
            return false;
        case 2:
            if (it->i < it->end) {
                *y = 2 * r->anti.dst[it->i] + 1;
                *eid = r->anti.eid[it->i++];
                return true;
            }
            it->phase = 3;
            return false;
        default:
            return false;
        }
    }
}

/* Kahn's algorithm on the ordering graph; order[0..*n_ordered) is a
 * topological order of the nodes it could order. */
static psi_status topo_order(const psi_reach *r, uint32_t *order, uint32_t *n_ordered, psi_diag *d)
{
    uint32_t *indeg = calloc(r->n ? r->n : 1, sizeof *indeg);
    if (!indeg)
        return nomem(d);
    for (uint32_t u = 0; u < r->n_txns; u++) {
        for (uint64_t i = r->dep.off[u]; i < r->dep.off[u + 1]; i++)
            indeg[psi_reach_node(r, r->dep.dst[i], 0)]++;
        if (r->doubled) {
            indeg[2 * u + 1]++; /* the free edge u0 -> u1 */
            for (uint64_t i = r->anti.off[u]; i < r->anti.off[u + 1]; i++)
                indeg[2 * r->anti.dst[i] + 1]++;
        }
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t x = 0; x < r->n; x++)
        if (indeg[x] == 0)
            order[tail++] = x;
    while (head < tail) {
        uint32_t x = order[head++], y, eid;
        succ_iter it;
        succ_begin(&it, r, x, true);
        while (succ_next(&it, &y, &eid))
            if (--indeg[y] == 0)
                order[tail++] = y;
    }
    free(indeg);
    *n_ordered = tail;
    return PSI_OK;
}

/* Some node on a real cycle, given that not every node could be ordered:
 * an iterative DFS over real edges restricted to unordered nodes stops at
 * the first back edge (a cycle among them exists, see reach.h). */
static psi_status find_cycle_node(const psi_reach *r, const uint32_t *order, uint32_t n_ordered,
                                  uint32_t *cycle_node, psi_diag *d)
{
    uint8_t *color = calloc(r->n ? r->n : 1, 1); /* 0 white, 1 gray, 2 black/ordered */
    uint32_t *stack = malloc((r->n ? r->n : 1) * sizeof *stack);
    succ_iter *its = malloc((r->n ? r->n : 1) * sizeof *its);
    if (!color || !stack || !its) {
        free(color);
        free(stack);
        free(its);
        return nomem(d);
    }
    for (uint32_t i = 0; i < n_ordered; i++)
        color[order[i]] = 2;
    *cycle_node = UINT32_MAX;
    for (uint32_t s = 0; s < r->n && *cycle_node == UINT32_MAX; s++) {
        if (color[s])
            continue;
        uint32_t sp = 0;
        stack[sp] = s;
        succ_begin(&its[sp++], r, s, false);
        color[s] = 1;
        while (sp && *cycle_node == UINT32_MAX) {
            uint32_t u = stack[sp - 1], v, eid;
            if (!succ_next(&its[sp - 1], &v, &eid)) {
                color[u] = 2;
                sp--;
                continue;
            }
            if (color[v] == 1)
                *cycle_node = v;
            else if (color[v] == 0) {
                color[v] = 1;
                stack[sp] = v;
                succ_begin(&its[sp++], r, v, false);
            }
        }
    }
    free(color);
    free(stack);
    free(its);
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
    uint32_t S = r->n_sessions;
    memset(r->frontier, 0xff, (size_t)r->n_rows * S * sizeof *r->frontier);
    for (uint32_t i = r->n; i-- > 0;) {
        uint32_t x = order[i];
        if (r->row_of[x] == UINT32_MAX)
            continue; /* takes no part, has no edges */
        uint32_t *row = row_ptr(r, x);
        uint32_t u = r->doubled ? x / 2 : x;
        if (r->doubled && !(x & 1u)) {
            memcpy(row, row_ptr(r, x + 1), S * sizeof *row);
            for (uint64_t e = r->anti.off[u]; e < r->anti.off[u + 1]; e++)
                row_min(row, row_ptr(r, 2 * r->anti.dst[e] + 1), S);
            continue;
        }
        for (uint64_t e = r->dep.off[u]; e < r->dep.off[u + 1]; e++) {
            uint32_t v = r->dep.dst[e];
            row_min(row, row_ptr(r, psi_reach_node(r, v, 0)), S);
            const psi_txn *tx = &r->h->txns[v];
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
    r->n_txns = h->n_txns;
    r->n = doubled ? 2 * h->n_txns : h->n_txns;
    r->n_sessions = h->n_sessions ? h->n_sessions : 1;
    *cycle_node = UINT32_MAX;
    psi_status st = adj_build(&r->dep, g, r->n_txns, doubled ? 0 : 2, false, d);
    if (st == PSI_OK && doubled) {
        st = adj_build(&r->anti, g, r->n_txns, 1, false, d);
        if (st == PSI_OK)
            st = adj_build(&r->anti_in, g, r->n_txns, 1, true, d);
    }
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
    adj_free(&r->dep);
    adj_free(&r->anti);
    adj_free(&r->anti_in);
    free(r->frontier);
    free(r->row_of);
    memset(r, 0, sizeof *r);
}

bool psi_reach_to_anti(const psi_reach *r, uint32_t u, uint32_t t)
{
    for (uint64_t i = r->anti_in.off[t]; i < r->anti_in.off[t + 1]; i++) {
        uint32_t x = r->anti_in.dst[i];
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
    uint32_t head = 0, tail = 0, found_edge = 0, found_pred = 0;
    bool found = false;
    queue[tail++] = from;
    seen[from] = 1;
    while (head < tail && !found) {
        uint32_t u = queue[head++], v, eid;
        succ_iter it;
        succ_begin(&it, r, u, false);
        while (succ_next(&it, &v, &eid)) {
            if (v == to) {
                found = true;
                found_edge = eid;
                found_pred = u;
                break;
            }
            if (!seen[v]) {
                seen[v] = 1;
                pedge[v] = eid;
                pnode[v] = u;
                queue[tail++] = v;
            }
        }
    }
    if (!found)
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
    (*path)[n - 1] = found_edge;
    uint32_t i = n - 1;
    for (uint32_t u = found_pred; u != from; u = pnode[u])
        (*path)[--i] = pedge[u];
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

static size_t adj_bytes(const psi_adj *a, uint32_t n_txns)
{
    if (!a->off)
        return 0;
    uint64_t m = a->off[n_txns];
    return ((size_t)n_txns + 2) * sizeof *a->off + (size_t)m * (sizeof *a->dst + sizeof *a->eid);
}

size_t psi_reach_bytes(const psi_reach *r)
{
    size_t b = adj_bytes(&r->dep, r->n_txns) + adj_bytes(&r->anti, r->n_txns) +
               adj_bytes(&r->anti_in, r->n_txns);
    if (r->frontier)
        b += (size_t)r->n_rows * r->n_sessions * sizeof *r->frontier + (size_t)r->n * 4;
    return b;
}
