/* Re-checking a witness (formats/witness.h) against a history, with
 * nothing from prune/, encode/ or solver/: the dependency graph is rebuilt
 * from the history (SO, WR via core/index, WW from the given version
 * orders, RW from each read to the next version of its key) and tested for
 * a forbidden cycle with a topological sort, in time linear in the history
 * and the witness. SI: no cycle without two adjacent RW edges (on a doubled
 * graph); SER: no cycle at all, and the given serialization order, if any,
 * must put every edge forward.
 *
 * The witness text is untrusted: any bytes are handled, and whatever does
 * not parse is a syntax error naming line and column. */
#ifndef PSI_INTERPRET_WITNESS_CHECK_H
#define PSI_INTERPRET_WITNESS_CHECK_H

#include "check/level.h"
#include "core/history.h"

#include <stdbool.h>
#include <stddef.h>

typedef enum psi_wverdict {
    PSI_WITNESS_VALID = 0,   /* the witness proves the history satisfies the level */
    PSI_WITNESS_REFUSED = 1, /* incomplete, inconsistent or cyclic: see why */
} psi_wverdict;

/* Checks the witness text[0..len) (named wname in messages) for history h
 * under SER (ser) or SI. Returns PSI_OK with *verdict and, when refused, the
 * whole reason in *why (allocated; the caller frees it; NULL otherwise: a
 * forbidden cycle is printed in full, runs of session order compressed as
 * "-SO*k->"), PSI_ERR_SYNTAX for a malformed witness, or another error
 * (memory). h's unknown-outcome transactions are settled in place
 * (core/index). */
psi_status psi_witness_verify(psi_history *h, const char *wname, const char *text, size_t len,
                              bool ser, psi_wverdict *verdict, char **why, psi_diag *d);
/* The same under any level: SI and SER as above; the others check the
 * witness's order line as a commit order against the level's axiom
 * (interpret/witness_level.h). */
psi_status psi_witness_verify_level(psi_history *h, const char *wname, const char *text, size_t len,
                                    psi_level level, psi_wverdict *verdict, char **why,
                                    psi_diag *d);

#endif
