/* Diagnostics: formatting of located error messages (see diag.h). */
#include "core/diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void psi_diag_clear(psi_diag *d)
{
    if (d) {
        d->status = PSI_OK;
        d->msg[0] = '\0';
    }
}

static psi_status vset(psi_diag *d, psi_status st, const char *prefix, const char *fmt, va_list ap)
{
    if (!d)
        return st;
    d->status = st;
    size_t n = 0;
    if (prefix) {
        int k = snprintf(d->msg, sizeof d->msg, "%s", prefix);
        n = k < 0 ? 0 : (size_t)k;
        if (n >= sizeof d->msg)
            return st;
    }
    vsnprintf(d->msg + n, sizeof d->msg - n, fmt, ap);
    return st;
}

psi_status psi_diag_set(psi_diag *d, psi_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, NULL, fmt, ap);
    va_end(ap);
    return st;
}

psi_status psi_diag_line(psi_diag *d, psi_status st, const char *file, uint64_t line, uint64_t col,
                         const char *fmt, ...)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s:%llu:%llu: ", file ? file : "<input>",
             (unsigned long long)line, (unsigned long long)col);
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, prefix, fmt, ap);
    va_end(ap);
    return st;
}

psi_status psi_diag_offset(psi_diag *d, psi_status st, const char *file, uint64_t offset,
                           const char *fmt, ...)
{
    char prefix[512];
    snprintf(prefix, sizeof prefix, "%s: byte %llu: ", file ? file : "<input>",
             (unsigned long long)offset);
    va_list ap;
    va_start(ap, fmt);
    vset(d, st, prefix, fmt, ap);
    va_end(ap);
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
