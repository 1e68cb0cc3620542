/* Counterexamples of the polynomial levels (check/level.h): the cycle the
 * level's graph closed, and for each forced edge on it the facts that
 * force it: the read of the key from the later writer, and the relation
 * (a read, session order, or a causal path) from the earlier writer to
 * the reader. Nothing is searched beyond that: the cycle is the shortest
 * through one of its transactions, and every edge shown is in the
 * history (certain), given by --version-order (named by its line), or
 * forced by the level's axiom from edges shown. */
#include "interpret/describe.h"
#include "interpret/local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct lcx {
    const psi_history *h;
    const psi_index *idx;
    psi_cex *cx;
    size_t cap_e, cap_t;
} lcx;

static bool add_txn(lcx *c, uint32_t t)
{
    psi_cex *cx = c->cx;
    if (cx->n_txns == c->cap_t) {
        size_t nc = c->cap_t ? 2 * c->cap_t : 16;
        uint32_t *p = realloc(cx->txns, nc * sizeof *p);
        if (!p)
            return false;
        cx->txns = p;
        c->cap_t = nc;
    }
    cx->txns[cx->n_txns++] = t;
    return true;
}

/* Adds an edge unless the same one is there; returns its index or NONE. */
static uint32_t add_edge(lcx *c, uint32_t from, uint32_t to, uint32_t key, psi_edge_type type,
                         psi_cex_origin origin)
{
    psi_cex *cx = c->cx;
    for (uint32_t i = 0; i < cx->n_edges; i++) {
        const psi_cex_edge *e = &cx->edges[i];
        if (e->from == from && e->to == to && e->type == type && e->key == key)
            return i;
    }
    if (cx->n_edges == c->cap_e) {
        size_t nc = c->cap_e ? 2 * c->cap_e : 16;
        psi_cex_edge *p = realloc(cx->edges, nc * sizeof *p);
        if (!p)
            return NONE;
        cx->edges = p;
        c->cap_e = nc;
    }
    cx->edges[cx->n_edges] = (psi_cex_edge){
        .from = from, .to = to, .key = key, .type = (uint8_t)type, .origin = (uint8_t)origin};
    if (!add_txn(c, from) || !add_txn(c, to))
        return NONE;
    return cx->n_edges++;
}

static uint32_t op_key(const lcx *c, uint32_t op)
{
    return c->h->ops[op].key;
}

static uint32_t src_txn(const lcx *c, uint32_t o)
{
    uint32_t s = c->idx->read_src[o];
    return s == PSI_SRC_INIT ? PSI_INIT_TXN : c->idx->op_txn[s];
}

/* A shortest (SO ∪ WR)-path from `from` to `to`, by BFS backwards from
 * `to` over session predecessors and writers read; added as edges. */
static bool causal_path(lcx *c, uint32_t from, uint32_t to)
{
    const psi_history *h = c->h;
    uint32_t *next = malloc((size_t)h->n_txns * sizeof *next);
    uint32_t *nkey = malloc((size_t)h->n_txns * sizeof *nkey);
    uint32_t *queue = malloc((size_t)h->n_txns * sizeof *queue);
    bool ok = next && nkey && queue;
    if (ok) {
        memset(next, 0xff, (size_t)h->n_txns * sizeof *next);
        uint32_t head = 0, tail = 0;
        queue[tail++] = to;
        next[to] = to;
        while (head < tail && next[from] == NONE) {
            uint32_t v = queue[head++];
            if (v == PSI_INIT_TXN)
                continue;
            uint32_t p = psi_history_so_prev_committed(h, v);
            if (next[p] == NONE) {
                next[p] = v;
                nkey[p] = UINT32_MAX;
                queue[tail++] = p;
            }
            const psi_txn *tx = &h->txns[v];
            for (uint32_t j = 0; j < tx->n_ops; j++) {
                uint32_t o = tx->first_op + j;
                if (!(c->idx->op_info[o] & PSI_OI_EXTERNAL_READ) ||
                    c->idx->read_src[o] == PSI_SRC_NONE)
                    continue;
                uint32_t w = src_txn(c, o);
                if (next[w] == NONE) {
                    next[w] = v;
                    nkey[w] = op_key(c, o);
                    queue[tail++] = w;
                }
            }
        }
        /* the level found from before to (SO ∪ WR)+, so the path exists */
        for (uint32_t v = from; ok && v != to && next[v] != NONE; v = next[v])
            ok = add_edge(c, v, next[v], nkey[v], nkey[v] == UINT32_MAX ? PSI_EDGE_SO : PSI_EDGE_WR,
                          PSI_CEX_CERTAIN) != NONE;
    }
    free(next);
    free(nkey);
    free(queue);
    return ok;
}

/* The facts behind forced edge e (WW from e->from to e->to on e->key). */
static bool support(lcx *c, const psi_level_edge *e)
{
    uint32_t rd = add_edge(c, e->to, e->reader, e->key, PSI_EDGE_WR, PSI_CEX_CERTAIN);
    if (rd == NONE)
        return false;
    switch ((psi_level_premise)e->premise) {
    case PSI_LP_EARLIER_READ:
    case PSI_LP_WR:
        return add_edge(c, e->from, e->reader, op_key(c, e->read_op2), PSI_EDGE_WR,
                        PSI_CEX_CERTAIN) != NONE;
    case PSI_LP_SO:
        return add_edge(c, e->from, e->reader, UINT32_MAX, PSI_EDGE_SO, PSI_CEX_CERTAIN) != NONE;
    case PSI_LP_CAUSAL:
        return causal_path(c, e->from, e->reader);
    case PSI_LP_NONE:
        break;
    }
    return true;
}

static psi_cex_kind kind_of(const psi_level_edge *e)
{
    switch ((psi_level_premise)e->premise) {
    case PSI_LP_EARLIER_READ:
        return PSI_CEX_NONMONOTONIC_READ;
    case PSI_LP_WR:
    case PSI_LP_SO:
        return PSI_CEX_FRACTURED_READ;
    case PSI_LP_CAUSAL:
        return PSI_CEX_CAUSALITY_VIOLATION;
    case PSI_LP_NONE:
        break;
    }
    return PSI_CEX_G1C;
}

static void summarize(lcx *c, const psi_check_result *res, const psi_level_edge *f)
{
    const psi_history *h = c->h;
    psi_cex *cx = c->cx;
    const char *level = psi_level_name(res->level_checked);
    const psi_level_result *lr = &res->level;
    char a[64], b[64], r[64];
    if (!f) {
        bool given = false; /* an edge of --version-order's */
        for (uint32_t i = 0; i < lr->cycle_len; i++)
            given |= lr->cycle[i].why == PSI_LW_ORDER_WW;
        psi_fmt_txn(h, lr->cycle[0].from, a, sizeof a);
        snprintf(cx->summary, sizeof cx->summary,
                 "%s under %s: %u transactions from %s on form a cycle of session order, "
                 "reads-from and the version orders %s",
                 psi_cex_kind_name(cx->kind), level, lr->cycle_len, a,
                 given ? "the version-order file and list reads give" : "list reads show");
        return;
    }
    psi_fmt_txn(h, f->from, a, sizeof a);
    psi_fmt_txn(h, f->to, b, sizeof b);
    psi_fmt_txn(h, f->reader, r, sizeof r);
    const char *how = f->premise == PSI_LP_EARLIER_READ ? "after reading from"
                      : f->premise == PSI_LP_WR         ? "while also reading from"
                      : f->premise == PSI_LP_SO         ? "after its own session's"
                                                        : "causally after";
    snprintf(cx->summary, sizeof cx->summary,
             "%s under %s: %s reads key %s from %s %s %s, which also wrote key %s, so %s "
             "needs %s's write before %s's; the rest of the cycle (%u dependencies) puts %s "
             "before %s",
             psi_cex_kind_name(cx->kind), level, r, PSI_KEY_NAME(h, f->key), b, how, a,
             PSI_KEY_NAME(h, f->key), level, a, b, lr->cycle_len, b, a);
}

psi_status psi_level_cex_build(const psi_history *h, const psi_check_result *res, psi_cex *cx,
                               psi_diag *d)
{
    lcx c = {.h = h, .idx = &res->idx, .cx = cx};
    const psi_level_result *lr = &res->level;
    cx->cycles = calloc(1, sizeof *cx->cycles);
    cx->idx = malloc((lr->cycle_len ? lr->cycle_len : 1) * sizeof *cx->idx);
    if (!cx->cycles || !cx->idx)
        return psi_diag_nomem(d, "explaining the violation");
    const psi_level_edge *first_forced = NULL;
    for (uint32_t i = 0; i < lr->cycle_len; i++) {
        const psi_level_edge *e = &lr->cycle[i];
        uint32_t at;
        if (e->why == PSI_LW_FORCED) {
            at = add_edge(&c, e->from, e->to, e->key, PSI_EDGE_WW, PSI_CEX_FORCED);
            if (!first_forced)
                first_forced = e;
        } else if (e->why == PSI_LW_LIST_WW) {
            at = add_edge(&c, e->from, e->to, e->key, PSI_EDGE_WW, PSI_CEX_CERTAIN);
        } else if (e->why == PSI_LW_ORDER_WW) {
            /* the given version order's pair: its line names it */
            at = add_edge(&c, e->from, e->to, e->key, PSI_EDGE_WW, PSI_CEX_HINT);
            if (at != NONE)
                cx->edges[at].hint_line = psi_hints_line(&res->hints, e->from, e->to, e->key);
        } else {
            at = add_edge(&c, e->from, e->to, e->why == PSI_LW_SO ? UINT32_MAX : e->key,
                          e->why == PSI_LW_SO ? PSI_EDGE_SO : PSI_EDGE_WR, PSI_CEX_CERTAIN);
        }
        if (at == NONE)
            return psi_diag_nomem(d, "explaining the violation");
        cx->idx[cx->n_idx++] = at;
    }
    cx->cycles[0] = (psi_cex_cycle){.first = 0, .len = lr->cycle_len};
    cx->n_cycles = 1;
    for (uint32_t i = 0; i < lr->cycle_len; i++)
        if (lr->cycle[i].why == PSI_LW_FORCED && !support(&c, &lr->cycle[i]))
            return psi_diag_nomem(d, "explaining the violation");
    cx->n_txns = psi_u32_sort_unique(cx->txns, cx->n_txns);
    bool all_ww = true;
    for (uint32_t i = 0; i < lr->cycle_len; i++)
        all_ww &= lr->cycle[i].why == PSI_LW_LIST_WW || lr->cycle[i].why == PSI_LW_ORDER_WW;
    cx->kind = first_forced ? kind_of(first_forced) : all_ww ? PSI_CEX_G0 : PSI_CEX_G1C;
    /* a causality violation whose premise is one read is a fractured read
     * in RA's terms already; keep the level's own name */
    summarize(&c, res, first_forced);
    if (res->hints.n_all)
        snprintf(cx->hint_file, sizeof cx->hint_file, "%s", res->hints.file);
    cx->present = true;
    cx->restored_whole = true;
    cx->by_level = true;
    return PSI_OK;
}
