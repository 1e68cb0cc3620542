/* An independent DRAT proof checker for the tests: forward checking of
 * every lemma by reverse unit propagation, with the RAT check on the first
 * literal as fallback. Shares no code with solver/ (its own parser, clause
 * store and propagation), so a bug in the solver cannot hide in it. */
#ifndef PSI_TESTS_DRAT_CHECK_H
#define PSI_TESTS_DRAT_CHECK_H

#include <stddef.h>

/* Checks proof text against the CNF text. Returns 1 if the proof derives
 * the empty clause with every lemma verified, 0 otherwise (msg says why). */
int drat_check(const char *cnf, size_t cnf_len, const char *proof, size_t proof_len, char *msg,
               size_t msg_cap);

#endif
