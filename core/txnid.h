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
#include "core/prefetch.h"

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

/* Names resolved once, while a file naming many transactions is parsed
 * (the version order, formats/witness.h): each name to the one
 * transaction of h that has it, whatever its status (the initial
 * transaction excluded). Status is not looked at because it is not final
 * when the file is read (validation gives a transaction of open outcome
 * its status later); a name two transactions share resolves to none, so a
 * resolved name stands for exactly the transaction a later look-up by
 * (session id, transaction id) finds, status permitting.
 *
 * Ownership: psi_txn_names_init allocates the tables and borrows h (which
 * must outlive it); psi_txn_names_free releases them. */
typedef struct psi_txn_names {
    const psi_history *h;
    /* When the transaction ids span little more than the transactions
     * (histories that number them globally): by_tid[tid - tid_min] is the
     * one transaction with that id and its session, so that a name costs
     * one look-up in this table (the sessions are few: their ids stay in
     * cache); .txn is PSI_TXN_NAMES_NONE when none has it,
     * PSI_TXN_NAMES_SHARED when several do. NULL when the ids are sparse. */
    struct psi_txn_slot {
        uint32_t txn, session;
    } * by_tid;
    uint64_t tid_min, tid_span;
    psi_txn_lookup all; /* every transaction, built on the first name by_tid cannot answer */
    psi_diag *d;        /* for running out of memory building `all` */
} psi_txn_names;

#define PSI_TXN_NAMES_NONE   UINT32_MAX
#define PSI_TXN_NAMES_SHARED (UINT32_MAX - 1)

/* PSI_ERR_NOMEM (set in d) when the table cannot be built. */
psi_status psi_txn_names_init(psi_txn_names *tn, const psi_history *h, psi_diag *d);

/* Slow path of psi_txn_names_find: the sorted table of every transaction.
 * PSI_TXN_NAMES_NOMEM when it cannot be built (d says so). */
#define PSI_TXN_NAMES_NOMEM (UINT32_MAX - 2)
uint32_t psi_txn_names_search(psi_txn_names *tn, uint64_t sid, uint64_t tid);

/* The one transaction named (sid, tid); PSI_TXN_NAMES_NONE when none or
 * several have that name, PSI_TXN_NAMES_NOMEM when out of memory. */
static inline uint32_t psi_txn_names_find(psi_txn_names *tn, uint64_t sid, uint64_t tid)
{
    if (tn->by_tid && tid - tn->tid_min < tn->tid_span) {
        struct psi_txn_slot s = tn->by_tid[tid - tn->tid_min];
        if (s.txn == PSI_TXN_NAMES_NONE)
            return PSI_TXN_NAMES_NONE;
        if (s.txn != PSI_TXN_NAMES_SHARED)
            return tn->h->sessions[s.session].id == sid ? s.txn : PSI_TXN_NAMES_NONE;
    }
    return psi_txn_names_search(tn, sid, tid);
}

/* A hint that name (sid, tid) is looked up soon: its by_tid slot is
 * fetched, so that a parser can look names up a few names behind. */
static inline void psi_txn_names_prefetch(const psi_txn_names *tn, uint64_t tid)
{
    if (tn->by_tid && tid - tn->tid_min < tn->tid_span)
        PSI_PREFETCH(&tn->by_tid[tid - tn->tid_min]);
}

void psi_txn_names_free(psi_txn_names *tn);

#endif
