/* Cycles of the acyclicity theory: finding them, and turning them into
 * clauses.
 *
 * Short cycles. The forward search is a 0-1 BFS in which an edge costs 1 if
 * it contributes literals and 0 if it is known (or active since the root),
 * so a cycle found is one with the fewest labelled edges through the new
 * edge, and the conflict clause is as short as this edge allows.
 *
 * Explanations. A label the theory implied false (acyclic_theory.c) is
 * explained only if the solver asks: by a path b->a, among the edges
 * activated before the implication (activation stamps say which), that the
 * inactive edge a->b would have closed into a cycle. */
#include "acyclic_internal.h"

#include <assert.h>

/* Appends the negated labels of internal edge e to clause, once per literal. */
static bool add_labels(psi_acyc *g, uint32_t e, psi_lits *clause)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    if (!u->need || u->root)
        return true;
    for (int k = 0; k < 2; k++) {
        int l = u->lit[k];
        if (!l)
            continue;
        size_t v = lit_var0(l);
        if (g->lit_mark[v] == g->lit_epoch)
            continue;
        g->lit_mark[v] = g->lit_epoch;
        if (!psi_lits_push(clause, -l))
            return false;
    }
    return true;
}

/* 0-1 BFS from src towards dst over active edges whose target is positioned
 * at most ord[dst] and, if stamp != 0, whose activation index is below the
 * stamp. Visited nodes (fmark == epoch) are listed in g->fwd. Returns true
 * if dst was reached; the path is then given by parent[]. */
bool psi_acyc_search_forward(psi_acyc *g, uint32_t src, uint32_t dst, uint32_t stamp, bool *nomem)
{
    uint64_t ub = g->ord[dst];
    g->fwd.n = g->cur.n = g->next.n = 0;
    g->fmark[src] = g->epoch;
    g->dist[src] = 0;
    if (!psi_u32_push(&g->fwd, src) || !psi_u32_push(&g->cur, src))
        return *nomem = true, false;
    uint32_t d = 0;
    while (g->cur.n) {
        while (g->cur.n) {
            uint32_t v = g->cur.a[--g->cur.n];
            if (g->dist[v] != d)
                continue; /* stale: improved later */
            if (v == dst)
                return true;
            g->st.visited++;
            const adjvec *o = &g->out[v];
            for (uint32_t i = 0; i < o->n; i++) {
                uint32_t w = o->a[i].node, e = o->a[i].edge;
                if (g->ord[w] > ub || (stamp && ie_act_of(g, e) > stamp))
                    continue;
                uint32_t nd = d + (labelled(g, e) ? 1u : 0u);
                if (g->fmark[w] == g->epoch) {
                    if (g->dist[w] <= nd)
                        continue;
                } else {
                    g->fmark[w] = g->epoch;
                    if (!psi_u32_push(&g->fwd, w))
                        return *nomem = true, false;
                }
                g->dist[w] = nd;
                g->parent[w] = e;
                if (!psi_u32_push(nd == d ? &g->cur : &g->next, w))
                    return *nomem = true, false;
            }
        }
        u32vec t = g->cur;
        g->cur = g->next;
        g->next = t;
        d++;
    }
    return false;
}

/* Builds the conflict for cycle: new edge e (x->y) plus the BFS path y->x
 * (PSI's ANTI edges: y is the user edge's head, cycle_head). */
bool psi_acyc_record_cycle(psi_acyc *g, uint32_t e, psi_lits *clause)
{
    uint32_t x = ie_src(g, e), y = cycle_head(g, e);
    g->cycle.n = 0;
    new_lit_epoch(g);
    clause->n = 0;
    if (!psi_u32_push(&g->cycle, g->ie_user[e]) || !add_labels(g, e, clause))
        return false;
    size_t first = g->cycle.n;
    for (uint32_t v = x; v != y;) {
        assert(g->fmark[v] == g->epoch); /* on the path the search found */
        uint32_t pe = g->parent[v];
        if (!psi_u32_push(&g->cycle, g->ie_user[pe]) || !add_labels(g, pe, clause))
            return false;
        v = ie_src(g, pe);
    }
    /* The path was collected backwards: reverse it into cycle order. */
    for (size_t i = first, j = g->cycle.n - 1; i < j; i++, j--) {
        uint32_t t = g->cycle.a[i];
        g->cycle.a[i] = g->cycle.a[j];
        g->cycle.a[j] = t;
    }
    g->st.conflicts++;
    g->st.conflict_lits += clause->n;
    return true;
}

/* The theory's explain callback (theory.h) for a label implied false. */
int psi_acyc_explain(void *ctx, int lit, psi_theory_out *out)
{
    psi_acyc *g = ctx;
    size_t var = lit_var0(lit);
    uint32_t e = g->prop_edge[var], stamp = g->prop_stamp[var];
    uint32_t a = ie_src(g, e), b = ie_dst(g, e);
    const uedge *u = &g->ue[g->ie_user[e]];
    bool nomem = false;
    g->st.explanations++;
    /* The edge is inactive with every label but the implied one true. */
    assert(!u->active && !u->dead);
    for (int k = 0; k < u->need; k++)
        assert(u->lit[k] == -lit || psi_sat_current_value(g->s, u->lit[k]) > 0);
    new_epoch(g);
    /* stamp 0 would mean "no filter"; a stamp is always >= 1 here because the
     * edge whose activation triggered the implication was on the stack. */
    if (!psi_acyc_search_forward(g, b, a, stamp, &nomem)) {
        assert(!"acyclic: explanation path missing");
        return PSI_THEORY_ENOMEM;
    }
    new_lit_epoch(g);
    out->clause.n = 0;
    if (!psi_lits_push(&out->clause, lit))
        return PSI_THEORY_ENOMEM;
    g->lit_mark[var] = g->lit_epoch;
    for (int k = 0; k < u->need; k++) {
        size_t v = lit_var0(u->lit[k]);
        if (g->lit_mark[v] != g->lit_epoch) {
            g->lit_mark[v] = g->lit_epoch;
            if (!psi_lits_push(&out->clause, -u->lit[k]))
                return PSI_THEORY_ENOMEM;
        }
    }
    for (uint32_t v = a; v != b;) {
        uint32_t pe = g->parent[v];
        assert(ie_act_of(g, pe) <= stamp); /* active before the implication */
        if (!add_labels(g, pe, &out->clause))
            return PSI_THEORY_ENOMEM;
        v = ie_src(g, pe);
    }
    g->st.explanation_lits += out->clause.n;
    return PSI_THEORY_OK;
}
