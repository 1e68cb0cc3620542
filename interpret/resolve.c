/* Resolve and Finalize (Algorithm 3) on a minimized violation: settle every
 * writer pair one of whose orders closes a forbidden cycle with what is
 * certain or already settled, to a fixpoint; then present what remains:
 * certain and decided edges, the writer pair(s) that can be ordered
 * neither way, and the cycle each of their orders closes. */
#include "interpret/local.h"

#include "core/graph.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Cycles shown at most when several open pairs need a case split. */
#define MAX_CASES 16u

enum { OPEN = 0, EITHER = 1, OR = 2 };

typedef struct pres {
    const psi_sub_polygraph *L;
    bool ser;
    uint8_t *act, *thr;
    uint32_t *cyc;
    psi_graph_bfs bfs;
    uint8_t *state; /* per constraint, as the replay goes */
    uint8_t *fin;   /* per constraint, after the fixpoint */
    uint32_t *cho;  /* per constraint: choice index, UINT32_MAX if none */
    uint32_t *map;  /* sub-history edge -> cex edge, UINT32_MAX */
    psi_cex *cex;
    size_t cap_idx, cap_cycles, cap_conds;
} pres;

static void set_active(pres *p)
{
    const psi_sub_polygraph *L = p->L;
    for (uint32_t i = 0; i < L->n_e; i++) {
        const psi_sub_edge *e = &L->e[i];
        p->act[i] = e->on && (e->cons < 0 || p->state[e->cons] == (e->side ? OR : EITHER));
        p->thr[i] = 0;
    }
}

/* A shortest forbidden cycle among the edges p->act marks, through one
 * that `through` marks (any when NULL), as edge indices in p->cyc. Returns
 * its length, 0 when there is none, -1 when out of memory. */
static int find_cycle(pres *p, const uint8_t *through)
{
    const psi_sub_polygraph *L = p->L;
    psi_edge_view v = {
        .first = L->n_e ? &L->e[0].e : NULL, .stride = sizeof *L->e, .n = L->n_e, .active = p->act};
    /* Edge-list order of successors: which of several shortest cycles is
     * shown depends on it. */
    psi_graph g;
    unsigned flags = (p->ser ? 0u : PSI_GRAPH_SI) | PSI_GRAPH_EDGE_ORDER;
    if (psi_graph_build(&g, L->n_nodes, &v, flags, NULL) != PSI_OK)
        return -1;
    uint32_t len = psi_graph_shortest_cycle(&g, &p->bfs, &v, through, p->cyc);
    psi_graph_free(&g);
    return (int)len;
}

/* Does side `side` of constraint c close a forbidden cycle now? */
static int side_cycle(pres *p, uint32_t c, int side)
{
    const psi_sub_polygraph *L = p->L;
    set_active(p);
    bool any = false;
    for (uint32_t i = 0; i < L->n_e; i++)
        if (L->e[i].on && L->e[i].cons == (int32_t)c && L->e[i].side == side)
            p->act[i] = p->thr[i] = 1, any = true;
    if (!any)
        return 0;
    return find_cycle(p, p->thr);
}

static uint32_t cex_edge_side(pres *p, uint32_t i, uint8_t origin, uint32_t choice)
{
    if (p->map[i] != UINT32_MAX)
        return p->map[i];
    const psi_sub_edge *e = &p->L->e[i];
    psi_cex *cex = p->cex;
    cex->edges[cex->n_edges] = (psi_cex_edge){.from = p->L->node_txn[e->e.from],
                                              .to = p->L->node_txn[e->e.to],
                                              .key = e->e.key,
                                              .type = e->e.type,
                                              .origin = origin,
                                              .side = e->side,
                                              .choice = choice};
    return p->map[i] = cex->n_edges++;
}

static uint32_t cex_edge(pres *p, uint32_t i, uint8_t origin, uint32_t choice)
{
    return cex_edge_side(p, i, origin, choice);
}

/* Appends the cycle c[0..len) (sub-history edge indices) that exists under
 * the conditions cond[0..n_cond). */
static bool add_cycle(pres *p, const uint32_t *c, int len, const psi_cex_cond *cond,
                      uint32_t n_cond)
{
    psi_cex *cex = p->cex;
    if (!psi_grow((void **)&cex->cycles, &p->cap_cycles, (size_t)cex->n_cycles + 1,
                  sizeof *cex->cycles) ||
        !psi_grow((void **)&cex->idx, &p->cap_idx, (size_t)cex->n_idx + (size_t)len,
                  sizeof *cex->idx) ||
        !psi_grow((void **)&cex->conds, &p->cap_conds, (size_t)cex->n_conds + n_cond + 1,
                  sizeof *cex->conds))
        return false;
    cex->cycles[cex->n_cycles++] = (psi_cex_cycle){
        .first = cex->n_idx, .len = (uint32_t)len, .cond_first = cex->n_conds, .n_cond = n_cond};
    if (n_cond)
        memcpy(cex->conds + cex->n_conds, cond, n_cond * sizeof *cond);
    cex->n_conds += n_cond;
    for (int i = 0; i < len; i++) {
        const psi_sub_edge *e = &p->L->e[c[i]];
        uint8_t origin = PSI_CEX_CERTAIN;
        uint32_t choice = 0;
        if (e->cons >= 0) {
            uint8_t f = p->fin[e->cons];
            choice = p->cho[e->cons];
            if (f == OPEN)
                origin = e->side ? PSI_CEX_OR : PSI_CEX_EITHER;
            else
                origin = f == (e->side ? OR : EITHER) ? PSI_CEX_DECIDED : PSI_CEX_EXCLUDED;
        }
        cex->idx[cex->n_idx++] = cex_edge(p, c[i], origin, choice);
    }
    return true;
}

psi_status psi_cex_present(const psi_sub_polygraph *L, bool ser, psi_cex *cex, psi_diag *d)
{
    pres p = {.L = L, .ser = ser, .cex = cex};
    psi_status st = PSI_OK;
    uint32_t n = L->n_e ? L->n_e : 1, nc = L->n_c ? L->n_c : 1;
    /* Room for the doubled graph's nodes; NULL diag: the message below
     * names this stage. */
    if (psi_graph_bfs_init(&p.bfs, 2 * L->n_nodes, NULL) != PSI_OK)
        return psi_diag_nomem(d, "presenting a counterexample");
    p.act = malloc(n);
    p.thr = malloc(n);
    p.cyc = malloc((2 * (size_t)n + 1) * sizeof *p.cyc);
    p.map = malloc(n * sizeof *p.map);
    p.state = calloc(nc, 1);
    p.fin = calloc(nc, 1);
    p.cho = malloc(nc * sizeof *p.cho);
    cex->edges = malloc(n * sizeof *cex->edges);
    uint32_t *open = malloc(nc * sizeof *open), *order = malloc(nc * sizeof *order);
    psi_cex_cond *conds = malloc(nc * sizeof *conds);
    uint8_t *has = calloc(nc, 2);
    cex->choices = malloc(nc * sizeof *cex->choices);
    uint32_t n_order = 0;
    if (!p.act || !p.thr || !p.cyc || !p.map || !p.state || !p.fin || !p.cho || !cex->edges ||
        !open || !order || !conds || !has || !cex->choices)
        goto nomem;
    memset(p.map, 0xff, n * sizeof *p.map);
    /* Constraints left with no edges on a side take no part. */
    for (uint32_t i = 0; i < L->n_e; i++)
        if (L->e[i].on && L->e[i].cons >= 0)
            has[2 * L->e[i].cons + L->e[i].side] = 1;
    for (uint32_t c = 0; c < L->n_c; c++) {
        p.cho[c] = UINT32_MAX;
        if (has[2 * c] && has[2 * c + 1]) {
            p.cho[c] = cex->n_choices;
            cex->choices[cex->n_choices++] =
                (psi_cex_choice){L->node_txn[L->c[c].t], L->node_txn[L->c[c].s], L->c[c].key, 0};
        }
    }
    /* Resolve to a fixpoint. */
    bool conflict = false;
    uint32_t conflict_c = 0;
    for (bool changed = true; changed && !conflict;) {
        changed = false;
        for (uint32_t c = 0; c < L->n_c && !conflict; c++) {
            if (p.state[c] != OPEN || p.cho[c] == UINT32_MAX)
                continue;
            int ce = side_cycle(&p, c, 0), co = side_cycle(&p, c, 1);
            if (ce < 0 || co < 0)
                goto nomem;
            if (ce && co) {
                conflict = true;
                conflict_c = c;
            } else if (ce || co) {
                p.state[c] = ce ? OR : EITHER;
                order[n_order++] = c;
                changed = true;
            }
        }
    }
    memcpy(p.fin, p.state, nc);
    for (uint32_t c = 0; c < L->n_c; c++)
        if (p.cho[c] != UINT32_MAX)
            cex->choices[p.cho[c]].decided = p.fin[c];
    /* Certain and decided edges first, so they read before the rest. */
    for (uint32_t i = 0; i < L->n_e; i++) {
        const psi_sub_edge *e = &L->e[i];
        if (!e->on)
            continue;
        if (e->cons < 0)
            cex_edge(&p, i, PSI_CEX_CERTAIN, 0);
        else if (p.fin[e->cons] == (e->side ? OR : EITHER))
            cex_edge(&p, i, PSI_CEX_DECIDED, p.cho[e->cons]);
    }
    /* The reason of every decision, replayed in order: the cycle the
     * excluded order closes with what was settled before it. */
    memset(p.state, OPEN, nc);
    for (uint32_t k = 0; k < n_order; k++) {
        uint32_t c = order[k];
        int excluded = p.fin[c] == EITHER ? 1 : 0;
        int len = side_cycle(&p, c, excluded);
        if (len < 0)
            goto nomem;
        psi_cex_cond cond = {.choice = p.cho[c], .side = (uint8_t)excluded};
        if (len > 0 && !add_cycle(&p, p.cyc, len, &cond, 1))
            goto nomem;
        p.state[c] = p.fin[c];
    }
    set_active(&p);
    int len = find_cycle(&p, NULL);
    if (len < 0)
        goto nomem;
    if (len > 0) {
        /* Certain and decided edges alone already close a cycle. */
        if (!add_cycle(&p, p.cyc, len, NULL, 0))
            goto nomem;
    } else if (conflict) {
        /* Both orders of one pair close a cycle with what is settled: the
         * cycles found when the conflict was seen are still there (the
         * settled state is the same), so len is never 0. */
        for (int side = 0; side < 2; side++) {
            len = side_cycle(&p, conflict_c, side);
            if (len < 0)
                goto nomem;
            assert(len > 0);
            psi_cex_cond cond = {.choice = p.cho[conflict_c], .side = (uint8_t)side};
            if (len > 0 && !add_cycle(&p, p.cyc, len, &cond, 1))
                goto nomem;
        }
    } else {
        /* Several open pairs together: one cycle per combination of the
         * first four (MAX_CASES), the others taking their either side. */
        uint32_t k = 0;
        for (uint32_t c = 0; c < L->n_c; c++)
            if (p.state[c] == OPEN && p.cho[c] != UINT32_MAX)
                open[k++] = c;
        for (uint32_t m = 0; m < (1u << (k < 4 ? k : 4)) && m < MAX_CASES; m++) {
            for (uint32_t i = 0; i < k; i++) {
                uint8_t side = i < 4 ? (m >> i) & 1 : 0;
                p.state[open[i]] = side ? OR : EITHER;
                conds[i] = (psi_cex_cond){.choice = p.cho[open[i]], .side = side};
            }
            set_active(&p);
            len = find_cycle(&p, NULL);
            for (uint32_t i = 0; i < k; i++)
                p.state[open[i]] = OPEN;
            if (len < 0 || (len > 0 && !add_cycle(&p, p.cyc, len, conds, k)))
                goto nomem;
        }
    }
    /* Every remaining edge of the violation (e.g. an open pair's edges off
     * the cycles shown) is listed too, so the counterexample is complete. */
    for (uint32_t i = 0; i < L->n_e; i++) {
        const psi_sub_edge *e = &L->e[i];
        if (!e->on || p.map[i] != UINT32_MAX || e->cons < 0 || p.cho[e->cons] == UINT32_MAX)
            continue;
        uint8_t f = p.fin[e->cons];
        uint8_t origin = f == OPEN                      ? (e->side ? PSI_CEX_OR : PSI_CEX_EITHER)
                         : f == (e->side ? OR : EITHER) ? PSI_CEX_DECIDED
                                                        : PSI_CEX_EXCLUDED;
        cex_edge(&p, i, origin, p.cho[e->cons]);
    }
    /* Transactions: the endpoints of the edges kept. */
    cex->txns = malloc((L->n_nodes ? L->n_nodes : 1) * sizeof *cex->txns);
    if (!cex->txns)
        goto nomem;
    for (uint32_t v = 0; v < L->n_nodes; v++) {
        bool used = false;
        for (uint32_t i = 0; i < cex->n_edges && !used; i++)
            used = cex->edges[i].from == L->node_txn[v] || cex->edges[i].to == L->node_txn[v];
        if (used)
            cex->txns[cex->n_txns++] = L->node_txn[v];
    }
    cex->present = true;
    goto out;
nomem:
    st = psi_diag_nomem(d, "presenting a counterexample");
out:
    free(p.act);
    free(p.thr);
    free(p.cyc);
    free(p.map);
    free(p.state);
    free(p.fin);
    free(p.cho);
    free(open);
    free(conds);
    free(order);
    free(has);
    psi_graph_bfs_free(&p.bfs);
    return st;
}
