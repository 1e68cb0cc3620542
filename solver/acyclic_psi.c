/* PSI mode's cycles of one ANTI edge (acyclic.h): an active ANTI edge
 * a->b (internally a->sink) whose head b reaches its tail a over active
 * DEP edges.
 *
 * Every such cycle is found the moment its last edge goes in. If that is
 * the ANTI edge, a search from b to a (psi_acyc_psi_anti). If it is a DEP
 * edge x->y, the cycle is b ->* x -> y ->* a, and since the order is
 * topological for the DEP edges, b <= x < y <= a in it: a->b points
 * backwards in the order and its window [b, a] holds the new edge. Few
 * ANTI edges point backwards (a reader placed after the version's
 * overwriter; on the PolySI histories about 2 % of those active), so they
 * are kept in a list, bw, sorted by their heads' labels, with the running
 * maximum of their tails' labels: the windows holding x->y are found by a
 * binary search for x and a walk back that stops where no earlier window
 * reaches y. Most DEP activations have none. For those with candidates,
 * one search forward from y (up to the furthest candidate tail) and, if
 * it reaches one, one search back from x (down to the earliest head of
 * those reached) decide; a cycle found gets the 0-1 BFS of psi_anti_check
 * for a short clause. On GeneralWH checking only ANTI activations, and
 * sweeping over all backward ANTI edges every few hundred activations
 * (the previous design), found 38 of 40 conflicts late, each undoing what
 * was decided since its path closed: 16,290 decisions against 9,694 now.
 *
 * Keeping bw sorted and complete. Labels change only in reorders (and
 * relabels there keep the relative order of the nodes not moved), so an
 * ANTI edge starts or stops pointing backwards, and an entry's place in
 * bw changes, only when an end of it moves: psi_acyc_psi_moved takes out
 * the entries whose head moved and puts back, in order, the backward ANTI
 * edges at the moved nodes (out-lists for tails, hant for heads). Entries
 * that became inactive (backtracking) or point forwards stay until the
 * next reorder drops them; the walk skips them. */
#include "acyclic_internal.h"

#include <assert.h>
#include <stdlib.h>

static inline bool backward(const psi_acyc *g, const uedge *u)
{
    return u->from != u->to && g->ord[u->to] < g->ord[u->from];
}

/* Marks (fmark == epoch) the nodes src reaches over active edges whose
 * targets are positioned at most ub: plain reachability, no distances. */
static bool reach_forward(psi_acyc *g, uint32_t src, uint64_t ub)
{
    g->cur.n = 0;
    g->fmark[src] = g->epoch;
    if (!psi_u32_push(&g->cur, src))
        return false;
    while (g->cur.n) {
        uint32_t v = g->cur.a[--g->cur.n];
        g->st.visited++;
        const adjvec *o = &g->out[v];
        for (uint32_t i = 0; i < o->n; i++) {
            uint32_t w = o->a[i].node;
            if (g->ord[w] > ub || g->fmark[w] == g->epoch)
                continue;
            g->fmark[w] = g->epoch;
            if (!psi_u32_push(&g->cur, w))
                return false;
        }
    }
    return true;
}

/* Marks (bmark == epoch) the nodes reaching dst over active edges whose
 * sources are positioned at least lb. (In-lists hold DEP edges only: the
 * ANTI edges go into the sink.) */
static bool reach_back(psi_acyc *g, uint32_t dst, uint64_t lb)
{
    g->cur.n = 0;
    g->bmark[dst] = g->epoch;
    if (!psi_u32_push(&g->cur, dst))
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
            if (!psi_u32_push(&g->cur, w))
                return false;
        }
    }
    return true;
}

/* Internal edge e (active, or about to be) stands for ANTI edge a->b: a
 * conflict when b reaches a over active DEP edges. The order bounds every
 * such path (b before a), so most ANTI edges need no search at all; the
 * 0-1 BFS finds a path with the fewest labelled edges, for a short
 * clause. */
static int anti_check(psi_acyc *g, uint32_t e, psi_theory_out *out)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    assert(u->kind == PSI_EDGE_ANTI);
    if (!backward(g, u))
        return PSI_THEORY_OK;
    bool nomem = false;
    new_epoch(g);
    if (!psi_acyc_search_forward(g, u->to, u->from, 0, &nomem))
        return nomem ? PSI_THEORY_ENOMEM : PSI_THEORY_OK;
    g->st.psi_conflicts++;
    return psi_acyc_record_cycle(g, e, &out->clause) ? PSI_THEORY_CONFLICT : PSI_THEORY_ENOMEM;
}

/* Recomputes the running maxima of the tails' labels from entry i on. */
static void bw_maxima(psi_acyc *g, size_t i)
{
    uint64_t m = i ? g->bw[i - 1].pm : 0;
    for (; i < g->bw_n; i++) {
        uint64_t t = g->ord[g->bw[i].tail];
        m = t > m ? t : m;
        g->bw[i].pm = m;
    }
}

/* The first entry whose head is positioned after lab. */
static size_t bw_upper(const psi_acyc *g, uint64_t lab)
{
    size_t lo = 0, hi = g->bw_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->ord[g->bw[mid].head] <= lab)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_lab(const void *x, const void *y)
{
    uint64_t a = ((const lab_node *)x)->lab, b = ((const lab_node *)y)->lab;
    return a < b ? -1 : a > b;
}

/* Merges the k new entries in g->sortbuf (node: internal edge), sorted
 * here by head label, into bw, whose room the caller has made. */
static void bw_merge(psi_acyc *g, size_t k)
{
    for (size_t j = 0; j < k; j++)
        g->sortbuf[j].lab = g->ord[g->ue[g->ie_user[g->sortbuf[j].node]].to];
    if (k > 1)
        qsort(g->sortbuf, k, sizeof *g->sortbuf, cmp_lab);
    size_t i = g->bw_n, w = g->bw_n + k, n = w;
    assert(n <= g->bw_cap);
    while (k) {
        const lab_node *s = &g->sortbuf[k - 1];
        if (i && g->ord[g->bw[i - 1].head] > s->lab) {
            g->bw[--w] = g->bw[--i];
            continue;
        }
        const uedge *u = &g->ue[g->ie_user[s->node]];
        g->bw[--w] = (psi_bw){s->node, u->to, u->from, 0};
        k--;
    }
    g->bw_n = n;
}

/* Adds internal ANTI edge e to the k-th slot of g->sortbuf if it is
 * active, backward and not listed yet (room made by the caller). */
static void bw_take(psi_acyc *g, uint32_t e, size_t *k)
{
    uedge *u = &g->ue[g->ie_user[e]];
    if (u->inbw || !u->active || !backward(g, u))
        return;
    u->inbw = 1;
    g->sortbuf[(*k)++] = (lab_node){0, e};
}

bool psi_acyc_psi_tables(psi_acyc *g)
{
    free(g->hant_start);
    free(g->hant);
    g->hant = NULL;
    g->hant_start = calloc((size_t)g->nodes + 1, sizeof *g->hant_start);
    if (!g->hant_start)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < g->ue_n; i++)
        if (g->ue[i].kind == PSI_EDGE_ANTI && !g->ue[i].dead)
            g->hant_start[g->ue[i].to + 1]++, n++;
    for (uint32_t v = 0; v < g->nodes; v++)
        g->hant_start[v + 1] += g->hant_start[v];
    if (!(g->hant = malloc((n ? n : 1) * sizeof *g->hant)))
        return false;
    for (size_t i = 0; i < g->ue_n; i++)
        if (g->ue[i].kind == PSI_EDGE_ANTI && !g->ue[i].dead)
            g->hant[g->hant_start[g->ue[i].to]++] = g->ue[i].ie;
    for (uint32_t v = g->nodes; v > 0; v--)
        g->hant_start[v] = g->hant_start[v - 1];
    g->hant_start[0] = 0;
    return true;
}

int psi_acyc_psi_anti(psi_acyc *g, uint32_t e, psi_theory_out *out)
{
    int rc = anti_check(g, e, out);
    uedge *u = &g->ue[g->ie_user[e]];
    if (rc != PSI_THEORY_OK || !g->psi_eager || u->inbw || !backward(g, u))
        return rc;
    /* About to go in, backwards: list it. (If the activation fails after
     * all, the entry stays, inactive, as after a backtrack.) */
    if (!psi_grow_array((void **)&g->bw, &g->bw_cap, g->bw_n + 1, sizeof *g->bw))
        return PSI_THEORY_ENOMEM;
    size_t p = bw_upper(g, g->ord[u->to]);
    for (size_t i = g->bw_n; i > p; i--)
        g->bw[i] = g->bw[i - 1];
    g->bw[p] = (psi_bw){e, u->to, u->from, 0};
    g->bw_n++;
    u->inbw = 1;
    bw_maxima(g, p);
    return PSI_THEORY_OK;
}

bool psi_acyc_psi_moved(psi_acyc *g)
{
    if (!g->psi_eager)
        return true;
    const u32vec *side = g->moved_fwd ? &g->fwd : &g->bwd;
    const uint32_t *mark = g->moved_fwd ? g->fmark : g->bmark;
    /* Room first, so that nothing below fails half done. */
    size_t room = 0;
    for (size_t i = 0; i < side->n; i++) {
        uint32_t v = side->a[i];
        if (v < g->nodes) /* the sink (which may move) is no ANTI edge's end */
            room += g->out[v].n + (g->hant_start[v + 1] - g->hant_start[v]);
    }
    if (!psi_grow_array((void **)&g->sortbuf, &g->sortbuf_cap, room ? room : 1,
                        sizeof *g->sortbuf) ||
        !psi_grow_array((void **)&g->bw, &g->bw_cap, g->bw_n + room, sizeof *g->bw)) {
        g->psi_clean = false; /* bw is out of order now: the next prepare starts over */
        return false;
    }
    /* Entries whose head moved leave; inactive and forward ones too. The
     * rest keep their relative order (only moved nodes change theirs). */
    size_t w = 0;
    for (size_t i = 0; i < g->bw_n; i++) {
        psi_bw b = g->bw[i];
        uedge *u = &g->ue[g->ie_user[b.ie]];
        if (mark[b.head] == g->epoch || !u->active || !backward(g, u)) {
            u->inbw = 0;
            continue;
        }
        g->bw[w++] = b;
    }
    g->bw_n = w;
    /* Backward ANTI edges at the moved nodes, as tails or heads. */
    size_t k = 0;
    for (size_t i = 0; i < side->n; i++) {
        uint32_t v = side->a[i];
        if (v == g->nodes)
            continue;
        const adjvec *o = &g->out[v];
        for (uint32_t j = 0; j < o->n; j++)
            if (o->a[j].node == g->nodes)
                bw_take(g, o->a[j].edge, &k);
        for (uint32_t j = g->hant_start[v]; j < g->hant_start[v + 1]; j++)
            bw_take(g, g->hant[j], &k);
    }
    bw_merge(g, k);
    bw_maxima(g, 0);
    return true;
}

int psi_acyc_psi_dep(psi_acyc *g, uint32_t e, psi_theory_out *out)
{
    if (!g->psi_eager)
        return PSI_THEORY_OK;
    uint32_t x = ie_src(g, e), y = ie_dst(g, e);
    uint64_t ox = g->ord[x], oy = g->ord[y];
    assert(ox < oy && g->act_n && g->act[g->act_n - 1].ie == e);
    /* Windows [b, a] holding x and y: heads up to x, tails from y on. */
    size_t k = 0;
    uint64_t ub = 0;
    for (size_t i = bw_upper(g, ox); i-- > 0 && g->bw[i].pm >= oy;) {
        const psi_bw *b = &g->bw[i];
        uint64_t ot = g->ord[b->tail];
        if (ot < oy || !g->ue[g->ie_user[b->ie]].active)
            continue;
        if (!psi_grow_array((void **)&g->sortbuf, &g->sortbuf_cap, k + 1, sizeof *g->sortbuf))
            return PSI_THEORY_ENOMEM;
        g->sortbuf[k++] = (lab_node){g->ord[b->head], b->ie};
        ub = ot > ub ? ot : ub;
    }
    if (!k)
        return PSI_THEORY_OK;
    g->st.psi_dep_searches++;
    new_epoch(g);
    if (!reach_forward(g, y, ub))
        return PSI_THEORY_ENOMEM;
    size_t r = 0;
    uint64_t lb = UINT64_MAX;
    for (size_t j = 0; j < k; j++)
        if (g->fmark[g->ue[g->ie_user[g->sortbuf[j].node]].from] == g->epoch) {
            lb = g->sortbuf[j].lab < lb ? g->sortbuf[j].lab : lb;
            g->sortbuf[r++] = g->sortbuf[j];
        }
    if (!r)
        return PSI_THEORY_OK;
    if (!reach_back(g, x, lb))
        return PSI_THEORY_ENOMEM;
    for (size_t j = 0; j < r; j++) {
        uint32_t ae = g->sortbuf[j].node;
        if (g->bmark[g->ue[g->ie_user[ae]].to] != g->epoch)
            continue;
        /* b ->* x -> y ->* a: the BFS finds it (or a shorter one). */
        int rc = anti_check(g, ae, out);
        assert(rc != PSI_THEORY_OK);
        g->st.psi_dep_conflicts += rc == PSI_THEORY_CONFLICT;
        return rc;
    }
    return PSI_THEORY_OK;
}

int psi_acyc_psi_prepare(psi_acyc *g, psi_theory_out *out)
{
    if (!g->psi_eager)
        return PSI_THEORY_OK;
    /* bw afresh: the active ANTI edges are the sink's in-list. */
    for (size_t i = 0; i < g->bw_n; i++)
        g->ue[g->ie_user[g->bw[i].ie]].inbw = 0;
    g->bw_n = 0;
    const adjvec *in = &g->in[g->nodes];
    size_t k = 0; /* room for the backward ones only: a few in a hundred */
    for (uint32_t i = 0; i < in->n; i++) {
        const uedge *u = &g->ue[g->ie_user[in->a[i].edge]];
        k += u->active && backward(g, u);
    }
    if (!psi_grow_array((void **)&g->sortbuf, &g->sortbuf_cap, k ? k : 1, sizeof *g->sortbuf) ||
        !psi_grow_array((void **)&g->bw, &g->bw_cap, k ? k : 1, sizeof *g->bw))
        return PSI_THEORY_ENOMEM;
    k = 0;
    for (uint32_t i = 0; i < in->n; i++)
        bw_take(g, in->a[i].edge, &k);
    bw_merge(g, k);
    bw_maxima(g, 0);
    if (g->psi_clean)
        return PSI_THEORY_OK;
    /* The edges the static sort put in place (or any in place while
     * eager checks were off) were never checked: one search per head, up
     * to its furthest tail (entries of one head are adjacent in bw). */
    for (size_t lo = 0, hi; lo < g->bw_n; lo = hi) {
        uint32_t b = g->bw[lo].head;
        uint64_t ub = 0;
        for (hi = lo; hi < g->bw_n && g->bw[hi].head == b; hi++)
            ub = g->ord[g->bw[hi].tail] > ub ? g->ord[g->bw[hi].tail] : ub;
        new_epoch(g);
        if (!reach_forward(g, b, ub))
            return PSI_THEORY_ENOMEM;
        uint32_t epoch = g->epoch;
        for (size_t j = lo; j < hi; j++)
            if (g->fmark[g->bw[j].tail] == epoch) {
                int rc = anti_check(g, g->bw[j].ie, out);
                assert(rc != PSI_THEORY_OK);
                return rc; /* at the root: UNSAT */
            }
    }
    g->psi_clean = true;
    return PSI_THEORY_OK;
}
