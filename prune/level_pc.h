/* Prefix consistency's reachability for pruning (internal to prune/).
 *
 * PC forbids the cycles of DEP ∪ (SO ∪ WR);RW (encode.h): an RW edge may
 * close a forbidden cycle only right after an SO or WR edge. Pruning over
 * DEP alone (reach.h psi_reach_build_dep) sees only the cycles with at
 * most one RW edge next to the constraint's edge, and misses every cycle
 * with two RW edges elsewhere (a long fork, and most of what makes PC's
 * solver work hard). Here the known graph is DEP plus one composed edge
 * p -> y for every known SO or WR edge p -> x and known RW edge x -> y:
 * its paths are exactly PC's paths (each composed edge stands for the two
 * facts it is made of), so a cycle in it is a forbidden cycle of facts, and
 * an edge of a constraint's side that closes one with it is impossible.
 * Reaching further than DEP only makes more sides impossible, each
 * soundly, and more writer pairs ordered for seeding (seed.h: T reaching
 * S over PC's paths means S ->WW T closes a forbidden cycle).
 *
 * The composed edges come after the known ones in the view the reach is
 * built from (ids n_known and up); paths found in it are turned back into
 * known edges with psi_pc_path.
 *
 * Rounds: pruning only appends known edges, so x is kept from one round
 * to the next and each build composes only the pairs that involve a new
 * known edge, into the same buffers (rebuilding them from scratch every
 * round cost more than the composing: fresh pages to fault in each time).
 * The composed edges stay in the order a build from scratch gives (by RW
 * edge, then SO/WR edge), so every round's reach, paths and pruning are
 * what they were.
 *
 * Ownership: psi_pc_reach_build updates x (zeroed before the first
 * round; psi_pc_free releases it, after the last) and fills r
 * (psi_reach_free). The polygraph is only read. */
#ifndef PSI_PRUNE_LEVEL_PC_H
#define PSI_PRUNE_LEVEL_PC_H

#include "core/history.h"
#include "core/polygraph.h"
#include "prune/reach.h"

#include <stdint.h>

typedef struct psi_pc_extra {
    uint64_t n_known; /* known edges when built: view ids below are theirs */
    uint64_t n_comp;
    uint32_t (*comp)[2]; /* [n_comp] composed edge: its SO/WR and RW known edges */
    /* kept across rounds */
    size_t cap_comp, cap_view, cap_active;
    psi_edge *view;  /* [cap_view] known edges, then the composed ones */
    uint8_t *active; /* [cap_view] the view's edges that the reach follows */
    bool capped;     /* the last build left composed edges out: next from scratch */
} psi_pc_extra;

/* The reach over DEP and the composed edges; *cycle_node as
 * psi_reach_build (a node on a forbidden cycle, else UINT32_MAX). x is
 * the previous round's (or zeroed); on failure it is released. */
psi_status psi_pc_reach_build(psi_reach *r, psi_pc_extra *x, const psi_history *h,
                              const psi_polygraph *g, uint32_t *cycle_node, psi_diag *d);
void psi_pc_free(psi_pc_extra *x);

/* The known edges of path[0..n) (ids of the view, as psi_reach_path
 * gives them) into out, which has room for 2 * n: returns how many. */
uint32_t psi_pc_path(const psi_pc_extra *x, const psi_polygraph *g, const uint32_t *path,
                     uint32_t n, psi_edge *out);

#endif
