/* `polysi-solve verify-witness`: re-checks a witness written by
 * `check --witness` against its history, independently of the checker's
 * pruning, encoding and solver (interpret/witness_check.c). Exit 0 valid,
 * 1 refused (incomplete, inconsistent or cyclic: the reason is printed),
 * 2 malformed witness or other error. */
#include "cli/args.h"
#include "cli/commands.h"
#include "formats/read.h"
#include "interpret/witness_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void help(void)
{
    printf("usage: polysi-solve verify-witness [--isolation L] [--format F] HISTORY WITNESS\n\n"
           "Rebuilds the dependency graph of HISTORY from the version orders in WITNESS\n"
           "(written by 'polysi-solve check --witness') and checks it for a forbidden\n"
           "cycle in polynomial time, without the checker's pruning, encoding or solver.\n"
           "Under the other levels the witness is a commit order, checked against the\n"
           "level's axiom read by read.\n\n"
           "  --isolation L   si (default: no cycle without two adjacent RW edges) or ser\n"
           "                  (no cycle; the witness's order line, if any, must put every\n"
           "                  dependency forward); strong-si and strict-ser: the same with\n"
           "                  the history's real time (EDN/JSON) as dependencies too;\n"
           "                  or pl2, rc, ra, cc, pc, psi (or their long names, as check\n"
           "                  takes them)\n"
           "  --format F      format of HISTORY (default: detect)\n\n"
           "Exit codes: 0 the witness is valid, 1 it is refused (incomplete, inconsistent\n"
           "or cyclic; the reason is printed), 2 malformed witness or other error.\n");
}

/* Reads the whole file; NULL on error (message printed). */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "polysi-solve: cannot open %s\n", path);
        return NULL;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool err = ferror(f);
    fclose(f);
    if (!buf || err) {
        fprintf(stderr, "polysi-solve: cannot read %s\n", path);
        free(buf);
        return NULL;
    }
    *len = n;
    return buf;
}

int psi_cmd_verify_witness(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_read_opts ro = {0};
    const char *paths[2] = {NULL, NULL}, *arg;
    int n_paths = 0;
    psi_level level = PSI_LEVEL_SI;
    bool opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (n_paths == 2) {
                fprintf(stderr, "polysi-solve verify-witness: too many arguments\n");
                return 2;
            }
            paths[n_paths++] = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (psi_args_opt(&a, arg, "--isolation")) {
            if (!a.failed && !psi_level_parse(a.value, &level)) {
                fprintf(stderr,
                        "polysi-solve verify-witness: --isolation: unknown level '%s'; the "
                        "levels are " PSI_LEVEL_NAMES "\n",
                        a.value);
                return 2;
            }
        } else if (psi_args_opt(&a, arg, "--format")) {
            ro.format = psi_format_from_name(a.value);
            if (ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0) {
                fprintf(stderr, "polysi-solve verify-witness: unknown format '%s'\n", a.value);
                return 2;
            }
        } else {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (n_paths != 2) {
        fprintf(stderr, "polysi-solve verify-witness: need HISTORY and WITNESS (see --help)\n");
        return 2;
    }
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    if (psi_read_history(paths[0], &ro, &h, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    size_t len = 0;
    char *text = slurp(paths[1], &len);
    if (!text) {
        psi_history_free(h);
        return 2;
    }
    psi_wverdict v;
    char *why = NULL;
    psi_status st = psi_witness_verify_level(h, paths[1], text, len, level, &v, &why, &d);
    free(text);
    psi_history_free(h);
    if (st != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    const char *name = psi_level_name(level);
    if (v == PSI_WITNESS_VALID) {
        printf("VALID: the witness proves the history satisfies %s\n", name);
        return 0;
    }
    printf("REFUSED: the witness does not prove %s: %s\n", name, why);
    free(why);
    return 1;
}
