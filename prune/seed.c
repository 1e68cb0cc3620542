/* Constraint generation from known reachability (see seed.h). */
#include "prune/seed.h"

#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct seg {
    uint32_t sess, begin, end; /* writers [begin, end) of one session, in order */
} seg;

typedef struct seeder {
    const psi_history *h;
    psi_polygraph *g;
    const psi_reach *r;
    psi_diag *d;
    psi_pair *pairs;
    size_t n_pairs, cap_pairs;
    seg *segs;        /* [n_sessions] scratch */
    uint32_t *cand;   /* [n_sessions] candidate writer indices */
    uint32_t *minrow; /* [n_sessions] */
    /* The current key's writers (indices into g->w_op), cached contiguously
     * because the binary searches below probe them many times. */
    uint32_t *wt, *wp; /* transaction, position in session */
    size_t cap_wt, cap_wp;
} seeder;

static uint32_t wtxn(const seeder *s, uint32_t i)
{
    return s->wt[i];
}

static uint32_t node0(const seeder *s, uint32_t t)
{
    return s->r->doubled ? 2 * t : t;
}

/* First index in [b, e) whose writer's position is >= lim. */
static uint32_t first_at_or_after(const seeder *s, uint32_t b, uint32_t e, uint32_t lim)
{
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (s->wp[m] < lim)
            b = m + 1;
        else
            e = m;
    }
    return b;
}

/* First index in [b, e) whose writer does not reach position p of session
 * a (frontier non-decreasing along a session, so a binary search works). */
static uint32_t first_not_reaching(const seeder *s, uint32_t b, uint32_t e, uint32_t a, uint32_t p)
{
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        const uint32_t *row = psi_reach_row(s->r, node0(s, wtxn(s, m)));
        if (row[a] <= p)
            b = m + 1;
        else
            e = m;
    }
    return b;
}

/* Keeps the candidates no other candidate reaches; returns how many. */
static uint32_t minimal_candidates(seeder *s, uint32_t nc)
{
    uint32_t S = s->r->n_sessions;
    memset(s->minrow, 0xff, S * sizeof *s->minrow);
    for (uint32_t c = 0; c < nc; c++) {
        const uint32_t *row = psi_reach_row(s->r, node0(s, wtxn(s, s->cand[c])));
        for (uint32_t b = 0; b < S; b++)
            s->minrow[b] = row[b] < s->minrow[b] ? row[b] : s->minrow[b];
    }
    uint32_t keep = 0;
    for (uint32_t c = 0; c < nc; c++) {
        const psi_txn *tx = &s->h->txns[wtxn(s, s->cand[c])];
        /* A candidate never reaches itself (the graph is acyclic), so the
         * minimum over all candidates only counts the others. */
        if (s->minrow[tx->session] > s->wp[s->cand[c]])
            s->cand[keep++] = s->cand[c];
    }
    return keep;
}

static psi_status add_pair(seeder *s, uint32_t key, uint32_t i, uint32_t j)
{
    if (!psi_grow((void **)&s->pairs, &s->cap_pairs, s->n_pairs + 1, sizeof *s->pairs))
        return psi_diag_nomem(s->d, "generating constraints");
    const uint32_t *ops = s->g->w_op + s->g->w_off[key];
    s->pairs[s->n_pairs++] = (psi_pair){
        .t = wtxn(s, i), .s = wtxn(s, j), .k = {.key = key, .op_t = ops[i], .op_s = ops[j]}};
    return PSI_OK;
}

/* WW T -> S and RW from every reader of T's write (op) to S. */
static psi_status add_forced(seeder *s, uint32_t key, uint32_t t, uint32_t op, uint32_t to)
{
    psi_status st = PSI_OK;
    if (t != PSI_INIT_TXN)
        st = psi_polygraph_add_known(s->g, t, to, PSI_EDGE_WW, key, PSI_FROM_SEEDING, s->d);
    uint32_t n;
    const uint32_t *rd;
    if (t == PSI_INIT_TXN) {
        rd = s->g->i_txn + s->g->i_off[key];
        n = s->g->i_off[key + 1] - s->g->i_off[key];
    } else {
        rd = psi_polygraph_readers(s->g, op, &n);
    }
    for (uint32_t k = 0; k < n && st == PSI_OK; k++) {
        if (rd[k] == to)
            continue;
        st = psi_polygraph_add_known(s->g, rd[k], to, PSI_EDGE_RW, key,
                                     t == PSI_INIT_TXN ? PSI_FROM_SEEDING_INIT : PSI_FROM_SEEDING,
                                     s->d);
    }
    /* Reads with a choice of writers get the same edges, each conditional
     * on its choice of this writer: one shared record for all of them
     * (psi_cond_succ), not one edge per reader. Choices pruning settled
     * before seeding (prune.c) are facts: a forced one's edge is known, an
     * excluded one's never exists. */
    uint32_t src = t == PSI_INIT_TXN ? PSI_CSUCC_INIT : op;
    psi_cond_succ probe = {.op = src, .key = key};
    const psi_cread *cr = psi_polygraph_csucc_readers(s->g, &probe, &n);
    bool open = false;
    for (uint32_t k = 0; k < n && st == PSI_OK; k++) {
        uint8_t cs = s->g->choice_state[cr[k].choice];
        open |= cs == PSI_CH_OPEN;
        if (cs == PSI_CH_FORCED && cr[k].txn != to)
            st = psi_polygraph_add_known(s->g, cr[k].txn, to, PSI_EDGE_RW, key, PSI_FROM_PRUNING,
                                         s->d);
    }
    if (st == PSI_OK && open)
        st = psi_polygraph_add_csucc(s->g, src, to, key, s->d);
    return st;
}

static psi_status seed_key_all(seeder *s, uint32_t key, uint32_t b0, uint32_t nw)
{
    psi_status st = PSI_OK;
    for (uint32_t i = 0; i < nw && st == PSI_OK; i++)
        st = add_forced(s, key, PSI_INIT_TXN, 0, wtxn(s, i));
    for (uint32_t i = 0; i < nw && st == PSI_OK; i++)
        for (uint32_t j = i + 1; j < nw && st == PSI_OK; j++)
            if (wtxn(s, i) != wtxn(s, j))
                st = add_pair(s, key, i, j);
    (void)b0;
    return st;
}

static psi_status seed_key(seeder *s, uint32_t key)
{
    const psi_history *h = s->h;
    uint32_t b0 = s->g->w_off[key], nw = s->g->w_off[key + 1] - b0;
    if (nw == 0)
        return PSI_OK;
    if (!psi_grow((void **)&s->wt, &s->cap_wt, nw, sizeof *s->wt) ||
        !psi_grow((void **)&s->wp, &s->cap_wp, nw, sizeof *s->wp))
        return psi_diag_nomem(s->d, "generating constraints");
    for (uint32_t i = 0; i < nw; i++) {
        s->wt[i] = s->g->op_txn[s->g->w_op[b0 + i]];
        s->wp[i] = h->txns[s->wt[i]].pos;
    }
    /* A key with an optional writer (index.h): its edges out are not
     * known, so session order and reachability say nothing past it, and
     * every writer pair is a constraint, every writer after the initial
     * transaction, as without pruning. */
    bool any_opt = false;
    for (uint32_t i = 0; i < nw && !any_opt; i++)
        any_opt = psi_polygraph_gated_from(s->g, s->wt[i]);
    if (any_opt)
        return seed_key_all(s, key, b0, nw);
    /* Sessions' runs of writers. */
    uint32_t ns = 0;
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t sess = h->txns[wtxn(s, i)].session;
        if (ns == 0 || s->segs[ns - 1].sess != sess)
            s->segs[ns++] = (seg){.sess = sess, .begin = i, .end = i + 1};
        else
            s->segs[ns - 1].end = i + 1;
    }
    psi_status st;
    /* The initial transaction precedes every writer. */
    uint32_t n_ci;
    psi_polygraph_cinit(s->g, key, &n_ci);
    if (s->g->i_off[key + 1] > s->g->i_off[key] || n_ci) {
        for (uint32_t k = 0; k < ns; k++)
            s->cand[k] = s->segs[k].begin;
        uint32_t nc = minimal_candidates(s, ns);
        for (uint32_t c = 0; c < nc; c++)
            if ((st = add_forced(s, key, PSI_INIT_TXN, 0, wtxn(s, s->cand[c]))) != PSI_OK)
                return st;
    }
    for (uint32_t k = 0; k < ns; k++) {
        uint32_t a = s->segs[k].sess;
        for (uint32_t i = s->segs[k].begin; i < s->segs[k].end; i++) {
            uint32_t t = wtxn(s, i), p = s->wp[i];
            const uint32_t *row = psi_reach_row(s->r, node0(s, t));
            uint32_t nc = 0;
            for (uint32_t m = 0; m < ns; m++) {
                const seg *sg = &s->segs[m];
                if (sg->sess == a) {
                    if (i + 1 < sg->end)
                        s->cand[nc++] = i + 1;
                    continue;
                }
                uint32_t j = first_at_or_after(s, sg->begin, sg->end, row[sg->sess]);
                if (j < sg->end)
                    s->cand[nc++] = j;
                if (sg->sess < a)
                    continue; /* the pair is found from the other side */
                /* Writers before j that do not reach T either: unordered. */
                for (uint32_t q = first_not_reaching(s, sg->begin, j, a, p); q < j; q++)
                    if ((st = add_pair(s, key, i, q)) != PSI_OK)
                        return st;
            }
            nc = minimal_candidates(s, nc);
            for (uint32_t c = 0; c < nc; c++)
                if ((st = add_forced(s, key, t, s->g->w_op[b0 + i], wtxn(s, s->cand[c]))) != PSI_OK)
                    return st;
        }
    }
    return PSI_OK;
}

psi_status psi_seed_constraints(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                psi_diag *d)
{
    uint32_t S = r->n_sessions;
    seeder s = {.h = h, .g = g, .r = r, .d = d};
    s.segs = malloc(S * sizeof *s.segs);
    s.cand = malloc(S * sizeof *s.cand);
    s.minrow = malloc(S * sizeof *s.minrow);
    psi_status st = PSI_OK;
    if (!s.segs || !s.cand || !s.minrow)
        st = psi_diag_nomem(d, "generating constraints");
    for (uint32_t k = 0; k < g->n_keys && st == PSI_OK; k++)
        st = seed_key(&s, k);
    free(s.segs);
    free(s.cand);
    free(s.minrow);
    free(s.wt);
    free(s.wp);
    if (st != PSI_OK) {
        free(s.pairs);
        return st;
    }
    if (s.n_pairs > UINT32_MAX - 1) {
        free(s.pairs);
        return psi_diag_set(d, PSI_ERR_LIMIT,
                            "%s: %zu unordered writer pairs exceed the "
                            "constraint limit",
                            h->source, s.n_pairs);
    }
    return psi_polygraph_set_constraints(g, s.pairs, s.n_pairs, d);
}
