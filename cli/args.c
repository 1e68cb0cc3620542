/* Long-option parsing for the subcommands (see args.h). */
#include "cli/args.h"

#include "formats/read.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Records a usage error; prints "polysi-solve CMD: <fmt>" unless quiet. */
static void fail(psi_args *a, psi_args_error why, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(psi_args *a, psi_args_error why, const char *fmt, ...)
{
    a->failed = true;
    a->error = why;
    if (a->quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "polysi-solve %s: ", a->cmd);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void psi_args_init(psi_args *a, int argc, char **argv)
{
    *a = (psi_args){.argc = argc, .argv = argv, .i = 1, .cmd = argc > 0 ? argv[0] : "?"};
}

bool psi_args_next(psi_args *a, const char **arg, bool *is_option)
{
    static const char dashdash[] = "--";
    if (a->i >= a->argc)
        return false;
    const char *s = a->argv[a->i++];
    a->escaped = false;
    if (strcmp(s, dashdash) == 0) {
        /* The argument after "--" is positional, even if it starts with
         * dashes (a file named "--x"). */
        if (a->i >= a->argc)
            return false;
        *arg = a->argv[a->i++];
        *is_option = false;
        a->escaped = true;
        return true;
    }
    *arg = s;
    /* "-x" and "--x" are options (an unknown one is a usage error naming
     * it, never a second PATH); "-" alone is positional (stdin). */
    *is_option = s[0] == '-' && s[1] != '\0';
    return true;
}

bool psi_args_flag(psi_args *a, const char *arg, const char *name)
{
    (void)a;
    return strcmp(arg, name) == 0;
}

bool psi_args_help(psi_args *a, const char *arg)
{
    (void)a;
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool psi_args_opt(psi_args *a, const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0 || (arg[n] != '=' && arg[n] != '\0'))
        return false;
    a->name = name;
    if (arg[n] == '=') {
        a->value = arg + n + 1;
        return true;
    }
    if (a->i >= a->argc) {
        a->value = "";
        fail(a, PSI_ARGS_NO_VALUE, "option %s needs a value\n", name);
        return true;
    }
    a->value = a->argv[a->i++];
    return true;
}

bool psi_args_u64(psi_args *a, const char *name, uint64_t *out)
{
    const char *s = a->value, *p = s;
    /* strtoull skips blanks and negates "-5" into a huge value: refuse a
     * sign after blanks too. */
    while (isspace((unsigned char)*p))
        p++;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (s[0] == '\0' || *p == '-' || *end != '\0' || errno == ERANGE) {
        fail(a, PSI_ARGS_BAD_VALUE, "%s expects a non-negative integer, got '%s'\n", name, s);
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

bool psi_args_u32(psi_args *a, const char *name, uint32_t *out)
{
    uint64_t v;
    if (!psi_args_u64(a, name, &v))
        return false;
    if (v > UINT32_MAX) {
        fail(a, PSI_ARGS_BAD_VALUE, "%s is too large\n", name);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

bool psi_args_initial_state(psi_args *a, const char *arg, psi_initial_state *out)
{
    if (!psi_args_opt(a, arg, "--initial-state"))
        return false;
    if (a->failed) /* no value */
        return true;
    bool ok;
    psi_initial_state s = psi_initial_state_from_name(a->value, &ok);
    if (ok) /* "default" too: the format's own */
        *out = s;
    else
        fail(a, PSI_ARGS_BAD_VALUE, "--initial-state takes implicit or recorded, not '%s'\n",
             a->value);
    return true;
}

bool psi_args_double(psi_args *a, const char *name, double *out)
{
    const char *s = a->value;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE || !(v >= 0)) {
        fail(a, PSI_ARGS_BAD_VALUE, "%s expects a non-negative number, got '%s'\n", name, s);
        return false;
    }
    *out = v;
    return true;
}

void psi_args_unknown(psi_args *a, const char *arg)
{
    fail(a, PSI_ARGS_UNKNOWN, "unknown option %s (see polysi-solve %s --help)\n", arg, a->cmd);
}

bool psi_parse_init(const char *s, psi_init_opts *o)
{
    if (strcmp(s, "auto") == 0) {
        *o = (psi_init_opts){.mode = PSI_INIT_AUTO};
        return true;
    }
    if (strcmp(s, "none") == 0) {
        *o = (psi_init_opts){.mode = PSI_INIT_NONE};
        return true;
    }
    if (strchr(s, '-'))
        return false; /* sscanf's %llu would take a negative number */
    unsigned long long sess, id;
    int end = 0;
    if (sscanf(s, " ( %llu , %llu ) %n", &sess, &id, &end) == 2 && s[end] == '\0') {
        *o = (psi_init_opts){.mode = PSI_INIT_NAMED, .session = sess, .id = id};
        return true;
    }
    end = 0;
    if (sscanf(s, " %llu , %llu %n", &sess, &id, &end) == 2 && s[end] == '\0') {
        *o = (psi_init_opts){.mode = PSI_INIT_NAMED, .session = sess, .id = id};
        return true;
    }
    return false;
}
