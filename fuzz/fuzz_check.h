/* What the reader targets check after every parse: a failure carries a
 * non-empty, terminated message and no history; a success is a history
 * whose arrays are consistent, that validation accepts or refuses without
 * crashing, and (when small) that the whole check decides. */
#ifndef PSI_FUZZ_CHECK_H
#define PSI_FUZZ_CHECK_H

#include "core/history.h"

/* Aborts with msg when cond is false (kept in release builds, unlike assert). */
#define FUZZ_REQUIRE(cond, msg) psi_fuzz_require((cond), (msg), __FILE__, __LINE__)
void psi_fuzz_require(int cond, const char *msg, const char *file, int line);

/* Checks the result of a reader call and frees the history. */
void psi_fuzz_after_read(psi_status st, psi_history *h, const psi_diag *d);

#endif
