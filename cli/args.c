/* Long-option parsing for the subcommands (see args.h). */
#include "cli/args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (strcmp(s, dashdash) == 0) {
        /* Everything after "--" is positional: mark by pointing past it. */
        if (a->i >= a->argc)
            return false;
        *arg = a->argv[a->i++];
        *is_option = false;
        return true;
    }
    *arg = s;
    *is_option = s[0] == '-' && s[1] == '-' && s[2] != '\0';
    return true;
}

bool psi_args_flag(psi_args *a, const char *arg, const char *name)
{
    (void)a;
    return strcmp(arg, name) == 0;
}

bool psi_args_opt(psi_args *a, const char *arg, const char *name)
{
    size_t n = strlen(name);
    if (strncmp(arg, name, n) != 0)
        return false;
    if (arg[n] == '=') {
        a->value = arg + n + 1;
        return true;
    }
    if (arg[n] != '\0')
        return false;
    if (a->i >= a->argc) {
        fprintf(stderr, "polysi-solve %s: option %s needs a value\n", a->cmd, name);
        a->failed = true;
        a->value = "";
        return true;
    }
    a->value = a->argv[a->i++];
    return true;
}

bool psi_args_u64(psi_args *a, const char *name, uint64_t *out)
{
    const char *s = a->value;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (s[0] == '\0' || s[0] == '-' || *end != '\0' || errno == ERANGE) {
        fprintf(stderr, "polysi-solve %s: %s expects a non-negative integer, got '%s'\n", a->cmd,
                name, s);
        a->failed = true;
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
        fprintf(stderr, "polysi-solve %s: %s is too large\n", a->cmd, name);
        a->failed = true;
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

bool psi_args_double(psi_args *a, const char *name, double *out)
{
    const char *s = a->value;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (s[0] == '\0' || *end != '\0' || errno == ERANGE || !(v >= 0)) {
        fprintf(stderr, "polysi-solve %s: %s expects a non-negative number, got '%s'\n", a->cmd,
                name, s);
        a->failed = true;
        return false;
    }
    *out = v;
    return true;
}

void psi_args_unknown(psi_args *a, const char *arg)
{
    fprintf(stderr, "polysi-solve %s: unknown option %s (see polysi-solve %s --help)\n", a->cmd,
            arg, a->cmd);
    a->failed = true;
}
