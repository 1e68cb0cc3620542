/* Internal to interpret/: the counterexample search works on the
 * generalized polygraph of a small sub-history, rebuilt from the history
 * alone by core (psi_sub_polygraph, core/polygraph.h) and solved through
 * encode/local.h. explain.c restores and minimizes it, resolve.c settles
 * and presents it, classify.c names the result. */
#ifndef PSI_INTERPRET_LOCAL_H
#define PSI_INTERPRET_LOCAL_H

#include "core/polygraph.h"
#include "interpret/explain.h"

#include <stdbool.h>

/* Settles, finalizes and writes the counterexample of the (minimized)
 * violation L into cex (edges, choices, cycles, txns). */
psi_status psi_cex_present(const psi_sub_polygraph *L, bool ser, psi_cex *cex, psi_diag *d);

/* Names the counterexample (kind and summary) from its shape. */
void psi_cex_classify(const psi_history *h, const psi_index *idx, bool ser, psi_cex *cex);

/* The counterexample of a PSI_BY_LEVEL reject (interpret/level_cex.c). */
/* The counterexample of a reject by timestamps (interpret/ts_cex.c). */
psi_status psi_ts_cex_build(const psi_history *h, const psi_check_result *res, psi_cex *cex,
                            psi_diag *d);
psi_status psi_level_cex_build(const psi_history *h, const psi_check_result *res, psi_cex *cex,
                               psi_diag *d);

#endif
