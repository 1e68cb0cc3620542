/* The check of a history whose version order is known (issue 15: "with a
 * complete version order, no slower than loading plus one graph pass").
 *
 * When the known graph (hints' WW chains, session order) orders every
 * key's committed writers totally, pruning's seeding would generate no
 * constraint, its rounds would resolve nothing, and the solver would get
 * an empty formula: the verdict is the known graph's cycle check alone.
 * This stage takes that shortcut. Per key it looks for the one total
 * order of the key's writers in its direct order edges (the hints' WW
 * edges of that key and session order between its consecutive writers in
 * one session): Kahn's algorithm with exactly one source at every step.
 * When every key has one, it adds the edges seeding would derive from that
 * order (seed.h: RW from the readers of each version to the next writer,
 * from the initial value's readers to the first, and WW where the order
 * comes from session order, not from a hint), sets the constraints to
 * none, and checks the known graph once for a forbidden cycle (SI: the
 * doubled graph, SER: any cycle), as the last pruning pass would.
 *
 * A key whose order the direct edges leave partial (a partial version
 * order, or a total order only transitivity shows) makes the stage decline
 * without touching the polygraph: the full pipeline then checks it, with
 * the same verdict, more slowly. So does a read with a choice of writers
 * (a repeated value), which needs the solver.
 *
 * Ownership: nothing is kept; edges go into the caller's polygraph and a
 * cycle into the caller's prune result (psi_prune_result_free). */
#ifndef PSI_CHECK_KNOWN_ONLY_H
#define PSI_CHECK_KNOWN_ONLY_H

#include "check/hints.h"
#include "core/diag.h"
#include "core/history.h"
#include "core/polygraph.h"
#include "prune/prune.h"

#include <stdbool.h>

/* g: built with constraints pending (not --no-pruning), known edges
 * (hints, real time, timestamps) added. *taken says whether the stage
 * applied; if not, g is unchanged and *res untouched. If it did, *res
 * holds the outcome (PSI_PRUNE_OK or PSI_PRUNE_KNOWN_CYCLE with its
 * cycle), 0 rounds and 0 constraints, as psi_prune would leave them. */
psi_status psi_known_only(const psi_history *h, psi_polygraph *g, const psi_hints *hs, bool ser,
                          bool *taken, psi_prune_result *res, psi_diag *d);

/* The same stage for a complete version order, decided from the order
 * and g's writer lists before any edge is added (psi_hints_complete): no
 * general hint resolution, no per-key order search. g: as above, without
 * the hints applied. *taken false: g is unchanged, *hs empty, and the
 * general path (psi_hints_resolve, psi_hints_apply, psi_known_only) is the
 * caller's. Taken: *hs holds the resolved hints (the caller's to free), the
 * hints' WW edges, then the forced ones, are added in the order that path
 * adds them (the same known graph, so the same verdict, cycle and
 * witness), *known_before is the count in between, and *res is as above. */
psi_status psi_known_complete(const psi_history *h, psi_polygraph *g, const psi_version_order *vo,
                              bool ser, bool *taken, uint64_t *known_before, psi_hints *hs,
                              psi_prune_result *res, psi_diag *d);

#endif
