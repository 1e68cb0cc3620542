/* `polysi-solve sat`: runs the built-in solver on a DIMACS CNF or GNF
 * (acyclicity) file and answers in the SAT-competition convention, so the
 * solver can be compared with minisat, cadical or MonoSAT on the same
 * files. Exit codes: 10 SAT, 20 UNSAT, 0 UNKNOWN, 2 usage/parse/memory. */
#include "cli/commands.h"
#include "cli/limits.h"
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
            "  --time-limit SECONDS      give up (s UNKNOWN) after this wall time\n"
            "  --conflict-limit N        give up (s UNKNOWN) after N conflicts\n"
            "  --timeout SECONDS         give up with an error (exit 2, no answer) after this\n"
            "                            wall time, in any stage; the message names it\n"
            "  --max-memory MB           give up with an error (exit 2, no answer) when the\n"
            "                            resident set passes MB MiB\n"
            "  --no-theory-propagation   acyclicity theory: detect cycles only\n"
            "  --help                    show this text\n\n"
            "Output: 's SATISFIABLE' and 'v' lines, 's UNSATISFIABLE' or 's UNKNOWN'.\n"
            "Exit codes: 10 satisfiable, 20 unsatisfiable, 0 unknown, 2 error.\n");
}

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= 0))
        return false;
    *out = v;
    return true;
}

static bool parse_count(const char *s, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < 0)
        return false;
    *out = v;
    return true;
}

/* Prints the model in 'v' lines of at most about 78 characters. */
static void print_model(const psi_sat *s, int nvars)
{
    char line[96];
    size_t n = 0;
    for (int v = 1; v <= nvars + 1; v++) {
        char tok[16];
        int len = v <= nvars ? snprintf(tok, sizeof tok, " %d", psi_sat_value(s, v) > 0 ? v : -v)
                             : snprintf(tok, sizeof tok, " 0");
        if (n + (size_t)len > 78) {
            printf("v%.*s\n", (int)n, line);
            n = 0;
        }
        memcpy(line + n, tok, (size_t)len);
        n += (size_t)len;
    }
    printf("v%.*s\n", (int)n, line);
}

static void print_stats(const psi_sat *s, const psi_acyc *g)
{
    psi_sat_stats st;
    psi_sat_get_stats(s, &st);
    double t = st.solve_seconds > 0 ? st.solve_seconds : 1e-9;
    printf("c variables            %llu\n", (unsigned long long)st.vars);
    printf("c clauses              %llu\n", (unsigned long long)st.clauses);
    printf("c decisions            %llu\n", (unsigned long long)st.decisions);
    printf("c propagations         %llu (%.0f per second)\n", (unsigned long long)st.propagations,
           (double)st.propagations / t);
    printf("c conflicts            %llu (%.0f per second)\n", (unsigned long long)st.conflicts,
           (double)st.conflicts / t);
    printf("c restarts             %llu\n", (unsigned long long)st.restarts);
    printf("c learned clauses      %llu (average length %.1f, minimized away %llu literals)\n",
           (unsigned long long)st.learned,
           st.learned ? (double)st.learned_literals / (double)st.learned : 0.0,
           (unsigned long long)st.minimized_literals);
    printf("c reductions           %llu (%llu clauses deleted)\n",
           (unsigned long long)st.reductions, (unsigned long long)st.deleted);
    if (g) {
        psi_acyc_stats as;
        psi_acyc_get_stats(g, &as);
        printf("c theory calls         %llu\n", (unsigned long long)st.theory_calls);
        printf("c theory conflicts     %llu (average clause length %.1f)\n",
               (unsigned long long)st.theory_conflicts,
               as.conflicts ? (double)as.conflict_lits / (double)as.conflicts : 0.0);
        printf("c theory propagations  %llu (%llu explained)\n",
               (unsigned long long)st.theory_propagations,
               (unsigned long long)st.theory_explanations);
        printf("c theory reorders      %llu (%llu nodes visited)\n",
               (unsigned long long)as.reorders, (unsigned long long)as.visited);
        printf("c theory time          %.3f s (%.1f %%)\n", st.theory_seconds,
               100.0 * st.theory_seconds / t);
    }
    printf("c solve time           %.3f s\n", st.solve_seconds);
}

int psi_cmd_sat(int argc, char **argv)
{
    bool stats = false, theory_prop = true;
    const char *proof_path = NULL, *path = NULL;
    double time_limit = -1;
    long long conflict_limit = -1, max_mb = 0;
    psi_limits lim = {0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            sat_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--stats")) {
            stats = true;
        } else if (!strcmp(a, "--no-theory-propagation")) {
            theory_prop = false;
        } else if (!strcmp(a, "--proof") && i + 1 < argc) {
            proof_path = argv[++i];
        } else if (!strcmp(a, "--time-limit") && i + 1 < argc) {
            if (!parse_double(argv[++i], &time_limit)) {
                fprintf(stderr, "polysi-solve sat: bad --time-limit '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--timeout") && i + 1 < argc) {
            if (!parse_double(argv[++i], &lim.timeout) || lim.timeout < 0) {
                fprintf(stderr, "polysi-solve sat: bad --timeout '%s'\n", argv[i]);
                return 2;
            }
        } else if (!strcmp(a, "--max-memory") && i + 1 < argc) {
            if (!parse_count(argv[++i], &max_mb)) {
                fprintf(stderr, "polysi-solve sat: bad --max-memory '%s'\n", argv[i]);
                return 2;
            }
            lim.max_mb = (uint64_t)max_mb;
        } else if (!strcmp(a, "--conflict-limit") && i + 1 < argc) {
            if (!parse_count(argv[++i], &conflict_limit)) {
                fprintf(stderr, "polysi-solve sat: bad --conflict-limit '%s'\n", argv[i]);
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "polysi-solve sat: unknown or incomplete option '%s'\n\n", a);
            sat_usage(stderr);
            return 2;
        } else if (path) {
            fprintf(stderr, "polysi-solve sat: only one input file is allowed\n");
            return 2;
        } else {
            path = a;
        }
    }
    if (!path) {
        sat_usage(stderr);
        return 2;
    }
    /* The watchdog ends the process with exit 2 when a limit is hit; it is
     * stopped before the answer is printed, so an answer is never cut. */
    bool wd_failed;
    psi_watchdog *wd = psi_limits_start(&lim, &wd_failed);
    if (wd_failed)
        return 2;
    psi_limits_stage(wd, "parse");
    FILE *in = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    if (!in) {
        psi_limits_stop(wd);
        fprintf(stderr, "polysi-solve sat: cannot open '%s': %s\n", path, strerror(errno));
        return 2;
    }
    psi_dimacs d;
    psi_dimacs_error err;
    int prc = psi_dimacs_parse_file(in, &d, &err);
    if (in != stdin)
        fclose(in);
    const char *name = strcmp(path, "-") ? path : "<stdin>";
    if (prc) {
        psi_limits_stop(wd);
        if (err.line)
            fprintf(stderr, "%s:%llu:%llu: %s\n", name, (unsigned long long)err.line,
                    (unsigned long long)err.col, err.msg);
        else
            fprintf(stderr, "%s: %s\n", name, err.msg);
        psi_dimacs_free(&d);
        return 2;
    }
    int code = 2;
    FILE *proof = NULL;
    psi_acyc *g = NULL;
    psi_sat *s = psi_sat_new();
    if (!s) {
        fprintf(stderr, "polysi-solve sat: out of memory\n");
        goto out;
    }
    if (proof_path) {
        if (d.nedges) {
            fprintf(stderr, "polysi-solve sat: --proof needs pure CNF (no graph lines)\n");
            goto out;
        }
        proof = fopen(proof_path, "w");
        if (!proof) {
            fprintf(stderr, "polysi-solve sat: cannot write '%s': %s\n", proof_path,
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
        psi_acyc_set_propagation(g, theory_prop);
    psi_sat_set_time_limit(s, time_limit);
    psi_sat_set_conflict_limit(s, conflict_limit);
    psi_limits_stage(wd, "solve");
    int r = psi_sat_solve(s);
    psi_limits_stop(wd);
    wd = NULL;
    if (stats)
        print_stats(s, g);
    switch (r) {
    case PSI_SAT_SAT:
        printf("s SATISFIABLE\n");
        print_model(s, d.nvars);
        code = 10;
        break;
    case PSI_SAT_UNSAT:
        printf("s UNSATISFIABLE\n");
        code = 20;
        break;
    case PSI_SAT_UNKNOWN:
        printf("s UNKNOWN\n");
        code = 0;
        break;
    default:
        fprintf(stderr, "polysi-solve sat: out of memory while solving\n");
        code = 2;
    }
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
