/* Where an operation of a history is in the file it was read from, for
 * reports that point a tester at it (a graph-free anomaly's read):
 * FILE:LINE:COLUMN for text formats, FILE: byte OFFSET for binary ones
 * (for Cobra, the session's log).
 *
 * The model keeps one place per transaction (psi_txn.src: the line or byte
 * offset where it starts), not per operation: that would cost memory on
 * every history for the few operations a report names. So the file is read
 * again here and the transaction's records are walked to the operation;
 * what is found is checked against the operation (key and value) and, if
 * the file changed or cannot be read (standard input), the place falls
 * back to the transaction's own (FILE:LINE:1, FILE: byte OFFSET) or to
 * none. Only reports call this, once per report.
 *
 * Ownership: psi_locate_ops fills places[0..n); psi_places_free releases
 * the file names in them. */
#ifndef PSI_FORMATS_LOCATE_H
#define PSI_FORMATS_LOCATE_H

#include "core/diag.h"
#include "core/history.h"

#include <stddef.h>
#include <stdint.h>

typedef struct psi_place {
    uint8_t where; /* psi_diag_where: PSI_AT_LINE, PSI_AT_OFFSET or PSI_AT_NONE */
    bool exact;    /* the operation itself; false: its transaction's start */
    char *file;    /* the file (a Cobra log inside the history's directory); NULL: none */
    uint64_t line, col, offset;
} psi_place;

/* Places of operations ops[0..n) of h (read from h->source in h->format).
 * Returns PSI_ERR_NOMEM only; a place that cannot be found is PSI_AT_NONE. */
psi_status psi_locate_ops(const psi_history *h, const uint32_t *ops, size_t n, psi_place *places,
                          psi_diag *d);
void psi_places_free(psi_place *places, size_t n);

/* "FILE:LINE:COL", "FILE: byte OFFSET" or "" into buf. */
void psi_place_format(const psi_place *p, char *buf, size_t n);

#endif
