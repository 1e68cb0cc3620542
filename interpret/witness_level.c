/* Commit-order witnesses for the levels other than SI and SER (see
 * witness_level.h). */
#include "interpret/witness_level.h"

#include "core/graph.h"
#include "core/vec.h"
#include "interpret/describe.h"
#include "interpret/witness.h"

#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Clock tables above this many entries are refused (4 GiB). */
#define MAX_CLOCK_ENTRIES (UINT64_C(1) << 30)

static psi_witness_txn ext_txn(const psi_history *h, uint32_t t)
{
    return (psi_witness_txn){.sid = h->sessions[h->txns[t].session].id, .tid = h->txns[t].id};
}

static bool committed(const psi_history *h, uint32_t t)
{
    return t == PSI_INIT_TXN || h->txns[t].status == PSI_TXN_COMMITTED;
}

/* ---- writing ---- */

typedef struct gedges {
    psi_edge *e;
    uint64_t n, cap;
    bool pc;
    uint32_t n_txns;
} gedges;

/* PSI: DEP edges. PC: DEP edges, and each SO/WR edge u -> v also to v's
 * twin n + v, from which v's RW edges leave: paths through a twin are
 * exactly the composed (SO ∪ WR);RW edges. */
static bool gadd(gedges *g, const psi_edge *e)
{
    if (e->from == e->to)
        return true;
    uint32_t n = g->n_txns;
    psi_edge x = *e;
    if (!g->pc && e->type == PSI_EDGE_RW)
        return true;
    if (!psi_grow((void **)&g->e, &g->cap, g->n + 2, sizeof *g->e))
        return false;
    if (e->type == PSI_EDGE_RW) {
        x.from = n + e->from;
        g->e[g->n++] = x;
        return true;
    }
    g->e[g->n++] = x;
    if (g->pc && (e->type == PSI_EDGE_SO || e->type == PSI_EDGE_WR)) {
        x.to = n + e->to;
        g->e[g->n++] = x;
    }
    return true;
}

static bool gadd_side(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    psi_edge e = {.from = from, .to = to, .key = key, .type = (uint8_t)type};
    return gadd(ctx, &e);
}

/* PC and PSI: the order from the model (see witness_level.h) into
 * order[0..), committed transactions only; returns how many, or NONE. */
static uint32_t model_order(const psi_history *h, const psi_check_result *res, bool pc,
                            uint32_t *order, psi_status *st, psi_diag *d)
{
    const psi_polygraph *g = &res->g;
    gedges E = {.pc = pc, .n_txns = h->n_txns};
    bool ok = true;
    for (uint64_t i = 0; i < g->n_known && ok; i++)
        ok = gadd(&E, &g->known[i]);
    for (uint64_t i = 0; i < res->n_model_choice_edges && ok; i++)
        ok = gadd(&E, &res->model_choice_edges[i]);
    for (uint32_t c = 0; c < g->n_cons && ok; c++)
        if (g->cons[c].state == PSI_C_OPEN)
            ok = psi_constraint_for_each(g, &g->cons[c], res->model_either[c], gadd_side, &E);
    uint32_t nodes = pc ? 2 * h->n_txns : h->n_txns, got = 0, n = 0;
    uint32_t *all = malloc((size_t)nodes * sizeof *all);
    psi_graph G = {0};
    psi_edge_view v = {.first = E.e, .n = E.n};
    if (!ok || !all || psi_graph_build(&G, nodes, &v, 0, d) != PSI_OK ||
        psi_graph_topo(&G, false, all, &got, d) != PSI_OK) {
        free(E.e);
        free(all);
        psi_graph_free(&G);
        *st = psi_diag_nomem(d, "building a witness");
        return NONE;
    }
    free(E.e);
    psi_graph_free(&G);
    if (got < nodes) {
        free(all);
        *st = psi_diag_set(d, PSI_ERR_INPUT,
                           "the model's graph is cyclic; no witness can be written");
        return NONE;
    }
    for (uint32_t i = 0; i < nodes; i++)
        if (all[i] < h->n_txns && all[i] != PSI_INIT_TXN && committed(h, all[i]))
            order[n++] = all[i];
    free(all);
    return n;
}

/* (key << 32 | op) ascending: a transaction's read events by key, each
 * key's in program order. */
static int by_key_op(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* A key's read events by one reader: at ev[first .. first + n). */
typedef struct rgroup {
    uint32_t op; /* its first read event, for the lines' order */
    uint32_t first, n;
} rgroup;

static int by_first_op(const void *a, const void *b)
{
    uint32_t x = ((const rgroup *)a)->op, y = ((const rgroup *)b)->op;
    return (x > y) - (x < y);
}

/* The read lines of a polynomial level's witness: for every committed
 * reader (not left absent) and key with a read that had a choice of
 * writers, the writer of each read event of the key up to the last such
 * read: the external read's, and under RC and PL-2 the repeat reads'
 * (version 5 when there are several; core/index.h's PSI_OI_REPEAT_READ).
 * Lines in order of their first read. Only PSI_ERR_NOMEM. */
static psi_status level_read_lines(const psi_history *h, const psi_check_result *res,
                                   const uint8_t *absent, psi_witness *w)
{
    const psi_index *idx = &res->idx;
    const psi_level l = res->level_checked;
    const uint8_t ev_flags =
        PSI_OI_EXTERNAL_READ | (l == PSI_LEVEL_RC || l == PSI_LEVEL_PL2 ? PSI_OI_REPEAT_READ : 0);
    uint8_t *has = calloc(h->n_txns ? h->n_txns : 1, 1);
    uint64_t *ev = NULL;
    rgroup *gr = NULL;
    size_t cap_ev = 0, cap_gr = 0, cap_r = 0;
    psi_status st = PSI_OK;
    if (!has)
        return PSI_ERR_NOMEM;
    for (uint32_t a = 0; a < idx->n_amb; a++)
        has[idx->amb[a].txn] = 1;
    for (uint32_t i = 0; i < res->rf.n_reads; i++)
        if (res->rf.reads[i].repeat && (ev_flags & PSI_OI_REPEAT_READ))
            has[res->rf.reads[i].txn] = 1;
    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK; t++) {
        if (!has[t] || (absent && absent[t]) || !committed(h, t))
            continue;
        const psi_txn *tx = &h->txns[t];
        size_t n_ev = 0, n_gr = 0;
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j;
            if (!(idx->op_info[o] & ev_flags))
                continue;
            if (!psi_grow((void **)&ev, &cap_ev, n_ev + 1, sizeof *ev))
                goto nomem;
            ev[n_ev++] = (uint64_t)h->ops[o].key << 32 | o;
        }
        qsort(ev, n_ev, sizeof *ev, by_key_op);
        for (size_t i = 0; i < n_ev;) {
            size_t e = i, last = SIZE_MAX;
            for (; e < n_ev && ev[e] >> 32 == ev[i] >> 32; e++) {
                uint32_t o = (uint32_t)ev[e];
                if ((idx->op_info[o] & PSI_OI_AMBIG) ||
                    ((idx->op_info[o] & PSI_OI_REPEAT_READ) && psi_witness_choice_read(res, o)))
                    last = e;
            }
            if (last != SIZE_MAX) {
                if (!psi_grow((void **)&gr, &cap_gr, n_gr + 1, sizeof *gr))
                    goto nomem;
                gr[n_gr++] = (rgroup){
                    .op = (uint32_t)ev[i], .first = (uint32_t)i, .n = (uint32_t)(last - i + 1)};
            }
            i = e;
        }
        qsort(gr, n_gr, sizeof *gr, by_first_op);
        for (size_t g = 0; g < n_gr; g++)
            for (uint32_t k = 0; k < gr[g].n; k++) {
                uint32_t o = (uint32_t)ev[gr[g].first + k], src = psi_witness_event_src(h, res, o);
                assert(src != PSI_SRC_NONE);
                psi_witness_read wr = {
                    .reader = ext_txn(h, t), .key = h->keys[h->ops[o].key], .event = k};
                if (src == PSI_SRC_INIT)
                    wr.init = true;
                else
                    wr.writer = ext_txn(h, idx->op_txn[src]);
                if (!psi_grow((void **)&w->reads, &cap_r, w->n_reads + 1, sizeof *w->reads))
                    goto nomem;
                w->reads[w->n_reads++] = wr;
            }
    }
    goto out;
nomem:
    st = PSI_ERR_NOMEM;
out:
    free(has);
    free(ev);
    free(gr);
    return st;
}

psi_status psi_witness_build_level(const psi_history *h, const psi_check_result *res,
                                   psi_witness *w, psi_diag *d)
{
    psi_level l = res->level_checked;
    assert(l != PSI_LEVEL_SI && l != PSI_LEVEL_SER);
    memset(w, 0, sizeof *w);
    psi_status st = PSI_OK;
    uint32_t *order = malloc((size_t)h->n_txns * sizeof *order), n = 0;
    bool absent_nomem;
    /* the level was checked with every optional transaction committed;
     * those no committed read observes are left out (verify-witness
     * takes them for absent), which only drops constraints */
    uint8_t *absent = psi_witness_absent_optional(h, res, &absent_nomem);
    if (!order || absent_nomem) {
        free(order);
        free(absent);
        return psi_diag_nomem(d, "building a witness");
    }
    if (psi_level_is_polynomial(l)) {
        for (uint32_t i = 0; i < res->level.n_order; i++)
            if (res->level.order[i] != PSI_INIT_TXN && !(absent && absent[res->level.order[i]]))
                order[n++] = res->level.order[i];
        if (res->idx.init_txn) {
            w->has_init = true;
            w->init = ext_txn(h, res->idx.init_txn);
        }
        /* reads with a choice of writers: the one the check resolved
         * them to (check/level_choice.h), as read lines */
        if ((st = level_read_lines(h, res, absent, w)) != PSI_OK) {
            free(order);
            free(absent);
            psi_witness_free(w);
            return psi_diag_nomem(d, "building a witness");
        }
        if ((st = psi_witness_name_keys(w, h, d)) != PSI_OK) {
            free(order);
            free(absent);
            psi_witness_free(w);
            return st;
        }
    } else {
        if (!res->model_either && res->g.n_cons) {
            free(order);
            free(absent);
            return psi_diag_set(d, PSI_ERR_USAGE, "no model kept: run psi_check with keep_model");
        }
        /* the init and read lines as for SI; the key lines give way to
         * the order */
        if ((st = psi_witness_build(h, res, false, w, d)) != PSI_OK) {
            free(order);
            free(absent);
            return st;
        }
        for (size_t k = 0; k < w->n_keys; k++)
            free(w->keys[k].key_name); /* spellings of the key lines dropped */
        w->n_keys = 0;
        w->n_tx = 0;
        n = model_order(h, res, l == PSI_LEVEL_PC, order, &st, d);
        if (n == NONE) {
            free(order);
            free(absent);
            psi_witness_free(w);
            return st;
        }
        uint32_t kept = 0;
        for (uint32_t i = 0; i < n; i++)
            if (!(absent && absent[order[i]]))
                order[kept++] = order[i];
        n = kept;
    }
    free(w->tx);
    w->tx = malloc(((size_t)n ? n : 1) * sizeof *w->tx);
    if (!w->tx) {
        free(order);
        free(absent);
        psi_witness_free(w);
        return psi_diag_nomem(d, "building a witness");
    }
    for (uint32_t i = 0; i < n; i++)
        w->tx[i] = ext_txn(h, order[i]);
    w->n_tx = n;
    w->has_order = true;
    w->order = (psi_witness_line){.first = 0, .n = n};
    w->has_isolation = true;
    w->ser = false;
    snprintf(w->level, sizeof w->level, "%s", psi_level_arg(l));
    w->version = psi_witness_min_version(w);
    free(order);
    free(absent);
    return PSI_OK;
}

/* ---- repeat reads (RC, PL-2) ---- */

uint32_t psi_witness_repeat_cands(const psi_history *h, const psi_index *idx, uint32_t o,
                                  uint32_t src, uint32_t *only)
{
    const psi_op *op = &h->ops[o];
    uint32_t n = 0;
    if (op->flags & PSI_OPF_INIT) {
        if (src == PSI_SRC_INIT)
            return 1;
        *only = PSI_SRC_INIT;
        n++;
    }
    for (uint32_t w = psi_index_writer(idx, op->key, op->value);
         w != PSI_SRC_NONE && (src != UINT32_MAX || n < 2);
         w = idx->dup_prev ? idx->dup_prev[w] : PSI_SRC_NONE) {
        uint8_t in = idx->op_info[w];
        if (!(in & PSI_OI_LIVE) || !(in & PSI_OI_FINAL_WRITE) || idx->op_txn[w] == idx->op_txn[o])
            continue;
        if (src == w)
            return 1;
        *only = w;
        n++;
    }
    return src == UINT32_MAX ? n : 0;
}

uint32_t psi_witness_read_event(const psi_history *h, const psi_index *idx, uint32_t x,
                                uint32_t key, uint32_t event)
{
    const psi_txn *tx = &h->txns[x];
    for (uint32_t j = 0; j < tx->n_ops; j++) {
        uint32_t q = tx->first_op + j;
        if (h->ops[q].key == key &&
            (idx->op_info[q] & (PSI_OI_EXTERNAL_READ | PSI_OI_REPEAT_READ)) && event-- == 0)
            return q;
    }
    return UINT32_MAX;
}

psi_status psi_witness_repeat_defaults(const psi_history *h, const psi_index *idx, uint32_t *chosen)
{
    /* first[k]: the current transaction's first read of k; a repeat read
     * follows it in program order (the key's first op was that read) */
    uint32_t *first = malloc((h->n_keys ? h->n_keys : 1) * sizeof *first);
    if (!first)
        return PSI_ERR_NOMEM;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j, k = h->ops[o].key, only = UINT32_MAX;
            if (idx->op_info[o] & PSI_OI_EXTERNAL_READ)
                first[k] = o;
            if (!(idx->op_info[o] & PSI_OI_REPEAT_READ) || chosen[o] != UINT32_MAX)
                continue;
            uint32_t p = first[k];
            assert(idx->op_txn[p] == t && (idx->op_info[p] & PSI_OI_EXTERNAL_READ));
            if (h->ops[p].value == h->ops[o].value &&
                (h->ops[p].flags & PSI_OPF_INIT) == (h->ops[o].flags & PSI_OPF_INIT))
                chosen[o] = (idx->op_info[p] & PSI_OI_AMBIG) ? chosen[p] : idx->read_src[p];
            else if (psi_witness_repeat_cands(h, idx, o, UINT32_MAX, &only) == 1)
                chosen[o] = only;
        }
    }
    free(first);
    return PSI_OK;
}

/* ---- checking ---- */

typedef struct wl {
    const psi_history *h;
    const psi_index *idx;
    const uint32_t *chosen, *ord;
    psi_level level;
    bool per_read;
    unsigned long long line;
    char **why;
    uint64_t *woff; /* [n_keys + 1] committed writers of each key */
    uint32_t *wt;
    uint32_t *stamp, *src_stamp; /* [n_txns] */
    uint32_t *vc, k;             /* CC, PSI: clocks, [n_txns * k] positions + 1 */
    uint32_t *pre_max;           /* PC: the latest SO/WR predecessor's place */
} wl;

static psi_status refuse(wl *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static psi_status refuse(wl *c, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    *c->why = strdup(buf);
    return *c->why ? PSI_OK : PSI_ERR_NOMEM;
}

/* The writer transaction of read event o (PSI_INIT_TXN for the initial
 * value), or NONE when o is no read event. */
static uint32_t read_from(const wl *c, uint32_t o)
{
    uint8_t info = c->idx->op_info[o];
    uint32_t s = PSI_SRC_NONE;
    if (!(info & PSI_OI_LIVE))
        return NONE;
    if (info & PSI_OI_EXTERNAL_READ)
        s = (info & PSI_OI_AMBIG) ? c->chosen[o] : c->idx->read_src[o];
    else if (c->per_read && (info & PSI_OI_REPEAT_READ))
        s = c->chosen[o]; /* its read line's, or witness_check.c's default */
    if (s == PSI_SRC_NONE || s == UINT32_MAX)
        return NONE;
    return s == PSI_SRC_INIT ? PSI_INIT_TXN : c->idx->op_txn[s];
}

/* Forward edges: SO, WR, list-append version orders. */
static psi_status forward(wl *c)
{
    const psi_history *h = c->h;
    char a[64], b[64];
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        uint32_t prev = PSI_INIT_TXN;
        for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
            uint32_t t = h->sessions[s].first_txn + i;
            if (!committed(h, t))
                continue;
            if (c->ord[prev] > c->ord[t]) {
                psi_fmt_txn(h, prev, a, sizeof a);
                psi_fmt_txn(h, t, b, sizeof b);
                return refuse(c, "line %llu: the commit order puts %s after %s, but %s -SO-> %s",
                              c->line, a, b, a, b);
            }
            prev = t;
        }
    }
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint32_t w = read_from(c, o), t = c->idx->op_txn[o];
        if (w == NONE || w == t || c->ord[w] < c->ord[t])
            continue;
        psi_fmt_txn(h, w, a, sizeof a);
        psi_fmt_txn(h, t, b, sizeof b);
        return refuse(c, "line %llu: the commit order puts %s after %s, but %s -WR(%s)-> %s",
                      c->line, a, b, a, PSI_KEY_NAME(h, h->ops[o].key), b);
    }
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        if (!(c->idx->op_info[lr->op] & PSI_OI_LIVE))
            continue;
        uint32_t key = h->ops[lr->op].key, prev = PSI_INIT_TXN;
        for (uint32_t j = 0; j < lr->len; j++) {
            uint32_t wo = psi_index_writer(c->idx, key, h->list_vals[lr->first + j]);
            if (wo == PSI_SRC_NONE)
                break;
            uint32_t t = c->idx->op_txn[wo];
            if (t != prev && c->ord[prev] > c->ord[t]) {
                psi_fmt_txn(h, prev, a, sizeof a);
                psi_fmt_txn(h, t, b, sizeof b);
                return refuse(c,
                              "line %llu: the commit order puts %s after %s, but a list read of "
                              "key %s shows %s's append first",
                              c->line, a, b, PSI_KEY_NAME(h, key), a);
            }
            prev = t;
        }
    }
    return PSI_OK;
}

static bool vis(const wl *c, uint32_t t2, uint32_t t)
{
    const psi_txn *a = &c->h->txns[t2];
    return c->vc[(size_t)t * c->k + a->session] > a->pos;
}

static void join(wl *c, uint32_t t, uint32_t p)
{
    if (p == PSI_INIT_TXN)
        return;
    uint32_t *ct = c->vc + (size_t)t * c->k;
    const uint32_t *cp = c->vc + (size_t)p * c->k;
    for (uint32_t s = 0; s < c->k; s++)
        if (ct[s] < cp[s])
            ct[s] = cp[s];
    const psi_txn *tp = &c->h->txns[p];
    if (ct[tp->session] < tp->pos + 1)
        ct[tp->session] = tp->pos + 1;
}

/* CC, PSI: clocks along co (every predecessor comes earlier in it:
 * forward() checked SO and WR, WW_co is co). PC: pre_max. */
static psi_status clocks(wl *c, const uint32_t *by_place, uint32_t n_places)
{
    const psi_history *h = c->h;
    uint32_t *lastw = NULL;
    if (c->level == PSI_LEVEL_PSI) {
        lastw = malloc((h->n_keys ? h->n_keys : 1) * sizeof *lastw);
        if (!lastw)
            return PSI_ERR_NOMEM;
        memset(lastw, 0xff, (h->n_keys ? h->n_keys : 1) * sizeof *lastw);
    }
    for (uint32_t i = 0; i < n_places; i++) {
        uint32_t t = by_place[i];
        if (t == PSI_INIT_TXN)
            continue;
        const psi_txn *tx = &h->txns[t];
        uint32_t prev = tx->pos ? NONE : PSI_INIT_TXN;
        /* the committed SO predecessor */
        for (uint32_t p = tx->pos; p-- > 0 && prev == NONE;) {
            uint32_t q = h->sessions[tx->session].first_txn + p;
            if (committed(h, q))
                prev = q;
        }
        if (prev == NONE)
            prev = PSI_INIT_TXN;
        uint32_t mx = c->ord[prev];
        if (c->vc)
            join(c, t, prev);
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j, w = read_from(c, o);
            if (w != NONE && w != t) {
                if (c->vc)
                    join(c, t, w);
                if (c->ord[w] > mx)
                    mx = c->ord[w];
            }
            if (lastw && h->ops[o].kind == PSI_OP_WRITE) {
                uint32_t k = h->ops[o].key;
                if (lastw[k] != NONE && lastw[k] != t)
                    join(c, t, lastw[k]);
            }
        }
        if (lastw)
            for (uint32_t j = 0; j < tx->n_ops; j++)
                if (h->ops[tx->first_op + j].kind == PSI_OP_WRITE)
                    lastw[h->ops[tx->first_op + j].key] = t;
        if (c->pre_max)
            c->pre_max[t] = mx;
    }
    free(lastw);
    return PSI_OK;
}

static const char *premise_text(psi_level l)
{
    switch (l) {
    case PSI_LEVEL_RC:
        return "an earlier read of the reader saw that writer";
    case PSI_LEVEL_RA:
        return "that writer is before the reader in session order or wrote what it read";
    case PSI_LEVEL_CC:
        return "that writer is in the reader's causal past, (SO ∪ WR)+";
    case PSI_LEVEL_PC:
        return "that writer is in the prefix the reader saw, co* ; (SO ∪ WR)";
    case PSI_LEVEL_PSI:
        return "that writer is visible to the reader, (SO ∪ WR ∪ WW)+";
    default:
        return "?";
    }
}

/* The axiom for read event o of x in t from t1. */
static psi_status axiom(wl *c, uint32_t o, uint32_t t, uint32_t t1)
{
    const psi_history *h = c->h;
    uint32_t x = h->ops[o].key;
    for (uint64_t i = c->woff[x]; i < c->woff[x + 1]; i++) {
        uint32_t t2 = c->wt[i];
        if (t2 == t1 || t2 == t || c->ord[t2] < c->ord[t1])
            continue;
        bool prem = false;
        const psi_txn *a = &h->txns[t2], *r = &h->txns[t];
        switch (c->level) {
        case PSI_LEVEL_RC:
            prem = c->stamp[t2] == t + 1;
            break;
        case PSI_LEVEL_RA:
            prem = (a->session == r->session && a->pos < r->pos) || c->src_stamp[t2] == t + 1;
            break;
        case PSI_LEVEL_CC:
        case PSI_LEVEL_PSI:
            prem = vis(c, t2, t);
            break;
        case PSI_LEVEL_PC:
            prem = c->ord[t2] <= c->pre_max[t];
            break;
        default:
            break;
        }
        if (!prem)
            continue;
        char s1[64], s2[64], s3[64];
        psi_fmt_txn(h, t2, s2, sizeof s2);
        psi_fmt_txn(h, t1, s1, sizeof s1);
        psi_fmt_txn(h, t, s3, sizeof s3);
        return refuse(c,
                      "line %llu: under %s, %s must come before %s in the commit order: %s reads "
                      "key %s from %s, %s also writes it, and %s",
                      c->line, psi_level_name(c->level), s2, s1, s3, PSI_KEY_NAME(h, x), s1, s2,
                      premise_text(c->level));
    }
    return PSI_OK;
}

psi_status psi_witness_level_check(const psi_history *h, const psi_index *idx,
                                   const uint32_t *chosen, const uint32_t *ord, psi_level level,
                                   unsigned long long order_line, char **why)
{
    *why = NULL;
    wl c = {.h = h,
            .idx = idx,
            .chosen = chosen,
            .ord = ord,
            .level = level,
            .per_read = level == PSI_LEVEL_RC || level == PSI_LEVEL_PL2,
            .line = order_line,
            .why = why,
            .k = h->n_sessions ? h->n_sessions : 1};
    uint32_t nk = h->n_keys, *by_place = NULL, n_places = 0;
    psi_status st = forward(&c);
    if (st != PSI_OK || *why || level == PSI_LEVEL_PL2)
        return st;
    c.woff = calloc((size_t)nk + 1, sizeof *c.woff);
    c.stamp = calloc(h->n_txns, sizeof *c.stamp);
    c.src_stamp = calloc(h->n_txns, sizeof *c.src_stamp);
    by_place = malloc((size_t)h->n_txns * sizeof *by_place);
    if (!c.woff || !c.stamp || !c.src_stamp || !by_place)
        goto nomem;
    for (uint32_t o = 0; o < h->n_ops; o++)
        if ((idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_FINAL_WRITE))
            c.woff[h->ops[o].key + 1]++;
    for (uint32_t x = 0; x < nk; x++)
        c.woff[x + 1] += c.woff[x];
    c.wt = malloc((c.woff[nk] ? c.woff[nk] : 1) * sizeof *c.wt);
    uint64_t *fill = malloc(((size_t)nk + 1) * sizeof *fill);
    if (!c.wt || !fill) {
        free(fill);
        goto nomem;
    }
    memcpy(fill, c.woff, ((size_t)nk + 1) * sizeof *fill);
    for (uint32_t o = 0; o < h->n_ops; o++)
        if ((idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_FINAL_WRITE))
            c.wt[fill[h->ops[o].key]++] = idx->op_txn[o];
    free(fill);
    for (uint32_t t = 0; t < h->n_txns; t++)
        if (ord[t] != UINT32_MAX)
            by_place[ord[t]] = t, n_places++;
    if (level == PSI_LEVEL_CC || level == PSI_LEVEL_PSI) {
        if ((uint64_t)h->n_txns * c.k > MAX_CLOCK_ENTRIES) {
            st = PSI_ERR_LIMIT;
            goto out;
        }
        c.vc = calloc((size_t)h->n_txns * c.k, sizeof *c.vc);
        if (!c.vc)
            goto nomem;
    }
    if (level == PSI_LEVEL_PC && !(c.pre_max = malloc((size_t)h->n_txns * sizeof *c.pre_max)))
        goto nomem;
    if ((c.vc || c.pre_max) && clocks(&c, by_place, n_places) != PSI_OK)
        goto nomem;
    for (uint32_t t = 1; t < h->n_txns && !*why && st == PSI_OK; t++) {
        if (!committed(h, t))
            continue;
        const psi_txn *tx = &h->txns[t];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t w = read_from(&c, tx->first_op + j);
            if (w != NONE)
                c.src_stamp[w] = t + 1;
        }
        for (uint32_t j = 0; j < tx->n_ops && !*why && st == PSI_OK; j++) {
            uint32_t o = tx->first_op + j, w = read_from(&c, o);
            if (w == NONE)
                continue;
            st = axiom(&c, o, t, w);
            c.stamp[w] = t + 1; /* RC: later reads of t have seen w */
        }
    }
    goto out;
nomem:
    st = PSI_ERR_NOMEM;
out:
    free(c.woff);
    free(c.wt);
    free(c.stamp);
    free(c.src_stamp);
    free(c.vc);
    free(c.pre_max);
    free(by_place);
    return st;
}
