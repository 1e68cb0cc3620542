/* Building the generalized polygraph (see polygraph.h). Everything is done
 * with counting sorts over dense indices: readers per write (CSR), writers
 * per key, then writer pairs grouped per (T, S) for coalescing. */
#include "core/polygraph.h"

#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

typedef struct pair_rec {
    uint32_t t, s;
    psi_ckey k;
} pair_rec;

psi_status psi_polygraph_add_known(psi_polygraph *g, uint32_t from, uint32_t to, psi_edge_type type,
                                   uint32_t key, psi_diag *d)
{
    size_t cap = (size_t)g->cap_known;
    if (!psi_grow((void **)&g->known, &cap, (size_t)g->n_known + 1, sizeof *g->known))
        return psi_diag_nomem(d, "adding known edges");
    g->cap_known = cap;
    g->known[g->n_known++] = (psi_edge){.from = from, .to = to, .key = key, .type = (uint8_t)type};
    return PSI_OK;
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

static psi_status add_so_wr(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                            psi_diag *d)
{
    psi_status st;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        uint32_t prev = PSI_INIT_TXN;
        const psi_session *ss = &h->sessions[s];
        for (uint32_t t = ss->first_txn; t < ss->first_txn + ss->n_txns; t++) {
            if (h->txns[t].status != PSI_TXN_COMMITTED)
                continue;
            if ((st = psi_polygraph_add_known(g, prev, t, PSI_EDGE_SO, UINT32_MAX, d)) != PSI_OK)
                return st;
            g->n_so++;
            prev = t;
        }
    }
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t w = idx->read_src[o];
        if (w >= PSI_SRC_INIT)
            continue;
        uint32_t from = idx->op_txn[w], to = idx->op_txn[o];
        /* Consecutive reads of one writer by one reader give one edge. */
        if (g->n_known && g->known[g->n_known - 1].from == from &&
            g->known[g->n_known - 1].to == to && g->known[g->n_known - 1].type == PSI_EDGE_WR)
            continue;
        if ((st = psi_polygraph_add_known(g, from, to, PSI_EDGE_WR, h->ops[o].key, d)) != PSI_OK)
            return st;
        g->n_wr++;
    }
    return PSI_OK;
}

/* WW edges between consecutive elements of each observed list. */
static psi_status add_list_ww(psi_polygraph *g, const psi_history *h, const psi_index *idx,
                              psi_diag *d)
{
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        if (!(idx->op_info[lr->op] & PSI_OI_LIVE))
            continue;
        uint32_t key = h->ops[lr->op].key, prev = PSI_INIT_TXN;
        for (uint32_t k = 0; k < lr->len; k++) {
            uint32_t w = psi_index_writer(idx, key, h->list_vals[lr->first + k]);
            if (w == PSI_SRC_NONE || h->txns[idx->op_txn[w]].status != PSI_TXN_COMMITTED)
                break; /* reported as an anomaly by the index */
            uint32_t t = idx->op_txn[w];
            if (t != prev && prev != PSI_INIT_TXN) {
                psi_status st = psi_polygraph_add_known(g, prev, t, PSI_EDGE_WW, key, d);
                if (st != PSI_OK)
                    return st;
                g->n_list_ww++;
            }
            prev = t;
        }
    }
    return PSI_OK;
}

/* Writers per key (final writes of committed txns) and readers of the
 * initial value per key, both as CSR over dense keys. */
typedef struct per_key {
    uint32_t *w_off; /* [n_keys + 1] */
    uint32_t *w_op;  /* final write ops, grouped by key */
    uint32_t *i_off; /* [n_keys + 1] */
    uint32_t *i_txn; /* readers of the initial value, grouped by key */
} per_key;

static void per_key_free(per_key *pk)
{
    free(pk->w_off);
    free(pk->w_op);
    free(pk->i_off);
    free(pk->i_txn);
}

static psi_status build_per_key(per_key *pk, const psi_history *h, const psi_index *idx,
                                psi_diag *d)
{
    size_t nk = h->n_keys;
    pk->w_off = calloc(nk + 2, sizeof *pk->w_off);
    pk->i_off = calloc(nk + 2, sizeof *pk->i_off);
    if (!pk->w_off || !pk->i_off)
        return psi_diag_nomem(d, "grouping writers by key");
    uint64_t nw = 0, ni = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint8_t info = idx->op_info[o];
        if (!(info & PSI_OI_LIVE))
            continue;
        if (info & PSI_OI_FINAL_WRITE) {
            pk->w_off[h->ops[o].key + 2]++;
            nw++;
        } else if (idx->read_src[o] == PSI_SRC_INIT) {
            pk->i_off[h->ops[o].key + 2]++;
            ni++;
        }
    }
    pk->w_op = malloc((nw ? nw : 1) * sizeof *pk->w_op);
    pk->i_txn = malloc((ni ? ni : 1) * sizeof *pk->i_txn);
    if (!pk->w_op || !pk->i_txn)
        return psi_diag_nomem(d, "grouping writers by key");
    for (size_t k = 0; k < nk; k++) {
        pk->w_off[k + 2] += pk->w_off[k + 1];
        pk->i_off[k + 2] += pk->i_off[k + 1];
    }
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint8_t info = idx->op_info[o];
        if (!(info & PSI_OI_LIVE))
            continue;
        uint32_t k = h->ops[o].key;
        if (info & PSI_OI_FINAL_WRITE)
            pk->w_op[pk->w_off[k + 1]++] = o;
        else if (idx->read_src[o] == PSI_SRC_INIT)
            pk->i_txn[pk->i_off[k + 1]++] = idx->op_txn[o];
    }
    return PSI_OK;
}

/* The initial transaction is first in every version order: every reader of
 * x's initial value anti-depends on every writer of x. */
static psi_status add_init_rw(psi_polygraph *g, const psi_history *h, const per_key *pk,
                              const psi_index *idx, psi_diag *d)
{
    for (uint32_t k = 0; k < h->n_keys; k++) {
        for (uint32_t r = pk->i_off[k]; r < pk->i_off[k + 1]; r++) {
            uint32_t reader = pk->i_txn[r];
            for (uint32_t w = pk->w_off[k]; w < pk->w_off[k + 1]; w++) {
                uint32_t writer = idx->op_txn[pk->w_op[w]];
                if (writer == reader)
                    continue;
                psi_status st = psi_polygraph_add_known(g, reader, writer, PSI_EDGE_RW, k, d);
                if (st != PSI_OK)
                    return st;
                g->n_init_edges++;
            }
        }
    }
    return PSI_OK;
}

/* Stable counting sort of pair records by one 32-bit field. */
static psi_status sort_pairs(pair_rec **recs, uint64_t n, uint32_t n_nodes, bool by_t, psi_diag *d)
{
    uint64_t *cnt = calloc((size_t)n_nodes + 1, sizeof *cnt);
    pair_rec *out = malloc((n ? n : 1) * sizeof *out);
    if (!cnt || !out) {
        free(cnt);
        free(out);
        return psi_diag_nomem(d, "sorting constraints");
    }
    pair_rec *in = *recs;
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

static psi_status build_constraints(psi_polygraph *g, const psi_history *h, const per_key *pk,
                                    const psi_index *idx, bool coalesce, psi_diag *d)
{
    uint64_t n = 0;
    for (uint32_t k = 0; k < h->n_keys; k++) {
        uint64_t w = pk->w_off[k + 1] - pk->w_off[k];
        n += w * (w - (w > 0)) / 2;
    }
    if (n > UINT32_MAX - 1)
        return psi_diag_set(d, PSI_ERR_LIMIT,
                            "%s: %llu writer pairs exceed the constraint limit (%u)", h->source,
                            (unsigned long long)n, UINT32_MAX - 1);
    pair_rec *recs = malloc((n ? n : 1) * sizeof *recs);
    if (!recs)
        return psi_diag_nomem(d, "generating constraints");
    uint64_t m = 0;
    for (uint32_t k = 0; k < h->n_keys; k++) {
        for (uint32_t a = pk->w_off[k]; a < pk->w_off[k + 1]; a++) {
            for (uint32_t b = a + 1; b < pk->w_off[k + 1]; b++) {
                uint32_t oa = pk->w_op[a], ob = pk->w_op[b];
                uint32_t ta = idx->op_txn[oa], tb = idx->op_txn[ob];
                pair_rec r = {.k = {.key = k}};
                if (ta < tb)
                    r = (pair_rec){.t = ta, .s = tb, .k = {.key = k, .op_t = oa, .op_s = ob}};
                else
                    r = (pair_rec){.t = tb, .s = ta, .k = {.key = k, .op_t = ob, .op_s = oa}};
                recs[m++] = r;
            }
        }
    }
    psi_status st = PSI_OK;
    if (coalesce) {
        /* Radix sort by (t, s): stable by s, then by t. */
        if ((st = sort_pairs(&recs, m, g->n_nodes, false, d)) != PSI_OK ||
            (st = sort_pairs(&recs, m, g->n_nodes, true, d)) != PSI_OK) {
            free(recs);
            return st;
        }
    }
    g->ckeys = malloc((m ? m : 1) * sizeof *g->ckeys);
    g->cons = malloc((m ? m : 1) * sizeof *g->cons);
    if (!g->ckeys || !g->cons) {
        free(recs);
        return psi_diag_nomem(d, "generating constraints");
    }
    uint32_t nc = 0;
    for (uint64_t i = 0; i < m; i++) {
        g->ckeys[i] = recs[i].k;
        if (coalesce && nc > 0 && g->cons[nc - 1].t == recs[i].t &&
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
    for (uint32_t c = 0; c < nc; c++)
        g->n_unknown_deps += psi_constraint_side_size(g, &g->cons[c], true) +
                             psi_constraint_side_size(g, &g->cons[c], false);
    return PSI_OK;
}

psi_status psi_polygraph_build(const psi_history *h, const psi_index *idx,
                               const psi_polygraph_opts *opts, psi_polygraph *g, psi_diag *d)
{
    memset(g, 0, sizeof *g);
    g->n_nodes = h->n_txns;
    per_key pk = {0};
    psi_status st;
    if ((st = build_readers(g, h, idx, d)) != PSI_OK || (st = add_so_wr(g, h, idx, d)) != PSI_OK ||
        (st = add_list_ww(g, h, idx, d)) != PSI_OK ||
        (st = build_per_key(&pk, h, idx, d)) != PSI_OK ||
        (st = add_init_rw(g, h, &pk, idx, d)) != PSI_OK ||
        (st = build_constraints(g, h, &pk, idx, !(opts && opts->no_coalescing), d)) != PSI_OK) {
        per_key_free(&pk);
        psi_polygraph_free(g);
        return st;
    }
    per_key_free(&pk);
    return PSI_OK;
}

void psi_polygraph_free(psi_polygraph *g)
{
    free(g->known);
    free(g->cons);
    free(g->ckeys);
    free(g->reader_off);
    free(g->readers);
    memset(g, 0, sizeof *g);
}

bool psi_constraint_for_each(const psi_polygraph *g, const psi_constraint *c, bool either,
                             psi_edge_fn fn, void *ctx)
{
    uint32_t from = either ? c->t : c->s, to = either ? c->s : c->t;
    const psi_ckey *ks = g->ckeys + c->first;
    if (!fn(ctx, from, to, PSI_EDGE_WW, ks[0].key))
        return false;
    for (uint32_t i = 0; i < c->n_keys; i++) {
        uint32_t op = either ? ks[i].op_t : ks[i].op_s, n;
        const uint32_t *rd = psi_polygraph_readers(g, op, &n);
        for (uint32_t r = 0; r < n; r++)
            if (rd[r] != to && !fn(ctx, rd[r], to, PSI_EDGE_RW, ks[i].key))
                return false;
    }
    return true;
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
