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
 * Built on the reduced known graph: the edges core/known_reduce.h keeps
 * under PC's rules (S, W and A told apart) give every transaction exactly
 * the transactions it reaches over PC's paths in the whole known graph
 * (proof in core/known_reduce.c, "Prefix consistency"), so frontiers,
 * cycle checks, and with them every side pruning judges, are the same,
 * while the reach is built from a fraction of the edges and composed
 * pairs (GeneralRW's last round: 21 k DEP and 12 k composed edges, from
 * 113 k known and 137 k composed ones). Only the paths reported for
 * counterexamples may differ (shortest in the reduced graph; each is
 * still made of known edges).
 *
 * The view the reach is built from holds the kept DEP edges (ids below
 * n_base, base[] names their known index) and then the composed ones;
 * paths found in it are turned back into known edges with psi_pc_path.
 * Each round builds it from scratch (a round's new known edges may make
 * old ones redundant) into buffers kept across rounds, so the pages are
 * faulted in once. The reduction reads a packed copy of the known edges
 * by source (core/known_reduce.h), kept across rounds and appended to
 * with each round's new edges instead of regrouped; so is the index of
 * every known SO and WR edge by target (psi_pc_sw_update), whose rows,
 * filtered by the kept bitmap, give the composed pairs and which
 * pruning's cycle tests read (prune.c pc_rw_cycle).
 *
 * Ownership: psi_pc_reach_build updates x (zeroed before the first round,
 * maybe with `full` set; psi_pc_free releases it, after the last) and
 * fills r (psi_reach_free). The polygraph is only read. */
#ifndef PSI_PRUNE_LEVEL_PC_H
#define PSI_PRUNE_LEVEL_PC_H

#include "core/history.h"
#include "core/known_reduce.h"
#include "core/polygraph.h"
#include "prune/reach.h"

#include <stdint.h>

typedef struct psi_pc_extra {
    bool full;       /* every known edge, no reduction (tests compare the two) */
    uint32_t n_base; /* view ids below are kept DEP edges: base[id] is the known one */
    uint64_t n_comp;
    uint32_t *base;      /* [n_base] */
    uint32_t (*comp)[2]; /* [n_comp] composed edge: its SO/WR and RW known edges */
    /* Some composed pairs were left out (the cap in level_pc.c): the view
     * may then miss a forbidden cycle of known edges, which its caller
     * looks for itself (prune.c pc_index_build). */
    bool capped;
    /* kept across rounds */
    size_t cap_base, cap_comp, cap_view;
    psi_edge *view;          /* [cap_view] the kept DEP edges, then the composed ones */
    psi_known_packed packed; /* the known edges by source, appended to each round */
    uint64_t *keep;          /* the last build's kept edges (a bitmap), NULL: all */
    size_t cap_keep;         /* in words */
    uint64_t keep_of;        /* how many known edges keep is for (0: none) */
    /* packed's edges when keep was marked from them (0: not marked): the
     * next round first drops the edges keep lacks (psi_known_packed_drop) */
    uint64_t keep_packed;
    /* A build's scratch, kept so that rounds reuse its pages: the kept RW
     * edges; by_to_off is psi_pc_sw_update's. */
    uint32_t *rws;
    uint64_t *by_to_off;
    size_t cap_rws, cap_by_to_off;
    /* Every known SO and WR edge by target (psi_pc_sw_update), kept across
     * rounds and appended to: pc_rw_cycle (prune.c) reads it, and the view
     * composes each kept RW edge with the kept ones of its tail's row. */
    uint32_t *sw_off; /* [sw_nodes + 1] (known edges are fewer than 2^32) */
    uint32_t *sw_id;  /* their known indices */
    size_t cap_sw;
    uint64_t sw_of; /* how many known edges the index covers */
    uint32_t sw_nodes;
} psi_pc_extra;

/* The reach over DEP and the composed edges, run as cfg says (as
 * psi_reach_build_view: threads, a frontier buffer kept across rounds;
 * NULL: one thread, a frontier of its own); *cycle_node as
 * psi_reach_build (a node on a forbidden cycle, else UINT32_MAX). x is
 * the previous round's (or zeroed); on failure it is released. */
psi_status psi_pc_reach_build(psi_reach *r, psi_pc_extra *x, const psi_history *h,
                              const psi_polygraph *g, const psi_reach_cfg *cfg,
                              uint32_t *cycle_node, psi_diag *d);
void psi_pc_free(psi_pc_extra *x);

/* The known edges PC's rules kept in the last build, ascending, into
 * *kept (malloc'd, the caller frees it; *n of them), if that build reduced
 * g's known edges as they are now (none appended since); else *kept is
 * NULL. The encoding's reduction of the same graph keeps the same ones
 * (psi_reduce_known_pc, same rules). Returns false on ENOMEM. */
bool psi_pc_kept(const psi_pc_extra *x, const psi_polygraph *g, uint32_t **kept, uint64_t *n);

/* Brings x's index of every known SO and WR edge by target up to g's
 * known edges (g->n_known < UINT32_MAX): row v is [sw_off[v],
 * sw_off[v + 1]) of sw_id, their known indices, ascending, as the in-rows
 * psi_graph_build would give (PSI_GRAPH_IN over the SO and WR edges). Pruning's rounds only append
 * known edges, so each round moves the rows apart and adds its new edges
 * instead of indexing every edge again (from scratch the first time or
 * when g is not x's any more). Returns false on ENOMEM (x is then
 * released). */
bool psi_pc_sw_update(psi_pc_extra *x, const psi_polygraph *g);

/* The known edges of path[0..n) (ids of the view, as psi_reach_path
 * gives them) into out, which has room for 2 * n: returns how many. */
uint32_t psi_pc_path(const psi_pc_extra *x, const psi_polygraph *g, const uint32_t *path,
                     uint32_t n, psi_edge *out);

#endif
