/* The answer of `polysi-solve sat` in the SAT-competition convention (see
 * sat_report.h). */
#include "cli/sat_report.h"

#include <string.h>

/* Prints the model in 'v' lines of at most about 78 characters. */
static void print_model(FILE *out, const psi_sat *s, int nvars)
{
    char line[96];
    size_t n = 0;
    for (int v = 1; v <= nvars + 1; v++) {
        char tok[16];
        int len = v <= nvars ? snprintf(tok, sizeof tok, " %d", psi_sat_value(s, v) > 0 ? v : -v)
                             : snprintf(tok, sizeof tok, " 0");
        if (n + (size_t)len > 78) {
            fprintf(out, "v%.*s\n", (int)n, line);
            n = 0;
        }
        memcpy(line + n, tok, (size_t)len);
        n += (size_t)len;
    }
    fprintf(out, "v%.*s\n", (int)n, line);
}

void psi_cli_sat_stats(FILE *out, const psi_sat *s, const psi_acyc *g)
{
    psi_sat_stats st;
    psi_sat_get_stats(s, &st);
    double t = st.solve_seconds > 0 ? st.solve_seconds : 1e-9;
    fprintf(out, "c variables            %llu\n", (unsigned long long)st.vars);
    fprintf(out, "c clauses              %llu\n", (unsigned long long)st.clauses);
    fprintf(out, "c decisions            %llu\n", (unsigned long long)st.decisions);
    fprintf(out, "c propagations         %llu (%.0f per second)\n",
            (unsigned long long)st.propagations, (double)st.propagations / t);
    fprintf(out, "c conflicts            %llu (%.0f per second)\n",
            (unsigned long long)st.conflicts, (double)st.conflicts / t);
    fprintf(out, "c restarts             %llu\n", (unsigned long long)st.restarts);
    fprintf(out,
            "c learned clauses      %llu (average length %.1f, minimized away %llu literals)\n",
            (unsigned long long)st.learned,
            st.learned ? (double)st.learned_literals / (double)st.learned : 0.0,
            (unsigned long long)st.minimized_literals);
    fprintf(out, "c reductions           %llu (%llu clauses deleted)\n",
            (unsigned long long)st.reductions, (unsigned long long)st.deleted);
    fprintf(out, "c rephases             %llu (%llu with a local search)\n",
            (unsigned long long)st.rephases, (unsigned long long)st.walks);
    if (g) {
        psi_acyc_stats as;
        psi_acyc_get_stats(g, &as);
        fprintf(out, "c theory calls         %llu\n", (unsigned long long)st.theory_calls);
        fprintf(out, "c theory conflicts     %llu (average clause length %.1f)\n",
                (unsigned long long)st.theory_conflicts,
                as.conflicts ? (double)as.conflict_lits / (double)as.conflicts : 0.0);
        fprintf(out, "c theory propagations  %llu (%llu explained)\n",
                (unsigned long long)st.theory_propagations,
                (unsigned long long)st.theory_explanations);
        fprintf(out, "c theory reorders      %llu (%llu nodes visited, %llu moved)\n",
                (unsigned long long)as.reorders, (unsigned long long)as.visited,
                (unsigned long long)as.moved);
        fprintf(out, "c theory relabels      %llu (%llu nodes relabelled)\n",
                (unsigned long long)as.relabels, (unsigned long long)as.relabelled);
        fprintf(out, "c theory memory        %llu bytes\n", (unsigned long long)as.bytes);
        fprintf(out, "c theory time          %.3f s (%.1f %%)\n", st.theory_seconds,
                100.0 * st.theory_seconds / t);
    }
    fprintf(out, "c solve time           %.3f s\n", st.solve_seconds);
}

int psi_cli_sat_answer(FILE *out, const psi_sat *s, int result, int nvars)
{
    switch (result) {
    case PSI_SAT_SAT:
        fprintf(out, "s SATISFIABLE\n");
        print_model(out, s, nvars);
        return 10;
    case PSI_SAT_UNSAT:
        fprintf(out, "s UNSATISFIABLE\n");
        return 20;
    case PSI_SAT_UNKNOWN:
        fprintf(out, "s UNKNOWN\n");
        return 0;
    default:
        fprintf(stderr, "polysi-solve sat: out of memory while solving\n");
        return 2;
    }
}
