/* Real time (issue 15, Jepsen histories): under strict-ser and strong-si a
 * transaction that completed before another was invoked precedes it in
 * the commit order (strong SI: is in its snapshot). Such a pair is a known
 * DEP edge (SO-typed, origin PSI_FROM_REALTIME) of the polygraph, added
 * before pruning like any fact of the history.
 *
 * Sparsely: a sweep over invoke and completion events in time order keeps
 * a frontier, the completed transactions no later completed transaction
 * already follows in real time. Each invoked transaction gets an edge from
 * every member of the frontier; when it completes it replaces the members
 * it got edges from. Every real-time pair is then a path of such edges
 * (by induction on completion time), and DEP paths stand for their ends
 * under both SER and SI (a path of DEP edges adds no RW edge to a cycle).
 * Members of the frontier pairwise overlap in time, so it holds at most
 * as many transactions as ran at once (plus those whose invoke is not
 * known): O(n·c) edges for c concurrent transactions, never O(n²) pairs.
 *
 * Only committed transactions take part (aborted ones are in no order);
 * an indeterminate one settled as committed has an open completion.
 *
 * Ownership: nothing is kept; the edges go into the caller's polygraph. */
#ifndef PSI_CHECK_REALTIME_H
#define PSI_CHECK_REALTIME_H

#include "core/diag.h"
#include "core/history.h"
#include "core/polygraph.h"

#include <stdint.h>

/* Adds the real-time edges of h (h->rt must not be NULL) to g; *n_added
 * says how many. */
psi_status psi_rt_constrain(const psi_history *h, psi_polygraph *g, uint64_t *n_added, psi_diag *d);

/* The same sweep for any consumer (verify-witness builds its own graph):
 * fn(ctx, from, to) for every edge, in sweep order; its error stops the
 * sweep and is returned. */
typedef psi_status (*psi_rt_edge_fn)(void *ctx, uint32_t from, uint32_t to);
psi_status psi_rt_edges(const psi_history *h, psi_rt_edge_fn fn, void *ctx, psi_diag *d);

/* Whether a precedes b in real time (history.h). */
static inline int psi_rt_precedes(const psi_history *h, uint32_t a, uint32_t b)
{
    return h->rt && h->rt[a].complete < h->rt[b].invoke;
}

#endif
