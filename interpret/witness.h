/* Witnesses for accepted histories: the version order of every key (and,
 * for serializability, a serialization order) read off the solver's model,
 * and written in the text format `polysi-solve verify-witness` re-checks
 * (README, "Witnesses"):
 *
 *     polysi-witness 1
 *     isolation si|ser
 *     key K (S,ID) (S,ID) ...      one line per key with a committed writer:
 *                                  its writers, first installed first (the
 *                                  initial value is implicitly before them)
 *     order (S,ID) (S,ID) ...      ser only: every committed transaction
 *
 * Lines starting with '#' are comments.
 *
 * How: the model's active graph is the known graph (which holds every edge
 * pruning settled, including the WW chains it seeded) plus the chosen side
 * of every surviving constraint. Every pair of writers of a key is ordered
 * by a WW path in it, so a topological order of its DEP edges (SO, WR, WW:
 * acyclic under SI, as a cycle of them has no RW at all) orders every key's
 * writers as the model does. For SER the whole active graph is acyclic and
 * its topological order is the serialization order.
 *
 * Ownership: psi_witness_build allocates the orders; psi_witness_free
 * releases them. */
#ifndef PSI_INTERPRET_WITNESS_H
#define PSI_INTERPRET_WITNESS_H

#include "check/check.h"

#include <stdio.h>

typedef struct psi_witness {
    bool ser;
    uint32_t n_keys;
    uint32_t *key_off; /* [n_keys + 1] CSR: key k's writers key_txn[key_off[k] ..] in order */
    uint32_t *key_txn;
    uint32_t *order; /* ser: committed transactions (no init) in serialization order */
    uint32_t n_order;
} psi_witness;

/* res must be an accept of psi_check run with opts.keep_model. */
psi_status psi_witness_build(const psi_history *h, const psi_check_result *res, bool ser,
                             psi_witness *w, psi_diag *d);
/* Writes the witness in the text format above; false on a write error. */
bool psi_witness_write(const psi_history *h, const psi_witness *w, FILE *f);
void psi_witness_free(psi_witness *w);

#endif
