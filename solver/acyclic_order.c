/* The acyclicity theory's topological order of the internal nodes.
 *
 * Known edges are ordered once by a static topological sort (Kahn) at the
 * first solve; a cycle among them is reported as UNSAT at the root (and on
 * request by psi_acyc_known_cycle, without a solver).
 *
 * During search every internal node keeps a position ord[] such that each
 * active edge goes from a lower to a higher position. Activating x->y with
 * ord[x] < ord[y] costs nothing. Otherwise (Pearce-Kelly) a forward search
 * from y among nodes positioned at most ord[x] (acyclic_cycle.c) either
 * reaches x, a cycle, or finds the forward side; a backward search from x
 * among nodes positioned at least ord[y] finds the other side, and the
 * positions of both sides are permuted so the backward side comes first.
 * Deactivation on backtrack keeps the order valid, so backtracking only pops
 * edges off per-node lists (acyclic_theory.c). */
#include "acyclic_internal.h"

#include <assert.h>
#include <stdlib.h>

/* --- static order of the known edges ------------------------------------ */

/* Kahn's ready set: a binary min-heap of keys in h[0..*n), each a node's
 * depth (longest path of known edges reaching it) above its index. */
static void heap_push(uint64_t *h, uint32_t *n, uint64_t v)
{
    uint32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static uint64_t heap_pop(uint64_t *h, uint32_t *n)
{
    uint64_t top = h[0], v = h[--*n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
    return top;
}

/* Kahn's algorithm over the known internal edges only, on private CSR
 * arrays (so it can run at any time, whatever is active). Writes positions
 * to ord if given; on a cycle fills g->known_cycle with one (walking back
 * from a node Kahn could not place until a node repeats). Returns 1 if
 * cyclic, 0 if not, -1 on ENOMEM. */
static int known_sort(psi_acyc *g, uint32_t *ord)
{
    size_t N = g->N ? g->N : 1, m = 0;
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            m += g->ue[i].nie;
    uint32_t *ostart = calloc(N + 1, sizeof *ostart), *istart = calloc(N + 1, sizeof *istart);
    uint32_t *oe = malloc((m ? m : 1) * sizeof *oe), *ie = malloc((m ? m : 1) * sizeof *ie);
    uint32_t *indeg = calloc(N, sizeof *indeg), *depth = calloc(N, sizeof *depth);
    uint64_t *queue = malloc(N * sizeof *queue);
    int res = -1;
    if (!ostart || !istart || !oe || !ie || !indeg || !depth || !queue)
        goto out;
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            for (uint32_t j = 0; j < g->ue[i].nie; j++) {
                uint32_t e = g->ue[i].ie + j;
                ostart[g->ie_from[e] + 1]++;
                istart[g->ie_to[e] + 1]++;
            }
    for (size_t v = 0; v < N; v++) {
        ostart[v + 1] += ostart[v];
        istart[v + 1] += istart[v];
    }
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            for (uint32_t j = 0; j < g->ue[i].nie; j++) {
                uint32_t e = g->ue[i].ie + j;
                oe[ostart[g->ie_from[e]]++] = e;
                ie[istart[g->ie_to[e]]++] = e;
            }
    for (size_t v = N; v > 0; v--) {
        ostart[v] = ostart[v - 1];
        istart[v] = istart[v - 1];
    }
    ostart[0] = istart[0] = 0;
    /* Ready nodes leave by depth, then index (a min-heap). Depth, the
     * longest known path to a node, is the best guess of its time that the
     * known edges give: histories' real orders mostly agree with it, so the
     * search's activations rarely need a reorder (and phase hints taken
     * from this order point the right way). Ties follow the caller's
     * numbering, which keeps v0 and v1 of a user node together. */
    uint32_t tail = 0, hn = 0;
    for (uint32_t v = 0; v < g->N; v++) {
        indeg[v] = istart[v + 1] - istart[v];
        if (!indeg[v])
            heap_push(queue, &hn, v);
    }
    while (hn) {
        uint32_t v = (uint32_t)heap_pop(queue, &hn);
        if (ord)
            ord[v] = tail;
        tail++;
        for (uint32_t k = ostart[v]; k < ostart[v + 1]; k++) {
            uint32_t w = g->ie_to[oe[k]];
            if (depth[w] < depth[v] + 1)
                depth[w] = depth[v] + 1;
            if (--indeg[w] == 0)
                heap_push(queue, &hn, (uint64_t)depth[w] << 32 | w);
        }
    }
    g->known_cycle.n = 0;
    res = tail < g->N;
    if (!res)
        goto out;
    uint32_t pos = tail, start = UINT32_MAX;
    for (uint32_t v = 0; v < g->N; v++)
        if (indeg[v]) {
            if (ord)
                ord[v] = pos++;
            if (start == UINT32_MAX)
                start = v;
        }
    /* Every unplaced node has an in-edge from another unplaced node. */
    new_epoch(g);
    g->fwd.n = 0;
    uint32_t v = start, step = 0;
    while (g->fmark[v] != g->epoch) {
        g->fmark[v] = g->epoch;
        g->dist[v] = step++;
        uint32_t pick = UINT32_MAX;
        for (uint32_t k = istart[v]; k < istart[v + 1] && pick == UINT32_MAX; k++)
            if (indeg[g->ie_from[ie[k]]])
                pick = ie[k];
        assert(pick != UINT32_MAX);
        if (pick == UINT32_MAX || !psi_u32_push(&g->fwd, pick)) {
            res = -1;
            goto out;
        }
        v = g->ie_from[pick];
    }
    /* The walk's edges from index dist[v] on form the cycle, backwards. */
    for (size_t i = g->fwd.n; i-- > g->dist[v];)
        if (!psi_u32_push(&g->known_cycle, g->ie_user[g->fwd.a[i]])) {
            res = -1;
            goto out;
        }
out:
    free(ostart);
    free(istart);
    free(oe);
    free(ie);
    free(indeg);
    free(depth);
    free(queue);
    return res;
}

/* Puts every known internal edge into the graph and computes the initial
 * order by one topological sort. Returns false on ENOMEM. */
bool psi_acyc_static_setup(psi_acyc *g)
{
    if (g->ordered)
        return true;
    int cyc = known_sort(g, g->ord);
    if (cyc < 0)
        return false;
    g->static_cycle = cyc == 1;
    for (size_t i = 0; i < g->ue_n; i++) {
        uedge *u = &g->ue[i];
        if (u->need || u->dead)
            continue;
        for (uint32_t j = 0; j < u->nie; j++) {
            uint32_t e = u->ie + j;
            if (!adj_push(&g->out[g->ie_from[e]], g->ie_to[e], e) ||
                !adj_push(&g->in[g->ie_to[e]], g->ie_from[e], e))
                return false;
        }
        u->active = u->root = 1;
    }
    g->ordered = true;
    return true;
}

int psi_acyc_known_cycle(psi_acyc *g, const uint32_t **edges, size_t *n)
{
    int r = known_sort(g, NULL);
    if (r < 0)
        return PSI_SAT_ENOMEM;
    *edges = g->known_cycle.a;
    *n = g->known_cycle.n;
    return r;
}

/* --- incremental order (Pearce-Kelly) ----------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Nodes reaching dst among those positioned at least ord[src]; marks bmark
 * and lists them in g->bwd. */
bool psi_acyc_search_backward(psi_acyc *g, uint32_t src, uint32_t dst)
{
    uint32_t lb = g->ord[src];
    g->bwd.n = g->cur.n = 0;
    g->bmark[dst] = g->epoch;
    if (!psi_u32_push(&g->bwd, dst) || !psi_u32_push(&g->cur, dst))
        return false;
    while (g->cur.n) {
        uint32_t v = g->cur.a[--g->cur.n];
        g->st.visited++;
        const adjvec *in = &g->in[v];
        for (uint32_t i = 0; i < in->n; i++) {
            uint32_t w = in->a[i].node;
            if (g->ord[w] < lb || g->bmark[w] == g->epoch)
                continue;
            g->bmark[w] = g->epoch;
            if (!psi_u32_push(&g->bwd, w) || !psi_u32_push(&g->cur, w))
                return false;
        }
    }
    return true;
}

static bool sort_by_ord(psi_acyc *g, const u32vec *nodes, size_t at)
{
    for (size_t i = 0; i < nodes->n; i++)
        g->sortbuf[at + i] = ((uint64_t)g->ord[nodes->a[i]] << 32) | nodes->a[i];
    qsort(g->sortbuf + at, nodes->n, sizeof *g->sortbuf, cmp_u64);
    return true;
}

/* Pearce-Kelly reordering: backward side first, then forward side, reusing
 * the union of their positions. */
bool psi_acyc_reorder(psi_acyc *g)
{
    size_t nb = g->bwd.n, nf = g->fwd.n, n = nb + nf;
    if (!psi_grow_array((void **)&g->sortbuf, &g->sortbuf_cap, n, sizeof *g->sortbuf))
        return false;
    g->pool.n = 0;
    if (!psi_u32_reserve(&g->pool, n))
        return false;
    sort_by_ord(g, &g->bwd, 0);
    sort_by_ord(g, &g->fwd, nb);
    /* Both halves are sorted: merge their positions. */
    size_t i = 0, j = nb;
    while (i < nb || j < n) {
        uint64_t a = i < nb ? g->sortbuf[i] >> 32 : UINT64_MAX;
        uint64_t b = j < n ? g->sortbuf[j] >> 32 : UINT64_MAX;
        if (a < b)
            g->pool.a[g->pool.n++] = (uint32_t)a, i++;
        else
            g->pool.a[g->pool.n++] = (uint32_t)b, j++;
    }
    for (size_t k = 0; k < n; k++)
        g->ord[(uint32_t)g->sortbuf[k]] = g->pool.a[k];
    g->st.reorders++;
    return true;
}
