/* Writing histories (formats/write_*.c), for `polysi-solve convert`, the
 * workload generator and collectors. The model is core/history.h.
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

/* Output file for the writers. Bytes go to a temporary file beside `path`
 * that psi_out_close(o, true, d) renames over `path` only when every write
 * succeeded, so a failed conversion (ENOSPC, ...) never leaves a truncated
 * file behind. Paths that are not regular files (/dev/null, a FIFO) are
 * written in place; "-" is standard output. Write errors are remembered and
 * reported (PSI_ERR_IO, naming the path) by psi_out_close, which always
 * frees `o`; commit = false discards the output. */
typedef struct psi_out psi_out;
psi_out *psi_out_open(const char *path, psi_diag *d);
void psi_out_write(psi_out *o, const void *bytes, size_t n);
psi_status psi_out_close(psi_out *o, bool commit, psi_diag *d);

#endif
