/* The timestamp hint format (`check --timestamps FILE`, issue 15): one
 * transaction per line,
 *
 *     (SESSION,ID) START COMMIT
 *
 * with START and COMMIT integers in any unit (a minus sign allowed), START
 * <= COMMIT: when the database started the transaction (took its snapshot)
 * and when it committed. Lines whose first non-blank character is '#' are
 * comments; blank lines are ignored. Transactions are named as in the
 * history's input. Whether they exist is for the checker (check/hints.h).
 *
 * Ownership: psi_ts_parse allocates the entries; psi_ts_list_free releases
 * them. */
#ifndef PSI_FORMATS_TIMESTAMPS_H
#define PSI_FORMATS_TIMESTAMPS_H

#include "core/diag.h"

#include <stddef.h>
#include <stdint.h>

typedef struct psi_ts_line {
    uint64_t sid, tid;
    int64_t start, commit;
    uint64_t line;
} psi_ts_line;

typedef struct psi_ts_list {
    psi_ts_line *e; /* in text order */
    size_t n;
} psi_ts_list;

/* Parses text[0..len) named `name`. Malformed lines, START > COMMIT and a
 * transaction given twice are PSI_ERR_SYNTAX "NAME:LINE:COL: ..."; *out is
 * then empty. */
psi_status psi_ts_parse(const char *name, const char *text, size_t len, psi_ts_list *out,
                        psi_diag *d);
void psi_ts_list_free(psi_ts_list *l);

#endif
