/* Diagnostics: how every fallible function in the checker reports failure.
 *
 * A function that can fail on input returns a psi_status and fills a
 * caller-owned psi_diag with one human-readable message that already names
 * the place ("FILE:LINE:COL: ...", or "FILE: byte OFFSET: ..."). Only cli/
 * prints messages and chooses exit codes; the library never writes to
 * stdout/stderr. The diag is a plain value (no allocation), so it can be
 * filled even when memory has run out. */
#ifndef PSI_CORE_DIAG_H
#define PSI_CORE_DIAG_H

#include <stdint.h>

typedef enum psi_status {
    PSI_OK = 0,
    PSI_ERR_IO,     /* cannot open/read/write a file */
    PSI_ERR_SYNTAX, /* malformed input: a place is named */
    PSI_ERR_INPUT,  /* well-formed but unusable input (e.g. a value written twice) */
    PSI_ERR_NOMEM,  /* allocation failed or a configured memory limit was hit */
    PSI_ERR_LIMIT,  /* a size limit of the model or a time limit was hit */
    PSI_ERR_USAGE,  /* a caller passed inconsistent options */
} psi_status;

enum { PSI_DIAG_MAX = 1024 };

/* Where a diagnostic points, besides its text (for programs: JSON errors). */
typedef enum psi_diag_where {
    PSI_AT_NONE = 0, /* no file named (msg may still start with one) */
    PSI_AT_FILE,     /* a file, no place in it */
    PSI_AT_LINE,     /* a file, line and column (text formats) */
    PSI_AT_OFFSET,   /* a file, byte offset (binary formats) */
} psi_diag_where;

typedef struct psi_diag {
    psi_status status;
    uint8_t where;      /* psi_diag_where */
    uint16_t file_len;  /* where != NONE: the file is msg[0 .. file_len) */
    uint16_t text_at;   /* the message proper (after "FILE:LINE:COL: ") is msg + text_at */
    uint64_t line, col; /* PSI_AT_LINE, from 1 */
    uint64_t offset;    /* PSI_AT_OFFSET */
    char msg[PSI_DIAG_MAX];
} psi_diag;

void psi_diag_clear(psi_diag *d);

/* Each setter formats the message, stores status and returns it, so callers
 * can write `return psi_diag_line(d, ...);`. A NULL d is allowed. */
psi_status psi_diag_set(psi_diag *d, psi_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
psi_status psi_diag_line(psi_diag *d, psi_status st, const char *file, uint64_t line, uint64_t col,
                         const char *fmt, ...) __attribute__((format(printf, 6, 7)));
psi_status psi_diag_offset(psi_diag *d, psi_status st, const char *file, uint64_t offset,
                           const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* "FILE: message": a file, no place in it (cannot open, cannot write). */
psi_status psi_diag_file(psi_diag *d, psi_status st, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Out of memory while doing `what`; no allocation happens here. */
psi_status psi_diag_nomem(psi_diag *d, const char *what);

const char *psi_status_name(psi_status st);

#endif
