/* Resolving one constraint in a pruning round (prune.c's rounds), which
 * open constraints a round need not test again, and SI's test through
 * known RW edges in one pass: split out of prune.c. What each does and why is at its declaration
 * (prune_internal.h) and below. */
#include "prune/prune_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* What psi_prune_resolve needs of a write's conditional readers, per write and
 * round: whether any of their choices is forced (CR_FORCED), and which
 * transactions' choices are open (CR_OPEN: at least one; its txn the
 * only such transaction, or CR_MANY_TXNS). Choice states change only in
 * psi_prune_choices, after a round's constraint loop, so the answer holds
 * for the whole loop. A write is the side of many resolved constraints
 * (10^5 transactions with values 1..4: 4.67 M resolved in round 2 over
 * 0.4 M writes, a write read by up to hundreds of reads with a choice),
 * and walking its readers for each was the hottest loop of that round
 * (43 % of its CPU). */
enum { CR_OPEN = 1u, CR_FORCED = 2u };
#define CR_MANY_TXNS UINT32_MAX

static uint32_t creader_flags(const psi_polygraph *g, psi_creader_memo *m, uint32_t op,
                              const psi_cread *cr, uint32_t n)
{
    assert(m->round > 0 && m->round < (UINT32_MAX >> 2));
    if (m->flags[op] >> 2 == m->round)
        return m->flags[op] & 3u;
    uint32_t f = 0, txn = UINT32_MAX;
    for (uint32_t k = 0; k < n; k++) {
        uint8_t cs = g->choice_state[cr[k].choice];
        if (cs == PSI_CH_FORCED)
            f |= CR_FORCED;
        if (cs != PSI_CH_OPEN)
            continue;
        txn = f & CR_OPEN && txn != cr[k].txn ? CR_MANY_TXNS : cr[k].txn;
        f |= CR_OPEN;
    }
    m->flags[op] = m->round << 2 | f;
    m->txn[op] = txn;
    return f;
}

/* Resolves constraint c to one side and, for the reads with a choice of
 * writers that may read the side's first writer, records the side's RW
 * edges as conditional on that choice (encode/ takes a resolved
 * constraint's conditional RW edges from there, and pruning tests them
 * like seeding's). */
psi_status psi_prune_resolve(psi_polygraph *g, uint32_t c, bool either, psi_creader_memo *memo,
                             psi_diag *d)
{
    psi_status st = psi_polygraph_resolve(g, c, either, d);
    const psi_constraint *con = &g->cons[c];
    uint32_t to = either ? con->s : con->t;
    const psi_ckey *ks = g->ckeys + con->first;
    for (uint32_t i = 0, nk = psi_constraint_n_keys(g, con); i < nk && st == PSI_OK; i++) {
        uint32_t n, op = either ? ks[i].op_t : ks[i].op_s;
        const psi_cread *cr = psi_polygraph_creaders(g, op, &n);
        if (!n)
            continue;
        uint32_t f = creader_flags(g, memo, op, cr, n);
        /* S's own read of T's write gets no edge */
        for (uint32_t k = 0; k < n && st == PSI_OK && (f & CR_FORCED); k++)
            if (cr[k].txn != to && g->choice_state[cr[k].choice] == PSI_CH_FORCED)
                st = psi_polygraph_add_known(g, cr[k].txn, to, PSI_EDGE_RW, ks[i].key,
                                             PSI_FROM_PRUNING, d);
        /* The open readers' edges, once for all of them (psi_cond_succ),
         * when one of them is not S */
        if ((f & CR_OPEN) && memo->txn[op] != to && st == PSI_OK)
            st = psi_polygraph_add_csucc(g, op, to, ks[i].key, d);
    }
    return st;
}

/* Whether open constraint con answers this round's tests as it did the
 * last round's (SER and SI, whose tests are psi_prune_closes_cycle's
 * psi_reach_to and psi_reach_to_anti): every side edge ends at T or S,
 * the tests read only the frontier rows of T's and S's nodes and, for
 * SI's WW edges, the known RW edges into T and S (rw_new: the targets of
 * those added since), and a side's other edges start at T or at readers
 * whose places in their sessions do not move. So when none of these
 * changed since the last build (r->changed), neither side closes a cycle
 * now, as neither did then. At 10^5 transactions with values 1..4 most
 * of the 58 M constraints open after round 2 are such. */
bool psi_constraint_unchanged(const psi_reach *r, const uint8_t *rw_new, const psi_constraint *con)
{
    assert(r->changed);
    if (!r->doubled)
        return !r->changed[con->t] && !r->changed[con->s];
    const uint8_t *ch = r->changed;
    uint64_t t = 2 * (uint64_t)con->t, s = 2 * (uint64_t)con->s;
    assert(t + 1 < r->n && s + 1 < r->n);
    return !(ch[t] | ch[t + 1] | ch[s] | ch[s + 1] | rw_new[con->t] | rw_new[con->s]);
}

/* The round after seeding tests every constraint for the first time, so
 * psi_constraint_unchanged has no earlier answer to go by; but seeding
 * made constraints only of writer pairs its reach left unordered (seed.h;
 * a key with an optional writer makes all its pairs constraints, hence
 * the caller's condition), so against that reach neither WW edge T -> S
 * nor S -> T closed a cycle under SER. SER's tests read only T's and S's
 * frontier rows (psi_constraint_unchanged), so when neither row changed
 * since seeding's build they still do not; and a side's other edges are
 * RW edges from the certain readers of T's or S's write, so a constraint
 * whose writes have none has no other edge. At 10^5 transactions with
 * values 1..4, 57.8 M of the 62.7 M constraints seeded are such (3,999
 * of 100,001 rows change), and testing them was round 2's constraint
 * loop, the hottest part of pruning (bench/README, s31 i17b). */
bool psi_seeded_open(const psi_reach *r, const psi_polygraph *g, const psi_constraint *con)
{
    assert(r->changed && !r->doubled && !g->opt);
    if (r->changed[con->t] || r->changed[con->s])
        return false;
    const psi_ckey *ks = g->ckeys + con->first;
    for (uint32_t i = 0, nk = psi_constraint_n_keys(g, con); i < nk; i++) {
        uint32_t a = ks[i].op_t, b = ks[i].op_s;
        if (g->reader_off[a + 1] != g->reader_off[a] || g->reader_off[b + 1] != g->reader_off[b])
            return false;
    }
    return true;
}

/* rw[n_nodes] (zeroed first) marks the targets of the known RW edges
 * past the first `since`; *out = rw, or NULL when rw could not be had
 * (every constraint is then tested). SER's test reads no RW edge. */
psi_status psi_prune_new_rw(const psi_polygraph *g, bool si, uint64_t since, uint8_t **rw,
                            const uint8_t **out, psi_diag *d)
{
    if (!*rw && !(*rw = malloc(g->n_nodes ? g->n_nodes : 1)))
        return psi_diag_nomem(d, "pruning");
    memset(*rw, 0, g->n_nodes);
    for (uint64_t i = since; si && i < g->n_known; i++)
        if (psi_edge_is_anti((psi_edge_type)g->known[i].type))
            (*rw)[g->known[i].to] = 1;
    *out = *rw;
    return PSI_OK;
}

/* psi_reach_to_anti(r, 2 s, t) (does s reach t1: s0 reaches a known RW
 * predecessor x of t, or is one) in one pass over the sessions instead
 * of one random row read per predecessor: s0 reaches x when its row at
 * x's session is at or before x, so it reaches one of them in session k
 * exactly when its row at k is at or before the latest of them there
 * (a->rw_maxpos). s itself being a predecessor needs one at or after
 * s's place, so only then are the predecessors walked. SI's rounds on
 * 10^5 transactions with values 1..4 add millions of RW edges, and the
 * walk was over a third of their CPU (perf). */
bool psi_si_reach_anti(const psi_reach *r, const psi_anti_index *a, uint32_t s, uint32_t t)
{
    uint32_t S = r->n_sessions;
    const uint32_t *mp = a->rw_maxpos + (uint64_t)t * S;
    const uint32_t *row = psi_reach_row(r, 2 * s);
    bool found = false;
    for (uint32_t k = 0; row && k < S; k++)
        found |= row[k] < mp[k];
    const psi_txn *ts = &r->h->txns[s];
    if (!found && ts->session != PSI_NO_SESSION && mp[ts->session] > ts->pos)
        found = psi_reach_to_anti(r, 2 * s, t);
    assert(found == psi_reach_to_anti(r, 2 * s, t));
    return found;
}

/* a->rw_maxpos's cells (n_txns x n_sessions, *buf kept across rounds)
 * from the first n known edges, those the reach r was built from. */
psi_status psi_prune_rw_maxpos(const psi_reach *r, const psi_polygraph *g, uint64_t n,
                               uint32_t **buf, psi_diag *d)
{
    uint64_t cells = (uint64_t)r->n_txns * r->n_sessions;
    if (!*buf && !(*buf = malloc((cells ? cells : 1) * sizeof **buf)))
        return psi_diag_nomem(d, "pruning");
    memset(*buf, 0, cells * sizeof **buf);
    for (uint64_t i = 0; i < n; i++) {
        const psi_edge *e = &g->known[i];
        if (!psi_edge_is_anti((psi_edge_type)e->type))
            continue;
        const psi_txn *x = &r->h->txns[e->from];
        if (x->session == PSI_NO_SESSION)
            continue; /* nothing reaches the initial transaction */
        uint32_t *c = *buf + (uint64_t)e->to * r->n_sessions + x->session;
        if (x->pos + 1 > *c)
            *c = x->pos + 1;
    }
    return PSI_OK;
}
