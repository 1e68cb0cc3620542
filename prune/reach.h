/* Reachability over the known graph for pruning (see prune.h).
 *
 * Internal nodes: SER uses one node per transaction; SI two (v0 = 2v,
 * v1 = 2v+1; see prune.h). frontier row of internal node u: entry s is the
 * smallest position p (as in psi_txn.pos) such that u reaches the
 * transaction at position p of session s through at least one edge,
 * arriving at its v0 node (SER: at the node); UINT32_MAX when none. Because
 * consecutive committed transactions of a session are joined by SO (a DEP
 * edge), reaching position p means reaching every later committed position
 * too, so one number per session suffices.
 *
 * The edges are kept once per known edge, per transaction (not per internal
 * node): in SI a DEP edge u->v stands for both u0->v0 and u1->v0. Ordering
 * and frontiers use the equivalent graph where u0 -> u1 is a free edge,
 * u1 -> v0 for DEP and u0 -> w1 for RW: u0 then reaches exactly the v0
 * nodes it reached before, every DEP edge is processed once, and the graph
 * stays acyclic exactly when the doubled graph is (a cycle through u0 -> u1
 * can skip u1, since u0 has u1's edges too). Paths and cycles reported to
 * the caller use only real edges.
 *
 * The graph itself (rows, that topological order, cycles, paths) is core's
 * kernel (core/graph.h), which keeps exactly this per-transaction layout;
 * the frontiers are pruning's own.
 *
 * Ownership: psi_reach_build allocates; psi_reach_free releases. */
#ifndef PSI_PRUNE_REACH_H
#define PSI_PRUNE_REACH_H

#include "core/graph.h"
#include "core/history.h"
#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* How a build runs (psi_reach_build_cfg). The frontier is the same for
 * any thread count: each worker owns a fixed slice of the session columns
 * and computes it exactly as one thread would. */
typedef struct psi_reach_cfg {
    uint32_t threads; /* frontier workers; 0 or 1: the calling thread only */
    /* Workers run only on frontiers of at least this many cells (rows x
     * sessions); 0: whatever the size. Each worker walks every node and
     * edge for its columns, so on a small frontier they cost more CPU
     * than they save time (compute_frontier says how much). */
    uint64_t parallel_cells;
    /* Only the graph and its cycle check, no frontier (psi_reach_to and
     * psi_reach_row must not be called; paths and cycles work). */
    bool no_frontier;
    /* Optional: a frontier buffer kept across builds, so that rounds of
     * pruning do not map and fault in fresh pages each time. The build
     * borrows *buf (growing it, capacity in *cap, in cells); the caller
     * frees *buf after the last psi_reach_free of a build that used it. */
    uint32_t **buf;
    size_t *cap;
    /* Optional, with buf: how many known edges the rows in *buf were
     * computed from (0: none; the build sets it). Pruning's rounds only
     * append known edges, so a later build over the same history and graph
     * kind finds most rows unchanged: it recomputes only the rows of nodes
     * with a new edge out or a successor whose row changed, and gets the
     * same rows a fresh computation would (minima only fall as edges are
     * added; a row whose inputs are all unchanged is unchanged). The caller
     * resets it to 0 whenever the known array was not just appended to. */
    uint64_t *buf_edges;
    /* Optional: arrays kept across builds (psi_reach_keep), for the same
     * reason as buf: each build borrows them and psi_reach_free gives
     * them back. */
    struct psi_reach_keep *keep;
    /* With keep: the edges are the polygraph's known array, only appended
     * to since the last build that used keep with append (pruning's
     * rounds and their last cycle check), so the kept graph is extended
     * by the new edges (psi_graph_extend) instead of rebuilt: the same
     * graph. */
    bool append;
} psi_reach_cfg;

/* The graph's rows and the row numbers of the last build, their room
 * kept for the next (psi_reach_cfg.keep): pruning's rounds rebuild a graph
 * of up to tens of millions of edges each, and fresh arrays cost a page
 * fault and a cleared page per 4 KiB every round (the 10^6 history of
 * issue 17: half of all the check's page faults). Both are held through a
 * round anyway, so keeping them adds nothing to its peak. A zeroed value
 * is empty; psi_reach_keep_free releases it after the last psi_reach_free
 * of a build that used it. */
typedef struct psi_reach_keep {
    psi_graph graph;
    uint32_t *row_of; /* [room_nodes] */
    uint32_t room_nodes;
    /* Edges the graph's arrays get room for when they grow (0: exact):
     * pruning gives the polygraph's known-edge room, which its rounds
     * fill. */
    uint64_t edge_room;
    /* The known edges graph was built from by a build with
     * psi_reach_cfg.append (0: none, or another build since), and whether
     * they were masked to the DEP edges (psi_reach_build_dep). */
    uint64_t graph_of;
    bool graph_dep;
    /* With a frontier buffer (psi_reach_cfg.buf), the row numbers: rows
     * lie in the topological order of the build that computed them all,
     * so that a build's walk of that order reads them nearly in memory
     * order, not in 50 runs of a session each (transactions are numbered
     * by session); builds that reuse the rows keep the numbers. [room_map];
     * map_n nodes of which map_rows have rows. */
    uint32_t *row_map;
    uint32_t room_map, map_n, map_rows;
} psi_reach_keep;

void psi_reach_keep_free(psi_reach_keep *k);

typedef struct psi_reach {
    const psi_history *h;
    bool doubled; /* SI */
    uint32_t n;   /* internal nodes */
    uint32_t n_txns;
    uint32_t n_sessions;
    /* The known edges (ids are known-edge indices): SI: DEP and RW rows per
     * transaction, and the RW edges by target; SER: one row of every edge. */
    psi_graph graph;
    uint64_t n_rows;
    uint32_t *frontier; /* [n_rows * n_sessions], see above */
    uint32_t *row_of;   /* [n] frontier row of an internal node; UINT32_MAX for nodes of
                           transactions that take no part (aborted, unknown): they have
                           no edges, and skipping them keeps memory proportional to the
                           committed transactions */
    bool borrowed;      /* frontier belongs to the caller (psi_reach_cfg.buf) */
    /* An incremental build's (psi_reach_cfg.buf_edges) account of which
     * rows it changed: changed[x] is 0 when internal node x's row is the
     * same as the last build's (every column), so that a test that reads
     * only unchanged rows (and the graph's unchanged parts) answers as it
     * did then; [n], owned. NULL after a build from scratch: every row
     * counts as changed. */
    uint8_t *changed;
    /* graph and row_of are borrowed from there (psi_reach_cfg.keep), and
     * psi_reach_free gives them back; else NULL */
    struct psi_reach_keep *keep;
} psi_reach;

/* psi_reach_build (dep: psi_reach_build_dep) run as cfg says (NULL: one
 * thread, a frontier of its own). */
psi_status psi_reach_build_cfg(psi_reach *r, const psi_history *h, const psi_polygraph *g,
                               bool doubled, bool dep, const psi_reach_cfg *cfg,
                               uint32_t *cycle_node, psi_diag *d);

/* Builds the graph from the polygraph's known edges and, if it has no
 * forbidden cycle, the frontier. If it has one, returns PSI_OK with
 * *cycle_node set to an internal node on a cycle (else UINT32_MAX) and no
 * frontier. */
psi_status psi_reach_build(psi_reach *r, const psi_history *h, const psi_polygraph *g, bool doubled,
                           uint32_t *cycle_node, psi_diag *d);
/* The same over the DEP edges only (SO, WR, WW; plain, not doubled): for
 * levels whose forbidden cycles are not SER's or SI's (PC, PSI), a DEP
 * cycle is forbidden under every one of them, so pruning by it is sound. */
psi_status psi_reach_build_dep(psi_reach *r, const psi_history *h, const psi_polygraph *g,
                               uint32_t *cycle_node, psi_diag *d);
/* The same, plain, over the (active) edges of v instead of the known
 * graph, run as cfg says (NULL: one thread, a frontier of its own):
 * paths are ids of v (prune/level_pc.h composes edges). */
psi_status psi_reach_build_view(psi_reach *r, const psi_history *h, const psi_edge_view *v,
                                const psi_reach_cfg *cfg, uint32_t *cycle_node, psi_diag *d);
void psi_reach_free(psi_reach *r);

static inline uint32_t psi_reach_node(const psi_reach *r, uint32_t txn, int copy)
{
    return r->doubled ? 2 * txn + (uint32_t)copy : txn;
}

/* Does internal node u reach transaction t (its v0 node) by >= 1 edge? */
static inline bool psi_reach_to(const psi_reach *r, uint32_t u, uint32_t t)
{
    const psi_txn *tx = &r->h->txns[t];
    uint32_t row = r->row_of[u];
    if (tx->session == PSI_NO_SESSION || row == UINT32_MAX)
        return false; /* nothing reaches the initial transaction */
    return r->frontier[(uint64_t)row * r->n_sessions + tx->session] <= tx->pos;
}

/* The frontier row of internal node u (NULL for nodes that take no part). */
static inline const uint32_t *psi_reach_row(const psi_reach *r, uint32_t u)
{
    uint32_t row = r->row_of[u];
    return row == UINT32_MAX ? NULL : r->frontier + (uint64_t)row * r->n_sessions;
}

/* Does internal node u reach t1 (SI: t arrived at through an RW edge)? */
bool psi_reach_to_anti(const psi_reach *r, uint32_t u, uint32_t t);

/* Shortest path (in edges) from internal node `from` to internal node `to`
 * over real edges, as known-edge indices in *path (malloc'd, caller frees),
 * or *len = 0 if none. from == to finds a cycle through it. */
psi_status psi_reach_path(const psi_reach *r, uint32_t from, uint32_t to, uint32_t **path,
                          uint32_t *len, psi_diag *d);

/* A cycle through internal node u (which must lie on one), as known-edge
 * indices. */
psi_status psi_reach_cycle(const psi_reach *r, uint32_t u, uint32_t **path, uint32_t *len,
                           psi_diag *d);

size_t psi_reach_bytes(const psi_reach *r);

#endif
