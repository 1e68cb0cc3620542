/* check_history: checks one history file for snapshot isolation (or, with
 * --ser, serializability) through the installed libpolysi, the way a test
 * harness would embed the checker instead of running polysi-solve:
 *
 *     read     psi_read_history  (formats/read.h; the format is detected)
 *     check    psi_check         (check/check.h)
 *     explain  psi_cex_build     (interpret/explain.h), on a reject only
 *
 * It prints the verdict and, on a reject, the anomaly's name ("lost
 * update", "long fork", ...) and the counterexample's one-sentence summary.
 * Exit codes are polysi-solve's: 0 accept, 1 reject, 2 error (unreadable
 * input, bad usage, out of memory) -- never a verdict after an error.
 *
 * It sees only the installed headers: build it with examples/Makefile,
 * which takes every flag from `pkg-config polysi`. */
#include <polysi.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: check_history [--ser] HISTORY\n");
    return 2;
}

/* Prints the counterexample of a rejected check; false on an error (told). */
static bool explain(const psi_history *h, const psi_check_result *res, bool ser)
{
    psi_cex_opts opts = {.ser = ser}; /* budget 0: the library's default */
    psi_cex cex;
    psi_diag d;
    if (psi_cex_build(h, res, &opts, &cex, &d) != PSI_OK) {
        fprintf(stderr, "check_history: %s\n", d.msg);
        return false; /* psi_cex_build has freed what it built */
    }
    if (cex.present)
        printf("anomaly: %s\n  %s\n", psi_cex_kind_name(cex.kind), cex.summary);
    psi_cex_free(&cex);
    return true;
}

int main(int argc, char **argv)
{
    bool ser = false;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ser") == 0)
            ser = true;
        else if (!path && argv[i][0] != '-')
            path = argv[i];
        else
            return usage();
    }
    if (!path)
        return usage();
    const char *level = ser ? "serializability" : "snapshot isolation";

    psi_read_opts ropts = {.format = PSI_FMT_AUTO};
    psi_history *h;
    psi_diag d;
    if (psi_read_history(path, &ropts, &h, &d) != PSI_OK) {
        fprintf(stderr, "check_history: %s\n", d.msg);
        return 2;
    }

    psi_check_opts copts = {.ser = ser};
    psi_check_result res;
    int rc = 2;
    if (psi_check(h, &copts, &res, &d) != PSI_OK) {
        fprintf(stderr, "check_history: %s\n", d.msg);
    } else if (res.verdict == PSI_ACCEPT) {
        printf("accept: %s satisfies %s\n", path, level);
        rc = 0;
    } else {
        printf("reject: %s violates %s\n", path, level);
        rc = explain(h, &res, ser) ? 1 : 2;
    }
    psi_check_result_free(&res); /* also after an error: see check/check.h */
    psi_history_free(h);
    return rc;
}
