/* The dependency-graph kernel: adjacency (CSR) built once from an edge
 * list, plain or as the SI doubled graph, with the questions every stage
 * asks of it: a topological order, a node on a cycle or a whole cycle when
 * there is no order, and shortest paths and cycles for reports.
 *
 * Vertices are transactions (or a sub-history's local nodes); edges are
 * psi_edge values, DEP (SO/WR/WW) or ANTI (RW) by their type. Nodes are
 * what the questions are asked about:
 *   plain (SER): node v is vertex v, every edge is an edge;
 *   SI (design decision 3): vertex v has node 2v, v0 "arrived by DEP or at
 *     the start", and node 2v+1, v1 "arrived by RW"; DEP u->v gives u0->v0
 *     and u1->v0, RW u->v gives u0->v1. A cycle of this doubled graph is
 *     exactly a cycle without two consecutive RW edges: forbidden under SI.
 * The doubled graph is never materialized: out-edges are kept once per
 * input edge, in rows per vertex and kind (the DEP rows of all vertices,
 * then their RW rows), and the nodes' successors are read off them.
 *
 * Successor order (it decides which of several shortest paths is found, so
 * reports depend on it): within a row, edge-list order; a v0 node lists its
 * DEP row, then its RW row, unless PSI_GRAPH_EDGE_ORDER merges the two in
 * edge-list order.
 *
 * Ownership: psi_graph_build allocates the rows, psi_graph_free releases
 * them; the edge list is read during the build only. psi_graph_bfs is a
 * caller-owned workspace for repeated path searches on graphs of at most
 * the node count it was made for. */
#ifndef PSI_CORE_GRAPH_H
#define PSI_CORE_GRAPH_H

#include "core/diag.h"
#include "core/polygraph.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PSI_NO_NODE UINT32_MAX

/* Edges read in place: edge i is the psi_edge at first + i * stride bytes,
 * so arrays of larger records that contain a psi_edge need no copy. */
typedef struct psi_edge_view {
    const psi_edge *first;
    size_t stride;         /* bytes between edges; 0 means sizeof(psi_edge) */
    uint64_t n;            /* edges (at most UINT32_MAX: edge ids are 32-bit) */
    const uint8_t *active; /* NULL: every edge; else only edges with active[i] != 0 */
} psi_edge_view;

static inline const psi_edge *psi_edge_view_at(const psi_edge_view *v, uint64_t i)
{
    size_t stride = v->stride ? v->stride : sizeof(psi_edge);
    return (const psi_edge *)(const void *)((const char *)v->first + i * stride);
}

enum psi_graph_flags {
    PSI_GRAPH_SI = 1u << 0,         /* the doubled graph (else plain) */
    PSI_GRAPH_EDGE_ORDER = 1u << 1, /* v0's DEP and RW successors merged in edge-list order */
    PSI_GRAPH_IN = 1u << 2,         /* also index every edge by its target */
    PSI_GRAPH_IN_ANTI = 1u << 3,    /* SI: also index the RW edges (only) by target */
    /* plain, with PSI_GRAPH_IN: the in-index alone, no out-edges (off,
     * dst, eid stay NULL), for callers that look edges up by target only */
    PSI_GRAPH_IN_ONLY = 1u << 4,
};

typedef struct psi_graph {
    uint32_t n_vertices;
    uint32_t n_nodes; /* 2 * n_vertices (SI) or n_vertices */
    unsigned flags;   /* psi_graph_flags */
    uint64_t n_edges; /* edges taken from the view (active ones) */
    /* Out-edges, CSR: row v (plain) or rows v (DEP) and n_vertices + v
     * (RW) (SI). */
    uint64_t *off; /* [rows + 1] */
    uint32_t *dst; /* target vertex */
    uint32_t *eid; /* index of the edge in the view */
    /* In-edges by target, when asked for: plain or PSI_GRAPH_IN_ANTI: row v;
     * SI with PSI_GRAPH_IN: rows v (DEP) and n_vertices + v (RW). NULL
     * otherwise. */
    uint64_t *in_off;
    uint32_t *in_src; /* source vertex */
    uint32_t *in_eid;
    /* Room of the arrays above, in entries (psi_graph_rebuild reuses
     * them): off, dst and eid; in_off, in_src and in_eid. */
    uint64_t room_off, room_edges, room_in_off, room_in_edges;
} psi_graph;

/* Builds the rows from the view's (active) edges over vertices
 * 0..n_vertices-1. PSI_ERR_LIMIT if the node or edge count exceeds 32 bits,
 * PSI_ERR_NOMEM when out of memory (then g holds nothing to free). */
psi_status psi_graph_build(psi_graph *g, uint32_t n_vertices, const psi_edge_view *v,
                           unsigned flags, psi_diag *d);
/* psi_graph_build into the arrays of g, an earlier build's (or a zeroed
 * graph), kept where they have room: pruning rebuilds a graph of tens of
 * millions of edges every round, and fresh arrays cost the kernel a page
 * fault and a cleared page per 4 KiB each time. An edge array that must
 * grow gets room for edge_room edges when that is more than it needs
 * (only the pages written are ever resident, so room costs address space,
 * not memory). Same graph as psi_graph_build; on error g holds nothing. */
psi_status psi_graph_rebuild(psi_graph *g, uint32_t n_vertices, const psi_edge_view *v,
                             unsigned flags, uint64_t edge_room, psi_diag *d);
/* g built (psi_graph_build, _rebuild or _extend) from the first `from`
 * edges of v, the same edges with the same active marks: adds edges
 * [from, v->n) with g's flags, and g is then exactly what psi_graph_build
 * over all of v gives (a row lists its edges in edge-list order, and the
 * new ones come last). For pruning's rounds, whose known edges only grow
 * at the end: the rows move once, in order, instead of every edge being
 * counted and scattered again. Arrays that must grow get room for
 * edge_room edges when that is more. On error g holds nothing. */
psi_status psi_graph_extend(psi_graph *g, const psi_edge_view *v, uint64_t from, uint64_t edge_room,
                            psi_diag *d);
void psi_graph_free(psi_graph *g);
size_t psi_graph_bytes(const psi_graph *g);

/* Out-edges of vertex v of one kind (SI; plain graphs have one row per
 * vertex and take anti == false): entries [*b, *e) of dst/eid. */
static inline void psi_graph_out(const psi_graph *g, uint32_t v, bool anti, uint64_t *b,
                                 uint64_t *e)
{
    assert(g->off);
    uint64_t row = (g->flags & PSI_GRAPH_SI) && anti ? (uint64_t)g->n_vertices + v : v;
    *b = g->off[row];
    *e = g->off[row + 1];
}

/* In-edges of vertex v of one kind, as above for in_src/in_eid (with
 * PSI_GRAPH_IN_ANTI alone, anti must be true). */
static inline void psi_graph_in(const psi_graph *g, uint32_t v, bool anti, uint64_t *b, uint64_t *e)
{
    assert(g->in_off && ((g->flags & PSI_GRAPH_IN) || anti));
    uint64_t row = (g->flags & PSI_GRAPH_SI) && (g->flags & PSI_GRAPH_IN) && anti
                       ? (uint64_t)g->n_vertices + v
                       : v;
    *b = g->in_off[row];
    *e = g->in_off[row + 1];
}

/* Iterating the successors of node x over real edges (see the order
 * above). */
typedef struct psi_graph_succ {
    const psi_graph *g;
    uint64_t i, i_end; /* DEP row (or the plain row) */
    uint64_t j, j_end; /* RW row (v0 nodes of SI only) */
} psi_graph_succ;

void psi_graph_succ_begin(psi_graph_succ *it, const psi_graph *g, uint32_t x);
/* Next successor node *y through edge *eid; false when there are no more. */
bool psi_graph_succ_next(psi_graph_succ *it, uint32_t *y, uint32_t *eid);

/* Kahn's algorithm (FIFO, sources in node order): order[0..*n_ordered) is
 * a topological order of the nodes it could order (order has room for
 * n_nodes); *n_ordered < n_nodes iff the graph has a cycle.
 *
 * free_edge (SI only) sorts the equivalent graph in which u0 -> u1 is an
 * edge and u's DEP edges leave from u1 only: u0 reaches exactly the nodes
 * it reached before and the graph has a cycle exactly when the doubled one
 * does (a cycle through u0 -> u1 can skip u1), every DEP edge is relaxed
 * once instead of twice, and its order, also an order of the doubled graph,
 * puts every u0 before u1. The nodes it cannot order may differ from the
 * doubled graph's, which is what psi_graph_cycle_back needs. */
psi_status psi_graph_topo(const psi_graph *g, bool free_edge, uint32_t *order, uint32_t *n_ordered,
                          psi_diag *d);
/* The same with the caller's scratch for the in-degrees (n_nodes
 * entries, any contents; NULL: allocated here), for callers that sort
 * large graphs repeatedly. */
psi_status psi_graph_topo_scratch(const psi_graph *g, bool free_edge, uint32_t *order,
                                  uint32_t *n_ordered, uint32_t *indeg, psi_diag *d);

/* A node on a cycle of real edges, given a failed psi_graph_topo (either
 * kind): a depth-first search over the nodes it could not order, from the
 * lowest, stopping at the first back edge. */
psi_status psi_graph_cycle_node(const psi_graph *g, const uint32_t *order, uint32_t n_ordered,
                                uint32_t *node, psi_diag *d);

/* A cycle of real edges, given a failed psi_graph_topo(g, false, ...) on a
 * graph built with in-edges (PSI_GRAPH_IN): from the lowest node left
 * unordered, step back to the first unordered predecessor (in-edge order;
 * for v0, u0 before u1 of each DEP edge) until a node repeats. Writes the
 * cycle's edge ids in cycle order to cyc (room for n_nodes) and its length
 * to *len. Linear time; not necessarily a shortest cycle. */
psi_status psi_graph_cycle_back(const psi_graph *g, const uint32_t *order, uint32_t n_ordered,
                                uint32_t *cyc, uint32_t *len, psi_diag *d);

/* Breadth-first search workspace for graphs of up to n nodes. */
typedef struct psi_graph_bfs {
    uint32_t n;
    uint32_t *pnode, *pedge, *queue;
    uint32_t *path; /* scratch of psi_graph_shortest_cycle */
    uint8_t *seen;
} psi_graph_bfs;

psi_status psi_graph_bfs_init(psi_graph_bfs *w, uint32_t n_nodes, psi_diag *d);
void psi_graph_bfs_free(psi_graph_bfs *w);

/* A shortest path (in edges) from node `from` to whichever of nodes to_a,
 * to_b (PSI_NO_NODE: none) an edge reaches first; from == to_a gives a
 * shortest cycle through from. Writes its edge ids in order to path (room
 * for n_nodes) and returns its length, 0 when there is none. */
uint32_t psi_graph_path(const psi_graph *g, psi_graph_bfs *w, uint32_t from, uint32_t to_a,
                        uint32_t to_b, uint32_t *path);

/* The shortest forbidden cycle an edge u -> v (anti: RW) would close with
 * the graph: a path from the node the edge enters (SI: v1 for RW, else v0)
 * back to a node of u that may take the edge (SI: u0 for RW; u0 or u1 for
 * DEP, whichever is reached first). Returns its length as psi_graph_path. */
uint32_t psi_graph_closing_path(const psi_graph *g, psi_graph_bfs *w, uint32_t u, uint32_t v,
                                bool anti, uint32_t *path);

/* The shortest forbidden cycle through at least one edge of the view the
 * graph was built from whose through[i] is set (NULL: any), as edge ids:
 * out[0] is that edge, then the path back (out has room for n_nodes + 1).
 * Ties go to the first such edge in view order. Returns its length, 0 when
 * there is none. */
uint32_t psi_graph_shortest_cycle(const psi_graph *g, psi_graph_bfs *w, const psi_edge_view *v,
                                  const uint8_t *through, uint32_t *out);

#endif
