/* A complete version order checked without the polygraph (see
 * complete_pass.h). */
#include "check/complete_pass.h"

#include "core/list_order.h"
#include "core/prefetch.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { WHITE = 0, GREY = 1, BLACK = 2 };

/* How many operations ahead prepare() fetches a read's writer (its
 * counter half as far ahead); fetched with core/prefetch.h's hints. 16
 * left the loads of a read 8 operations ahead waiting on memory at 10^6
 * (a third of prepare's samples). */
#define AHEAD 64

/* push_succs(real) marks an RW successor with this bit, for the cycle
 * search to count anti-dependencies (nodes stay below it: at most 2^31
 * of them, psi_complete_pass). */
#define ANTI_TAG 0x80000000u

/* An open node of the search: its pending successors are
 * succ[base .. the next frame's base). */
typedef struct frame {
    uint32_t node;
    size_t base;
} frame;

typedef struct cpass {
    const psi_history *h;
    const psi_index *idx;
    bool ser; /* plain graph; else SI's doubled one (node 2t + copy) */
    /* The order (psi_hints_next): nx[o].next, next version's writer per
     * final write, nx[o].txn o's transaction; first writer per key.
     * prepare() then turns nx[o].next of every other operation of a
     * committed transaction into its RW target (rw_target), so the search
     * finds all of a transaction's edges in its own rows, and nx[o].txn of
     * each read with a writer into that writer's transaction. */
    psi_hint_slot *nx;
    uint32_t *first;
    /* [idx->n_amb] the writer the order file's read lines name for each
     * read with a choice of writers (psi_hints_choices): its read_src */
    uint32_t *amb_src;
    /* WR successors: the readers of writer t's versions are
     * wr_to[wr_off[t] .. wr_off[t + 1]) (one per read). */
    uint32_t *wr_off, *wr_to;
    uint8_t *color; /* [nodes] */
    uint32_t *succ; /* pending successors of the open frames */
    size_t n_succ, cap_succ;
    frame *fr;
    size_t n_fr, cap_fr;
    uint32_t hit; /* a node on the cycle search() found (an open node it reached) */
} cpass;

/* The node of transaction t reached by a DEP edge (SI: its copy 0). */
static inline uint32_t dep_node(const cpass *c, uint32_t t)
{
    return c->ser ? t : 2 * t;
}

/* The RW target of a read of key k by transaction t that returned src
 * (the next version's writer after src's, or the key's first),
 * PSI_HINT_LAST when none. */
static inline uint32_t rw_target(const cpass *c, uint32_t src, uint32_t k, uint32_t t)
{
    if (src == PSI_SRC_NONE)
        return PSI_HINT_LAST;
    uint32_t s = src == PSI_SRC_INIT ? c->first[k] : c->nx[src].next;
    return s == t ? PSI_HINT_LAST : s;
}

/* Readies succ[b .. b + n), a node's successors, for the search: the
 * search looks at each one's colour, and successors lie all over the
 * history, so their lines are fetched now, together; and it pops the
 * last first: reversed, it walks them in the order listed, as the old
 * path's cycle search walks its edges (SO and WR first), so the two tend
 * to meet the same cycle first. */
static void settle_succs(cpass *c, size_t b, size_t n)
{
    uint32_t *out = c->succ + b;
    for (size_t i = 0; i < n; i++)
        PSI_PREFETCH(&c->color[out[i]]);
    for (size_t i = 0; i < n / 2; i++) {
        uint32_t x = out[i];
        out[i] = out[n - 1 - i];
        out[n - 1 - i] = x;
    }
}

/* Appends node's successors to c->succ; false when out of memory. real:
 * the graph cycles are reported in (reach.h's), where SI's u0 has u1's
 * DEP edges itself, so a path's length counts edges, and RW successors
 * carry ANTI_TAG; else the search's, where u0 reaches them by a step
 * u0 -> u1 (one DEP list per transaction on the search's stack, not
 * two), and SI's u0 is open_pair's to list. */
static bool push_succs(cpass *c, uint32_t node, bool real)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    uint32_t t = c->ser ? node : node >> 1;
    const psi_txn *tx = &h->txns[t];
    bool dep = c->ser || (node & 1) || real, anti = c->ser || !(node & 1);
    size_t bound = 2 + (size_t)tx->n_ops + (dep ? c->wr_off[t + 1] - c->wr_off[t] : 0);
    if (!psi_grow((void **)&c->succ, &c->cap_succ, c->n_succ + bound, sizeof *c->succ))
        return false;
    uint32_t *out = c->succ + c->n_succ;
    size_t n = 0;
    assert(c->ser || (node & 1) || real);
    if (dep) {
        /* SO: the next committed transaction of the session */
        for (uint32_t u = t + 1; u < h->n_txns && h->txns[u].session == tx->session; u++)
            if (h->txns[u].status == PSI_TXN_COMMITTED) {
                out[n++] = dep_node(c, u);
                break;
            }
        for (uint32_t i = c->wr_off[t]; i < c->wr_off[t + 1]; i++)
            out[n++] = dep_node(c, c->wr_to[i]);
    }
    /* nx[o].next: WW for a final write, RW for any other op (prepare) */
    for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++) {
        uint32_t s = c->nx[o].next;
        if (s == PSI_HINT_LAST)
            continue;
        if (idx->op_info[o] & PSI_OI_FINAL_WRITE) {
            if (dep)
                out[n++] = dep_node(c, s); /* WW */
        } else if (anti) {
            out[n++] = (c->ser ? s : 2 * s + 1) | (real ? ANTI_TAG : 0); /* RW */
        }
    }
    assert(n <= bound);
    if (!real)
        settle_succs(c, c->n_succ, n);
    c->n_succ += n;
    return true;
}

/* Opens node (white) as a frame; false when out of memory. */
static bool open_node(cpass *c, uint32_t node)
{
    if (!psi_grow((void **)&c->fr, &c->cap_fr, c->n_fr + 1, sizeof *c->fr))
        return false;
    c->color[node] = GREY;
    c->fr[c->n_fr++] = (frame){.node = node, .base = c->n_succ};
    return push_succs(c, node, false);
}

/* SI: opens copy 0 of transaction t (white) and, when white, its copy 1
 * too, as two frames, the way open_node(2t) and the search popping 2t + 1
 * (its first successor) would, but scanning t's operations once for both
 * copies' lists: RW for copy 0, SO, WR and WW for copy 1. Returns -1 when
 * out of memory, 1 when copy 1 is open already (a cycle: c->hit set, as
 * the search would have set it), else 0. */
static int open_pair(cpass *c, uint32_t t)
{
    const psi_history *h = c->h;
    const psi_txn *tx = &h->txns[t];
    uint32_t u0 = 2 * t, u1 = u0 + 1, n_wr = c->wr_off[t + 1] - c->wr_off[t];
    /* RW (at most n_ops), then copy 1's SO, WR and WW (at most n_ops) */
    size_t bound = 1 + 2 * (size_t)tx->n_ops + n_wr;
    if (!psi_grow((void **)&c->fr, &c->cap_fr, c->n_fr + 2, sizeof *c->fr) ||
        !psi_grow((void **)&c->succ, &c->cap_succ, c->n_succ + bound, sizeof *c->succ))
        return -1;
    c->color[u0] = GREY;
    c->fr[c->n_fr++] = (frame){.node = u0, .base = c->n_succ};
    uint32_t *out = c->succ + c->n_succ;
    /* WW targets wait past the end of copy 1's list-to-be (RW's count
     * is not known yet, and is at most n_ops) */
    uint32_t *ww = out + tx->n_ops + 1 + n_wr;
    size_t n_rw = 0, n_ww = 0;
    /* Without a branch per operation: which ones have an edge, and of
     * which kind, is not predictable. Each is written and kept or not. */
    for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++) {
        uint32_t s = c->nx[o].next;
        bool has = s != PSI_HINT_LAST, fw = c->idx->op_info[o] & PSI_OI_FINAL_WRITE;
        ww[n_ww] = 2 * s; /* WW */
        n_ww += has & fw;
        out[n_rw] = 2 * s + 1; /* RW */
        n_rw += has & !fw;
    }
    settle_succs(c, c->n_succ, n_rw);
    c->n_succ += n_rw;
    if (c->color[u1] == GREY) {
        c->hit = u1;
        return 1;
    }
    if (c->color[u1] != WHITE)
        return 0;
    c->color[u1] = GREY;
    c->fr[c->n_fr++] = (frame){.node = u1, .base = c->n_succ};
    out = c->succ + c->n_succ;
    size_t n = 0;
    /* SO: the next committed transaction of the session */
    for (uint32_t u = t + 1; u < h->n_txns && h->txns[u].session == tx->session; u++)
        if (h->txns[u].status == PSI_TXN_COMMITTED) {
            out[n++] = 2 * u;
            break;
        }
    for (uint32_t i = c->wr_off[t]; i < c->wr_off[t + 1]; i++)
        out[n++] = 2 * c->wr_to[i];
    assert(out + n <= ww);
    memmove(out + n, ww, n_ww * sizeof *ww);
    n += n_ww;
    settle_succs(c, c->n_succ, n);
    c->n_succ += n;
    return 0;
}

/* Opens a white node reached by the search: SI's copy 0 with its copy 1
 * (open_pair), else the node alone. As open_pair. */
static int open_any(cpass *c, uint32_t node)
{
    if (!c->ser && !(node & 1))
        return open_pair(c, node >> 1);
    return open_node(c, node) ? 0 : -1;
}

/* The depth-first search from every committed transaction's (first)
 * node: *acyclic false at the first edge back into an open node. */
static bool search(cpass *c, bool *acyclic)
{
    *acyclic = true;
    for (uint32_t t = 1; t < c->h->n_txns; t++) {
        if (c->h->txns[t].status != PSI_TXN_COMMITTED || c->color[dep_node(c, t)] != WHITE)
            continue;
        int r = open_any(c, dep_node(c, t));
        while (r == 0 && c->n_fr) {
            frame *f = &c->fr[c->n_fr - 1];
            if (c->n_succ == f->base) {
                c->color[f->node] = BLACK;
                c->n_fr--;
                continue;
            }
            uint32_t v = c->succ[--c->n_succ];
            if (c->color[v] == GREY) {
                c->hit = v;
                r = 1;
            } else if (c->color[v] == WHITE) {
                r = open_any(c, v);
            }
        }
        if (r < 0)
            return false;
        if (r > 0) {
            *acyclic = false;
            return true;
        }
    }
    return true;
}

/* A shortest cycle through node v of the real graph (push_succs): the
 * first a breadth-first search meets in push_succs' order (SO, WR, then
 * the transaction's operations), as the old path's report takes the first
 * shortest one in its edge order (reach.h psi_reach_cycle, SO and WR
 * before the order's edges). Its nodes from v on go into *path (the
 * caller's to free; the last one's edge to v closes it), its RW edges'
 * number into *n_rw; *len 0 when v is on no cycle of at most max_len
 * edges (the search stops at that depth). False when out of memory. */
static bool shortest_cycle(cpass *c, uint32_t v, uint32_t max_len, uint32_t **path, uint32_t *len,
                           uint32_t *n_rw)
{
    size_t nodes = (size_t)c->h->n_txns * (c->ser ? 1 : 2);
    uint32_t *par = malloc(nodes * sizeof *par), *queue = malloc(nodes * sizeof *queue);
    uint32_t *dist = malloc(nodes * sizeof *dist), *rw = malloc(nodes * sizeof *rw);
    *path = NULL;
    *len = 0;
    bool ok = par && queue && dist && rw;
    if (ok) {
        memset(par, 0xff, nodes * sizeof *par);
        par[v] = v;
        dist[v] = rw[v] = 0;
    }
    size_t head = 0, tail = 0;
    if (ok)
        queue[tail++] = v;
    uint32_t last = UINT32_MAX, best = UINT32_MAX; /* the closing node, its RW count */
    /* a node at depth d closes a cycle of d + 1 edges: none longer than
     * max_len is wanted */
    while (ok && head < tail && last == UINT32_MAX && dist[queue[head]] < max_len) {
        for (size_t end = tail; ok && head < end && last == UINT32_MAX; head++) {
            uint32_t x = queue[head];
            c->n_succ = 0;
            ok = push_succs(c, x, true);
            for (size_t i = 0; ok && i < c->n_succ; i++) {
                uint32_t y = c->succ[i] & ~ANTI_TAG, r = rw[x] + !!(c->succ[i] & ANTI_TAG);
                if (y == v) {
                    best = r, last = x;
                    break;
                } else if (par[y] == UINT32_MAX) {
                    assert(tail < nodes); /* each node is queued once */
                    par[y] = x;
                    dist[y] = dist[x] + 1;
                    rw[y] = r;
                    queue[tail++] = y;
                }
            }
        }
    }
    c->n_succ = 0;
    if (ok && last != UINT32_MAX) {
        uint32_t n = 1;
        for (uint32_t x = last; x != v; x = par[x])
            n++;
        /* the queue is free now: the path, written from its end */
        for (uint32_t x = last, i = n; i > 0; x = par[x])
            queue[--i] = x;
        assert(queue[0] == v);
        *path = queue;
        *len = n;
        *n_rw = best;
        queue = NULL;
    }
    free(par);
    free(queue);
    free(dist);
    free(rw);
    return ok;
}

/* The edge of the history behind the step from node x to node y of a
 * cycle, as the polygraph would hold it (type, key, origin): SO, WR, WW
 * (the order's), RW (forced by it), looked for in that order, the order
 * of the polygraph's known edges (SO and WR built first, then the
 * order's WW edges, then the forced ones). False when there is none. */
static bool edge_of_step(const cpass *c, uint32_t x, uint32_t y, psi_edge *e)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    uint32_t t = c->ser ? x : x >> 1, s = c->ser ? y : y >> 1;
    /* SI: copy 1 is entered by RW edges only, copy 0 by DEP edges only */
    bool anti = c->ser || (y & 1), dep = c->ser || !(y & 1);
    const psi_txn *tx = &h->txns[t], *sx = &h->txns[s];
    *e = (psi_edge){.from = t, .to = s, .key = UINT32_MAX, .origin = PSI_FROM_HISTORY};
    if (dep) {
        for (uint32_t u = t + 1; u < h->n_txns && h->txns[u].session == tx->session; u++)
            if (h->txns[u].status == PSI_TXN_COMMITTED) {
                if (u == s) {
                    e->type = PSI_EDGE_SO;
                    return true;
                }
                break;
            }
        for (uint32_t o = sx->first_op; o < sx->first_op + sx->n_ops; o++) {
            uint32_t src = idx->read_src[o];
            if (src < PSI_SRC_INIT && idx->op_txn[src] == t) {
                e->type = PSI_EDGE_WR;
                e->key = h->ops[o].key;
                return true;
            }
        }
    }
    for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++) {
        if (c->nx[o].next != s)
            continue;
        bool ww = (idx->op_info[o] & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) ==
                  (PSI_OI_LIVE | PSI_OI_FINAL_WRITE);
        if (ww ? !dep : !anti)
            continue;
        e->type = ww ? PSI_EDGE_WW : PSI_EDGE_RW;
        e->key = h->ops[o].key;
        e->origin = ww                                 ? PSI_FROM_VERSION_ORDER
                    : idx->read_src[o] == PSI_SRC_INIT ? PSI_FROM_SEEDING_INIT
                                                       : PSI_FROM_SEEDING;
        return true;
    }
    return false;
}

/* The cycle search() found, as edges: the shortest through the node it
 * hit or, SI, through the other copy of that node's transaction if that
 * is shorter, or as short with fewer RW edges (the search reaches copy 1
 * also by the step u0 -> u1, which is no edge, and copy 0 may lie on a
 * shorter cycle entered by a DEP edge). *len 0 when none is found (a bug: the caller
 * then explains the reject the old way). False when out of memory. */
static bool found_cycle(cpass *c, psi_edge **cycle, uint32_t *len)
{
    uint32_t *path = NULL, n = 0, rw = 0;
    *cycle = NULL;
    *len = 0;
    for (int copy = 0; copy < (c->ser ? 1 : 2); copy++) {
        uint32_t *p, m, r;
        if (!shortest_cycle(c, copy ? c->hit ^ 1 : c->hit, n ? n : UINT32_MAX, &p, &m, &r)) {
            free(path);
            return false;
        }
        if (m && (!n || m < n || (m == n && r < rw))) {
            free(path);
            path = p, n = m, rw = r;
        } else {
            free(p);
        }
    }
    assert(n > 0);
    psi_edge *e = n ? malloc(n * sizeof *e) : NULL;
    bool ok = !n || e;
    for (uint32_t i = 0; ok && e && i < n; i++)
        if (!edge_of_step(c, path[i], path[(i + 1) % n], &e[i])) {
            assert(!"a step of the cycle without an edge");
            free(e);
            e = NULL;
        }
    free(path);
    if (e) {
        *cycle = e;
        *len = n;
    }
    return ok;
}

/* The WR successors (readers per writer transaction), each read's RW
 * target in its own nx[] slot, and the old path's counts, in one pass
 * over the operations and one over the reads: the random accesses (a
 * read's writer, its next version) happen here once, where they do not
 * wait on each other, instead of inside the search. */
static bool prepare(cpass *c, psi_complete_counts *cnt)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    psi_hint_slot *nx = c->nx;
    c->wr_off = calloc((size_t)h->n_txns + 2, sizeof *c->wr_off);
    uint32_t *nw = calloc((size_t)h->n_keys + 1, sizeof *nw);
    uint64_t *rd = calloc((size_t)h->n_keys + 1, sizeof *rd);
    bool ok = c->wr_off && nw && rd;
    uint64_t n_wr = 0, n_reads = 0, forced = 0, n_so = 0;
    uint32_t last_from = UINT32_MAX, last_to = UINT32_MAX;
    uint32_t amb = 0; /* the next choice read: idx->amb is in operation order */
    for (uint32_t o = 0; ok && o < h->n_ops; o++) {
        /* A read's writer is anywhere in the history: fetch the random
         * lines of the reads ahead (the writer's slot, its next version
         * and transaction, then, once that has arrived, the transaction's
         * counter) while this one waits. They were 3/4 of this pass at
         * 10^6. */
        if (o + AHEAD < h->n_ops && idx->read_src[o + AHEAD] < PSI_SRC_INIT)
            PSI_PREFETCH(&nx[idx->read_src[o + AHEAD]]);
        if (o + AHEAD / 2 < h->n_ops && idx->read_src[o + AHEAD / 2] < PSI_SRC_INIT)
            PSI_PREFETCH_W(&c->wr_off[nx[idx->read_src[o + AHEAD / 2]].txn + 2]);
        uint32_t src = idx->read_src[o], k = h->ops[o].key;
        uint8_t info = idx->op_info[o];
        if (amb < idx->n_amb && idx->amb[amb].op == o)
            src = c->amb_src[amb++];
        if ((info & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) == (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) {
            nw[k]++;
            continue; /* its nx[] is the order's */
        }
        uint32_t to = nx[o].txn;
        assert(to == idx->op_txn[o]);
        /* A read's writer is a live final write (index.c takes no other
         * source), never a read's own slot: reading nx[src] while writing
         * nx[o] sees only the order's entries. */
        assert(src >= PSI_SRC_INIT || (idx->op_info[src] & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) ==
                                          (PSI_OI_LIVE | PSI_OI_FINAL_WRITE));
        uint32_t s = rw_target(c, src, k, to);
        nx[o].next = s;
        if (src == PSI_SRC_NONE)
            continue;
        forced += s != PSI_HINT_LAST;
        if (src == PSI_SRC_INIT)
            continue;
        uint32_t from = nx[src].txn;
        nx[o].txn = from; /* the second loop's, below */
        c->wr_off[from + 2]++;
        n_reads++;
        rd[k]++;
        /* the builder keeps one WR edge for consecutive reads of one
         * writer by one reader (polygraph_steps.c) */
        if (from != last_from || to != last_to)
            n_wr++;
        last_from = from, last_to = to;
    }
    ok = ok && n_reads < UINT32_MAX;
    c->wr_to = ok ? malloc((n_reads ? n_reads : 1) * sizeof *c->wr_to) : NULL;
    psi_hint_huge(c->wr_to, n_reads * sizeof *c->wr_to); /* filled at random */
    ok = ok && c->wr_to;
    for (uint32_t t = 0; ok && t < h->n_txns; t++) {
        c->wr_off[t + 2] += c->wr_off[t + 1];
        n_so += t && h->txns[t].status == PSI_TXN_COMMITTED;
    }
    amb = 0;
    for (uint32_t o = 0; ok && o < h->n_ops; o++) {
        /* nx[o].txn is the writer's transaction exactly where read_src
         * names a write, unless a choice read's line names another writer */
        if (!idx->n_amb && o + AHEAD < h->n_ops && idx->read_src[o + AHEAD] < PSI_SRC_INIT)
            PSI_PREFETCH_W(&c->wr_off[nx[o + AHEAD].txn + 1]);
        uint32_t src = idx->read_src[o];
        if (amb < idx->n_amb && idx->amb[amb].op == o)
            src = c->amb_src[amb++];
        if (src < PSI_SRC_INIT)
            c->wr_to[c->wr_off[nx[o].txn + 1]++] = idx->op_txn[o];
    }
    uint64_t hint = 0;
    for (uint32_t k = 0; ok && k < h->n_keys; k++) {
        uint64_t w = nw[k];
        if (w)
            hint += w - 1;
        if (w >= 2) {
            cnt->writer_pairs += w * (w - 1) / 2;
            cnt->pair_deps += w * (w - 1) + (w - 1) * rd[k];
        }
    }
    cnt->known_before = n_so + n_wr + hint;
    cnt->known_after = cnt->known_before + forced;
    free(nw);
    free(rd);
    return ok;
}

/* List-append reads' WW facts (core/list_order.h) against the order. A
 * fact that agrees with a total order adds no reachability (the order's
 * WW path already leads from its writer to the other), so only facts
 * against the order matter: each is a cycle with that path. Key k's
 * writers are wtx/wop[off[k] .. off[k + 1]) sorted by transaction, pos[i]
 * the place of writer i's version in k's order. */
typedef struct list_check {
    const cpass *c;
    uint32_t *off, *wtx, *wop, *pos;
    uint64_t n_facts;
    bool against; /* a fact goes against the order: a cycle */
    bool lost;    /* a fact names a writer the order has not placed */
} list_check;

/* The index of key k's writer t in l's lists, UINT32_MAX when none. */
static uint32_t list_writer(const list_check *l, uint32_t k, uint32_t t)
{
    uint32_t b = l->off[k], e = l->off[k + 1];
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (l->wtx[m] == t)
            return m;
        if (l->wtx[m] < t)
            b = m + 1;
        else
            e = m;
    }
    return UINT32_MAX;
}

static bool list_fact(void *ctx, uint32_t from, uint32_t to, uint32_t key)
{
    list_check *l = ctx;
    uint32_t a = list_writer(l, key, from), b = list_writer(l, key, to);
    l->lost = a == UINT32_MAX || b == UINT32_MAX;
    l->against |= !l->lost && l->pos[a] >= l->pos[b];
    l->n_facts++; /* all of them, as the polygraph's known edges */
    return !l->lost;
}

/* Checks the list facts against c's order (next, first): *agree when none
 * goes against it (then *facts is their number, the known edges the old
 * path adds for them), *placed false when a fact names a writer the order
 * does not place (the old path decides then). False when out of memory. */
static bool list_facts_agree(const cpass *c, bool *agree, bool *placed, uint64_t *facts)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    list_check l = {.c = c};
    *agree = *placed = false;
    l.off = calloc((size_t)h->n_keys + 2, sizeof *l.off);
    uint64_t n = 0;
    for (uint32_t o = 0; l.off && o < h->n_ops; o++)
        if ((idx->op_info[o] & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) ==
            (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) {
            l.off[h->ops[o].key + 2]++;
            n++;
        }
    bool ok = l.off && n < UINT32_MAX;
    if (ok) {
        l.wtx = malloc((n ? n : 1) * sizeof *l.wtx);
        l.wop = malloc((n ? n : 1) * sizeof *l.wop);
        l.pos = malloc((n ? n : 1) * sizeof *l.pos);
        ok = l.wtx && l.wop && l.pos;
    }
    if (ok) {
        for (uint32_t k = 0; k < h->n_keys; k++)
            l.off[k + 2] += l.off[k + 1];
        /* transaction by transaction: sorted by transaction */
        for (uint32_t t = 0; t < h->n_txns; t++)
            for (uint32_t o = h->txns[t].first_op; o < h->txns[t].first_op + h->txns[t].n_ops; o++)
                if ((idx->op_info[o] & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) ==
                    (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) {
                    uint32_t i = l.off[h->ops[o].key + 1]++;
                    l.wtx[i] = t;
                    l.wop[i] = o;
                }
        /* each key's order from its first writer along nx[].next */
        *placed = true;
        for (uint32_t k = 0; k < h->n_keys && *placed; k++) {
            uint32_t i = 0, t = c->first[k];
            for (; t != PSI_HINT_LAST && i <= l.off[k + 1] - l.off[k]; i++) {
                uint32_t w = list_writer(&l, k, t);
                if (w == UINT32_MAX)
                    break;
                l.pos[w] = i;
                t = c->nx[l.wop[w]].next;
            }
            *placed = t == PSI_HINT_LAST && i == l.off[k + 1] - l.off[k];
        }
    }
    bool nomem = false;
    if (ok && *placed && !psi_list_ww_facts(h, idx, list_fact, &l, &nomem))
        ok = !nomem;
    if (ok && *placed) {
        *placed = !l.lost;
        *agree = !l.lost && !l.against;
        *facts = l.n_facts;
    }
    free(l.off);
    free(l.wtx);
    free(l.wop);
    free(l.pos);
    return ok;
}

psi_status psi_complete_pass(const psi_history *h, const psi_index *idx,
                             const psi_version_order *vo, bool ser, bool *taken, bool *acyclic,
                             psi_complete_counts *cnt, psi_edge **cycle, uint32_t *cycle_len,
                             psi_diag *d)
{
    *taken = false;
    *acyclic = false;
    memset(cnt, 0, sizeof *cnt);
    if (cycle) {
        *cycle = NULL;
        *cycle_len = 0;
    }
    /* What the walk has no edges for: the old path's (complete_pass.h). */
    if (idx->opt || h->n_txns >= UINT32_MAX / 4)
        return PSI_OK;
    cpass c = {.h = h, .idx = idx, .ser = ser};
    /* Reads with a choice of writers: the order file's read lines name
     * one for each, or the old path decides. */
    if (idx->n_amb) {
        bool all;
        if (!(c.amb_src = malloc(idx->n_amb * sizeof *c.amb_src)))
            return psi_diag_nomem(d, "checking the version order");
        psi_status st = psi_hints_choices(h, idx, vo, c.amb_src, &all, d);
        if (st != PSI_OK || !all) {
            free(c.amb_src);
            return st;
        }
    }
    c.nx = malloc(((size_t)h->n_ops ? h->n_ops : 1) * sizeof *c.nx);
    /* huge pages: nx is written and read at random (one chain entry, one
     * read's writer), where 4 KiB pages cost a TLB miss nearly each */
    psi_hint_huge(c.nx, (size_t)h->n_ops * sizeof *c.nx);
    c.first = malloc(((size_t)h->n_keys ? h->n_keys : 1) * sizeof *c.first);
    psi_status st = PSI_OK;
    bool complete = false;
    if (!c.nx || !c.first)
        st = psi_diag_nomem(d, "checking the version order");
    else
        st = psi_hints_next(h, idx, vo, c.nx, c.first, &complete, d);
    if (st == PSI_OK && complete) {
        size_t nodes = (size_t)h->n_txns * (ser ? 1 : 2);
        c.color = calloc(nodes, 1);
        /* List-append reads: their facts against the order are cycles. */
        bool agree = true, placed = true;
        uint64_t facts = 0;
        if (h->n_list_reads && !list_facts_agree(&c, &agree, &placed, &facts)) {
            st = psi_diag_nomem(d, "checking the version order");
        } else if (placed) { /* else not taken: the old path's */
            if (!c.color || !prepare(&c, cnt) || (agree && !search(&c, acyclic)))
                st = psi_diag_nomem(d, "checking the version order");
            else
                *taken = true;
            /* A cycle of the pass's edges is the history's when every
             * read's writer is the history's (no choice read): the
             * reject's cycle. A list fact against the order is left to
             * the old path (the pass has no edge for it). */
            if (st == PSI_OK && cycle && agree && !*acyclic && !idx->n_amb &&
                !found_cycle(&c, cycle, cycle_len))
                st = psi_diag_nomem(d, "checking the version order");
        }
        cnt->known_before += facts;
        cnt->known_after += facts;
    }
    free(c.nx);
    free(c.first);
    free(c.amb_src);
    free(c.wr_off);
    free(c.wr_to);
    free(c.color);
    free(c.succ);
    free(c.fr);
    return st;
}
