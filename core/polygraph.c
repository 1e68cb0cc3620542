/* Building the generalized polygraph (see polygraph.h). Everything is done
 * with counting sorts over dense indices: readers per write (CSR), writers
 * per key, then writer pairs grouped per (T, S) for coalescing.
 *
 * The construction steps (SO, WR, the initial transaction's RW edges,
 * writer pairs and their sides) are written once and emit edges through an
 * `emitter`: into the known edges of the whole history's polygraph, or into
 * the flat edge list of a sub-history's (psi_sub_polygraph_build), which
 * maps transactions to local nodes and drops edges leaving the
 * sub-history. */
#include "core/polygraph.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

psi_status psi_polygraph_add_known(psi_polygraph *g, uint32_t from, uint32_t to, psi_edge_type type,
                                   uint32_t key, psi_edge_origin origin, psi_diag *d)
{
    size_t cap = (size_t)g->cap_known;
    if (!psi_grow((void **)&g->known, &cap, (size_t)g->n_known + 1, sizeof *g->known))
        return psi_diag_nomem(d, "adding known edges");
    g->cap_known = cap;
    g->known[g->n_known++] = (psi_edge){
        .from = from, .to = to, .key = key, .type = (uint8_t)type, .origin = (uint8_t)origin};
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
    if (!g->cr_off || !g->ci_off || !g->choice_state)
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
    return PSI_OK;
}

/* Where the construction steps put their edges (see the top of the file). */
typedef struct emitter {
    psi_polygraph *g;      /* the whole history: known edges, PSI_FROM_HISTORY */
    psi_sub_polygraph *S;  /* or a sub-history: labelled flat edges */
    const uint32_t *local; /* sub-history: transaction -> local node, UINT32_MAX outside */
    int32_t cons;          /* label of the edges emitted next (sub-history) */
    uint8_t side;
    psi_diag *d;
    psi_status st;
} emitter;

static psi_status emit(emitter *em, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    if (em->g)
        return psi_polygraph_add_known(em->g, from, to, type, key, PSI_FROM_HISTORY, em->d);
    psi_sub_polygraph *S = em->S;
    uint32_t lf = em->local[from], lt = em->local[to];
    if (lf == UINT32_MAX || lt == UINT32_MAX || lf == lt)
        return PSI_OK;
    if (!psi_grow((void **)&S->e, &S->cap_e, (size_t)S->n_e + 1, sizeof *S->e) ||
        S->n_e == UINT32_MAX)
        return psi_diag_nomem(em->d, "rebuilding a sub-history");
    uint8_t origin = em->cons < 0 ? PSI_FROM_HISTORY : PSI_FROM_CONSTRAINT;
    S->e[S->n_e++] = (psi_sub_edge){
        .e = {.from = lf, .to = lt, .key = key, .type = (uint8_t)type, .origin = origin},
        .cons = em->cons,
        .side = em->side,
        .on = 1};
    return PSI_OK;
}

/* psi_edge_fn adapter, for constraint sides. */
static bool emit_fn(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    emitter *em = ctx;
    em->st = emit(em, from, to, type, key);
    return em->st == PSI_OK;
}

/* SO between consecutive committed transactions of each session, and the
 * initial transaction (when taking part) before each session's first.
 * txns: the sub-history's transactions, sorted; NULL for the whole
 * history. Transactions of a session are contiguous and in session order,
 * and sessions follow each other (history.h), so index order is enough. */
static psi_status so_edges(emitter *em, const psi_history *h, const uint32_t *txns, uint32_t n,
                           bool has_init, uint64_t *count)
{
    uint32_t prev = PSI_INIT_TXN, total = txns ? n : h->n_txns;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t t = txns ? txns[i] : i;
        if (t == PSI_INIT_TXN || (!txns && h->txns[t].status != PSI_TXN_COMMITTED))
            continue;
        bool first = prev == PSI_INIT_TXN || h->txns[prev].session != h->txns[t].session;
        if (!first || has_init) {
            psi_status st = emit(em, first ? PSI_INIT_TXN : prev, t, PSI_EDGE_SO, UINT32_MAX);
            if (st != PSI_OK)
                return st;
            (*count)++;
        }
        prev = t;
    }
    return PSI_OK;
}

/* WR from the writer every external read observed (reads of the initial
 * value need none: the initial transaction precedes everyone). The whole
 * history is walked in operation order and keeps one edge for consecutive
 * reads of one writer by one reader; a sub-history is walked transaction
 * by transaction and keeps one edge per key. */
static psi_status wr_edges(emitter *em, const psi_history *h, const psi_index *idx,
                           const uint32_t *txns, uint32_t n, uint64_t *count)
{
    psi_polygraph *g = em->g;
    uint32_t total = txns ? n : 1;
    for (uint32_t i = 0; i < total; i++) {
        uint32_t first = txns ? h->txns[txns[i]].first_op : 0;
        uint32_t end = txns ? first + h->txns[txns[i]].n_ops : h->n_ops;
        for (uint32_t o = first; o < end; o++) {
            uint32_t w = idx->read_src[o];
            if (w >= PSI_SRC_INIT)
                continue; /* not an external read of a committed writer */
            uint32_t from = idx->op_txn[w], to = idx->op_txn[o];
            if (!txns && g->n_known && g->known[g->n_known - 1].from == from &&
                g->known[g->n_known - 1].to == to && g->known[g->n_known - 1].type == PSI_EDGE_WR)
                continue;
            psi_status st = emit(em, from, to, PSI_EDGE_WR, h->ops[o].key);
            if (st != PSI_OK)
                return st;
            (*count)++;
        }
    }
    return PSI_OK;
}

/* The initial transaction is first in every version order: every reader
 * of the key's initial value (readers[0..nr), transactions) anti-depends
 * on every writer (final writes w_op[0..nw)) other than itself. */
static psi_status init_rw_edges(emitter *em, const uint32_t *op_txn, uint32_t key,
                                const uint32_t *readers, uint32_t nr, const uint32_t *w_op,
                                uint32_t nw, uint64_t *count)
{
    for (uint32_t r = 0; r < nr; r++) {
        for (uint32_t w = 0; w < nw; w++) {
            uint32_t writer = op_txn[w_op[w]];
            if (writer == readers[r])
                continue;
            psi_status st = emit(em, readers[r], writer, PSI_EDGE_RW, key);
            if (st != PSI_OK)
                return st;
            (*count)++;
        }
    }
    return PSI_OK;
}

/* Writers a < b of a key's list w_op (in transaction order) as a pair. */
static psi_pair writer_pair(const uint32_t *op_txn, const uint32_t *w_op, uint32_t a, uint32_t b,
                            uint32_t key)
{
    uint32_t oa = w_op[a], ob = w_op[b];
    return (psi_pair){.t = op_txn[oa], .s = op_txn[ob], .k = {.key = key, .op_t = oa, .op_s = ob}};
}

/* One side of writer pair (t, s) over keys ks[0..n): WW from the writer
 * installed first to the other (once, keyed by the first key), and RW from
 * every reader of the first writer's write of each key to the other. */
static bool side_edges(const psi_polygraph *g, uint32_t t, uint32_t s, const psi_ckey *ks,
                       uint32_t n, bool either, psi_edge_fn fn, void *ctx)
{
    uint32_t from = either ? t : s, to = either ? s : t;
    if (!fn(ctx, from, to, PSI_EDGE_WW, ks[0].key))
        return false;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t op = either ? ks[i].op_t : ks[i].op_s, nr;
        const uint32_t *rd = psi_polygraph_readers(g, op, &nr);
        for (uint32_t r = 0; r < nr; r++)
            if (rd[r] != to && !fn(ctx, rd[r], to, PSI_EDGE_RW, ks[i].key))
                return false;
    }
    return true;
}

static psi_status add_so_wr(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                            psi_diag *d)
{
    emitter em = {.g = g, .cons = -1, .d = d};
    psi_status st = so_edges(&em, h, NULL, 0, true, &g->n_so);
    return st != PSI_OK ? st : wr_edges(&em, h, idx, NULL, 0, &g->n_wr);
}

/* WW edges between consecutive elements of each observed list. */
static psi_status add_list_ww(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                              psi_diag *d)
{
    g->list_ww_first = g->n_known;
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        if (!(idx->op_info[lr->op] & PSI_OI_LIVE))
            continue;
        uint32_t key = h->ops[lr->op].key, prev = PSI_INIT_TXN;
        for (uint32_t k = 0; k < lr->len; k++) {
            uint32_t w = psi_index_writer(idx, key, h->list_vals[lr->first + k]);
            if (w == PSI_SRC_NONE || h->txns[idx->op_txn[w]].status != PSI_TXN_COMMITTED)
                break; /* reported as an anomaly by the index */
            if (idx->dup_prev && idx->dup_prev[w] != PSI_SRC_NONE)
                break; /* a repeated value: which append it was is unknown, so the
                          order from here on is not used (fewer edges: sound) */
            uint32_t t = idx->op_txn[w];
            if (t != prev && prev != PSI_INIT_TXN) {
                psi_status st =
                    psi_polygraph_add_known(g, prev, t, PSI_EDGE_WW, key, PSI_FROM_HISTORY, d);
                if (st != PSI_OK)
                    return st;
                g->n_list_ww++;
            }
            prev = t;
        }
    }
    return PSI_OK;
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
    emitter em = {.g = g, .cons = -1, .d = d};
    for (uint32_t k = 0; k < h->n_keys; k++) {
        psi_status st = init_rw_edges(&em, idx->op_txn, k, g->i_txn + g->i_off[k],
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

/* Stable counting sort of pair records by one 32-bit field. */
static psi_status sort_pairs(psi_pair **recs, uint64_t n, uint32_t n_nodes, bool by_t, psi_diag *d)
{
    uint64_t *cnt = calloc((size_t)n_nodes + 1, sizeof *cnt);
    psi_pair *out = malloc((n ? n : 1) * sizeof *out);
    if (!cnt || !out) {
        free(cnt);
        free(out);
        return psi_diag_nomem(d, "sorting constraints");
    }
    psi_pair *in = *recs;
    for (uint64_t i = 0; i < n; i++)
        cnt[(by_t ? in[i].t : in[i].s) + 1]++;
    for (uint32_t v = 0; v < n_nodes; v++)
        cnt[v + 1] += cnt[v];
    for (uint64_t i = 0; i < n; i++)
        out[cnt[by_t ? in[i].t : in[i].s]++] = in[i];
    free(cnt);
    free(in);
    *recs = out;
    return PSI_OK;
}

psi_status psi_polygraph_set_constraints(psi_polygraph *g, psi_pair *recs, uint64_t m, psi_diag *d)
{
    psi_status st;
    if (g->coalesce) {
        /* Radix sort by (t, s): stable by s, then by t. */
        if ((st = sort_pairs(&recs, m, g->n_nodes, false, d)) != PSI_OK ||
            (st = sort_pairs(&recs, m, g->n_nodes, true, d)) != PSI_OK) {
            free(recs);
            return st;
        }
    }
    free(g->ckeys);
    free(g->cons);
    g->ckeys = malloc((m ? m : 1) * sizeof *g->ckeys);
    g->cons = malloc((m ? m : 1) * sizeof *g->cons);
    if (!g->ckeys || !g->cons) {
        free(recs);
        return psi_diag_nomem(d, "generating constraints");
    }
    uint32_t nc = 0;
    for (uint64_t i = 0; i < m; i++) {
        g->ckeys[i] = recs[i].k;
        if (g->coalesce && nc > 0 && g->cons[nc - 1].t == recs[i].t &&
            g->cons[nc - 1].s == recs[i].s) {
            g->cons[nc - 1].n_keys++;
            continue;
        }
        g->cons[nc++] = (psi_constraint){
            .t = recs[i].t, .s = recs[i].s, .first = (uint32_t)i, .n_keys = 1, .state = PSI_C_OPEN};
    }
    g->n_ckeys = m;
    g->n_cons = nc;
    free(recs);
    g->n_unknown_deps = 0;
    for (uint32_t c = 0; c < nc; c++)
        g->n_unknown_deps += psi_constraint_side_size(g, &g->cons[c], true) +
                             psi_constraint_side_size(g, &g->cons[c], false);
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
                recs[m++] = writer_pair(idx->op_txn, w_op, a, b, k);
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
    free(g->cr);
    free(g->ci_off);
    free(g->ci);
    free(g->cond);
    free(g->choice_state);
    memset(g, 0, sizeof *g);
}

bool psi_constraint_for_each(const psi_polygraph *g, const psi_constraint *c, bool either,
                             psi_edge_fn fn, void *ctx)
{
    return side_edges(g, c->t, c->s, g->ckeys + c->first, c->n_keys, either, fn, ctx);
}

uint64_t psi_constraint_side_size(const psi_polygraph *g, const psi_constraint *c, bool either)
{
    uint32_t to = either ? c->s : c->t;
    const psi_ckey *ks = g->ckeys + c->first;
    uint64_t n = 1;
    for (uint32_t i = 0; i < c->n_keys; i++) {
        uint32_t op = either ? ks[i].op_t : ks[i].op_s, nr;
        const uint32_t *rd = psi_polygraph_readers(g, op, &nr);
        for (uint32_t r = 0; r < nr; r++)
            n += rd[r] != to;
    }
    return n;
}

/* ---- The polygraph of a sub-history (see polygraph.h) ---- */

/* A final write or an initial-value read, for grouping by key. */
typedef struct key_rec {
    uint32_t key, txn, op;
} key_rec;

static int key_rec_cmp(const void *a, const void *b)
{
    const key_rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->txn < y->txn ? -1 : x->txn > y->txn;
}

void psi_sub_polygraph_free(psi_sub_polygraph *S)
{
    free(S->node_txn);
    free(S->e);
    free(S->c);
    memset(S, 0, sizeof *S);
}

/* One constraint per writer pair of the key (writers w_op[0..nw), in
 * transaction order), with both sides' edges. */
static psi_status sub_pairs(emitter *em, const psi_polygraph *g, const psi_index *idx, uint32_t key,
                            const uint32_t *w_op, uint32_t nw, uint32_t max_cons)
{
    psi_sub_polygraph *S = em->S;
    for (uint32_t p = 0; p < nw; p++) {
        for (uint32_t q = p + 1; q < nw; q++) {
            if (S->n_c >= max_cons || S->n_c >= INT32_MAX)
                return psi_diag_set(em->d, PSI_ERR_LIMIT,
                                    "a sub-history needs more than %u writer-pair constraints",
                                    max_cons);
            if (!psi_grow((void **)&S->c, &S->cap_c, (size_t)S->n_c + 1, sizeof *S->c))
                return psi_diag_nomem(em->d, "rebuilding a sub-history");
            psi_pair pr = writer_pair(idx->op_txn, w_op, p, q, key);
            em->cons = (int32_t)S->n_c;
            S->c[S->n_c++] = (psi_sub_cons){em->local[pr.t], em->local[pr.s], key};
            for (uint8_t side = 0; side < 2; side++) {
                em->side = side;
                em->st = PSI_OK;
                side_edges(g, pr.t, pr.s, &pr.k, 1, side == 0, emit_fn, em);
                if (em->st != PSI_OK)
                    return em->st;
            }
        }
    }
    em->cons = -1;
    em->side = 0;
    return PSI_OK;
}

/* Per key with writers in the sub-history: the initial transaction's RW
 * and WW edges, then the writer pairs. */
static psi_status sub_keys(emitter *em, const psi_history *h, const psi_index *idx,
                           const psi_polygraph *g, const uint32_t *txns, uint32_t n, bool has_init,
                           uint32_t max_cons)
{
    size_t cap = 0, nw = 0, ni = 0;
    for (uint32_t i = 0; i < n; i++)
        cap += h->txns[txns[i]].n_ops;
    key_rec *w = malloc((cap ? cap : 1) * sizeof *w), *ir = malloc((cap ? cap : 1) * sizeof *ir);
    uint32_t *w_op = malloc((cap ? cap : 1) * sizeof *w_op);
    uint32_t *ir_txn = malloc((cap ? cap : 1) * sizeof *ir_txn);
    psi_status st = PSI_OK;
    if (!w || !ir || !w_op || !ir_txn) {
        st = psi_diag_nomem(em->d, "rebuilding a sub-history");
        goto out;
    }
    for (uint32_t i = 0; i < n; i++) {
        const psi_txn *tx = &h->txns[txns[i]];
        for (uint32_t k = 0; k < tx->n_ops; k++) {
            uint32_t o = tx->first_op + k;
            uint8_t info = idx->op_info[o];
            if (!(info & PSI_OI_LIVE))
                continue;
            if (info & PSI_OI_FINAL_WRITE)
                w[nw++] = (key_rec){h->ops[o].key, txns[i], o};
            else if (idx->read_src[o] == PSI_SRC_INIT)
                ir[ni++] = (key_rec){h->ops[o].key, txns[i], o};
        }
    }
    qsort(w, nw, sizeof *w, key_rec_cmp);
    qsort(ir, ni, sizeof *ir, key_rec_cmp);
    for (size_t i = 0; i < nw; i++)
        w_op[i] = w[i].op;
    for (size_t i = 0; i < ni; i++)
        ir_txn[i] = ir[i].txn;
    uint64_t unused = 0;
    size_t a = 0, b = 0;
    while (st == PSI_OK && a < nw) {
        size_t e = a, r = 0;
        uint32_t key = w[a].key;
        while (e < nw && w[e].key == key)
            e++;
        while (b < ni && ir[b].key < key)
            b++;
        while (b + r < ni && ir[b + r].key == key)
            r++;
        st = init_rw_edges(em, idx->op_txn, key, ir_txn + b, (uint32_t)r, w_op + a,
                           (uint32_t)(e - a), &unused);
        for (size_t s = a; s < e && st == PSI_OK && has_init; s++)
            st = emit(em, PSI_INIT_TXN, w[s].txn, PSI_EDGE_WW, key);
        if (st == PSI_OK)
            st = sub_pairs(em, g, idx, key, w_op + a, (uint32_t)(e - a), max_cons);
        a = e;
    }
out:
    free(w);
    free(ir);
    free(w_op);
    free(ir_txn);
    return st;
}

psi_status psi_sub_polygraph_build(const psi_history *h, const psi_index *idx,
                                   const psi_polygraph *g, const uint32_t *txns, uint32_t n,
                                   uint32_t max_cons, uint32_t *local, psi_sub_polygraph *S,
                                   psi_diag *d)
{
    memset(S, 0, sizeof *S);
    S->n_nodes = n;
    S->node_txn = malloc((n ? n : 1) * sizeof *S->node_txn);
    if (!S->node_txn)
        return psi_diag_nomem(d, "rebuilding a sub-history");
    memcpy(S->node_txn, txns, n * sizeof *txns);
    for (uint32_t i = 0; i < n; i++) {
        assert(i == 0 || txns[i - 1] < txns[i]);
        local[txns[i]] = i;
    }
    bool has_init = n && txns[0] == PSI_INIT_TXN;
    emitter em = {.S = S, .local = local, .cons = -1, .d = d};
    uint64_t unused = 0;
    psi_status st = so_edges(&em, h, txns, n, has_init, &unused);
    if (st == PSI_OK)
        st = wr_edges(&em, h, idx, txns, n, &unused);
    if (st == PSI_OK)
        st = sub_keys(&em, h, idx, g, txns, n, has_init, max_cons);
    /* List-append WW edges are facts of the whole history (any reader's
     * list orders its writers), so the sub-history keeps those among its
     * own transactions. */
    for (uint64_t i = 0; i < g->n_list_ww && st == PSI_OK; i++) {
        const psi_edge *ke = &g->known[g->list_ww_first + i];
        assert(ke->type == PSI_EDGE_WW && ke->origin == PSI_FROM_HISTORY);
        st = emit(&em, ke->from, ke->to, PSI_EDGE_WW, ke->key);
    }
    for (uint32_t i = 0; i < n; i++)
        local[txns[i]] = UINT32_MAX;
    if (st != PSI_OK)
        psi_sub_polygraph_free(S);
    return st;
}
