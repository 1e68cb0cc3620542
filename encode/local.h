/* Solving a sub-history's polygraph: the one entry point interpret/ uses
 * to ask the solver whether a few transactions are a violation by
 * themselves (counterexample restore and minimization), so interpret/
 * never drives solver/ itself.
 *
 * The encoding is psi_encode's (design decisions 2 and 3) on the flat
 * form: one selector per constraint, every edge that is still on labelled
 * by its side's literal (certain edges unlabelled), SI or plain
 * acyclicity. psi_encode_solve_sub builds and frees a fresh solver per
 * call; psi_sub_cores keeps one across the checks of one sub-polygraph's
 * subsets. */
#ifndef PSI_ENCODE_LOCAL_H
#define PSI_ENCODE_LOCAL_H

#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* Sets *violation when no choice of S's constraints makes the graph of its
 * edges that are on acyclic (SER) or free of SI's forbidden cycles.
 * PSI_ERR_NOMEM (no verdict) when memory runs out. */
psi_status psi_encode_solve_sub(const psi_sub_polygraph *S, bool ser, bool *violation, psi_diag *d);

/* The sub-histories of one sub-polygraph's subsets under SER, checked
 * by one incremental solver, with a core of each violation.
 *
 * Every node v (a transaction) has a presence variable, assumed true or
 * false per check, and the theory gets each node twice, v_in -> v_out
 * switched on by v's presence, every edge of S leaving from its source's
 * out and entering its target's in: no cycle passes an absent node. A
 * read takes one of its candidates only while it and every candidate
 * are present (else the subset's polygraph leaves it out), and session
 * order has an edge per pair of a session's nodes (a path through an
 * absent one would be gone), the initial transaction one to every node.
 * A subset's check is then its own sub-polygraph's
 * (psi_sub_polygraph_build on the subset) with extra edges that close
 * cycles only through absent nodes (a constraint with an absent writer
 * keeps a side none of whose edges matter), hence the same answer; the
 * learned clauses hold for every subset and carry over. On a violation,
 * the present nodes whose presence the solver's final conflict uses are
 * a subset that is a violation too (a core, not minimal).
 *
 * Ownership: psi_sub_cores_new allocates what psi_sub_cores_free
 * releases; S and h are read only while it builds. */
typedef struct psi_sub_cores psi_sub_cores;

/* max_conflicts: per check, past it the check decides nothing. */
psi_status psi_sub_cores_new(const psi_sub_polygraph *S, const psi_history *h,
                             int64_t max_conflicts, psi_sub_cores **out, psi_diag *d);
void psi_sub_cores_free(psi_sub_cores *x);

/* Checks the sub-history of the nodes v with in[v] (S's numbering):
 * *decided unless the conflict limit stopped it, then *violation. On a
 * violation core[v] is set to 1 for the nodes of the core (others left
 * as they are); otherwise, with order (room n_nodes), order[0..*n_order)
 * are the present nodes in an order every edge of the model goes forward
 * in: a serial order of the sub-history (the caller may replay it).
 * PSI_ERR_NOMEM: no verdict. */
psi_status psi_sub_cores_solve(psi_sub_cores *x, const uint8_t *in, bool *decided, bool *violation,
                               uint8_t *core, uint32_t *order, uint32_t *n_order, psi_diag *d);

#endif
