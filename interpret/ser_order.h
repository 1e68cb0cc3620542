/* Internal to interpret/: serial orders of sub-histories under SER,
 * checked and extended without the pipeline, so that shrinking a
 * counterexample by re-checks (explain.c, shrink_by_checks) can prove
 * most accepts from a model it already has (model rotation, as in MUS
 * extraction) instead of solving each accepted sub-history again.
 *
 * The sub-history over a set X of committed transactions is the one
 * sub_check.h builds: X's transactions in session order, keeping a read
 * when every writer it could have observed is in X (its writer, or all
 * its candidate writers). It satisfies SER exactly when some total order
 * of X that keeps session order is a serial execution: every kept
 * external read returns the value of the key's last write before its
 * transaction (a transaction's final write of a key is what others see),
 * or the initial value when none precedes it and the initial transaction
 * may be what it read. Internal reads were checked against their own
 * transaction when the whole history was validated and take no part.
 *
 * Only histories where this is the pipeline's whole question use it:
 * no list-append reads, no recorded initial state, no transaction of
 * unknown outcome, every external read resolved by the index (one writer,
 * the initial value, or candidates). psi_serord_init says so.
 *
 * Ownership: psi_serord_init allocates what psi_serord_free releases;
 * the history and index are borrowed and must outlive it. */
#ifndef PSI_INTERPRET_SER_ORDER_H
#define PSI_INTERPRET_SER_ORDER_H

#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"

#include <stdbool.h>
#include <stdint.h>

struct psi_serord_read;
struct psi_serord_write;

typedef struct psi_serord {
    const psi_history *h;
    const psi_index *idx;
    /* Per transaction, its external reads and final writes (CSR). */
    uint32_t *rd_off, *wr_off;
    struct psi_serord_read *rd;
    struct psi_serord_write *wr;
    /* The set (psi_serord_add, _remove): membership, size, and per read
     * how many of the writers it may have observed are not in it (by
     * writer: rev, CSR); a read is in the sub-history at 0. */
    uint8_t *in;
    uint32_t n_in;
    uint32_t *missing, *rev_off, *rev;
    /* Per key: the last write replayed (stamped), its place, value and
     * transaction. */
    uint32_t *k_stamp, *k_at, *k_txn, k_cur;
    uint64_t *k_val;
    /* Per key, for the transaction being put in (stamped): bit 1 it
     * writes the key (t_val: the value others see), 2 it reads it, 4 its
     * reads' last segment is done. */
    uint32_t *t_stamp, t_cur;
    uint8_t *t_how;
    uint64_t *t_val;
    /* Per session: the last place replayed (stamped), for session order. */
    uint32_t *s_stamp, *s_pos;
    /* insert's forbidden places (difference counts), [cap_gap]. */
    int32_t *gap;
    size_t cap_gap;
} psi_serord;

/* Sets up the tables; *usable is false (and nothing is allocated) when
 * the history has what the replay does not model (see above). */
psi_status psi_serord_init(psi_serord *so, const psi_history *h, const psi_index *idx, bool *usable,
                           psi_diag *d);
void psi_serord_free(psi_serord *so);

/* The set the calls below work on: empty after init; t committed, and
 * not in it (add) or in it (remove). */
void psi_serord_add(psi_serord *so, uint32_t t);
void psi_serord_remove(psi_serord *so, uint32_t t);

/* Is order[0..n) a serial execution of the sub-history over the set?
 * False too when its transactions are not exactly the set. */
bool psi_serord_valid(psi_serord *so, const uint32_t *order, uint32_t n);

/* The set is order[0..n) and t; order is a serial execution of the
 * sub-history over its transactions, and t is put in at a place where
 * order with t is one of the sub-history over the set, written to
 * out[0..n+1) (may not alias order). False when no place works (then out
 * holds nothing meaningful), or when the table for the places cannot
 * grow. */
bool psi_serord_insert(psi_serord *so, const uint32_t *order, uint32_t n, uint32_t t,
                       uint32_t *out);

/* The transactions whose absence could let t in: the readers, the
 * writers they may have observed and the last writers behind every
 * constraint that rules out a place, and t's session neighbours that
 * bound them. A set without any of them rules out the same places (a
 * superset of the ones worth trying). flag: [n_txns], zero where list
 * holds nothing; list: room for n_txns. The caller clears flag. */
typedef struct psi_serord_causes {
    uint8_t *flag;
    uint32_t *list;
    uint32_t n;
} psi_serord_causes;

/* psi_serord_insert, also collecting the causes (every one, so it does
 * not stop at the first constraint no place meets). */
bool psi_serord_insert_causes(psi_serord *so, const uint32_t *order, uint32_t n, uint32_t t,
                              uint32_t *out, psi_serord_causes *cz);

#endif
