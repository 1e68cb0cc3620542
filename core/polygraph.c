/* Building the generalized polygraph of the whole history (see
 * polygraph.h). Everything is done with counting sorts over dense indices:
 * readers per write (CSR), writers per key, then writer pairs grouped per
 * (T, S) for coalescing.
 *
 * The construction steps (SO, WR, the initial transaction's RW edges,
 * writer pairs and their sides) are shared with sub-histories
 * (sub_polygraph.c) and live in polygraph_steps.c. */
#include "core/polygraph.h"

#include "core/list_order.h"
#include "core/polygraph_steps.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Appends e to the edge array *a (*n used, *cap allocated). */
static bool push_edge(psi_edge **a, uint64_t *n, uint64_t *cap, psi_edge e)
{
    size_t c = (size_t)*cap;
    if (!psi_grow((void **)a, &c, (size_t)*n + 1, sizeof **a))
        return false;
    *cap = c;
    (*a)[(*n)++] = e;
    return true;
}

psi_status psi_polygraph_add_known(psi_polygraph *g, uint32_t from, uint32_t to, psi_edge_type type,
                                   uint32_t key, psi_edge_origin origin, psi_diag *d)
{
    psi_edge e = {
        .from = from, .to = to, .key = key, .type = (uint8_t)type, .origin = (uint8_t)origin};
    if (psi_polygraph_gated_from(g, from))
        return push_edge(&g->gated, &g->n_gated, &g->cap_gated, e)
                   ? PSI_OK
                   : psi_diag_nomem(d, "adding edges of optional transactions");
    if (!push_edge(&g->known, &g->n_known, &g->cap_known, e))
        return psi_diag_nomem(d, "adding known edges");
    if (origin == PSI_FROM_SEEDING)
        g->n_forced_edges++;
    else if (origin == PSI_FROM_SEEDING_INIT)
        g->n_init_edges++;
    else if (origin == PSI_FROM_VERSION_ORDER)
        g->n_hint_edges++;
    else if (origin == PSI_FROM_TIMESTAMPS)
        g->n_ts_edges++;
    else if (origin == PSI_FROM_REALTIME)
        g->n_rt_edges++;
    return PSI_OK;
}

psi_status psi_polygraph_add_cond(psi_polygraph *g, uint32_t from, uint32_t to, psi_edge_type type,
                                  uint32_t key, uint32_t choice, psi_diag *d)
{
    assert(choice < g->n_choices);
    if (from == to)
        return PSI_OK;
    size_t cap = (size_t)g->cap_cond;
    if (!psi_grow((void **)&g->cond, &cap, (size_t)g->n_cond + 1, sizeof *g->cond))
        return psi_diag_nomem(d, "adding conditional edges");
    g->cap_cond = cap;
    g->cond[g->n_cond++] = (psi_cond_edge){
        .from = from, .to = to, .key = key, .choice = choice, .type = (uint8_t)type};
    return PSI_OK;
}

psi_status psi_polygraph_add_csucc(psi_polygraph *g, uint32_t op, uint32_t to, uint32_t key,
                                   psi_diag *d)
{
    size_t cap = (size_t)g->cap_csucc;
    if (!psi_grow((void **)&g->csucc, &cap, (size_t)g->n_csucc + 1, sizeof *g->csucc))
        return psi_diag_nomem(d, "adding conditional edges");
    g->cap_csucc = cap;
    g->csucc[g->n_csucc++] = (psi_cond_succ){.op = op, .to = to, .key = key};
    return PSI_OK;
}

typedef struct known_adder {
    psi_polygraph *g;
    psi_diag *d;
    psi_status st;
} known_adder;

static bool add_pruned(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    known_adder *a = ctx;
    a->st = psi_polygraph_add_known(a->g, from, to, type, key, PSI_FROM_PRUNING, a->d);
    return a->st == PSI_OK;
}

psi_status psi_polygraph_resolve(psi_polygraph *g, uint32_t c, bool either, psi_diag *d)
{
    assert(c < g->n_cons && g->cons[c].state == PSI_C_OPEN);
    g->cons[c].state = either ? PSI_C_EITHER : PSI_C_OR;
    known_adder a = {.g = g, .d = d, .st = PSI_OK};
    psi_constraint_for_each(g, &g->cons[c], either, add_pruned, &a);
    return a.st;
}

void psi_polygraph_shrink(psi_polygraph *g)
{
    if (!g->n_known || g->n_known >= g->cap_known)
        return;
    psi_edge *shrunk = realloc(g->known, (size_t)g->n_known * sizeof *g->known);
    if (shrunk) {
        g->known = shrunk;
        g->cap_known = g->n_known;
    }
}

const char *psi_edge_type_name(psi_edge_type t)
{
    switch (t) {
    case PSI_EDGE_SO:
        return "SO";
    case PSI_EDGE_WR:
        return "WR";
    case PSI_EDGE_WW:
        return "WW";
    case PSI_EDGE_RW:
        return "RW";
    }
    return "?";
}

/* Readers of every final write, as CSR over op indices. */
static psi_status build_readers(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                                psi_diag *d)
{
    g->reader_off = calloc((size_t)h->n_ops + 2, sizeof *g->reader_off);
    if (!g->reader_off)
        return psi_diag_nomem(d, "indexing readers");
    uint64_t total = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t w = idx->read_src[o];
        if (w < PSI_SRC_INIT) {
            g->reader_off[w + 2]++;
            total++;
        }
    }
    g->readers = malloc((total ? total : 1) * sizeof *g->readers);
    if (!g->readers)
        return psi_diag_nomem(d, "indexing readers");
    for (uint32_t o = 0; o < h->n_ops; o++)
        g->reader_off[o + 2] += g->reader_off[o + 1];
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t w = idx->read_src[o];
        if (w < PSI_SRC_INIT)
            g->readers[g->reader_off[w + 1]++] = idx->op_txn[o];
    }
    return PSI_OK;
}

/* Conditional readers of every candidate write (CSR over ops) and of the
 * initial value (CSR over keys), from the index's reads with a choice. */
static psi_status build_creaders(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                                 psi_diag *d)
{
    if (!idx->n_amb)
        return PSI_OK;
    if (idx->n_amb_cand >= UINT32_MAX)
        return psi_diag_set(d, PSI_ERR_LIMIT, "%s: %llu candidate writers exceed the limit",
                            h->source, (unsigned long long)idx->n_amb_cand);
    g->n_choices = (uint32_t)idx->n_amb_cand;
    g->amb = idx->amb;
    g->n_amb = idx->n_amb;
    g->amb_cand = idx->amb_cand;
    g->cr_off = calloc((size_t)h->n_ops + 2, sizeof *g->cr_off);
    g->ci_off = calloc((size_t)h->n_keys + 2, sizeof *g->ci_off);
    g->choice_state = calloc(g->n_choices, 1);
    g->cr_end = malloc(((size_t)h->n_ops + 1) * sizeof *g->cr_end);
    g->ci_end = malloc(((size_t)h->n_keys + 1) * sizeof *g->ci_end);
    if (!g->cr_off || !g->ci_off || !g->choice_state || !g->cr_end || !g->ci_end)
        return psi_diag_nomem(d, "indexing candidate writers");
    uint64_t ncr = 0, nci = 0;
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *r = &idx->amb[a];
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t w = idx->amb_cand[r->first + j];
            if (w == PSI_SRC_INIT) {
                g->ci_off[r->key + 2]++;
                nci++;
            } else {
                g->cr_off[w + 2]++;
                ncr++;
            }
        }
    }
    g->cr = malloc((ncr ? ncr : 1) * sizeof *g->cr);
    g->ci = malloc((nci ? nci : 1) * sizeof *g->ci);
    if (!g->cr || !g->ci)
        return psi_diag_nomem(d, "indexing candidate writers");
    for (uint32_t o = 0; o < h->n_ops; o++)
        g->cr_off[o + 2] += g->cr_off[o + 1];
    for (uint32_t k = 0; k < h->n_keys; k++)
        g->ci_off[k + 2] += g->ci_off[k + 1];
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *r = &idx->amb[a];
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t w = idx->amb_cand[r->first + j];
            psi_cread c = {.txn = r->txn, .choice = (uint32_t)(r->first + j)};
            if (w == PSI_SRC_INIT)
                g->ci[g->ci_off[r->key + 1]++] = c;
            else
                g->cr[g->cr_off[w + 1]++] = c;
        }
    }
    g->n_cr_lists = h->n_ops;
    for (uint32_t o = 0; o < h->n_ops; o++)
        g->cr_end[o] = g->cr_off[o + 1];
    for (uint32_t k = 0; k < h->n_keys; k++)
        g->ci_end[k] = g->ci_off[k + 1];
    return PSI_OK;
}

/* Compacts the live readers of lists [0, n) of one CSR (off, end), or
 * only those marked in `only` when it is non-NULL. */
static void drop_excluded_csr(const uint8_t *cs, const uint32_t *off, uint32_t *end, psi_cread *cr,
                              uint32_t n, const uint8_t *only)
{
    for (uint32_t i = 0; i < n; i++) {
        if (only && !only[i]) {
#ifndef NDEBUG
            for (uint32_t j = off[i]; j < end[i]; j++)
                assert(cs[cr[j].choice] != PSI_CH_EXCLUDED);
#endif
            continue;
        }
        uint32_t k = off[i];
        for (uint32_t j = off[i]; j < end[i]; j++)
            if (cs[cr[j].choice] != PSI_CH_EXCLUDED)
                cr[k++] = cr[j];
        end[i] = k;
    }
}

void psi_polygraph_drop_excluded(psi_polygraph *g)
{
    if (!g->cr_off)
        return;
    drop_excluded_csr(g->choice_state, g->cr_off, g->cr_end, g->cr, g->n_cr_lists, NULL);
    drop_excluded_csr(g->choice_state, g->ci_off, g->ci_end, g->ci, g->n_keys, NULL);
}

void psi_polygraph_drop_excluded_marked(psi_polygraph *g, const uint8_t *marked)
{
    if (!g->cr_off)
        return;
    drop_excluded_csr(g->choice_state, g->cr_off, g->cr_end, g->cr, g->n_cr_lists, marked);
    drop_excluded_csr(g->choice_state, g->ci_off, g->ci_end, g->ci, g->n_keys,
                      marked + g->n_cr_lists);
}

/* Session order around optional transactions: the chain psi_so_edges
 * built runs through them, and its edges out of them are gated; so the
 * committed transaction before a run of optional ones (or the initial
 * one) precedes each of them and the committed one after it by a known
 * edge, and each
 * optional one precedes every later one of its run and the committed one
 * after it by a gated edge (its chain successor has one already). */
static psi_status add_so_bypass(psi_polygraph *g, const psi_history *h, psi_diag *d)
{
    psi_status st = PSI_OK;
    for (uint32_t s = 0; s < h->n_sessions && st == PSI_OK; s++) {
        const psi_session *ss = &h->sessions[s];
        uint32_t prev = PSI_INIT_TXN, run = UINT32_MAX; /* run: first optional since prev */
        for (uint32_t i = 0; i < ss->n_txns && st == PSI_OK; i++) {
            uint32_t t = ss->first_txn + i;
            if (h->txns[t].status != PSI_TXN_COMMITTED)
                continue;
            if (g->opt[t]) {
                if (run == UINT32_MAX)
                    run = i;
            }
            /* t's optional predecessors in the run, but the last (the
             * chain's edge), precede it */
            uint32_t last = UINT32_MAX;
            for (uint32_t j = i; j-- > (run == UINT32_MAX ? i : run);) {
                uint32_t w = ss->first_txn + j;
                if (h->txns[w].status != PSI_TXN_COMMITTED || !g->opt[w])
                    continue;
                if (last == UINT32_MAX && w != t) {
                    last = w;
                    continue;
                }
                if (w != t)
                    st = psi_polygraph_add_known(g, w, t, PSI_EDGE_SO, UINT32_MAX, PSI_FROM_HISTORY,
                                                 d);
            }
            if (st != PSI_OK)
                continue;
            if (g->opt[t]) {
                /* the chain reaches it through the run's earlier ones */
                if (run != i)
                    st = psi_polygraph_add_known(g, prev, t, PSI_EDGE_SO, UINT32_MAX,
                                                 PSI_FROM_HISTORY, d);
                continue;
            }
            if (run != UINT32_MAX) {
                st = psi_polygraph_add_known(g, prev, t, PSI_EDGE_SO, UINT32_MAX, PSI_FROM_HISTORY,
                                             d);
                g->n_so++;
            }
            prev = t;
            run = UINT32_MAX;
        }
    }
    return st;
}

static psi_status add_so_wr(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                            psi_diag *d)
{
    psi_emitter em = {.g = g, .cons = -1, .d = d};
    psi_status st = psi_so_edges(&em, h, NULL, 0, true, &g->n_so);
    if (st == PSI_OK && g->opt)
        st = add_so_bypass(g, h, d);
    return st != PSI_OK ? st : psi_wr_edges(&em, h, idx, NULL, 0, &g->n_wr);
}

typedef struct list_ww_ctx {
    psi_polygraph *g;
    psi_diag *d;
    psi_status st;
} list_ww_ctx;

static bool add_one_list_ww(void *ctx, uint32_t from, uint32_t to, uint32_t key)
{
    list_ww_ctx *c = ctx;
    c->st = psi_polygraph_add_known(c->g, from, to, PSI_EDGE_WW, key, PSI_FROM_HISTORY, c->d);
    /* an optional appender's edge is gated, not in the known range */
    if (c->st == PSI_OK && !psi_polygraph_gated_from(c->g, from))
        c->g->n_list_ww++;
    return c->st == PSI_OK;
}

/* The version orders list-append reads show (core/list_order.h): their
 * consecutive appenders, and their last appender before every append they
 * do not show. Contiguous from list_ww_first, for sub-polygraphs. */
static psi_status add_list_ww(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                              psi_diag *d)
{
    g->list_ww_first = g->n_known;
    list_ww_ctx c = {.g = g, .d = d, .st = PSI_OK};
    bool nomem;
    if (!psi_list_ww_facts(h, idx, add_one_list_ww, &c, &nomem) && nomem)
        return psi_diag_nomem(d, "ordering list-append writers");
    return c.st;
}

/* Writers per key (final writes of committed txns, in transaction order,
 * hence grouped by session in session order) and readers of the initial
 * value per key, both as CSR over dense keys. */
static psi_status build_per_key(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                                psi_diag *d)
{
    size_t nk = h->n_keys;
    g->n_keys = h->n_keys;
    g->w_off = calloc(nk + 2, sizeof *g->w_off);
    g->i_off = calloc(nk + 2, sizeof *g->i_off);
    if (!g->w_off || !g->i_off)
        return psi_diag_nomem(d, "grouping writers by key");
    uint64_t nw = 0, ni = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint8_t info = idx->op_info[o];
        if (!(info & PSI_OI_LIVE))
            continue;
        if (info & PSI_OI_FINAL_WRITE) {
            g->w_off[h->ops[o].key + 2]++;
            nw++;
        } else if (idx->read_src[o] == PSI_SRC_INIT) {
            g->i_off[h->ops[o].key + 2]++;
            ni++;
        }
    }
    g->w_op = malloc((nw ? nw : 1) * sizeof *g->w_op);
    g->i_txn = malloc((ni ? ni : 1) * sizeof *g->i_txn);
    if (!g->w_op || !g->i_txn)
        return psi_diag_nomem(d, "grouping writers by key");
    for (size_t k = 0; k < nk; k++) {
        g->w_off[k + 2] += g->w_off[k + 1];
        g->i_off[k + 2] += g->i_off[k + 1];
    }
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (h->txns[t].status != PSI_TXN_COMMITTED)
            continue;
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++) {
            uint32_t o = h->txns[t].first_op + i;
            uint8_t info = idx->op_info[o];
            uint32_t k = h->ops[o].key;
            if (info & PSI_OI_FINAL_WRITE)
                g->w_op[g->w_off[k + 1]++] = o;
            else if (idx->read_src[o] == PSI_SRC_INIT)
                g->i_txn[g->i_off[k + 1]++] = t;
        }
    }
    /* What the paper's polygraph would hold, for Table 3 comparisons. */
    for (size_t k = 0; k < nk; k++) {
        uint64_t w = g->w_off[k + 1] - g->w_off[k], rd = 0;
        if (w < 2)
            continue;
        for (uint32_t i = g->w_off[k]; i < g->w_off[k + 1]; i++)
            rd += g->reader_off[g->w_op[i] + 1] - g->reader_off[g->w_op[i]];
        g->n_writer_pairs += w * (w - 1) / 2;
        g->n_pair_deps += w * (w - 1) + (w - 1) * rd;
    }
    return PSI_OK;
}

/* Every reader of a key's initial value anti-depends on every writer of it
 * (all_pairs; seeding adds a sparse equivalent instead). */
static psi_status add_init_rw(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                              psi_diag *d)
{
    psi_emitter em = {.g = g, .cons = -1, .d = d};
    for (uint32_t k = 0; k < h->n_keys; k++) {
        psi_status st = psi_init_rw_edges(&em, idx->op_txn, k, g->i_txn + g->i_off[k],
                                          g->i_off[k + 1] - g->i_off[k], g->w_op + g->w_off[k],
                                          g->w_off[k + 1] - g->w_off[k], &g->n_init_edges);
        if (st != PSI_OK)
            return st;
        uint32_t nc;
        const psi_cread *cr = psi_polygraph_cinit(g, k, &nc);
        for (uint32_t r = 0; r < nc; r++)
            for (uint32_t w = g->w_off[k]; w < g->w_off[k + 1]; w++)
                if ((st = psi_polygraph_add_cond(g, cr[r].txn, idx->op_txn[g->w_op[w]], PSI_EDGE_RW,
                                                 k, cr[r].choice, d)) != PSI_OK)
                    return st;
    }
    return PSI_OK;
}

/* One writer pair while its writer T's records are sorted by S: T is
 * the group's. */
typedef struct srec {
    uint32_t s;
    psi_ckey k;
} srec;

/* The end of the run of non-decreasing s that starts at a[i]. */
static uint32_t run_end(const srec *a, uint32_t i, uint32_t n)
{
    while (++i < n && a[i - 1].s <= a[i].s)
        ;
    return i;
}

/* Sorts a[0..n) by s, stably (b: scratch of n records); returns a or b,
 * whichever holds the result. A merge sort of the runs already there:
 * seeding and all_pairs emit T's pairs of one key in ascending S, so a
 * writer's records are one run per key it writes (a few), and merging
 * adjacent runs pass by pass sorts them in about log2(keys) passes over
 * a group that sits in the cache. Ties keep the left run's record first,
 * which is the one generated first. */
static srec *sort_group(srec *a, srec *b, uint32_t n)
{
    for (;;) {
        uint32_t i = 0, runs = 0;
        while (i < n) {
            uint32_t mid = run_end(a, i, n);
            runs++;
            if (mid == n) {
                if (runs == 1)
                    return a; /* sorted already */
                memcpy(b + i, a + i, (size_t)(n - i) * sizeof *a);
                break;
            }
            uint32_t end = run_end(a, mid, n), x = i, y = mid, o = i;
            while (x < mid && y < end)
                b[o++] = a[y].s < a[x].s ? a[y++] : a[x++];
            memcpy(b + o, a + x, (size_t)(mid - x) * sizeof *a);
            o += mid - x;
            memcpy(b + o, a + y, (size_t)(end - y) * sizeof *a);
            i = end;
        }
        srec *t = a;
        a = b;
        b = t;
    }
}

/* set_constraints without coalescing: one constraint per record, in the
 * order given; constraint i goes over pair i (read first). */
static uint32_t keep_pairs(psi_pair *recs, uint64_t m, psi_ckey *ck)
{
    unsigned char *cons = (unsigned char *)recs;
    for (uint64_t i = 0; i < m; i++) {
        psi_pair p = recs[i];
        ck[i] = p.k;
        psi_constraint c = {.t = p.t, .s = p.s, .first = (uint32_t)i, .state = PSI_C_OPEN};
        memcpy(cons + i * sizeof c, &c, sizeof c);
    }
    return (uint32_t)m;
}

/* set_constraints with coalescing: the records ordered by (t, s), ties
 * in the order given, their keys into ck and one constraint per (t, s)
 * over the front of recs; *nc gets how many.
 *
 * A stable counting sort by t (one pass that scatters each record's key
 * to its writer's group), then each group sorted by s in cache
 * (sort_group): the same order as the radix sort by s and then by t that
 * this replaces, with one pass over the 62.7 M records of 10^5
 * transactions with values 1..4 (bench/README, s31 i17b) instead of two,
 * and the keys written where they stay. S is its write's transaction,
 * so only the keys move (12 bytes a record instead of a second buffer
 * of whole records); the constraints go over recs, all read by then. */
static psi_status group_pairs(const psi_polygraph *g, psi_pair *recs, uint64_t m, psi_ckey *ck,
                              uint32_t *nc, psi_diag *d)
{
    uint64_t *off = calloc((size_t)g->n_nodes + 1, sizeof *off);
    srec *a = NULL, *b = NULL;
    psi_status st = PSI_OK;
    if (!off) {
        st = psi_diag_nomem(d, "sorting constraints");
        goto out;
    }
    for (uint64_t i = 0; i < m; i++)
        off[recs[i].t + 1]++;
    uint64_t big = 0; /* the largest group */
    for (uint32_t v = 0; v < g->n_nodes; v++) {
        big = off[v + 1] > big ? off[v + 1] : big;
        off[v + 1] += off[v];
    }
    assert(off[g->n_nodes] == m && big <= UINT32_MAX);
    a = malloc((big ? big : 1) * sizeof *a);
    b = malloc((big ? big : 1) * sizeof *b);
    if (!a || !b) {
        st = psi_diag_nomem(d, "sorting constraints");
        goto out;
    }
    /* off[t] moves to the end of t's group, which is where t + 1's starts */
    for (uint64_t i = 0; i < m; i++) {
        assert(g->op_txn[recs[i].k.op_t] == recs[i].t && g->op_txn[recs[i].k.op_s] == recs[i].s);
        ck[off[recs[i].t]++] = recs[i].k;
    }
    unsigned char *cons = (unsigned char *)recs;
    uint32_t n = 0;
    for (uint32_t t = 0, begin = 0; t < g->n_nodes; t++) {
        uint32_t len = (uint32_t)(off[t] - begin);
        if (!len)
            continue;
        for (uint32_t i = 0; i < len; i++)
            a[i] = (srec){.s = g->op_txn[ck[begin + i].op_s], .k = ck[begin + i]};
        const srec *r = sort_group(a, b, len);
        psi_constraint c = {0};
        for (uint32_t i = 0; i < len; i++) {
            ck[begin + i] = r[i].k;
            if (i > 0 && r[i].s == c.s)
                continue; /* a key of the same pair: c's keys run on */
            if (i > 0)
                memcpy(cons + (size_t)n++ * sizeof c, &c, sizeof c);
            c = (psi_constraint){.t = t, .s = r[i].s, .first = begin + i, .state = PSI_C_OPEN};
        }
        memcpy(cons + (size_t)n++ * sizeof c, &c, sizeof c);
        begin = (uint32_t)off[t];
    }
    *nc = n;
out:
    free(off);
    free(a);
    free(b);
    return st;
}

/* The keys go to a fresh array and the constraints over the pairs'
 * (psi_polygraph_set_constraints takes it), which is then shrunk to
 * them: at 10^5 transactions with values 1..4 seeding hands over 62.7 M
 * pairs (1.25 GB), and a second buffer of whole pairs for the sort made
 * this the check's peak. A pair is 20 bytes, a constraint 16, a key 12;
 * memcpy writes the constraints, as the buffer held another type. */
psi_status psi_polygraph_set_constraints(psi_polygraph *g, psi_pair *recs, uint64_t m, psi_diag *d)
{
    static_assert(sizeof(psi_constraint) <= sizeof(psi_pair), "constraints go over their pairs");
    assert(m < UINT32_MAX);
    psi_ckey *ck = malloc((m ? m : 1) * sizeof *ck);
    psi_status st = PSI_OK;
    uint32_t nc = 0;
    if (!ck)
        st = psi_diag_nomem(d, "generating constraints");
    if (st == PSI_OK && g->coalesce)
        st = group_pairs(g, recs, m, ck, &nc, d);
    else if (st == PSI_OK)
        nc = keep_pairs(recs, m, ck);
    if (st != PSI_OK) {
        free(ck);
        free(recs);
        return st;
    }
    /* Returning the rest of the pairs' buffer; a failed shrink keeps it all. */
    psi_constraint *cs = realloc(recs, (nc ? nc : 1) * sizeof *cs);
    free(g->ckeys);
    free(g->cons);
    g->ckeys = ck;
    g->cons = cs ? cs : (psi_constraint *)(void *)recs;
    g->n_ckeys = m;
    g->n_cons = nc;
    g->pending = false;
    return PSI_OK;
}

/* Every writer pair of every key (the paper's polygraph). */
static psi_status all_pairs(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                            psi_diag *d)
{
    uint64_t n = g->n_writer_pairs;
    if (n > UINT32_MAX - 1)
        return psi_diag_set(d, PSI_ERR_LIMIT,
                            "%s: %llu writer pairs exceed the constraint limit (%u); pruning "
                            "avoids generating most of them",
                            h->source, (unsigned long long)n, UINT32_MAX - 1);
    psi_pair *recs = malloc((n ? n : 1) * sizeof *recs);
    if (!recs)
        return psi_diag_nomem(d, "generating constraints");
    uint64_t m = 0;
    for (uint32_t k = 0; k < h->n_keys; k++) {
        const uint32_t *w_op = g->w_op + g->w_off[k];
        uint32_t nw = g->w_off[k + 1] - g->w_off[k];
        /* Writers are in transaction order, so every pair has t < s. */
        for (uint32_t a = 0; a < nw; a++)
            for (uint32_t b = a + 1; b < nw; b++)
                recs[m++] = psi_writer_pair(idx->op_txn, w_op, a, b, k);
    }
    return psi_polygraph_set_constraints(g, recs, m, d);
}

psi_status psi_polygraph_build(const psi_history *h, const psi_index *idx,
                               const psi_polygraph_opts *opts, psi_polygraph *g, psi_diag *d)
{
    memset(g, 0, sizeof *g);
    g->n_nodes = h->n_txns;
    g->coalesce = !(opts && opts->no_coalescing);
    g->pending = !(opts && opts->all_pairs);
    g->op_txn = idx->op_txn;
    g->opt = idx->opt;
    psi_status st;
    if ((st = build_readers(g, h, idx, d)) != PSI_OK ||
        (st = build_creaders(g, h, idx, d)) != PSI_OK || (st = add_so_wr(g, h, idx, d)) != PSI_OK ||
        (st = add_list_ww(g, h, idx, d)) != PSI_OK ||
        (st = build_per_key(g, h, idx, d)) != PSI_OK ||
        (!g->pending && (st = add_init_rw(g, h, idx, d)) != PSI_OK) ||
        (!g->pending && (st = all_pairs(g, h, idx, d)) != PSI_OK)) {
        psi_polygraph_free(g);
        return st;
    }
    return PSI_OK;
}

void psi_polygraph_free(psi_polygraph *g)
{
    free(g->known);
    free(g->cons);
    free(g->ckeys);
    free(g->reader_off);
    free(g->readers);
    free(g->w_off);
    free(g->w_op);
    free(g->i_off);
    free(g->i_txn);
    free(g->cr_off);
    free(g->cr_end);
    free(g->cr);
    free(g->ci_off);
    free(g->ci_end);
    free(g->ci);
    free(g->cond);
    free(g->csucc);
    free(g->choice_state);
    free(g->gated);
    memset(g, 0, sizeof *g);
}

bool psi_constraint_for_each(const psi_polygraph *g, const psi_constraint *c, bool either,
                             psi_edge_fn fn, void *ctx)
{
    return psi_side_edges(g, c->t, c->s, g->ckeys + c->first, psi_constraint_n_keys(g, c), either,
                          fn, ctx);
}

uint64_t psi_constraint_side_size(const psi_polygraph *g, const psi_constraint *c, bool either)
{
    uint32_t to = either ? c->s : c->t;
    const psi_ckey *ks = g->ckeys + c->first;
    uint64_t n = 1;
    for (uint32_t i = 0, nk = psi_constraint_n_keys(g, c); i < nk; i++) {
        uint32_t op = either ? ks[i].op_t : ks[i].op_s, nr;
        const uint32_t *rd = psi_polygraph_readers(g, op, &nr);
        for (uint32_t r = 0; r < nr; r++)
            n += rd[r] != to;
    }
    return n;
}
