/* Solving a sub-history's polygraph (see local.h). */
#include "encode/local.h"

#include "core/vec.h"

#include "solver/acyclic.h"
#include "solver/sat.h"

#include <assert.h>
#include <limits.h>
#include <stdlib.h>

/* The labels of sub-polygraph edge e (0 when absent): constraint c is
 * variable c + 1, true for its either side; read-from choice r is
 * variable n_c + r + 1, true when taken. An edge of both has the side
 * first and the choice second; an edge of a choice alone, the choice
 * first. */
static void edge_lits(const psi_sub_polygraph *S, const psi_sub_edge *e, int *lit, int *rlit)
{
    *lit = e->cons < 0 ? 0 : (e->side ? -(e->cons + 1) : e->cons + 1);
    *rlit = e->rc ? (int)(S->n_c + e->rc) : 0;
    if (!*lit) {
        *lit = *rlit;
        *rlit = 0;
    }
}

psi_status psi_encode_solve_sub(const psi_sub_polygraph *S, bool ser, bool *violation, psi_diag *d)
{
    *violation = false;
    if ((uint64_t)S->n_c + S->n_ch > (uint64_t)INT_MAX - 1)
        return psi_diag_set(d, PSI_ERR_LIMIT,
                            "%u constraints and %u read-from choices exceed the solver's variables",
                            S->n_c, S->n_ch);
    psi_sat *s = psi_sat_new();
    psi_acyc *g =
        s ? psi_acyc_new(s, S->n_nodes ? S->n_nodes : 1, ser ? PSI_ACYC_SER : PSI_ACYC_SI) : NULL;
    psi_status st = PSI_OK;
    if (!g || psi_sat_reserve(s, (int)(S->n_c + S->n_ch)) != 0)
        goto nomem;
    for (uint32_t i = 0; i < S->n_e; i++) {
        const psi_sub_edge *e = &S->e[i];
        if (!e->on)
            continue;
        int lit, rlit;
        edge_lits(S, e, &lit, &rlit);
        psi_edge_kind k = psi_edge_is_anti((psi_edge_type)e->e.type) ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
        if (psi_acyc_add_edge(g, e->e.from, e->e.to, k, lit, rlit) < 0)
            goto nomem;
    }
    /* Each read takes at least one of its candidates (taking several only
     * adds edges, so "at most one" needs no clause: a model with several
     * stays one with all but one dropped). */
    int *cl = NULL;
    size_t cap = 0;
    for (uint32_t r = 0; r < S->n_reads; r++) {
        const psi_sub_read *rd = &S->reads[r];
        if (!psi_grow((void **)&cl, &cap, rd->n ? rd->n : 1, sizeof *cl)) {
            free(cl);
            goto nomem;
        }
        for (uint32_t j = 0; j < rd->n; j++)
            cl[j] = (int)(S->n_c + rd->first + j + 1);
        if (psi_sat_add_clause(s, cl, rd->n) < 0) {
            free(cl);
            goto nomem;
        }
    }
    free(cl);
    switch (psi_sat_solve(s)) {
    case PSI_SAT_UNSAT:
        *violation = true;
        break;
    case PSI_SAT_SAT:
        break;
    default:
        goto nomem; /* no time limit is set: only memory can stop it */
    }
    goto out;
nomem:
    st = psi_diag_nomem(d, "solving a sub-history");
out:
    psi_acyc_free(g);
    psi_sat_free(s);
    return st;
}

struct psi_sub_cores {
    psi_sat *s;
    psi_acyc *g;
    uint32_t n_nodes;
    int pres0; /* node v's presence variable is pres0 + v */
};

void psi_sub_cores_free(psi_sub_cores *x)
{
    if (!x)
        return;
    psi_acyc_free(x->g);
    psi_sat_free(x->s);
    free(x);
}

psi_status psi_sub_cores_new(const psi_sub_polygraph *S, const psi_history *h,
                             int64_t max_conflicts, psi_sub_cores **out, psi_diag *d)
{
    *out = NULL;
    if ((uint64_t)S->n_c + S->n_ch + S->n_nodes > (uint64_t)INT_MAX - 1 ||
        (uint64_t)S->n_nodes * 3 > UINT32_MAX - 1)
        return psi_diag_set(d, PSI_ERR_LIMIT, "a sub-history too big for its cores");
    psi_sub_cores *x = calloc(1, sizeof *x);
    if (!x)
        return psi_diag_nomem(d, "solving a sub-history");
    x->n_nodes = S->n_nodes;
    /* constraint c: variable c + 1; choice r: n_c + r + 1 (as
     * psi_encode_solve_sub); then one presence variable per node */
    x->pres0 = (int)(S->n_c + S->n_ch + 1);
    x->s = psi_sat_new();
    x->g = x->s ? psi_acyc_new(x->s, 3 * (S->n_nodes ? S->n_nodes : 1), PSI_ACYC_SER) : NULL;
    int *cl = NULL;
    size_t cap = 0;
    if (!x->g || psi_sat_reserve(x->s, (int)(S->n_c + S->n_ch + S->n_nodes)) != 0)
        goto nomem;
    psi_sat_set_conflict_limit(x->s, max_conflicts);
    for (uint32_t v = 0; v < S->n_nodes; v++)
        if (psi_acyc_add_edge(x->g, 2 * v, 2 * v + 1, PSI_EDGE_DEP, x->pres0 + (int)v, 0) < 0)
            goto nomem;
    for (uint32_t i = 0; i < S->n_e; i++) {
        const psi_sub_edge *e = &S->e[i];
        if (!e->on)
            continue;
        int lit, rlit;
        edge_lits(S, e, &lit, &rlit);
        if (psi_acyc_add_edge(x->g, 2 * e->e.from + 1, 2 * e->e.to, PSI_EDGE_DEP, lit, rlit) < 0)
            goto nomem;
    }
    /* Session order whichever nodes are absent (S has it between
     * neighbours only): a spine node 2n + v per node v, always there,
     * spine(v) -> v_in, v_out -> spine(next) and spine(v) -> spine(next)
     * for v's successor next in its session, so every node reaches every
     * later one of its session and no earlier one; the initial
     * transaction reaches each session's first spine node. Nodes are in
     * transaction order, hence in session order within a session. */
    uint32_t n = S->n_nodes, *last = NULL;
    if (h->n_sessions && !(last = malloc(h->n_sessions * sizeof *last)))
        goto nomem;
    for (uint32_t i = 0; i < h->n_sessions; i++)
        last[i] = UINT32_MAX;
    for (uint32_t v = 0; v < n; v++) {
        uint32_t t = S->node_txn[v];
        if (t == PSI_INIT_TXN)
            continue;
        uint32_t sess = h->txns[t].session, p = last[sess];
        assert(p == UINT32_MAX || h->txns[S->node_txn[p]].pos < h->txns[t].pos);
        bool ok = psi_acyc_add_edge(x->g, 2 * n + v, 2 * v, PSI_EDGE_DEP, 0, 0) >= 0;
        if (p != UINT32_MAX)
            ok = ok && psi_acyc_add_edge(x->g, 2 * p + 1, 2 * n + v, PSI_EDGE_DEP, 0, 0) >= 0 &&
                 psi_acyc_add_edge(x->g, 2 * n + p, 2 * n + v, PSI_EDGE_DEP, 0, 0) >= 0;
        else if (S->node_txn[0] == PSI_INIT_TXN)
            ok = ok && psi_acyc_add_edge(x->g, 1, 2 * n + v, PSI_EDGE_DEP, 0, 0) >= 0;
        last[sess] = v;
        if (!ok) {
            free(last);
            goto nomem;
        }
    }
    free(last);
    /* A read takes one of its candidates while it and they are present. */
    for (uint32_t r = 0; r < S->n_reads; r++) {
        const psi_sub_read *rd = &S->reads[r];
        if (!psi_grow((void **)&cl, &cap, 2 * (size_t)rd->n + 1, sizeof *cl))
            goto nomem;
        uint32_t k = 0;
        cl[k++] = -(x->pres0 + (int)rd->reader);
        for (uint32_t j = 0; j < rd->n; j++) {
            cl[k++] = (int)(S->n_c + rd->first + j + 1);
            cl[k++] = -(x->pres0 + (int)S->ch[rd->first + j].writer);
        }
        if (psi_sat_add_clause(x->s, cl, k) < 0)
            goto nomem;
    }
    free(cl);
    *out = x;
    return PSI_OK;
nomem:
    free(cl);
    psi_sub_cores_free(x);
    return psi_diag_nomem(d, "solving a sub-history");
}

typedef struct node_at {
    uint64_t at;
    uint32_t v;
} node_at;

static int node_at_cmp(const void *a, const void *b)
{
    const node_at *x = a, *y = b;
    return (x->at > y->at) - (x->at < y->at);
}

/* The present nodes by their in-copies' places in the theory's order:
 * u's out-copy precedes v's in-copy for every active edge u -> v, and
 * v's in-copy its out-copy while v is present. */
static psi_status model_order(const psi_sub_cores *x, const uint8_t *in, uint32_t *order,
                              uint32_t *n, psi_diag *d)
{
    node_at *a = malloc((x->n_nodes ? x->n_nodes : 1) * sizeof *a);
    if (!a)
        return psi_diag_nomem(d, "solving a sub-history");
    uint32_t k = 0;
    for (uint32_t v = 0; v < x->n_nodes; v++)
        if (in[v])
            a[k++] = (node_at){psi_acyc_node_order(x->g, 2 * v), v};
    qsort(a, k, sizeof *a, node_at_cmp);
    for (uint32_t i = 0; i < k; i++)
        order[i] = a[i].v;
    *n = k;
    free(a);
    return PSI_OK;
}

psi_status psi_sub_cores_solve(psi_sub_cores *x, const uint8_t *in, bool *decided, bool *violation,
                               uint8_t *core, uint32_t *order, uint32_t *n_order, psi_diag *d)
{
    *violation = *decided = false;
    for (uint32_t v = 0; v < x->n_nodes; v++)
        if (psi_sat_assume(x->s, in[v] ? x->pres0 + (int)v : -(x->pres0 + (int)v)) != 0)
            return psi_diag_nomem(d, "solving a sub-history");
    switch (psi_sat_solve(x->s)) {
    case PSI_SAT_UNSAT:
        *violation = *decided = true;
        break;
    case PSI_SAT_SAT:
        *decided = true;
        return order ? model_order(x, in, order, n_order, d) : PSI_OK;
    case PSI_SAT_UNKNOWN: /* the conflict limit */
        return PSI_OK;
    default:
        return psi_diag_nomem(d, "solving a sub-history");
    }
    size_t n = 0;
    const int *fc = psi_sat_final_conflict(x->s, &n);
    for (size_t i = 0; i < n; i++) {
        int l = fc[i] < 0 ? -fc[i] : fc[i];
        if (l >= x->pres0 && l < x->pres0 + (int)x->n_nodes && in[l - x->pres0])
            core[l - x->pres0] = 1;
    }
    return PSI_OK;
}
