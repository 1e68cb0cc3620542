/* The hint files of `check` (issue 15) as the check takes them:
 * --version-order FILE, in the witness format (formats/witness.h), becomes
 * the plain chains of check/hints.h; --timestamps FILE
 * (formats/timestamps.h) the entries of check/timestamps.h. Every key line and chain line is a
 * chain, and read lines are passed on as read lines (check/hints.h); the
 * other line kinds (isolation, order, init) are read and not used. The caller reads the file
 * (cli/); fuzz/ and tests/ parse text.
 *
 * Ownership: psi_hint_file_parse fills a caller-provided psi_hint_file
 * that owns everything it points to (vo included, whose name is the
 * caller's string and must outlive it); psi_hint_file_free releases it. */
#ifndef PSI_INTERPRET_HINT_FILE_H
#define PSI_INTERPRET_HINT_FILE_H

#include "check/hints.h"
#include "check/timestamps.h"
#include "core/diag.h"
#include "formats/timestamps.h"
#include "formats/witness.h"

#include <stddef.h>

typedef struct psi_hint_file {
    psi_witness w;
    psi_hint_txn *tx;
    psi_hint_chain *chains;
    psi_hint_read *reads;
    psi_version_order vo; /* what psi_check_opts.version_order points to */
} psi_hint_file;

/* Parses text[0..len) named `name`: PSI_ERR_SYNTAX ("NAME:LINE:COL: ...")
 * when malformed, *out then empty. */
psi_status psi_hint_file_parse(const char *name, const char *text, size_t len, psi_hint_file *out,
                               psi_diag *d);

/* psi_hint_file_parse for checking history h (which must outlive *out):
 * the chains' transactions are resolved to h's indices while the text is
 * read (psi_witness_parse_named; vo.named_in = h, the chains' txn[]), so a
 * complete order of millions of names costs 4 bytes a name and no second
 * visit. When a name is not exactly one transaction of h, the text is
 * parsed again plainly (chains by name): the check then says what is
 * wrong with it as before. Either way the check's answers are
 * psi_hint_file_parse's. */
psi_status psi_hint_file_parse_for(const char *name, const char *text, size_t len,
                                   const psi_history *h, psi_hint_file *out, psi_diag *d);
void psi_hint_file_free(psi_hint_file *f);

/* --timestamps FILE (formats/timestamps.h) as check/timestamps.h takes
 * them; ownership as above. */
typedef struct psi_ts_file {
    psi_ts_list l;
    psi_hint_ts *e;
    psi_timestamps ts; /* what psi_check_opts.timestamps points to */
} psi_ts_file;

psi_status psi_ts_file_parse(const char *name, const char *text, size_t len, psi_ts_file *out,
                             psi_diag *d);
void psi_ts_file_free(psi_ts_file *f);

#endif
