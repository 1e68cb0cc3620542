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
#include "check/level_poly.h"

#include "check/hints.h"

#include "core/list_order.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The write a read event observed (op, PSI_SRC_INIT or PSI_SRC_NONE).
 * Under RC and PL-2 (per_read) a repeat read, one not preceded by its own
 * transaction's write of the key, is a read event too. */
static uint32_t read_src(const lctx *c, uint32_t o)
{
    uint8_t info = c->idx->op_info[o];
    uint32_t s = PSI_SRC_NONE;
    if (info & PSI_OI_EXTERNAL_READ)
        s = c->idx->read_src[o];
    else if (c->per_read && (info & PSI_OI_REPEAT_READ) && (info & PSI_OI_LIVE))
        s = psi_index_repeat_src(c->h, c->idx, o);
    /* a writer left out is no writer yet: the outcome search commits it
     * before the model is complete (level_outcome.h) */
    if (c->absent && s < PSI_SRC_INIT && c->absent[c->idx->op_txn[s]])
        return PSI_SRC_NONE;
    return s;
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
        if (t == PSI_INIT_TXN || !psi_lp_committed(c, t))
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

bool psi_lp_add_forced(lctx *c, uint32_t t2, uint32_t t1, uint32_t key, uint8_t premise,
                       uint32_t reader, uint32_t read_op, uint32_t read_op2)
{
    assert(t2 != t1 && t2 != PSI_INIT_TXN);
    if (c->level == PSI_LEVEL_CC ? psi_lp_hb_before(c, t2, t1) : so_before(c, t2, t1))
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
    assert(c->n_forced < TAG_ORDER - TAG_FORCED_BASE);
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
            if (!psi_lp_committed(c, t))
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
    lctx *c = ctx;
    if (!psi_lp_committed(c, from) || !psi_lp_committed(c, to))
        return true; /* an appender left out orders nothing */
    return add_edge(c, from, to, TAG_LIST | key);
}

/* List-append reads show version orders (core/list_order.h), facts every
 * level's commit order must follow, as in the polygraph. */
static bool list_edges(lctx *c)
{
    bool nomem;
    return psi_list_ww_facts(c->h, c->idx, add_list_fact, c, &nomem);
}

/* A given version order's pairs (c->hints): facts the commit order must
 * follow like list-append ones, since a key's version order is the commit
 * order's restriction to its writers (level.h). A writer left out orders
 * nothing. */
static bool order_edges(lctx *c)
{
    for (uint64_t i = 0; c->hints && i < c->hints->n; i++) {
        const psi_hint_edge *e = &c->hints->e[i];
        assert(e->key < TAG_ORDER);
        if (psi_lp_committed(c, e->from) && psi_lp_committed(c, e->to) &&
            !add_edge(c, e->from, e->to, TAG_ORDER | e->key))
            return false;
    }
    return true;
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
                if (t2 != t1 &&
                    !psi_lp_add_forced(c, t2, t1, x, PSI_LP_EARLIER_READ, t, o, c->pool[p].op))
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
            if (t1 != t2 &&
                !psi_lp_add_forced(c, t2, t1, y, PSI_LP_WR, t, c->r_op[r], c->src_op[i]))
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
        if (!psi_lp_committed(c, t))
            continue;
        for (uint32_t r = c->r_off[t]; r < c->r_off[t + 1]; r++) {
            uint32_t x = c->r_key[r], t1 = c->r_src[r];
            if (lw_sess[x] == s + 1 && lw_txn[x] != t1 &&
                !psi_lp_add_forced(c, lw_txn[x], t1, x, PSI_LP_SO, t, c->r_op[r], NONE))
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

void psi_lp_csr_free(csr *g)
{
    free(g->off);
    free(g->to);
    free(g->tag);
    memset(g, 0, sizeof *g);
}

/* skip_list: leave out list-append and given version orders' WW edges
 * (CC's clocks follow SO ∪ WR only). */
bool psi_lp_csr_build(const cedge *e, size_t n_e, uint32_t n, bool skip_list, csr *g)
{
    g->n = n;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    g->to = malloc((n_e ? n_e : 1) * sizeof *g->to);
    g->tag = malloc((n_e ? n_e : 1) * sizeof *g->tag);
    if (!g->off || !g->to || !g->tag)
        return false;
    for (size_t i = 0; i < n_e; i++)
        if (!skip_list || !(e[i].tag & (TAG_LIST | TAG_ORDER)))
            g->off[e[i].from + 1]++;
    for (uint32_t v = 0; v < n; v++)
        g->off[v + 1] += g->off[v];
    uint64_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
    if (!pos)
        return false;
    memcpy(pos, g->off, ((size_t)n + 1) * sizeof *pos);
    for (size_t i = 0; i < n_e; i++) {
        if (skip_list && (e[i].tag & (TAG_LIST | TAG_ORDER)))
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
uint32_t psi_lp_kahn(const lctx *c, const csr *g, uint32_t *order, uint32_t *indeg)
{
    memset(indeg, 0, (size_t)g->n * sizeof *indeg);
    for (uint32_t v = 0; v < g->n; v++)
        for (uint64_t i = g->off[v]; i < g->off[v + 1]; i++)
            indeg[g->to[i]]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < g->n; v++)
        if (psi_lp_committed(c, v) && indeg[v] == 0)
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
        } else if (tag & TAG_ORDER) {
            *e = (psi_level_edge){.from = at,
                                  .to = to,
                                  .key = tag & ~TAG_ORDER,
                                  .why = PSI_LW_ORDER_WW,
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
    /* The graph has session order as steps between neighbours; the
     * relation is transitive, so a run of steps is one edge, and the
     * transactions in between are not part of the violation (a minimal
     * sub-history leaves them out; a clause need not name them) */
    uint32_t m = 0;
    for (uint32_t i = 0; i < len; i++) {
        if (m && res->cycle[i].why == PSI_LW_SO && res->cycle[m - 1].why == PSI_LW_SO)
            res->cycle[m - 1].to = res->cycle[i].to;
        else
            res->cycle[m++] = res->cycle[i];
    }
    /* a run may wrap around: the cycle never consists of SO alone */
    if (m > 1 && res->cycle[0].why == PSI_LW_SO && res->cycle[m - 1].why == PSI_LW_SO) {
        res->cycle[m - 1].to = res->cycle[0].to;
        memmove(res->cycle, res->cycle + 1, (m - 1) * sizeof *res->cycle);
        m--;
    }
    assert(m >= 1);
    res->cycle_len = m;
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

/* ---- driver ---- */

static psi_status finish(lctx *c, psi_level_result *res)
{
    const psi_history *h = c->h;
    csr g = {0};
    uint32_t *indeg = malloc((size_t)h->n_txns * sizeof *indeg);
    res->order = malloc((size_t)h->n_txns * sizeof *res->order);
    if (!indeg || !res->order || !psi_lp_csr_build(c->e, c->n_e, h->n_txns, false, &g)) {
        free(indeg);
        psi_lp_csr_free(&g);
        return psi_diag_nomem(c->d, "ordering the transactions");
    }
    free(c->e);
    c->e = NULL;
    c->n_e = c->cap_e = 0;
    uint32_t n_live = 0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        n_live += psi_lp_committed(c, t);
    uint32_t got = psi_lp_kahn(c, &g, res->order, indeg);
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
    psi_lp_csr_free(&g);
    return st;
}

psi_status psi_level_check(const psi_history *h, const psi_index *idx, psi_level level,
                           psi_level_result *res, psi_diag *d)
{
    return psi_level_check_in(h, idx, NULL, level, res, d);
}

psi_status psi_level_check_in(const psi_history *h, const psi_index *idx, const uint8_t *absent,
                              psi_level level, psi_level_result *res, psi_diag *d)
{
    return psi_level_check_hinted(h, idx, absent, NULL, level, res, d);
}

psi_status psi_level_check_hinted(const psi_history *h, const psi_index *idx, const uint8_t *absent,
                                  const struct psi_hints *hints, psi_level level,
                                  psi_level_result *res, psi_diag *d)
{
    assert(psi_level_is_polynomial(level));
    memset(res, 0, sizeof *res);
    lctx c = {.h = h,
              .idx = idx,
              .absent = absent,
              .hints = hints,
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
    if (!ev_build(&c) || !base_edges(&c) || !list_edges(&c) || !order_edges(&c))
        goto nomem;
    memset(c.txn_stamp, 0, (size_t)h->n_txns * sizeof *c.txn_stamp);
    if (level == PSI_LEVEL_RC) {
        for (uint32_t t = 1; t < h->n_txns; t++)
            if (psi_lp_committed(&c, t) && !rc_edges(&c, t))
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
        if ((st = psi_lp_cc(&c)) != PSI_OK)
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
