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
/* Jepsen JSON (JSON Lines), read back by psi_read_json_buf: write_json.c. */
psi_status psi_write_json(const psi_history *h, const char *path, psi_diag *d);

/* Writes h in fmt (text, dbcop, edn or json) with a one-line description of
 * where it comes from (a collector's database, version and level) in the
 * file's header where the format has room: a leading "# " comment line in
 * text, a leading "; " comment line in EDN (both readers skip comments).
 * dbcop's header is the history's own (psi_history.dbcop: info string,
 * start and end times), so comment is not written there. comment may be
 * NULL. */
psi_status psi_write_history(const psi_history *h, psi_format fmt, const char *path,
                             const char *comment, psi_diag *d);

#endif
