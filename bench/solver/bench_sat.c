/* Minimal stand-alone front end for timing the solver on a DIMACS/GNF file
 * without the rest of the project: prints the s line (no model) and exits
 * 10/20/0 like the CLI. Usage: bench_sat FILE */
#include "solver/acyclic.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: bench_sat FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 2;
    }
    psi_dimacs d;
    psi_dimacs_error e;
    int rc = psi_dimacs_parse_file(f, &d, &e);
    fclose(f);
    if (rc) {
        fprintf(stderr, "%s:%llu:%llu: %s\n", argv[1], (unsigned long long)e.line,
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
    int r = psi_sat_solve(s);
    psi_sat_stats st;
    psi_sat_get_stats(s, &st);
    printf("c conflicts %llu solve %.3f s\n", (unsigned long long)st.conflicts, st.solve_seconds);
    printf("%s\n", r == PSI_SAT_SAT     ? "s SATISFIABLE"
                   : r == PSI_SAT_UNSAT ? "s UNSATISFIABLE"
                                        : "s UNKNOWN");
    psi_sat_free(s);
    psi_acyc_free(g);
    psi_dimacs_free(&d);
    return r == PSI_SAT_SAT ? 10 : r == PSI_SAT_UNSAT ? 20 : 0;
}
