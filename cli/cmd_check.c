/* `polysi-solve check`: parse the options, then check one history
 * (check_run.c: the full report) or many (batch.c: a line each and a
 * summary). Exit codes: 0 accept, 1 reject, 2 error. */
#include "cli/args.h"
#include "cli/batch.h"
#include "cli/check_run.h"
#include "cli/commands.h"
#include "cli/html.h"
#include "cli/outfile.h"
#include "interpret/explain.h"
#include "interpret/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* --all-anomalies without a number: at most this many independent cycles. */
#define ALL_ANOMALIES_DEFAULT 16u

static void help(void)
{
    printf("usage: polysi-solve check [OPTIONS] PATH...\n\n"
           "Checks the history at PATH (a file, or a directory of Cobra T*.log files).\n"
           "With several PATHs, or --recursive, checks each: one line per history and a\n"
           "summary.\n\n"
           "  --isolation L             the level to check, in any case: pl2 (adya-pl-2),\n"
           "                            rc (read-committed), ra (read-atomic), cc (causal),\n"
           "                            si (snapshot-isolation, the default) or ser\n"
           "                            (serializability); pl2, rc, ra and cc are checked\n"
           "                            in polynomial time without the solver; with\n"
           "                            real time (EDN/JSON :invoke ops): strong-si,\n"
           "                            strict-ser; strong-session-si and -ser are si, ser\n"
           "  --format F                text|dbcop|cobra|edn|json|awdit (default: detect)\n"
           "  --initial-state S         implicit (reads of 0 / nil read an initial\n"
           "                            transaction) or recorded (every write is recorded,\n"
           "                            text, dbcop, AWDIT only); default: the format's\n"
           "                            own (AWDIT: recorded, others: implicit)\n"
           "  --json                    one JSON object on stdout instead of text (an array\n"
           "                            of them for several PATHs); errors are JSON objects\n"
           "                            too: {\"error\": {\"message\", \"file\", ...}}\n"
           "  --stats                   stage times, counts and peak memory\n"
           "  --all-anomalies[=N]       on reject, list every graph-free anomaly and up to N\n"
           "                            independent violations (default %u), each with its\n"
           "                            counterexample, and say whether more remain\n"
           "  --progress, --no-progress show the stage, how far it is, elapsed time and peak\n"
           "                            memory on stderr while checking (default: on when\n"
           "                            stderr is a terminal)\n"
           "  --init MODE               the recorded initial state: auto (default: the\n"
           "                            file's first transaction, when it only writes 0,\n"
           "                            is merged into the initial transaction), none, or\n"
           "                            (SESSION,ID) to name that transaction\n"
           "  --no-pruning              hand every constraint to the solver\n",
           ALL_ANOMALIES_DEFAULT);
    printf("  --exact-pruning           prune to the fixpoint (default: stop the rounds on a\n"
           "                            large history once one resolves under 1%% of the\n"
           "                            open constraints; the solver decides the rest)\n"
           "  --lazy-pairs N            SI and SER with repeated values: from N writer\n"
           "                            pairs, try lazy refinement first (default 0:\n"
           "                            never; experimental, see bench/README)\n"
           "  --restricted MODE         SI and SER with repeated values: first try the\n"
           "                            problem restricted to the sessions' estimated\n"
           "                            times (its accept is the verdict, else the usual\n"
           "                            path decides): auto (default: SI from 2^24\n"
           "                            read-from candidates), on, or off\n"
           "  --restricted-window N     its window in transactions (default 0: 6 times\n"
           "                            the root of their number; a retry doubles it)\n"
           "  --threads N               pruning's workers (default 0: all cores, on\n"
           "                            large histories); the result is the same for any N\n");
    /* Two printf calls: one string literal may not pass 4095 bytes
     * (-Woverlength-strings). */
    printf("  --no-coalescing           one constraint per (writer pair, key)\n"
           "  --no-theory-propagation   solver: detect cycles only on activation\n"
           "  --timeout S               give up (exit 2, no verdict) after S seconds of the\n"
           "                            whole run; the message names the stage (0: no limit,\n"
           "                            the default)\n"
           "  --max-memory MB           give up (exit 2, no verdict) when the resident set\n"
           "                            passes MB MiB; the message names the stage\n"
           "                            (default: 90%% of the machine's memory, or of its\n"
           "                            cgroup's limit; 0: no limit)\n"
           "  --interpret-budget N      on reject, at most N local solver calls to restore and\n"
           "                            minimize the counterexample (default %u; 0: no\n"
           "                            interpretation, only the cycle(s) found)\n"
           "  --dot FILE                on reject, write the counterexample as Graphviz DOT\n"
           "  --html FILE               write an HTML report to FILE (one history or a\n"
           "                            batch): a summary table, and per reject the\n"
           "                            counterexample drawn (by Graphviz when installed,\n"
           "                            else by a layout of our own), its transactions and\n"
           "                            the text report; per accept the stage timings.\n"
           "                            Self-contained: no scripts, nothing fetched\n"
           "  --version-order FILE      known version orders (the witness format's key and\n"
           "                            chain lines): known WW edges before pruning; a\n"
           "                            contradiction is a violation naming FILE:LINE\n"
           "  --timestamps FILE         start and commit timestamps, '(SESSION,ID) START\n"
           "                            COMMIT' lines: complete ones are checked by replay\n"
           "                            (no solver), partial ones add known edges\n"
           "  --witness FILE            on accept, write the version order of every key (and\n"
           "                            for --isolation ser a serialization order) to FILE;\n"
           "                            re-check it with 'polysi-solve verify-witness'\n"
           "                            (both files are opened before the check starts; a\n"
           "                            file from an earlier run is removed when there is\n"
           "                            nothing to write, and the message says so)\n\n"
           "Several histories:\n"
           "  --recursive               a directory PATH is searched for histories: files\n"
           "                            named *.txt, *.edn, *.bincode, *.json, *.jsonl and\n"
           "                            directories of Cobra T<n>.log files\n"
           "  -j N, --jobs N            check N histories at once (default 1), each in a\n"
           "                            process of its own: --timeout and --max-memory bound\n"
           "                            each history alone, and one that hits a limit is an\n"
           "                            error in its line while the others go on\n\n"
           "Exit codes: 0 accept, 1 reject (a violation was found), 2 error; for several\n"
           "histories 2 if any is an error, else 1 if any is rejected, else 0.\n",
           PSI_INTERPRET_BUDGET_DEFAULT);
}

/* A usage error: printed on stderr and, with --json, as a JSON error
 * object on stdout (stage "usage"). Returns 2. */
static int usage_error(bool json, const char *msg)
{
    fprintf(stderr, "polysi-solve check: %s\n", msg);
    if (json) {
        psi_json j;
        psi_json_init(&j, stdout);
        psi_json_begin_object(&j, NULL);
        psi_json_begin_object(&j, "error");
        psi_json_str(&j, "message", msg);
        psi_json_null(&j, "file");
        psi_json_str(&j, "stage", "usage");
        psi_json_end_object(&j);
        psi_json_end_object(&j);
        putchar('\n');
    }
    return 2;
}

/* -j N, -jN, --jobs N, --jobs=N: true when arg is one (a.value is N). */
static bool jobs_option(psi_args *a, const char *arg)
{
    if (psi_args_opt(a, arg, "-j") || psi_args_opt(a, arg, "--jobs"))
        return true;
    if (strncmp(arg, "-j", 2) != 0 || arg[2] < '0' || arg[2] > '9')
        return false;
    a->name = "-j";
    a->value = arg + 2;
    return true;
}

static bool wants_json(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            return true;
    return false;
}

/* Returns -1 to go on, else the exit code (0 after --help, 2 on misuse;
 * the message is printed). c->paths points into a list allocated here. */
static int parse(psi_check_cli *c, int argc, char **argv, const char **paths)
{
    bool json = wants_json(argc, argv);
    psi_args a;
    psi_args_init(&a, argc, argv);
    a.quiet = true;
    const char *arg;
    bool opt;
    char msg[512];
    while (psi_args_next(&a, &arg, &opt)) {
        msg[0] = '\0';
        if (!opt) {
            paths[c->n_paths++] = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--json")) {
            c->json = true;
        } else if (psi_args_flag(&a, arg, "--stats")) {
            c->stats = true;
        } else if (psi_args_flag(&a, arg, "--recursive") || psi_args_flag(&a, arg, "-r")) {
            c->recursive = true;
        } else if (psi_args_flag(&a, arg, "--progress")) {
            c->progress = 1;
        } else if (psi_args_flag(&a, arg, "--no-progress")) {
            c->progress = 0;
        } else if (psi_args_flag(&a, arg, "--all-anomalies")) {
            c->max_anomalies = ALL_ANOMALIES_DEFAULT;
        } else if (strncmp(arg, "--all-anomalies=", 16) == 0) {
            a.value = arg + 16;
            if (psi_args_u32(&a, "--all-anomalies", &c->max_anomalies) && !c->max_anomalies)
                snprintf(msg, sizeof msg, "--all-anomalies needs at least 1");
        } else if (psi_args_opt(&a, arg, "--init")) {
            if (!a.failed && !psi_parse_init(a.value, &c->co.init))
                snprintf(msg, sizeof msg, "--init takes auto, none or (SESSION,ID), not '%s'",
                         a.value);
        } else if (psi_args_flag(&a, arg, "--no-pruning")) {
            c->co.no_pruning = true;
        } else if (psi_args_flag(&a, arg, "--exact-pruning")) {
            c->co.exact_pruning = true;
        } else if (psi_args_opt(&a, arg, "--lazy-pairs")) {
            psi_args_u64(&a, "--lazy-pairs", &c->co.lazy_pairs);
        } else if (psi_args_opt(&a, arg, "--restricted")) {
            if (a.failed) {
            } else if (!strcmp(a.value, "auto")) {
                c->co.restricted = PSI_RESTRICTED_AUTO;
            } else if (!strcmp(a.value, "on")) {
                c->co.restricted = PSI_RESTRICTED_ON;
            } else if (!strcmp(a.value, "off")) {
                c->co.restricted = PSI_RESTRICTED_OFF;
            } else {
                snprintf(msg, sizeof msg, "--restricted takes auto, on or off, not '%s'", a.value);
            }
        } else if (psi_args_opt(&a, arg, "--restricted-window")) {
            psi_args_u32(&a, "--restricted-window", &c->co.restricted_window);
        } else if (psi_args_opt(&a, arg, "--threads")) {
            if (!a.failed && psi_args_u32(&a, "--threads", &c->co.threads) && c->co.threads > 1024)
                snprintf(msg, sizeof msg, "--threads takes 0 (all cores) to 1024, not %u",
                         c->co.threads);
        } else if (psi_args_flag(&a, arg, "--no-coalescing")) {
            c->co.no_coalescing = true;
        } else if (psi_args_flag(&a, arg, "--no-theory-propagation")) {
            c->co.no_theory_propagation = true;
        } else if (psi_args_opt(&a, arg, "--interpret-budget")) {
            psi_args_u64(&a, "--interpret-budget", &c->budget);
        } else if (psi_args_opt(&a, arg, "--dot")) {
            c->dot_path = a.value;
        } else if (psi_args_opt(&a, arg, "--html")) {
            c->html_path = a.value;
        } else if (psi_args_opt(&a, arg, "--witness")) {
            c->witness_path = a.value;
        } else if (psi_args_opt(&a, arg, "--version-order")) {
            c->version_order_path = a.value;
        } else if (psi_args_opt(&a, arg, "--timestamps")) {
            c->timestamps_path = a.value;
        } else if (jobs_option(&a, arg)) {
            if (!a.failed && psi_args_u32(&a, "-j", &c->jobs) && (c->jobs == 0 || c->jobs > 1024))
                snprintf(msg, sizeof msg, "-j takes 1 to 1024 jobs, not %u", c->jobs);
        } else if (psi_limits_option(&a, arg, &c->lim)) {
            /* --timeout, --max-memory */
        } else if (psi_args_opt(&a, arg, "--time-limit")) {
            /* One meaning per flag: sat's --time-limit answers UNKNOWN;
             * check has no such answer, so it bounds runs with --timeout. */
            snprintf(msg, sizeof msg,
                     "no option --time-limit (that is sat's solver budget); --timeout S "
                     "bounds the whole check");
        } else if (psi_args_opt(&a, arg, "--isolation")) {
            psi_level l;
            if (!a.failed && psi_level_parse(a.value, &l)) {
                c->co.level = l;
                c->co.ser = psi_level_base(l) == PSI_LEVEL_SER;
            } else if (!a.failed) {
                snprintf(msg, sizeof msg,
                         "--isolation: unknown level '%s'; the levels are " PSI_LEVEL_NAMES,
                         a.value);
            }
        } else if (psi_args_initial_state(&a, arg, &c->ro.initial_state)) {
            if (a.failed && a.error == PSI_ARGS_BAD_VALUE)
                snprintf(msg, sizeof msg, "--initial-state takes implicit or recorded, not '%s'",
                         a.value);
        } else if (psi_args_opt(&a, arg, "--format")) {
            c->ro.format = psi_format_from_name(a.value);
            if (c->ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0 && !a.failed)
                snprintf(msg, sizeof msg, "unknown format '%s'", a.value);
        } else {
            snprintf(msg, sizeof msg, "unknown option %s (see polysi-solve check --help)", arg);
        }
        if (a.failed && !msg[0]) {
            if (a.error == PSI_ARGS_NO_VALUE)
                snprintf(msg, sizeof msg, "option %s needs a value", a.name);
            else
                snprintf(msg, sizeof msg, "bad value '%s' for %s", a.value, a.name);
        }
        if (msg[0])
            return usage_error(json, msg);
    }
    c->paths = paths;
    if (!c->n_paths)
        return usage_error(json, "missing PATH (see --help)");
    bool batch = c->n_paths > 1 || c->recursive;
    if (batch && (c->dot_path || c->witness_path))
        return usage_error(json, "--dot and --witness take one history; check it alone");
    if (batch && (c->version_order_path || c->timestamps_path))
        return usage_error(json,
                           "--version-order and --timestamps describe one history; check it alone");
    if (c->version_order_path && c->max_anomalies)
        /* The other anomalies are found in sub-histories, which the
         * hints' transactions need not be part of (timestamps are
         * per transaction: interpret/all.c keeps those left). */
        return usage_error(json, "--all-anomalies does not take --version-order yet");
    return -1;
}

/* The HTML page of a batch: every history in order (none is left out: a
 * history the batch never reached is not in b). */
static bool write_batch_page(const psi_batch *b, FILE *out)
{
    psi_html_entry *e = calloc(b->n ? b->n : 1, sizeof *e);
    if (!e)
        return false;
    size_t n = 0;
    for (size_t i = 0; i < b->n; i++)
        if (b->items[i].done)
            e[n++] = (psi_html_entry){.s = &b->items[i].s, .detail = b->items[i].html};
    bool ok = psi_html_write_page(e, n, out);
    free(e);
    return ok;
}

int psi_cmd_check(int argc, char **argv)
{
    psi_check_cli c = {.budget = PSI_INTERPRET_BUDGET_DEFAULT, .progress = -1, .jobs = 1};
    const char **paths = calloc((size_t)argc + 1, sizeof *paths);
    if (!paths) {
        fprintf(stderr, "polysi-solve: out of memory\n");
        return 2;
    }
    int rc = parse(&c, argc, argv, paths);
    if (rc >= 0) {
        free(paths);
        return rc;
    }
    /* --html is opened first: an unwritable path fails in seconds. */
    psi_outfile html;
    memset(&html, 0, sizeof html);
    psi_diag d;
    psi_diag_clear(&d);
    if (c.html_path && psi_outfile_open(&html, c.html_path, &d) != PSI_OK) {
        free(paths);
        return usage_error(c.json, d.msg);
    }
    bool show = c.progress == 1 || (c.progress < 0 && isatty(STDERR_FILENO));
    psi_progress_line *pl = show ? psi_progress_line_start(isatty(STDERR_FILENO)) : NULL;
    bool page = false;
    if (c.n_paths > 1 || c.recursive) {
        psi_batch b;
        rc = 2;
        if (psi_batch_collect(&c, &b)) {
            rc = psi_batch_run(&c, &b, pl);
            page = html.f && write_batch_page(&b, html.f);
            psi_batch_free(&b);
        }
    } else {
        char *frag = NULL;
        psi_run_io io = {.report = stdout,
                         .print_errors = true,
                         .outputs = true,
                         .progress = pl,
                         .html = c.html_path ? &frag : NULL,
                         .html_id = "cx1"};
        psi_summary s;
        rc = psi_check_run(&c, c.paths[0], &io, &s);
        psi_html_entry e = {.s = &s, .detail = frag};
        page = html.f && psi_html_write_page(&e, 1, html.f);
        free(frag);
        psi_summary_free(&s);
    }
    psi_progress_line_stop(pl);
    if (html.f) {
        /* The verdict stands; a report that cannot be written makes the
         * exit 2, after it. */
        if (!page) {
            psi_outfile_discard(&html, false, NULL);
            fprintf(stderr, "polysi-solve: %s: the HTML report could not be written\n",
                    c.html_path);
            rc = 2;
        } else if (psi_outfile_commit(&html, &d) != PSI_OK) {
            fprintf(stderr, "polysi-solve: %s\n", d.msg);
            rc = 2;
        }
    }
    free(paths);
    return rc;
}
