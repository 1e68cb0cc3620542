/* Conditional readers' RW edges routed through a relay node per write
 * (issue 11). Internal to encode/.
 *
 * A read with a choice of writers anti-depends on every transaction its
 * candidate write w is ordered before: R ->RW S iff R reads from w
 * (choice literal) and w's transaction precedes S on w's key (a
 * constraint side's selector, or known: seeding's shared edges,
 * psi_cond_succ). Given one theory edge per (reader, target) that is
 * readers x targets edges per write: on a 100k history with values 1..16
 * 4.3 GB. Routed, each reader gets one edge R -> N(w) labelled by its
 * choice and each target one edge N(w) -> S labelled by its side, so
 * readers + targets edges per write.
 *
 * Exactness. SER (plain acyclicity): a path R -> N(w) -> S is active iff
 * the composed edge R -> S is, and N(w) has no other edges, so the cycles
 * through N(w) are those of the composed edges, except when S is itself
 * one of w's readers (a transaction that reads w and overwrites it): S ->
 * N(w) -> S would be a cycle where the composed edge is the self-loop the
 * direct encoding leaves out. Such a target gets the direct edges from
 * the other readers instead.
 * SI (the doubled graph, solver/acyclic.h: v0 "arrived by DEP or
 * start", v1 "arrived by ANTI"): R -> N(w) is ANTI (R0 -> N1), N(w) -> S
 * is RELAY (N1 -> S1). N0 has no edges, N1 is entered only from copy-0
 * nodes and left only to copy-1 nodes, so every path through N1 is
 * R0 -> N1 -> S1, exactly the doubled graph's image of the composed ANTI
 * edge R -> S: the internal graph has the same cycles as the one with
 * the composed edges, and SI's rule (no two consecutive anti-dependency
 * edges) is kept. A self target S (S reads w) gives the path S0 -> N1 ->
 * S1, which the direct encoding does not have; it closes no new cycle: S1
 * is left only by S's DEP edges S1 -> Y0, each with a twin S0 -> Y0, so a
 * cycle through S0 -> N1 -> S1 -> Y0 gives the closed walk through S0 ->
 * Y0 without it (and a conflict clause through it is only weaker by the
 * extra literals, still implied). So self targets are routed under SI.
 *
 * A write is routed when it has at least two readers and two targets
 * (below that the direct edges are no more). Under PC and PSI, whose
 * theories move edge targets (encode.h), nothing is routed. */
#ifndef PSI_ENCODE_ROUTE_H
#define PSI_ENCODE_ROUTE_H

#include "encode/encode.h"

/* encode.c: adds one edge of a choice to the theory and to
 * enc->choice_edge (labels a, b; b may be 0); relay: a relay node's edge
 * out (PSI_EDGE_RELAY), else by type. */
bool psi_encode_choice_edge(psi_encoding *enc, uint32_t from, uint32_t to, psi_edge_type type,
                            bool relay, uint32_t key, int a, int b);

/* Plans the routing of g's conditional RW edges (before the theory is
 * created: it needs enc->n_relay more nodes): fills enc->route and
 * enc->n_relay. */
psi_status psi_route_plan(const psi_polygraph *g, psi_encoding *enc, bool ser, psi_diag *d);

/* Adds the planned edges (routed and direct) of every open constraint
 * side and shared conditional edge to the theory, after the choice
 * variables exist. False when out of memory. */
bool psi_route_emit(const psi_polygraph *g, psi_encoding *enc);

/* The order hint of relay node i (psi_acyc_set_order_hint): its write's
 * transaction's key, 0 for a key's initial value. */
uint32_t psi_route_hint(const psi_polygraph *g, const psi_encoding *enc, const uint32_t *key,
                        uint32_t i);

/* Joins the relayed halves R -> N, N -> S of a theory cycle (in cycle
 * order) into R ->RW S, in place, and drops a joined self-loop R -> R
 * (SI routes self targets; the rest is still a closed walk). Returns
 * the new length. */
uint32_t psi_route_join(const psi_encoding *enc, psi_edge *cycle, uint32_t n);

void psi_route_free(struct psi_route *r);

#endif
