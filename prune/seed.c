/* Constraint generation from known reachability (see seed.h). */
#include "prune/seed.h"

#include "core/vec.h"

#include <assert.h>

#include <stdlib.h>
#include <string.h>

typedef struct seg {
    uint32_t sess, begin, end; /* writers [begin, end) of one session, in order */
} seg;

/* A key's writers are scattered over the history, so every per-writer
 * lookup (its transaction, its frontier row, its readers) misses the
 * cache; seeding at 10^6 transactions was bound by those misses. Each
 * gathering pass below asks for the entry this many writers ahead. */
#define SEED_AHEAD 8u
#if defined(__GNUC__)
#define SEED_PREFETCH(p) __builtin_prefetch(p)
#else
#define SEED_PREFETCH(p) ((void)(p))
#endif

typedef struct seeder {
    const psi_history *h;
    psi_polygraph *g;
    const psi_reach *r;
    psi_diag *d;
    size_t block_cells; /* seed.h psi_seed_constraints_cfg */
    /* psi_seed_conditional: only the open choices' shared edges; no
     * pairs, no known edges */
    bool cond_only;
    /* With cond_only: open_w[op] for each write, open_w[n_cr_lists + key]
     * for each key's initial value: whether one of its conditional
     * readers' choice of it is open (psi_seed_conditional says why;
     * owned there). */
    const uint8_t *open_w;
    psi_pair *pairs;
    size_t n_pairs, cap_pairs;
    /* [n_sessions] scratch, per key: */
    seg *segs;
    uint32_t *cand;   /* candidate writer indices */
    uint32_t *cseg;   /* their segments */
    uint32_t *jcur;   /* per segment: first writer the current writer reaches */
    uint32_t *jnext;  /* the same for the next writer of the current session */
    uint32_t *lo;     /* per segment: first writer that may not reach the current one */
    uint32_t *colidx; /* per segment: its column in the rows of rowp */
    /* The current key's writers (indices into g->w_op), cached contiguously
     * because the walks below probe them many times. */
    uint32_t *wt, *wp; /* transaction, position in session */
    uint32_t *ro;      /* [2 nw] each writer's readers: reader_off[op], reader_off[op + 1] */
    size_t cap_wt, cap_wp, cap_ro;
    /* rowp[i][colidx[k]]: writer i's frontier at segment k's session,
     * rows either in f (the key's copy, columns = segments) or in the
     * reach (columns = sessions). One random row read per writer instead
     * of one per probe: seeding was bound by frontier cache misses. */
    const uint32_t **rowp;
    size_t cap_rowp;
    uint32_t *f;
    size_t cap_f;
} seeder;

static uint32_t wtxn(const seeder *s, uint32_t i)
{
    return s->wt[i];
}

static uint32_t node0(const seeder *s, uint32_t t)
{
    return s->r->doubled ? 2 * t : t;
}

/* The earliest position of segment k's session that writer i reaches
 * (non-decreasing in i along one session: a later transaction of a session
 * reaches no more than an earlier one). */
static uint32_t fr(const seeder *s, uint32_t i, uint32_t k)
{
    return s->rowp[i][s->colidx[k]];
}

/* Sets rowp and colidx for the key's nw writers in ns segments. */
static psi_status key_rows(seeder *s, uint32_t nw, uint32_t ns)
{
    if (!psi_grow((void **)&s->rowp, &s->cap_rowp, nw, sizeof *s->rowp))
        return psi_diag_nomem(s->d, "generating constraints");
    size_t cells = (size_t)nw * ns;
    bool block = cells <= s->block_cells;
    if (block && !psi_grow((void **)&s->f, &s->cap_f, cells, sizeof *s->f))
        return psi_diag_nomem(s->d, "generating constraints");
    for (uint32_t k = 0; k < ns; k++)
        s->colidx[k] = block ? k : s->segs[k].sess;
    for (uint32_t i = 0; i < nw; i++) {
        if (i + SEED_AHEAD < nw)
            SEED_PREFETCH(&s->r->row_of[node0(s, wtxn(s, i + SEED_AHEAD))]);
        s->rowp[i] = psi_reach_row(s->r, node0(s, wtxn(s, i)));
        assert(s->rowp[i]); /* committed writers take part in the graph */
    }
    if (!block)
        return PSI_OK;
    size_t S = s->r->n_sessions;
    for (uint32_t i = 0; i < nw; i++) {
        if (i + SEED_AHEAD < nw) {
            const uint32_t *ahead = s->rowp[i + SEED_AHEAD];
            if (ns < 8) {
                for (uint32_t k = 0; k < ns; k++)
                    SEED_PREFETCH(ahead + s->segs[k].sess);
            } else {
                for (size_t c = 0; c < S; c += 16) /* 64-byte lines */
                    SEED_PREFETCH(ahead + c);
                SEED_PREFETCH(ahead + S - 1);
            }
        }
        const uint32_t *row = s->rowp[i];
        uint32_t *dst = s->f + (size_t)i * ns;
        for (uint32_t k = 0; k < ns; k++)
            dst[k] = row[s->segs[k].sess];
        s->rowp[i] = dst;
    }
    return PSI_OK;
}

/* Keeps the candidates no other candidate reaches; returns how many. At
 * most one candidate per session, and a candidate never reaches itself
 * (the graph is acyclic), so candidate c is kept when no candidate's
 * frontier at c's session is at or before c. Order is kept. */
static uint32_t minimal_candidates(seeder *s, uint32_t nc)
{
    uint32_t keep = 0;
    for (uint32_t c = 0; c < nc; c++) {
        uint32_t k = s->cseg[c], p = s->wp[s->cand[c]];
        bool reached = false;
        for (uint32_t o = 0; o < nc && !reached; o++)
            reached = fr(s, s->cand[o], k) <= p;
        assert(fr(s, s->cand[c], k) > p);
        if (!reached)
            s->cand[keep++] = s->cand[c];
    }
    /* cseg is stale past this point; only cand[0..keep) is used. */
    return keep;
}

static psi_status add_pair(seeder *s, uint32_t key, uint32_t i, uint32_t j)
{
    if (s->cond_only)
        return PSI_OK;
    if (!psi_grow((void **)&s->pairs, &s->cap_pairs, s->n_pairs + 1, sizeof *s->pairs))
        return psi_diag_nomem(s->d, "generating constraints");
    const uint32_t *ops = s->g->w_op + s->g->w_off[key];
    s->pairs[s->n_pairs++] = (psi_pair){
        .t = wtxn(s, i), .s = wtxn(s, j), .k = {.key = key, .op_t = ops[i], .op_s = ops[j]}};
    return PSI_OK;
}

/* Whether one of the conditional readers cr[0..n) has its choice open. */
static bool any_open(const psi_polygraph *g, const psi_cread *cr, uint32_t n)
{
    for (uint32_t k = 0; k < n; k++)
        if (g->choice_state[cr[k].choice] == PSI_CH_OPEN)
            return true;
    return false;
}

/* With cond_only: whether T's write op (T: a writer; PSI_INIT_TXN: the
 * key's initial value) has a conditional reader whose choice of it is
 * open. */
static bool open_src(const seeder *s, uint32_t key, uint32_t t, uint32_t op)
{
    bool open = s->open_w[t == PSI_INIT_TXN ? s->g->n_cr_lists + key : op];
#ifndef NDEBUG
    uint32_t n;
    psi_cond_succ probe = {.op = t == PSI_INIT_TXN ? PSI_CSUCC_INIT : op, .key = key};
    const psi_cread *cr = psi_polygraph_csucc_readers(s->g, &probe, &n);
    assert(open == any_open(s->g, cr, n));
#endif
    return open;
}

/* WW T -> to and RW from T's readers rd[0..n) to `to`, for each of the
 * n_to targets (writer indices). T is a writer, op its write; or
 * PSI_INIT_TXN for the key's initial value. With cond_only, only the
 * shared record, and only when open_src. */
static psi_status add_forced(seeder *s, uint32_t key, uint32_t t, uint32_t op, const uint32_t *rd,
                             uint32_t n, const uint32_t *to, uint32_t n_to)
{
    psi_status st = PSI_OK;
    uint32_t src = t == PSI_INIT_TXN ? PSI_CSUCC_INIT : op;
    if (s->cond_only) {
        bool open = open_src(s, key, t, op);
        for (uint32_t c = 0; c < n_to && st == PSI_OK && open; c++)
            st = psi_polygraph_add_csucc(s->g, src, wtxn(s, to[c]), key, s->d);
        return st;
    }
    uint32_t n_cond;
    psi_cond_succ probe = {.op = src, .key = key};
    const psi_cread *cr = psi_polygraph_csucc_readers(s->g, &probe, &n_cond);
    /* Choices pruning settled before seeding (prune.c) are facts: a
     * forced one's edges are known, an excluded one's never exist; only
     * open ones need the shared record. */
    bool open = any_open(s->g, cr, n_cond);
    psi_edge_origin origin = t == PSI_INIT_TXN ? PSI_FROM_SEEDING_INIT : PSI_FROM_SEEDING;
    for (uint32_t c = 0; c < n_to && st == PSI_OK; c++) {
        uint32_t dst = wtxn(s, to[c]);
        if (t != PSI_INIT_TXN)
            st = psi_polygraph_add_known(s->g, t, dst, PSI_EDGE_WW, key, PSI_FROM_SEEDING, s->d);
        for (uint32_t k = 0; k < n && st == PSI_OK; k++)
            if (rd[k] != dst)
                st = psi_polygraph_add_known(s->g, rd[k], dst, PSI_EDGE_RW, key, origin, s->d);
        for (uint32_t k = 0; k < n_cond && st == PSI_OK; k++)
            if (s->g->choice_state[cr[k].choice] == PSI_CH_FORCED && cr[k].txn != dst)
                st = psi_polygraph_add_known(s->g, cr[k].txn, dst, PSI_EDGE_RW, key,
                                             PSI_FROM_PRUNING, s->d);
        /* Reads with a choice of writers get the same edges, each
         * conditional on its choice of this writer: one shared record for
         * all of them (psi_cond_succ), not one edge per reader. */
        if (st == PSI_OK && open)
            st = psi_polygraph_add_csucc(s->g, src, dst, key, s->d);
    }
    return st;
}

static psi_status seed_key_all(seeder *s, uint32_t key, uint32_t b0, uint32_t nw)
{
    psi_status st = PSI_OK;
    const uint32_t *rd = s->g->i_txn + s->g->i_off[key];
    uint32_t n = s->g->i_off[key + 1] - s->g->i_off[key];
    for (uint32_t i = 0; i < nw && st == PSI_OK; i++)
        st = add_forced(s, key, PSI_INIT_TXN, 0, rd, n, &i, 1);
    for (uint32_t i = 0; i < nw && st == PSI_OK && !s->cond_only; i++)
        for (uint32_t j = i + 1; j < nw && st == PSI_OK; j++)
            if (wtxn(s, i) != wtxn(s, j))
                st = add_pair(s, key, i, j);
    (void)b0;
    return st;
}

/* Moves jnext[m] forward to the first writer of segment m that writer i
 * reaches, for every segment but ka (a pointer walk: the frontier of later
 * writers of one session is no earlier). */
static void walk_reached(seeder *s, uint32_t ns, uint32_t ka, uint32_t i)
{
    for (uint32_t m = 0; m < ns; m++) {
        if (m == ka)
            continue;
        uint32_t j = s->jnext[m], e = s->segs[m].end, lim = fr(s, i, m);
        while (j < e && s->wp[j] < lim)
            j++;
        s->jnext[m] = j;
    }
}

/* The writers of segment ka (session a), in order: for writer i (T) and
 * every other segment m, j = the first writer of m that T reaches. Writers
 * of m before j that do not reach T either are unordered with T: a pair
 * (recorded from the lower session's side). The js, and i + 1 in T's own
 * session, are T's candidate successors, and the minimal ones get T's
 * forced edges. A j that T's next writer i + 1 reaches as well is never
 * minimal (i + 1 is a candidate and reaches it), and whatever it reaches,
 * i + 1 reaches: it is left out of the candidates, which keeps the
 * minimality test short on keys written in every session. Every walk
 * below only moves forward along its segment as i advances. */
static psi_status seed_session(seeder *s, uint32_t key, uint32_t b0, uint32_t ns, uint32_t ka)
{
    const seg *sa = &s->segs[ka];
    psi_status st;
    for (uint32_t m = 0; m < ns; m++)
        s->jnext[m] = s->lo[m] = s->segs[m].begin;
    /* jnext is the walk's place for writer `at` (UINT32_MAX: none yet;
     * the segments' starts are before every writer's place). */
    uint32_t at = UINT32_MAX;
    for (uint32_t i = sa->begin; i < sa->end; i++) {
        uint32_t p = s->wp[i];
        bool has_next = i + 1 < sa->end;
        /* With cond_only, a write without an open reader gets nothing,
         * and the walk skips it: the frontier only moves on along a
         * session, so walking from an earlier writer's place ends where
         * walking from each writer's in turn would. At 10^5 transactions
         * with values 1..4, 376 k of 389 k writes have an open reader in
         * the first probe, 168 k in the seventh. */
        if (s->cond_only && !open_src(s, key, wtxn(s, i), s->g->w_op[b0 + i]))
            continue;
        if (at != i)
            walk_reached(s, ns, ka, i);
        memcpy(s->jcur, s->jnext, ns * sizeof *s->jcur);
        if (has_next)
            walk_reached(s, ns, ka, i + 1);
        at = i + 1;
#ifndef NDEBUG
        for (uint32_t m = 0; m < ns; m++) { /* jcur is i's place in each other segment */
            const seg *sg = &s->segs[m];
            uint32_t j = s->jcur[m], lim = fr(s, i, m);
            assert(m == ka || (j >= sg->begin && j <= sg->end));
            assert(m == ka || j == sg->begin || s->wp[j - 1] < lim);
            assert(m == ka || j == sg->end || s->wp[j] >= lim);
        }
#endif
        uint32_t nc = 0;
        for (uint32_t m = 0; m < ns; m++) {
            const seg *sg = &s->segs[m];
            if (m == ka) {
                if (has_next) {
                    s->cand[nc] = i + 1;
                    s->cseg[nc++] = m;
                }
                continue;
            }
            uint32_t j = s->jcur[m];
            if (j < sg->end && (!has_next || j < s->jnext[m])) {
                s->cand[nc] = j;
                s->cseg[nc++] = m;
            }
            if (sg->sess < sa->sess || s->cond_only)
                continue; /* the pair is found from the other side, or not wanted */
            /* Writers before j that do not reach T either: unordered. */
            uint32_t q = s->lo[m];
            while (q < j && fr(s, q, ka) <= p)
                q++;
            s->lo[m] = q;
            for (; q < j; q++)
                if ((st = add_pair(s, key, i, q)) != PSI_OK)
                    return st;
        }
        nc = minimal_candidates(s, nc);
        if (s->cond_only) {
            if ((st = add_forced(s, key, wtxn(s, i), s->g->w_op[b0 + i], NULL, 0, s->cand, nc)) !=
                PSI_OK)
                return st;
            continue;
        }
        if (i + 1 < sa->end)
            SEED_PREFETCH(&s->g->readers[s->ro[2 * (i + 1)]]);
        const uint32_t *rd = s->g->readers + s->ro[2 * i];
        uint32_t n = s->ro[2 * i + 1] - s->ro[2 * i];
        if ((st = add_forced(s, key, wtxn(s, i), s->g->w_op[b0 + i], rd, n, s->cand, nc)) != PSI_OK)
            return st;
    }
    return PSI_OK;
}

static psi_status seed_key(seeder *s, uint32_t key)
{
    const psi_history *h = s->h;
    uint32_t b0 = s->g->w_off[key], nw = s->g->w_off[key + 1] - b0;
    if (nw == 0)
        return PSI_OK;
    const uint32_t *w_op = s->g->w_op + b0;
    if (s->cond_only) { /* nothing to derive without an open reader */
        bool any = s->open_w[s->g->n_cr_lists + key];
        for (uint32_t i = 0; i < nw && !any; i++)
            any = s->open_w[w_op[i]];
        if (!any)
            return PSI_OK;
    }
    if (!psi_grow((void **)&s->wt, &s->cap_wt, nw, sizeof *s->wt) ||
        !psi_grow((void **)&s->wp, &s->cap_wp, nw, sizeof *s->wp))
        return psi_diag_nomem(s->d, "generating constraints");
    for (uint32_t i = 0; i < nw; i++) {
        if (i + SEED_AHEAD < nw)
            SEED_PREFETCH(&s->g->op_txn[w_op[i + SEED_AHEAD]]);
        s->wt[i] = s->g->op_txn[w_op[i]];
    }
    for (uint32_t i = 0; i < nw; i++) {
        if (i + SEED_AHEAD < nw)
            SEED_PREFETCH(&h->txns[s->wt[i + SEED_AHEAD]]);
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
        /* Writers are sorted by transaction, so grouped by session:
         * one run per session. */
        assert(ns == 0 || s->segs[ns - 1].sess <= sess);
        if (ns == 0 || s->segs[ns - 1].sess != sess)
            s->segs[ns++] = (seg){.sess = sess, .begin = i, .end = i + 1};
        else
            s->segs[ns - 1].end = i + 1;
    }
    psi_status st = key_rows(s, nw, ns);
    if (st != PSI_OK)
        return st;
    if (!s->cond_only && !psi_grow((void **)&s->ro, &s->cap_ro, 2 * (size_t)nw, sizeof *s->ro))
        return psi_diag_nomem(s->d, "generating constraints");
    for (uint32_t i = 0; i < nw && !s->cond_only; i++) {
        if (i + SEED_AHEAD < nw)
            SEED_PREFETCH(&s->g->reader_off[w_op[i + SEED_AHEAD]]);
        s->ro[2 * i] = s->g->reader_off[w_op[i]];
        s->ro[2 * i + 1] = s->g->reader_off[w_op[i] + 1];
    }
    /* The initial transaction precedes every writer. */
    uint32_t n_ci;
    psi_polygraph_cinit(s->g, key, &n_ci);
    if (s->cond_only ? open_src(s, key, PSI_INIT_TXN, 0)
                     : s->g->i_off[key + 1] > s->g->i_off[key] || n_ci) {
        for (uint32_t k = 0; k < ns; k++) {
            s->cand[k] = s->segs[k].begin;
            s->cseg[k] = k;
        }
        uint32_t nc = minimal_candidates(s, ns);
        const uint32_t *rd = s->g->i_txn + s->g->i_off[key];
        uint32_t n = s->g->i_off[key + 1] - s->g->i_off[key];
        if ((st = add_forced(s, key, PSI_INIT_TXN, 0, rd, n, s->cand, nc)) != PSI_OK)
            return st;
    }
    for (uint32_t k = 0; k < ns; k++)
        if ((st = seed_session(s, key, b0, ns, k)) != PSI_OK)
            return st;
    return PSI_OK;
}

psi_status psi_seed_constraints(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                psi_diag *d)
{
    return psi_seed_constraints_cfg(h, g, r, PSI_SEED_BLOCK_CELLS, d);
}

static psi_status seed_run(seeder *s0);

psi_status psi_seed_constraints_cfg(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                    size_t block_cells, psi_diag *d)
{
    seeder s = {.h = h, .g = g, .r = r, .d = d, .block_cells = block_cells};
    return seed_run(&s);
}

/* open[] as seeder.open_w says, from one pass over the choices in
 * order: a write's conditional readers are spread over all reads, and
 * asking each write's list for an open one (as seeding does) costs a
 * cache miss per reader read; pruning's passes before seeding probe
 * again and again while most choices are settled (s31 i17c: at 10^5
 * transactions with values 1..4 that was half of each probe). A choice
 * is listed with its candidate until it is excluded (core/polygraph.c),
 * and an open one is never excluded, so the answers are the same. */
static void open_flags(const psi_polygraph *g, uint8_t *open)
{
    for (uint32_t a = 0; a < g->n_amb; a++) {
        const psi_amb_read *rd = &g->amb[a];
        for (uint32_t j = 0; j < rd->n; j++) {
            if (g->choice_state[rd->first + j] != PSI_CH_OPEN)
                continue;
            uint32_t w = g->amb_cand[rd->first + j];
            open[w == PSI_SRC_INIT ? g->n_cr_lists + rd->key : w] = 1;
        }
    }
}

psi_status psi_seed_conditional(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                psi_diag *d)
{
    assert(g->cr_off || !g->n_choices);
    uint8_t *open = calloc((size_t)g->n_cr_lists + g->n_keys + 1, 1);
    if (!open)
        return psi_diag_nomem(d, "generating constraints");
    open_flags(g, open);
    seeder s = {.h = h,
                .g = g,
                .r = r,
                .d = d,
                .block_cells = PSI_SEED_BLOCK_CELLS,
                .cond_only = true,
                .open_w = open};
    psi_status st = seed_run(&s);
    free(open);
    return st;
}

/* Walks every key with the seeder s0 (inputs set, scratch zero). */
static psi_status seed_run(seeder *s0)
{
    seeder s = *s0;
    const psi_history *h = s.h;
    psi_polygraph *g = s.g;
    psi_diag *d = s.d;
    uint32_t S = s.r->n_sessions;
    size_t S1 = S ? S : 1;
    s.segs = malloc(S1 * sizeof *s.segs);
    uint32_t *scratch = malloc(6 * S1 * sizeof *scratch);
    psi_status st = PSI_OK;
    if (!s.segs || !scratch)
        st = psi_diag_nomem(d, "generating constraints");
    if (scratch) {
        s.cand = scratch;
        s.cseg = scratch + S1;
        s.jcur = scratch + 2 * S1;
        s.jnext = scratch + 3 * S1;
        s.lo = scratch + 4 * S1;
        s.colidx = scratch + 5 * S1;
    }
    for (uint32_t k = 0; k < g->n_keys && st == PSI_OK; k++)
        st = seed_key(&s, k);
    free(s.segs);
    free(scratch);
    free(s.wt);
    free(s.wp);
    free(s.ro);
    free(s.rowp);
    free(s.f);
    if (st != PSI_OK || s.cond_only) {
        assert(!s.cond_only || !s.pairs);
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
