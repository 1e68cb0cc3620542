/* The answer of `polysi-solve sat` in the SAT-competition convention, so
 * its output reads like minisat's or cadical's: an "s" line, the model in
 * "v" lines, statistics as "c" comment lines. solver/ never prints; this is
 * the CLI's view of a finished solve. */
#ifndef PSI_CLI_SAT_REPORT_H
#define PSI_CLI_SAT_REPORT_H

#include "solver/acyclic.h"
#include "solver/sat.h"

#include <stdio.h>

/* Solver (and, when g is not NULL, acyclicity theory) counters as "c"
 * lines. */
void psi_cli_sat_stats(FILE *out, const psi_sat *s, const psi_acyc *g);
/* Prints the answer for psi_sat_solve's result over variables 1..nvars and
 * returns the exit code: 10 SAT (with "v" lines), 20 UNSAT, 0 UNKNOWN, 2
 * when result is an error (out of memory; the message goes to stderr). */
int psi_cli_sat_answer(FILE *out, const psi_sat *s, int result, int nvars);

#endif
