/* Diagnostics: formatting of located error messages (see diag.h). */
#include "core/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void psi_diag_clear(psi_diag *d)
{
    if (d)
        *d = (psi_diag){.status = PSI_OK};
}

/* Formats prefix + message; records where the message proper starts and,
 * when file is given, that msg starts with it. */
static psi_status vset(psi_diag *d, psi_status st, const char *file, const char *prefix,
                       const char *fmt, va_list ap)
{
    if (!d)
        return st;
    d->status = st;
    d->where = PSI_AT_NONE;
    d->file_len = d->text_at = 0;
    d->line = d->col = d->offset = 0;
    size_t n = 0;
    if (prefix) {
        int k = snprintf(d->msg, sizeof d->msg, "%s", prefix);
        n = k < 0 ? 0 : (size_t)k;
        if (n >= sizeof d->msg)
            return st;
        size_t fl = file ? strlen(file) : 0;
        d->file_len = (uint16_t)(fl < n ? fl : n);
        d->text_at = (uint16_t)n;
    }
    vsnprintf(d->msg + n, sizeof d->msg - n, fmt, ap);
    return st;
}

psi_status psi_diag_set(psi_diag *d, psi_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, NULL, NULL, fmt, ap);
    va_end(ap);
    return st;
}

psi_status psi_diag_file(psi_diag *d, psi_status st, const char *file, const char *fmt, ...)
{
    char prefix[512];
    file = file ? file : "<input>";
    snprintf(prefix, sizeof prefix, "%s: ", file);
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, file, prefix, fmt, ap);
    va_end(ap);
    if (d)
        d->where = PSI_AT_FILE;
    return st;
}

psi_status psi_diag_line(psi_diag *d, psi_status st, const char *file, uint64_t line, uint64_t col,
                         const char *fmt, ...)
{
    char prefix[512];
    file = file ? file : "<input>";
    snprintf(prefix, sizeof prefix, "%s:%llu:%llu: ", file, (unsigned long long)line,
             (unsigned long long)col);
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, file, prefix, fmt, ap);
    va_end(ap);
    if (d) {
        d->where = PSI_AT_LINE;
        d->line = line;
        d->col = col;
    }
    return st;
}

psi_status psi_diag_offset(psi_diag *d, psi_status st, const char *file, uint64_t offset,
                           const char *fmt, ...)
{
    char prefix[512];
    file = file ? file : "<input>";
    snprintf(prefix, sizeof prefix, "%s: byte %llu: ", file, (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, file, prefix, fmt, ap);
    va_end(ap);
    if (d) {
        d->where = PSI_AT_OFFSET;
        d->offset = offset;
    }
    return st;
}

psi_status psi_diag_nomem(psi_diag *d, const char *what)
{
    return psi_diag_set(d, PSI_ERR_NOMEM, "out of memory while %s", what ? what : "working");
}

const char *psi_status_name(psi_status st)
{
    switch (st) {
    case PSI_OK:
        return "ok";
    case PSI_ERR_IO:
        return "i/o error";
    case PSI_ERR_SYNTAX:
        return "syntax error";
    case PSI_ERR_INPUT:
        return "input error";
    case PSI_ERR_NOMEM:
        return "out of memory";
    case PSI_ERR_LIMIT:
        return "limit reached";
    case PSI_ERR_USAGE:
        return "usage error";
    }
    return "unknown error";
}
