/* The acyclicity theory (psi_acyc_*): a directed graph whose edges are
 * switched on by literals, kept acyclic during search.
 *
 * Each edge has a kind (DEP or ANTI) and a label of zero, one or two
 * literals; it is active when all its label literals are true. Unlabelled
 * ("known") edges are always active. Modes:
 *   PSI_ACYC_SER: no cycle of active edges at all.
 *   PSI_ACYC_SI:  no cycle of active edges without two cyclically
 *                 consecutive ANTI edges (a cycle in DEP ∪ DEP;ANTI).
 *   PSI_ACYC_PSI: see the enum below.
 * SI is checked as plain acyclicity of a doubled graph (node v becomes v0
 * "arrived by DEP or start" and v1 "arrived by ANTI"; DEP u->v gives u0->v0
 * and u1->v0, ANTI u->v gives u0->v1), so no SAT variable is created for
 * composed edges.
 *
 * Use from encode/:
 *     psi_sat *s = psi_sat_new();
 *     psi_acyc *g = psi_acyc_new(s, n, PSI_ACYC_SI);   // attaches as s's theory
 *     psi_acyc_add_edge(g, a, b, PSI_EDGE_DEP, 0, 0);   // known edge
 *     psi_acyc_add_edge(g, a, b, PSI_EDGE_ANTI, c, 0);  // active iff c
 *     psi_acyc_add_edge(g, a, b, PSI_EDGE_DEP, c, d);   // active iff c && d
 *     ... clauses over the selector variables ...
 *     r = psi_sat_solve(s);
 *     SAT:   psi_acyc_edge_active(g, e) tells which edges the model switched on.
 *     UNSAT: psi_acyc_known_cycle(g, ...) if the known edges alone are cyclic,
 *            psi_acyc_conflict_cycle(g, ...) for the cycle of the last theory
 *            conflict (the one that proved UNSAT when the final conflict came
 *            from the theory), psi_sat_final_conflict for assumptions.
 *     psi_sat_free(s); psi_acyc_free(g);   // either order
 *
 * Edges may be added between solves, never during one. Known edges are best
 * added before the first solve: they are then ordered by one static
 * topological sort instead of incremental insertion. Ownership: the graph is
 * allocated by psi_acyc_new and freed by psi_acyc_free; arrays returned by
 * queries belong to the graph and stay valid until its next modification. */
#ifndef PSI_SOLVER_ACYCLIC_H
#define PSI_SOLVER_ACYCLIC_H

#include "sat.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct psi_acyc psi_acyc;

/* PSI_ACYC_PSI (parallel SI): no cycle of active DEP edges, and no
 * active ANTI edge u->v whose head v reaches u over active DEP edges (a
 * cycle with exactly one ANTI edge). The second part is checked when an
 * ANTI edge becomes active and, by default, when a DEP edge does (the
 * edge completes such a path exactly when the ANTI edge's head reaches
 * its source and its target reaches the ANTI edge's tail), so every such
 * cycle is found the moment its last edge goes in and a SAT answer has
 * none (psi_acyc_set_psi_eager turns the DEP side off; a caller then
 * checks each model for the rest, as check/level_psi.h does anyway).
 * Every conflict it reports is a real one. Internally an ANTI edge goes
 * to a sink node of the theory's own (so it bounds nothing in the
 * order); RELAY edges are refused. */
typedef enum psi_acyc_mode { PSI_ACYC_SER = 0, PSI_ACYC_SI = 1, PSI_ACYC_PSI = 2 } psi_acyc_mode;
/* RELAY edges carry a path on unchanged: in SI mode u->v gives u1->v1
 * only (a path that arrived at u by ANTI arrives at v by ANTI), in SER
 * mode the plain edge. They let a caller split an ANTI edge r->s through
 * a node N of its own (r ->ANTI N ->RELAY s, N reached by nothing else
 * but ANTI edges): r0->N1->s1 is the doubled graph's r0->s1, so the cycles
 * through N are exactly those of the composed ANTI edges r->s, and many
 * sources times many targets cost sources + targets edges. A relay edge
 * has no say in psi_acyc_suggest_phases' vote (its endpoints are not the
 * composed edge's). */
typedef enum psi_edge_kind {
    PSI_EDGE_DEP = 0,
    PSI_EDGE_ANTI = 1,
    PSI_EDGE_RELAY = 2
} psi_edge_kind;

typedef struct psi_acyc_stats {
    uint64_t activations;       /* internal edges switched on during search */
    uint64_t reorders;          /* activations that needed the order repaired */
    uint64_t moved;             /* nodes these reorders moved */
    uint64_t relabels;          /* reorders that relabelled neighbours for room */
    uint64_t relabelled;        /* nodes relabelled by those */
    uint64_t visited;           /* nodes visited by the searches */
    uint64_t conflicts;         /* cycles found */
    uint64_t psi_conflicts;     /* PSI mode: of those, an ANTI edge whose head reaches its tail */
    uint64_t psi_dep_searches;  /* PSI mode: DEP activations searched for such a cycle */
    uint64_t psi_dep_conflicts; /* PSI mode: of psi_conflicts, found by those */
    uint64_t conflict_lits;     /* total length of the conflict clauses */
    uint64_t propagations;      /* labels set false because they would close a cycle */
    uint64_t explanations, explanation_lits;
    uint64_t bytes; /* memory the graph holds (psi_acyc_get_stats fills it in) */
} psi_acyc_stats;

/* Creates a graph of nodes 0..nodes-1 and attaches it to s as its theory.
 * NULL when out of memory or nodes is too large. */
psi_acyc *psi_acyc_new(psi_sat *s, uint32_t nodes, psi_acyc_mode mode);

/* Frees the graph without touching the solver (so either may go first).
 * A solver whose graph was freed must not solve again unless the theory
 * is detached with psi_sat_set_theory(s, NULL) (theory.h). */
void psi_acyc_free(psi_acyc *g);

/* Adds an edge; lit_a / lit_b are DIMACS literals or 0 for none. Returns
 * the edge id (0, 1, 2, ... in order of addition) or a negative
 * PSI_SAT_ENOMEM / PSI_SAT_EINVAL (bad node or literal). */
int64_t psi_acyc_add_edge(psi_acyc *g, uint32_t from, uint32_t to, psi_edge_kind kind, int lit_a,
                          int lit_b);

/* An order hint for the static sort of the known edges: key[v] (copied)
 * places user node v among the nodes the known edges leave free to go
 * next, lower keys first (SI: both of v's copies; ties by node). Without
 * one the sort goes by depth, the longest path of known edges to a node.
 * For a caller that hands the theory only some of its known edges (a
 * reduction that keeps the same cycles): keys from the whole known graph
 * give the order, hence the phase hints and decision order below, that
 * the whole graph would, where depths in the reduced graph can differ
 * widely. Any keys are sound: the order stays topological. Before the
 * first solve and psi_acyc_suggest_phases only. Returns 0, PSI_SAT_ENOMEM
 * or PSI_SAT_EINVAL (the order is already made). */
int psi_acyc_set_order_hint(psi_acyc *g, const uint32_t *key);

/* Phase hints from the known edges: orders them now (the sort the first
 * solve would do anyway) and, for every variable that labels edges on its
 * own, suggests to the solver (psi_sat_set_phase) the polarity whose edges
 * agree with that order more often than they disagree. The search then
 * starts from the choice that needs the fewest reorders and has the best
 * chance to be acyclic. Call after adding the known and labelled edges,
 * before solving. Returns 0 or PSI_SAT_ENOMEM. */
int psi_acyc_suggest_phases(psi_acyc *g);

/* PSI mode: whether DEP activations are checked for cycles of one ANTI
 * edge (the default) or only ANTI activations are (for tests of a
 * caller's own model check). Between solves; turning it on returns the
 * solver to the root (psi_sat_root), so the next solve checks all. */
void psi_acyc_set_psi_eager(psi_acyc *g, bool on);

/* Theory propagation (label := false when the edge would close a forbidden
 * cycle); on by default. Only between solves. */
void psi_acyc_set_propagation(psi_acyc *g, bool on);

/* The user-edge ids of the cycle behind the most recent theory conflict, in
 * cycle order (each edge's target is the next edge's source), or n = 0. */
const uint32_t *psi_acyc_conflict_cycle(const psi_acyc *g, size_t *n);

/* Standalone: is there a forbidden cycle among known (unlabelled) edges?
 * Returns 1 and the cycle (user-edge ids, cycle order), 0 if none, or
 * PSI_SAT_ENOMEM. */
int psi_acyc_known_cycle(psi_acyc *g, const uint32_t **edges, size_t *n);

/* After a SAT answer: is edge e active in the model? */
bool psi_acyc_edge_active(const psi_acyc *g, uint32_t e);

/* After a SAT answer (or between solves): node v's place in the order the
 * theory keeps, a label that is smaller for every node before it (SI
 * mode: v's copy v0). Every active DEP edge x -> y has
 * psi_acyc_node_order(x) < psi_acyc_node_order(y), so a node never reaches
 * one with a smaller label over active DEP edges: callers use it to skip
 * reachability searches that cannot succeed. */
uint64_t psi_acyc_node_order(const psi_acyc *g, uint32_t v);

size_t psi_acyc_num_edges(const psi_acyc *g);
void psi_acyc_get_stats(const psi_acyc *g, psi_acyc_stats *out);

#endif
