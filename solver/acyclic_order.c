/* The acyclicity theory's topological order of the internal nodes.
 *
 * Known edges are ordered once by a static topological sort (Kahn) at the
 * first solve; a cycle among them is reported as UNSAT at the root (and on
 * request by psi_acyc_known_cycle, without a solver).
 *
 * During search the nodes form a list in topological order: every active
 * edge goes from a node earlier in the list to a later one. Each node carries
 * a 64-bit label, increasing along the list with gaps between (an order-
 * maintenance list), so comparing two nodes' positions is comparing labels
 * and activating x->y with ord[x] < ord[y] costs nothing. Otherwise two
 * bounded searches run in turns, balanced by the edges they scan (as in
 * Haeupler et al.'s two-way search): forward from y among nodes before x,
 * backward from x among nodes after y. If they meet, or one reaches the
 * other's start, y reaches x: a cycle. If one finishes first, its side
 * alone moves: the forward side (all of y's descendants before x) goes right
 * after x, or the backward side (all of x's ancestors after y) right before
 * y, each in its old relative order. Only the moved nodes are relinked and
 * relabelled (plus, rarely, the neighbours a relabel needs for room), so a
 * reorder costs about the smaller side, not the span between x and y that
 * a permutation of positions (Pearce-Kelly) would have to search on both
 * sides. Deactivation on backtrack keeps the order valid, so backtracking
 * only pops edges off per-node lists (acyclic_theory.c). */
#include "acyclic_internal.h"

#include <assert.h>
#include <stdlib.h>

/* --- static order of the known edges ------------------------------------ */

/* Kahn's ready set: a binary min-heap of keys in h[0..*n), each a node's
 * sort key (sort_key) above its index. */
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

/* Internal node x's key in the ready set: the caller's hint for its user
 * node when there is one (psi_acyc_set_order_hint), else its depth. */
static uint64_t sort_key(const psi_acyc *g, const uint32_t *depth, uint32_t x)
{
    uint32_t k = !g->hint                 ? depth[x]
                 : g->mode == PSI_ACYC_SI ? g->hint[x / 2]
                 : x < g->nodes           ? g->hint[x]
                                          : UINT32_MAX; /* PSI's sink: last */
    return (uint64_t)k << 32 | x;
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
    uint64_t *queue = malloc(N * sizeof *queue), *ready = malloc(N * sizeof *ready);
    int res = -1;
    if (!ostart || !istart || !oe || !ie || !indeg || !depth || !queue || !ready)
        goto out;
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            for (uint32_t j = 0; j < g->ue[i].nie; j++) {
                uint32_t e = g->ue[i].ie + j;
                ostart[ie_src(g, e) + 1]++;
                istart[ie_dst(g, e) + 1]++;
            }
    for (size_t v = 0; v < N; v++) {
        ostart[v + 1] += ostart[v];
        istart[v + 1] += istart[v];
    }
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            for (uint32_t j = 0; j < g->ue[i].nie; j++) {
                uint32_t e = g->ue[i].ie + j;
                oe[ostart[ie_src(g, e)]++] = e;
                ie[istart[ie_dst(g, e)]++] = e;
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
     * numbering, which keeps v0 and v1 of a user node together.
     *   The nodes ready at the start whose keys ascend in index order (all
     * of them without a hint: their depth is 0) wait in a sorted list
     * instead: each step takes the smaller key of the list's head and the
     * heap's top, the same node the heap alone would give (keys are
     * distinct), without a push and a pop on a heap of them. PC's graph
     * has no hint, and about half its nodes are ready at the start
     * (C-Twitter: 18,549 of 38,288; SI's, with a hint: 333 of 7,777 in
     * ascending order). */
    uint32_t tail = 0, hn = 0, rn = 0, rh = 0;
    for (uint32_t v = 0; v < g->N; v++) {
        indeg[v] = istart[v + 1] - istart[v];
        if (indeg[v])
            continue;
        uint64_t k = sort_key(g, depth, v);
        if (!rn || k > ready[rn - 1])
            ready[rn++] = k;
        else
            heap_push(queue, &hn, k);
    }
    while (hn || rh < rn) {
        uint64_t top =
            rh < rn && (!hn || ready[rh] < queue[0]) ? ready[rh++] : heap_pop(queue, &hn);
        uint32_t v = (uint32_t)(top & UINT32_MAX);
        if (ord)
            ord[v] = tail;
        tail++;
        for (uint32_t k = ostart[v]; k < ostart[v + 1]; k++) {
            uint32_t w = ie_dst(g, oe[k]);
            if (depth[w] < depth[v] + 1)
                depth[w] = depth[v] + 1;
            if (--indeg[w] == 0)
                heap_push(queue, &hn, sort_key(g, depth, w));
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
            if (indeg[ie_src(g, ie[k])])
                pick = ie[k];
        assert(pick != UINT32_MAX);
        if (pick == UINT32_MAX || !psi_u32_push(&g->fwd, pick)) {
            res = -1;
            goto out;
        }
        v = ie_src(g, pick);
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
    free(ready);
    return res;
}

/* Labels live in [1, LAB_END); 0 and LAB_END stand for the list's ends. */
#define LAB_END ((uint64_t)1 << 63)

/* Puts every known internal edge into the graph and computes the initial
 * order by one topological sort, with labels spread evenly. Returns false on
 * ENOMEM. */
bool psi_acyc_static_setup(psi_acyc *g)
{
    if (g->ordered)
        return true;
    uint32_t *pos = malloc((g->N ? g->N : 1) * sizeof *pos);
    if (!pos)
        return false;
    int cyc = known_sort(g, pos);
    if (cyc < 0) {
        free(pos);
        return false;
    }
    g->static_cycle = cyc == 1;
    /* pos is a permutation: invert it (into oprev, for the moment). */
    for (uint32_t v = 0; v < g->N; v++)
        g->oprev[pos[v]] = v;
    free(pos);
    uint64_t step = LAB_END / ((uint64_t)g->N + 1);
    g->ohead = g->N ? g->oprev[0] : PSI_ACYC_NONE;
    for (uint32_t p = 0; p < g->N; p++) {
        uint32_t v = g->oprev[p];
        g->ord[v] = (uint64_t)(p + 1) * step;
        g->onext[v] = p + 1 < g->N ? g->oprev[p + 1] : PSI_ACYC_NONE;
    }
    for (uint32_t v = g->ohead, p = PSI_ACYC_NONE; v != PSI_ACYC_NONE; p = v, v = g->onext[v])
        g->oprev[v] = p;
    /* The lists get exactly the room their known edges need (counted in
     * cap first): known edges are most of the graph, and doubling growth
     * would leave a quarter of it empty on average. Nothing is active yet;
     * lists allocated by an earlier attempt that ran out of memory keep
     * their room and grow as usual. */
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->need || u->dead)
            continue;
        for (uint32_t j = 0; j < u->nie; j++) {
            adjvec *o = &g->out[ie_src(g, u->ie + j)], *in = &g->in[ie_dst(g, u->ie + j)];
            assert(!o->n && !in->n);
            o->cap += !o->a;
            in->cap += !in->a;
        }
    }
    /* One block for every list still without an array, each with its
     * hidden entry (acyclic_internal.h). A failed setup made no pool (the
     * pushes below fit the exact room), so a retry makes the only one. */
    assert(!g->adj_pool);
    size_t total = 0;
    for (uint32_t v = 0; v < g->N; v++) {
        total += !g->out[v].a && g->out[v].cap ? (size_t)g->out[v].cap + 1 : 0;
        total += !g->in[v].a && g->in[v].cap ? (size_t)g->in[v].cap + 1 : 0;
    }
    bool ok = !total || (g->adj_pool = malloc(total * sizeof *g->adj_pool)) != NULL;
    size_t at = 0;
    for (uint32_t v = 0; ok && v < g->N; v++) {
        adjvec *l[2] = {&g->out[v], &g->in[v]};
        for (int k = 0; k < 2; k++)
            if (!l[k]->a && l[k]->cap) {
                g->adj_pool[at] = (adj){.node = ADJ_POOLED};
                l[k]->a = g->adj_pool + at + 1;
                at += (size_t)l[k]->cap + 1;
            }
    }
    assert(!ok || at == total);
    if (!ok) {
        for (uint32_t v = 0; v < g->N; v++) {
            g->out[v].cap = g->out[v].a ? g->out[v].cap : 0;
            g->in[v].cap = g->in[v].a ? g->in[v].cap : 0;
        }
        return false;
    }
    for (size_t i = 0; i < g->ue_n; i++) {
        uedge *u = &g->ue[i];
        if (u->need || u->dead)
            continue;
        for (uint32_t j = 0; j < u->nie; j++) {
            uint32_t e = u->ie + j;
            if (!adj_push(&g->out[ie_src(g, e)], ie_dst(g, e), e) ||
                !adj_push(&g->in[ie_dst(g, e)], ie_src(g, e), e))
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

/* --- incremental order (two-way search, order-maintenance list) -------- */

static int cmp_lab(const void *a, const void *b)
{
    const lab_node *x = a, *y = b;
    return x->lab < y->lab ? -1 : x->lab > y->lab;
}

static uint64_t lab_before(const psi_acyc *g, uint32_t a)
{
    return a == PSI_ACYC_NONE ? 0 : g->ord[a];
}

static uint64_t lab_after(const psi_acyc *g, uint32_t b)
{
    return b == PSI_ACYC_NONE ? LAB_END : g->ord[b];
}

/* Smallest average gap a relabel leaves: a few more insertions at the same
 * place fit before the next relabel. */
#define MIN_GAP 64

/* Gives fresh labels to the cnt nodes strictly between a and b (list ends:
 * NONE), which must lie between lab_before(a) and lab_after(b). If the gap is
 * too small, the range grows over the neighbours on both sides, doubling,
 * until the average gap is at least MIN_GAP (the whole list always has
 * room: N < 2^32 nodes in 2^63 labels). */
static void relabel(psi_acyc *g, uint32_t a, uint32_t b, uint64_t cnt)
{
    uint64_t lo = lab_before(g, a), hi = lab_after(g, b);
    if (hi - lo <= cnt) {
        g->st.relabels++;
        for (uint64_t ext = 1;; ext *= 2) {
            for (uint64_t i = 0; i < ext && a != PSI_ACYC_NONE; i++, cnt++)
                a = g->oprev[a];
            for (uint64_t i = 0; i < ext && b != PSI_ACYC_NONE; i++, cnt++)
                b = g->onext[b];
            lo = lab_before(g, a);
            hi = lab_after(g, b);
            if ((hi - lo) / (cnt + 1) >= MIN_GAP || (a == PSI_ACYC_NONE && b == PSI_ACYC_NONE))
                break;
        }
        g->st.relabelled += cnt;
    }
    uint64_t step = (hi - lo) / (cnt + 1);
    assert(step >= 1);
    uint32_t v = a == PSI_ACYC_NONE ? g->ohead : g->onext[a];
    for (uint64_t i = 1; v != b; v = g->onext[v], i++)
        g->ord[v] = lo + i * step;
}

static void unlink_node(psi_acyc *g, uint32_t v)
{
    uint32_t p = g->oprev[v], n = g->onext[v];
    if (p == PSI_ACYC_NONE)
        g->ohead = n;
    else
        g->onext[p] = n;
    if (n != PSI_ACYC_NONE)
        g->oprev[n] = p;
}

/* Moves the nodes of side (none of them a or a's successor) right after a
 * (NONE: to the front), in the order of their old labels. */
static bool move_after(psi_acyc *g, uint32_t a, const u32vec *side)
{
    size_t k = side->n;
    if (!psi_grow_array((void **)&g->sortbuf, &g->sortbuf_cap, k, sizeof *g->sortbuf))
        return false;
    for (size_t i = 0; i < k; i++)
        g->sortbuf[i] = (lab_node){g->ord[side->a[i]], side->a[i]};
    qsort(g->sortbuf, k, sizeof *g->sortbuf, cmp_lab);
    for (size_t i = 0; i < k; i++)
        unlink_node(g, g->sortbuf[i].node);
    uint32_t b = a == PSI_ACYC_NONE ? g->ohead : g->onext[a], p = a;
    for (size_t i = 0; i < k; i++) {
        uint32_t v = g->sortbuf[i].node;
        g->oprev[v] = p;
        if (p == PSI_ACYC_NONE)
            g->ohead = v;
        else
            g->onext[p] = v;
        p = v;
    }
    if (k) {
        g->onext[p] = b;
        if (b != PSI_ACYC_NONE)
            g->oprev[b] = p;
    }
    relabel(g, a, b, k);
    return true;
}

int psi_acyc_restore_order(psi_acyc *g, uint32_t x, uint32_t y)
{
    uint64_t lx = g->ord[x], ly = g->ord[y];
    assert(x != y && ly < lx);
    /* fwd/cur: nodes reached from y before x; bwd/next: nodes reaching x
     * after y. Marks are from the caller's fresh epoch. */
    g->fwd.n = g->bwd.n = g->cur.n = g->next.n = 0;
    g->fmark[y] = g->bmark[x] = g->epoch;
    if (!psi_u32_push(&g->fwd, y) || !psi_u32_push(&g->cur, y) || !psi_u32_push(&g->bwd, x) ||
        !psi_u32_push(&g->next, x))
        return -1;
    uint64_t fcost = 0, bcost = 0; /* edges scanned by each side */
    while (g->cur.n && g->next.n) {
        g->st.visited++;
        if (fcost <= bcost) {
            uint32_t v = g->cur.a[--g->cur.n];
            const adjvec *o = &g->out[v];
            fcost += o->n + 1;
            for (uint32_t i = 0; i < o->n; i++) {
                uint32_t w = o->a[i].node;
                if (g->bmark[w] == g->epoch)
                    return 1; /* w reaches x (or is x) */
                if (g->ord[w] > lx || g->fmark[w] == g->epoch)
                    continue;
                g->fmark[w] = g->epoch;
                if (!psi_u32_push(&g->fwd, w) || !psi_u32_push(&g->cur, w))
                    return -1;
            }
        } else {
            uint32_t v = g->next.a[--g->next.n];
            const adjvec *in = &g->in[v];
            bcost += in->n + 1;
            for (uint32_t i = 0; i < in->n; i++) {
                uint32_t w = in->a[i].node;
                if (g->fmark[w] == g->epoch)
                    return 1; /* y reaches w (or w is y) */
                if (g->ord[w] < ly || g->bmark[w] == g->epoch)
                    continue;
                g->bmark[w] = g->epoch;
                if (!psi_u32_push(&g->bwd, w) || !psi_u32_push(&g->next, w))
                    return -1;
            }
        }
    }
    g->st.reorders++;
    g->moved_fwd = !g->cur.n;
    if (g->moved_fwd) {
        /* Every descendant of y before x is in fwd: they go right after x. */
        g->st.moved += g->fwd.n;
        return move_after(g, x, &g->fwd) ? 0 : -1;
    }
    /* Every ancestor of x after y is in bwd: they go right before y. */
    g->st.moved += g->bwd.n;
    uint32_t p = g->oprev[y];
    /* y's predecessor is before y, so not in bwd. */
    return move_after(g, p, &g->bwd) ? 0 : -1;
}
