/* Prefix consistency's reachability: the reduced known graph's DEP edges
 * plus composed SO/WR;RW edges (see level_pc.h). */
#include "prune/level_pc.h"

#include "core/known_reduce.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Composed edges allowed per known edge (plus a floor): beyond it the
 * rest are left out, which only prunes less (the solver still sees every
 * cycle), and keeps memory near the known graph's on readers of many
 * writers. */
#define COMP_PER_KNOWN 8u
#define COMP_FLOOR     (1u << 20)

static bool so_wr(const psi_edge *e)
{
    return e->type == PSI_EDGE_SO || e->type == PSI_EDGE_WR;
}

/* The known edges PC's rules keep (core/known_reduce.h), as a bitmap in
 * *keep (x->keep, for g->n_known edges: x->keep_of); NULL when every edge
 * is kept (x->full, or too many edges for 32-bit ids). The packed copy of
 * the edges is x's, brought up to the round's edges. Returns false on
 * ENOMEM. */
static bool kept_edges(psi_pc_extra *x, const psi_polygraph *g, uint64_t **keep)
{
    *keep = NULL;
    x->keep_of = 0;
    if (x->full || !g->n_known || g->n_known >= UINT32_MAX)
        return true;
    /* This round marks only the edges the last one kept and the new ones
     * (GeneralRW keeps about a third of its known edges): the rules and
     * the appends read the dropped ones no more. Taken out here, not after
     * the marking, so that the last round does not pay for it. */
    if (x->keep_packed && x->keep_packed == x->packed.n_edges)
        psi_known_packed_drop(&x->packed, x->keep);
    x->keep_packed = 0;
    size_t words = (size_t)(g->n_known + 63) / 64;
    if (!psi_grow((void **)&x->keep, &x->cap_keep, words, sizeof *x->keep))
        return false;
    memset(x->keep, 0, words * sizeof *x->keep);
    if (!psi_known_packed_update(&x->packed, g) ||
        !psi_known_packed_mark(&x->packed, PSI_RULES_PC, x->keep))
        return false;
#ifndef NDEBUG
    /* the packing lacks the edges earlier rounds dropped: the rules keep
     * the same ones as on every edge (known_reduce.c) */
    uint64_t *all = calloc(words, sizeof *all);
    if (all && psi_known_mark_kept(g, PSI_RULES_PC, all))
        assert(memcmp(all, x->keep, words * sizeof *all) == 0);
    free(all);
#endif
    x->keep_packed = x->packed.n_edges;
    *keep = x->keep;
    x->keep_of = g->n_known;
    return true;
}

/* The place of w's lowest set bit (w != 0). */
static uint64_t lowest_bit(uint64_t w)
{
#if defined(__GNUC__)
    return (uint64_t)__builtin_ctzll(w);
#else
    uint64_t k = 0;
    for (; !(w & 1u); w >>= 1)
        k++;
    return k;
#endif
}

/* How many bits of w are set. */
static uint64_t bit_count(uint64_t w)
{
#if defined(__GNUC__)
    return (uint64_t)__builtin_popcountll(w);
#else
    uint64_t k = 0;
    for (; w; w &= w - 1)
        k++;
    return k;
#endif
}

/* The first kept edge at or after i (n if none): whole words of dropped
 * edges are skipped at once (most edges are dropped on large histories). */
static uint64_t next_kept(const uint64_t *keep, uint64_t i, uint64_t n)
{
    if (!keep)
        return i;
    while (i < n) {
        uint64_t w = keep[i / 64] >> (i % 64);
        if (!w) {
            i = (i | 63u) + 1;
            continue;
        }
        return i + lowest_bit(w);
    }
    return n;
}

/* One pass over the kept edges (ascending): the kept DEP edges into
 * x->base and, copied, into x->view (grown to hold every known edge), the
 * kept RW ones into x->rws (*n_rw of them). Each kept edge is read from
 * the known array once. Returns false on ENOMEM. */
static bool gather_kept(const psi_polygraph *g, const uint64_t *keep, psi_pc_extra *x,
                        uint64_t *n_rw)
{
    uint64_t n1 = g->n_known ? g->n_known : 1;
    *n_rw = 0;
    if (!psi_grow((void **)&x->rws, &x->cap_rws, n1, sizeof *x->rws) ||
        !psi_grow((void **)&x->base, &x->cap_base, n1, sizeof *x->base) ||
        !psi_grow((void **)&x->view, &x->cap_view, g->n_known + 1, sizeof *x->view))
        return false;
    for (uint64_t i = next_kept(keep, 0, g->n_known); i < g->n_known;
         i = next_kept(keep, i + 1, g->n_known)) {
        const psi_edge *e = &g->known[i];
        if (psi_edge_is_anti((psi_edge_type)e->type)) {
            x->rws[(*n_rw)++] = (uint32_t)i;
            continue;
        }
        x->view[x->n_base] = *e;
        x->base[x->n_base++] = (uint32_t)i;
    }
    return true;
}

static bool is_kept(const uint64_t *keep, uint64_t i)
{
    return !keep || (keep[i / 64] >> (i % 64) & 1u);
}

psi_status psi_pc_reach_build(psi_reach *r, psi_pc_extra *x, const psi_history *h,
                              const psi_polygraph *g, const psi_reach_cfg *cfg,
                              uint32_t *cycle_node, psi_diag *d)
{
    uint64_t n1 = g->n_known, *keep = NULL, n_rw = 0;
    psi_status st = PSI_OK;
    x->n_base = 0;
    x->n_comp = 0;
    /* known indices are 32-bit in the view and the SO/WR index */
    if (n1 >= UINT32_MAX) {
        st = psi_diag_set(d, PSI_ERR_LIMIT, "%llu dependencies exceed the graph's edge ids",
                          (unsigned long long)n1);
        goto out;
    }
    if (!kept_edges(x, g, &keep) || !gather_kept(g, keep, x, &n_rw) || !psi_pc_sw_update(x, g))
        goto nomem;
    uint64_t cap = COMP_PER_KNOWN * n1 + COMP_FLOOR;
    if (cap > UINT32_MAX - x->n_base)
        cap = UINT32_MAX - x->n_base; /* view ids are 32-bit */
    /* By RW edge, then kept SO/WR edge into its tail (the index's row, in
     * known order); beyond the cap the rest are left out. */
    x->capped = false;
    for (uint64_t j = 0; j < n_rw && !x->capped; j++) {
        uint32_t i = x->rws[j];
        const psi_edge *rw = &g->known[i];
        uint64_t b = x->sw_off[rw->from], e = x->sw_off[rw->from + 1];
        /* room for the whole row: its kept edges are among it */
        if (!psi_grow((void **)&x->comp, &x->cap_comp, x->n_comp + (e - b), sizeof *x->comp) ||
            !psi_grow((void **)&x->view, &x->cap_view, x->n_base + x->n_comp + (e - b) + 1,
                      sizeof *x->view))
            goto nomem;
        for (; b < e; b++) {
            uint32_t pi = x->sw_id[b];
            if (!is_kept(keep, pi))
                continue;
            if (x->n_comp == cap) {
                x->capped = true;
                break;
            }
            const psi_edge *p = &g->known[pi];
            assert(so_wr(p) && psi_edge_is_anti((psi_edge_type)rw->type) && p->to == rw->from);
            /* typed as DEP so that the plain graph keeps it; its id says
             * what it is */
            x->view[x->n_base + x->n_comp] = (psi_edge){.from = p->from,
                                                        .to = rw->to,
                                                        .key = rw->key,
                                                        .type = PSI_EDGE_WR,
                                                        .origin = rw->origin};
            x->comp[x->n_comp][0] = pi;
            x->comp[x->n_comp++][1] = i;
        }
    }
    psi_edge_view v = {.first = x->view, .n = x->n_base + x->n_comp};
    /* the view is rebuilt each round, not appended to: its rows are never
     * reused (reach.h buf_edges) */
    psi_reach_cfg fresh = cfg ? *cfg : (psi_reach_cfg){0};
    fresh.buf_edges = NULL;
    st = psi_reach_build_view(r, h, &v, cfg ? &fresh : NULL, cycle_node, d);
    goto out;
nomem:
    st = psi_diag_nomem(d, "pruning");
out:
    if (st != PSI_OK)
        psi_pc_free(x);
    return st;
}

void psi_pc_free(psi_pc_extra *x)
{
    free(x->base);
    free(x->comp);
    free(x->view);
    psi_known_packed_free(&x->packed);
    free(x->keep);
    free(x->rws);
    free(x->by_to_off);
    free(x->sw_off);
    free(x->sw_id);
    bool full = x->full;
    memset(x, 0, sizeof *x);
    x->full = full;
}

bool psi_pc_sw_update(psi_pc_extra *x, const psi_polygraph *g)
{
    uint32_t n = g->n_nodes;
    assert(g->n_known < UINT32_MAX);
    if (!x->sw_off || x->sw_nodes != n || x->sw_of > g->n_known) {
        free(x->sw_off);
        x->sw_off = calloc((size_t)n + 1, sizeof *x->sw_off);
        x->sw_nodes = n;
        x->sw_of = 0;
        if (!x->sw_off)
            goto nomem;
    }
    if (!psi_grow((void **)&x->by_to_off, &x->cap_by_to_off, (size_t)n + 1, sizeof *x->by_to_off))
        goto nomem;
    bool any = false; /* later rounds often add no SO or WR edge */
    for (uint64_t i = x->sw_of; i < g->n_known && !any; i++)
        any = so_wr(&g->known[i]);
    if (!any) {
        x->sw_of = g->n_known;
        return true;
    }
    uint32_t *off = x->sw_off;
    uint64_t *add = x->by_to_off;
    /* add[v + 1]: v's new edges, then (summed) the new edges of targets
     * <= v: row v moves right by add[v] */
    memset(add, 0, ((size_t)n + 1) * sizeof *add);
    for (uint64_t i = x->sw_of; i < g->n_known; i++)
        if (so_wr(&g->known[i]))
            add[g->known[i].to + 1]++;
    for (uint32_t v = 0; v < n; v++)
        add[v + 1] += add[v];
    if (!psi_grow((void **)&x->sw_id, &x->cap_sw, off[n] + add[n] ? off[n] + add[n] : 1,
                  sizeof *x->sw_id))
        goto nomem;
    /* from the last row down, so that no row is overwritten before it
     * moves */
    for (uint32_t v = n; v-- > 0;) {
        uint32_t len = off[v + 1] - off[v];
        if (add[v] && len)
            memmove(x->sw_id + off[v] + add[v], x->sw_id + off[v], len * sizeof *x->sw_id);
    }
    /* add[v]: where v's next new edge goes, after its moved row */
    for (uint32_t v = 0; v < n; v++)
        add[v] += off[v + 1];
    for (uint64_t i = x->sw_of; i < g->n_known; i++)
        if (so_wr(&g->known[i]))
            x->sw_id[add[g->known[i].to]++] = (uint32_t)i;
    /* add[v] is now the end of v's row, the start of v + 1's */
    for (uint32_t v = 0; v < n; v++)
        off[v + 1] = (uint32_t)add[v];
    x->sw_of = g->n_known;
    return true;
nomem:
    psi_pc_free(x);
    return false;
}

bool psi_pc_kept(const psi_pc_extra *x, const psi_polygraph *g, uint32_t **kept, uint64_t *n)
{
    *kept = NULL;
    *n = 0;
    if (!x->keep || x->keep_of != g->n_known)
        return true;
    uint64_t m = 0; /* bits past n_known are clear */
    for (uint64_t w = 0; w < (g->n_known + 63) / 64; w++)
        m += bit_count(x->keep[w]);
    *kept = malloc((m ? m : 1) * sizeof **kept);
    if (!*kept)
        return false;
    for (uint64_t i = next_kept(x->keep, 0, g->n_known); i < g->n_known;
         i = next_kept(x->keep, i + 1, g->n_known))
        (*kept)[(*n)++] = (uint32_t)i;
    assert(*n == m);
    return true;
}

uint32_t psi_pc_path(const psi_pc_extra *x, const psi_polygraph *g, const uint32_t *path,
                     uint32_t n, psi_edge *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (path[i] < x->n_base) {
            out[k++] = g->known[x->base[path[i]]];
            continue;
        }
        uint64_t c = path[i] - x->n_base;
        assert(c < x->n_comp);
        out[k++] = g->known[x->comp[c][0]];
        out[k++] = g->known[x->comp[c][1]];
    }
    return k;
}
