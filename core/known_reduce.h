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

/* Sets in keep (a bitmap of g->n_known bits, zeroed by the caller) the
 * known edges the rules keep, given them grouped by source (above).
 * Returns false on ENOMEM (keep is then partly set). */
bool psi_known_mark_kept(const psi_polygraph *g, psi_reduce_rules which, const uint32_t *off,
                         const uint32_t *by_src, uint64_t *keep);

#endif
