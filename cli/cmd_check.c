/* `polysi-solve check`: parse the options, load the history, run the whole
 * check (check/), explain a reject (interpret/explain.h) or read a witness
 * off an accept (interpret/witness.h) under the --timeout/--max-memory
 * watchdog, then hand everything to the renderers (interpret/render.h) and
 * choose the exit code: 0 accept, 1 reject, 2 error. */
#include "check/check.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/limits.h"
#include "formats/read.h"
#include "interpret/explain.h"
#include "interpret/render.h"
#include "interpret/witness.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>

static void help(void)
{
    printf("usage: polysi-solve check [OPTIONS] PATH\n\n"
           "Checks the history at PATH (a file, or a directory of Cobra T*.log files).\n\n"
           "  --isolation L             si (snapshot isolation, default) or ser, in any case\n"
           "  --format F                text | dbcop | cobra | edn (default: detect)\n"
           "  --json                    one JSON object on stdout instead of text\n"
           "  --stats                   stage times, counts and peak memory\n"
           "  --no-pruning              hand every constraint to the solver\n"
           "  --no-coalescing           one constraint per (writer pair, key)\n"
           "  --no-theory-propagation   solver: detect cycles only on activation\n"
           "  --timeout S               give up (exit 2, no verdict) after S seconds of the\n"
           "                            whole run; the message names the stage (0: no limit,\n"
           "                            the default)\n"
           "  --max-memory MB           give up (exit 2, no verdict) when the resident set\n"
           "                            passes MB MiB; the message names the stage\n"
           "                            (0: no limit, the default)\n"
           "  --interpret-budget N      on reject, at most N local solver calls to restore and\n"
           "                            minimize the counterexample (default %u; 0: no\n"
           "                            interpretation, only the cycle(s) found)\n"
           "  --dot FILE                on reject, write the counterexample as Graphviz DOT\n"
           "  --witness FILE            on accept, write the version order of every key (and\n"
           "                            for --isolation ser a serialization order) to FILE;\n"
           "                            re-check it with 'polysi-solve verify-witness'\n\n"
           "Exit codes: 0 accept, 1 reject (a violation was found), 2 error.\n",
           PSI_INTERPRET_BUDGET_DEFAULT);
}

static size_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024u; /* Linux reports KiB */
}

static bool save_witness(const psi_history *h, const psi_check_result *res, bool ser,
                         const char *path)
{
    psi_witness w;
    psi_diag d;
    if (psi_witness_build(h, res, ser, &w, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return false;
    }
    FILE *f = fopen(path, "w");
    bool ok = f && psi_witness_write(&w, h->source, f, path, &d) == PSI_OK;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "polysi-solve: cannot write the witness to %s\n", path);
    psi_witness_free(&w);
    return ok;
}

/* Writes the counterexample as DOT to path; false (message printed) when
 * the file cannot be written. */
static bool save_dot(const psi_history *h, const psi_cex *cx, const psi_render_opts *rend,
                     const char *path)
{
    FILE *f = fopen(path, "w");
    bool ok = f && psi_render_dot(h, cx, rend, f);
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "polysi-solve: cannot write %s\n", path);
    return ok;
}

/* Everything the command line says. */
typedef struct check_cli {
    psi_read_opts ro;
    psi_check_opts co;
    psi_limits lim;
    const char *path, *dot_path, *witness_path;
    uint64_t budget; /* --interpret-budget */
    bool json, stats;
} check_cli;

/* Returns -1 to go on, else the exit code (0 after --help, 2 on misuse;
 * the message is printed). */
static int parse(check_cli *c, int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    const char *arg;
    bool opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (c->path) {
                fprintf(stderr, "polysi-solve check: more than one PATH given\n");
                return 2;
            }
            c->path = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--json")) {
            c->json = true;
        } else if (psi_args_flag(&a, arg, "--stats")) {
            c->stats = true;
        } else if (psi_args_flag(&a, arg, "--no-pruning")) {
            c->co.no_pruning = true;
        } else if (psi_args_flag(&a, arg, "--no-coalescing")) {
            c->co.no_coalescing = true;
        } else if (psi_args_flag(&a, arg, "--no-theory-propagation")) {
            c->co.no_theory_propagation = true;
        } else if (psi_args_opt(&a, arg, "--interpret-budget")) {
            psi_args_u64(&a, "--interpret-budget", &c->budget);
        } else if (psi_args_opt(&a, arg, "--dot")) {
            c->dot_path = a.value;
        } else if (psi_args_opt(&a, arg, "--witness")) {
            c->witness_path = a.value;
        } else if (psi_limits_option(&a, arg, &c->lim)) {
            /* --timeout, --max-memory */
        } else if (psi_args_opt(&a, arg, "--time-limit")) {
            /* One meaning per flag: sat's --time-limit answers UNKNOWN;
             * check has no such answer, so it bounds runs with --timeout. */
            fprintf(stderr, "polysi-solve check: no option --time-limit (that is sat's solver "
                            "budget); --timeout S bounds the whole check\n");
            return 2;
        } else if (psi_args_opt(&a, arg, "--isolation")) {
            if (strcasecmp(a.value, "si") == 0)
                c->co.ser = false;
            else if (strcasecmp(a.value, "ser") == 0)
                c->co.ser = true;
            else {
                fprintf(stderr, "polysi-solve check: --isolation takes si or ser, not '%s'\n",
                        a.value);
                return 2;
            }
        } else if (psi_args_opt(&a, arg, "--format")) {
            c->ro.format = psi_format_from_name(a.value);
            if (c->ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0) {
                fprintf(stderr, "polysi-solve check: unknown format '%s'\n", a.value);
                return 2;
            }
        } else {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (!c->path) {
        fprintf(stderr, "polysi-solve check: missing PATH (see --help)\n");
        return 2;
    }
    return -1;
}

int psi_cmd_check(int argc, char **argv)
{
    check_cli c = {.budget = PSI_INTERPRET_BUDGET_DEFAULT};
    int prc = parse(&c, argc, argv);
    if (prc >= 0)
        return prc;
    /* Limits cover loading, checking and interpreting; outputs are written
     * only after the watchdog is stopped, so no verdict or witness is ever
     * cut short. */
    bool wd_failed;
    psi_watchdog *wd = psi_limits_start(&c.lim, &wd_failed);
    if (wd_failed)
        return 2;
    psi_limits_stage(wd, "load");
    c.co.on_stage = psi_limits_on_stage;
    c.co.stage_ctx = wd;
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    double t0 = psi_now();
    if (psi_read_history(c.path, &c.ro, &h, &d) != PSI_OK) {
        psi_limits_stop(wd);
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    double t_load = psi_now() - t0;
    c.co.keep_model = c.witness_path != NULL;
    psi_check_result res;
    if (psi_check(h, &c.co, &res, &d) != PSI_OK) {
        psi_limits_stop(wd);
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        psi_check_result_free(&res);
        psi_history_free(h);
        return 2;
    }
    int rc = res.verdict == PSI_ACCEPT ? 0 : 1;
    psi_cex cx;
    psi_cex_opts xo = {.ser = c.co.ser, .budget = c.budget};
    memset(&cx, 0, sizeof cx);
    /* --interpret-budget 0: no interpretation, only the raw cycle(s). */
    psi_limits_stage(wd, "interpret");
    psi_status xst = c.budget ? psi_cex_build(h, &res, &xo, &cx, &d) : PSI_OK;
    psi_limits_stop(wd);
    if (xst != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        psi_check_result_free(&res);
        psi_history_free(h);
        return 2;
    }
    psi_render_opts rend = {
        .ser = c.co.ser, .stats = c.stats, .path = c.path, .load_seconds = t_load};
    if (rc == 0 && c.witness_path && !save_witness(h, &res, c.co.ser, c.witness_path))
        rc = 2;
    if (rc == 1 && c.dot_path && cx.present && !save_dot(h, &cx, &rend, c.dot_path))
        rc = 2;
    rend.peak_bytes = peak_rss_bytes();
    /* A failed write to stdout never changed the exit code: that is the
     * verdict, and the pipe is the caller's to check. */
    if (rc != 2 && c.json)
        (void)psi_render_json(h, &res, &cx, &rend, stdout);
    else if (rc != 2)
        (void)psi_render_text(h, &res, &cx, &rend, stdout);
    psi_cex_free(&cx);
    psi_check_result_free(&res);
    psi_history_free(h);
    return rc;
}
