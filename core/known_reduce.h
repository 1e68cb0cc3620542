/* The known-edge reduction's rules, shared by the theory's encoding
 * (encode/reduce.h) and PC's pruning (prune/level_pc.h).
 *
 * Most known edges are implied by others: a transaction's edges into one
 * session mostly reach it at several points, and every point after the
 * first is reachable from the first by session order. The rules keep, per
 * source transaction and target session chain, only the edges that no
 * other edge of the source, or of a later transaction of its session,
 * implies through that chain; the graph they leave has exactly the
 * forbidden cycles of the whole one, and under PC the same paths between
 * transactions (the rules and proofs are in known_reduce.c).
 *
 * Ownership: the callers own every array; nothing is kept between calls. */
#ifndef PSI_CORE_KNOWN_REDUCE_H
#define PSI_CORE_KNOWN_REDUCE_H

#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* Which graph the kept edges must stand for: SI's doubled graph (DEP and
 * ANTI differ), SER's plain one (every edge alike), or PC's twin graph
 * (SO/WR, WW and RW differ). */
typedef enum psi_reduce_rules {
    PSI_RULES_SI,
    PSI_RULES_SER,
    PSI_RULES_PC,
} psi_reduce_rules;

/* The known edges grouped by source, each source's in known order:
 * (*by_src)[(*off)[v] .. (*off)[v + 1]) (both malloc'd, the caller frees
 * them, also on failure). g->n_known < UINT32_MAX. Returns false on
 * ENOMEM. */
bool psi_known_group_by_source(const psi_polygraph *g, uint32_t **off, uint32_t **by_src);

/* One known edge as the rules read it, with its target's place resolved:
 * the rules walk a source's edges three times, and reading them packed
 * instead of through the known array saves a cache miss per edge each
 * time. */
typedef struct psi_known_rec {
    uint32_t idx;        /* its index in g->known */
    uint32_t chain, pos; /* its target's chain and place in it */
    uint8_t type;        /* psi_edge_type */
    uint8_t flags;       /* PSI_REC_LINK, PSI_REC_SELF */
    uint8_t kinds;       /* its kind under each rule set (known_reduce.c) */
} psi_known_rec;

enum { PSI_REC_LINK = 1, PSI_REC_SELF = 2 };

/* The known edges [0, n_edges) of a polygraph packed by source (each
 * source's in known order: rec[off[v] .. off[v + 1])), and the chains
 * (known_reduce.c) they were resolved against. Built once and brought up
 * to date as edges are appended (pruning's rounds only append), so a
 * round costs a pass over the new edges plus a sequential move of the old
 * ones, not a regrouping of the whole array.
 *
 * Ownership: zero it before the first psi_known_packed_update; it owns
 * every array; psi_known_packed_free releases them. */
typedef struct psi_known_packed {
    uint32_t n_nodes; /* of the polygraph it was built for */
    uint64_t n_edges; /* the known edges packed so far */
    /* some of those edges were taken out (psi_known_packed_drop): rec
     * holds off[n_nodes] of them */
    bool partial;
    uint32_t n_chains;
    uint32_t *chain, *pos; /* [n_nodes] each node's chain and place in it */
    uint32_t *order;       /* [n_nodes] the nodes chain by chain, in chain order */
    uint32_t *start;       /* [n_chains + 1] chain k at order[start[k] .. start[k + 1]) */
    uint32_t *off;         /* [n_nodes + 1] */
    uint32_t *cur;         /* [n_nodes + 1] scratch for appending */
    psi_known_rec *rec;    /* [n_edges] */
    size_t cap_rec;
} psi_known_packed;

/* Brings p up to g's known edges: from scratch the first time, when g's
 * node count differs, or when an appended edge is an SO edge of the
 * history (it may change the chains); else the edges past p->n_edges are
 * appended to their sources' runs. The edges p holds must still be g's
 * first ones, unchanged (checked in debug builds). g->n_known <
 * UINT32_MAX. Returns false on ENOMEM (p is then released). */
bool psi_known_packed_update(psi_known_packed *p, const psi_polygraph *g);

/* Sets in keep (a bitmap of p->n_edges bits, zeroed by the caller) the
 * known edges the rules keep. Returns false on ENOMEM (keep is then
 * partly set). */
bool psi_known_packed_mark(const psi_known_packed *p, psi_reduce_rules which, uint64_t *keep);

/* Takes out of p the records of the edges keep (psi_known_packed_mark's
 * bitmap for p's edges under PSI_RULES_PC) does not hold. The rules drop
 * an edge for good once its graph has it (known_reduce.c, "Dropped edges
 * stay dropped"): marking p after later psi_known_packed_update calls
 * that append keeps the edges a packing of every edge keeps. An update
 * that packs from scratch (new chains) packs every edge again. */
void psi_known_packed_drop(psi_known_packed *p, const uint64_t *keep);

void psi_known_packed_free(psi_known_packed *p);

/* psi_known_packed_mark on a packing of g built for this call only. */
bool psi_known_mark_kept(const psi_polygraph *g, psi_reduce_rules which, uint64_t *keep);

#endif
