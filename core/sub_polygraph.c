/* The polygraph of a sub-history (see polygraph.h, psi_sub_polygraph_build):
 * the construction steps of polygraph_steps.h emit into a flat list of
 * labelled edges over local nodes, with one constraint per writer pair of
 * each key and the read-from choices of reads whose candidates are all in
 * the sub-history. */
#include "core/polygraph_steps.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

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
    free(S->reads);
    free(S->ch);
    memset(S, 0, sizeof *S);
}

/* One constraint per writer pair of the key (writers w_op[0..nw), in
 * transaction order), with both sides' edges. */
static psi_status sub_pairs(psi_emitter *em, const psi_polygraph *g, const psi_index *idx,
                            uint32_t key, const uint32_t *w_op, uint32_t nw, uint32_t max_cons)
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
            psi_pair pr = psi_writer_pair(idx->op_txn, w_op, p, q, key);
            em->cons = (int32_t)S->n_c;
            S->c[S->n_c++] = (psi_sub_cons){em->local[pr.t], em->local[pr.s], key};
            for (uint8_t side = 0; side < 2; side++) {
                em->side = side;
                em->st = PSI_OK;
                psi_side_edges(g, pr.t, pr.s, &pr.k, 1, side == 0, psi_emit_fn, em);
                if (em->st != PSI_OK)
                    return em->st;
            }
        }
    }
    em->cons = -1;
    em->side = 0;
    return PSI_OK;
}

/* The position of write op `op` among the key's writers w_op[0..nw) (in
 * transaction order), or UINT32_MAX. */
static uint32_t writer_pos(const uint32_t *op_txn, const uint32_t *w_op, uint32_t nw, uint32_t op)
{
    uint32_t lo = 0, hi = nw, t = op_txn[op];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (op_txn[w_op[mid]] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nw && w_op[lo] == op ? lo : UINT32_MAX;
}

/* The reads with a choice of writers of one key (ar[0..nar), their ops),
 * whose writers in the sub-history are w_op[0..nw) and whose writer pairs
 * are the constraints base.. (sub_pairs' order): each read whose
 * candidates are all here gets its choices and their edges (see
 * psi_sub_choice). A read is refused (PSI_ERR_LIMIT) once its choice
 * edges and every edge emitted so far pass max_cons / 20. */
static psi_status sub_choices(psi_emitter *em, const psi_index *idx, uint32_t key,
                              const uint32_t *w_op, uint32_t nw, uint32_t base, const key_rec *ar,
                              uint32_t nar, bool has_init, uint32_t max_cons)
{
    psi_sub_polygraph *S = em->S;
    psi_status st = PSI_OK;
    for (uint32_t i = 0; i < nar && st == PSI_OK; i++) {
        /* idx->amb is in operation order. */
        uint32_t lo = 0, hi = idx->n_amb;
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (idx->amb[mid].op < ar[i].op)
                lo = mid + 1;
            else
                hi = mid;
        }
        assert(lo < idx->n_amb && idx->amb[lo].op == ar[i].op);
        const psi_amb_read *r = &idx->amb[lo];
        const uint32_t *cand = idx->amb_cand + r->first;
        bool closed = true;
        for (uint32_t j = 0; j < r->n && closed; j++)
            closed = cand[j] == PSI_SRC_INIT
                         ? has_init
                         : writer_pos(idx->op_txn, w_op, nw, cand[j]) != UINT32_MAX;
        if (!closed)
            continue;
        /* Each candidate has an RW edge per writer of the key. The bound
         * is on this read's choice edges plus every edge emitted so far
         * (SO, WR, the writer pairs' sides, earlier reads' choices), not
         * on choice edges alone: a sub-history past a twentieth of
         * max_cons edges counts as the budget running out, so blind
         * growth stops at hot keys instead of slowing every local solve
         * (counting choice edges alone let it solve sub-histories of
         * thousands of transactions, b58cfe6). */
        if ((uint64_t)r->n * nw + S->n_e > (uint64_t)max_cons / 20)
            return psi_diag_set(em->d, PSI_ERR_LIMIT,
                                "a sub-history needs more than %u read-from choice edges",
                                max_cons / 20);
        if (!psi_grow((void **)&S->reads, &S->cap_reads, (size_t)S->n_reads + 1,
                      sizeof *S->reads) ||
            !psi_grow((void **)&S->ch, &S->cap_ch, (size_t)S->n_ch + r->n, sizeof *S->ch))
            return psi_diag_nomem(em->d, "rebuilding a sub-history");
        uint32_t reader = em->local[r->txn];
        assert(reader != UINT32_MAX);
        S->reads[S->n_reads] =
            (psi_sub_read){.op = r->op, .reader = reader, .key = key, .first = S->n_ch, .n = r->n};
        for (uint32_t j = 0; j < r->n && st == PSI_OK; j++) {
            uint32_t c = S->n_ch++;
            bool init = cand[j] == PSI_SRC_INIT;
            uint32_t p = init ? UINT32_MAX : writer_pos(idx->op_txn, w_op, nw, cand[j]);
            uint32_t wt = init ? PSI_INIT_TXN : idx->op_txn[cand[j]];
            S->ch[c] = (psi_sub_choice){.read = S->n_reads, .writer = em->local[wt], .op = cand[j]};
            em->rc = c + 1;
            em->cons = -1;
            em->side = 0;
            if (!init)
                st = psi_emit(em, wt, r->txn, PSI_EDGE_WR, key);
            for (uint32_t q = 0; q < nw && st == PSI_OK; q++) {
                if (q == p)
                    continue;
                if (!init) {
                    /* Pair (min, max) of positions is constraint base + its
                     * rank in sub_pairs' nested order; its either side
                     * installs the lower position (transaction) first. */
                    uint32_t a = p < q ? p : q, b = p < q ? q : p;
                    uint64_t rank = (uint64_t)a * (2 * (uint64_t)nw - a - 1) / 2 + (b - a - 1);
                    em->cons = (int32_t)(base + rank);
                    em->side = p < q ? 0 : 1;
                    assert(S->c[em->cons].t == em->local[idx->op_txn[w_op[a]]]);
                }
                st = psi_emit(em, r->txn, idx->op_txn[w_op[q]], PSI_EDGE_RW, key);
            }
        }
        S->n_reads++;
    }
    em->rc = 0;
    em->cons = -1;
    em->side = 0;
    return st;
}

/* Whether read op o is in the read set (NULL: every read). */
static bool in_read_set(const psi_read_set *rs, uint32_t o)
{
    if (!rs)
        return true;
    uint32_t lo = 0, hi = rs->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (rs->ops[mid] < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < rs->n && rs->ops[lo] == o;
}

/* Per key with writers in the sub-history: the initial transaction's RW
 * and WW edges, then the writer pairs, then the read-from choices (of the
 * reads in rs, or all when rs is NULL). */
static psi_status sub_keys(psi_emitter *em, const psi_history *h, const psi_index *idx,
                           const psi_polygraph *g, const uint32_t *txns, uint32_t n, bool has_init,
                           const psi_read_set *rs, uint32_t max_cons)
{
    size_t cap = 0, nw = 0, ni = 0;
    for (uint32_t i = 0; i < n; i++)
        cap += h->txns[txns[i]].n_ops;
    key_rec *w = malloc((cap ? cap : 1) * sizeof *w), *ir = malloc((cap ? cap : 1) * sizeof *ir);
    key_rec *ar = malloc((cap ? cap : 1) * sizeof *ar); /* reads with a choice */
    size_t na = 0;
    uint32_t *w_op = malloc((cap ? cap : 1) * sizeof *w_op);
    uint32_t *ir_txn = malloc((cap ? cap : 1) * sizeof *ir_txn);
    psi_status st = PSI_OK;
    if (!w || !ir || !ar || !w_op || !ir_txn) {
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
            else if ((info & PSI_OI_AMBIG) && in_read_set(rs, o))
                ar[na++] = (key_rec){h->ops[o].key, txns[i], o};
        }
    }
    qsort(w, nw, sizeof *w, key_rec_cmp);
    qsort(ir, ni, sizeof *ir, key_rec_cmp);
    qsort(ar, na, sizeof *ar, key_rec_cmp);
    for (size_t i = 0; i < nw; i++)
        w_op[i] = w[i].op;
    for (size_t i = 0; i < ni; i++)
        ir_txn[i] = ir[i].txn;
    uint64_t unused = 0;
    size_t a = 0, b = 0, c = 0;
    while (st == PSI_OK && a < nw) {
        size_t e = a, r = 0, m = 0;
        uint32_t key = w[a].key;
        while (e < nw && w[e].key == key)
            e++;
        while (b < ni && ir[b].key < key)
            b++;
        while (b + r < ni && ir[b + r].key == key)
            r++;
        while (c < na && ar[c].key < key)
            c++;
        while (c + m < na && ar[c + m].key == key)
            m++;
        uint32_t base = em->S->n_c;
        st = psi_init_rw_edges(em, idx->op_txn, key, ir_txn + b, (uint32_t)r, w_op + a,
                               (uint32_t)(e - a), &unused);
        for (size_t s = a; s < e && st == PSI_OK && has_init; s++)
            st = psi_emit(em, PSI_INIT_TXN, w[s].txn, PSI_EDGE_WW, key);
        if (st == PSI_OK)
            st = sub_pairs(em, g, idx, key, w_op + a, (uint32_t)(e - a), max_cons);
        if (st == PSI_OK && m)
            st = sub_choices(em, idx, key, w_op + a, (uint32_t)(e - a), base, ar + c, (uint32_t)m,
                             has_init, max_cons);
        a = e;
    }
out:
    free(w);
    free(ir);
    free(ar);
    free(w_op);
    free(ir_txn);
    return st;
}

psi_status psi_sub_polygraph_build(const psi_history *h, const psi_index *idx,
                                   const psi_polygraph *g, const uint32_t *txns, uint32_t n,
                                   uint32_t max_cons, uint32_t *local, psi_sub_polygraph *S,
                                   psi_diag *d)
{
    return psi_sub_polygraph_build_reads(h, idx, g, txns, n, NULL, max_cons, local, S, d);
}

psi_status psi_sub_polygraph_build_reads(const psi_history *h, const psi_index *idx,
                                         const psi_polygraph *g, const uint32_t *txns, uint32_t n,
                                         const psi_read_set *rs, uint32_t max_cons, uint32_t *local,
                                         psi_sub_polygraph *S, psi_diag *d)
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
    psi_emitter em = {.S = S, .local = local, .cons = -1, .d = d};
    uint64_t unused = 0;
    psi_status st = psi_so_edges(&em, h, txns, n, has_init, &unused);
    if (st == PSI_OK)
        st = psi_wr_edges(&em, h, idx, txns, n, &unused);
    if (st == PSI_OK)
        st = sub_keys(&em, h, idx, g, txns, n, has_init, rs, max_cons);
    /* List-append WW edges are facts of the whole history (any reader's
     * list orders its writers), so the sub-history keeps those among its
     * own transactions. */
    for (uint64_t i = 0; i < g->n_list_ww && st == PSI_OK; i++) {
        const psi_edge *ke = &g->known[g->list_ww_first + i];
        assert(ke->type == PSI_EDGE_WW && ke->origin == PSI_FROM_HISTORY);
        st = psi_emit(&em, ke->from, ke->to, PSI_EDGE_WW, ke->key);
    }
    for (uint32_t i = 0; i < n; i++)
        local[txns[i]] = UINT32_MAX;
    if (st != PSI_OK)
        psi_sub_polygraph_free(S);
    return st;
}
