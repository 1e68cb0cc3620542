/* The known-edge reduction's rules (see known_reduce.h).
 *
 * Chains. A link is a known SO edge of the history (origin
 * PSI_FROM_HISTORY) u -> v where u has no other such edge out and v none
 * in: consecutive committed transactions of one session (the initial
 * transaction's edges to every session's first are not links, it has
 * many). Links form disjoint paths, the chains; every node has a chain
 * and a position in it (a node on no link is a chain of its own, and so
 * is each node of a cycle of links, which pruning would have refused
 * anyway). Links are always kept.
 *
 * The rules, per source u and target chain C (u's edges into C); links
 * and self-loops are always kept:
 *   1. keep the DEP edge to the earliest position of C (a link if one
 *      goes there, else the first such edge in known order), and the
 *      ANTI edge to the earliest position of C if it is strictly before
 *      every DEP edge's target (the first such edge); drop u's other
 *      edges into C;
 *   2. drop any edge u -> w (position p of C) that a later node s of u's
 *      own chain implies: s has a DEP edge into C at a position <= p, or
 *      an ANTI edge at a position < p (<= p when u -> w is ANTI).
 * In SER mode every edge counts as DEP.
 *
 * Why cycles stay exact. The reduced graph R is a subgraph of the full
 * graph G (theory internal edges, acyclic.h), so every cycle of R is one
 * of G, under every assignment (labelled edges are all kept and known
 * edges are always active). Conversely, take SER first: a dropped edge
 * u -> w has, by rule 1, a kept edge u -> v with v at or before w in C,
 * or, by rule 2, the links u -> ... -> s and an edge s -> v with v at or
 * before w; the links from v to w are kept. So R has a path u ~> w, by
 * induction over the order the rules are applied in (each chain from its
 * end, so s's edges are settled before u's; within u, the kept edge of
 * rule 1 before the rest). A cycle of G becomes a closed walk of R, hence
 * R has a cycle.
 *   In SI the theory checks the doubled graph: node x is x0 (arrived by
 * DEP, or start) and x1 (arrived by ANTI); DEP u -> w is u0 -> w0 and
 * u1 -> w0, ANTI u -> w is u0 -> w1. Every out-edge of x1 (x1 -> y0, from
 * DEP x -> y) comes with x0 -> y0 from the same user edge: x0 "dominates"
 * x1. Claim: for each internal edge a -> b of G, R has a path from a to b
 * or to the node dominating b. A dropped DEP u -> w (u0,u1 -> w0): rule
 * 1's kept DEP u -> v gives u0,u1 -> v0, or rule 2's links (DEP) give
 * u0,u1 -> s0 and then s0 -> v0 (DEP s -> v, v at or before w) or
 * s0 -> v1 -> (link) -> the next node's 0 (ANTI s -> v, v strictly
 * before w); the links then reach w0. A dropped ANTI u -> w (u0 -> w1):
 * the same, except that an ANTI edge to w itself reaches w1 (or, by the
 * claim for it, w0), and w0 dominates w1. What must not be dropped is a
 * DEP edge implied only by an ANTI edge of u itself: u1 has no ANTI edge
 * out, so ANTI u -> v cannot stand in for DEP u -> w (rule 2 may use ANTI
 * edges of s: the link arrives at s0, which has them). Now follow a
 * cycle a_1 -> ... -> a_k -> a_1 of G in R, standing at a_i or at the
 * node dominating it: a_i's out-edge in G is also one of that node
 * (domination is from the same user edge), so the claim takes the walk on
 * to a_{i+1} or its dominator; the walk never ends in a finite graph, so
 * R has a cycle. SI's induced-graph rule (DEP ∪ DEP;ANTI, acyclic.h) is
 * exactly the doubled graph's acyclicity, so it is decided the same way.
 *
 * Cost: linear in nodes + known edges; memory 16 bytes per known edge
 * (the packed copy) plus about 60 bytes per node. Appending a round's
 * edges to a packed copy is linear in the new edges plus a sequential move
 * of the old ones. */
#include "core/known_reduce.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_OUT = 1, LINK_IN = 2 };

static bool so_candidate(const psi_edge *e)
{
    return e->type == PSI_EDGE_SO && e->origin == PSI_FROM_HISTORY && e->from != e->to;
}

/* Links and chains (above) into p->chain, pos, order, start, n_chains
 * (allocated here). Returns false on ENOMEM. */
static bool build_chains(const psi_polygraph *g, psi_known_packed *c)
{
    uint32_t N = g->n_nodes;
    uint8_t *out_n = calloc(N ? N : 1, 1), *in_n = calloc(N ? N : 1, 1);
    uint32_t *succ = malloc((N ? N : 1) * sizeof *succ);
    c->chain = malloc((N ? N : 1) * sizeof *c->chain);
    c->pos = malloc((N ? N : 1) * sizeof *c->pos);
    c->order = malloc((N ? N : 1) * sizeof *c->order);
    c->start = malloc(((size_t)N + 1) * sizeof *c->start);
    bool ok = out_n && in_n && succ && c->chain && c->pos && c->order && c->start;
    for (uint64_t i = 0; ok && i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (!so_candidate(e))
            continue;
        /* counts saturate at 2: only "exactly one" matters */
        out_n[e->from] += out_n[e->from] < 2;
        in_n[e->to] += in_n[e->to] < 2;
        succ[e->from] = e->to;
    }
    /* out_n[u] becomes the flags: LINK_OUT on u, LINK_IN on its successor. */
    for (uint32_t u = 0; ok && u < N; u++)
        out_n[u] = out_n[u] == 1 && in_n[succ[u]] == 1 ? LINK_OUT : 0;
    for (uint32_t u = 0; ok && u < N; u++)
        if (out_n[u] & LINK_OUT)
            out_n[succ[u]] |= LINK_IN;
    if (ok) {
        memset(c->chain, 0xff, N * sizeof *c->chain);
        c->n_chains = 0;
        uint32_t placed = 0;
        /* Each chain from its start (no link in); a start is never
         * reached again, as every node has at most one link in. */
        for (uint32_t v = 0; v < N; v++) {
            if (out_n[v] & LINK_IN)
                continue;
            c->start[c->n_chains] = placed;
            uint32_t x = v, p = 0;
            for (;;) {
                assert(c->chain[x] == UINT32_MAX);
                c->chain[x] = c->n_chains;
                c->pos[x] = p++;
                c->order[placed++] = x;
                if (!(out_n[x] & LINK_OUT))
                    break;
                x = succ[x];
            }
            c->n_chains++;
        }
        /* Nodes on a cycle of links: chains of their own. */
        for (uint32_t v = 0; v < N; v++)
            if (c->chain[v] == UINT32_MAX) {
                c->start[c->n_chains] = placed;
                c->chain[v] = c->n_chains++;
                c->pos[v] = 0;
                c->order[placed++] = v;
            }
        assert(placed == N);
        c->start[c->n_chains] = placed;
    }
    free(out_n);
    free(in_n);
    free(succ);
    return ok;
}

static bool is_link(const psi_known_packed *c, const psi_edge *e)
{
    return so_candidate(e) && c->chain[e->from] == c->chain[e->to] &&
           c->pos[e->to] == c->pos[e->from] + 1;
}

static uint8_t rec_kinds(psi_edge_type type);

/* Known edge i as the rules read it (chains built). */
static psi_known_rec make_rec(const psi_known_packed *c, const psi_edge *e, uint32_t i)
{
    return (psi_known_rec){.idx = i,
                           .chain = c->chain[e->to],
                           .pos = c->pos[e->to],
                           .type = e->type,
                           .kinds = rec_kinds((psi_edge_type)e->type),
                           .flags = (uint8_t)((is_link(c, e) ? PSI_REC_LINK : 0) |
                                              (e->from == e->to ? PSI_REC_SELF : 0))};
}

void psi_known_packed_free(psi_known_packed *p)
{
    free(p->chain);
    free(p->pos);
    free(p->order);
    free(p->start);
    free(p->off);
    free(p->cur);
    free(p->rec);
    memset(p, 0, sizeof *p);
}

/* Every known edge of g, from scratch (p released first). */
static bool pack_all(psi_known_packed *p, const psi_polygraph *g)
{
    psi_known_packed_free(p);
    p->partial = false;
    uint32_t N = g->n_nodes, n = (uint32_t)g->n_known;
    p->n_nodes = N;
    p->off = calloc((size_t)N + 1, sizeof *p->off);
    p->cur = malloc(((size_t)N + 1) * sizeof *p->cur);
    if (!p->off || !p->cur || !build_chains(g, p) ||
        !psi_grow((void **)&p->rec, &p->cap_rec, n ? n : 1, sizeof *p->rec))
        return false;
    uint32_t *o = p->off;
    for (uint32_t i = 0; i < n; i++)
        o[g->known[i].from + 1]++;
    for (uint32_t v = 0; v < N; v++)
        o[v + 1] += o[v];
    memcpy(p->cur, o, ((size_t)N + 1) * sizeof *o);
    for (uint32_t i = 0; i < n; i++)
        p->rec[p->cur[g->known[i].from]++] = make_rec(p, &g->known[i], i);
    p->n_edges = n;
    return true;
}

/* g's edges past p->n_edges into their sources' runs, in known order
 * (none of them an SO edge of the history: the chains stay). Each run
 * moves right by the new edges of the sources before it and its own, so
 * moving the runs from the last source down never overwrites one not yet
 * moved. */
static bool pack_append(psi_known_packed *p, const psi_polygraph *g)
{
    uint32_t N = p->n_nodes, n0 = (uint32_t)p->n_edges, n = (uint32_t)g->n_known;
    if (!psi_grow((void **)&p->rec, &p->cap_rec, n, sizeof *p->rec))
        return false;
    uint32_t *o = p->off, *add = p->cur;
    /* add[v + 1]: v's new edges */
    memset(add, 0, ((size_t)N + 1) * sizeof *add);
    for (uint32_t i = n0; i < n; i++)
        add[g->known[i].from + 1]++;
    /* add[v + 1] becomes the new edges of sources <= v: v's run moves by
     * add[v] (those before it) */
    for (uint32_t v = 0; v < N; v++)
        add[v + 1] += add[v];
    for (uint32_t v = N; v-- > 0;) {
        uint32_t len = o[v + 1] - o[v];
        if (add[v] && len)
            memmove(p->rec + o[v] + add[v], p->rec + o[v], len * sizeof *p->rec);
    }
    /* the new edges go after each moved run: cur[v] = its end */
    for (uint32_t v = 0; v < N; v++)
        add[v] += o[v + 1];
    for (uint32_t i = n0; i < n; i++)
        p->rec[add[g->known[i].from]++] = make_rec(p, &g->known[i], i);
    /* add[v] is now v's new end, the start of v + 1's run */
    for (uint32_t v = 0; v < N; v++)
        o[v + 1] = add[v];
    p->n_edges = n;
    return true;
}

#ifndef NDEBUG
/* The packing is g's: every edge once (some of them when partial), under
 * its source, in known order, resolved against chains g's links still
 * make. */
static bool packed_matches(const psi_known_packed *p, const psi_polygraph *g)
{
    if (p->partial ? p->off[p->n_nodes] > g->n_known : p->off[p->n_nodes] != g->n_known)
        return false;
    for (uint32_t v = 0; v < p->n_nodes; v++)
        for (uint32_t j = p->off[v]; j < p->off[v + 1]; j++) {
            const psi_known_rec *r = &p->rec[j];
            psi_known_rec want = make_rec(p, &g->known[r->idx], r->idx);
            if (g->known[r->idx].from != v || (j > p->off[v] && p->rec[j - 1].idx >= r->idx) ||
                r->chain != want.chain || r->pos != want.pos || r->type != want.type ||
                r->kinds != want.kinds || r->flags != want.flags)
                return false;
        }
    return true;
}
#endif

bool psi_known_packed_update(psi_known_packed *p, const psi_polygraph *g)
{
    assert(g->n_known < UINT32_MAX && g->n_known >= p->n_edges);
    bool fresh = !p->off || p->n_nodes != g->n_nodes;
    for (uint64_t i = p->n_edges; !fresh && i < g->n_known; i++)
        fresh = so_candidate(&g->known[i]);
    bool ok = fresh ? pack_all(p, g) : pack_append(p, g);
    if (!ok)
        psi_known_packed_free(p);
    assert(!ok || packed_matches(p, g));
    return ok;
}

/* The edge kinds the rules tell apart. SI: DEP (K_S) and ANTI (K_A1);
 * SER: every edge K_S; PC (below): S, W and A. K_S is the kind whose
 * earliest edge into a chain prefers a link. */
enum { K_S, K_A1 };
enum { PC_S = K_S, PC_W, PC_A, PC_KINDS };
_Static_assert(PC_KINDS == 3, "row_touch resets three entries");

/* Which rules mark_kept applies: SI's or SER's (ser), or PC's (pc). Rows
 * hold PC_KINDS entries per chain under every rule set (SI and SER use
 * two): a fixed width lets the reset below be three plain stores, where a
 * variable one became a memset call whose stores the next load waited
 * for. */
typedef struct rules {
    bool ser, pc;
    unsigned shift, mask; /* the kind in a record's kinds byte (rec_kinds) */
} rules;

/* Per target chain and kind, the earliest positions some edges reach
 * (UINT32_MAX: none) and, for a node's own edges, the record at it (its place in rec); valid
 * while stamp says so. pos, at: [chain * PC_KINDS + kind]. */
typedef struct kind_row {
    uint32_t *stamp, *pos, *at;
} kind_row;

static bool row_new(kind_row *r, size_t C)
{
    r->stamp = calloc(C, sizeof *r->stamp);
    r->pos = malloc(C * PC_KINDS * sizeof *r->pos);
    r->at = malloc(C * PC_KINDS * sizeof *r->at);
    return r->stamp && r->pos && r->at;
}

static void row_free(kind_row *r)
{
    free(r->stamp);
    free(r->pos);
    free(r->at);
}

/* Chain ch's positions in r, reset first if its stamp is not `stamp`. An
 * `at` entry is read only for a kind the node has an edge of into ch, and
 * that edge sets it, so it needs no reset. */
static uint32_t *row_touch(kind_row *r, uint32_t ch, uint32_t stamp)
{
    uint32_t *p = r->pos + (size_t)ch * PC_KINDS;
    if (r->stamp[ch] != stamp) {
        r->stamp[ch] = stamp;
        p[0] = p[1] = p[2] = UINT32_MAX;
    }
    return p;
}

/* The known edges grouped by source, each source's in known order:
 * by_src[off[v] .. off[v + 1]). */
bool psi_known_group_by_source(const psi_polygraph *g, uint32_t **off, uint32_t **by_src)
{
    uint32_t N = g->n_nodes, n = (uint32_t)g->n_known;
    *off = calloc((size_t)N + 1, sizeof **off);
    *by_src = malloc(n * sizeof **by_src);
    if (!*off || !*by_src)
        return false;
    uint32_t *o = *off;
    for (uint32_t i = 0; i < n; i++)
        o[g->known[i].from + 1]++;
    for (uint32_t v = 0; v < N; v++)
        o[v + 1] += o[v];
    for (uint32_t i = 0; i < n; i++)
        (*by_src)[o[g->known[i].from]++] = i;
    for (uint32_t v = N; v > 0; v--)
        o[v] = o[v - 1];
    o[0] = 0;
    return true;
}

static int pc_kind(psi_edge_type type);
static bool pc_kept(int t, uint32_t p, const uint32_t *own, const uint32_t *later);

/* A record's kinds byte: PC's kind in bits 0-1, SI's in bit 2 (SER's is
 * always K_S), so that the rules read a kind with a shift and a mask
 * instead of branching on the edge type. */
static uint8_t rec_kinds(psi_edge_type type)
{
    return (uint8_t)(pc_kind(type) | (psi_edge_is_anti(type) ? K_A1 << 2 : K_S << 2));
}

static int edge_kind(const rules *r, const psi_known_rec *e)
{
    return e->kinds >> r->shift & r->mask;
}

/* SI's and SER's rules above for u's edge of kind t at position p, the
 * earliest of its kind from u into the chain (not a link or self-loop).
 * own / later: u's and its later nodes' earliest positions into the
 * chain. */
static bool si_kept(int t, uint32_t p, const uint32_t *own, const uint32_t *later)
{
    /* rule 2: a later node of u's chain (reached by links) reaches p, in
     * a state at least as strong */
    bool implied = later[K_S] <= p || (t == K_S ? later[K_A1] < p : later[K_A1] <= p);
    /* rule 1: u's earliest DEP edge stays, its earliest ANTI edge if
     * before it */
    return !implied && (t == K_S || own[K_A1] < own[K_S]);
}

/* The rules (SI's and SER's above, PC's below): marks kept edges in keep
 * (a bitmap), reading the packed edges. Each chain is walked from its
 * end, `later` holding what the nodes after the current one reach (rule
 * 2) and `own` the current node's earliest edges per kind (rule 1).
 * Returns false on ENOMEM. */
static bool mark_kept(const psi_known_packed *c, const rules *r, uint64_t *keep)
{
    enum { K = PC_KINDS };
    kind_row own = {0}, later = {0};
    size_t C = c->n_chains ? c->n_chains : 1;
    /* the chains u has edges into, each once (own's stamp says which) */
    uint32_t *touched = malloc(C * sizeof *touched);
    bool ok = touched && row_new(&own, C) && row_new(&later, C);
    for (uint32_t k = 0; ok && k < c->n_chains; k++) {
        for (uint32_t q = c->start[k + 1]; q-- > c->start[k];) {
            uint32_t u = c->order[q], n_touched = 0;
            /* u's own earliest edge of each kind (a link first), `at` its
             * record; links and self-loops are kept whatever the rules say */
            for (uint32_t j = c->off[u]; j < c->off[u + 1]; j++) {
                const psi_known_rec *e = &c->rec[j];
                int t = edge_kind(r, e);
                if (own.stamp[e->chain] != u + 1)
                    touched[n_touched++] = e->chain;
                uint32_t *o = row_touch(&own, e->chain, u + 1), *at = own.at + (size_t)e->chain * K;
                if (e->pos < o[t] || (e->pos == o[t] && t == K_S && (e->flags & PSI_REC_LINK)))
                    o[t] = e->pos, at[t] = j;
                if (e->flags & (PSI_REC_LINK | PSI_REC_SELF))
                    keep[e->idx / 64] |= (uint64_t)1 << (e->idx % 64);
            }
            /* Per chain u reaches: only the earliest edge of a kind can be
             * kept by the rules (rule 1 drops the rest), unless it is a
             * link or a self-loop (kept above); then u's earliest
             * positions become "later" for the nodes before u. */
            for (uint32_t i = 0; i < n_touched; i++) {
                size_t row = (size_t)touched[i] * K;
                const uint32_t *o = own.pos + row;
                uint32_t *l = row_touch(&later, touched[i], k + 1);
                for (int t = 0; t < K; t++) {
                    if (o[t] == UINT32_MAX)
                        continue;
                    const psi_known_rec *e = &c->rec[own.at[row + t]];
                    bool kept = !(e->flags & (PSI_REC_LINK | PSI_REC_SELF)) &&
                                (r->pc ? pc_kept(t, e->pos, o, l) : si_kept(t, e->pos, o, l));
                    if (kept)
                        keep[e->idx / 64] |= (uint64_t)1 << (e->idx % 64);
                }
                for (int t = 0; t < K; t++)
                    if (o[t] < l[t])
                        l[t] = o[t];
            }
        }
    }
    free(touched);
    row_free(&own);
    row_free(&later);
    return ok;
}

/* ---- Prefix consistency (PSI_RULES_PC) ----
 *
 * PC forbids the cycles of DEP ∪ (SO ∪ WR);RW (encode.h). Write S for an
 * SO or WR edge, W for WW, A for RW. As SI's, PC's cycles are those of a
 * doubled graph: x0 (arrived by S, or start) and x1 (arrived by W or A);
 * S u -> w is u0 -> w0 and u1 -> w0, W u -> w is u0 -> w1 and u1 -> w1,
 * A u -> w is u0 -> w1 only (an RW edge must follow an S edge). A closed
 * walk of it is a cycle whose every A edge follows an S edge, which is a
 * cycle of DEP ∪ S;A, and back. The theory's twin encoding (WW to the
 * twin, encode.h) is exact for any edge set, so the theory on the reduced
 * edges R finds a cycle iff R's doubled graph has one. x0 dominates x1 (x1's
 * out-edges are x0's, from the same user edges), and links (SO, an S edge)
 * reach the next node's 0 from both states.
 *
 * Rules, per source u and target chain C (links and self-loops kept);
 * mS, mW, mA: the earliest positions of u's S, W, A edges into C:
 *   1. keep the S edge at mS (a link first) unless mW < mS; the W edge at
 *      mW if mS > mW; the A edge at mA if mA < min(mS, mW); drop u's
 *      other edges into C;
 *   2. drop an edge u -> w (position p) if a later node s of u's chain
 *      has an S edge into C at a position <= p, or a W or an A edge at a
 *      position < p (<= p when u -> w is W or A).
 * Claim: for each dropped edge, R's doubled graph has a path from each
 * state the edge leaves to the state it enters or to the target's 0.
 * Rule 1, with the kept edge k at the position q <= p: a dropped S (from
 * u0, u1 to w0) by a kept S (q <= p: k reaches q0, links reach w0) or a
 * kept W with q < p (k reaches q1, the link out of q reaches q+1's 0 <=
 * p); a dropped W (to w1) by a kept S or W at q <= p (q == p: k reaches w0
 * or w1; q < p: links reach w0); a dropped A (from u0 only) likewise by a
 * kept S, W or A. One of the S and W edges at min(mS, mW) is always kept,
 * and no S or W edge is ever dropped for an A edge (u1 has none). Rule 2:
 * the links take u0 or u1 to s0, which has all of s's edges; the claim
 * for s's edge (chains are walked from their end, so it holds already)
 * reaches its target v or v0; v < w links on to w0, and v == w reaches
 * w0, or w1 by a W or an A edge, which suffices unless u -> w is S. A
 * cycle of G's doubled graph then becomes a closed walk of R's, standing
 * at each node or its dominator (as for SI above), hence a cycle; and R's
 * cycles are G's.
 *   Paths too, which PC's pruning reads (prune/level_pc.h): y reaches p
 * over DEP ∪ S;A exactly when G's doubled graph has a path from y1 (it
 * cannot start with A) to p0 or p1. The claim takes such a path, edge by
 * edge, to a walk of R's doubled graph from y1 to p0 or p1 (each step
 * ends at its target or at its dominator, the same transaction), and R's
 * paths are G's: every transaction reaches the same ones in R as in G. */

/* Dropped edges stay dropped (psi_known_packed_drop). Let G' be G with
 * edges appended, none an SO edge of the history (the chains and
 * positions stay), and D the edges the PC rules drop in G. Claim: the
 * rules keep the same edges in G' as in G' \ D. Appending only lowers the
 * minima own[t] and later[t], and the earliest record of a kind (`at`) is
 * G's or a new one.
 *   (1) D stays dropped in G': an edge that is not `at` stays so; rule 2's
 * test only gets easier as later[] falls; rule 1 drops S when mW < mS, W
 * when mS <= mW, A when mA >= min(mS, mW), each kept true as the others'
 * minima fall.
 *   (2) Taking D out changes no other edge's fate. own[t] in G' \ D rises
 * only when t's `at` a (position p) is in D. If a was dropped by rule 1,
 * the kind that beat it is at a position <= p and gives every rule-1
 * comparison the same answer (S beaten by W: W's and A's tests compare
 * with min(mS, mW) = mW; W beaten by S likewise with mS; A is in nobody's
 * test but its own). If a was dropped by rule 2, every edge e' of u that a
 * beat by rule 1 (kind t', position p' >= p, > p where rule 1 asks <) is
 * implied too: a's implying later[] entry (<= p, or < p) is <= p' (< p'
 * where e' asks <), case by case over S, W, A. later[t] rises only when
 * its minimum came from a node s's `at` edge a_s (position q) in D: a_s
 * beaten by rule 1 leaves at s a stronger-or-equal kind at a position <= q
 * that implies whatever a_s implied (an S or W at <= q for an S; S at <= q
 * for a W; S or W at <= q for an A), and a_s implied by rule 2 has a node
 * after s whose entry implies whatever a_s implied, again case by case.
 * Each step goes to another kind of the same node (at most two, as S and
 * W cannot beat each other) or to a later node, so it ends at an edge not
 * in D, which G' \ D has. Hence every decision is the same, and by
 * induction over rounds, marking a packing that dropped each round's D
 * keeps what marking every edge keeps (debug builds compare, level_pc.c). */

static int pc_kind(psi_edge_type type)
{
    if (psi_edge_is_anti(type))
        return PC_A;
    return type == PSI_EDGE_WW ? PC_W : PC_S;
}

/* PC's rules above for u's edge of kind t at position p, the earliest of
 * its kind from u into the chain (not a link or self-loop). own / later:
 * u's and its later nodes' earliest positions into the chain. */
static bool pc_kept(int t, uint32_t p, const uint32_t *own, const uint32_t *later)
{
    bool implied = later[PC_S] <= p || (t == PC_S ? later[PC_W] < p || later[PC_A] < p
                                                  : later[PC_W] <= p || later[PC_A] <= p);
    if (implied)
        return false;
    if (t == PC_S)
        return !(own[PC_W] < own[PC_S]);
    if (t == PC_W)
        return own[PC_S] > own[PC_W];
    return own[PC_A] < own[PC_S] && own[PC_A] < own[PC_W];
}

void psi_known_packed_drop(psi_known_packed *p, const uint64_t *keep)
{
    uint32_t w = 0;
    for (uint32_t v = 0; v < p->n_nodes; v++) {
        uint32_t b = p->off[v], e = p->off[v + 1];
        p->off[v] = w;
        for (uint32_t j = b; j < e; j++) {
            uint32_t i = p->rec[j].idx;
            if (keep[i / 64] >> (i % 64) & 1u)
                p->rec[w++] = p->rec[j];
        }
    }
    p->partial |= w < p->off[p->n_nodes];
    p->off[p->n_nodes] = w;
}

bool psi_known_packed_mark(const psi_known_packed *p, psi_reduce_rules which, uint64_t *keep)
{
    rules r = {.ser = which == PSI_RULES_SER, .pc = which == PSI_RULES_PC};
    r.shift = r.pc ? 0 : 2;
    r.mask = r.pc ? 3 : r.ser ? 0 : 1;
    return mark_kept(p, &r, keep);
}

bool psi_known_mark_kept(const psi_polygraph *g, psi_reduce_rules which, uint64_t *keep)
{
    psi_known_packed p = {0};
    bool ok = psi_known_packed_update(&p, g) && psi_known_packed_mark(&p, which, keep);
    psi_known_packed_free(&p);
    return ok;
}
