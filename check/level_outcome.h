/* The polynomial levels (PL-2, RC, RA, CC) with transactions of unknown
 * outcome whose outcome is a choice (core/index.h, psi_index.opt;
 * internal to check/).
 *
 * The level's check (level.h, level_choice.h) runs with every optional
 * transaction committed: the index guarantees their reads a candidate
 * then, so an accept is a valid explanation. A reject there is not final:
 * each other choice of outcomes (an optional transaction committed, or
 * absent like an aborted one) is checked in turn, and the first that
 * accepts is the result. Exponential in the optional transactions, so
 * at most PSI_LEVEL_MAX_OUTCOMES of them (more: PSI_ERR_LIMIT, exit 2,
 * rather than a verdict that may be wrong). The SI- and SER-based levels
 * and PC and PSI need none of this: their encoding carries an outcome
 * variable per optional transaction (encode.h). */
#ifndef PSI_CHECK_LEVEL_OUTCOME_H
#define PSI_CHECK_LEVEL_OUTCOME_H

#include "check/check.h"

#define PSI_LEVEL_MAX_OUTCOMES 10u

/* After psi_check rejected h at a polynomial level with res->idx.n_opt
 * optional transactions, all committed: tries the other outcomes. On an
 * accept *res is replaced by that check's result and the statuses in h
 * say which committed (the committed ones keep open_outcome, so the next
 * check of h starts from the recorded outcomes); else *res is left as
 * it was. */
psi_status psi_level_outcomes(psi_history *h, const psi_check_opts *opts, psi_check_result *res,
                              psi_diag *d);

#endif
