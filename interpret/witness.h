/* Witnesses for accepted histories: the version order of every key (and,
 * for serializability, a serialization order) read off the solver's model,
 * as a psi_witness of the text format `polysi-solve verify-witness`
 * re-checks (formats/witness.h, which also writes and frees it).
 *
 * How: the model's active graph is the known graph (which holds every edge
 * pruning settled, including the WW chains it seeded) plus the chosen side
 * of every surviving constraint. Every pair of writers of a key is ordered
 * by a WW path in it, so a topological order of its DEP edges (SO, WR, WW:
 * acyclic under SI, as a cycle of them has no RW at all) orders every key's
 * writers as the model does. For SER the whole active graph is acyclic and
 * its topological order is the serialization order.
 *
 * Ownership: psi_witness_build allocates the witness's arrays;
 * psi_witness_free releases them. */
#ifndef PSI_INTERPRET_WITNESS_H
#define PSI_INTERPRET_WITNESS_H

#include "check/check.h"
#include "formats/witness.h"

/* res must be an accept of psi_check run with opts.keep_model. The witness
 * names keys and transactions by their external ids; it has an isolation
 * line, one key line per key with a committed writer (keys in the
 * history's order) and, for ser, the order line. */
psi_status psi_witness_build(const psi_history *h, const psi_check_result *res, bool ser,
                             psi_witness *w, psi_diag *d);

/* Optional transactions (core/index.h) the accept leaves absent: those no
 * read of a committed transaction was resolved to, transitively (SI/SER:
 * the model's choices; the weak levels: idx.read_src, and under RC and
 * PL-2 the repeat reads' writers, psi_witness_event_src). A witness lists
 * only the others, and verify-witness derives the same set from its read
 * lines. Returns a malloc'd flag per transaction (caller frees), or NULL
 * when the history has none, or on no memory (then *nomem). */
uint8_t *psi_witness_absent_optional(const psi_history *h, const psi_check_result *res,
                                     bool *nomem);

/* The write op (or PSI_SRC_INIT) read event o of a committed transaction
 * read from in res, an accept under a level other than SI and SER: an
 * external read's read_src (a choice read's resolved writer,
 * check/level_choice.h); under RC and PL-2 a repeat read's choice in
 * res->rf, else the one writer of its value (psi_index_repeat_src). */
/* The read of op o in the level check's choice of writers (res->rf,
 * check/level_choice.h), or NULL when it had no choice. */
const psi_rf_read *psi_witness_choice_read(const psi_check_result *res, uint32_t o);

uint32_t psi_witness_event_src(const psi_history *h, const psi_check_result *res, uint32_t o);

#endif
