/* `polysi-solve sat`: runs the built-in solver on a DIMACS CNF or GNF
 * (acyclicity) file and answers in the SAT-competition convention, so the
 * solver can be compared with minisat, cadical or MonoSAT on the same
 * files. Exit codes: 10 SAT, 20 UNSAT, 0 UNKNOWN, 2 usage/parse/memory. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/limits.h"
#include "cli/sat_report.h"
#include "solver/acyclic.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void sat_usage(FILE *out)
{
    fprintf(out,
            "usage: polysi-solve sat [OPTIONS] FILE\n\n"
            "Solves a DIMACS CNF file, or a GNF file (CNF plus MonoSAT-style 'digraph',\n"
            "'edge' and 'acyclic' lines), with the built-in CDCL solver. FILE '-' is stdin.\n\n"
            "options:\n"
            "  --stats                   print statistics as 'c' comment lines\n"
            "  --proof FILE              write a DRAT proof (pure CNF only)\n"
            "  --time-limit SECONDS      give up (s UNKNOWN, exit 0) after this wall time of\n"
            "                            solving\n"
            "  --conflict-limit N        give up (s UNKNOWN, exit 0) after N conflicts\n"
            "  --timeout SECONDS         give up with an error (exit 2, no answer) after this\n"
            "                            wall time, in any stage; the message names it\n"
            "                            (0: no limit, the default)\n"
            "  --max-memory MB           give up with an error (exit 2, no answer) when the\n"
            "                            resident set passes MB MiB (default: 90%% of the\n"
            "                            machine's memory, or of its cgroup's limit; 0: none)\n"
            "  --no-theory-propagation   acyclicity theory: detect cycles only\n"
            "  --no-symmetry             do not break the symmetries of pigeonhole-like or\n"
            "                            colouring-like clauses (on by default for pure CNF;\n"
            "                            always off with --proof: DRAT cannot certify it)\n"
            "  --help                    show this text\n\n"
            "Output: 's SATISFIABLE' and 'v' lines, 's UNSATISFIABLE' or 's UNKNOWN'.\n"
            "Exit codes: 10 satisfiable, 20 unsatisfiable, 0 unknown, 2 error.\n");
}

/* What the command line asks for. */
typedef struct sat_cli {
    const char *path, *proof_path;
    bool stats, theory_prop, symmetry;
    double time_limit;      /* seconds of solving, < 0: none */
    int64_t conflict_limit; /* < 0: none */
    psi_limits lim;         /* --timeout, --max-memory */
} sat_cli;

static int bad_option(const char *arg)
{
    fprintf(stderr, "polysi-solve sat: unknown or incomplete option '%s'\n\n", arg);
    sat_usage(stderr);
    return 2;
}

/* Returns -1 to go on, else the exit code (0 after --help, 2 on misuse).
 * args.h runs quiet: sat words its errors as it always has; "-" alone is
 * stdin, "-h" is --help, any other "-x" an unknown option. */
static int parse(sat_cli *c, int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    a.quiet = true;
    const char *arg;
    bool opt;
    while (psi_args_next(&a, &arg, &opt)) {
        uint64_t n;
        if (opt && psi_args_help(&a, arg)) {
            sat_usage(stdout);
            return 0;
        } else if (opt && arg[1] != '-') {
            return bad_option(arg);
        } else if (!opt) {
            if (c->path) {
                fprintf(stderr, "polysi-solve sat: only one input file is allowed\n");
                return 2;
            }
            c->path = arg;
        } else if (psi_args_flag(&a, arg, "--stats")) {
            c->stats = true;
        } else if (psi_args_flag(&a, arg, "--no-theory-propagation")) {
            c->theory_prop = false;
        } else if (psi_args_flag(&a, arg, "--no-symmetry")) {
            c->symmetry = false;
        } else if (psi_args_opt(&a, arg, "--proof")) {
            c->proof_path = a.value;
        } else if (psi_args_opt(&a, arg, "--time-limit")) {
            if (!a.failed)
                psi_args_double(&a, "--time-limit", &c->time_limit);
        } else if (psi_args_opt(&a, arg, "--conflict-limit")) {
            /* The solver counts conflicts in int64_t: larger is a bad value. */
            if (!a.failed && psi_args_u64(&a, "--conflict-limit", &n) && n > INT64_MAX)
                a.failed = true;
            else if (!a.failed)
                c->conflict_limit = (int64_t)n;
        } else if (!psi_limits_option(&a, arg, &c->lim)) {
            return bad_option(arg);
        }
        if (a.failed && a.error == PSI_ARGS_NO_VALUE)
            return bad_option(arg);
        if (a.failed) {
            fprintf(stderr, "polysi-solve sat: bad %s '%s'\n", a.name, a.value);
            return 2;
        }
    }
    if (!c->path) {
        sat_usage(stderr);
        return 2;
    }
    return -1;
}

/* Reads the DIMACS/GNF input ("-": stdin, called name in messages) into d.
 * On failure it stops the watchdog first, so its message and the error's
 * never mix, prints why and returns false (d is freed). */
static bool read_input(const char *path, const char *name, psi_dimacs *d, psi_watchdog *wd)
{
    FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!in) {
        int e = errno;
        psi_limits_stop(wd);
        fprintf(stderr, "polysi-solve sat: cannot open '%s': %s\n", path, strerror(e));
        return false;
    }
    psi_dimacs_error err;
    int rc = psi_dimacs_parse_file(in, d, &err);
    if (in != stdin)
        fclose(in);
    if (!rc)
        return true;
    psi_limits_stop(wd);
    if (err.line)
        fprintf(stderr, "%s:%llu:%llu: %s\n", name, (unsigned long long)err.line,
                (unsigned long long)err.col, err.msg);
    else
        fprintf(stderr, "%s: %s\n", name, err.msg);
    psi_dimacs_free(d);
    return false;
}

int psi_cmd_sat(int argc, char **argv)
{
    sat_cli c = {.theory_prop = true, .symmetry = true, .time_limit = -1, .conflict_limit = -1};
    int prc = parse(&c, argc, argv);
    if (prc >= 0)
        return prc;
    /* The watchdog ends the process with exit 2 when a limit is hit; it is
     * stopped before the answer is printed, so an answer is never cut. */
    bool wd_failed;
    psi_watchdog *wd = psi_limits_start(&c.lim, &wd_failed);
    if (wd_failed)
        return 2;
    psi_limits_stage(wd, "parse");
    const char *name = strcmp(c.path, "-") ? c.path : "<stdin>";
    psi_dimacs d;
    if (!read_input(c.path, name, &d, wd))
        return 2;
    psi_dimacs_error err;
    int code = 2;
    FILE *proof = NULL;
    psi_acyc *g = NULL;
    psi_sat *s = psi_sat_new();
    if (!s) {
        fprintf(stderr, "polysi-solve sat: out of memory\n");
        goto out;
    }
    if (c.proof_path) {
        if (d.nedges) {
            fprintf(stderr, "polysi-solve sat: --proof needs pure CNF (no graph lines)\n");
            goto out;
        }
        proof = fopen(c.proof_path, "w");
        if (!proof) {
            fprintf(stderr, "polysi-solve sat: cannot write '%s': %s\n", c.proof_path,
                    strerror(errno));
            goto out;
        }
        psi_sat_set_proof(s, proof);
    }
    psi_limits_stage(wd, "load");
    if (psi_dimacs_load(&d, s, &g, NULL, &err)) {
        fprintf(stderr, "%s: %s\n", name, err.msg);
        goto out;
    }
    if (g)
        psi_acyc_set_propagation(g, c.theory_prop);
    /* One solve, so symmetry breaking may make the solver one-shot. Its
     * clauses keep satisfiability but are not implied by the formula, so a
     * DRAT proof could not justify them: never with --proof (nor with a
     * theory, which the solver checks itself). Without it tph6 and the
     * pigeonhole files are out of reach. */
    if (c.symmetry && !proof && !g && psi_sat_set_option(s, "symmetry", 1)) {
        fprintf(stderr, "polysi-solve sat: cannot set symmetry breaking\n");
        goto out;
    }
    psi_sat_set_time_limit(s, c.time_limit);
    psi_sat_set_conflict_limit(s, c.conflict_limit);
    psi_limits_stage(wd, "solve");
    int r = psi_sat_solve(s);
    psi_limits_stop(wd);
    wd = NULL;
    if (c.stats)
        psi_cli_sat_stats(stdout, s, g);
    code = psi_cli_sat_answer(stdout, s, r, d.nvars);
out:
    psi_limits_stop(wd);
    psi_sat_free(s);
    psi_acyc_free(g);
    if (proof && fclose(proof)) {
        fprintf(stderr, "polysi-solve sat: error writing the proof\n");
        code = 2;
    }
    psi_dimacs_free(&d);
    return code;
}
