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

typedef struct psi_diag {
    psi_status status;
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
/* Out of memory while doing `what`; no allocation happens here. */
psi_status psi_diag_nomem(psi_diag *d, const char *what);

const char *psi_status_name(psi_status st);

#endif
