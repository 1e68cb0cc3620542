/* Reading histories in the formats testers already have
 * (../shared/docs/formats.md): PolySI text, dbcop bincode, Cobra log
 * directories, Jepsen/Elle EDN. Writers: formats/write.h.
 *
 * Every reader either returns a complete history or fails with a diagnostic
 * naming the file and the place (line:column for text formats, byte offset
 * for binary ones); it never returns a partial history. The *_buf variants
 * read from memory (the fuzzers use them); `name` is used in diagnostics.
 * On success the caller owns *out and frees it with psi_history_free. */
#ifndef PSI_FORMATS_READ_H
#define PSI_FORMATS_READ_H

#include "core/history.h"
#include "core/progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct psi_read_opts {
    psi_format format;     /* PSI_FMT_AUTO: detect from the path and content */
    uint64_t max_ops;      /* refuse histories with more operations (0: model limit) */
    psi_progress progress; /* stage "load": bytes parsed of the file (logs read, Cobra) */
    /* DEFAULT: the format's own (AWDIT: recorded; the others: implicit).
     * RECORDED (a read of 0 reads a recorded write of 0, no implicit
     * initial value) is supported for AWDIT, text and dbcop, whose initial
     * value is 0; the other formats refuse it (PSI_ERR_USAGE). */
    psi_initial_state initial_state;
} psi_read_opts;

/* "implicit" / "recorded" (and "default"); PSI_INITIAL_DEFAULT for an
 * unknown name, *ok false then. */
psi_initial_state psi_initial_state_from_name(const char *name, bool *ok);
const char *psi_initial_state_name(psi_initial_state s);

/* Reads a history from a file (or, for Cobra, a directory). */
psi_status psi_read_history(const char *path, const psi_read_opts *opts, psi_history **out,
                            psi_diag *d);

/* Guesses the format of `path`: a directory is Cobra; otherwise by content
 * (EDN lines start with '{', text lines with r( / w(, anything else is
 * dbcop), falling back on the extension. */
psi_status psi_detect_format(const char *path, psi_format *fmt, psi_diag *d);

psi_status psi_read_text_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             psi_history **out, psi_diag *d);
psi_status psi_read_dbcop_buf(const char *name, const unsigned char *buf, size_t len,
                              uint64_t max_ops, psi_history **out, psi_diag *d);
psi_status psi_read_edn_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                            psi_history **out, psi_diag *d);
/* Jepsen JSON histories: the EDN reader's operations as JSON objects. */
psi_status psi_read_json_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             psi_history **out, psi_diag *d);
/* AWDIT's test format, with its own initial state (recorded). */
psi_status psi_read_awdit_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                              psi_history **out, psi_diag *d);
psi_status psi_read_cobra_dir(const char *dir, uint64_t max_ops, psi_history **out, psi_diag *d);
/* One Cobra session log held in memory. Its session id comes from `name`
 * when the base name is T<n>.log (session n), else it is session 0. */
psi_status psi_read_cobra_buf(const char *name, const unsigned char *buf, size_t len,
                              uint64_t max_ops, psi_history **out, psi_diag *d);

#endif
