/* Solving a sub-history's polygraph: the one entry point interpret/ uses
 * to ask the solver whether a few transactions are a violation by
 * themselves (counterexample restore and minimization), so interpret/
 * never drives solver/ itself.
 *
 * The encoding is psi_encode's (design decisions 2 and 3) on the flat
 * form: one selector per constraint, every edge that is still on labelled
 * by its side's literal (certain edges unlabelled), SI or plain
 * acyclicity. Each call builds and frees a fresh solver: nothing is
 * allocated across calls. */
#ifndef PSI_ENCODE_LOCAL_H
#define PSI_ENCODE_LOCAL_H

#include "core/polygraph.h"

#include <stdbool.h>

/* Sets *violation when no choice of S's constraints makes the graph of its
 * edges that are on acyclic (SER) or free of SI's forbidden cycles.
 * PSI_ERR_NOMEM (no verdict) when memory runs out. */
psi_status psi_encode_solve_sub(const psi_sub_polygraph *S, bool ser, bool *violation, psi_diag *d);

#endif
