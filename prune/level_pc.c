/* Prefix consistency's reachability: DEP plus composed SO/WR;RW edges
 * (see level_pc.h). */
#include "prune/level_pc.h"

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

/* The SO and WR known edges by target: CSR over transactions, entries
 * are known-edge indices. */
static psi_status in_index(const psi_polygraph *g, uint32_t n, uint64_t **off_out,
                           uint32_t **ids_out, psi_diag *d)
{
    uint64_t *off = calloc((size_t)n + 1, sizeof *off);
    if (!off)
        return psi_diag_nomem(d, "pruning");
    for (uint64_t i = 0; i < g->n_known; i++)
        if (so_wr(&g->known[i]))
            off[g->known[i].to + 1]++;
    for (uint32_t v = 0; v < n; v++)
        off[v + 1] += off[v];
    uint32_t *ids = malloc((off[n] ? off[n] : 1) * sizeof *ids);
    uint64_t *fill = malloc(((size_t)n + 1) * sizeof *fill);
    if (!ids || !fill) {
        free(off);
        free(ids);
        free(fill);
        return psi_diag_nomem(d, "pruning");
    }
    memcpy(fill, off, ((size_t)n + 1) * sizeof *fill);
    for (uint64_t i = 0; i < g->n_known; i++)
        if (so_wr(&g->known[i]))
            ids[fill[g->known[i].to]++] = (uint32_t)i;
    free(fill);
    *off_out = off;
    *ids_out = ids;
    return PSI_OK;
}

psi_status psi_pc_reach_build(psi_reach *r, psi_pc_extra *x, const psi_history *h,
                              const psi_polygraph *g, uint32_t *cycle_node, psi_diag *d)
{
    memset(x, 0, sizeof *x);
    x->n_known = g->n_known;
    uint64_t *off = NULL;
    uint32_t *ids = NULL;
    psi_status st = in_index(g, h->n_txns, &off, &ids, d);
    if (st != PSI_OK)
        return st;
    uint64_t cap = COMP_PER_KNOWN * g->n_known + COMP_FLOOR;
    if (cap > UINT32_MAX - g->n_known)
        cap = UINT32_MAX - g->n_known; /* view ids are 32-bit */
    uint64_t n_comp = 0;
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (psi_edge_is_anti((psi_edge_type)e->type))
            n_comp += off[e->from + 1] - off[e->from];
    }
    if (n_comp > cap)
        n_comp = cap;
    psi_edge *view = malloc((g->n_known + n_comp ? g->n_known + n_comp : 1) * sizeof *view);
    uint8_t *active = malloc(g->n_known + n_comp ? g->n_known + n_comp : 1);
    x->comp = malloc((n_comp ? n_comp : 1) * sizeof *x->comp);
    if (!view || !active || !x->comp) {
        st = psi_diag_nomem(d, "pruning");
        goto out;
    }
    if (g->n_known)
        memcpy(view, g->known, g->n_known * sizeof *view);
    for (uint64_t i = 0; i < g->n_known; i++)
        active[i] = !psi_edge_is_anti((psi_edge_type)g->known[i].type);
    uint64_t k = 0;
    for (uint64_t i = 0; i < g->n_known && k < n_comp; i++) {
        const psi_edge *rw = &g->known[i];
        if (!psi_edge_is_anti((psi_edge_type)rw->type))
            continue;
        for (uint64_t j = off[rw->from]; j < off[rw->from + 1] && k < n_comp; j++) {
            const psi_edge *p = &g->known[ids[j]];
            assert(p->to == rw->from);
            /* typed as DEP so that the plain graph keeps it; its id says
             * what it is */
            view[g->n_known + k] = (psi_edge){.from = p->from,
                                              .to = rw->to,
                                              .key = rw->key,
                                              .type = PSI_EDGE_WR,
                                              .origin = rw->origin};
            active[g->n_known + k] = 1;
            x->comp[k][0] = ids[j];
            x->comp[k][1] = (uint32_t)i;
            k++;
        }
    }
    x->n_comp = k;
    psi_edge_view v = {.first = view, .n = g->n_known + k, .active = active};
    st = psi_reach_build_view(r, h, &v, cycle_node, d);
out:
    free(view);
    free(active);
    free(off);
    free(ids);
    if (st != PSI_OK)
        psi_pc_free(x);
    return st;
}

void psi_pc_free(psi_pc_extra *x)
{
    free(x->comp);
    memset(x, 0, sizeof *x);
}

uint32_t psi_pc_path(const psi_pc_extra *x, const psi_polygraph *g, const uint32_t *path,
                     uint32_t n, psi_edge *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (path[i] < x->n_known) {
            out[k++] = g->known[path[i]];
            continue;
        }
        uint64_t c = path[i] - x->n_known;
        assert(c < x->n_comp);
        out[k++] = g->known[x->comp[c][0]];
        out[k++] = g->known[x->comp[c][1]];
    }
    return k;
}
