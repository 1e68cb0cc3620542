/* Pruning the choice reads at the polynomial levels (see level_choice.h,
 * step 1). Optional transactions (unknown outcome, level_outcome.h) are
 * left out of the known graph: every edge it keeps then holds whatever
 * the search decides, so each exclusion holds in every model. */
#include "check/level_choice_ctx.h"

#include <stdlib.h>
#include <string.h>

/* Pruning rounds: each settles the reads whose other candidates the
 * previous round's settled reads exclude; a few catch nearly all of it,
 * and stopping early is sound (the search does the rest). */
#define MAX_ROUNDS 8u
/* Pruning's clocks take transactions times sessions entries (4 bytes):
 * above this the search goes without pruning. */
#define MAX_CLOCK_CELLS (UINT64_C(1) << 26)

/* A node of the known graph: committed whatever the search decides (the
 * initial transaction, or committed and not optional). */
static bool known(const cctx *c, uint32_t t)
{
    return psi_lc_committed(c->h, t) && !psi_index_optional(c->idx, t);
}

typedef struct kgraph {
    uint64_t *off; /* [n_txns + 1] */
    uint32_t *to;
} kgraph;

/* SO ∪ the WR edges of settled reads, as out-edges. */
static bool known_graph(cctx *c, kgraph *g)
{
    const psi_history *h = c->h;
    uint32_t n = h->n_txns;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    if (!g->off)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t *fill = NULL;
        if (pass) {
            for (uint32_t v = 0; v < n; v++)
                g->off[v + 1] += g->off[v];
            g->to = malloc((g->off[n] ? g->off[n] : 1) * sizeof *g->to);
            fill = malloc(((size_t)n + 1) * sizeof *fill);
            if (!g->to || !fill) {
                free(fill);
                return false;
            }
            memcpy(fill, g->off, ((size_t)n + 1) * sizeof *fill);
        }
        for (uint32_t s = 0; s < h->n_sessions; s++) {
            uint32_t prev = PSI_INIT_TXN;
            for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
                uint32_t t = h->sessions[s].first_txn + i;
                if (!known(c, t))
                    continue;
                if (pass)
                    g->to[fill[prev]++] = t;
                else
                    g->off[prev + 1]++;
                prev = t;
                const psi_txn *tx = &h->txns[t];
                for (uint32_t j = 0; j < tx->n_ops; j++) {
                    uint32_t w = psi_lc_view_src_txn(c, tx->first_op + j);
                    if (w == NONE || w == t || w == PSI_INIT_TXN || !known(c, w))
                        continue;
                    if (pass)
                        g->to[fill[w]++] = t;
                    else
                        g->off[w + 1]++;
                }
            }
        }
        free(fill);
    }
    return true;
}

/* The writers index (cctx.woff/wt). */
static bool writers_by_key(cctx *c)
{
    const psi_history *h = c->h;
    uint32_t nk = h->n_keys;
    c->woff = calloc((size_t)nk + 2, sizeof *c->woff);
    if (!c->woff)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            for (uint32_t x = 0; x < nk; x++)
                c->woff[x + 1] += c->woff[x];
            if (!(c->wt = malloc((c->woff[nk] ? c->woff[nk] : 1) * sizeof *c->wt)))
                return false;
        }
        /* pass 1 fills through woff shifted by one, which ends as woff */
        for (uint32_t s = 0; s < h->n_sessions; s++)
            for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
                uint32_t t = h->sessions[s].first_txn + i;
                const psi_txn *tx = &h->txns[t];
                if (!known(c, t))
                    continue;
                for (uint32_t j = 0; j < tx->n_ops; j++) {
                    uint32_t o = tx->first_op + j;
                    if (h->ops[o].kind != PSI_OP_WRITE ||
                        !(c->idx->op_info[o] & PSI_OI_FINAL_WRITE))
                        continue;
                    if (pass)
                        c->wt[c->woff[h->ops[o].key]++] = t;
                    else
                        c->woff[h->ops[o].key + 1]++;
                }
            }
    }
    memmove(c->woff + 1, c->woff, (size_t)nk * sizeof *c->woff);
    c->woff[0] = 0;
    return true;
}

static bool writes_key(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t x)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t j = 0; j < tx->n_ops; j++) {
        uint32_t o = tx->first_op + j;
        if (h->ops[o].key == x && h->ops[o].kind == PSI_OP_WRITE &&
            (idx->op_info[o] & PSI_OI_FINAL_WRITE))
            return true;
    }
    return false;
}

/* Whether w reaches v over the known graph (clocks vc, k per row). */
static bool reaches(const cctx *c, const uint32_t *vc, uint32_t k, uint32_t w, uint32_t v)
{
    if (w == PSI_INIT_TXN)
        return true;
    if (v == PSI_INIT_TXN)
        return false;
    const psi_txn *a = &c->h->txns[w];
    return w == v || vc[(size_t)v * k + a->session] > a->pos;
}

/* Premise writers: writers t2 of the read's key that the level makes
 * precede whatever it reads from, known already: RC the writers of t's
 * settled earlier reads; RA those of all its settled reads and its
 * latest session predecessor writing the key; CC per session the latest
 * writer in t's known causal past (earlier ones it reaches). Each is
 * passed to fn, which excludes the candidates that reach it: choosing
 * such a w forces t2 before w, a cycle with w →+ t2. */
static void premise_writers(cctx *c, const psi_rf_read *rd, const uint32_t *vc, uint32_t k,
                            void (*fn)(cctx *, const psi_rf_read *, const uint32_t *, uint32_t,
                                       uint32_t))
{
    const psi_history *h = c->h;
    const psi_txn *tx = &h->txns[rd->txn];
    if (c->level == PSI_LEVEL_PL2)
        return;
    if (c->level == PSI_LEVEL_RC || c->level == PSI_LEVEL_RA) {
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j;
            if (c->level == PSI_LEVEL_RC && o >= rd->op)
                break;
            uint32_t t2 = psi_lc_view_src_txn(c, o);
            if (t2 != NONE && t2 != PSI_INIT_TXN && t2 != rd->txn && known(c, t2) &&
                writes_key(h, c->idx, t2, rd->key))
                fn(c, rd, vc, k, t2);
        }
        if (c->level == PSI_LEVEL_RC)
            return;
    }
    /* RA: t's own session; CC: every session, up to t's causal past */
    for (uint64_t i = c->woff[rd->key]; i < c->woff[rd->key + 1];) {
        uint32_t s = h->txns[c->wt[i]].session;
        uint64_t end = i;
        while (end < c->woff[rd->key + 1] && h->txns[c->wt[end]].session == s)
            end++;
        uint32_t lim = s == tx->session ? tx->pos : vc[(size_t)rd->txn * k + s];
        if (c->level == PSI_LEVEL_CC || s == tx->session) {
            uint64_t lo = i, hi = end; /* the last writer with pos < lim */
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (h->txns[c->wt[mid]].pos < lim)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo > i && c->wt[lo - 1] != rd->txn)
                fn(c, rd, vc, k, c->wt[lo - 1]);
        }
        i = end;
    }
}

static void exclude_reaching(cctx *c, const psi_rf_read *rd, const uint32_t *vc, uint32_t k,
                             uint32_t t2)
{
    psi_level_choices *out = c->out;
    psi_rf_read *r = &out->reads[rd - out->reads];
    for (uint32_t j = 0; j < r->n && r->left; j++) {
        uint64_t ci = r->first + j;
        uint32_t w = psi_lc_cand_txn(c, out->cand[ci]);
        if (out->excluded[ci] || w == t2 || !reaches(c, vc, k, w, t2))
            continue;
        out->excluded[ci] = 1;
        out->n_excluded++;
        r->left--;
    }
}

/* One round: clocks over the known graph, then every open candidate
 * whose reader reaches it is excluded. *changed: a read was settled.
 * false: out of memory. */
static bool prune_round(cctx *c, uint32_t *vc, bool *changed, bool *cyclic)
{
    const psi_history *h = c->h;
    psi_level_choices *out = c->out;
    uint32_t n = h->n_txns, k = h->n_sessions ? h->n_sessions : 1;
    kgraph g = {0};
    uint32_t *indeg = calloc(n, sizeof *indeg), *order = malloc((size_t)n * sizeof *order);
    bool ok = indeg && order && known_graph(c, &g);
    *changed = false;
    *cyclic = false;
    if (!ok)
        goto out;
    for (uint64_t i = 0; i < g.off[n]; i++)
        indeg[g.to[i]]++;
    uint32_t head = 0, tail = 0, live = 0;
    for (uint32_t v = 0; v < n; v++) {
        live += known(c, v);
        if (known(c, v) && indeg[v] == 0)
            order[tail++] = v;
    }
    while (head < tail) {
        uint32_t v = order[head++];
        for (uint64_t i = g.off[v]; i < g.off[v + 1]; i++)
            if (--indeg[g.to[i]] == 0)
                order[tail++] = g.to[i];
    }
    if (tail < live) {
        /* a cycle of known edges: every read-from rejects, and the level
         * check will show it */
        *cyclic = true;
        goto out;
    }
    memset(vc, 0, (size_t)n * k * sizeof *vc);
    for (uint32_t i = 0; i < tail; i++) {
        uint32_t v = order[i];
        c->topo_rank[v] = i;
        if (v == PSI_INIT_TXN)
            continue;
        uint32_t *cv = vc + (size_t)v * k;
        const psi_txn *tx = &h->txns[v];
        if (cv[tx->session] < tx->pos + 1)
            cv[tx->session] = tx->pos + 1;
        for (uint64_t j = g.off[v]; j < g.off[v + 1]; j++) {
            uint32_t *cw = vc + (size_t)g.to[j] * k;
            for (uint32_t s = 0; s < k; s++)
                cw[s] = cw[s] < cv[s] ? cv[s] : cw[s];
        }
    }
    for (uint32_t r = 0; r < out->n_reads; r++) {
        psi_rf_read *rd = &out->reads[r];
        if (rd->left < 2)
            continue;
        const psi_txn *rt = &h->txns[rd->txn];
        for (uint32_t j = 0; j < rd->n; j++) {
            uint64_t ci = rd->first + j;
            uint32_t w = psi_lc_cand_txn(c, out->cand[ci]);
            if (out->excluded[ci] || w == PSI_INIT_TXN)
                continue;
            /* the reader reaches w: w →WR reader closes a cycle */
            if (vc[(size_t)w * k + rt->session] > rt->pos || w == rd->txn) {
                out->excluded[ci] = 1;
                out->n_excluded++;
                rd->left--;
            }
        }
        if (rd->left >= 1)
            premise_writers(c, rd, vc, k, exclude_reaching);
        if (rd->left == 1) {
            for (uint32_t j = 0; j < rd->n; j++)
                if (!out->excluded[rd->first + j])
                    rd->chosen = j;
            rd->how = PSI_RFC_FORCED;
            c->src[rd->op] = out->cand[rd->first + rd->chosen];
            *changed = true;
        } else if (rd->left == 0) {
            rd->how = PSI_RFC_NO_WRITER;
        }
    }
out:
    free(indeg);
    free(order);
    free(g.off);
    free(g.to);
    return ok;
}

bool psi_lc_prune(cctx *c)
{
    const psi_history *h = c->h;
    uint64_t k = h->n_sessions ? h->n_sessions : 1;
    if ((uint64_t)h->n_txns * k > MAX_CLOCK_CELLS)
        return true;
    uint32_t *vc = malloc((size_t)h->n_txns * k * sizeof *vc);
    if (!vc || !writers_by_key(c)) {
        free(vc);
        return false;
    }
    bool changed = true, cyclic = false, ok = true;
    while (ok && changed && !cyclic && c->out->rounds < MAX_ROUNDS) {
        ok = prune_round(c, vc, &changed, &cyclic);
        c->out->rounds++;
    }
    free(vc);
    return ok;
}
