/* Sub-histories checked by the whole pipeline (see sub_check.h). */
#include "interpret/sub_check.h"
#include "interpret/kv.h"
#include "interpret/local.h"

#include "core/graph.h"
#include "core/txnid.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A chain member, for gathering a kept set's members chain by chain. */
typedef struct member {
    uint32_t txn, chain, pos;
} member;

static int member_txn_cmp(const void *a, const void *b)
{
    const member *x = a, *y = b;
    return x->txn != y->txn ? (x->txn < y->txn ? -1 : 1) : 0;
}

static int member_chain_cmp(const void *a, const void *b)
{
    const member *x = a, *y = b;
    if (x->chain != y->chain)
        return x->chain < y->chain ? -1 : 1;
    return (x->pos > y->pos) - (x->pos < y->pos);
}

/* What the sub-histories keep from the whole history, built once. */
typedef struct psi_subcheck_data {
    /* The (key, value) pairs that transactions that may be observed
     * write, distinct and sorted, with how many writes each has, and per
     * operation its pair: a write's of such a transaction, a single-value
     * read's (UINT32_MAX: nobody writes what it read). A run counts its
     * kept writes per pair in run_n (all 0 between runs), so drop_read
     * compares two counts: each re-check costs its own operations, not a
     * sort of them or a search of the whole history's writes. */
    psi_kv *w;
    uint32_t *w_n, *run_n;
    size_t n_w;
    uint32_t *kv_of;
    /* Version-order chains (the check's, or one per resolved hint edge,
     * owned then) and their members by transaction (CSR over txns). */
    const psi_hint_chain *chains;
    size_t n_chains;
    /* the check's version order when chains are its chains (whose
     * entries may be resolved: psi_hint_chain_entry), else NULL */
    const psi_version_order *vo;
    psi_hint_chain *own_chains;
    psi_hint_txn *own_tx;
    member *mem; /* sorted by txn */
    uint32_t *mem_off;
    /* The run's kept transactions ([n_txns], 1 while a run builds), and
     * each read's index in idx->amb ([n_ops], UINT32_MAX for none):
     * drop_read asks both of every read of every re-check. */
    uint8_t *in_run;
    uint32_t *amb_of;
} psi_subcheck_data;

static bool observable(const psi_history *h, uint32_t t)
{
    return h->txns[t].status == PSI_TXN_COMMITTED || h->txns[t].status == PSI_TXN_UNKNOWN;
}

/* The index of (key, value) in D->w, or UINT32_MAX when nobody writes it. */
static uint32_t kv_find(const psi_subcheck_data *D, uint32_t key, uint64_t value)
{
    psi_kv k = {key, value};
    size_t lo = 0, hi = D->n_w;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (psi_kv_cmp(&D->w[mid], &k) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < D->n_w && psi_kv_cmp(&D->w[lo], &k) == 0 ? (uint32_t)lo : UINT32_MAX;
}

/* D->w, w_n, run_n and kv_of from the history's operations. */
static psi_status index_writes(psi_subcheck_data *D, const psi_history *h, psi_diag *d)
{
    size_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (observable(h, t))
            for (uint32_t i = 0; i < h->txns[t].n_ops; i++)
                n += h->ops[h->txns[t].first_op + i].kind == PSI_OP_WRITE;
    D->w = malloc((n ? n : 1) * sizeof *D->w);
    D->kv_of = malloc((h->n_ops ? h->n_ops : 1) * sizeof *D->kv_of);
    if (!D->w || !D->kv_of)
        return psi_diag_nomem(d, "shrinking a counterexample");
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (!observable(h, t))
            continue;
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++) {
            const psi_op *o = &h->ops[h->txns[t].first_op + i];
            if (o->kind == PSI_OP_WRITE)
                D->w[D->n_w++] = (psi_kv){o->key, o->value};
        }
    }
    qsort(D->w, D->n_w, sizeof *D->w, psi_kv_cmp);
    /* distinct pairs, each with its count */
    D->w_n = malloc((D->n_w ? D->n_w : 1) * sizeof *D->w_n);
    D->run_n = calloc(D->n_w ? D->n_w : 1, sizeof *D->run_n);
    if (!D->w_n || !D->run_n)
        return psi_diag_nomem(d, "shrinking a counterexample");
    size_t m = 0;
    for (size_t i = 0; i < D->n_w; i++) {
        if (m && psi_kv_cmp(&D->w[m - 1], &D->w[i]) == 0) {
            D->w_n[m - 1]++;
            continue;
        }
        D->w[m] = D->w[i];
        D->w_n[m++] = 1;
    }
    D->n_w = m;
    memset(D->kv_of, 0xff, h->n_ops * sizeof *D->kv_of);
    for (uint32_t t = 0; t < h->n_txns; t++)
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++) {
            uint32_t o = h->txns[t].first_op + i;
            const psi_op *op = &h->ops[o];
            bool single = op->kind == PSI_OP_READ && !(op->flags & PSI_OPF_LIST);
            bool write = op->kind == PSI_OP_WRITE && t != PSI_INIT_TXN && observable(h, t);
            if (single || write)
                D->kv_of[o] = kv_find(D, op->key, op->value);
            assert(!write || D->kv_of[o] != UINT32_MAX);
        }
    return PSI_OK;
}

static psi_status chains_from_hints(psi_subcheck_data *D, const psi_history *h, const psi_hints *hs,
                                    psi_diag *d)
{
    D->own_chains = malloc((hs->n ? hs->n : 1) * sizeof *D->own_chains);
    D->own_tx = malloc((hs->n ? 2 * hs->n : 1) * sizeof *D->own_tx);
    if (!D->own_chains || !D->own_tx)
        return psi_diag_nomem(d, "shrinking a counterexample");
    for (uint64_t i = 0; i < hs->n; i++) {
        const psi_hint_edge *e = &hs->e[i];
        const psi_txn *a = &h->txns[e->from], *b = &h->txns[e->to];
        D->own_tx[2 * i] = (psi_hint_txn){h->sessions[a->session].id, a->id, e->line};
        D->own_tx[2 * i + 1] = (psi_hint_txn){h->sessions[b->session].id, b->id, e->line};
        D->own_chains[i] = (psi_hint_chain){.key = h->keys[e->key],
                                            .key_name = h->key_names ? h->key_names[e->key] : NULL,
                                            .line = e->line,
                                            .tx = &D->own_tx[2 * i],
                                            .n = 2};
    }
    D->chains = D->own_chains;
    D->n_chains = hs->n;
    return PSI_OK;
}

static psi_status index_members(psi_subcheck_data *D, const psi_history *h, psi_diag *d)
{
    size_t n = 0;
    for (size_t c = 0; c < D->n_chains; c++)
        n += D->chains[c].n;
    D->mem = malloc((n ? n : 1) * sizeof *D->mem);
    D->mem_off = calloc((size_t)h->n_txns + 1, sizeof *D->mem_off);
    psi_txn_lookup tl = {0};
    psi_status st = D->mem && D->mem_off ? PSI_OK : psi_diag_nomem(d, "shrinking a counterexample");
    /* entries by name need the table; resolved ones are h's already */
    bool by_name = false;
    for (size_t c = 0; c < D->n_chains; c++)
        by_name |= D->chains[c].txn == NULL;
    if (st == PSI_OK && by_name)
        st = psi_txn_lookup_init(&tl, h, true, "shrinking a counterexample", d);
    size_t m = 0;
    for (size_t c = 0; c < D->n_chains && st == PSI_OK; c++)
        for (size_t i = 0; i < D->chains[c].n; i++) {
            const psi_hint_chain *ch = &D->chains[c];
            uint32_t t;
            if (ch->txn) {
                /* the one transaction of that name: the table's answer */
                assert(D->vo && D->vo->named_in == h);
                t = psi_hint_resolved_txn(D->vo, ch, i);
            } else {
                t = psi_txn_lookup_find(&tl, ch->tx[i].sid, ch->tx[i].tid);
            }
            /* the check resolved every hint, so t is there */
            if (t != UINT32_MAX)
                D->mem[m++] = (member){t, (uint32_t)c, (uint32_t)i};
        }
    psi_txn_lookup_free(&tl);
    if (st != PSI_OK)
        return st;
    qsort(D->mem, m, sizeof *D->mem, member_txn_cmp);
    for (size_t i = 0; i < m; i++)
        D->mem_off[D->mem[i].txn + 1]++;
    for (uint32_t t = 0; t < h->n_txns; t++)
        D->mem_off[t + 1] += D->mem_off[t];
    return PSI_OK;
}

psi_status psi_subcheck_init(psi_subcheck *sc, const psi_history *h, const psi_check_result *res,
                             const psi_version_order *vo, psi_diag *d)
{
    memset(sc, 0, sizeof *sc);
    sc->h = h;
    sc->res = res;
    sc->co.level = res->level_checked;
    sc->co.ser = res->level_checked == PSI_LEVEL_SER;
    sc->co.threads = 1; /* sub-histories are small: no pruning workers */
    /* The recorded initial state was merged into the initial transaction
     * (its status says so) and is left out: nothing else may be taken
     * for it. */
    sc->co.init.mode = PSI_INIT_NONE;
    psi_subcheck_data *D = calloc(1, sizeof *D);
    if (!D)
        return psi_diag_nomem(d, "shrinking a counterexample");
    sc->data = D;
    psi_status st = index_writes(D, h, d);
    if (st != PSI_OK)
        return st;
    D->in_run = calloc(h->n_txns ? h->n_txns : 1, 1);
    D->amb_of = malloc((h->n_ops ? h->n_ops : 1) * sizeof *D->amb_of);
    if (!D->in_run || !D->amb_of)
        return psi_diag_nomem(d, "shrinking a counterexample");
    memset(D->amb_of, 0xff, h->n_ops * sizeof *D->amb_of);
    for (uint32_t a = 0; a < res->idx.n_amb; a++)
        D->amb_of[res->idx.amb[a].op] = a;
    if (vo) {
        assert(!vo->named_in || vo->named_in == h);
        D->vo = vo;
        D->chains = vo->chains;
        D->n_chains = vo->n_chains;
        sc->vo_name = vo->name;
    } else if (res->hints.n) {
        st = chains_from_hints(D, h, &res->hints, d);
        sc->vo_name = res->hints.file;
    }
    if (st == PSI_OK && D->n_chains)
        st = index_members(D, h, d);
    return st;
}

void psi_subcheck_free(psi_subcheck *sc)
{
    psi_subcheck_data *D = sc->data;
    if (D) {
        free(D->w);
        free(D->w_n);
        free(D->run_n);
        free(D->kv_of);
        free(D->own_chains);
        free(D->own_tx);
        free(D->mem);
        free(D->mem_off);
        free(D->in_run);
        free(D->amb_of);
        free(D);
    }
    memset(sc, 0, sizeof *sc);
}

void psi_subrun_free(psi_subrun *r)
{
    if (r->checked)
        psi_check_result_free(&r->res);
    psi_history_free(r->h);
    free(r->txn_map);
    free(r->key_map);
    free(r->op_map);
    memset(r, 0, sizeof *r);
}

/* Adds d (1 or -1) to run_n for each write of the kept transactions
 * among txns[0..n) (marked in in_run). */
static void count_writes(psi_subcheck_data *D, const psi_history *h, const uint32_t *txns,
                         uint32_t n, int d)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = txns[i];
        if (!D->in_run[t])
            continue;
        for (uint32_t k = 0; k < h->txns[t].n_ops; k++) {
            uint32_t o = h->txns[t].first_op + k;
            if (h->ops[o].kind == PSI_OP_WRITE)
                D->run_n[D->kv_of[o]] += (uint32_t)d;
        }
    }
}

/* Is transaction t among the kept ones (the run's committed ones, marked
 * in in_run)? */
static bool is_kept(const psi_subcheck_data *D, uint32_t t)
{
    return D->in_run[t];
}

/* Is read op o of a kept transaction to be dropped: could it have
 * observed a transaction left out? An external read the index resolved
 * asks its writer, one with a choice of writers its candidates (kept
 * when all are, as core's sub-polygraph keeps it: the writers of its
 * value the index ruled out by its session's order are ruled out in the
 * sub-history too, whether they are kept or not); other reads, when a
 * writer of a value they read is left out. */
static bool drop_read(const psi_subcheck *sc, uint32_t o)
{
    const psi_history *h = sc->h;
    const psi_subcheck_data *D = sc->data;
    const psi_index *idx = &sc->res->idx;
    const psi_op *op = &h->ops[o];
    if (op->kind != PSI_OP_READ)
        return false;
    if (!(op->flags & PSI_OPF_LIST) && idx->op_info && (idx->op_info[o] & PSI_OI_EXTERNAL_READ)) {
        if (idx->op_info[o] & PSI_OI_AMBIG) {
            uint32_t a = D->amb_of[o];
            for (uint32_t j = 0; a != UINT32_MAX && j < idx->amb[a].n; j++) {
                uint32_t c = idx->amb_cand[idx->amb[a].first + j];
                if (c != PSI_SRC_INIT && !is_kept(D, idx->op_txn[c]))
                    return true;
            }
            if (a != UINT32_MAX)
                return false;
        } else if (idx->read_src[o] == PSI_SRC_INIT) {
            return false;
        } else if (idx->read_src[o] < PSI_SRC_INIT) {
            return !is_kept(D, idx->op_txn[idx->read_src[o]]);
        }
    }
    /* every write of each value read is kept (a pair nobody writes: 0 of 0) */
    if (!(op->flags & PSI_OPF_LIST))
        return D->kv_of[o] != UINT32_MAX && D->run_n[D->kv_of[o]] != D->w_n[D->kv_of[o]];
    uint32_t len;
    const uint64_t *v = psi_history_list(h, o, &len);
    for (uint32_t i = 0; i < len; i++) {
        uint32_t p = kv_find(D, op->key, v[i]);
        if (p != UINT32_MAX && D->run_n[p] != D->w_n[p])
            return true;
    }
    return false;
}

/* The key or value of h as the builder b knows it. */
static psi_status map_key(psi_builder *b, const psi_history *h, uint32_t k, uint64_t *out,
                          psi_diag *d)
{
    if (h->key_names)
        return psi_builder_key_named(b, h->key_names[k], strlen(h->key_names[k]), out, d);
    *out = h->keys[k];
    return PSI_OK;
}

static psi_status map_value(psi_builder *b, const psi_history *h, uint64_t v, uint64_t *out,
                            psi_diag *d)
{
    if (h->value_names && v)
        return psi_builder_value_named(b, h->value_names[v - 1], strlen(h->value_names[v - 1]), out,
                                       d);
    *out = v;
    return PSI_OK;
}

/* Adds kept transaction t with its kept operations; records its ops'
 * original indices in op_map[*no..]. */
static psi_status add_txn(psi_subcheck *sc, psi_builder *b, uint32_t t, uint32_t *op_map,
                          uint32_t *no, uint64_t **vals, size_t *cap_vals, psi_diag *d)
{
    const psi_history *h = sc->h;
    const psi_txn *tx = &h->txns[t];
    psi_status st = psi_builder_begin(b, h->sessions[tx->session].id, tx->id, tx->src, d);
    if (st == PSI_OK && h->rt)
        st = psi_builder_set_rt(b, h->rt[t].invoke, h->rt[t].complete, d);
    for (uint32_t k = 0; k < tx->n_ops && st == PSI_OK; k++) {
        uint32_t o = tx->first_op + k;
        const psi_op *op = &h->ops[o];
        if (drop_read(sc, o))
            continue;
        uint64_t key, val;
        if ((st = map_key(b, h, op->key, &key, d)) != PSI_OK)
            break;
        if (op->flags & PSI_OPF_LIST) {
            uint32_t len;
            const uint64_t *v = psi_history_list(h, o, &len);
            if (!psi_grow((void **)vals, cap_vals, (size_t)len + 1, sizeof **vals))
                return psi_diag_nomem(d, "shrinking a counterexample");
            for (uint32_t i = 0; i < len && st == PSI_OK; i++)
                st = map_value(b, h, v[i], &(*vals)[i], d);
            if (st == PSI_OK)
                st = psi_builder_list_read(b, key, *vals, len, d);
        } else {
            st = map_value(b, h, op->value, &val, d);
            if (st == PSI_OK)
                st = psi_builder_op(b, (psi_op_kind)op->kind, key, val, op->flags, d);
        }
        op_map[(*no)++] = o;
    }
    if (st == PSI_OK)
        st = psi_builder_end(b, PSI_TXN_COMMITTED, d);
    return st;
}

/* The chains restricted to the kept transactions txns[0..n): chains,
 * members in *tx. */
static psi_status kept_chains(psi_subcheck *sc, const uint32_t *txns, uint32_t n,
                              psi_hint_chain **chains, size_t *n_chains, psi_hint_txn **tx,
                              psi_diag *d)
{
    const psi_subcheck_data *D = sc->data;
    *chains = NULL;
    *tx = NULL;
    *n_chains = 0;
    if (!D->n_chains)
        return PSI_OK;
    size_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        m += D->mem_off[txns[i] + 1] - D->mem_off[txns[i]];
    member *g = malloc((m ? m : 1) * sizeof *g);
    *chains = malloc((m ? m : 1) * sizeof **chains);
    *tx = malloc((m ? m : 1) * sizeof **tx);
    if (!g || !*chains || !*tx) {
        free(g);
        return psi_diag_nomem(d, "shrinking a counterexample");
    }
    m = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = D->mem_off[txns[i]]; j < D->mem_off[txns[i] + 1]; j++)
            g[m++] = D->mem[j];
    qsort(g, m, sizeof *g, member_chain_cmp);
    size_t nt = 0;
    for (size_t a = 0; a < m;) {
        size_t e = a;
        while (e < m && g[e].chain == g[a].chain)
            e++;
        if (e - a >= 2) { /* one member orders nothing */
            const psi_hint_chain *c = &D->chains[g[a].chain];
            (*chains)[*n_chains] = *c;
            (*chains)[*n_chains].tx = *tx + nt;
            (*chains)[*n_chains].txn = NULL; /* named: the sub-history numbers its own */
            (*chains)[*n_chains].n = e - a;
            ++*n_chains;
            for (size_t k = a; k < e; k++)
                (*tx)[nt++] = psi_hint_chain_entry(D->vo, c, g[k].pos);
        }
        a = e;
    }
    free(g);
    return PSI_OK;
}

/* pruning_only's solves stop at the first clock check (every 256
 * decisions, solver/search.c): whatever they find is ignored. */
#define PRUNING_ONLY_SOLVE_SECONDS 1e-9

/* on_stage of pruning_only runs: notes that the check reached the
 * solver. */
static void note_stage(void *c, const char *stage)
{
    psi_subcheck *sc = c;
    if (strcmp(stage, "solve") == 0)
        sc->reached_solve = true;
}

psi_status psi_subcheck_run(psi_subcheck *sc, const uint32_t *txns, uint32_t n, bool *violation,
                            psi_subrun *out, psi_diag *d)
{
    const psi_history *h = sc->h;
    psi_subrun r = {0};
    *violation = false;
    psi_hint_chain *chains = NULL;
    psi_hint_txn *ctx = NULL;
    psi_hint_ts *tse = NULL;
    uint64_t *vals = NULL;
    size_t cap_vals = 0, n_chains = 0, n_ops = 0;
    psi_status st = PSI_OK;
    for (uint32_t i = 0; i < n; i++)
        if (txns[i] != PSI_INIT_TXN && h->txns[txns[i]].status == PSI_TXN_COMMITTED)
            n_ops += h->txns[txns[i]].n_ops;
    if (!(r.op_map = malloc((n_ops + 1) * sizeof *r.op_map)) ||
        !(r.txn_map = malloc(((size_t)n + 1) * sizeof *r.txn_map))) {
        st = psi_diag_nomem(d, "shrinking a counterexample");
        goto out;
    }
    psi_builder *b = psi_builder_new(h->source, h->format);
    if (!b) {
        st = psi_diag_nomem(d, "shrinking a counterexample");
        goto out;
    }
    psi_builder_set_rt_by_index(b, h->rt_by_index);
    uint32_t nt = 1, no = 0;
    r.txn_map[0] = PSI_INIT_TXN;
    psi_subcheck_data *D = sc->data;
    for (uint32_t i = 0; i < n; i++)
        D->in_run[txns[i]] =
            txns[i] != PSI_INIT_TXN && h->txns[txns[i]].status == PSI_TXN_COMMITTED;
    count_writes(D, h, txns, n, 1);
    for (uint32_t i = 0; i < n && st == PSI_OK; i++) {
        uint32_t t = txns[i];
        assert(i == 0 || txns[i - 1] < t);
        if (t == PSI_INIT_TXN || h->txns[t].status != PSI_TXN_COMMITTED)
            continue;
        st = add_txn(sc, b, t, r.op_map, &no, &vals, &cap_vals, d);
        r.txn_map[nt++] = t;
    }
    count_writes(D, h, txns, n, -1);
    for (uint32_t i = 0; i < n; i++)
        D->in_run[txns[i]] = 0;
    if (st != PSI_OK) {
        psi_builder_free(b);
        goto out;
    }
    if ((st = psi_builder_finish(b, &r.h, d)) != PSI_OK)
        goto out;
    r.h->initial_state = h->initial_state;
    assert(r.h->n_txns == nt && r.h->n_ops == no);
    r.key_map = malloc((r.h->n_keys ? r.h->n_keys : 1) * sizeof *r.key_map);
    if (!r.key_map) {
        st = psi_diag_nomem(d, "shrinking a counterexample");
        goto out;
    }
    for (uint32_t i = 0; i < no; i++)
        r.key_map[r.h->ops[i].key] = h->ops[r.op_map[i]].key;
    /* The hints and timestamps of the kept transactions. */
    psi_check_opts co = sc->co;
    psi_version_order vo = {.name = sc->vo_name};
    if ((st = kept_chains(sc, txns, n, &chains, &n_chains, &ctx, d)) != PSI_OK)
        goto out;
    if (n_chains) {
        vo.chains = chains;
        vo.n_chains = n_chains;
        co.version_order = &vo;
    }
    psi_timestamps ts = {.name = sc->res->ts.file};
    if (sc->res->ts.n_with) {
        tse = malloc(((size_t)n + 1) * sizeof *tse);
        if (!tse) {
            st = psi_diag_nomem(d, "shrinking a counterexample");
            goto out;
        }
        for (uint32_t i = 1; i < nt; i++) {
            uint32_t t = r.txn_map[i];
            if (sc->res->ts.line[t])
                tse[ts.n++] = (psi_hint_ts){.sid = h->sessions[h->txns[t].session].id,
                                            .tid = h->txns[t].id,
                                            .start = sc->res->ts.start[t],
                                            .commit = sc->res->ts.commit[t],
                                            .line = sc->res->ts.line[t]};
        }
        ts.e = tse;
        co.timestamps = &ts;
    }
    r.checked = true;
    sc->reached_solve = false;
    if (sc->pruning_only) {
        co.on_stage = note_stage;
        co.stage_ctx = sc;
        co.time_limit = PRUNING_ONLY_SOLVE_SECONDS;
        co.exact_pruning = true;
    }
    co.keep_model = sc->keep_model;
    st = psi_check(r.h, &co, &r.res, d);
    if (st != PSI_OK && sc->pruning_only && sc->reached_solve && st != PSI_ERR_NOMEM) {
        st = PSI_OK; /* the solve given up: no violation (sub_check.h) */
        psi_check_result_free(&r.res);
        r.checked = false;
    } else if (st == PSI_OK) {
        *violation = r.res.verdict == PSI_REJECT && !(sc->pruning_only && sc->reached_solve);
    }
out:
    free(chains);
    free(ctx);
    free(tse);
    free(vals);
    if (st == PSI_OK && out)
        *out = r;
    else
        psi_subrun_free(&r);
    return st;
}

/* Adds an edge of the model's graph; self-loops order nothing (witness.c). */
static bool add_edge(void *vctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    psi_edge_view *v = vctx;
    if (from != to)
        ((psi_edge *)v->first)[v->n++] =
            (psi_edge){.from = from, .to = to, .key = key, .type = (uint8_t)type};
    return true;
}

psi_status psi_subrun_ser_order(const psi_subrun *r, uint32_t *order, uint32_t *n, psi_diag *d)
{
    const psi_check_result *res = &r->res;
    const psi_polygraph *g = &res->g;
    *n = 0;
    if (!r->checked || res->verdict != PSI_ACCEPT || !g->w_off ||
        (g->n_cons && !res->model_either) || (res->idx.n_amb && !res->model_choice))
        return psi_diag_set(d, PSI_ERR_USAGE, "no model kept");
    /* The known edges, the read-from choices' edges and the chosen side
     * of every open constraint (witness.c builds the same graph). */
    uint64_t cap = g->n_known + res->n_model_choice_edges;
    for (uint32_t c = 0; c < g->n_cons; c++)
        if (g->cons[c].state == PSI_C_OPEN)
            cap += psi_constraint_side_size(g, &g->cons[c], res->model_either[c]);
    psi_edge *e = malloc((cap ? cap : 1) * sizeof *e);
    uint32_t *ord = malloc(((size_t)r->h->n_txns + 1) * sizeof *ord);
    if (!e || !ord) {
        free(e);
        free(ord);
        return psi_diag_nomem(d, "shrinking a counterexample");
    }
    psi_edge_view v = {.first = e};
    for (uint64_t i = 0; i < g->n_known; i++)
        add_edge(&v, g->known[i].from, g->known[i].to, g->known[i].type, g->known[i].key);
    for (uint64_t i = 0; i < res->n_model_choice_edges; i++) {
        const psi_edge *c = &res->model_choice_edges[i];
        add_edge(&v, c->from, c->to, c->type, c->key);
    }
    for (uint32_t c = 0; c < g->n_cons; c++)
        if (g->cons[c].state == PSI_C_OPEN)
            psi_constraint_for_each(g, &g->cons[c], res->model_either[c], add_edge, &v);
    assert(v.n <= cap);
    psi_graph G = {0};
    uint32_t n_ordered = 0;
    psi_status st = psi_graph_build(&G, r->h->n_txns, &v, 0, d);
    if (st == PSI_OK)
        st = psi_graph_topo(&G, false, ord, &n_ordered, d);
    psi_graph_free(&G);
    free(e);
    if (st == PSI_OK && n_ordered < r->h->n_txns)
        st = psi_diag_set(d, PSI_ERR_INPUT, "the model's graph is cyclic");
    for (uint32_t i = 0; st == PSI_OK && i < n_ordered; i++)
        if (ord[i] != PSI_INIT_TXN)
            order[(*n)++] = r->txn_map[ord[i]];
    free(ord);
    return st;
}
