/* The polynomial levels PL-2, RC, RA and CC by saturation (see level.h).
 *
 * One graph over the transactions: SO (the initial transaction before
 * each session's first committed transaction, then each committed
 * transaction before the next), WR (one edge per reader and distinct
 * writer), and the level's forced edges. Kahn's algorithm either orders
 * it (accept: the order is a commit order) or leaves a cyclic remainder,
 * in which the shortest cycle through one node is found by BFS.
 *
 * Costs, with n transactions, r external reads, w writes, k sessions:
 *   PL-2  O(n + r)
 *   RC    O(n + r·w_t): each distinct writer a transaction reads from
 *         contributes its writes once (w_t: writes per transaction)
 *   RA    the same, plus O(w) for the latest session predecessor per key
 *   CC    O((n + r)·k) time for vector clocks over sessions, and per read
 *         one binary search per session that wrote the key:
 *         O(r·k·log n); memory n·k clock entries (4 bytes each).
 * Everything else is linear. Forced edges already implied by SO (CC: by
 * SO ∪ WR, from the clocks) are not added, so valid histories stay near
 * n + r edges. */
#include "check/level.h"

#include "core/list_order.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Edge tags: SO, WR, or FORCED_BASE + index into forced[]. */
#define TAG_SO          0u
#define TAG_WR          1u
#define TAG_FORCED_BASE 2u
/* A list-append read's known version order on key (tag & ~TAG_LIST). */
#define TAG_LIST 0x80000000u
/* CC refuses clock tables above this many entries (4 GiB): a history with
 * that many sessions times transactions needs another algorithm. */
#define MAX_CLOCK_ENTRIES (UINT64_C(1) << 30)

typedef struct cedge {
    uint32_t from, to, tag;
} cedge;

/* One RC pool entry: a key that became visible to the current
 * transaction through writer src, made visible by read op. */
typedef struct pool_ent {
    uint32_t next, src, op;
} pool_ent;

typedef struct lctx {
    const psi_history *h;
    const psi_index *idx;
    psi_level level;
    bool per_read; /* RC, PL-2: every read not after an own write is a read event */
    psi_diag *d;
    cedge *e;
    size_t n_e, cap_e;
    psi_level_edge *forced;
    size_t n_forced, cap_forced;
    /* Per committed transaction t, its read events [r_off[t], r_off[t + 1])
     * in program order (key, source transaction, op) and the keys of its
     * final writes [w_off[t], w_off[t + 1]) in program order: built once in
     * one sequential pass (ev_build), because the passes below visit each
     * reader's sources and each writer's writes several times, and every
     * visit through ops[], op_info[] and op_txn[] was a cache miss per
     * operation on large histories. */
    uint32_t *r_off, *r_key, *r_src, *r_op; /* r_off [n_txns + 1], the others [reads] */
    uint32_t *w_off, *w_key;                /* w_off [n_txns + 1], w_key [final writes] */
    /* session << 32 | pos per transaction: SO tests without loading the
     * 40-byte transaction records */
    uint64_t *sp; /* [n_txns] */
    /* per-transaction scratch, indexed by key / transaction, stamped */
    uint32_t *key_stamp, *key_val, *key_head; /* [n_keys] */
    uint32_t *txn_stamp;                      /* [n_txns] */
    pool_ent *pool;                           /* RC lists of visible writers per key */
    size_t n_pool, cap_pool;
    uint32_t *srcs, *src_op; /* distinct sources of the current transaction */
    size_t n_srcs, cap_srcs;
    /* CC: vector clocks, one row of k positions + 1 per committed
     * transaction, row rank[t] for transaction t: ranks follow the
     * topological order of SO ∪ WR, so the rows a clock is pushed to and
     * the rows a read compares lie near each other in memory (by
     * transaction index they were a cache miss per edge and per read). */
    uint32_t *vc;   /* [n_live * k] */
    uint32_t *rank; /* [n_txns] row of each committed transaction, NONE otherwise */
    uint32_t k;
} lctx;

static bool committed(const psi_history *h, uint32_t t)
{
    return t == PSI_INIT_TXN || h->txns[t].status == PSI_TXN_COMMITTED;
}

/* The write a read event observed (op, PSI_SRC_INIT or PSI_SRC_NONE).
 * Under RC and PL-2 (per_read) a repeat read, one not preceded by its own
 * transaction's write of the key, is a read event too. */
static uint32_t read_src(const lctx *c, uint32_t o)
{
    uint8_t info = c->idx->op_info[o];
    if (info & PSI_OI_EXTERNAL_READ)
        return c->idx->read_src[o];
    if (c->per_read && (info & PSI_OI_REPEAT_READ) && (info & PSI_OI_LIVE))
        return psi_index_repeat_src(c->h, c->idx, o);
    return PSI_SRC_NONE;
}

/* The read events and final writes of every committed transaction (see
 * lctx), in one pass over the operations. The arrays are sized for every
 * operation and only the part used is touched (untouched pages cost no
 * memory). */
static bool ev_build(lctx *c)
{
    const psi_history *h = c->h;
    size_t n_ops = h->n_ops ? h->n_ops : 1, n_t = (size_t)h->n_txns + 1;
    c->r_off = malloc(n_t * sizeof *c->r_off);
    c->w_off = malloc(n_t * sizeof *c->w_off);
    c->r_key = malloc(n_ops * sizeof *c->r_key);
    c->r_src = malloc(n_ops * sizeof *c->r_src);
    c->r_op = malloc(n_ops * sizeof *c->r_op);
    c->w_key = malloc(n_ops * sizeof *c->w_key);
    c->sp = malloc(n_t * sizeof *c->sp);
    if (!c->r_off || !c->w_off || !c->r_key || !c->r_src || !c->r_op || !c->w_key || !c->sp)
        return false;
    /* huge pages: a page fault per 2 MiB instead of per 4 KiB */
    psi_hint_huge(c->r_key, n_ops * sizeof *c->r_key);
    psi_hint_huge(c->r_src, n_ops * sizeof *c->r_src);
    psi_hint_huge(c->r_op, n_ops * sizeof *c->r_op);
    psi_hint_huge(c->w_key, n_ops * sizeof *c->w_key);
    uint32_t nr = 0, nw = 0;
    for (uint32_t t = 0; t < h->n_txns; t++) {
        c->r_off[t] = nr;
        c->w_off[t] = nw;
        const psi_txn *tx = &h->txns[t];
        c->sp[t] = (uint64_t)tx->session << 32 | tx->pos;
        if (t == PSI_INIT_TXN || !committed(h, t))
            continue;
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j, s = read_src(c, o);
            if (s != PSI_SRC_NONE) {
                c->r_key[nr] = h->ops[o].key;
                c->r_src[nr] = s == PSI_SRC_INIT ? PSI_INIT_TXN : c->idx->op_txn[s];
                c->r_op[nr++] = o;
            } else if (h->ops[o].kind == PSI_OP_WRITE &&
                       (c->idx->op_info[o] & PSI_OI_FINAL_WRITE)) {
                c->w_key[nw++] = h->ops[o].key;
            }
        }
    }
    c->r_off[h->n_txns] = nr;
    c->w_off[h->n_txns] = nw;
    return true;
}

static bool add_edge(lctx *c, uint32_t from, uint32_t to, uint32_t tag)
{
    if (!psi_grow((void **)&c->e, &c->cap_e, c->n_e + 1, sizeof *c->e))
        return false;
    c->e[c->n_e++] = (cedge){from, to, tag};
    return true;
}

/* t2 is before t1 in session order, so the forced edge t2 -> t1 is implied. */
static bool so_before(const lctx *c, uint32_t t2, uint32_t t1)
{
    if (t2 == PSI_INIT_TXN)
        return true;
    if (t1 == PSI_INIT_TXN)
        return false;
    return c->sp[t2] >> 32 == c->sp[t1] >> 32 && c->sp[t2] < c->sp[t1];
}

static bool hb_before(const lctx *c, uint32_t t2, uint32_t t1)
{
    if (t2 == PSI_INIT_TXN)
        return true;
    if (t1 == PSI_INIT_TXN)
        return false;
    assert(c->rank[t1] != NONE);
    return c->vc[(size_t)c->rank[t1] * c->k + (c->sp[t2] >> 32)] > (uint32_t)c->sp[t2];
}

static bool add_forced(lctx *c, uint32_t t2, uint32_t t1, uint32_t key, uint8_t premise,
                       uint32_t reader, uint32_t read_op, uint32_t read_op2)
{
    assert(t2 != t1 && t2 != PSI_INIT_TXN);
    if (c->level == PSI_LEVEL_CC ? hb_before(c, t2, t1) : so_before(c, t2, t1))
        return true;
    if (!psi_grow((void **)&c->forced, &c->cap_forced, c->n_forced + 1, sizeof *c->forced))
        return false;
    c->forced[c->n_forced] = (psi_level_edge){.from = t2,
                                              .to = t1,
                                              .key = key,
                                              .why = PSI_LW_FORCED,
                                              .premise = premise,
                                              .reader = reader,
                                              .read_op = read_op,
                                              .read_op2 = read_op2};
    return add_edge(c, t2, t1, TAG_FORCED_BASE + (uint32_t)c->n_forced++);
}

/* SO and WR edges. */
static bool base_edges(lctx *c)
{
    const psi_history *h = c->h;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        uint32_t prev = PSI_INIT_TXN;
        for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
            uint32_t t = h->sessions[s].first_txn + i;
            if (!committed(h, t))
                continue;
            if (!add_edge(c, prev, t, TAG_SO))
                return false;
            prev = t;
            for (uint32_t r = c->r_off[t]; r < c->r_off[t + 1]; r++) {
                uint32_t w = c->r_src[r];
                /* init -> t is implied by SO from the initial transaction */
                if (w == PSI_INIT_TXN || c->txn_stamp[w] == t)
                    continue;
                c->txn_stamp[w] = t;
                if (!add_edge(c, w, t, TAG_WR))
                    return false;
            }
        }
    }
    return true;
}

/* psi_grow on two arrays sharing one capacity would be wrong: keep them
 * apart. */
static bool grow2(uint32_t **a, uint32_t **b, size_t *cap, size_t need)
{
    size_t ca = *cap, cb = *cap;
    if (!psi_grow((void **)a, &ca, need, sizeof **a))
        return false;
    if (!psi_grow((void **)b, &cb, need, sizeof **b))
        return false;
    *cap = ca < cb ? ca : cb;
    return true;
}

static bool add_list_fact(void *ctx, uint32_t from, uint32_t to, uint32_t key)
{
    return add_edge(ctx, from, to, TAG_LIST | key);
}

/* List-append reads show version orders (core/list_order.h), facts every
 * level's commit order must follow, as in the polygraph. */
static bool list_edges(lctx *c)
{
    bool nomem;
    return psi_list_ww_facts(c->h, c->idx, add_list_fact, c, &nomem);
}

/* t's distinct writers (not the initial transaction), each with its first
 * read, in program order; keys t reads externally map to their read event
 * in key_val (stamped t + 1 in key_stamp). */
static bool collect_sources(lctx *c, uint32_t t)
{
    c->n_srcs = 0;
    for (uint32_t r = c->r_off[t]; r < c->r_off[t + 1]; r++) {
        uint32_t w = c->r_src[r], key = c->r_key[r];
        c->key_stamp[key] = t + 1;
        c->key_val[key] = r;
        if (w == PSI_INIT_TXN || c->txn_stamp[w] == t + 1)
            continue;
        c->txn_stamp[w] = t + 1;
        if (!grow2(&c->srcs, &c->src_op, &c->cap_srcs, c->n_srcs + 1))
            return false;
        c->srcs[c->n_srcs] = w;
        c->src_op[c->n_srcs++] = c->r_op[r];
    }
    return true;
}

/* RC: a read of x from t1 after t read from t2, which also wrote x. */
static bool rc_edges(lctx *c, uint32_t t)
{
    c->n_pool = 0;
    for (uint32_t r = c->r_off[t]; r < c->r_off[t + 1]; r++) {
        uint32_t t1 = c->r_src[r], x = c->r_key[r], o = c->r_op[r];
        if (c->key_stamp[x] == t + 1)
            for (uint32_t p = c->key_head[x]; p != NONE; p = c->pool[p].next) {
                uint32_t t2 = c->pool[p].src;
                if (t2 != t1 && !add_forced(c, t2, t1, x, PSI_LP_EARLIER_READ, t, o, c->pool[p].op))
                    return false;
            }
        if (t1 == PSI_INIT_TXN || c->txn_stamp[t1] == t + 1)
            continue;
        c->txn_stamp[t1] = t + 1;
        /* t1's writes become visible to t's later reads */
        for (uint32_t i = c->w_off[t1]; i < c->w_off[t1 + 1]; i++) {
            uint32_t y = c->w_key[i];
            if (c->key_stamp[y] != t + 1) {
                c->key_stamp[y] = t + 1;
                c->key_head[y] = NONE;
            }
            if (!psi_grow((void **)&c->pool, &c->cap_pool, c->n_pool + 1, sizeof *c->pool))
                return false;
            /* o: the read that made t1 visible */
            c->pool[c->n_pool] = (pool_ent){.next = c->key_head[y], .src = t1, .op = o};
            c->key_head[y] = (uint32_t)c->n_pool++;
        }
    }
    return true;
}

/* RA, WR part: every writer t2 t reads from, for every key y t2 wrote
 * that t reads from another writer. key_val holds t's read of each key. */
static bool ra_wr_edges(lctx *c, uint32_t t)
{
    if (!collect_sources(c, t))
        return false;
    for (size_t i = 0; i < c->n_srcs; i++) {
        uint32_t t2 = c->srcs[i];
        for (uint32_t j = c->w_off[t2]; j < c->w_off[t2 + 1]; j++) {
            uint32_t y = c->w_key[j];
            if (c->key_stamp[y] != t + 1)
                continue;
            uint32_t r = c->key_val[y], t1 = c->r_src[r];
            if (t1 != t2 && !add_forced(c, t2, t1, y, PSI_LP_WR, t, c->r_op[r], c->src_op[i]))
                return false;
        }
    }
    return true;
}

/* RA, SO part, for one session: the latest earlier transaction of the
 * session that wrote x (earlier ones are SO-before it). lw_txn/lw_sess
 * are [n_keys]. */
static bool ra_so_edges(lctx *c, uint32_t s, uint32_t *lw_txn, uint32_t *lw_sess)
{
    const psi_history *h = c->h;
    for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
        uint32_t t = h->sessions[s].first_txn + i;
        if (!committed(h, t))
            continue;
        for (uint32_t r = c->r_off[t]; r < c->r_off[t + 1]; r++) {
            uint32_t x = c->r_key[r], t1 = c->r_src[r];
            if (lw_sess[x] == s + 1 && lw_txn[x] != t1 &&
                !add_forced(c, lw_txn[x], t1, x, PSI_LP_SO, t, c->r_op[r], NONE))
                return false;
        }
        if (!ra_wr_edges(c, t))
            return false;
        /* every key t wrote has a final write */
        for (uint32_t j = c->w_off[t]; j < c->w_off[t + 1]; j++) {
            lw_sess[c->w_key[j]] = s + 1;
            lw_txn[c->w_key[j]] = t;
        }
    }
    return true;
}

/* ---- graph: CSR, Kahn, shortest cycle ---- */

typedef struct csr {
    uint32_t n;
    uint64_t *off; /* [n + 1] */
    uint32_t *to, *tag;
} csr;

static void csr_free(csr *g)
{
    free(g->off);
    free(g->to);
    free(g->tag);
    memset(g, 0, sizeof *g);
}

/* skip_list: leave out list-append WW edges (CC's clocks follow SO ∪ WR
 * only). */
static bool csr_build(const cedge *e, size_t n_e, uint32_t n, bool skip_list, csr *g)
{
    g->n = n;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    g->to = malloc((n_e ? n_e : 1) * sizeof *g->to);
    g->tag = malloc((n_e ? n_e : 1) * sizeof *g->tag);
    if (!g->off || !g->to || !g->tag)
        return false;
    for (size_t i = 0; i < n_e; i++)
        if (!skip_list || !(e[i].tag & TAG_LIST))
            g->off[e[i].from + 1]++;
    for (uint32_t v = 0; v < n; v++)
        g->off[v + 1] += g->off[v];
    uint64_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
    if (!pos)
        return false;
    memcpy(pos, g->off, ((size_t)n + 1) * sizeof *pos);
    for (size_t i = 0; i < n_e; i++) {
        if (skip_list && (e[i].tag & TAG_LIST))
            continue;
        uint64_t p = pos[e[i].from]++;
        g->to[p] = e[i].to;
        g->tag[p] = e[i].tag;
    }
    free(pos);
    return true;
}

/* Kahn over the committed transactions. order gets the ordered nodes;
 * returns how many (== n_live on success), or UINT32_MAX out of memory.
 * indeg is left with the remainder's in-degrees. */
static uint32_t kahn(const psi_history *h, const csr *g, uint32_t *order, uint32_t *indeg)
{
    memset(indeg, 0, (size_t)g->n * sizeof *indeg);
    for (uint32_t v = 0; v < g->n; v++)
        for (uint64_t i = g->off[v]; i < g->off[v + 1]; i++)
            indeg[g->to[i]]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < g->n; v++)
        if (committed(h, v) && indeg[v] == 0)
            order[tail++] = v;
    while (head < tail) {
        uint32_t v = order[head++];
        for (uint64_t i = g->off[v]; i < g->off[v + 1]; i++)
            if (--indeg[g->to[i]] == 0)
                order[tail++] = g->to[i];
    }
    return tail;
}

/* The remainder Kahn leaves (nodes with in-degree left) holds a cycle:
 * a depth-first search over it meets a node still on its stack, which is
 * on a cycle; a BFS from that node back to itself gives the shortest
 * cycle through it. Linear in the graph. */
static psi_status shortest_cycle(lctx *c, const csr *g, uint32_t *indeg, psi_level_result *res)
{
    uint32_t n = g->n;
    uint32_t *stack = malloc((size_t)n * sizeof *stack);
    uint64_t *it = malloc((size_t)n * sizeof *it);
    uint32_t *dist = NULL, *par = NULL, *ptag = NULL;
    uint8_t *alive = calloc(n, 1), *color = calloc(n, 1);
    psi_status st = PSI_OK;
    if (!stack || !it || !alive || !color)
        goto nomem;
    for (uint32_t u = 0; u < n; u++)
        alive[u] = indeg[u] > 0;
    uint32_t v = NONE;
    for (uint32_t r = 0; r < n && v == NONE; r++) {
        if (!alive[r] || color[r])
            continue;
        uint32_t sp = 0;
        stack[sp++] = r;
        it[r] = g->off[r];
        color[r] = 1;
        while (sp && v == NONE) {
            uint32_t u = stack[sp - 1];
            if (it[u] == g->off[u + 1]) {
                color[u] = 2;
                sp--;
                continue;
            }
            uint32_t w = g->to[it[u]++];
            if (!alive[w] || color[w] == 2)
                continue;
            if (color[w] == 1) {
                v = w;
            } else {
                color[w] = 1;
                it[w] = g->off[w];
                stack[sp++] = w;
            }
        }
    }
    assert(v != NONE);
    /* BFS from v over alive nodes back to v: the shortest cycle through v */
    dist = malloc((size_t)n * sizeof *dist);
    par = malloc((size_t)n * sizeof *par);
    ptag = malloc((size_t)n * sizeof *ptag);
    if (!dist || !par || !ptag)
        goto nomem;
    memset(dist, 0xff, (size_t)n * sizeof *dist);
    uint32_t head = 0, tail = 0, last = NONE, last_tag = 0;
    stack[tail++] = v;
    dist[v] = 0;
    while (head < tail && last == NONE) {
        uint32_t u = stack[head++];
        for (uint64_t i = g->off[u]; i < g->off[u + 1]; i++) {
            uint32_t w = g->to[i];
            if (!alive[w])
                continue;
            if (w == v) {
                last = u;
                last_tag = g->tag[i];
                break;
            }
            if (dist[w] == NONE) {
                dist[w] = dist[u] + 1;
                par[w] = u;
                ptag[w] = g->tag[i];
                stack[tail++] = w;
            }
        }
    }
    assert(last != NONE);
    uint32_t len = dist[last] + 1;
    res->cycle = calloc(len, sizeof *res->cycle);
    if (!res->cycle)
        goto nomem;
    res->cycle_len = len;
    /* fill backwards: last -> v closes it */
    uint32_t at = last, tag = last_tag, to = v;
    for (uint32_t i = len; i-- > 0;) {
        psi_level_edge *e = &res->cycle[i];
        if (tag & TAG_LIST) {
            *e = (psi_level_edge){.from = at,
                                  .to = to,
                                  .key = tag & ~TAG_LIST,
                                  .why = PSI_LW_LIST_WW,
                                  .reader = NONE,
                                  .read_op = NONE,
                                  .read_op2 = NONE};
        } else if (tag >= TAG_FORCED_BASE) {
            *e = c->forced[tag - TAG_FORCED_BASE];
        } else {
            *e = (psi_level_edge){.from = at,
                                  .to = to,
                                  .key = UINT32_MAX,
                                  .why = tag == TAG_SO ? PSI_LW_SO : PSI_LW_WR,
                                  .reader = NONE,
                                  .read_op = NONE,
                                  .read_op2 = NONE};
            if (tag == TAG_WR) {
                for (uint32_t r = c->r_off[to]; r < c->r_off[to + 1]; r++) {
                    if (c->r_src[r] == at) {
                        e->key = c->r_key[r];
                        e->read_op = c->r_op[r];
                        break;
                    }
                }
            }
        }
        assert(e->from == at && e->to == to);
        to = at;
        if (i) {
            tag = ptag[at];
            at = par[at];
        }
    }
    goto done;
nomem:
    st = psi_diag_nomem(c->d, "finding the violation's cycle");
done:
    free(alive);
    free(color);
    free(it);
    free(stack);
    free(dist);
    free(par);
    free(ptag);
    return st;
}

/* ---- CC ---- */

/* Vector clocks in a topological order of SO ∪ WR (order[0..n_live)). */
static void cc_clocks(lctx *c, const csr *base, const uint32_t *order, uint32_t n_live)
{
    const psi_history *h = c->h;
    uint32_t k = c->k;
    /* push each transaction's clock to its successors: a successor's
     * clock is the maximum over its predecessors, plus itself */
    for (uint32_t i = 0; i < n_live; i++) {
        uint32_t v = order[i];
        if (v == PSI_INIT_TXN)
            continue;
        assert(c->rank[v] == i);
        uint32_t *cv = c->vc + (size_t)i * k;
        const psi_txn *tx = &h->txns[v];
        if (cv[tx->session] < tx->pos + 1)
            cv[tx->session] = tx->pos + 1;
        for (uint64_t j = base->off[v]; j < base->off[v + 1]; j++) {
            uint32_t *cw = c->vc + (size_t)c->rank[base->to[j]] * k;
            /* branch-free, so the compiler vectorizes it */
            for (uint32_t s = 0; s < k; s++)
                cw[s] = cw[s] < cv[s] ? cv[s] : cw[s];
        }
    }
}

/* Writers of each key grouped by session, in session order: the groups
 * of key x are grp[goff[x] .. goff[x+1]), each a run wt[first .. +len)
 * whose session positions run from lo to hi (a read rules most groups
 * out from these alone, without loading wpos: a cache miss on hot keys). */
typedef struct wgroup {
    uint32_t session, first, len, lo, hi;
} wgroup;

/* A read event r of transaction t; a forced edge t2 -> (r's source),
 * sorted by key = r * k + the writer's session. */
typedef struct cc_read {
    uint32_t r, t;
} cc_read;
typedef struct cc_cand {
    uint64_t key;
    uint32_t t2, t;
} cc_cand;

static int cand_cmp(const void *a, const void *b)
{
    uint64_t x = ((const cc_cand *)a)->key, y = ((const cc_cand *)b)->key;
    return (x > y) - (x < y);
}

/* Per read of x from t1 in t, and per session that wrote x, the latest
 * writer t2 of x in that session that happened before t must commit
 * before t1 (CC's axiom; earlier writers of the session are SO-before
 * t2). The reads are visited key by key, each key's in topological order
 * of their readers: a key's writer groups then stay in cache for all its
 * reads and the readers' clock rows come in ascending order, where a
 * reader-by-reader pass reloaded the groups of a different key at every
 * read (a cache miss per group, most of CC's time at 10^6). order lists
 * the n_live committed transactions by clock row. */
static psi_status cc_edges(lctx *c, const uint32_t *order, uint32_t n_live)
{
    const psi_history *h = c->h;
    uint32_t nk = h->n_keys, k = c->k;
    uint64_t *woff = calloc((size_t)nk + 1, sizeof *woff), *goff = NULL;
    uint32_t *wt = NULL, *wpos = NULL; /* writer, and its session position (searched) */
    wgroup *grp = NULL;
    uint64_t *rk_off = NULL; /* [nk + 1] the reads of each key in rd */
    cc_read *rd = NULL;
    cc_cand *cand = NULL;
    size_t n_cand = 0, cap_cand = 0;
    psi_status st = PSI_OK;
    if (!woff)
        goto nomem;
    /* every final write of a committed transaction, by key */
    uint64_t n_w = c->w_off[h->n_txns];
    for (uint64_t i = 0; i < n_w; i++)
        woff[c->w_key[i] + 1]++;
    for (uint32_t x = 0; x < nk; x++)
        woff[x + 1] += woff[x];
    wt = malloc((n_w ? n_w : 1) * sizeof *wt);
    wpos = malloc((n_w ? n_w : 1) * sizeof *wpos);
    grp = malloc((n_w ? n_w : 1) * sizeof *grp);
    goff = calloc((size_t)nk + 1, sizeof *goff);
    if (!wt || !wpos || !grp || !goff)
        goto nomem;
    /* sessions in order, transactions in order: runs come out sorted */
    uint64_t *fill = malloc(((size_t)nk + 1) * sizeof *fill);
    if (!fill)
        goto nomem;
    memcpy(fill, woff, ((size_t)nk + 1) * sizeof *fill);
    for (uint32_t s = 0; s < h->n_sessions; s++)
        for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
            uint32_t t = h->sessions[s].first_txn + i;
            if (!committed(h, t))
                continue;
            for (uint32_t j = c->w_off[t]; j < c->w_off[t + 1]; j++) {
                uint32_t x = c->w_key[j];
                wpos[fill[x]] = (uint32_t)c->sp[t];
                wt[fill[x]++] = t;
            }
        }
    free(fill);
    /* groups: count runs per key, then lay them out */
    uint64_t n_g = 0;
    for (uint32_t x = 0; x < nk; x++) {
        goff[x] = n_g;
        for (uint64_t i = woff[x]; i < woff[x + 1]; i++) {
            uint32_t s = (uint32_t)(c->sp[wt[i]] >> 32);
            if (i == woff[x] || c->sp[wt[i - 1]] >> 32 != s)
                grp[n_g++] = (wgroup){s, (uint32_t)i, 0, wpos[i], 0};
            grp[n_g - 1].len++;
            grp[n_g - 1].hi = wpos[i];
        }
    }
    goff[nk] = n_g;
    /* the reads by key, each key's in clock-row order of their readers */
    uint64_t n_r = c->r_off[h->n_txns];
    rk_off = calloc((size_t)nk + 1, sizeof *rk_off);
    rd = malloc((n_r ? n_r : 1) * sizeof *rd);
    if (!rk_off || !rd)
        goto nomem;
    for (uint64_t r = 0; r < n_r; r++)
        rk_off[c->r_key[r] + 1]++;
    for (uint32_t x = 0; x < nk; x++)
        rk_off[x + 1] += rk_off[x];
    for (uint32_t i = 0; i < n_live; i++)
        for (uint32_t r = c->r_off[order[i]]; r < c->r_off[order[i] + 1]; r++)
            rd[rk_off[c->r_key[r]]++] = (cc_read){r, order[i]};
    /* the fill moved each start to the next key's */
    memmove(rk_off + 1, rk_off, (size_t)nk * sizeof *rk_off);
    rk_off[0] = 0;
    for (uint32_t x = 0; x < nk; x++) {
        for (uint64_t i = rk_off[x]; i < rk_off[x + 1]; i++) {
            uint32_t r = rd[i].r, t = rd[i].t, t1 = c->r_src[r];
            uint32_t ts = (uint32_t)(c->sp[t] >> 32), tpos = (uint32_t)c->sp[t];
            const uint32_t *cv = c->vc + (size_t)c->rank[t] * k;
            /* t1's clock (all zero for the initial transaction, whose row
             * cc_clocks leaves alone): a writer of session s at a position
             * below cv1[s] happened before t1, so its edge to t1 is implied
             * (what add_forced's hb_before would say, without loading the
             * writer's transaction). */
            const uint32_t *cv1 = c->vc + (size_t)c->rank[t1] * k;
            for (uint64_t g = goff[x]; g < goff[x + 1]; g++) {
                const wgroup *gr = &grp[g];
                /* before t: positions < cv[s], and in t's own session
                 * < pos(t); an edge needs a writer at cv1[s] or later
                 * (one test, mostly true: a predicted branch) */
                uint32_t lim = gr->session == ts ? tpos : cv[gr->session], lim1 = cv1[gr->session];
                if ((lim <= lim1) | (gr->lo >= lim) | (gr->hi < lim1))
                    continue;
                /* last run entry with pos < lim */
                uint32_t lo = 0, hi = gr->len;
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (wpos[gr->first + mid] < lim)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                if (!lo || wpos[gr->first + lo - 1] < lim1)
                    continue;
                uint32_t t2 = wt[gr->first + lo - 1];
                assert(t2 == t1 || t2 == t || !hb_before(c, t2, t1));
                if (t2 == t1 || t2 == t)
                    continue;
                if (!psi_grow((void **)&cand, &cap_cand, n_cand + 1, sizeof *cand))
                    goto nomem;
                cand[n_cand++] = (cc_cand){(uint64_t)r * k + gr->session, t2, t};
            }
        }
    }
    /* the edges in the order of reads, then sessions: the order the
     * reader-by-reader pass added them in, so the graph, its search and
     * the counterexample are what they were */
    if (n_cand)
        qsort(cand, n_cand, sizeof *cand, cand_cmp);
    for (size_t i = 0; i < n_cand; i++) {
        uint32_t r = (uint32_t)(cand[i].key / (k ? k : 1));
        if (!add_forced(c, cand[i].t2, c->r_src[r], c->r_key[r], PSI_LP_CAUSAL, cand[i].t,
                        c->r_op[r], NONE))
            goto nomem;
    }
    goto done;
nomem:
    st = psi_diag_nomem(c->d, "checking causal consistency");
done:
    free(woff);
    free(goff);
    free(wt);
    free(wpos);
    free(grp);
    free(rk_off);
    free(rd);
    free(cand);
    return st;
}

/* ---- driver ---- */

static psi_status finish(lctx *c, psi_level_result *res)
{
    const psi_history *h = c->h;
    csr g = {0};
    uint32_t *indeg = malloc((size_t)h->n_txns * sizeof *indeg);
    res->order = malloc((size_t)h->n_txns * sizeof *res->order);
    if (!indeg || !res->order || !csr_build(c->e, c->n_e, h->n_txns, false, &g)) {
        free(indeg);
        csr_free(&g);
        return psi_diag_nomem(c->d, "ordering the transactions");
    }
    free(c->e);
    c->e = NULL;
    c->n_e = c->cap_e = 0;
    uint32_t n_live = 0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        n_live += committed(h, t);
    uint32_t got = kahn(h, &g, res->order, indeg);
    psi_status st = PSI_OK;
    if (got == n_live) {
        res->accept = true;
        res->n_order = got;
    } else {
        free(res->order);
        res->order = NULL;
        st = shortest_cycle(c, &g, indeg, res);
    }
    free(indeg);
    csr_free(&g);
    return st;
}

psi_status psi_level_check(const psi_history *h, const psi_index *idx, psi_level level,
                           psi_level_result *res, psi_diag *d)
{
    assert(psi_level_is_polynomial(level));
    memset(res, 0, sizeof *res);
    lctx c = {.h = h,
              .idx = idx,
              .level = level,
              .per_read = level == PSI_LEVEL_RC || level == PSI_LEVEL_PL2,
              .d = d,
              .k = h->n_sessions};
    psi_status st = PSI_OK;
    uint32_t nk = h->n_keys ? h->n_keys : 1;
    c.key_stamp = calloc(nk, sizeof *c.key_stamp);
    c.key_val = malloc(nk * sizeof *c.key_val);
    c.key_head = malloc(nk * sizeof *c.key_head);
    c.txn_stamp = calloc(h->n_txns, sizeof *c.txn_stamp);
    if (!c.key_stamp || !c.key_val || !c.key_head || !c.txn_stamp)
        goto nomem;
    /* txn_stamp: base_edges stamps with t, the per-level passes with t + 1
     * after a reset */
    if (!ev_build(&c) || !base_edges(&c) || !list_edges(&c))
        goto nomem;
    memset(c.txn_stamp, 0, (size_t)h->n_txns * sizeof *c.txn_stamp);
    if (level == PSI_LEVEL_RC) {
        for (uint32_t t = 1; t < h->n_txns; t++)
            if (committed(h, t) && !rc_edges(&c, t))
                goto nomem;
    } else if (level == PSI_LEVEL_RA) {
        /* key_head/key_val double as the session's last writer per key */
        uint32_t *lw_txn = malloc(nk * sizeof *lw_txn), *lw_sess = calloc(nk, sizeof *lw_sess);
        bool ok = lw_txn && lw_sess;
        for (uint32_t s = 0; ok && s < h->n_sessions; s++)
            ok = ra_so_edges(&c, s, lw_txn, lw_sess);
        free(lw_txn);
        free(lw_sess);
        if (!ok)
            goto nomem;
    } else if (level == PSI_LEVEL_CC) {
        if ((uint64_t)h->n_txns * (c.k ? c.k : 1) > MAX_CLOCK_ENTRIES) {
            st = psi_diag_set(d, PSI_ERR_LIMIT,
                              "causal consistency needs a clock of %u sessions per transaction: "
                              "%u transactions are too many for that (at most %llu entries)",
                              c.k, h->n_txns, (unsigned long long)MAX_CLOCK_ENTRIES);
            goto done;
        }
        /* SO ∪ WR first: a cycle there is a violation already; else its
         * order gives the clocks */
        csr base = {0};
        uint32_t n_live = 0;
        for (uint32_t t = 0; t < h->n_txns; t++)
            n_live += committed(h, t);
        uint32_t *order = malloc((size_t)h->n_txns * sizeof *order);
        uint32_t *indeg = malloc((size_t)h->n_txns * sizeof *indeg);
        c.vc = calloc((size_t)n_live * (c.k ? c.k : 1), sizeof *c.vc);
        c.rank = malloc((size_t)h->n_txns * sizeof *c.rank);
        if (c.vc)
            psi_hint_huge(c.vc, (size_t)n_live * (c.k ? c.k : 1) * sizeof *c.vc);
        if (!order || !indeg || !c.vc || !c.rank ||
            !csr_build(c.e, c.n_e, h->n_txns, true, &base)) {
            free(order);
            free(indeg);
            csr_free(&base);
            goto nomem;
        }
        uint32_t got = kahn(h, &base, order, indeg);
        if (got == n_live) {
            memset(c.rank, 0xff, (size_t)h->n_txns * sizeof *c.rank);
            for (uint32_t i = 0; i < got; i++)
                c.rank[order[i]] = i;
            cc_clocks(&c, &base, order, got);
        }
        free(indeg);
        csr_free(&base);
        if (got == n_live)
            st = cc_edges(&c, order, got);
        free(order);
        if (st != PSI_OK)
            goto done;
    }
    res->forced_edges = c.n_forced;
    st = finish(&c, res);
    goto done;
nomem:
    st = psi_diag_nomem(d, "checking the isolation level");
done:
    free(c.e);
    free(c.forced);
    free(c.key_stamp);
    free(c.key_val);
    free(c.key_head);
    free(c.txn_stamp);
    free(c.pool);
    free(c.r_off);
    free(c.r_key);
    free(c.r_src);
    free(c.r_op);
    free(c.w_off);
    free(c.w_key);
    free(c.sp);
    free(c.srcs);
    free(c.src_op);
    free(c.vc);
    free(c.rank);
    return st;
}

void psi_level_result_free(psi_level_result *res)
{
    free(res->cycle);
    free(res->order);
    memset(res, 0, sizeof *res);
}
