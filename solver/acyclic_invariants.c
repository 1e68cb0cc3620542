/* The debug checker of the acyclicity theory (see invariants.h for when it
 * runs): psi_acyc_check_invariants re-verifies by full scans the invariants
 * listed in acyclic_internal.h, which activation, reordering and
 * backtracking maintain incrementally: the order is a topological order of
 * the active edges, adjacency lists mirror each other and pop in LIFO
 * order, and the activation and assignment stacks agree with the edges and
 * with the solver's trail. */
#include "acyclic_internal.h"
#include "invariants.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static bool fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return false;
}

/* Per-internal-edge marks: found in an out list, in an in list. */
enum { M_OUT = 1, M_IN = 2 };

/* The order list holds every node once, linked both ways, with labels
 * increasing along it (that every active edge respects it: check_list). */
static bool check_order(const psi_acyc *g, uint8_t *used, char *why, size_t n)
{
    uint32_t prev = PSI_ACYC_NONE, count = 0;
    for (uint32_t v = g->ohead; v != PSI_ACYC_NONE; prev = v, v = g->onext[v]) {
        if (v >= g->N || used[v] || count++ >= g->N)
            return fail(why, n, "order list: node %u out of range or repeated", v);
        used[v] = 1;
        if (g->oprev[v] != prev)
            return fail(why, n, "order list: node %u links back to %u, not %u", v, g->oprev[v],
                        prev);
        if (prev != PSI_ACYC_NONE && g->ord[prev] >= g->ord[v])
            return fail(why, n, "order list: label of %u (%llu) not below that of %u (%llu)", prev,
                        (unsigned long long)g->ord[prev], v, (unsigned long long)g->ord[v]);
    }
    if (count != g->N)
        return fail(why, n, "order list holds %u of %u nodes", count, g->N);
    return true;
}

/* One adjacency list: edges really from/to v, known edges first, then
 * activated ones in increasing activation order (so backtracking can pop
 * the last), each in the topological order, none listed twice. */
static bool check_list(const psi_acyc *g, uint32_t v, bool out, uint8_t *emark, char *why, size_t n)
{
    const adjvec *l = out ? &g->out[v] : &g->in[v];
    uint32_t last_act = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t e = l->a[i].edge, w = l->a[i].node;
        uint8_t bit = out ? M_OUT : M_IN;
        if (e >= g->ie_n || (emark[e] & bit))
            return fail(why, n, "node %u lists edge %u twice or out of range", v, e);
        emark[e] |= bit;
        uint32_t from = out ? v : w, to = out ? w : v;
        if (ie_src(g, e) != from || ie_dst(g, e) != to)
            return fail(why, n, "edge %u listed as %u->%u, is %u->%u", e, from, to, ie_src(g, e),
                        ie_dst(g, e));
        const uedge *u = &g->ue[g->ie_user[e]];
        if (u->dead)
            return fail(why, n, "edge %u of a contradictory label is active", e);
        bool known = ie_act_of(g, e) == 0; /* put in place by the static sort */
        if (known ? u->need || last_act : ie_act_of(g, e) <= last_act)
            return fail(why, n, "node %u: edge %u breaks the LIFO order of its list", v, e);
        last_act = ie_act_of(g, e);
        if (!g->static_cycle && g->ord[from] >= g->ord[to])
            return fail(why, n, "active edge %u->%u against the order (%llu >= %llu)", from, to,
                        (unsigned long long)g->ord[from], (unsigned long long)g->ord[to]);
    }
    return true;
}

/* The activation stack: running maxima right, each edge at its labels'
 * highest level, indices match ie_act, every entry is in both lists, and
 * nothing else carries an activation index. */
static bool check_activations(const psi_acyc *g, const uint8_t *emark, char *why, size_t n)
{
    for (size_t i = 0; i < g->act_n; i++) {
        uint32_t e = g->act[i].ie;
        if (e >= g->ie_n || ie_act_of(g, e) != i + 1 || emark[e] != (M_OUT | M_IN))
            return fail(why, n, "activation %zu (edge %u) is not in the graph", i, e);
        uint32_t pmax =
            i && g->act[i - 1].pmax > g->act[i].level ? g->act[i - 1].pmax : g->act[i].level;
        if (g->act[i].pmax != pmax)
            return fail(why, n, "activation %zu: running maximum %u, expected %u", i,
                        g->act[i].pmax, pmax);
        /* The edge's level is that of its highest label. */
        const uedge *u = &g->ue[g->ie_user[e]];
        uint32_t lv = 0;
        for (int k = 0; k < u->need; k++) {
            size_t var = lit_var0(u->lit[k]);
            if (var < g->var_cap && g->val[var] && g->lvl[var] > lv)
                lv = g->lvl[var];
        }
        if (lv != g->act[i].level)
            return fail(why, n, "activation %zu at level %u, its labels' highest is %u", i,
                        g->act[i].level, lv);
    }
    for (size_t e = 0; e < g->ie_n; e++) {
        if (ie_act_of(g, e) > g->act_n)
            return fail(why, n, "edge %zu has activation index %u of %zu", e, ie_act_of(g, e),
                        g->act_n);
        if (emark[e] != 0 && emark[e] != (M_OUT | M_IN))
            return fail(why, n, "edge %zu is in only one of its adjacency lists", e);
    }
    return true;
}

/* Notified literals: running maxima right, val and lvl agree, each is still
 * true in the solver (at the root exactly when notified at level 0). */
static bool check_assignments(const psi_acyc *g, char *why, size_t n)
{
    size_t set = 0;
    for (size_t i = 0; i < g->asg_n; i++) {
        int lit = g->asg[i].lit;
        size_t var = lit_var0(lit);
        uint32_t pmax =
            i && g->asg[i - 1].pmax > g->asg[i].level ? g->asg[i - 1].pmax : g->asg[i].level;
        if (g->asg[i].pmax != pmax)
            return fail(why, n, "notification %zu: running maximum %u, expected %u", i,
                        g->asg[i].pmax, pmax);
        if (var >= g->var_cap || g->val[var] != (lit > 0 ? 1 : -1) ||
            g->lvl[var] != g->asg[i].level)
            return fail(why, n, "notified literal %d has value %d", lit,
                        var < g->var_cap ? g->val[var] : 0);
        if (psi_sat_current_value(g->s, lit) <= 0 ||
            (psi_sat_root_value(g->s, lit) > 0) != (g->asg[i].level == 0))
            return fail(why, n, "notified literal %d (level %u) disagrees with the solver", lit,
                        g->asg[i].level);
    }
    for (size_t v = 0; v < g->var_cap; v++)
        set += g->val[v] != 0;
    if (set != g->asg_n)
        return fail(why, n, "%zu variables valued, %zu notified", set, g->asg_n);
    return true;
}

/* User edges: cnt counts the labels true in val; an edge is active exactly
 * when all its internal edges are in the graph, and once the theory has
 * taken it in (prepare ran since it was added) exactly when all its labels
 * are true. */
static bool check_user_edges(const psi_acyc *g, const uint8_t *emark, char *why, size_t n)
{
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->dead)
            continue;
        uint32_t cnt = 0, in = 0;
        for (int k = 0; k < u->need; k++) {
            size_t var = lit_var0(u->lit[k]);
            cnt += var < g->var_cap && g->val[var] == (u->lit[k] > 0 ? 1 : -1);
        }
        for (uint32_t j = 0; j < u->nie; j++)
            in += emark[u->ie + j] != 0;
        if (cnt != u->cnt)
            return fail(why, n, "user edge %zu: cnt %u, but %u labels are true", i, u->cnt, cnt);
        if ((in && in != u->nie) || u->active != (in == u->nie))
            return fail(why, n, "user edge %zu: active %u, %u of %u internal edges in", i,
                        u->active, in, u->nie);
        if (g->ordered && i < g->ue_done && u->active != (cnt == u->need))
            return fail(why, n, "user edge %zu: %u of %u labels true, active %u", i, cnt, u->need,
                        u->active);
    }
    return true;
}

/* PSI mode with eager checks (acyclic_psi.c): bw lists each active
 * backward ANTI edge, once, in the order of its heads' labels, with the
 * running maxima of its tails' labels, and no active ANTI edge's head
 * reaches its tail over active DEP edges (searched here from scratch, per
 * backward ANTI edge, bounded by its tail's label). */
static bool check_psi(const psi_acyc *g, uint32_t *seen, uint32_t *stack, char *why, size_t n)
{
    size_t flagged = 0;
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        flagged += u->inbw;
        if (u->kind == PSI_EDGE_ANTI && u->active && u->from != u->to &&
            g->ord[u->to] < g->ord[u->from] && !u->inbw)
            return fail(why, n, "active backward ANTI edge %zu (%u->%u) not listed", i, u->from,
                        u->to);
    }
    if (flagged != g->bw_n)
        return fail(why, n, "%zu ANTI edges marked listed, %zu listed", flagged, g->bw_n);
    uint64_t pm = 0;
    for (size_t i = 0; i < g->bw_n; i++) {
        const psi_bw *b = &g->bw[i];
        const uedge *u = b->ie < g->ie_n ? &g->ue[g->ie_user[b->ie]] : NULL;
        if (!u || u->kind != PSI_EDGE_ANTI || !u->inbw || u->to != b->head || u->from != b->tail)
            return fail(why, n, "bw entry %zu (edge %u) is not the ANTI edge it names", i, b->ie);
        if (i && g->ord[g->bw[i - 1].head] > g->ord[b->head])
            return fail(why, n, "bw entry %zu: head %u placed before the previous entry's", i,
                        b->head);
        pm = g->ord[b->tail] > pm ? g->ord[b->tail] : pm;
        if (b->pm != pm)
            return fail(why, n, "bw entry %zu: running maximum %llu, expected %llu", i,
                        (unsigned long long)b->pm, (unsigned long long)pm);
    }
    /* Entries are distinct: flags and entries count alike and each entry's
     * edge is flagged, so a repeat would leave a flagged edge unlisted. */
    for (size_t i = 0; i < g->bw_n; i++) {
        const uedge *u = &g->ue[g->ie_user[g->bw[i].ie]];
        if (!u->active || g->ord[u->to] >= g->ord[u->from])
            continue;
        uint32_t sp = 0, mark = (uint32_t)i + 1;
        seen[u->to] = mark;
        stack[sp++] = u->to;
        while (sp) {
            uint32_t v = stack[--sp];
            if (v == u->from)
                return fail(why, n, "ANTI edge %u->%u: its head reaches its tail", u->from, u->to);
            for (uint32_t j = 0; j < g->out[v].n; j++) {
                uint32_t w = g->out[v].a[j].node;
                if (w != g->nodes && g->ord[w] <= g->ord[u->from] && seen[w] != mark) {
                    seen[w] = mark;
                    stack[sp++] = w;
                }
            }
        }
    }
    return true;
}

bool psi_acyc_check_invariants(const psi_acyc *g, char *why, size_t why_n)
{
    uint8_t *used = calloc(g->N ? g->N : 1, 1);
    uint8_t *emark = calloc(g->ie_n ? g->ie_n : 1, 1);
    bool ok = true;
    if (!used || !emark)
        goto out; /* without memory for the scratch the scan is skipped */
    ok = !g->ordered || check_order(g, used, why, why_n);
    for (uint32_t v = 0; ok && v < g->N; v++)
        ok =
            check_list(g, v, true, emark, why, why_n) && check_list(g, v, false, emark, why, why_n);
    ok = ok && check_activations(g, emark, why, why_n) && check_assignments(g, why, why_n) &&
         check_user_edges(g, emark, why, why_n);
    if (ok && g->mode == PSI_ACYC_PSI && g->psi_eager && g->psi_clean && !g->static_cycle) {
        uint32_t *seen = calloc(g->N, sizeof *seen), *stack = malloc(g->N * sizeof *stack);
        if (seen && stack)
            ok = check_psi(g, seen, stack, why, why_n);
        free(seen);
        free(stack);
    }
out:
    free(used);
    free(emark);
    return ok;
}

void psi_acyc_check_or_die(const psi_acyc *g)
{
    char why[256];
    if (!psi_acyc_check_invariants(g, why, sizeof why))
        psi_check_fail("acyclic", why);
}
