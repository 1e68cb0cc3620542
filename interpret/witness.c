/* Reading a witness off the solver's model (see witness.h); the text
 * format and its writer are formats/witness.c. The model's graph and its
 * topological order are core's kernel (core/graph.h). */
#include "interpret/witness.h"

#include "core/graph.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The edges the witness orders by: the model's active graph, without RW
 * edges under SI (see witness.h), self-loops left out. */
typedef struct wedges {
    psi_edge *e;
    uint64_t n, cap;
    bool ser;
} wedges;

static void wedge_add(wedges *w, const psi_edge *e)
{
    if ((e->type == PSI_EDGE_RW && !w->ser) || e->from == e->to)
        return;
    assert(w->n < w->cap);
    w->e[w->n++] = *e;
}

static bool add_side_edge(void *vctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    psi_edge e = {.from = from, .to = to, .key = key, .type = (uint8_t)type};
    wedge_add(vctx, &e);
    return true;
}

static int u64_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Transaction t as the witness names it. */
static psi_witness_txn ext_txn(const psi_history *h, uint32_t t)
{
    return (psi_witness_txn){.sid = h->sessions[h->txns[t].session].id, .tid = h->txns[t].id};
}

static int rf_op_cmp(const void *key, const void *elem)
{
    uint32_t o = *(const uint32_t *)key, p = ((const psi_rf_read *)elem)->op;
    return (o > p) - (o < p);
}

const psi_rf_read *psi_witness_choice_read(const psi_check_result *res, uint32_t o)
{
    if (!res->rf.n_reads)
        return NULL;
    return bsearch(&o, res->rf.reads, res->rf.n_reads, sizeof *res->rf.reads, rf_op_cmp);
}

uint32_t psi_witness_event_src(const psi_history *h, const psi_check_result *res, uint32_t o)
{
    if (res->idx.op_info[o] & PSI_OI_EXTERNAL_READ)
        return res->idx.read_src[o];
    const psi_rf_read *rd = psi_witness_choice_read(res, o);
    if (rd) /* its transaction left absent: no writer */
        return rd->how == PSI_RFC_ABSENT || rd->how == PSI_RFC_NO_WRITER
                   ? PSI_SRC_NONE
                   : res->rf.cand[rd->first + rd->chosen];
    return psi_index_repeat_src(h, &res->idx, o);
}

uint8_t *psi_witness_absent_optional(const psi_history *h, const psi_check_result *res, bool *nomem)
{
    const psi_index *idx = &res->idx;
    *nomem = false;
    if (!idx->opt)
        return NULL;
    uint8_t *in = calloc(h->n_txns, 1);
    if (!in) {
        *nomem = true;
        return NULL;
    }
    for (uint32_t t = 1; t < h->n_txns; t++)
        in[t] = h->txns[t].status == PSI_TXN_COMMITTED && !idx->opt[t];
    const bool per_read = res->level_checked == PSI_LEVEL_RC || res->level_checked == PSI_LEVEL_PL2;
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t a = 0; a < idx->n_amb; a++) {
            const psi_amb_read *r = &idx->amb[a];
            uint32_t src =
                res->model_choice ? idx->amb_cand[r->first + res->model_choice[a]] : PSI_SRC_NONE;
            if (in[r->txn] && src < PSI_SRC_INIT && !in[idx->op_txn[src]]) {
                in[idx->op_txn[src]] = 1;
                changed = true;
            }
        }
        for (uint32_t o = 0; o < h->n_ops; o++) {
            uint32_t src = idx->read_src[o];
            /* RC, PL-2: a repeat read is a read event (core/index.h) */
            if (per_read && (idx->op_info[o] & PSI_OI_REPEAT_READ) &&
                (idx->op_info[o] & PSI_OI_LIVE) && in[idx->op_txn[o]])
                src = psi_witness_event_src(h, res, o);
            if (src < PSI_SRC_INIT && in[idx->op_txn[o]] && !in[idx->op_txn[src]]) {
                in[idx->op_txn[src]] = 1;
                changed = true;
            }
        }
    }
    for (uint32_t t = 0; t < h->n_txns; t++)
        in[t] = idx->opt[t] && !in[t];
    return in;
}

/* The writer whose version the external read of key k by t saw in the
 * replay: the last of the key's writers wr[0..n) (in commit order, pos
 * their ranks) visible to t (SI: committed before t starts; SER: before t
 * in commit order), the initial transaction when none is. */
static uint32_t replay_src(const psi_ts_info *ts, const uint32_t *pos, const uint64_t *wr, size_t n,
                           uint32_t t, bool ser)
{
    size_t b = 0, e = n;
    while (b < e) {
        size_t m = b + (e - b) / 2;
        uint32_t s = (uint32_t)wr[m];
        bool visible = ser ? pos[s] < pos[t] : ts->commit[s] < ts->start[t];
        if (visible)
            b = m + 1;
        else
            e = m;
    }
    return b ? (uint32_t)wr[b - 1] : PSI_INIT_TXN;
}

/* The witness of an accept the complete timestamp replay decided (no
 * polygraph): every key's writers in commit order, which is the version
 * order the replay installed, SER's order line the commit order, and each
 * read with a choice of writers the version the replay showed it. */
static psi_status from_timestamps(const psi_history *h, const psi_check_result *res, bool ser,
                                  psi_witness *w, psi_diag *d)
{
    const psi_index *idx = &res->idx;
    uint32_t *order = NULL, n = 0;
    uint32_t *pos = malloc((size_t)h->n_txns * sizeof *pos);
    uint64_t *kw = NULL; /* (dense key << 32 | rank) of every final write */
    size_t nw = 0;
    psi_status st = pos ? psi_ts_commit_order(h, &res->ts, &order, &n, d)
                        : psi_diag_nomem(d, "building a witness");
    if (st != PSI_OK)
        goto out;
    for (uint32_t i = 0; i < n; i++)
        pos[order[i]] = i;
    for (uint32_t o = 0; o < h->n_ops; o++)
        nw += (idx->op_info[o] & PSI_OI_FINAL_WRITE) &&
              h->txns[idx->op_txn[o]].status == PSI_TXN_COMMITTED;
    kw = malloc((nw ? nw : 1) * sizeof *kw);
    w->tx = malloc((nw + (ser ? n : 0) + 1) * sizeof *w->tx);
    w->keys = malloc(((size_t)h->n_keys + 1) * sizeof *w->keys);
    if (!kw || !w->tx || !w->keys) {
        st = psi_diag_nomem(d, "building a witness");
        goto out;
    }
    nw = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t t = idx->op_txn[o];
        if ((idx->op_info[o] & PSI_OI_FINAL_WRITE) && h->txns[t].status == PSI_TXN_COMMITTED) {
            assert(res->ts.line[t]); /* complete: the replay ran */
            kw[nw++] = (uint64_t)h->ops[o].key << 32 | pos[t];
        }
    }
    if (nw)
        qsort(kw, nw, sizeof *kw, u64_cmp);
    /* From here on kw holds (key << 32 | transaction): replay_src's form. */
    for (size_t i = 0; i < nw;) {
        uint32_t k = (uint32_t)(kw[i] >> 32);
        size_t j = i;
        w->keys[w->n_keys++] = (psi_witness_line){.key = h->keys[k], .first = w->n_tx};
        for (; j < nw && (uint32_t)(kw[j] >> 32) == k; j++) {
            kw[j] = (uint64_t)k << 32 | order[(uint32_t)kw[j]];
            w->tx[w->n_tx++] = ext_txn(h, (uint32_t)kw[j]);
        }
        w->keys[w->n_keys - 1].n = j - i;
        i = j;
    }
    if (ser) {
        w->has_order = true;
        w->order = (psi_witness_line){.first = w->n_tx, .n = n};
        for (uint32_t i = 0; i < n; i++)
            w->tx[w->n_tx++] = ext_txn(h, order[i]);
    }
    if (idx->init_txn) {
        w->has_init = true;
        w->init = ext_txn(h, idx->init_txn);
    }
    if (idx->n_amb && !(w->reads = malloc(idx->n_amb * sizeof *w->reads))) {
        st = psi_diag_nomem(d, "building a witness");
        goto out;
    }
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *r = &idx->amb[a];
        /* The key's writers: the run of kw with key r->key. */
        size_t b = 0, e = nw;
        while (b < e) {
            size_t m = b + (e - b) / 2;
            if ((uint32_t)(kw[m] >> 32) < r->key)
                b = m + 1;
            else
                e = m;
        }
        size_t end = b;
        while (end < nw && (uint32_t)(kw[end] >> 32) == r->key)
            end++;
        uint32_t src = replay_src(&res->ts, pos, kw + b, end - b, r->txn, ser);
        psi_witness_read wr = {.reader = ext_txn(h, r->txn), .key = h->keys[r->key]};
        if (src == PSI_INIT_TXN)
            wr.init = true;
        else
            wr.writer = ext_txn(h, src);
        w->reads[w->n_reads++] = wr;
    }
    st = psi_witness_name_keys(w, h, d);
    w->version = psi_witness_min_version(w);
out:
    free(order);
    free(pos);
    free(kw);
    return st;
}

psi_status psi_witness_build(const psi_history *h, const psi_check_result *res, bool ser,
                             psi_witness *w, psi_diag *d)
{
    memset(w, 0, sizeof *w);
    if (res->ts.replayed) {
        w->has_isolation = true;
        w->ser = ser;
        psi_status st = from_timestamps(h, res, ser, w, d);
        if (st != PSI_OK)
            psi_witness_free(w);
        return st;
    }
    w->has_isolation = true;
    w->ser = ser;
    /* An accept without a polygraph (a complete version order's one
     * pass, check.h) has no known graph to order: run with keep_model. */
    if (!res->g.w_off)
        return psi_diag_set(d, PSI_ERR_USAGE, "no model kept: run psi_check with keep_model");
    const psi_polygraph *g = &res->g;
    wedges E = {.ser = ser};
    psi_graph G = {0};
    uint32_t *order = malloc((size_t)h->n_txns * sizeof *order);
    uint32_t *pos = malloc((size_t)h->n_txns * sizeof *pos);
    psi_status st = PSI_OK;
    bool absent_nomem;
    uint8_t *absent = psi_witness_absent_optional(h, res, &absent_nomem);
    if (!order || !pos || absent_nomem)
        goto nomem;
    /* The known edges, then the chosen side of every open constraint
     * (resolved ones already have their edges among the known). */
    E.cap = g->n_known;
    for (uint32_t c = 0; c < g->n_cons; c++) {
        if (g->cons[c].state != PSI_C_OPEN)
            continue;
        if (!res->model_either) {
            st = psi_diag_set(d, PSI_ERR_USAGE, "no model kept: run psi_check with keep_model");
            goto out;
        }
        E.cap += psi_constraint_side_size(g, &g->cons[c], res->model_either[c]);
    }
    E.cap += res->n_model_choice_edges;
    E.e = malloc((E.cap ? E.cap : 1) * sizeof *E.e);
    if (!E.e)
        goto nomem;
    for (uint64_t i = 0; i < g->n_known; i++)
        wedge_add(&E, &g->known[i]);
    /* The read-from choices the model made, with their consequences. */
    for (uint64_t i = 0; i < res->n_model_choice_edges; i++)
        wedge_add(&E, &res->model_choice_edges[i]);
    for (uint32_t c = 0; c < g->n_cons; c++)
        if (g->cons[c].state == PSI_C_OPEN)
            psi_constraint_for_each(g, &g->cons[c], res->model_either[c], add_side_edge, &E);
    psi_edge_view view = {.first = E.e, .n = E.n};
    uint32_t n_ordered = 0;
    if (psi_graph_build(&G, h->n_txns, &view, 0, d) != PSI_OK ||
        psi_graph_topo(&G, false, order, &n_ordered, d) != PSI_OK)
        goto nomem; /* an allocation failure is never reported as a cyclic model */
    free(E.e);
    E.e = NULL;
    psi_graph_free(&G);
    if (n_ordered < h->n_txns) {
        st = psi_diag_set(d, PSI_ERR_INPUT,
                          "the model's dependency graph is cyclic; no witness can be written");
        goto out;
    }
    for (uint32_t i = 0; i < h->n_txns; i++)
        pos[order[i]] = i;
    /* Every key with a committed writer gets a line; for SER the order
     * line lists every committed transaction once. */
    uint32_t nw = g->n_keys ? g->w_off[g->n_keys] : 0;
    size_t cap_tx = (size_t)nw + (ser ? h->n_txns : 0);
    w->tx = malloc((cap_tx ? cap_tx : 1) * sizeof *w->tx);
    w->keys = malloc((g->n_keys ? g->n_keys : 1) * sizeof *w->keys);
    if (!w->tx || !w->keys)
        goto nomem;
    uint64_t *tmp = malloc((nw ? nw : 1) * sizeof *tmp);
    if (!tmp)
        goto nomem;
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t t = g->op_txn[g->w_op[i]];
        tmp[i] = (uint64_t)pos[t] << 32 | t;
    }
    for (uint32_t k = 0; k < g->n_keys; k++) {
        uint32_t n = g->w_off[k + 1] - g->w_off[k];
        if (n == 0)
            continue;
        qsort(tmp + g->w_off[k], n, sizeof *tmp, u64_cmp);
        size_t first = w->n_tx;
        for (uint32_t i = g->w_off[k]; i < g->w_off[k + 1]; i++)
            if (!absent || !absent[(uint32_t)tmp[i]])
                w->tx[w->n_tx++] = ext_txn(h, (uint32_t)tmp[i]);
        if (w->n_tx > first)
            w->keys[w->n_keys++] =
                (psi_witness_line){.key = h->keys[k], .first = first, .n = w->n_tx - first};
    }
    free(tmp);
    if (ser) {
        w->has_order = true;
        w->order.first = w->n_tx;
        for (uint32_t i = 0; i < h->n_txns; i++) {
            uint32_t t = order[i];
            if (t != PSI_INIT_TXN && h->txns[t].status == PSI_TXN_COMMITTED &&
                (!absent || !absent[t]))
                w->tx[w->n_tx++] = ext_txn(h, t);
        }
        w->order.n = w->n_tx - w->order.first;
    }
    /* Version 2: the recorded initial state and every read-from choice. */
    if (res->idx.init_txn) {
        w->has_init = true;
        w->init = ext_txn(h, res->idx.init_txn);
    }
    if (res->idx.n_amb) {
        if (!res->model_choice) {
            st = psi_diag_set(d, PSI_ERR_USAGE, "no model kept: run psi_check with keep_model");
            goto out;
        }
        w->reads = malloc(res->idx.n_amb * sizeof *w->reads);
        if (!w->reads)
            goto nomem;
        for (uint32_t a = 0; a < res->idx.n_amb; a++) {
            const psi_amb_read *r = &res->idx.amb[a];
            if (absent && absent[r->txn])
                continue; /* an absent transaction read nothing */
            uint32_t src = res->idx.amb_cand[r->first + res->model_choice[a]];
            psi_witness_read wr = {.reader = ext_txn(h, r->txn), .key = h->keys[r->key]};
            if (src == PSI_SRC_INIT)
                wr.init = true;
            else
                wr.writer = ext_txn(h, res->idx.op_txn[src]);
            w->reads[w->n_reads++] = wr;
        }
    }
    /* Named keys are written by spelling (version 4), as reports print them. */
    st = psi_witness_name_keys(w, h, d);
    w->version = psi_witness_min_version(w);
    goto out;
nomem:
    st = psi_diag_nomem(d, "building a witness");
out:
    free(E.e);
    psi_graph_free(&G);
    free(order);
    free(pos);
    free(absent);
    if (st != PSI_OK)
        psi_witness_free(w);
    return st;
}
