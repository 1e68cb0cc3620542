/* The check of a history whose version order is known (see known_only.h). */
#include "check/known_only.h"

#include "core/prefetch.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* An out-edge of the per-key graph that is session order, not a hint. */
#define SO_BIT 0x80000000u

/* Scratch for the per-key orders, sized for the largest key as it goes. */
typedef struct kscratch {
    uint32_t *loc;   /* [n_txns] a writer's local index in the current key, else UINT32_MAX */
    uint32_t *indeg; /* [writers of the key] */
    uint32_t *off;   /* [writers + 1] out-edges per local writer (CSR) */
    uint32_t *adj;   /* out-edge heads, SO_BIT set on session order's */
    size_t cap_w, cap_off, cap_adj;
} kscratch;

/* The hints' edges grouped by key: eo[k]..eo[k+1] index into ek. */
typedef struct by_key {
    uint64_t *eo;
    uint64_t *ek;
} by_key;

static psi_status group_by_key(const psi_polygraph *g, const psi_hints *hs, by_key *bk, psi_diag *d)
{
    bk->eo = calloc((size_t)g->n_keys + 1, sizeof *bk->eo);
    bk->ek = malloc((hs->n ? hs->n : 1) * sizeof *bk->ek);
    if (!bk->eo || !bk->ek)
        return psi_diag_nomem(d, "ordering known versions");
    for (uint64_t i = 0; i < hs->n; i++)
        bk->eo[hs->e[i].key + 1]++;
    for (uint32_t k = 0; k < g->n_keys; k++)
        bk->eo[k + 1] += bk->eo[k];
    uint64_t *fill = malloc(((size_t)g->n_keys + 1) * sizeof *fill);
    if (!fill)
        return psi_diag_nomem(d, "ordering known versions");
    memcpy(fill, bk->eo, ((size_t)g->n_keys + 1) * sizeof *fill);
    for (uint64_t i = 0; i < hs->n; i++)
        bk->ek[fill[hs->e[i].key]++] = i;
    free(fill);
    return PSI_OK;
}

/* The one total order of key k's writers its direct edges give, as
 * indices into g->w_op, in chain[0..nw), with hinted[i] set when a hint
 * orders chain[i - 1] right before chain[i]; false when there is none
 * (two writers at once without an edge between them, or a cycle). */
static bool key_order(const psi_history *h, const psi_polygraph *g, const psi_hints *hs,
                      const by_key *bk, uint32_t k, kscratch *ks, uint32_t *chain, uint8_t *hinted,
                      bool *nomem)
{
    uint32_t b0 = g->w_off[k], nw = g->w_off[k + 1] - b0;
    /* Local indices keep SO_BIT free. */
    if (nw >= SO_BIT)
        return false;
    if (nw <= 1) {
        if (nw)
            chain[0] = b0;
        return true;
    }
    uint64_t nh = bk->eo[k + 1] - bk->eo[k];
    size_t m = (size_t)nh + nw;
    if (!psi_grow((void **)&ks->indeg, &ks->cap_w, nw, sizeof *ks->indeg) ||
        !psi_grow((void **)&ks->off, &ks->cap_off, (size_t)nw + 1, sizeof *ks->off) ||
        !psi_grow((void **)&ks->adj, &ks->cap_adj, m, sizeof *ks->adj)) {
        *nomem = true;
        return false;
    }
    for (uint32_t i = 0; i < nw; i++)
        ks->loc[g->op_txn[g->w_op[b0 + i]]] = i;
    memset(ks->indeg, 0, nw * sizeof *ks->indeg);
    memset(ks->off, 0, ((size_t)nw + 1) * sizeof *ks->off);
    bool ok = true;
    /* Out-degrees: hint edges (both ends are writers of k: hints.c checks
     * it; one into the initial transaction is left to the full pipeline),
     * then session order between consecutive writers of one session
     * (g->w_op is sorted by transaction, so grouped by session in order). */
    for (uint64_t j = bk->eo[k]; j < bk->eo[k + 1] && ok; j++) {
        const psi_hint_edge *e = &hs->e[bk->ek[j]];
        if (e->from == PSI_INIT_TXN)
            continue; /* the initial version comes first anyway */
        ok = e->to != PSI_INIT_TXN;
        if (ok)
            ks->off[ks->loc[e->from] + 1]++;
    }
    for (uint32_t i = 0; i + 1 < nw; i++)
        if (h->txns[g->op_txn[g->w_op[b0 + i]]].session ==
            h->txns[g->op_txn[g->w_op[b0 + i + 1]]].session)
            ks->off[i + 1]++;
    for (uint32_t i = 0; i < nw; i++)
        ks->off[i + 1] += ks->off[i];
    for (uint64_t j = bk->eo[k]; j < bk->eo[k + 1] && ok; j++) {
        const psi_hint_edge *e = &hs->e[bk->ek[j]];
        if (e->from == PSI_INIT_TXN)
            continue;
        uint32_t u = ks->loc[e->from], v = ks->loc[e->to];
        assert(u != UINT32_MAX && v != UINT32_MAX);
        ks->adj[ks->off[u]++] = v;
        ks->indeg[v]++;
    }
    for (uint32_t i = 0; i + 1 < nw && ok; i++)
        if (h->txns[g->op_txn[g->w_op[b0 + i]]].session ==
            h->txns[g->op_txn[g->w_op[b0 + i + 1]]].session) {
            ks->adj[ks->off[i]++] = (i + 1) | SO_BIT;
            ks->indeg[i + 1]++;
        }
    /* off[i] is now the end of i's edges, i.e. the start of i + 1's. */
    uint32_t cur = UINT32_MAX, n = 0;
    for (uint32_t i = 0; i < nw && ok; i++)
        if (!ks->indeg[i]) {
            ok = cur == UINT32_MAX; /* a second source: not ordered */
            cur = i;
        }
    bool hint_in = false; /* whether a hint edge enters cur from its predecessor */
    while (ok && cur != UINT32_MAX) {
        hinted[n] = hint_in;
        chain[n++] = b0 + cur;
        uint32_t next = UINT32_MAX, b = cur ? ks->off[cur - 1] : 0;
        for (uint32_t j = b; j < ks->off[cur] && ok; j++) {
            uint32_t v = ks->adj[j] & ~SO_BIT;
            if (--ks->indeg[v] == 0) {
                ok = next == UINT32_MAX;
                next = v;
            }
        }
        hint_in = false;
        for (uint32_t j = b; j < ks->off[cur] && next != UINT32_MAX; j++)
            hint_in |= ks->adj[j] == next;
        cur = next;
    }
    for (uint32_t i = 0; i < nw; i++)
        ks->loc[g->op_txn[g->w_op[b0 + i]]] = UINT32_MAX;
    return ok && n == nw; /* fewer: a cycle among the direct edges */
}

/* How many versions ahead add_forced fetches (twice that for their
 * write ops); fetched with core/prefetch.h's hints. */
#define AHEAD 8

/* The edges seeding derives from key k's total order chain[0..nw) (see
 * known_only.h); hinted NULL: a hint orders every consecutive pair. */
static psi_status add_forced(psi_polygraph *g, uint32_t k, const uint32_t *chain,
                             const uint8_t *hinted, psi_diag *d)
{
    uint32_t nw = g->w_off[k + 1] - g->w_off[k];
    if (!nw)
        return PSI_OK;
    psi_status st = PSI_OK;
    uint32_t first = g->op_txn[g->w_op[chain[0]]];
    for (uint32_t i = g->i_off[k]; i < g->i_off[k + 1] && st == PSI_OK; i++)
        if (g->i_txn[i] != first)
            st = psi_polygraph_add_known(g, g->i_txn[i], first, PSI_EDGE_RW, k,
                                         PSI_FROM_SEEDING_INIT, d);
    for (uint32_t i = 0; i + 1 < nw && st == PSI_OK; i++) {
        /* A hot key's versions lie all over the history: fetch the ones
         * ahead (their write op, then its reader list and transaction)
         * while this one waits for memory. At 10^6 transactions those
         * misses were nearly half the check. */
        if (i + 2 * AHEAD < nw)
            PSI_PREFETCH(&g->w_op[chain[i + 2 * AHEAD]]);
        if (i + AHEAD < nw) {
            uint32_t ahead = g->w_op[chain[i + AHEAD]];
            PSI_PREFETCH(&g->reader_off[ahead]);
            PSI_PREFETCH(&g->op_txn[ahead]);
        }
        uint32_t op = g->w_op[chain[i]];
        uint32_t t = g->op_txn[op], s = g->op_txn[g->w_op[chain[i + 1]]];
        /* Session order alone put s next: its WW edge, as seeding adds it
         * (a hint's WW edge is known already). */
        if (hinted && !hinted[i + 1])
            st = psi_polygraph_add_known(g, t, s, PSI_EDGE_WW, k, PSI_FROM_SEEDING, d);
        uint32_t nr;
        const uint32_t *rd = psi_polygraph_readers(g, op, &nr);
        for (uint32_t r = 0; r < nr && st == PSI_OK; r++)
            if (rd[r] != s)
                st = psi_polygraph_add_known(g, rd[r], s, PSI_EDGE_RW, k, PSI_FROM_SEEDING, d);
    }
    return st;
}

/* Every key's total order chain (and hinted, as add_forced takes them,
 * per key at g->w_off[k]) into the edges seeding derives, no constraint
 * (every writer pair is ordered), and the known graph's one cycle check. */
static psi_status forced_and_check(const psi_history *h, psi_polygraph *g, const uint32_t *chain,
                                   const uint8_t *hinted, bool ser, psi_prune_result *res,
                                   psi_diag *d)
{
    psi_status st = PSI_OK;
    for (uint32_t k = 0; k < g->n_keys && st == PSI_OK; k++)
        st = add_forced(g, k, chain + g->w_off[k], hinted ? hinted + g->w_off[k] : NULL, d);
    if (st == PSI_OK)
        st = psi_polygraph_set_constraints(g, NULL, 0, d);
    if (st == PSI_OK)
        st = psi_prune_known_graph(h, g, ser, res, d);
    return st;
}

psi_status psi_known_only(const psi_history *h, psi_polygraph *g, const psi_hints *hs, bool ser,
                          bool *taken, psi_prune_result *res, psi_diag *d)
{
    *taken = false;
    /* Reads with a choice of writers need the solver; constraints
     * generated already (all pairs) are the rounds' to resolve. */
    if (!g->pending || g->n_choices || g->n_cond || g->opt)
        return PSI_OK;
    uint32_t nw_all = g->n_keys ? g->w_off[g->n_keys] : 0;
    by_key bk = {0};
    kscratch ks = {0};
    uint32_t *chain = malloc((nw_all ? nw_all : 1) * sizeof *chain);
    uint8_t *hinted = malloc(nw_all ? nw_all : 1);
    ks.loc = malloc(((size_t)h->n_txns ? h->n_txns : 1) * sizeof *ks.loc);
    psi_status st = PSI_OK;
    if (!chain || !hinted || !ks.loc)
        st = psi_diag_nomem(d, "ordering known versions");
    else
        st = group_by_key(g, hs, &bk, d);
    if (st == PSI_OK)
        memset(ks.loc, 0xff, (size_t)h->n_txns * sizeof *ks.loc);
    bool all = st == PSI_OK, nomem = false;
    for (uint32_t k = 0; k < g->n_keys && all; k++)
        all = key_order(h, g, hs, &bk, k, &ks, chain + g->w_off[k], hinted + g->w_off[k], &nomem);
    if (nomem)
        st = psi_diag_nomem(d, "ordering known versions");
    free(bk.eo);
    free(bk.ek);
    free(ks.loc);
    free(ks.indeg);
    free(ks.off);
    free(ks.adj);
    if (st != PSI_OK || !all) {
        free(chain);
        free(hinted);
        return st;
    }
    *taken = true;
    st = forced_and_check(h, g, chain, hinted, ser, res, d);
    free(chain);
    free(hinted);
    return st;
}

psi_status psi_known_complete(const psi_history *h, psi_polygraph *g, const psi_version_order *vo,
                              bool ser, bool *taken, uint64_t *known_before, psi_hints *hs,
                              psi_prune_result *res, psi_diag *d)
{
    *taken = false;
    if (!g->pending || g->n_choices || g->n_cond || g->opt)
        return PSI_OK;
    uint32_t nw_all = g->n_keys ? g->w_off[g->n_keys] : 0;
    uint32_t *chain = malloc((nw_all ? nw_all : 1) * sizeof *chain);
    if (!chain)
        return psi_diag_nomem(d, "ordering known versions");
    bool complete;
    psi_status st = psi_hints_complete(h, g, vo, chain, hs, &complete, d);
    if (st != PSI_OK || !complete) {
        free(chain);
        return st;
    }
    *taken = true;
    /* Room for every edge now (a hint per version, an RW per reader of a
     * version or an initial value, at most), so that the known array is
     * not copied over again while it doubles. */
    uint64_t need =
        g->n_known + hs->n + g->reader_off[h->n_ops] + (g->n_keys ? g->i_off[g->n_keys] : 0);
    if (need > g->cap_known) {
        psi_edge *grown = realloc(g->known, (size_t)need * sizeof *grown);
        if (!grown)
            st = psi_diag_nomem(d, "ordering known versions");
        else
            g->known = grown, g->cap_known = need;
    }
    /* The hints' WW edges, then what seeding derives, as psi_known_only
     * adds them: the same known graph, so the same verdict and witness. */
    if (st == PSI_OK)
        st = psi_hints_apply(hs, g, d);
    *known_before = g->n_known;
    if (st == PSI_OK)
        st = forced_and_check(h, g, chain, NULL, ser, res, d);
    free(chain);
    return st;
}
