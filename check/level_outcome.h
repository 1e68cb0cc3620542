/* The polynomial levels (PL-2, RC, RA, CC) with transactions of unknown
 * outcome whose outcome is a choice (core/index.h, psi_index.opt;
 * internal to check/).
 *
 * An optional transaction t commits or is absent (like an aborted one).
 * The choice search of level_choice.h decides its outcome with the reads'
 * writers, as encode/encode.c does for SI and SER: one outcome variable
 * o_t per optional transaction, and
 *   - choosing a candidate writer w for a read implies o_w (w optional),
 *     and o_t (the reader t optional: its reads matter only if it
 *     commits, so their at-least-one clause is gated by o_t too);
 *   - a read whose writer is fixed (one candidate, or pruning left one)
 *     in t, of an optional w: o_t implies o_w (t committed: o_w);
 *   - a read in optional t with no candidate left: not o_t.
 * The theory (the level's check on the partial choice) sees an optional
 * transaction only once its o_t is true: until then it is left out, its
 * session order skipped, its writes no one's source
 * (psi_level_check_in). A violation's clause names the outcomes of the
 * optional transactions its cycle passes through (edges exist only
 * between committed transactions) besides the reads' choices. Sound
 * because each level's graph only grows as transactions commit: a
 * transaction that commits adds its reads' edges and forced edges, and
 * an edge between two others that it now comes between (a session order
 * step, RA's and CC's latest writer of a session) stays implied through
 * it. So any number of optional transactions is decided exactly, and no
 * outcome is enumerated. */
#ifndef PSI_CHECK_LEVEL_OUTCOME_H
#define PSI_CHECK_LEVEL_OUTCOME_H

#include "check/level_choice_ctx.h"

#endif
