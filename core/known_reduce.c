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
 * Cost: linear in nodes + known edges; temporary memory about 60 bytes
 * per node. */
#include "core/known_reduce.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

enum { LINK_OUT = 1, LINK_IN = 2 };

/* chain[v], pos[v]: v's chain and place in it; order: the nodes chain by
 * chain in chain order, chain k at order[start[k] .. start[k + 1]). */
typedef struct chains {
    uint32_t *chain, *pos, *order, *start;
    uint32_t n;
} chains;

static bool so_candidate(const psi_edge *e)
{
    return e->type == PSI_EDGE_SO && e->origin == PSI_FROM_HISTORY && e->from != e->to;
}

/* Links and chains (above). Returns false on ENOMEM. */
static bool build_chains(const psi_polygraph *g, chains *c)
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
        c->n = 0;
        uint32_t placed = 0;
        /* Each chain from its start (no link in); a start is never
         * reached again, as every node has at most one link in. */
        for (uint32_t v = 0; v < N; v++) {
            if (out_n[v] & LINK_IN)
                continue;
            c->start[c->n] = placed;
            uint32_t x = v, p = 0;
            for (;;) {
                assert(c->chain[x] == UINT32_MAX);
                c->chain[x] = c->n;
                c->pos[x] = p++;
                c->order[placed++] = x;
                if (!(out_n[x] & LINK_OUT))
                    break;
                x = succ[x];
            }
            c->n++;
        }
        /* Nodes on a cycle of links: chains of their own. */
        for (uint32_t v = 0; v < N; v++)
            if (c->chain[v] == UINT32_MAX) {
                c->start[c->n] = placed;
                c->chain[v] = c->n++;
                c->pos[v] = 0;
                c->order[placed++] = v;
            }
        assert(placed == N);
        c->start[c->n] = placed;
    }
    free(out_n);
    free(in_n);
    free(succ);
    return ok;
}

static bool is_link(const chains *c, const psi_edge *e)
{
    return so_candidate(e) && c->chain[e->from] == c->chain[e->to] &&
           c->pos[e->to] == c->pos[e->from] + 1;
}

/* The edge kinds the rules tell apart. SI: DEP (K_S) and ANTI (K_A1);
 * SER: every edge K_S; PC (below): S, W and A. K_S is the kind whose
 * earliest edge into a chain prefers a link. */
enum { K_S, K_A1 };
enum { PC_S = K_S, PC_W, PC_A, PC_KINDS };

/* Which rules mark_kept applies: SI's or SER's (ser), or PC's (pc). */
typedef struct rules {
    bool ser, pc;
    int kinds; /* kinds per chain entry: 2 (SI, SER) or 3 (PC) */
} rules;

/* Per target chain and kind, the earliest positions some edges reach
 * (UINT32_MAX: none) and, for a node's own edges, the edge at it; valid
 * while stamp says so. pos, at: [chain * kinds + kind]. */
typedef struct kind_row {
    uint32_t *stamp, *pos, *at;
} kind_row;

static bool row_new(kind_row *r, size_t C, int kinds)
{
    r->stamp = calloc(C, sizeof *r->stamp);
    r->pos = malloc(C * (size_t)kinds * sizeof *r->pos);
    r->at = malloc(C * (size_t)kinds * sizeof *r->at);
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
static uint32_t *row_touch(kind_row *r, uint32_t ch, uint32_t stamp, int kinds)
{
    uint32_t *p = r->pos + (size_t)ch * (size_t)kinds;
    if (r->stamp[ch] != stamp) {
        r->stamp[ch] = stamp;
        for (int t = 0; t < kinds; t++)
            p[t] = UINT32_MAX;
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

static int pc_kind(const psi_edge *e);
static bool pc_kept(int t, uint32_t p, const uint32_t *own, const uint32_t *later);

static int edge_kind(const rules *r, const psi_edge *e)
{
    if (r->pc)
        return pc_kind(e);
    return !r->ser && psi_edge_is_anti((psi_edge_type)e->type) ? K_A1 : K_S;
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
 * (a bitmap), given the edges grouped by source. Each chain is walked
 * from its end, `later` holding what the nodes after the current one
 * reach (rule 2) and `own` the current node's earliest edges per kind
 * (rule 1). Returns false on ENOMEM. */
static bool mark_kept(const psi_polygraph *g, const rules *r, const chains *c, const uint32_t *off,
                      const uint32_t *by_src, uint64_t *keep)
{
    int K = r->kinds;
    kind_row own = {0}, later = {0};
    size_t C = c->n ? c->n : 1;
    bool ok = row_new(&own, C, K) && row_new(&later, C, K);
    for (uint32_t k = 0; ok && k < c->n; k++) {
        for (uint32_t q = c->start[k + 1]; q-- > c->start[k];) {
            uint32_t u = c->order[q];
            /* u's own earliest edge of each kind (a link first) */
            for (uint32_t j = off[u]; j < off[u + 1]; j++) {
                uint32_t i = by_src[j];
                const psi_edge *e = &g->known[i];
                uint32_t ch = c->chain[e->to], p = c->pos[e->to];
                int t = edge_kind(r, e);
                uint32_t *o = row_touch(&own, ch, u + 1, K), *at = own.at + (size_t)ch * K;
                row_touch(&later, ch, k + 1, K);
                if (p < o[t] || (p == o[t] && t == K_S && is_link(c, e)))
                    o[t] = p, at[t] = i;
            }
            for (uint32_t j = off[u]; j < off[u + 1]; j++) {
                uint32_t i = by_src[j];
                const psi_edge *e = &g->known[i];
                size_t row = (size_t)c->chain[e->to] * K;
                int t = edge_kind(r, e);
                uint32_t p = c->pos[e->to];
                bool kept = e->from == e->to || is_link(c, e);
                if (!kept && own.at[row + t] == i)
                    kept = r->pc ? pc_kept(t, p, own.pos + row, later.pos + row)
                                 : si_kept(t, p, own.pos + row, later.pos + row);
                if (kept)
                    keep[i / 64] |= (uint64_t)1 << (i % 64);
            }
            /* u's edges become "later" for the nodes before u */
            for (uint32_t j = off[u]; j < off[u + 1]; j++) {
                const psi_edge *e = &g->known[by_src[j]];
                uint32_t *l = later.pos + (size_t)c->chain[e->to] * K;
                int t = edge_kind(r, e);
                if (c->pos[e->to] < l[t])
                    l[t] = c->pos[e->to];
            }
        }
    }
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

static int pc_kind(const psi_edge *e)
{
    if (psi_edge_is_anti((psi_edge_type)e->type))
        return PC_A;
    return e->type == PSI_EDGE_WW ? PC_W : PC_S;
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

bool psi_known_mark_kept(const psi_polygraph *g, psi_reduce_rules which, const uint32_t *off,
                         const uint32_t *by_src, uint64_t *keep)
{
    assert(g->n_known < UINT32_MAX);
    chains c = {0};
    rules r = {.ser = which == PSI_RULES_SER,
               .pc = which == PSI_RULES_PC,
               .kinds = which == PSI_RULES_PC ? PC_KINDS : 2};
    bool ok = build_chains(g, &c) && mark_kept(g, &r, &c, off, by_src, keep);
    free(c.chain);
    free(c.pos);
    free(c.order);
    free(c.start);
    return ok;
}
