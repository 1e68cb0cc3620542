/* The lattice shortcut for the polynomial levels on histories with choice
 * reads (issue 11; internal to check/).
 *
 * Searching the read-from choices at PL-2, RC, RA or CC is NP-complete in
 * general (level_choice.h) and slow on histories whose values repeat a
 * lot, while SI's pipeline (polygraph, pruning, solver) decides the same
 * histories fast. SI is stronger than all four: a history accepted under
 * SI is accepted under each of them, and SI's model is a witness, since
 * its read-from (every ambiguous read's writer; a repeat read sees what
 * its transaction's first read of the key saw, SI reading one snapshot)
 * with a topological order of its SO ∪ WR ∪ WW as commit order satisfies
 * every weaker axiom. So psi_level_check_lattice runs the SI check first;
 * when it accepts, the level's own polynomial check is run on SI's
 * read-from (psi_level_check_choices with a hint), and its accept, with
 * its own commit order, is the verdict. The verdict never rests on SI's
 * answer alone: a read-from the level check refuses (a bug) is an assert
 * in debug builds and a fall back to the search in release ones. When SI
 * rejects, fails (limits) or runs over SI_BUDGET seconds of solving, the
 * search of level_choice.c decides as before.
 *
 * opts.search_choices skips the shortcut (tests compare the two). */
#ifndef PSI_CHECK_LEVEL_LATTICE_H
#define PSI_CHECK_LEVEL_LATTICE_H

#include "check/check.h"
#include "check/level_choice.h"

/* Decides res->level_checked (PL-2, RC, RA or CC) on a history with choice
 * reads, after validation: fills res->level and res->rf as
 * psi_level_check_choices does (reads settled from SI's model have how
 * PSI_RFC_LATTICE). h is checked again under SI, which leaves it as
 * validation left it. */
psi_status psi_level_check_lattice(psi_history *h, const psi_check_opts *opts,
                                   psi_check_result *res, psi_diag *d);

/* Settles every read of c to the writer hint[op] names (PSI_RFC_LATTICE,
 * the other candidates excluded). A read whose hint is not among its
 * candidates stays open (it cannot happen with SI's read-from; asserted). */
void psi_level_choices_take(psi_level_choices *c, const uint32_t *hint);

#endif
