/* Generating constraints without paying writers^2 per key: the first step
 * of pruning when the polygraph was built with constraints pending.
 *
 * Let P be the order "T reaches S in the known graph" on the writers of one
 * key (for SI: T0 reaches S0 in the doubled graph). A pair ordered by P is
 * already resolved (the other order closes a forbidden cycle), so it needs
 * no constraint; its consequences, T ->WW S and R ->RW S for every reader R
 * of T, are replaced by an equivalent sparse set: WW edges along the Hasse
 * diagram of P, and RW edges from T's readers to T's immediate successors
 * only. Every dropped edge is then implied by a kept one followed by a path
 * of DEP edges (a WW chain or session order), and replacing an edge by such
 * a path never turns a forbidden cycle into an allowed one, nor the
 * reverse: the sparse set is a subset of the full one. Readers of a key's
 * initial value are handled the same way, with the initial transaction as
 * the writer that precedes all others.
 *
 * Immediate successors are found per session, because every session's
 * writers of a key form an SO chain: T's successors in session B start at
 * the first writer at or after T's frontier position in B, and only those
 * first writers (at most one per session) are candidates, and of those
 * only the ones T's next writer in its own session does not reach (the
 * others are reached through it). Each session's writers are walked in
 * order, with one pointer per other session that only moves forward.
 *
 * Only pairs that P leaves unordered (a window per session, again found
 * from frontiers) become constraints. */
#ifndef PSI_PRUNE_SEED_H
#define PSI_PRUNE_SEED_H

#include "core/history.h"
#include "core/polygraph.h"
#include "prune/reach.h"

#include <stddef.h>

/* r must be built on g's current known graph (acyclic). Adds the sparse
 * forced edges as known edges (origin PSI_FROM_SEEDING, or
 * PSI_FROM_SEEDING_INIT for initial-value readers) and sets g's
 * constraints. */
psi_status psi_seed_constraints(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                psi_diag *d);

/* A key's frontier cells (writers x sessions that write it) are copied
 * into one dense block, so that seeding reads each writer's frontier row
 * once, up to this many cells; past it (a key written nearly everywhere
 * in a huge history) they are read from the frontier in place: the same
 * result with more cache misses, and no block as large as the frontier. */
#define PSI_SEED_BLOCK_CELLS ((size_t)1 << 22)

/* psi_seed_constraints with the block limit given (tests use 0 to take
 * the in-place path everywhere). */
psi_status psi_seed_constraints_cfg(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                    size_t block_cells, psi_diag *d);

/* Only the shared conditional RW edges (psi_cond_succ) seeding would add
 * for the open reads with a choice of writers, from the same sparse
 * successors: no constraint, no known edge. Each is a consequence of its
 * choice alone (a reader of T anti-depends on every writer P puts after
 * T), so pruning may exclude a choice by them before the constraints are
 * seeded; psi_seed_constraints derives them again, from a reach at least
 * as large, so the caller drops these first (g->n_csucc = 0). */
psi_status psi_seed_conditional(const psi_history *h, psi_polygraph *g, const psi_reach *r,
                                psi_diag *d);

#endif
