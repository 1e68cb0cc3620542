/* The known edges the acyclicity theory needs (issue 17 item 4).
 *
 * Most known edges are implied by others: a transaction's WR, WW and RW
 * edges into one session mostly reach that session at several points,
 * and every point after the first is reachable from the first by session
 * order. psi_reduce_known keeps the session-order chain and, per source
 * transaction and target chain, only the edges that no other edge of the
 * source, or of a later transaction of its session, implies through that
 * chain; the theory then detects exactly the same cycles (proof in
 * reduce.c) with a fraction of the edges.
 *
 * Internal to encode/ (encode.c, and white-box tests). */
#ifndef PSI_ENCODE_REDUCE_H
#define PSI_ENCODE_REDUCE_H

#include "core/diag.h"
#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* The indices into g->known of the edges to hand the theory, ascending,
 * in *kept (malloc'd, the caller frees) with their number in *n_kept.
 * `ser`: the theory runs plain acyclicity (every edge alike); otherwise
 * SI's doubled graph (DEP and ANTI differ, reduce.c). *kept is NULL (and
 * *n_kept g->n_known) when nothing is dropped or the polygraph is too
 * large for 32-bit edge indices: the caller then hands over every edge.
 *
 * key (may be NULL: not wanted): when edges are dropped, *key (malloc'd,
 * g->n_nodes entries, the caller frees; else NULL) gets the theory's sort
 * keys (psi_acyc_set_order_hint) from every known edge: node v's depth,
 * the longest path of known edges to it (SI: to v0). The theory would
 * take depths from the edges it has, and a reduced graph's order differs
 * from the whole one's; the solver's phases and decision order come from
 * that order, and on the reduced one they were far worse (10k
 * transactions, values 1..4, SI: 7.0 M decisions against 0.7 M). */
psi_status psi_reduce_known(const psi_polygraph *g, bool ser, uint32_t **kept, uint64_t *n_kept,
                            uint32_t **key, psi_diag *d);

/* The same for PC's twin graph (encode.h): the rules and why the theory
 * finds the same cycles are in reduce.c ("Prefix consistency"). */
psi_status psi_reduce_known_pc(const psi_polygraph *g, uint32_t **kept, uint64_t *n_kept,
                               psi_diag *d);

/* The same for PSI (encode.h): the DEP edges reduced among themselves
 * with SER's rules (their transitive closure unchanged), every RW edge
 * kept. */
psi_status psi_reduce_known_dep(const psi_polygraph *g, uint32_t **kept, uint64_t *n_kept,
                                psi_diag *d);

#endif
