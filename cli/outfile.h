/* Output files of `check` (--dot, --witness), opened before the check
 * starts so that an unwritable path is an error in seconds, not after a
 * long check whose verdict would then be lost.
 *
 * A regular file (or a path that does not exist yet) is written to a
 * temporary file beside it, created at open, and renamed over it only when
 * everything was written: an earlier file is never left half-overwritten.
 * Other paths (/dev/null, a FIFO, "-" for stdout) are opened at once and
 * written in place. psi_outfile_discard drops what was begun and, with
 * remove_old, also removes an earlier file at the path (a witness from an
 * earlier run must not outlive a reject), saying whether there was one.
 *
 * Ownership: the psi_outfile is the caller's; open fills it, commit and
 * discard release everything it holds. */
#ifndef PSI_CLI_OUTFILE_H
#define PSI_CLI_OUTFILE_H

#include "core/diag.h"

#include <stdbool.h>
#include <stdio.h>

typedef struct psi_outfile {
    const char *path; /* as given (not copied) */
    char *tmp;        /* temporary file renamed over path, NULL when in place */
    FILE *f;          /* where to write; NULL when not open */
} psi_outfile;

/* Opens path for writing (see above); an error names the path. */
psi_status psi_outfile_open(psi_outfile *o, const char *path, psi_diag *d);
/* Flushes, closes and puts the file in place; an error names the path (and
 * the temporary file is removed). */
psi_status psi_outfile_commit(psi_outfile *o, psi_diag *d);
/* Drops what was written. With remove_old, a regular file already at the
 * path is removed too: *removed says whether there was one. */
void psi_outfile_discard(psi_outfile *o, bool remove_old, bool *removed);

#endif
