/* Causal consistency's forced edges (see level_poly.h): vector clocks
 * over sessions in a topological order of SO ∪ WR, then per read and per
 * session that wrote its key one binary search for the latest writer in
 * the reader's causal past. O((n + r)·k) for the clocks, O(r·k·log n)
 * for the searches, n·k clock entries of memory. */
#include "check/level_poly.h"

#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

/* Vector clocks in a topological order of SO ∪ WR (order[0..n_live)). */
static void cc_clocks(lctx *c, const csr *base, const uint32_t *order, uint32_t n_live)
{
    const psi_history *h = c->h;
    uint32_t k = c->k;
    /* push each transaction's clock to its successors: a successor's
     * clock is the maximum over its predecessors, plus itself */
    for (uint32_t i = 0; i < n_live; i++) {
        uint32_t v = order[i];
        if (v == PSI_INIT_TXN)
            continue;
        assert(c->rank[v] == i);
        uint32_t *cv = c->vc + (size_t)i * k;
        const psi_txn *tx = &h->txns[v];
        if (cv[tx->session] < tx->pos + 1)
            cv[tx->session] = tx->pos + 1;
        for (uint64_t j = base->off[v]; j < base->off[v + 1]; j++) {
            uint32_t *cw = c->vc + (size_t)c->rank[base->to[j]] * k;
            /* branch-free, so the compiler vectorizes it */
            for (uint32_t s = 0; s < k; s++)
                cw[s] = cw[s] < cv[s] ? cv[s] : cw[s];
        }
    }
}

/* Writers of each key grouped by session, in session order: the groups
 * of key x are grp[goff[x] .. goff[x+1]), each a run wt[first .. +len)
 * whose session positions run from lo to hi (a read rules most groups
 * out from these alone, without loading wpos: a cache miss on hot keys). */
typedef struct wgroup {
    uint32_t session, first, len, lo, hi;
} wgroup;

/* A read event r of transaction t; a forced edge t2 -> (r's source),
 * sorted by key = r * k + the writer's session. */
typedef struct cc_read {
    uint32_t r, t;
} cc_read;
typedef struct cc_cand {
    uint64_t key;
    uint32_t t2, t;
} cc_cand;

static int cand_cmp(const void *a, const void *b)
{
    uint64_t x = ((const cc_cand *)a)->key, y = ((const cc_cand *)b)->key;
    return (x > y) - (x < y);
}

/* Per read of x from t1 in t, and per session that wrote x, the latest
 * writer t2 of x in that session that happened before t must commit
 * before t1 (CC's axiom; earlier writers of the session are SO-before
 * t2). The reads are visited key by key, each key's in topological order
 * of their readers: a key's writer groups then stay in cache for all its
 * reads and the readers' clock rows come in ascending order, where a
 * reader-by-reader pass reloaded the groups of a different key at every
 * read (a cache miss per group, most of CC's time at 10^6). order lists
 * the n_live committed transactions by clock row. */
static psi_status cc_edges(lctx *c, const uint32_t *order, uint32_t n_live)
{
    const psi_history *h = c->h;
    uint32_t nk = h->n_keys, k = c->k;
    uint64_t *woff = calloc((size_t)nk + 1, sizeof *woff), *goff = NULL;
    uint32_t *wt = NULL, *wpos = NULL; /* writer, and its session position (searched) */
    wgroup *grp = NULL;
    uint64_t *rk_off = NULL; /* [nk + 1] the reads of each key in rd */
    cc_read *rd = NULL;
    cc_cand *cand = NULL;
    size_t n_cand = 0, cap_cand = 0;
    psi_status st = PSI_OK;
    if (!woff)
        goto nomem;
    /* every final write of a committed transaction, by key */
    uint64_t n_w = c->w_off[h->n_txns];
    for (uint64_t i = 0; i < n_w; i++)
        woff[c->w_key[i] + 1]++;
    for (uint32_t x = 0; x < nk; x++)
        woff[x + 1] += woff[x];
    wt = malloc((n_w ? n_w : 1) * sizeof *wt);
    wpos = malloc((n_w ? n_w : 1) * sizeof *wpos);
    grp = malloc((n_w ? n_w : 1) * sizeof *grp);
    goff = calloc((size_t)nk + 1, sizeof *goff);
    if (!wt || !wpos || !grp || !goff)
        goto nomem;
    /* sessions in order, transactions in order: runs come out sorted */
    uint64_t *fill = malloc(((size_t)nk + 1) * sizeof *fill);
    if (!fill)
        goto nomem;
    memcpy(fill, woff, ((size_t)nk + 1) * sizeof *fill);
    for (uint32_t s = 0; s < h->n_sessions; s++)
        for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
            uint32_t t = h->sessions[s].first_txn + i;
            if (!psi_lp_committed(c, t))
                continue;
            for (uint32_t j = c->w_off[t]; j < c->w_off[t + 1]; j++) {
                uint32_t x = c->w_key[j];
                wpos[fill[x]] = (uint32_t)c->sp[t];
                wt[fill[x]++] = t;
            }
        }
    free(fill);
    /* groups: count runs per key, then lay them out */
    uint64_t n_g = 0;
    for (uint32_t x = 0; x < nk; x++) {
        goff[x] = n_g;
        for (uint64_t i = woff[x]; i < woff[x + 1]; i++) {
            uint32_t s = (uint32_t)(c->sp[wt[i]] >> 32);
            if (i == woff[x] || c->sp[wt[i - 1]] >> 32 != s)
                grp[n_g++] = (wgroup){s, (uint32_t)i, 0, wpos[i], 0};
            grp[n_g - 1].len++;
            grp[n_g - 1].hi = wpos[i];
        }
    }
    goff[nk] = n_g;
    /* the reads by key, each key's in clock-row order of their readers */
    uint64_t n_r = c->r_off[h->n_txns];
    rk_off = calloc((size_t)nk + 1, sizeof *rk_off);
    rd = malloc((n_r ? n_r : 1) * sizeof *rd);
    if (!rk_off || !rd)
        goto nomem;
    for (uint64_t r = 0; r < n_r; r++)
        rk_off[c->r_key[r] + 1]++;
    for (uint32_t x = 0; x < nk; x++)
        rk_off[x + 1] += rk_off[x];
    for (uint32_t i = 0; i < n_live; i++)
        for (uint32_t r = c->r_off[order[i]]; r < c->r_off[order[i] + 1]; r++)
            rd[rk_off[c->r_key[r]]++] = (cc_read){r, order[i]};
    /* the fill moved each start to the next key's */
    memmove(rk_off + 1, rk_off, (size_t)nk * sizeof *rk_off);
    rk_off[0] = 0;
    for (uint32_t x = 0; x < nk; x++) {
        for (uint64_t i = rk_off[x]; i < rk_off[x + 1]; i++) {
            uint32_t r = rd[i].r, t = rd[i].t, t1 = c->r_src[r];
            uint32_t ts = (uint32_t)(c->sp[t] >> 32), tpos = (uint32_t)c->sp[t];
            const uint32_t *cv = c->vc + (size_t)c->rank[t] * k;
            /* t1's clock (all zero for the initial transaction, whose row
             * cc_clocks leaves alone): a writer of session s at a position
             * below cv1[s] happened before t1, so its edge to t1 is implied
             * (what add_forced's hb_before would say, without loading the
             * writer's transaction). */
            const uint32_t *cv1 = c->vc + (size_t)c->rank[t1] * k;
            for (uint64_t g = goff[x]; g < goff[x + 1]; g++) {
                const wgroup *gr = &grp[g];
                /* before t: positions < cv[s], and in t's own session
                 * < pos(t); an edge needs a writer at cv1[s] or later
                 * (one test, mostly true: a predicted branch) */
                uint32_t lim = gr->session == ts ? tpos : cv[gr->session], lim1 = cv1[gr->session];
                if ((lim <= lim1) | (gr->lo >= lim) | (gr->hi < lim1))
                    continue;
                /* last run entry with pos < lim */
                uint32_t lo = 0, hi = gr->len;
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (wpos[gr->first + mid] < lim)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (!lo || wpos[gr->first + lo - 1] < lim1)
                    continue;
                uint32_t t2 = wt[gr->first + lo - 1];
                assert(t2 == t1 || t2 == t || !psi_lp_hb_before(c, t2, t1));
                if (t2 == t1 || t2 == t)
                    continue;
                if (!psi_grow((void **)&cand, &cap_cand, n_cand + 1, sizeof *cand))
                    goto nomem;
                cand[n_cand++] = (cc_cand){(uint64_t)r * k + gr->session, t2, t};
            }
        }
    }
    /* the edges in the order of reads, then sessions: the order the
     * reader-by-reader pass added them in, so the graph, its search and
     * the counterexample are what they were */
    if (n_cand)
        qsort(cand, n_cand, sizeof *cand, cand_cmp);
    for (size_t i = 0; i < n_cand; i++) {
        uint32_t r = (uint32_t)(cand[i].key / (k ? k : 1));
        if (!psi_lp_add_forced(c, cand[i].t2, c->r_src[r], c->r_key[r], PSI_LP_CAUSAL, cand[i].t,
                               c->r_op[r], NONE))
            goto nomem;
    }
    goto done;
nomem:
    st = psi_diag_nomem(c->d, "checking causal consistency");
done:
    free(woff);
    free(goff);
    free(wt);
    free(wpos);
    free(grp);
    free(rk_off);
    free(rd);
    free(cand);
    return st;
}

psi_status psi_lp_cc(lctx *c)
{
    const psi_history *h = c->h;
    if ((uint64_t)h->n_txns * (c->k ? c->k : 1) > MAX_CLOCK_ENTRIES)
        return psi_diag_set(c->d, PSI_ERR_LIMIT,
                            "causal consistency needs a clock of %u sessions per transaction: "
                            "%u transactions are too many for that (at most %llu entries)",
                            c->k, h->n_txns, (unsigned long long)MAX_CLOCK_ENTRIES);
    /* SO ∪ WR first: a cycle there is a violation already; else its
     * order gives the clocks */
    csr base = {0};
    uint32_t n_live = 0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        n_live += psi_lp_committed(c, t);
    uint32_t *order = malloc((size_t)h->n_txns * sizeof *order);
    uint32_t *indeg = malloc((size_t)h->n_txns * sizeof *indeg);
    c->vc = calloc((size_t)n_live * (c->k ? c->k : 1), sizeof *c->vc);
    c->rank = malloc((size_t)h->n_txns * sizeof *c->rank);
    if (c->vc)
        psi_hint_huge(c->vc, (size_t)n_live * (c->k ? c->k : 1) * sizeof *c->vc);
    if (!order || !indeg || !c->vc || !c->rank ||
        !psi_lp_csr_build(c->e, c->n_e, h->n_txns, true, &base)) {
        free(order);
        free(indeg);
        psi_lp_csr_free(&base);
        return psi_diag_nomem(c->d, "checking the isolation level");
    }
    uint32_t got = psi_lp_kahn(c, &base, order, indeg);
    if (got == n_live) {
        memset(c->rank, 0xff, (size_t)h->n_txns * sizeof *c->rank);
        for (uint32_t i = 0; i < got; i++)
            c->rank[order[i]] = i;
        cc_clocks(c, &base, order, got);
    }
    free(indeg);
    psi_lp_csr_free(&base);
    psi_status st = got == n_live ? cc_edges(c, order, got) : PSI_OK;
    free(order);
    return st;
}
