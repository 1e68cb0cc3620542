/* The acyclicity theory's edge store and public face (psi_acyc_*, see
 * acyclic.h): creating and freeing the graph, adding user edges and mapping
 * them to internal edges (the doubled graph in SI mode), the per-variable
 * arrays, the literal-occurrence and propagation-candidate tables the theory
 * callbacks scan, and the queries after a solve. How the files of the theory
 * divide the work: acyclic_internal.h. */
#include "acyclic_internal.h"

#include <assert.h>

#include <stdlib.h>
#include <string.h>

/* adj_push's growth path (acyclic_internal.h). */
bool psi_acyc_adj_grow(adjvec *v)
{
    if (v->cap >= UINT32_MAX / 2)
        return false;
    uint32_t cap = v->cap ? 2 * v->cap : 8;
    bool pooled = v->a && v->a[-1].node == ADJ_POOLED;
    /* one more entry for the hidden one (acyclic_internal.h) */
    size_t bytes = ((size_t)cap + 1) * sizeof *v->a;
    adj *base = pooled ? malloc(bytes) : realloc(v->a ? v->a - 1 : NULL, bytes);
    if (!base)
        return false;
    if (pooled)
        memcpy(base + 1, v->a, v->n * sizeof *v->a);
    base[0] = (adj){.node = ADJ_OWN};
    v->a = base + 1;
    v->cap = cap;
    return true;
}

/* Grows the per-variable arrays (index var-1) to hold nvars variables. */
bool psi_acyc_ensure_vars(psi_acyc *g, size_t nvars)
{
    if (nvars <= g->var_cap)
        return true;
    size_t cap = g->var_cap ? g->var_cap : 64;
    while (cap < nvars)
        cap *= 2;
    void *p;
#define GROW(field)                                                                                \
    p = realloc(g->field, cap * sizeof *g->field);                                                 \
    if (!p)                                                                                        \
        return false;                                                                              \
    g->field = p;                                                                                  \
    memset(g->field + g->var_cap, 0, (cap - g->var_cap) * sizeof *g->field);
    GROW(val)
    GROW(lvl)
    GROW(prop_edge)
    GROW(prop_stamp)
    GROW(lit_mark)
#undef GROW
    g->var_cap = cap;
    return true;
}

psi_acyc *psi_acyc_new(psi_sat *s, uint32_t nodes, psi_acyc_mode mode)
{
    if (nodes > (UINT32_MAX - 16) / 2)
        return NULL;
    psi_acyc *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->s = s;
    g->mode = mode;
    g->nodes = nodes;
    g->N = mode == PSI_ACYC_SI ? 2 * nodes : mode == PSI_ACYC_PSI ? nodes + 1 : nodes;
    g->propagate = true;
    g->slot_base = SIZE_MAX; /* no activation slots yet */
    g->psi_eager = true;
    size_t N = g->N ? g->N : 1;
    g->out = calloc(N, sizeof *g->out);
    g->in = calloc(N, sizeof *g->in);
    g->ord = calloc(N, sizeof *g->ord);
    g->onext = calloc(N, sizeof *g->onext);
    g->oprev = calloc(N, sizeof *g->oprev);
    g->fmark = calloc(N, sizeof *g->fmark);
    g->bmark = calloc(N, sizeof *g->bmark);
    g->dist = calloc(N, sizeof *g->dist);
    g->parent = calloc(N, sizeof *g->parent);
    if (!g->out || !g->in || !g->ord || !g->onext || !g->oprev || !g->fmark || !g->bmark ||
        !g->dist || !g->parent) {
        psi_acyc_free(g);
        return NULL;
    }
    psi_acyc_attach(g);
    return g;
}

void psi_acyc_free(psi_acyc *g)
{
    if (!g)
        return;
    for (uint32_t v = 0; g->out && v < g->N; v++)
        adj_release(&g->out[v]);
    for (uint32_t v = 0; g->in && v < g->N; v++)
        adj_release(&g->in[v]);
    free(g->adj_pool);
    void *ptrs[] = {g->ue,     g->ie_user,   g->ie_act,    g->out,           g->in,
                    g->ord,    g->occ_start, g->occ,       g->cand_start,    g->cand,
                    g->val,    g->lvl,       g->prop_edge, g->prop_stamp,    g->lit_mark,
                    g->act,    g->asg,       g->fmark,     g->bmark,         g->dist,
                    g->parent, g->fwd.a,     g->bwd.a,     g->cur.a,         g->next.a,
                    g->pool.a, g->sortbuf,   g->cycle.a,   g->known_cycle.a, g->onext,
                    g->oprev,  g->hint,      g->bw,        g->hant_start,    g->hant};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        free(ptrs[i]);
    free(g);
}

/* Appends an internal edge of user edge `user`; slot: the search may
 * activate it (it is labelled, or the static setup is done), so it and
 * every later edge need an activation index (psi_acyc.slot_base). */
static bool push_internal(psi_acyc *g, uint32_t user, bool slot)
{
    if (g->ie_n >= UINT32_MAX - 16)
        return false;
    if (g->ie_n == g->ie_cap &&
        !psi_grow_array((void **)&g->ie_user, &g->ie_cap, g->ie_n + 1, sizeof(uint32_t)))
        return false;
    if (slot && g->slot_base == SIZE_MAX)
        g->slot_base = g->ie_n;
    if (g->slot_base != SIZE_MAX) {
        size_t i = g->ie_n - g->slot_base;
        if (i == g->slot_cap &&
            !psi_grow_array((void **)&g->ie_act, &g->slot_cap, i + 1, sizeof(uint32_t)))
            return false;
        g->ie_act[i] = 0;
    }
    g->ie_user[g->ie_n] = user;
    g->ie_n++;
    return true;
}

int64_t psi_acyc_add_edge(psi_acyc *g, uint32_t from, uint32_t to, psi_edge_kind kind, int lit_a,
                          int lit_b)
{
    if (from >= g->nodes || to >= g->nodes ||
        (kind != PSI_EDGE_DEP && kind != PSI_EDGE_ANTI && kind != PSI_EDGE_RELAY) ||
        (kind == PSI_EDGE_RELAY && g->mode == PSI_ACYC_PSI))
        return PSI_SAT_EINVAL;
    if (lit_a == INT32_MIN || lit_b == INT32_MIN)
        return PSI_SAT_EINVAL;
    if (!lit_a) {
        lit_a = lit_b;
        lit_b = 0;
    }
    if (lit_b == lit_a)
        lit_b = 0;
    if (g->ue_n >= UINT32_MAX - 16)
        return PSI_SAT_ENOMEM;
    /* The new edge is set up by prepare, at the root (a kept trail ends). */
    psi_sat_root(g->s);
    if (!psi_grow_array((void **)&g->ue, &g->ue_cap, g->ue_n + 1, sizeof *g->ue))
        return PSI_SAT_ENOMEM;
    for (int k = 0; k < 2; k++) {
        int l = k ? lit_b : lit_a;
        if (!l)
            continue;
        int rc = psi_sat_observe(g->s, l > 0 ? l : -l);
        if (rc)
            return rc;
        if (!psi_acyc_ensure_vars(g, lit_var0(l) + 1))
            return PSI_SAT_ENOMEM;
    }
    uint32_t id = (uint32_t)g->ue_n;
    uedge u = {0};
    u.from = from;
    u.to = to;
    u.kind = (uint8_t)kind;
    u.lit[0] = lit_a;
    u.lit[1] = lit_b;
    u.need = (uint8_t)((lit_a != 0) + (lit_b != 0));
    u.dead = lit_b && lit_b == -lit_a;
    u.ie = (uint32_t)g->ie_n;
    /* Labels already true at the root were notified before this edge. */
    for (int k = 0; k < u.need; k++)
        if (g->val[lit_var0(u.lit[k])] == (u.lit[k] > 0 ? 1 : -1))
            u.cnt++;
    /* The internal edges' endpoints follow from u (ie_src, ie_dst). */
    bool ok = true, slot = u.need || g->ordered;
    size_t base = g->slot_base;
    if (g->mode != PSI_ACYC_SI) {
        ok = push_internal(g, id, slot);
        u.nie = 1;
    } else if (kind == PSI_EDGE_DEP) {
        ok = push_internal(g, id, slot) && push_internal(g, id, slot);
        u.nie = 2;
    } else {
        ok = push_internal(g, id, slot);
        u.nie = 1;
    }
    if (!ok) {
        g->ie_n = u.ie;
        g->slot_base = base; /* no slot was used but the failed edge's */
        return PSI_SAT_ENOMEM;
    }
    g->ue[g->ue_n++] = u;
    g->tables_dirty = true;
    return id;
}

void psi_acyc_set_psi_eager(psi_acyc *g, bool on)
{
    if (on && !g->psi_eager) {
        psi_sat_root(g->s);
        g->psi_clean = false;
    }
    g->psi_eager = on;
}

void psi_acyc_set_propagation(psi_acyc *g, bool on)
{
    g->propagate = on;
}

size_t psi_acyc_num_edges(const psi_acyc *g)
{
    return g->ue_n;
}

void psi_acyc_get_stats(const psi_acyc *g, psi_acyc_stats *out)
{
    *out = g->st;
    /* Bytes held, from the capacities (what malloc was asked for). */
    size_t b = sizeof *g + g->ue_cap * sizeof *g->ue + (g->ie_cap + g->slot_cap) * sizeof(uint32_t);
    b += (size_t)g->N * (2 * sizeof(adjvec) + sizeof *g->ord + 2 * sizeof(uint32_t) /* list */ +
                         4 * sizeof(uint32_t) /* search marks */);
    for (uint32_t v = 0; v < g->N; v++)
        b += ((size_t)g->out[v].cap + g->in[v].cap) * sizeof(adj);
    b += g->var_cap * (sizeof *g->val + 4 * sizeof(uint32_t));
    if (!g->tables_dirty && g->occ_start && g->cand_start) /* built and whole */
        b += (g->occ_lits + 1 + (size_t)g->N + 1) * sizeof(uint32_t) +
             (g->occ_start[g->occ_lits] + g->cand_start[g->N]) * sizeof(uint32_t);
    b += g->act_cap * sizeof *g->act + g->asg_cap * sizeof *g->asg;
    b += g->bw_cap * sizeof *g->bw;
    if (!g->tables_dirty && g->hant_start) /* PSI mode */
        b += ((size_t)g->nodes + 1 + g->hant_start[g->nodes]) * sizeof(uint32_t);
    out->bytes = b;
}

const uint32_t *psi_acyc_conflict_cycle(const psi_acyc *g, size_t *n)
{
    *n = g->cycle.n;
    return g->cycle.a;
}

bool psi_acyc_edge_active(const psi_acyc *g, uint32_t e)
{
    if (e >= g->ue_n)
        return false;
    const uedge *u = &g->ue[e];
    if (u->dead)
        return false;
    for (int k = 0; k < u->need; k++)
        if (psi_sat_value(g->s, u->lit[k]) <= 0)
            return false;
    return true;
}

uint64_t psi_acyc_node_order(const psi_acyc *g, uint32_t v)
{
    assert(v < g->nodes);
    return g->ord[g->mode == PSI_ACYC_SI ? 2 * (size_t)v : v];
}

/* Rebuilds the literal occurrence lists and the candidate lists. */
bool psi_acyc_build_tables(psi_acyc *g)
{
    if (!g->tables_dirty)
        return true;
    size_t nl = 2 * g->var_cap;
    free(g->occ_start);
    free(g->occ);
    free(g->cand_start);
    free(g->cand);
    g->occ = g->cand = NULL;
    g->occ_start = calloc(nl + 1, sizeof *g->occ_start);
    g->cand_start = calloc((size_t)g->N + 1, sizeof *g->cand_start);
    if (!g->occ_start || !g->cand_start)
        return false;
    size_t nocc = 0, ncand = 0;
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->dead || !u->need)
            continue;
        for (int k = 0; k < u->need; k++)
            g->occ_start[lit_index(u->lit[k]) + 1]++, nocc++;
        for (uint32_t j = 0; j < u->nie; j++)
            g->cand_start[ie_src(g, u->ie + j) + 1]++, ncand++;
    }
    for (size_t i = 0; i < nl; i++)
        g->occ_start[i + 1] += g->occ_start[i];
    for (size_t i = 0; i < g->N; i++)
        g->cand_start[i + 1] += g->cand_start[i];
    g->occ = malloc((nocc ? nocc : 1) * sizeof *g->occ);
    g->cand = malloc((ncand ? ncand : 1) * sizeof *g->cand);
    if (!g->occ || !g->cand)
        return false;
    /* Fill using the start arrays as cursors, then shift them back. */
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->dead || !u->need)
            continue;
        for (int k = 0; k < u->need; k++)
            g->occ[g->occ_start[lit_index(u->lit[k])]++] = (uint32_t)i;
        for (uint32_t j = 0; j < u->nie; j++)
            g->cand[g->cand_start[ie_src(g, u->ie + j)]++] = u->ie + j;
    }
    for (size_t i = nl; i > 0; i--)
        g->occ_start[i] = g->occ_start[i - 1];
    g->occ_start[0] = 0;
    for (size_t i = g->N; i > 0; i--)
        g->cand_start[i] = g->cand_start[i - 1];
    g->cand_start[0] = 0;
    g->occ_lits = nl;
    if (g->mode == PSI_ACYC_PSI && !psi_acyc_psi_tables(g))
        return false;
    g->tables_dirty = false;
    return true;
}

/* Decision order: each variable by the earliest place in the known graph's
 * order that one of its edges touches, earliest first. Deciding along the
 * order keeps the variables of a cycle close together on the trail, so a
 * conflict undoes few levels. */
static int suggest_order(psi_acyc *g)
{
    size_t nv = (size_t)psi_sat_nvars(g->s);
    if (!nv)
        return 0;
    double *prio = calloc(nv, sizeof *prio);
    uint64_t *first = malloc(nv * sizeof *first);
    if (!prio || !first) {
        free(prio);
        free(first);
        return PSI_SAT_ENOMEM;
    }
    memset(first, 0xff, nv * sizeof *first);
    uint64_t top = 1;
    for (uint32_t x = 0; x < g->N; x++)
        if (g->ord[x] + 1 > top)
            top = g->ord[x] + 1;
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->dead || !u->need)
            continue;
        for (uint32_t j = 0; j < u->nie; j++) {
            uint32_t e = u->ie + j;
            uint64_t a = g->ord[ie_src(g, e)], b = g->ord[ie_dst(g, e)];
            uint64_t m = a < b ? a : b;
            for (int k = 0; k < 2; k++) {
                size_t var = u->lit[k] ? lit_var0(u->lit[k]) : nv;
                if (var < nv && m < first[var])
                    first[var] = m;
            }
        }
    }
    for (size_t v = 0; v < nv; v++)
        if (first[v] != UINT64_MAX)
            prio[v] = 0.5 * (1.0 - (double)first[v] / (double)top);
    int rc = psi_sat_set_priorities(g->s, prio, nv);
    free(prio);
    free(first);
    return rc;
}

int psi_acyc_set_order_hint(psi_acyc *g, const uint32_t *key)
{
    if (g->ordered)
        return PSI_SAT_EINVAL;
    if (!g->hint && !(g->hint = malloc((g->nodes ? g->nodes : 1) * sizeof *g->hint)))
        return PSI_SAT_ENOMEM;
    memcpy(g->hint, key, g->nodes * sizeof *g->hint);
    return 0;
}

int psi_acyc_suggest_phases(psi_acyc *g)
{
    if (!psi_acyc_static_setup(g))
        return PSI_SAT_ENOMEM;
    if (g->static_cycle)
        return 0; /* the first solve says UNSAT at once */
    /* vote[var] > 0: the positive literal's edges agree with the order more
     * often than the negative literal's. Two-literal labels have no say. */
    int64_t *vote = calloc(g->var_cap ? g->var_cap : 1, sizeof *vote);
    if (!vote)
        return PSI_SAT_ENOMEM;
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->need != 1 || u->dead || u->kind == PSI_EDGE_RELAY)
            continue;
        int l = u->lit[0] ? u->lit[0] : u->lit[1];
        for (uint32_t j = 0; j < u->nie; j++) {
            uint32_t e = u->ie + j;
            bool agree = g->ord[ie_src(g, e)] < g->ord[ie_dst(g, e)];
            vote[lit_var0(l)] += (l > 0) == agree ? 1 : -1;
        }
    }
    int rc = 0;
    for (size_t v = 0; v < g->var_cap && !rc; v++)
        if (vote[v])
            rc = psi_sat_set_phase(g->s, vote[v] > 0 ? (int)v + 1 : -(int)v - 1);
    free(vote);
    if (!rc)
        rc = suggest_order(g);
    return rc == PSI_SAT_ENOMEM ? PSI_SAT_ENOMEM : 0;
}
