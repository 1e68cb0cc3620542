/* Minimal stand-alone front end for timing the solver on a DIMACS/GNF file
 * without the rest of the project: prints the s line (no model) and exits
 * 10/20/0 like the CLI. Usage: bench_sat [-o NAME=VALUE]... FILE, where -o
 * sets a solver option (solver/options.h) before solving, for tuning runs
 * (symmetry breaking is on unless -o symmetry=0: a run is one-shot);
 * -o conflicts=N stops after N conflicts (answer unknown, statistics kept). */
#include "solver/acyclic.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int a = 1;
    while (a + 1 < argc && !strcmp(argv[a], "-o"))
        a += 2;
    if (a != argc - 1) {
        fprintf(stderr, "usage: bench_sat [-o NAME=VALUE]... FILE\n");
        return 2;
    }
    const char *path = argv[a];
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 2;
    }
    psi_dimacs d;
    psi_dimacs_error e;
    int rc = psi_dimacs_parse_file(f, &d, &e);
    fclose(f);
    if (rc) {
        fprintf(stderr, "%s:%llu:%llu: %s\n", path, (unsigned long long)e.line,
                (unsigned long long)e.col, e.msg);
        psi_dimacs_free(&d);
        return 2;
    }
    psi_sat *s = psi_sat_new();
    psi_acyc *g = NULL;
    if (!s || psi_dimacs_load(&d, s, &g, NULL, &e)) {
        fprintf(stderr, "%s\n", s ? e.msg : "out of memory");
        return 2;
    }
    /* A one-shot solve: symmetry breaking is allowed (solver/options.h). */
    if (psi_sat_set_option(s, "symmetry", 1)) {
        fprintf(stderr, "bench_sat: cannot set symmetry\n");
        return 2;
    }
    for (int i = 1; i < a; i += 2) {
        char name[64];
        const char *eq = strchr(argv[i + 1], '=');
        size_t len = eq ? (size_t)(eq - argv[i + 1]) : 0;
        if (!eq || len >= sizeof name) {
            fprintf(stderr, "bench_sat: -o wants NAME=VALUE, got %s\n", argv[i + 1]);
            return 2;
        }
        memcpy(name, argv[i + 1], len);
        name[len] = 0;
        char *end;
        double v = strtod(eq + 1, &end);
        if (!strcmp(name, "conflicts") && !*end && end != eq + 1) {
            psi_sat_set_conflict_limit(s, (int64_t)v); /* not an option: a limit */
            continue;
        }
        if (*end || end == eq + 1 || psi_sat_set_option(s, name, v)) {
            fprintf(stderr, "bench_sat: bad option %s\n", argv[i + 1]);
            return 2;
        }
    }
    int r = psi_sat_solve(s);
    psi_sat_stats st;
    psi_sat_get_stats(s, &st);
    printf("c conflicts %llu decisions %llu propagations %llu restarts %llu reductions %llu "
           "learned %llu deleted %llu learned-lits %llu minimized %llu shrunk %llu symmetries %llu "
           "vivified %llu/%llu (-%llu lits, %llu props) solve %.3f s\n",
           (unsigned long long)st.conflicts, (unsigned long long)st.decisions,
           (unsigned long long)st.propagations, (unsigned long long)st.restarts,
           (unsigned long long)st.reductions, (unsigned long long)st.learned,
           (unsigned long long)st.deleted, (unsigned long long)st.learned_literals,
           (unsigned long long)st.minimized_literals, (unsigned long long)st.shrunk_literals,
           (unsigned long long)st.symmetries, (unsigned long long)st.vivified,
           (unsigned long long)st.vivify_tried, (unsigned long long)st.vivify_removed,
           (unsigned long long)st.vivify_propagations, st.solve_seconds);
    printf("%s\n", r == PSI_SAT_SAT     ? "s SATISFIABLE"
                   : r == PSI_SAT_UNSAT ? "s UNSATISFIABLE"
                                        : "s UNKNOWN");
    psi_sat_free(s);
    psi_acyc_free(g);
    psi_dimacs_free(&d);
    return r == PSI_SAT_SAT ? 10 : r == PSI_SAT_UNSAT ? 20 : 0;
}
