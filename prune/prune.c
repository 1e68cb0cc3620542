/* Fixpoint pruning (see prune.h). Each round rebuilds reachability from the
 * known graph, then tests both sides of every open constraint against it
 * (SER and SI: every one whose answer the new edges can have changed,
 * psi_constraint_unchanged).
 * Deductions made within a round stay valid when later rounds add edges
 * (more edges only make sides more impossible), so a round may resolve many
 * constraints from one snapshot; a contradiction among them shows up as a
 * known-graph cycle in the next round. Rounds whose yield no longer pays
 * for their reachability pass are left out (prune.h exact); a last pass
 * without frontiers then checks the known graph for a cycle. */
#include "prune/prune.h"
#include "prune/prune_internal.h"

#include "prune/level_pc.h"
#include "prune/reach.h"
#include "prune/seed.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct side_check {
    const psi_reach *r;
    const psi_anti_index *anti;
    psi_prune_rule ser;
    const psi_polygraph *g;
    bool bad;
    psi_edge culprit; /* the side's edge that closes a cycle */
} side_check;

/* DEP reach, or the same transaction (a path of no edges). */
static bool reach_eq(const psi_reach *r, uint32_t from, uint32_t to)
{
    return from == to || psi_reach_to(r, from, to);
}

/* PSI: a DEP edge u -> v closes a cycle with one known RW edge: v ->RW y
 * with y reaching u, or x ->RW u with v reaching x. *via: that edge's
 * known index. */
static bool psi_anti_cycle(const psi_reach *r, const psi_anti_index *a, uint32_t u, uint32_t v,
                           uint64_t *via)
{
    uint64_t b, e;
    psi_graph_out(a->g, v, false, &b, &e);
    for (uint32_t n = 0; b < e && n < MAX_ANTI_TESTS; b++, n++)
        if (reach_eq(r, a->g->dst[b], u)) {
            *via = a->rw_id[a->g->eid[b]];
            return true;
        }
    psi_graph_in(a->g, u, false, &b, &e);
    for (uint32_t n = 0; b < e && n < MAX_ANTI_TESTS; b++, n++)
        if (reach_eq(r, v, a->g->in_src[b])) {
            *via = a->rw_id[a->g->in_eid[b]];
            return true;
        }
    return false;
}

/* PC: an RW edge x -> y closes a cycle after a known SO or WR edge p -> x
 * whenever y reaches p over DEP (or is p): every RW edge of such a cycle
 * follows SO or WR, which PC forbids (encode.h). *via: that edge. */
static bool pc_rw_cycle(const psi_reach *r, const psi_anti_index *a, uint32_t x, uint32_t y,
                        uint64_t *via)
{
    /* the round's index of SO and WR edges by target (psi_pc_reach_build) */
    const psi_pc_extra *pc = a->pc;
    assert(pc->sw_off && pc->sw_of <= a->pg->n_known);
    uint64_t b = pc->sw_off[x], e = pc->sw_off[x + 1];
    for (uint32_t n = 0; b < e && n < MAX_ANTI_TESTS; b++, n++)
        if (reach_eq(r, y, a->pg->known[pc->sw_id[b]].from)) {
            *via = pc->sw_id[b];
            return true;
        }
    return false;
}

/* v's row of a->rw_min (prune_internal.h), made on first use: the
 * cell-wise minimum of the frontier rows of v's first MAX_ANTI_TESTS RW
 * successors; ROW_NONE when none of them has a row. */
static uint8_t rw_min_row(const psi_reach *r, const psi_anti_index *a, uint32_t v)
{
    assert(a->rw_row[v] != UINT32_MAX && a->rw_state[v] == ROW_UNMADE);
    uint32_t S = r->n_sessions;
    uint32_t *m = a->rw_min + (uint64_t)a->rw_row[v] * S;
    uint64_t b, e;
    psi_graph_out(a->g, v, false, &b, &e);
    if (e - b > MAX_ANTI_TESTS)
        e = b + MAX_ANTI_TESTS;
    uint8_t st = ROW_NONE;
    for (; b < e; b++) {
        const uint32_t *y = psi_reach_row(r, a->g->dst[b]);
        if (!y)
            continue;
        if (st == ROW_NONE) {
            memcpy(m, y, S * sizeof *m);
            st = ROW_SET;
            continue;
        }
        for (uint32_t s = 0; s < S; s++)
            m[s] = y[s] < m[s] ? y[s] : m[s];
    }
    a->rw_state[v] = st;
    return st;
}

/* psi_anti_cycle's answer without its edge, for the rounds' many tests:
 * its first loop (v ->RW y with y reaching u) reads the per-node minimum
 * of those y's rows (a->rw_min) instead of each y's row. */
static bool psi_anti_closes(const psi_reach *r, const psi_anti_index *a, uint32_t u, uint32_t v)
{
    uint64_t b, e;
    psi_graph_out(a->g, v, false, &b, &e);
    if (e - b > MAX_ANTI_TESTS)
        e = b + MAX_ANTI_TESTS;
    bool found = false;
    for (; b < e && !found; b++)
        found = a->g->dst[b] == u;
    const psi_txn *tu = &r->h->txns[u];
    uint32_t row = a->rw_row[v];
    if (!found && tu->session != PSI_NO_SESSION && row != UINT32_MAX) {
        uint8_t st = a->rw_state[v];
        if (st == ROW_UNMADE)
            st = rw_min_row(r, a, v);
        found = st == ROW_SET && a->rw_min[(uint64_t)row * r->n_sessions + tu->session] <= tu->pos;
    }
    psi_graph_in(a->g, u, false, &b, &e);
    for (uint32_t n = 0; b < e && n < MAX_ANTI_TESTS && !found; b++, n++)
        found = reach_eq(r, v, a->g->in_src[b]);
#ifndef NDEBUG
    uint64_t via;
    assert(found == psi_anti_cycle(r, a, u, v, &via));
#endif
    return found;
}

bool psi_prune_closes_cycle(const psi_reach *r, const psi_anti_index *a, psi_prune_rule ser,
                            uint32_t from, uint32_t to, psi_edge_type type)
{
    if (ser == RULE_PC) {
        uint64_t via;
        return psi_edge_is_anti(type) ? pc_rw_cycle(r, a, from, to, &via)
                                      : psi_reach_to(r, to, from);
    }
    if (ser == RULE_PSI)
        return psi_reach_to(r, to, from) ||
               (!psi_edge_is_anti(type) && psi_anti_closes(r, a, from, to));
    if (ser == RULE_DEP)
        return !psi_edge_is_anti(type) && psi_reach_to(r, to, from);
    if (ser == RULE_SER)
        return psi_reach_to(r, to, from);
    if (psi_edge_is_anti(type))
        return psi_reach_to(r, 2 * to + 1, from);
    return psi_reach_to(r, 2 * to, from) ||
           (a->rw_maxpos ? psi_si_reach_anti(r, a, to, from) : psi_reach_to_anti(r, 2 * to, from));
}

static bool check_edge(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    side_check *sc = ctx;
    /* An edge out of an optional transaction exists only if it commits:
     * a side is impossible only when it is so without such edges. */
    if (psi_polygraph_gated_from(sc->g, from) ||
        !psi_prune_closes_cycle(sc->r, sc->anti, sc->ser, from, to, type))
        return true;
    sc->bad = true;
    sc->culprit = (psi_edge){
        .from = from, .to = to, .key = key, .type = (uint8_t)type, .origin = PSI_FROM_CONSTRAINT};
    return false;
}

/* The cycle closed by `e`: e itself, then a path back from its head. */
/* PSI: the cycle e closes through a known RW edge (psi_anti_cycle): e,
 * a DEP path (maybe empty), the RW edge, a DEP path (maybe empty). */
static psi_status psi_closing_cycle(const psi_reach *r, const psi_anti_index *a, const psi_edge *e,
                                    psi_edge **out, uint32_t *len, psi_diag *d)
{
    const psi_polygraph *g = a->pg;
    uint64_t via = 0;
    bool found = psi_anti_cycle(r, a, e->from, e->to, &via);
    assert(found);
    (void)found;
    const psi_edge *rw = &g->known[via];
    uint32_t *p1 = NULL, *p2 = NULL, n1 = 0, n2 = 0;
    psi_status st = PSI_OK;
    if (e->to != rw->from)
        st = psi_reach_path(r, e->to, rw->from, &p1, &n1, d);
    if (st == PSI_OK && rw->to != e->from)
        st = psi_reach_path(r, rw->to, e->from, &p2, &n2, d);
    if (st == PSI_OK) {
        *out = malloc(((size_t)n1 + n2 + 2) * sizeof **out);
        if (!*out)
            st = psi_diag_nomem(d, "recording a cycle");
    }
    if (st == PSI_OK) {
        uint32_t k = 0;
        (*out)[k++] = *e;
        for (uint32_t i = 0; i < n1; i++)
            (*out)[k++] = g->known[p1[i]];
        (*out)[k++] = *rw;
        for (uint32_t i = 0; i < n2; i++)
            (*out)[k++] = g->known[p2[i]];
        *len = k;
    }
    free(p1);
    free(p2);
    return st;
}

/* PC: e (an RW edge x -> y), the DEP path from y to p, the known SO or
 * WR edge p -> x (pc_rw_cycle). */
static psi_status pc_closing_cycle(const psi_reach *r, const psi_anti_index *a, const psi_edge *e,
                                   psi_edge **out, uint32_t *len, psi_diag *d)
{
    const psi_polygraph *g = a->pg;
    uint64_t via = 0;
    bool found = pc_rw_cycle(r, a, e->from, e->to, &via);
    assert(found);
    (void)found;
    const psi_edge *pe = &g->known[via];
    uint32_t *p = NULL, n = 0;
    psi_status st = PSI_OK;
    if (e->to != pe->from)
        st = psi_reach_path(r, e->to, pe->from, &p, &n, d);
    if (st == PSI_OK) {
        *out = malloc((2 * (size_t)n + 2) * sizeof **out);
        if (!*out)
            st = psi_diag_nomem(d, "recording a cycle");
    }
    if (st == PSI_OK) {
        uint32_t k = 0;
        (*out)[k++] = *e;
        k += psi_pc_path(a->pc, g, p, n, *out + k);
        (*out)[k++] = *pe;
        *len = k;
    }
    free(p);
    return st;
}

static psi_status closing_cycle(const psi_reach *r, const psi_anti_index *a, psi_prune_rule ser,
                                const psi_edge *e, psi_edge **out, uint32_t *len, psi_diag *d)
{
    const psi_polygraph *g = a->pg;
    uint32_t *path = NULL, n = 0;
    psi_status st;
    if (ser == RULE_PSI && !psi_edge_is_anti((psi_edge_type)e->type) &&
        !psi_reach_to(r, e->to, e->from))
        return psi_closing_cycle(r, a, e, out, len, d);
    if (ser == RULE_PC && psi_edge_is_anti((psi_edge_type)e->type))
        return pc_closing_cycle(r, a, e, out, len, d);
    if (ser != RULE_SI) {
        st = psi_reach_path(r, e->to, e->from, &path, &n, d);
    } else if (psi_edge_is_anti((psi_edge_type)e->type)) {
        st = psi_reach_path(r, 2 * e->to + 1, 2 * e->from, &path, &n, d);
    } else {
        st = psi_reach_path(r, 2 * e->to, 2 * e->from, &path, &n, d);
        if (st == PSI_OK && n == 0)
            st = psi_reach_path(r, 2 * e->to, 2 * e->from + 1, &path, &n, d);
    }
    if (st != PSI_OK)
        return st;
    *out = malloc((2 * (size_t)n + 1) * sizeof **out);
    if (!*out) {
        free(path);
        return psi_diag_nomem(d, "recording a cycle");
    }
    (*out)[0] = *e;
    if (ser == RULE_PC) {
        *len = 1 + psi_pc_path(a->pc, g, path, n, *out + 1);
    } else {
        for (uint32_t i = 0; i < n; i++)
            (*out)[i + 1] = g->known[path[i]];
        *len = n + 1;
    }
    free(path);
    return PSI_OK;
}

/* RULE_PSI: what the rounds' RW indexes keep across rounds (psi_prune
 * owns it): the known RW edges seen so far, in known order, and the
 * index's arrays. Pruning's rounds only append known edges (reach.h), so
 * each round scans only the edges added since the last one, and the
 * index is built from the RW edges alone (GeneralRW: 6 rounds, each a
 * build over all ~110 k known edges with an activity mask before, ~20 M
 * instructions in all). */
typedef struct psi_anti_keep {
    psi_edge *rw;    /* the known RW edges, in known order */
    uint32_t *rw_id; /* their indices in the known array */
    size_t n, cap;
    uint64_t scanned; /* known edges looked at */
    psi_graph g;      /* the round's index, rebuilt into the same arrays */
    uint32_t *row, *min;
    uint8_t *state;
    size_t cap_row, cap_state, cap_min; /* room of row, state, min (cells) */
} psi_anti_keep;

static void anti_keep_free(psi_anti_keep *k)
{
    free(k->rw);
    free(k->rw_id);
    psi_graph_free(&k->g);
    free(k->row);
    free(k->min);
    free(k->state);
    memset(k, 0, sizeof *k);
}

#ifndef NDEBUG
/* k's RW edges are exactly g's known RW edges, in order. */
static bool anti_keep_matches(const psi_anti_keep *k, const psi_polygraph *g)
{
    size_t j = 0;
    for (uint64_t i = 0; i < g->n_known; i++) {
        if (!psi_edge_is_anti((psi_edge_type)g->known[i].type))
            continue;
        if (j >= k->n || k->rw_id[j] != i || memcmp(&k->rw[j], &g->known[i], sizeof(psi_edge)) != 0)
            return false;
        j++;
    }
    return j == k->n;
}
#endif

/* res->psi_rw_drop (prune.h) from the final known graph's reach r and
 * its RW edges k (the last round's). */
static psi_status psi_rw_drop(const psi_reach *r, const psi_polygraph *g, const psi_anti_keep *k,
                              psi_prune_result *res, psi_diag *d)
{
    assert(k->scanned == g->n_known);
    uint8_t *drop = calloc(g->n_known ? g->n_known : 1, 1);
    /* per tail: 1 when it has a known RW edge kept, 2 when one of its
     * dominated ones is kept for want of another */
    uint8_t *tail = calloc(g->n_nodes ? g->n_nodes : 1, 1);
    if (!drop || !tail) {
        free(drop);
        free(tail);
        return psi_diag_nomem(d, "pruning");
    }
    for (size_t i = 0; i < k->n; i++) {
        const psi_edge *e = &k->rw[i];
        if (e->from != e->to && psi_reach_to(r, e->from, e->to))
            drop[k->rw_id[i]] = 1;
        else
            tail[e->from] = 1;
    }
    uint64_t n = 0;
    for (size_t i = 0; i < k->n; i++) {
        uint32_t id = k->rw_id[i], a = k->rw[i].from;
        if (drop[id] && !tail[a]) {
            drop[id] = 0; /* a's first dominated edge: a keeps it */
            tail[a] = 2;
        }
        n += drop[id];
    }
    free(tail);
    if (!n) {
        free(drop);
        return PSI_OK;
    }
    res->psi_rw_drop = drop;
    res->n_psi_rw_drop = n;
    res->psi_rw_drop_of = g->n_known;
    return PSI_OK;
}

/* RULE_PSI: the known RW edges indexed both ways; *bad gets the first
 * (lowest-index) known RW edge whose head reaches its tail over DEP (a
 * cycle with one RW edge, which the DEP-only reach cannot see), else
 * stays UINT32_MAX. The test walks the index by head, so that each head's
 * frontier row is read once for all its RW edges instead of once per
 * edge in the known array's order (a cache miss each: ~2.5 % of PSI's
 * check on GeneralWH); the lowest index of all hits is the one a scan in
 * known order finds first (the index numbers its edges in known order). */
static psi_status psi_anti_build(const psi_reach *r, const psi_polygraph *g, psi_anti_keep *k,
                                 psi_anti_index *ai, uint32_t *bad, psi_diag *d)
{
    for (uint64_t i = k->scanned; i < g->n_known; i++) {
        if (!psi_edge_is_anti((psi_edge_type)g->known[i].type))
            continue;
        size_t c1 = k->cap, c2 = k->cap;
        if (!psi_grow((void **)&k->rw, &c1, k->n + 1, sizeof *k->rw) ||
            !psi_grow((void **)&k->rw_id, &c2, k->n + 1, sizeof *k->rw_id))
            return psi_diag_nomem(d, "pruning");
        k->cap = c1 < c2 ? c1 : c2;
        k->rw[k->n] = g->known[i];
        k->rw_id[k->n++] = (uint32_t)i;
    }
    k->scanned = g->n_known;
    assert(anti_keep_matches(k, g));
    psi_edge_view v = {.first = k->rw, .n = k->n};
    psi_status st = psi_graph_rebuild(&k->g, g->n_nodes, &v, PSI_GRAPH_IN, k->cap, d);
    if (st != PSI_OK)
        return st == PSI_ERR_NOMEM ? psi_diag_nomem(d, "pruning") : st;
    ai->g = &k->g;
    ai->rw_id = k->rw_id;
    const psi_graph *ag = &k->g;
    uint32_t first = UINT32_MAX; /* the index's edge ids ascend with known ones */
    for (uint32_t t = 0; t < g->n_nodes; t++) {
        uint64_t b, e;
        psi_graph_in(ag, t, false, &b, &e);
        for (; b < e; b++)
            if (ag->in_eid[b] < first && psi_reach_to(r, t, ag->in_src[b]))
                first = ag->in_eid[b];
    }
    if (first != UINT32_MAX) {
        *bad = k->rw_id[first];
        return PSI_OK; /* the round ends with that cycle: no tests */
    }
    /* ai->rw_min: room for a row per node with an RW successor, each
     * made when first asked for (psi_anti_closes) */
    size_t n = g->n_nodes ? g->n_nodes : 1;
    if (!psi_grow((void **)&k->row, &k->cap_row, n, sizeof *k->row) ||
        !psi_grow((void **)&k->state, &k->cap_state, n, sizeof *k->state))
        return psi_diag_nomem(d, "pruning");
    uint64_t n_rows = 0;
    for (uint32_t x = 0; x < g->n_nodes; x++) {
        uint64_t b, e;
        psi_graph_out(ag, x, false, &b, &e);
        k->row[x] = b < e ? (uint32_t)n_rows++ : UINT32_MAX;
    }
    memset(k->state, ROW_UNMADE, n);
    if (!psi_grow((void **)&k->min, &k->cap_min, n_rows * r->n_sessions + 1, sizeof *k->min))
        return psi_diag_nomem(d, "pruning");
    ai->rw_row = k->row;
    ai->rw_min = k->min;
    ai->rw_state = k->state;
    return PSI_OK;
}

#ifndef NDEBUG
/* x's index of SO and WR edges by target is the in-rows a fresh build
 * gives (psi_graph_build, PSI_GRAPH_IN over them). */
static bool pc_index_matches(const psi_pc_extra *x, const psi_polygraph *g)
{
    uint8_t *sw = malloc(g->n_known ? g->n_known : 1);
    if (!sw)
        return true; /* nothing to compare with */
    for (uint64_t i = 0; i < g->n_known; i++)
        sw[i] = g->known[i].type == PSI_EDGE_SO || g->known[i].type == PSI_EDGE_WR;
    psi_edge_view v = {.first = g->known, .n = g->n_known, .active = sw};
    psi_graph ag;
    bool ok = true;
    if (psi_graph_build(&ag, g->n_nodes, &v, PSI_GRAPH_IN | PSI_GRAPH_IN_ONLY, NULL) == PSI_OK) {
        ok = x->sw_of == g->n_known && x->sw_nodes == g->n_nodes;
        for (uint32_t u = 0; ok && u < g->n_nodes; u++) {
            uint64_t b, e;
            psi_graph_in(&ag, u, false, &b, &e);
            ok = b == x->sw_off[u] && e == x->sw_off[u + 1];
            for (; ok && b < e; b++)
                ok = ag.in_eid[b] == x->sw_id[b];
        }
        psi_graph_free(&ag);
    }
    free(sw);
    return ok;
}
#endif

/* RULE_PC: the known SO and WR edges by target are ai->pc's index, which
 * the reach's build brought up to date (psi_pc_reach_build); *bad gets a
 * known RW edge that closes a cycle after one of them (pc_rw_cycle). */
static psi_status pc_index_build(const psi_reach *r, const psi_polygraph *g, psi_anti_index *ai,
                                 uint32_t *bad)
{
    assert(pc_index_matches(ai->pc, g));
    /* A known RW edge x -> y after a known SO or WR edge p -> x with y
     * reaching p (or y == p) is a forbidden cycle of known edges, and one
     * of the reach's view too (level_pc.h: the view's paths are PC's,
     * composed pairs included), unless pairs were left out: the reach
     * found no cycle, so only then can the scan find one. */
    bool scan = ai->pc->capped;
#ifndef NDEBUG
    scan = true; /* debug builds scan anyway, to check that */
#endif
    if (!scan)
        return PSI_OK;
    uint64_t via;
    for (uint64_t i = 0; i < g->n_known && *bad == UINT32_MAX; i++) {
        const psi_edge *e = &g->known[i];
        if (psi_edge_is_anti((psi_edge_type)e->type) && pc_rw_cycle(r, ai, e->from, e->to, &via))
            *bad = (uint32_t)i;
    }
    assert(ai->pc->capped || *bad == UINT32_MAX);
    return PSI_OK;
}

static psi_status psi_known_anti_cycle(const psi_reach *r, const psi_polygraph *g, uint32_t rw,
                                       psi_prune_result *res, psi_diag *d)
{
    const psi_edge *e = &g->known[rw];
    uint32_t *path = NULL, n = 0;
    psi_status st = psi_reach_path(r, e->to, e->from, &path, &n, d);
    if (st != PSI_OK)
        return st;
    res->cycle[0] = malloc(((size_t)n + 1) * sizeof *res->cycle[0]);
    if (!res->cycle[0]) {
        free(path);
        return psi_diag_nomem(d, "recording a cycle");
    }
    res->cycle[0][0] = *e;
    for (uint32_t i = 0; i < n; i++)
        res->cycle[0][i + 1] = g->known[path[i]];
    res->cycle_len[0] = n + 1;
    res->outcome = PSI_PRUNE_KNOWN_CYCLE;
    free(path);
    return PSI_OK;
}

/* pc: the reach is PC's (level_pc.h), whose composed edges are turned
 * back into their two known edges; else NULL. */
static psi_status known_cycle(const psi_reach *r, const psi_polygraph *g, const psi_pc_extra *pc,
                              uint32_t node, psi_prune_result *res, psi_diag *d)
{
    uint32_t *path = NULL, n = 0;
    psi_status st = psi_reach_cycle(r, node, &path, &n, d);
    if (st != PSI_OK)
        return st;
    res->cycle[0] = malloc((n ? 2 * (size_t)n : 1) * sizeof *res->cycle[0]);
    if (!res->cycle[0]) {
        free(path);
        return psi_diag_nomem(d, "recording a cycle");
    }
    if (pc) {
        n = psi_pc_path(pc, g, path, n, res->cycle[0]);
    } else {
        for (uint32_t i = 0; i < n; i++)
            res->cycle[0][i] = g->known[path[i]];
    }
    res->cycle_len[0] = n;
    res->outcome = PSI_PRUNE_KNOWN_CYCLE;
    free(path);
    return PSI_OK;
}

/* Frontier cells (rows x sessions) from which a round counts as large
 * for the early stop (prune.h exact): below, a round costs little and the
 * fixpoint is kept. */
#define EARLY_STOP_CELLS (1u << 22)

/* A large round resolving (constraints) and settling (read-from choices)
 * fewer than this share of the open constraints, in percent, is the
 * last. */
#define EARLY_STOP_PERCENT 1u

/* The same for histories with reads that have a choice of writers. Their
 * rounds test every open choice's edges too, and their last rounds yield
 * little while the solver is cheap on what they leave: VeriStrong's 20k
 * set (50 x 400 x 8, values 1..10) under SI ran 9 rounds, of which rounds
 * 7-9 resolved 38 of 13,932 constraints at 0.015-0.025 s CPU each, and
 * the solver took 0.044 s for the 13,894 left. So they stop from 2^17 cells
 * (10^4 transactions in 25 sessions under SER) and below 5 %; the tests'
 * small histories still reach the fixpoint. Exact either way: an open
 * constraint is the solver's to decide. */
#define CHOICE_STOP_CELLS   (1u << 17)
#define CHOICE_STOP_PERCENT 5u

/* With read-from choices, rounds do not stop early while more
 * constraints than this are open: the early stop hands the rest to the
 * solver on the premise that it is cheap there, and tens of millions of
 * open constraints are not. 10^5 transactions with values 1..4 (bench/
 * README, "i11w") seed 62.7 M writer pairs (99.5 % of the cross-session
 * ones); stopped after 3 rounds with most of them open, encoding them
 * passed 18 GB under SI (killed) and 13 GB under SER, while SER's rounds
 * to the fixpoint reject in round 6 at 3.7 GB. The largest count open
 * when the stop fires on the other duplicate-value benchmarks is far
 * below (100k values 1..16: 182,573 generated in all). Exact either way:
 * only when the rounds stop changes. */
#define CHOICE_STOP_OPEN (1u << 22)

/* Read-from choices from which the passes before seeding probe the
 * ordered writer pairs' conditional edges (prune.h probe_choices). */
#define PROBE_CHOICES (1u << 20)

/* The known graph's cycle check alone, after rounds stopped early. */
static psi_status final_cycle_check(const psi_history *h, psi_polygraph *g, psi_prune_rule ser,
                                    psi_reach_keep *keep, psi_prune_result *res, psi_diag *d)
{
    psi_reach r;
    uint32_t cyc;
    /* the rounds' graph, extended by their last edges (keep, append) */
    psi_reach_cfg cfg = {.threads = 1, .no_frontier = true, .keep = keep, .append = true};
    psi_status st = psi_reach_build_cfg(&r, h, g, ser == RULE_SI, false, &cfg, &cyc, d);
    if (st != PSI_OK)
        return st;
    if (cyc != UINT32_MAX)
        st = known_cycle(&r, g, NULL, cyc, res, d);
    psi_reach_free(&r);
    return st;
}

/* Frontier cells from which the default thread count (prune.h threads)
 * runs workers. Below, one thread spends less CPU: every worker walks all
 * nodes and edges for its share of the columns. VeriStrong's 20k set
 * (50 sessions: 25 columns a worker, both on one cache line of most rows;
 * 1.0 M cells under SER, 2.0 M under SI) took 165 ms CPU under SER with
 * the two workers of this 2-core machine against 148 ms with one (perf
 * stat, 10 runs), for a few ms less wall time. The 10^5 growth history
 * (10 M cells under SI) keeps its workers. */
#define PARALLEL_CELLS ((uint64_t)1 << 22)

static uint32_t online_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (uint32_t)n;
}

/* psi_prune with imp, scratch for psi_prune_choices, memo, psi_prune_resolve's
 * (its arrays NULL without read-from choices), *rwbuf, psi_prune_new_rw's
 * (made when first needed), *maxpos, psi_prune_rw_maxpos's (the same),
 * and the frontier buffer,
 * the graph's arrays and PSI's RW index kept across rounds (*fbuf, *fcap,
 * *keep, *ak; the caller frees them). */
static psi_status prune_rounds(const psi_history *h, psi_polygraph *g, const psi_prune_opts *opts,
                               psi_prune_result *res, uint8_t *imp, psi_creader_memo *memo,
                               uint8_t **rwbuf, uint32_t **maxpos, uint32_t **fbuf, size_t *fcap,
                               psi_reach_keep *keep, psi_anti_keep *ak, psi_diag *d)
{
    /* The rounds only append known edges: each build recomputes only the
     * frontier rows they can change (reach.h buf_edges). */
    uint64_t fdone = 0;
    bool default_threads = !opts || !opts->threads;
    psi_reach_cfg cfg = {.threads = default_threads ? online_cores() : opts->threads,
                         .parallel_cells = default_threads ? PARALLEL_CELLS : 0,
                         .buf = fbuf,
                         .cap = fcap,
                         .buf_edges = &fdone,
                         .keep = keep};
    bool exact = !opts || opts->exact;
    bool choices = g->n_amb != 0;
    uint64_t stop_cells = opts && opts->stop_cells ? opts->stop_cells
                          : choices                ? CHOICE_STOP_CELLS
                                                   : EARLY_STOP_CELLS;
    uint64_t stop_percent = choices ? CHOICE_STOP_PERCENT : EARLY_STOP_PERCENT;
    uint64_t stop_open = !choices                  ? UINT64_MAX
                         : opts && opts->stop_open ? opts->stop_open
                                                   : CHOICE_STOP_OPEN;
    uint64_t probe_choices = opts && opts->probe_choices ? opts->probe_choices : PROBE_CHOICES;
    bool disabled = opts && opts->disabled;
    psi_prune_rule ser = opts && opts->dep_only ? (opts->psi  ? RULE_PSI
                                                   : opts->pc ? RULE_PC
                                                              : RULE_DEP)
                         : opts && opts->ser    ? RULE_SER
                                                : RULE_SI;
    /* the graph grows with the known edges; PC's reach is over views of
     * its own (level_pc.h) */
    cfg.append = ser != RULE_PC;
    const psi_progress *pr = opts ? opts->progress : NULL;
    psi_status st = PSI_OK;
    uint64_t csucc_sorted = 0; /* shared edges already sorted (csucc_sort) */
    /* PC: the view of the reach, its buffers kept across rounds (level_pc.h) */
    psi_pc_extra pcx = {.full = opts && opts->pc_unreduced};
    /* whether the last round tested every open constraint, against a
     * reach of the first tested_known known edges */
    bool tested = false;
    uint64_t tested_known = 0;
    uint64_t seeded_csucc = 0; /* seeding's shared edges, probed before (seeded_end) */
    for (;;) {
        psi_reach r;
        uint32_t cyc;
        res->rounds++;
        uint64_t built_of = g->n_known; /* the known edges this round's reach is built from */
        if (res->n_round_known < PSI_PRUNE_ROUND_MARKS)
            res->round_known[res->n_round_known++] = g->n_known;
        else
            res->round_marks_full = true;
        psi_progress_report(pr, "prune", 0, g->n_cons, res->rounds);
        /* The known array's room is what the rounds' edges fill: the
         * graph's edge arrays get as much when they grow, so that they
         * grow about as seldom as it does. */
        keep->edge_room = g->cap_known;
        /* PC builds its own graph (level_pc.h) */
        st = ser == RULE_PC
                 ? psi_pc_reach_build(&r, &pcx, h, g, &cfg, &cyc, d)
                 : psi_reach_build_cfg(&r, h, g, ser == RULE_SI, ser == RULE_DEP || ser == RULE_PSI,
                                       &cfg, &cyc, d);
        if (st != PSI_OK)
            return st;
        psi_anti_index ai = {.pg = g, .pc = &pcx};
        if (ser == RULE_SI && g->n_amb && cyc == UINT32_MAX) {
            st = psi_prune_rw_maxpos(&r, g, built_of, maxpos, d);
            if (st != PSI_OK) {
                psi_reach_free(&r);
                psi_pc_free(&pcx);
                return st;
            }
            ai.rw_maxpos = *maxpos;
        }
        if ((ser == RULE_PSI || ser == RULE_PC) && cyc == UINT32_MAX) {
            uint32_t rw = UINT32_MAX;
            st = ser == RULE_PSI ? psi_anti_build(&r, g, ak, &ai, &rw, d)
                                 : pc_index_build(&r, g, &ai, &rw);
            if (st == PSI_OK && rw != UINT32_MAX && ser == RULE_PSI)
                st = psi_known_anti_cycle(&r, g, rw, res, d);
            if (st == PSI_OK && rw != UINT32_MAX && ser == RULE_PC) {
                psi_edge rwe = g->known[rw];
                st = pc_closing_cycle(&r, &ai, &rwe, &res->cycle[0], &res->cycle_len[0], d);
                res->outcome = PSI_PRUNE_KNOWN_CYCLE;
            }
            if (st != PSI_OK || rw != UINT32_MAX) {
                psi_reach_free(&r);
                psi_pc_free(&pcx);
                return st;
            }
        }
        size_t bytes = psi_reach_bytes(&r);
        if (bytes > res->peak_bytes)
            res->peak_bytes = bytes;
        if (cyc != UINT32_MAX) {
            st = known_cycle(&r, g, ser == RULE_PC ? &pcx : NULL, cyc, res, d);
            psi_reach_free(&r);
            psi_pc_free(&pcx);
            return st;
        }
        if (disabled) {
            psi_reach_free(&r);
            psi_pc_free(&pcx);
            break;
        }
        if (g->pending) {
            /* Reads with a choice of writers first: the choices the known
             * graph alone settles make its WR edges known, so seeding
             * leaves far fewer writer pairs open (seed.c takes settled
             * choices as facts). */
            bool again = false;
            if (g->n_amb) {
                bool probe = g->n_choices >= probe_choices;
                res->probes += probe;
                st = psi_prune_settle_choices(h, &r, &ai, g, ser, probe, imp, &csucc_sorted, &again,
                                              d);
            }
            if (st == PSI_OK && !again)
                st = psi_seed_constraints(h, g, &r, d);
            psi_reach_free(&r);
            if (st != PSI_OK) {
                psi_pc_free(&pcx);
                return st;
            }
            if (!again)
                res->seeded = g->n_cons;
            seeded_csucc = !again && g->n_amb && g->n_choices >= probe_choices && ser != RULE_DEP
                               ? g->n_csucc
                               : 0;
            continue;
        }
        uint32_t changed = 0, open = 0;
        uint64_t cells = r.n_rows * r.n_sessions;
        memo->round = res->rounds;
        /* Every open constraint was tested by the last round's loop (or
         * found unchanged then, which comes to the same), against the
         * last build, which this one extends (r.changed). */
        const uint8_t *rw_new = NULL;
        if (tested && r.changed && (ser == RULE_SER || ser == RULE_SI))
            st = psi_prune_new_rw(g, ser == RULE_SI, tested_known, rwbuf, &rw_new, d);
        /* SER's round after seeding, on a reach extending seeding's (see
         * psi_seeded_open; optional transactions' keys seed ordered pairs) */
        bool after_seed = !tested && res->seeded && ser == RULE_SER && !g->opt && r.changed;
        for (uint32_t c = 0; c < g->n_cons && st == PSI_OK; c++) {
            const psi_constraint *con = &g->cons[c];
            if (pr && (c & 4095u) == 4095u)
                psi_progress_report(pr, "prune", c, g->n_cons, res->rounds);
            if (con->state != PSI_C_OPEN)
                continue;
            open++;
            side_check e = {.r = &r, .anti = &ai, .ser = ser, .g = g},
                       o = {.r = &r, .anti = &ai, .ser = ser, .g = g};
            if ((rw_new && psi_constraint_unchanged(&r, rw_new, con)) ||
                (after_seed && psi_seeded_open(&r, g, con))) {
#ifndef NDEBUG
                psi_constraint_for_each(g, con, true, check_edge, &e);
                psi_constraint_for_each(g, con, false, check_edge, &o);
                assert(!e.bad && !o.bad);
#endif
                continue;
            }
            psi_constraint_for_each(g, con, true, check_edge, &e);
            psi_constraint_for_each(g, con, false, check_edge, &o);
            if (e.bad && o.bad) {
                res->outcome = PSI_PRUNE_BOTH_SIDES;
                res->constraint = c;
                st = closing_cycle(&r, &ai, ser, &e.culprit, &res->cycle[0], &res->cycle_len[0], d);
                if (st == PSI_OK)
                    st = closing_cycle(&r, &ai, ser, &o.culprit, &res->cycle[1], &res->cycle_len[1],
                                       d);
                psi_reach_free(&r);
                psi_pc_free(&pcx);
                return st;
            }
            if (!e.bad && !o.bad)
                continue;
            st = psi_prune_resolve(g, c, !e.bad, memo, d);
            changed++;
        }
        tested = true;
        tested_known = built_of;
        uint32_t settled = 0;
        if (st == PSI_OK && g->n_amb)
            st = psi_prune_choices(&r, &ai, g, ser, imp, &csucc_sorted, true, rw_new,
                                   after_seed ? seeded_csucc : 0, &settled, d);
        /* PSI's last round: its reach is the final known graph's */
        if (st == PSI_OK && ser == RULE_PSI && !changed && !settled)
            st = psi_rw_drop(&r, g, ak, res, d);
        psi_reach_free(&r);
        if (st != PSI_OK) {
            psi_pc_free(&pcx);
            return st;
        }
        res->resolved += changed;
        if (!changed && !settled)
            break;
        if (!exact && (ser == RULE_SI || ser == RULE_SER) && cells >= stop_cells &&
            open - changed <= stop_open &&
            (uint64_t)(changed + settled) * 100 < (uint64_t)open * stop_percent) {
            res->stopped_early = true;
            /* the check needs no frontier: its cells go first */
            free(*fbuf);
            *fbuf = NULL;
            *fcap = 0;
            fdone = 0;
            st = final_cycle_check(h, g, ser, keep, res, d);
            if (st != PSI_OK || res->outcome != PSI_PRUNE_OK)
                return st;
            break;
        }
    }
    /* PC: the last round's reduction, for the encoding (prune.h) */
    if (ser == RULE_PC && !psi_pc_kept(&pcx, g, &res->pc_kept, &res->n_pc_kept)) {
        psi_pc_free(&pcx);
        return psi_diag_nomem(d, "pruning");
    }
    res->pc_kept_of = res->pc_kept ? g->n_known : 0;
    psi_pc_free(&pcx);
    /* No more known edges from here: return the doubling slack before the
     * solver copies them. */
    psi_polygraph_shrink(g);
    for (uint32_t c = 0; c < g->n_cons; c++) {
        const psi_constraint *con = &g->cons[c];
        if (con->state != PSI_C_OPEN)
            continue;
        res->remaining++;
        res->remaining_unknown_deps +=
            psi_constraint_side_size(g, con, true) + psi_constraint_side_size(g, con, false);
    }
    return PSI_OK;
}

psi_status psi_prune_known_graph(const psi_history *h, psi_polygraph *g, bool ser,
                                 psi_prune_result *res, psi_diag *d)
{
    memset(res, 0, sizeof *res);
    assert(!g->pending && !g->n_choices);
    psi_polygraph_shrink(g);
    return final_cycle_check(h, g, ser ? RULE_SER : RULE_SI, NULL, res, d);
}

psi_status psi_prune(const psi_history *h, psi_polygraph *g, const psi_prune_opts *opts,
                     psi_prune_result *res, psi_diag *d)
{
    memset(res, 0, sizeof *res);
    uint8_t *imp = g->n_choices ? malloc(g->n_choices) : NULL;
    size_t n_lists = g->cr_off ? g->n_cr_lists : 0;
    psi_creader_memo memo = {.flags = n_lists ? calloc(n_lists, sizeof *memo.flags) : NULL,
                             .txn = n_lists ? malloc(n_lists * sizeof *memo.txn) : NULL};
    if ((g->n_choices && !imp) || (n_lists && (!memo.flags || !memo.txn))) {
        free(imp);
        free(memo.flags);
        free(memo.txn);
        return psi_diag_nomem(d, "pruning read-from choices");
    }
    uint32_t *fbuf = NULL;
    size_t fcap = 0;
    psi_reach_keep keep = {0};
    psi_anti_keep ak = {0};
    uint8_t *rwbuf = NULL;
    uint32_t *maxpos = NULL;
    psi_status st =
        prune_rounds(h, g, opts, res, imp, &memo, &rwbuf, &maxpos, &fbuf, &fcap, &keep, &ak, d);
    free(rwbuf);
    free(maxpos);
    free(memo.flags);
    free(memo.txn);
    anti_keep_free(&ak);
    psi_reach_keep_free(&keep);
    free(fbuf);
    free(imp);
    return st;
}

void psi_prune_result_free(psi_prune_result *res)
{
    free(res->cycle[0]);
    free(res->cycle[1]);
    free(res->pc_kept);
    free(res->psi_rw_drop);
    memset(res, 0, sizeof *res);
}
