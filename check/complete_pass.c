/* A complete version order checked without the polygraph (see
 * complete_pass.h). */
#include "check/complete_pass.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { WHITE = 0, GREY = 1, BLACK = 2 };

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
    /* The order (psi_hints_next): next version's writer per final write,
     * first writer per key. prepare() then turns next[] of every other
     * operation of a committed transaction into its RW target (rw_target),
     * so the search finds all of a transaction's edges in its own rows. */
    uint32_t *next, *first;
    /* [n_ops] psi_hints_next's scratch, then the writer transaction of
     * each read with a writer (prepare) */
    uint32_t *scratch;
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
    uint32_t s = src == PSI_SRC_INIT ? c->first[k] : c->next[src];
    return s == t ? PSI_HINT_LAST : s;
}

/* Appends node's successors to c->succ; false when out of memory. */
static bool push_succs(cpass *c, uint32_t node)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    uint32_t t = c->ser ? node : node >> 1;
    const psi_txn *tx = &h->txns[t];
    bool dep = c->ser || (node & 1), anti = c->ser || !(node & 1);
    size_t bound = 2 + (size_t)tx->n_ops + (dep ? c->wr_off[t + 1] - c->wr_off[t] : 0);
    if (!psi_grow((void **)&c->succ, &c->cap_succ, c->n_succ + bound, sizeof *c->succ))
        return false;
    uint32_t *out = c->succ + c->n_succ;
    size_t n = 0;
    if (!c->ser && !(node & 1))
        out[n++] = node + 1; /* u0 -> u1: u0 has u1's DEP edges too */
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
    /* next[o]: WW for a final write, RW for any other op (prepare) */
    for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++) {
        uint32_t s = c->next[o];
        if (s == PSI_HINT_LAST)
            continue;
        if (idx->op_info[o] & PSI_OI_FINAL_WRITE) {
            if (dep)
                out[n++] = dep_node(c, s); /* WW */
        } else if (anti) {
            out[n++] = c->ser ? s : 2 * s + 1; /* RW */
        }
    }
    assert(n <= bound);
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
    return push_succs(c, node);
}

/* The depth-first search from every committed transaction's (first)
 * node: *acyclic false at the first edge back into an open node. */
static bool search(cpass *c, bool *acyclic)
{
    *acyclic = true;
    for (uint32_t t = 1; t < c->h->n_txns; t++) {
        if (c->h->txns[t].status != PSI_TXN_COMMITTED || c->color[dep_node(c, t)] != WHITE)
            continue;
        if (!open_node(c, dep_node(c, t)))
            return false;
        while (c->n_fr) {
            frame *f = &c->fr[c->n_fr - 1];
            if (c->n_succ == f->base) {
                c->color[f->node] = BLACK;
                c->n_fr--;
                continue;
            }
            uint32_t v = c->succ[--c->n_succ];
            if (c->color[v] == GREY) {
                *acyclic = false;
                return true;
            }
            if (c->color[v] == WHITE && !open_node(c, v))
                return false;
        }
    }
    return true;
}

/* The WR successors (readers per writer transaction), each read's RW
 * target in its own next[] slot, and the old path's counts, in one pass
 * over the operations and one over the reads: the random accesses (a
 * read's writer, its next version) happen here once, where they do not
 * wait on each other, instead of inside the search. */
static bool prepare(cpass *c, psi_complete_counts *cnt)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    c->wr_off = calloc((size_t)h->n_txns + 2, sizeof *c->wr_off);
    uint32_t *nw = calloc((size_t)h->n_keys + 1, sizeof *nw);
    uint64_t *rd = calloc((size_t)h->n_keys + 1, sizeof *rd);
    bool ok = c->wr_off && nw && rd;
    uint64_t n_wr = 0, n_reads = 0, forced = 0, n_so = 0;
    uint32_t last_from = UINT32_MAX, last_to = UINT32_MAX;
    uint32_t *from_of = c->scratch;
    uint32_t amb = 0; /* the next choice read: idx->amb is in operation order */
    for (uint32_t o = 0; ok && o < h->n_ops; o++) {
        uint32_t src = idx->read_src[o], k = h->ops[o].key;
        uint8_t info = idx->op_info[o];
        if (amb < idx->n_amb && idx->amb[amb].op == o)
            src = c->amb_src[amb++];
        if ((info & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) == (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) {
            nw[k]++;
            continue; /* its next[] is the order's */
        }
        uint32_t to = idx->op_txn[o];
        /* A final write is never a read's own slot: reading next[src]
         * while writing next[o] sees only the order's entries. */
        uint32_t s = rw_target(c, src, k, to);
        c->next[o] = s;
        if (src == PSI_SRC_NONE)
            continue;
        forced += s != PSI_HINT_LAST;
        if (src == PSI_SRC_INIT)
            continue;
        uint32_t from = idx->op_txn[src];
        from_of[o] = from;
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
    ok = ok && c->wr_to;
    for (uint32_t t = 0; ok && t < h->n_txns; t++) {
        c->wr_off[t + 2] += c->wr_off[t + 1];
        n_so += t && h->txns[t].status == PSI_TXN_COMMITTED;
    }
    amb = 0;
    for (uint32_t o = 0; ok && o < h->n_ops; o++) {
        uint32_t src = idx->read_src[o];
        if (amb < idx->n_amb && idx->amb[amb].op == o)
            src = c->amb_src[amb++];
        if (src < PSI_SRC_INIT)
            c->wr_to[c->wr_off[from_of[o] + 1]++] = idx->op_txn[o];
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

psi_status psi_complete_pass(const psi_history *h, const psi_index *idx,
                             const psi_version_order *vo, bool ser, bool *taken, bool *acyclic,
                             psi_complete_counts *cnt, psi_diag *d)
{
    *taken = false;
    *acyclic = false;
    memset(cnt, 0, sizeof *cnt);
    /* What the walk has no edges for: the old path's (complete_pass.h). */
    if (idx->opt || h->n_list_reads || h->n_txns >= UINT32_MAX / 2)
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
    c.next = malloc(((size_t)h->n_ops ? h->n_ops : 1) * sizeof *c.next);
    c.first = malloc(((size_t)h->n_keys ? h->n_keys : 1) * sizeof *c.first);
    c.scratch = malloc(((size_t)h->n_ops ? h->n_ops : 1) * sizeof *c.scratch);
    psi_status st = PSI_OK;
    bool complete = false;
    if (!c.next || !c.first || !c.scratch)
        st = psi_diag_nomem(d, "checking the version order");
    else
        st = psi_hints_next(h, idx, vo, c.next, c.first, c.scratch, &complete, d);
    if (st == PSI_OK && complete) {
        size_t nodes = (size_t)h->n_txns * (ser ? 1 : 2);
        c.color = calloc(nodes, 1);
        if (!c.color || !prepare(&c, cnt) || !search(&c, acyclic))
            st = psi_diag_nomem(d, "checking the version order");
        else
            *taken = true;
    }
    free(c.next);
    free(c.first);
    free(c.scratch);
    free(c.amb_src);
    free(c.wr_off);
    free(c.wr_to);
    free(c.color);
    free(c.succ);
    free(c.fr);
    return st;
}
