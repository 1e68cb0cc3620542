/* Pruning of read-from choices (issue 11: a read whose value several
 * transactions wrote): each pruning round tests every open choice's edges
 * against the round's reachability (prune_internal.h). Split out of
 * prune.c, whose rounds call it. */
#include "prune/prune_internal.h"

#include "prune/seed.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this many writers of a key, a read's initial-value candidate is
 * not tested against each of them (skipping a test is sound: it only
 * leaves a choice to the solver). */
#define MAX_INIT_TESTS 1024u

/* A choice forced in the current round (psi_choice_state), until its
 * conditional edges are known. */
#define PSI_CH_NEWLY_FORCED 3u

/* Whether choice j (candidate w of read a) closes a forbidden cycle with
 * the known graph: its WR edge, or for the initial value the RW edge to
 * any writer of the key that reaches the reader. */
static bool choice_impossible(const psi_reach *r, const psi_anti_index *ai, const psi_polygraph *g,
                              psi_prune_rule ser, const psi_amb_read *a, uint32_t w)
{
    if (w != PSI_SRC_INIT)
        return psi_prune_closes_cycle(r, ai, ser, g->op_txn[w], a->txn, PSI_EDGE_WR);
    uint32_t b = g->w_off[a->key], e = g->w_off[a->key + 1];
    if (e - b > MAX_INIT_TESTS || ser == RULE_DEP || ser == RULE_PC)
        return false;
    for (uint32_t i = b; i < e; i++) {
        uint32_t s = g->op_txn[g->w_op[i]];
        if (s != a->txn && psi_prune_closes_cycle(r, ai, ser, a->txn, s, PSI_EDGE_RW))
            return true;
    }
    return false;
}

/* Order of shared edges (psi_cond_succ): by write, key, target. */
static int csucc_cmp(const void *pa, const void *pb)
{
    const psi_cond_succ *a = pa, *b = pb;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    return (a->to > b->to) - (a->to < b->to);
}

/* End of the group of shared edges from i on that have the same readers
 * (one write, or one key's initial value); the edges are sorted. */
static uint64_t csucc_group_end(const psi_polygraph *g, uint64_t i)
{
    const psi_cond_succ *e = &g->csucc[i];
    uint64_t j = i + 1;
    while (j < g->n_csucc && g->csucc[j].op == e->op && g->csucc[j].key == e->key)
        j++;
    return j;
}

/* The first of the group's shared edges [i, j) that closes a forbidden
 * cycle from reader txn (the per-edge test). */
static uint64_t csucc_culprit(const psi_reach *r, const psi_anti_index *ai, const psi_polygraph *g,
                              psi_prune_rule ser, uint64_t i, uint64_t j, uint32_t txn)
{
    for (uint64_t q = i; q < j; q++)
        if (g->csucc[q].to != txn &&
            psi_prune_closes_cycle(r, ai, ser, txn, g->csucc[q].to, PSI_EDGE_RW))
            return q;
    return j;
}

/* What psi_prune_choices may take from its last pass (SER and SI; NULL:
 * nothing, every open choice is tested). That pass ran on the last
 * round's reach, of which this round's extends (r->changed), and left
 * every open choice tested and possible: the tests of choice_impossible
 * and cond_impossible read the frontier rows of the reader's node (a WR
 * edge), of the shared edges' targets (their RW edges) and, for SI's WR
 * edge from writer w, the known RW edges into w (rw_new: the targets of
 * those added since). A test that reads nothing changed answers as it
 * did then. grown[op] marks the writes whose group of shared edges got
 * new ones since (init_grown: a key's initial value's group).
 *
 * The first round after seeding may take the pass before seeding as its
 * last (psi_prune_choices' seeded_end) when that pass probed
 * (psi_seed_conditional) on the reach seeding then used: seeding derives
 * each group of shared edges exactly as the probe did (the same walk of
 * the same reach: the same targets), and only for writes with an open
 * reader, of which the probe had at least as many, so every group seeding
 * leaves was tested by that pass with the same edges, and every choice
 * open after it was found possible. The groups are new to the shared
 * array (the probe's were dropped), not to the tests; what that round's
 * resolved constraints add after them is new. At 10^5
 * transactions with values 1..4 under SER that round's pass was the
 * largest left in pruning (bench/README, s31 i17b). */
typedef struct choice_delta {
    const uint8_t *rw_new;
    const uint8_t *grown;
    bool init_grown;
} choice_delta;

static uint32_t reader_node(const psi_reach *r, uint32_t txn)
{
    return r->doubled ? 2 * txn : txn;
}

/* Whether the shared edges [i, j) (one group) still close no cycle from
 * any reader whose choice was open at the last pass (choice_delta). */
static bool group_unchanged(const psi_reach *r, const psi_polygraph *g, const choice_delta *dl,
                            uint64_t i, uint64_t j)
{
    if (!dl)
        return false;
    uint32_t op = g->csucc[i].op;
    if (op == PSI_CSUCC_INIT ? dl->init_grown : dl->grown[op])
        return false;
    for (uint64_t q = i; q < j; q++) {
        uint32_t to = g->csucc[q].to;
        if (r->changed[r->doubled ? 2 * to + 1 : to])
            return false;
    }
    return true;
}

/* Marks in imp[] every open choice one of whose conditional edges (the
 * consequences seeding and resolved constraints derived for it: RW from
 * the reader to the writers that must follow its candidate) closes a
 * forbidden cycle with the known graph: the reader would have to see a
 * write that overwrites its candidate. The shared edges (psi_cond_succ)
 * are judged a group at a time: under SI, SER and PSI an RW edge
 * reader -> to closes a cycle iff `to`'s node reaches the reader, so the
 * group's smallest frontier per session (m, scratch of n_sessions) answers
 * for every reader at once; a reader never reaches itself (the known graph
 * is acyclic here), so a group edge to the reader itself changes nothing.
 *
 * ww (scratch of n_csucc bytes, zeroed) is non-NULL for
 * psi_seed_conditional's shared edges, whose WW edge (the candidate's
 * writer -> `to`) is not known, as seeding's and resolved constraints'
 * are: the edge that excludes a choice then becomes known (a fact: the
 * writer reaches `to`), once, so that the exclusion is explained by known
 * edges before the read's resolution (interpret/reasons.c). */
static psi_status cond_impossible(const psi_reach *r, const psi_anti_index *ai, psi_polygraph *g,
                                  psi_prune_rule ser, uint8_t *imp, uint32_t *m, uint8_t *ww,
                                  const choice_delta *dl, psi_diag *d)
{
    psi_status st = PSI_OK;
    for (uint64_t i = 0; i < g->n_cond; i++) {
        const psi_cond_edge *e = &g->cond[i];
        if (g->choice_state[e->choice] != PSI_CH_OPEN || imp[e->choice])
            continue;
        imp[e->choice] = psi_prune_closes_cycle(r, ai, ser, e->from, e->to, (psi_edge_type)e->type);
    }
    if (ser == RULE_DEP)
        return PSI_OK; /* an RW edge never closes a DEP cycle */
    for (uint64_t i = 0, j; i < g->n_csucc && st == PSI_OK; i = j) {
        j = csucc_group_end(g, i);
        uint32_t n;
        /* The unchanged-group test first: it reads the group's few targets,
         * while the open-reader test below reads the choice state of
         * readers spread over all choices (a cache miss each). */
        if (group_unchanged(r, g, dl, i, j)) {
#ifndef NDEBUG
            /* no open reader's choice is excluded by the group now */
            uint32_t nd;
            const psi_cread *cd = psi_polygraph_csucc_readers(g, &g->csucc[i], &nd);
            for (uint32_t k = 0; k < nd; k++)
                assert(g->choice_state[cd[k].choice] != PSI_CH_OPEN || imp[cd[k].choice] ||
                       csucc_culprit(r, ai, g, ser, i, j, cd[k].txn) == j);
#endif
            continue;
        }
        const psi_cread *cr = psi_polygraph_csucc_readers(g, &g->csucc[i], &n);
        bool any = false;
        for (uint32_t k = 0; k < n && !any; k++)
            any = g->choice_state[cr[k].choice] == PSI_CH_OPEN && !imp[cr[k].choice];
        if (!any)
            continue;
        if (ser != RULE_PC) {
            memset(m, 0xff, r->n_sessions * sizeof *m);
            for (uint64_t q = i; q < j; q++) {
                uint32_t to = g->csucc[q].to;
                const uint32_t *row = psi_reach_row(r, ser == RULE_SI ? 2 * to + 1 : to);
                for (uint32_t s = 0; row && s < r->n_sessions; s++)
                    m[s] = row[s] < m[s] ? row[s] : m[s];
            }
        }
        for (uint32_t k = 0; k < n && st == PSI_OK; k++) {
            uint32_t ch = cr[k].choice;
            const psi_txn *tx = &r->h->txns[cr[k].txn];
            if (g->choice_state[ch] != PSI_CH_OPEN || imp[ch])
                continue;
            uint64_t q = j;
            if (ser == RULE_PC) { /* pc_rw_cycle has no per-session form */
                q = csucc_culprit(r, ai, g, ser, i, j, cr[k].txn);
                if (q == j)
                    continue;
            } else if (tx->session == PSI_NO_SESSION || m[tx->session] > tx->pos) {
                continue;
            }
            imp[ch] = 1;
            /* The per-edge test agrees. */
            assert(csucc_culprit(r, ai, g, ser, i, j, cr[k].txn) < j);
            if (!ww)
                continue;
            if (q == j)
                q = csucc_culprit(r, ai, g, ser, i, j, cr[k].txn);
            const psi_cond_succ *e = &g->csucc[q];
            if (!ww[q] && e->op != PSI_CSUCC_INIT) {
                ww[q] = 1;
                st = psi_polygraph_add_known(g, g->op_txn[e->op], e->to, PSI_EDGE_WW, e->key,
                                             PSI_FROM_PRUNING, d);
            }
        }
    }
    return st;
}

/* csucc_sort sorts new shared edges by counting passes (csucc_radix)
 * instead of qsort when they are at least this many and at least a
 * quarter of the counts' range (csucc_range): below that, clearing and
 * summing the counts (one per write) costs more than the sort. Small
 * histories' passes take it too, so that the tests run it. */
#define CSUCC_RADIX_MIN 16u

/* The largest range csucc_radix counts over: transactions, keys, writes
 * (with the initial value after them). */
static uint32_t csucc_range(const psi_polygraph *g)
{
    uint32_t r = g->n_nodes > g->n_keys ? g->n_nodes : g->n_keys;
    return r > g->n_cr_lists + 1 ? r : g->n_cr_lists + 1;
}

/* The fields csucc_count_pass orders by. */
enum { BY_TO, BY_KEY, BY_OP };

/* One stable counting pass: out = in[0..n) ordered by field f, each
 * value below `range` (PSI_CSUCC_INIT in the op field counts as range - 1);
 * cnt is scratch of range + 1 cells. */
static void csucc_count_pass(const psi_cond_succ *in, psi_cond_succ *out, uint64_t n, int f,
                             uint32_t range, uint64_t *cnt)
{
    memset(cnt, 0, ((size_t)range + 1) * sizeof *cnt);
    for (uint64_t i = 0; i < n; i++) {
        uint32_t v = f == BY_TO ? in[i].to : f == BY_KEY ? in[i].key : in[i].op;
        v = f == BY_OP && v == PSI_CSUCC_INIT ? range - 1 : v;
        assert(v < range);
        cnt[v + 1]++;
    }
    for (uint32_t v = 0; v < range; v++)
        cnt[v + 1] += cnt[v];
    for (uint64_t i = 0; i < n; i++) {
        uint32_t v = f == BY_TO ? in[i].to : f == BY_KEY ? in[i].key : in[i].op;
        v = f == BY_OP && v == PSI_CSUCC_INIT ? range - 1 : v;
        out[cnt[v]++] = in[i];
    }
}

/* a[0..n) sorted as csucc_cmp orders them, by stable counting passes on
 * the least significant field first (to, key, op: PSI_CSUCC_INIT, the
 * largest op, last). Before seeding, pruning's passes sort every shared
 * edge seeding derived each time (psi_prune_settle_choices); at 10^5
 * transactions with values 1..4 qsort of 0.3-1.7 M of them was a fifth
 * of such a pass (s31 i17c). The result is the same order: csucc_cmp is
 * a total order on the three fields, which are all an edge holds. */
static psi_status csucc_radix(const psi_polygraph *g, psi_cond_succ *a, uint64_t n, psi_diag *d)
{
    uint32_t r_to = g->n_nodes, r_key = g->n_keys, r_op = g->n_cr_lists + 1;
    uint32_t range = csucc_range(g);
    psi_cond_succ *tmp = malloc(n * sizeof *tmp);
    uint64_t *cnt = malloc(((size_t)range + 1) * sizeof *cnt);
    if (!tmp || !cnt) {
        free(tmp);
        free(cnt);
        return psi_diag_nomem(d, "pruning read-from choices");
    }
    csucc_count_pass(a, tmp, n, BY_TO, r_to, cnt);
    csucc_count_pass(tmp, a, n, BY_KEY, r_key, cnt);
    csucc_count_pass(a, tmp, n, BY_OP, r_op, cnt);
    memcpy(a, tmp, n * sizeof *a);
    free(tmp);
    free(cnt);
#ifndef NDEBUG
    for (uint64_t i = 1; i < n; i++)
        assert(csucc_cmp(&a[i - 1], &a[i]) <= 0);
#endif
    return PSI_OK;
}

/* Sorts the shared edges (csucc_cmp) whose first `sorted` already are:
 * the new ones (seeding's, this round's resolved constraints') are sorted
 * and merged in, so a round costs their sort, not all edges'. */
static psi_status csucc_sort(psi_polygraph *g, uint64_t sorted, psi_diag *d)
{
    uint64_t n = g->n_csucc;
    assert(sorted <= n);
    if (sorted == n)
        return PSI_OK;
    psi_cond_succ *a = g->csucc;
    if (n - sorted >= CSUCC_RADIX_MIN && (n - sorted) * 4 >= csucc_range(g)) {
        psi_status st = csucc_radix(g, a + sorted, n - sorted, d);
        if (st != PSI_OK)
            return st;
    } else {
        qsort(a + sorted, n - sorted, sizeof *a, csucc_cmp);
    }
    if (!sorted)
        return PSI_OK;
    psi_cond_succ *out = malloc(n * sizeof *out);
    if (!out)
        return psi_diag_nomem(d, "pruning read-from choices");
    uint64_t i = 0, j = sorted, k = 0;
    while (i < sorted && j < n)
        out[k++] = csucc_cmp(&a[j], &a[i]) < 0 ? a[j++] : a[i++];
    while (i < sorted)
        out[k++] = a[i++];
    while (j < n)
        out[k++] = a[j++];
    free(g->csucc);
    g->csucc = out;
    g->cap_csucc = n;
    return PSI_OK;
}

/* The shared edges' consequences of the choices forced this round become
 * known edges (when `forced` is non-NULL: it marks the reader lists, as
 * psi_polygraph_drop_excluded_marked's, that hold a choice forced this
 * round); then the groups no open choice still needs are dropped (as
 * psi_prune_choices does with psi_cond_edge). The edges are sorted. */
static psi_status csucc_settle(psi_polygraph *g, const uint8_t *forced, psi_diag *d)
{
    psi_status st = PSI_OK;
    uint64_t keep = 0;
    for (uint64_t i = 0, j; i < g->n_csucc && st == PSI_OK; i = j) {
        j = csucc_group_end(g, i);
        uint32_t n;
        const psi_cond_succ *e = &g->csucc[i];
        const psi_cread *cr = psi_polygraph_csucc_readers(g, e, &n);
        bool f = forced && forced[e->op == PSI_CSUCC_INIT ? g->n_cr_lists + e->key : e->op];
#ifndef NDEBUG
        for (uint32_t k = 0; forced && !f && k < n; k++)
            assert(g->choice_state[cr[k].choice] != PSI_CH_NEWLY_FORCED);
#endif
        bool open = false;
        /* In a group without forced readers only `open` is wanted: one
         * open reader answers it, and the rest of the readers' states (a
         * cache miss each, most of this pass's time at 10^5 transactions
         * with values 1..4) need not be read. */
        for (uint32_t k = 0; k < n && st == PSI_OK && (f || !open); k++) {
            uint8_t cs = g->choice_state[cr[k].choice];
            open |= cs == PSI_CH_OPEN;
            for (uint64_t q = i; f && cs == PSI_CH_NEWLY_FORCED && q < j && st == PSI_OK; q++)
                if (cr[k].txn != g->csucc[q].to)
                    st = psi_polygraph_add_known(g, cr[k].txn, g->csucc[q].to, PSI_EDGE_RW,
                                                 g->csucc[q].key, PSI_FROM_PRUNING, d);
        }
        for (uint64_t q = i; open && q < j; q++)
            g->csucc[keep++] = g->csucc[q];
    }
    if (st == PSI_OK)
        g->n_csucc = keep;
    return st;
}

/* Pruning of read-from choices (hyper-polygraph): excludes the candidates
 * whose WR edge or conditional edges close a forbidden cycle with the
 * known graph, never a read's last one (a read with none left is for the
 * solver to refute, with its cycle); a read left with one candidate gets
 * its WR edge and the conditional edges of that choice as known edges
 * (the shared ones only when csucc_known: psi_seed_conditional's are
 * derived again by seeding, forced readers' edges included). *changed
 * counts the choices settled. imp is scratch of n_choices bytes. */
psi_status psi_prune_choices(const psi_reach *r, const psi_anti_index *ai, psi_polygraph *g,
                             psi_prune_rule ser, uint8_t *imp, uint64_t *sorted, bool csucc_known,
                             const uint8_t *rw_new, uint64_t seeded_end, uint32_t *changed,
                             psi_diag *d)
{
    psi_status st = PSI_OK;
    uint32_t forced = 0, excluded = 0;
    assert(!rw_new || (r->changed && csucc_known && (ser == RULE_SER || ser == RULE_SI)));
    uint32_t *m = malloc((r->n_sessions ? r->n_sessions : 1) * sizeof *m);
    assert(!seeded_end || (!rw_new && r->changed && csucc_known && ser == RULE_SER &&
                           seeded_end <= g->n_csucc && *sorted == 0));
    bool delta_on = rw_new || seeded_end;
    uint8_t *grown = delta_on && g->n_cr_lists ? calloc(g->n_cr_lists, 1) : NULL;
    /* the reader lists that get excluded choices (for
     * psi_polygraph_drop_excluded_marked): each write's, then each key's
     * initial value's; and after them those that get forced ones (for
     * csucc_settle) */
    size_t n_lists = (size_t)g->n_cr_lists + g->n_keys;
    uint8_t *dropped = g->cr_off ? calloc(2 * n_lists, 1) : NULL;
    if (!m || (delta_on && g->n_cr_lists && !grown) || (g->cr_off && !dropped)) {
        free(m);
        free(grown);
        free(dropped);
        return psi_diag_nomem(d, "pruning read-from choices");
    }
    choice_delta delta = {.rw_new = rw_new, .grown = grown};
    for (uint64_t q = seeded_end ? seeded_end : *sorted; delta_on && q < g->n_csucc; q++) {
        uint32_t op = g->csucc[q].op;
        if (op == PSI_CSUCC_INIT)
            delta.init_grown = true;
        else
            grown[op] = 1;
    }
    const choice_delta *dl = delta_on ? &delta : NULL;
    memset(imp, 0, g->n_choices);
    st = csucc_sort(g, *sorted, d);
    uint8_t *ww = NULL;
    if (st == PSI_OK && !csucc_known && g->n_csucc && !(ww = calloc(g->n_csucc, 1)))
        st = psi_diag_nomem(d, "pruning read-from choices");
    if (st == PSI_OK)
        st = cond_impossible(r, ai, g, ser, imp, m, ww, dl, d);
    free(ww);
    free(m);
    for (uint32_t i = 0; i < g->n_amb && st == PSI_OK; i++) {
        const psi_amb_read *a = &g->amb[i];
        uint8_t *cs = g->choice_state + a->first;
        uint32_t alive = 0;
        for (uint32_t j = 0; j < a->n; j++)
            alive += cs[j] != PSI_CH_EXCLUDED;
        if (alive == 1)
            continue; /* already forced */
        /* the reader's row as at the last pass (choice_delta) */
        bool same = dl && !r->changed[reader_node(r, a->txn)];
        for (uint32_t j = 0; j < a->n && alive > 1; j++) {
            if (cs[j] != PSI_CH_OPEN)
                continue;
            uint32_t w = g->amb_cand[a->first + j];
            if (!imp[a->first + j]) {
                /* the initial value's test reads the writers' rows */
                if (same && w != PSI_SRC_INIT && (!r->doubled || !rw_new[g->op_txn[w]])) {
                    assert(!choice_impossible(r, ai, g, ser, a, w));
                    continue;
                }
                if (!choice_impossible(r, ai, g, ser, a, w))
                    continue;
            }
            cs[j] = PSI_CH_EXCLUDED;
            /* the lists are built from the candidates (core/polygraph.c) */
            if (dropped)
                dropped[w == PSI_SRC_INIT ? g->n_cr_lists + a->key : w] = 1;
            alive--;
            excluded++;
            ++*changed;
        }
        if (alive != 1)
            continue;
        for (uint32_t j = 0; j < a->n; j++) {
            if (cs[j] == PSI_CH_EXCLUDED)
                continue;
            cs[j] = PSI_CH_NEWLY_FORCED;
            forced++;
            uint32_t w = g->amb_cand[a->first + j];
            if (dropped)
                dropped[n_lists + (w == PSI_SRC_INIT ? g->n_cr_lists + a->key : w)] = 1;
            if (w != PSI_SRC_INIT)
                st = psi_polygraph_add_known(g, g->op_txn[w], a->txn, PSI_EDGE_WR, a->key,
                                             PSI_FROM_PRUNING, d);
        }
    }
    /* The seeded consequences of the choices forced now are facts. */
    for (uint64_t i = 0; forced && i < g->n_cond && st == PSI_OK; i++) {
        const psi_cond_edge *e = &g->cond[i];
        if (g->choice_state[e->choice] == PSI_CH_NEWLY_FORCED)
            st = psi_polygraph_add_known(g, e->from, e->to, (psi_edge_type)e->type, e->key,
                                         PSI_FROM_PRUNING, d);
    }
    if (st == PSI_OK)
        st = csucc_settle(g, forced != 0 && csucc_known && dropped ? dropped + n_lists : NULL, d);
    *sorted = g->n_csucc; /* compaction keeps the order */
    for (uint32_t c = 0; forced && c < g->n_choices; c++)
        if (g->choice_state[c] == PSI_CH_NEWLY_FORCED)
            g->choice_state[c] = PSI_CH_FORCED;
    /* Only the open choices' conditional edges still say anything: a
     * forced choice's are known edges now, an excluded one's never
     * exist. Dropping the others keeps later rounds and encode/ from
     * walking them (on hot keys they are most of them). */
    uint64_t keep = 0;
    for (uint64_t i = 0; st == PSI_OK && i < g->n_cond; i++)
        if (g->choice_state[g->cond[i].choice] == PSI_CH_OPEN)
            g->cond[keep++] = g->cond[i];
    if (st == PSI_OK)
        g->n_cond = keep;
    free(grown);
    if (excluded)
        psi_polygraph_drop_excluded_marked(g, dropped);
    free(dropped);
    return st;
}

/* Before seeding (g->pending): one pass of psi_prune_choices on the known
 * graph and the shared conditional edges seeding would derive from the
 * writer pairs r orders (psi_seed_conditional: a reader of T
 * anti-depends on the writers after T), which are then dropped; *again
 * when the passes settled enough of the open choices that a new reach is
 * worth building before seeding. Seeding's cost, and every later round's,
 * grows with the writer pairs the known graph leaves unordered, and a
 * forced choice's WR edge orders some: at 10^5 transactions with values
 * 1..16, seeding after the first pass alone left 18.7 M pairs unordered.
 * Exact: psi_prune_choices only excludes choices whose edges close a cycle
 * with known edges. */
psi_status psi_prune_settle_choices(const psi_history *h, const psi_reach *r,
                                    const psi_anti_index *ai, psi_polygraph *g, psi_prune_rule ser,
                                    bool probe, uint8_t *imp, uint64_t *sorted, bool *again,
                                    psi_diag *d)
{
    assert(g->pending && !g->n_cond && !g->n_csucc);
    uint64_t open = 0;
    for (uint32_t c = 0; c < g->n_choices; c++)
        open += g->choice_state[c] == PSI_CH_OPEN;
    uint32_t settled = 0;
    psi_status st = PSI_OK;
    /* RULE_DEP: an RW edge never closes a DEP cycle (cond_impossible). */
    if (probe && ser != RULE_DEP)
        st = psi_seed_conditional(h, g, r, d);
    if (st == PSI_OK)
        st = psi_prune_choices(r, ai, g, ser, imp, sorted, false, NULL, 0, &settled, d);
    g->n_csucc = 0;
    *sorted = 0;
    *again = st == PSI_OK && (uint64_t)settled * 100 >= open && settled > 0;
    return st;
}
