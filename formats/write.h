/* Writing histories (formats/write_*.c), for `polysi-solve convert`, the
 * workload generator and collectors. The model is core/history.h; what the
 * writers share internally is formats/output.h.
 *
 * Ownership: the writers only read the history. */
#ifndef PSI_FORMATS_WRITE_H
#define PSI_FORMATS_WRITE_H

#include "core/history.h"

#include <stdbool.h>
#include <stddef.h>

/* Writers, for `polysi-solve convert` (and the generator). They fail with a
 * diagnostic when the history cannot be expressed in the target format (for
 * example a text-format history needs every written value to be non-zero). */
psi_status psi_write_text(const psi_history *h, const char *path, psi_diag *d);
psi_status psi_write_dbcop(const psi_history *h, const char *path, psi_diag *d);
psi_status psi_write_edn(const psi_history *h, const char *path, psi_diag *d);

#endif
