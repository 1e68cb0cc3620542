/* Finding a transaction by its external name (session id, transaction id),
 * as witness, version-order and timestamp files write it: one sort of the
 * history's transactions, then a binary search per line.
 *
 * Ownership: psi_txn_lookup_init allocates the table (it borrows nothing
 * from h afterwards); psi_txn_lookup_free releases it. */
#ifndef PSI_CORE_TXNID_H
#define PSI_CORE_TXNID_H

#include "core/diag.h"
#include "core/history.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_txn_id {
    uint64_t sid, tid;
    uint32_t txn;
} psi_txn_id;

typedef struct psi_txn_lookup {
    psi_txn_id *e; /* sorted by (sid, tid) */
    uint32_t n;
} psi_txn_lookup;

/* Builds the table of h's transactions (the initial transaction excluded):
 * every one, or with committed_only the committed ones and the recorded
 * initial state. PSI_ERR_NOMEM (set in d, naming what) when it cannot. */
psi_status psi_txn_lookup_init(psi_txn_lookup *tl, const psi_history *h, bool committed_only,
                               const char *what, psi_diag *d);

/* The transaction named (sid, tid), or UINT32_MAX when the table has none. */
uint32_t psi_txn_lookup_find(const psi_txn_lookup *tl, uint64_t sid, uint64_t tid);

void psi_txn_lookup_free(psi_txn_lookup *tl);

#endif
