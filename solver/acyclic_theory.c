/* The acyclicity theory's callbacks (theory.h): prepare puts the known
 * edges in place, notify activates the edges whose labels all became true,
 * backtrack removes them again in LIFO order, and explain lives in
 * acyclic_cycle.c.
 *
 * Theory propagation. After a reorder, both search sides are known: forward
 * side F (reached from y) and backward side B (reaching x). Any inactive
 * edge from F to B would now close a cycle, so its last unassigned label is
 * implied false. Its reason is computed only if asked (acyclic_cycle.c),
 * from the one edge recorded per variable: so a notification implies each
 * variable once (lit_mark, fresh per notification). A later edge implying
 * the opposite polarity would overwrite the reason of the first, which the
 * solver may still have to explain; it is left to activation instead,
 * which finds its cycle once the first implication is assigned. */
#include "acyclic_internal.h"

#include <assert.h>
#include <stdlib.h>

/* Labels of inactive edges from the forward side into the backward side
 * would close a cycle: imply their last open label false. */
static bool propagate_candidates(psi_acyc *g, psi_theory_out *out)
{
    for (size_t i = 0; i < g->fwd.n; i++) {
        uint32_t a = g->fwd.a[i];
        for (uint32_t k = g->cand_start[a]; k < g->cand_start[a + 1]; k++) {
            uint32_t e = g->cand[k];
            if (g->bmark[ie_dst(g, e)] != g->epoch)
                continue;
            const uedge *u = &g->ue[g->ie_user[e]];
            if (u->active || u->dead)
                continue;
            int open = 0, nopen = 0;
            bool blocked = false;
            for (int j = 0; j < u->need; j++) {
                int v = psi_sat_current_value(g->s, u->lit[j]);
                if (v < 0)
                    blocked = true;
                else if (v == 0)
                    open = u->lit[j], nopen++;
            }
            if (blocked || nopen != 1)
                continue;
            size_t var = lit_var0(open);
            if (g->lit_mark[var] == g->lit_epoch)
                continue; /* implied once already in this notification */
            g->lit_mark[var] = g->lit_epoch;
            if (!psi_lits_push(&out->implied, -open))
                return false;
            g->prop_edge[var] = e;
            g->prop_stamp[var] = (uint32_t)g->act_n;
            g->st.propagations++;
        }
    }
    return true;
}

/* Activates internal edge e at level. Returns PSI_THEORY_OK, CONFLICT (clause
 * in out) or ENOMEM. */
static int activate(psi_acyc *g, uint32_t e, uint32_t level, psi_theory_out *out)
{
    uint32_t x = ie_src(g, e), y = ie_dst(g, e);
    bool searched = false, nomem = false;
    g->st.activations++;
    if (x == y) {
        g->parent[x] = e; /* unused: the path y->x is empty */
        return psi_acyc_record_cycle(g, e, &out->clause) ? PSI_THEORY_CONFLICT : PSI_THEORY_ENOMEM;
    }
    if (g->ord[x] > g->ord[y]) {
        new_epoch(g);
        int r = psi_acyc_restore_order(g, x, y);
        if (r < 0)
            return PSI_THEORY_ENOMEM;
        if (r > 0) {
            /* y reaches x. The two-way search stops at any path; the 0-1 BFS
             * finds one with the fewest labelled edges, for a short clause.
             * It cannot miss: the order, untouched, bounds every y->x path. */
            new_epoch(g);
            bool found = psi_acyc_search_forward(g, y, x, 0, &nomem);
            assert(found || nomem);
            if (!found)
                return PSI_THEORY_ENOMEM;
            return psi_acyc_record_cycle(g, e, &out->clause) ? PSI_THEORY_CONFLICT
                                                             : PSI_THEORY_ENOMEM;
        }
        searched = true;
        if (g->mode == PSI_ACYC_PSI && !psi_acyc_psi_moved(g))
            return PSI_THEORY_ENOMEM;
    }
    assert(g->ord[x] < g->ord[y]); /* the order stays topological */
    bool psi_dep = false;
    if (g->mode == PSI_ACYC_PSI) {
        if (g->ue[g->ie_user[e]].kind == PSI_EDGE_ANTI) {
            int rc = psi_acyc_psi_anti(g, e, out);
            if (rc != PSI_THEORY_OK)
                return rc;
        } else {
            psi_dep = true;
        }
    }
    if ((g->act_n == g->act_cap &&
         !psi_grow_array((void **)&g->act, &g->act_cap, g->act_n + 1, sizeof *g->act)) ||
        !adj_push(&g->out[x], y, e))
        return PSI_THEORY_ENOMEM;
    if (!adj_push(&g->in[y], x, e)) {
        g->out[x].n--;
        return PSI_THEORY_ENOMEM;
    }
    uint32_t pmax =
        g->act_n && g->act[g->act_n - 1].pmax > level ? g->act[g->act_n - 1].pmax : level;
    g->act[g->act_n++] = (act_entry){e, level, pmax};
    ie_act_set(g, e, (uint32_t)g->act_n);
    if (searched && g->propagate && level > 0 && !propagate_candidates(g, out))
        return PSI_THEORY_ENOMEM;
    if (psi_dep) {
        /* After the propagation, which reads the reorder's marks. A
         * conflict takes the edge out again (and the solver drops what
         * was implied). */
        int rc = psi_acyc_psi_dep(g, e, out);
        if (rc != PSI_THEORY_OK) {
            g->act_n--;
            ie_act_set(g, e, 0);
            g->out[x].n--;
            g->in[y].n--;
            return rc;
        }
    }
    return PSI_THEORY_OK;
}

/* Activates user edge id, whose labels are all true, at the highest level of
 * its labels (which, out of order, may be below the level of the literal
 * just notified): a backtrack removes it exactly when a label goes. */
static int activate_user(psi_acyc *g, uint32_t id, psi_theory_out *out)
{
    uedge *u = &g->ue[id];
    uint32_t level = 0;
    for (int j = 0; j < u->need; j++) {
        size_t var = lit_var0(u->lit[j]);
        assert(g->val[var] == (u->lit[j] > 0 ? 1 : -1));
        if (g->lvl[var] > level)
            level = g->lvl[var];
    }
    for (uint32_t j = 0; j < u->nie; j++) {
        int rc = activate(g, u->ie + j, level, out);
        if (rc != PSI_THEORY_OK)
            return rc;
    }
    u->active = 1;
    u->root = level == 0;
    return PSI_THEORY_OK;
}

static int cb_prepare(void *ctx, psi_theory_out *out)
{
    psi_acyc *g = ctx;
    if (!psi_acyc_build_tables(g))
        return PSI_THEORY_ENOMEM;
    bool first = !g->ordered;
    if (!psi_acyc_static_setup(g))
        return PSI_THEORY_ENOMEM;
    if (g->static_cycle) {
        g->cycle.n = 0;
        for (size_t i = 0; i < g->known_cycle.n; i++)
            if (!psi_u32_push(&g->cycle, g->known_cycle.a[i]))
                return PSI_THEORY_ENOMEM;
        out->clause.n = 0;
        return PSI_THEORY_CONFLICT;
    }
    if (g->mode == PSI_ACYC_PSI) {
        int rc = psi_acyc_psi_prepare(g, out);
        if (rc != PSI_THEORY_OK)
            return rc; /* at the root: UNSAT */
    }
    for (size_t i = first ? 0 : g->ue_done; i < g->ue_n; i++) {
        uedge *u = &g->ue[i];
        if (u->dead || u->active)
            continue;
        if (u->cnt == u->need) {
            int rc = activate_user(g, (uint32_t)i, out);
            if (rc != PSI_THEORY_OK)
                return rc; /* a conflict here holds at the root: UNSAT */
        }
    }
    g->ue_done = g->ue_n;
    return PSI_THEORY_OK;
}

/* Removes act[from..act_n) from the graph, newest first (the adjacency
 * lists are LIFO), and marks their user edges inactive. */
static void pop_activations(psi_acyc *g, size_t from)
{
    while (g->act_n > from) {
        uint32_t e = g->act[--g->act_n].ie;
        uint32_t x = ie_src(g, e), y = ie_dst(g, e);
        assert(g->out[x].n && g->out[x].a[g->out[x].n - 1].edge == e);
        assert(g->in[y].n && g->in[y].a[g->in[y].n - 1].edge == e);
        g->out[x].n--;
        g->in[y].n--;
        ie_act_set(g, e, 0);
        g->ue[g->ie_user[e]].active = 0;
    }
}

/* Forgets the notification of lit: its value and the counts it raised. */
static void unassign(psi_acyc *g, int lit)
{
    g->val[lit_var0(lit)] = 0;
    size_t li = lit_index(lit);
    if (li >= g->occ_lits)
        return;
    for (uint32_t k = g->occ_start[li]; k < g->occ_start[li + 1]; k++) {
        assert(g->ue[g->occ[k]].cnt > 0);
        g->ue[g->occ[k]].cnt--;
    }
}

static int cb_notify(void *ctx, int lit, unsigned level, psi_theory_out *out)
{
    psi_acyc *g = ctx;
    size_t var = lit_var0(lit);
    if (var >= g->var_cap && !psi_acyc_ensure_vars(g, var + 1))
        return PSI_THEORY_ENOMEM;
    if (g->asg_n == g->asg_cap &&
        !psi_grow_array((void **)&g->asg, &g->asg_cap, g->asg_n + 1, sizeof *g->asg))
        return PSI_THEORY_ENOMEM;
    /* Each literal is notified once, in trail order (levels may drop: the
     * solver backtracks chronologically). */
    assert(g->val[var] == 0 && psi_sat_current_value(g->s, lit) > 0);
    g->val[var] = lit > 0 ? 1 : -1;
    g->lvl[var] = level;
    uint32_t pmax =
        g->asg_n && g->asg[g->asg_n - 1].pmax > level ? g->asg[g->asg_n - 1].pmax : level;
    g->asg[g->asg_n++] = (asg_entry){lit, level, pmax};
    new_lit_epoch(g); /* marks of the variables this notification implies */
    size_t li = lit_index(lit);
    if (li >= g->occ_lits)
        return PSI_THEORY_OK;
    size_t act0 = g->act_n;
    for (uint32_t k = g->occ_start[li]; k < g->occ_start[li + 1]; k++) {
        assert(g->ue[g->occ[k]].cnt < g->ue[g->occ[k]].need);
        g->ue[g->occ[k]].cnt++;
    }
    int rc = PSI_THEORY_OK;
    for (uint32_t k = g->occ_start[li]; k < g->occ_start[li + 1] && rc == PSI_THEORY_OK; k++) {
        uedge *u = &g->ue[g->occ[k]];
        if (u->cnt < u->need || u->active)
            continue;
        rc = activate_user(g, g->occ[k], out);
    }
    if (rc == PSI_THEORY_CONFLICT) {
        /* Undo the whole notification (theory.h): a chronological
         * backtrack may keep lit while removing the cycle, and then the
         * solver notifies lit again and its edges get their chance. */
        pop_activations(g, act0);
        unassign(g, lit);
        g->asg_n--;
    }
    return rc;
}

/* Drops what was notified above level. Entries at or below level that come
 * after one above it (out of order) stay: their suffix is taken off the
 * adjacency lists and the kept ones go back in their old order, so lists
 * stay LIFO and the order stays valid (removing edges never breaks it). An
 * implication's activation stamp stays valid: the entries before it all lie
 * at or below its level, so if it survives they are untouched. */
static void cb_backtrack(void *ctx, unsigned level)
{
    psi_acyc *g = ctx;
    size_t from = g->act_n;
    while (from && g->act[from - 1].pmax > level)
        from--;
    if (from < g->act_n) {
        size_t n = g->act_n;
        pop_activations(g, from); /* leaves act[from..n) in place */
        size_t w = from;
        for (size_t i = from; i < n; i++) {
            act_entry a = g->act[i];
            if (a.level > level)
                continue;
            uint32_t e = a.ie;
            /* Cannot fail: the lists held these edges a moment ago. */
            (void)adj_push(&g->out[ie_src(g, e)], ie_dst(g, e), e);
            (void)adj_push(&g->in[ie_dst(g, e)], ie_src(g, e), e);
            a.pmax = w && g->act[w - 1].pmax > a.level ? g->act[w - 1].pmax : a.level;
            g->act[w++] = a;
            ie_act_set(g, e, (uint32_t)w);
            /* A user edge's internal edges share one level: all stay. */
            g->ue[g->ie_user[e]].active = 1;
        }
        g->act_n = w;
    }
    from = g->asg_n;
    while (from && g->asg[from - 1].pmax > level)
        from--;
    size_t w = from;
    for (size_t i = from; i < g->asg_n; i++) {
        asg_entry a = g->asg[i];
        if (a.level > level) {
            unassign(g, a.lit);
            continue;
        }
        a.pmax = w && g->asg[w - 1].pmax > a.level ? g->asg[w - 1].pmax : a.level;
        g->asg[w++] = a;
    }
    g->asg_n = w;
    /* Every conflict ends in a backtrack, so this also checks after each. */
    if (PSI_CHECKING && psi_check_due(&g->check, g->N + 2 * g->ie_n + g->ue_n + g->var_cap))
        psi_acyc_check_or_die(g);
}

void psi_acyc_attach(psi_acyc *g)
{
    psi_theory t = {g, cb_prepare, cb_notify, psi_acyc_explain, cb_backtrack};
    psi_sat_set_theory(g->s, &t);
}
