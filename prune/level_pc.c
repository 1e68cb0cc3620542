/* Prefix consistency's reachability: DEP plus composed SO/WR;RW edges
 * (see level_pc.h). */
#include "prune/level_pc.h"

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

/* The known edges below upto that are SO or WR (rw false), by target, or
 * RW (rw true), by source: CSR over transactions, entries are known-edge
 * indices in ascending order. */
static uint32_t idx_node(const psi_edge *e, bool rw)
{
    if (rw ? !psi_edge_is_anti((psi_edge_type)e->type) : !so_wr(e))
        return UINT32_MAX;
    return rw ? e->from : e->to;
}

static psi_status edge_index(const psi_polygraph *g, uint64_t upto, bool rw, uint32_t n,
                             uint64_t **off_out, uint32_t **ids_out, psi_diag *d)
{
    uint64_t *off = calloc((size_t)n + 1, sizeof *off);
    if (!off)
        return psi_diag_nomem(d, "pruning");
    for (uint64_t i = 0; i < upto; i++)
        if (idx_node(&g->known[i], rw) != UINT32_MAX)
            off[idx_node(&g->known[i], rw) + 1]++;
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
    for (uint64_t i = 0; i < upto; i++)
        if (idx_node(&g->known[i], rw) != UINT32_MAX)
            ids[fill[idx_node(&g->known[i], rw)]++] = (uint32_t)i;
    free(fill);
    *off_out = off;
    *ids_out = ids;
    return PSI_OK;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The pairs of x->comp (an old RW edge, sorted) and b[0..nb) (RW << 32 |
 * SO/WR, sorted) merged in place from the back: both are in (RW, SO/WR)
 * order, so the result is too. */
static void merge_pairs(psi_pc_extra *x, const uint64_t *b, uint64_t nb)
{
    uint64_t i = x->n_comp, j = nb, o = x->n_comp + nb;
    while (j) {
        uint64_t bk = b[j - 1];
        if (i && ((uint64_t)x->comp[i - 1][1] << 32 | x->comp[i - 1][0]) > bk) {
            x->comp[--o][0] = x->comp[i - 1][0];
            x->comp[o][1] = x->comp[--i][1];
        } else {
            x->comp[--o][0] = (uint32_t)bk;
            x->comp[o][1] = (uint32_t)(bk >> 32);
            j--;
        }
    }
    x->n_comp += nb;
}

psi_status psi_pc_reach_build(psi_reach *r, psi_pc_extra *x, const psi_history *h,
                              const psi_polygraph *g, uint32_t *cycle_node, psi_diag *d)
{
    /* the view's known part is still there up to n_view; the composed
     * pairs are complete over the known edges below n0 */
    uint64_t n_view = x->n_known, n0 = x->capped ? 0 : x->n_known, n1 = g->n_known;
    assert(n_view <= n1);
    if (!n0)
        x->n_comp = 0;
    x->capped = false;
    uint64_t *off = NULL, *roff = NULL, *b = NULL;
    uint32_t *ids = NULL, *rids = NULL;
    psi_status st = edge_index(g, n1, false, h->n_txns, &off, &ids, d);
    if (st == PSI_OK)
        st = edge_index(g, n0, true, h->n_txns, &roff, &rids, d);
    if (st != PSI_OK)
        goto out;
    uint64_t cap = COMP_PER_KNOWN * n1 + COMP_FLOOR;
    if (cap > UINT32_MAX - n1)
        cap = UINT32_MAX - n1; /* view ids are 32-bit */
    /* the new pairs: an old RW edge after a new SO/WR edge (b, to merge),
     * and a new RW edge after any SO/WR edge (after every old pair) */
    uint64_t nb = 0, na = 0;
    for (uint64_t j = n0; j < n1; j++)
        if (so_wr(&g->known[j]))
            nb += roff[g->known[j].to + 1] - roff[g->known[j].to];
    for (uint64_t i = n0; i < n1; i++)
        if (psi_edge_is_anti((psi_edge_type)g->known[i].type))
            na += off[g->known[i].from + 1] - off[g->known[i].from];
    b = malloc((nb ? nb : 1) * sizeof *b);
    if (!b || !psi_grow((void **)&x->comp, &x->cap_comp, x->n_comp + nb + na, sizeof *x->comp))
        goto nomem;
    uint64_t k = 0;
    for (uint64_t j = n0; j < n1; j++)
        if (so_wr(&g->known[j]))
            for (uint64_t q = roff[g->known[j].to]; q < roff[g->known[j].to + 1]; q++)
                b[k++] = (uint64_t)rids[q] << 32 | j;
    assert(k == nb);
    if (nb > 1)
        qsort(b, nb, sizeof *b, u64_cmp);
    merge_pairs(x, b, nb);
    for (uint64_t i = n0; i < n1; i++) {
        const psi_edge *rw = &g->known[i];
        if (!psi_edge_is_anti((psi_edge_type)rw->type))
            continue;
        for (uint64_t j = off[rw->from]; j < off[rw->from + 1]; j++) {
            x->comp[x->n_comp][0] = ids[j];
            x->comp[x->n_comp++][1] = (uint32_t)i;
        }
    }
    /* beyond the cap the rest are left out (the first cap pairs in
     * order, as from scratch), and the next build starts from scratch */
    if (x->n_comp > cap) {
        x->n_comp = cap;
        x->capped = true;
    }
    x->n_known = n1;
    if (!psi_grow((void **)&x->view, &x->cap_view, n1 + x->n_comp, sizeof *x->view) ||
        !psi_grow((void **)&x->active, &x->cap_active, n1 + x->n_comp, sizeof *x->active))
        goto nomem;
    if (n1 > n_view)
        memcpy(x->view + n_view, g->known + n_view, (n1 - n_view) * sizeof *x->view);
    for (uint64_t i = n_view; i < n1; i++)
        x->active[i] = !psi_edge_is_anti((psi_edge_type)g->known[i].type);
    for (uint64_t c = 0; c < x->n_comp; c++) {
        const psi_edge *p = &g->known[x->comp[c][0]], *rw = &g->known[x->comp[c][1]];
        assert(so_wr(p) && psi_edge_is_anti((psi_edge_type)rw->type) && p->to == rw->from);
        /* typed as DEP so that the plain graph keeps it; its id says what
         * it is */
        x->view[n1 + c] = (psi_edge){.from = p->from,
                                     .to = rw->to,
                                     .key = rw->key,
                                     .type = PSI_EDGE_WR,
                                     .origin = rw->origin};
        x->active[n1 + c] = 1;
    }
    psi_edge_view v = {.first = x->view, .n = n1 + x->n_comp, .active = x->active};
    st = psi_reach_build_view(r, h, &v, cycle_node, d);
    goto out;
nomem:
    st = psi_diag_nomem(d, "pruning");
out:
    free(off);
    free(ids);
    free(roff);
    free(rids);
    free(b);
    if (st != PSI_OK)
        psi_pc_free(x);
    return st;
}

void psi_pc_free(psi_pc_extra *x)
{
    free(x->comp);
    free(x->view);
    free(x->active);
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
