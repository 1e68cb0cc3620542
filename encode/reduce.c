/* The known edges the acyclicity theory needs (see reduce.h).
 *
 * The rules that choose the kept edges, and why the theory finds the same
 * cycles with them, are core's (core/known_reduce.c): pruning uses them
 * too.
 *
 * Counterexamples name real dependencies: the theory's cycles consist of
 * kept edges, each a known edge of the polygraph (encode.c maps theory ids
 * back through the kept list). PC and PSI move WW and RW targets
 * (encode.h): they have rules of their own (psi_reduce_known_pc and
 * psi_reduce_known_dep, at the end of this file).
 *
 * The theory's order. The theory would sort its nodes by depth in the
 * edges it gets, and the solver's phases and decision order come from
 * that sort; a reduced graph's depths differ from the whole one's (a
 * dropped edge's replacement path is longer), so the sort keys are the
 * depths in every known edge, computed here (known_depth) and handed over
 * with psi_acyc_set_order_hint.
 *
 * Cost: linear in nodes + known edges; temporary memory 16 bytes per
 * known edge (the rules' packed copy, core/known_reduce.h) plus about 60
 * bytes per node, and for SI's and SER's depths 4 bytes per known edge
 * (the edges grouped by source) and 24 per node. */
#include "encode/reduce.h"

#include "core/known_reduce.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The sort keys (reduce.h) from every known edge, given them grouped by
 * source: each node's depth, the longest known path to it, by Kahn's
 * algorithm (FIFO: any topological order gives the longest paths) over
 * the theory's internal graph (SI: v0 = 2v, v1 = 2v + 1, DEP u -> w from
 * u0 and u1 to w0, ANTI u -> w from u0 to w1; acyclic.h). Returns NULL on
 * ENOMEM. */
static uint32_t *known_depth(const psi_polygraph *g, bool ser, const uint32_t *off,
                             const uint32_t *by_src)
{
    uint32_t N = g->n_nodes, M = ser ? N : 2 * N;
    uint32_t *indeg = calloc(M ? M : 1, sizeof *indeg), *depth = calloc(M ? M : 1, sizeof *depth);
    uint32_t *queue = malloc((M ? M : 1) * sizeof *queue), *key = NULL;
    if (!indeg || !depth || !queue)
        goto out;
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (ser)
            indeg[e->to]++;
        else if (psi_edge_is_anti((psi_edge_type)e->type))
            indeg[2 * e->to + 1]++;
        else
            indeg[2 * e->to] += 2; /* from u0 and from u1 */
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t x = 0; x < M; x++)
        if (!indeg[x])
            queue[tail++] = x;
    while (head < tail) {
        uint32_t x = queue[head++], u = ser ? x : x / 2;
        for (uint32_t j = off[u]; j < off[u + 1]; j++) {
            const psi_edge *e = &g->known[by_src[j]];
            bool anti = !ser && psi_edge_is_anti((psi_edge_type)e->type);
            if (anti && (x & 1u))
                continue; /* u1 has no ANTI edge out */
            uint32_t y = ser ? e->to : 2 * e->to + anti;
            if (depth[y] < depth[x] + 1)
                depth[y] = depth[x] + 1;
            if (--indeg[y] == 0)
                queue[tail++] = y;
        }
    }
    /* Nodes on a known cycle (only without pruning) keep the depth the
     * placed nodes gave them: a hint needs no more. */
    key = malloc((N ? N : 1) * sizeof *key);
    for (uint32_t v = 0; key && v < N; v++)
        key[v] = depth[ser ? v : 2 * v];
out:
    free(indeg);
    free(depth);
    free(queue);
    return key;
}

/* SI's or SER's rules (ser), or PC's (pc, below); key: as
 * psi_reduce_known's (SI and SER only). */
static psi_status reduce(const psi_polygraph *g, bool ser, bool pc, uint32_t **kept,
                         uint64_t *n_kept, uint32_t **key, psi_diag *d)
{
    assert(!pc || !key);
    *kept = NULL;
    *n_kept = g->n_known;
    if (key)
        *key = NULL;
    if (!g->n_known || g->n_known >= UINT32_MAX)
        return PSI_OK; /* nothing to drop, or ids would not fit: hand over all */
    uint32_t *off = NULL, *by_src = NULL;
    uint64_t *keep = calloc((size_t)(g->n_known + 63) / 64, sizeof *keep);
    psi_reduce_rules rules = pc ? PSI_RULES_PC : ser ? PSI_RULES_SER : PSI_RULES_SI;
    bool ok = keep && psi_known_mark_kept(g, rules, keep);
    uint64_t m = 0;
    for (uint64_t i = 0; ok && i < g->n_known; i++)
        m += keep[i / 64] >> (i % 64) & 1;
    if (ok && m < g->n_known) {
        *kept = malloc(m ? m * sizeof **kept : 1);
        ok = *kept != NULL;
        for (uint64_t i = 0, j = 0; ok && i < g->n_known; i++)
            if (keep[i / 64] >> (i % 64) & 1)
                (*kept)[j++] = (uint32_t)i;
        if (ok)
            *n_kept = m;
        if (ok && key) {
            ok = psi_known_group_by_source(g, &off, &by_src);
            *key = ok ? known_depth(g, ser, off, by_src) : NULL;
            ok = *key != NULL;
        }
    }
    free(off);
    free(by_src);
    free(keep);
    if (!ok) {
        free(*kept);
        *kept = NULL;
        *n_kept = g->n_known;
    }
    return ok ? PSI_OK : psi_diag_nomem(d, "reducing the known edges");
}

/* PC's rules, and why the theory finds the same cycles on its twin graph,
 * are core/known_reduce.c's ("Prefix consistency"). */

psi_status psi_reduce_known(const psi_polygraph *g, bool ser, uint32_t **kept, uint64_t *n_kept,
                            uint32_t **key, psi_diag *d)
{
    return reduce(g, ser, false, kept, n_kept, key, d);
}

psi_status psi_reduce_known_pc(const psi_polygraph *g, uint32_t **kept, uint64_t *n_kept,
                               psi_diag *d)
{
    return reduce(g, false, true, kept, n_kept, NULL, d);
}

/* PSI's theory keeps only DEP acyclic and level_psi.c asks which nodes
 * DEP paths reach: SER's rules applied to the DEP edges alone keep, for
 * each dropped DEP edge u -> w, a path u ~> w of kept DEP edges (above),
 * so DEP's transitive closure, and with it every answer PSI's theory and
 * refinement give, is the same. RW edges all stay (the theory sends them
 * to its sink; the refinement reads them). */
psi_status psi_reduce_known_dep(const psi_polygraph *g, uint32_t **kept, uint64_t *n_kept,
                                psi_diag *d)
{
    *kept = NULL;
    *n_kept = g->n_known;
    if (!g->n_known || g->n_known >= UINT32_MAX)
        return PSI_OK;
    psi_polygraph sub = *g;
    psi_edge *dep = malloc(g->n_known * sizeof *dep);
    uint32_t *sub_kept = NULL;
    uint64_t n_sub = 0, m = 0;
    if (!dep)
        return psi_diag_nomem(d, "reducing the known edges");
    for (uint64_t i = 0; i < g->n_known; i++)
        if (!psi_edge_is_anti((psi_edge_type)g->known[i].type))
            dep[m++] = g->known[i];
    sub.known = dep;
    sub.n_known = m;
    psi_status st = reduce(&sub, true, false, &sub_kept, &n_sub, NULL, d);
    if (st == PSI_OK && sub_kept) {
        *kept = malloc((g->n_known - m + n_sub) * sizeof **kept);
        if (!*kept)
            st = psi_diag_nomem(d, "reducing the known edges");
        uint64_t j = 0, x = 0, out = 0; /* j: DEP edges seen, x: into sub_kept */
        for (uint64_t i = 0; *kept && i < g->n_known; i++) {
            if (psi_edge_is_anti((psi_edge_type)g->known[i].type)) {
                (*kept)[out++] = (uint32_t)i;
                continue;
            }
            if (x < n_sub && sub_kept[x] == j)
                (*kept)[out++] = (uint32_t)i, x++;
            j++;
        }
        assert(!*kept || (x == n_sub && out == g->n_known - m + n_sub));
        if (*kept)
            *n_kept = out;
    }
    free(sub_kept);
    free(dep);
    return st;
}
