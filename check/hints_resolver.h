/* The name resolution check/hints.c and check/hints_next.c share (internal
 * to check/): a hint file's transactions and keys looked up in a history.
 *
 * Ownership: psi_hints_open builds the lookups of a resolver the caller
 * filled (h, g or idx, vo, d); psi_hints_close frees them; the resolver
 * borrows everything else. */
#ifndef PSI_CHECK_HINTS_RESOLVER_H
#define PSI_CHECK_HINTS_RESOLVER_H

#include "check/hints.h"
#include "core/keyname.h"
#include "core/txnid.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Key k's committed writers' final writes, sorted by transaction, as CSR
 * over dense keys: off[k]..off[k + 1] index into wop and wtx (wop's
 * transactions, for a binary search that stays in one array). Owned by
 * whoever builds it (psi_key_writers_free). */
typedef struct psi_key_writers {
    uint32_t *off, *wop, *wtx;
} psi_key_writers;

/* Builds kw from idx (false when out of memory; kw is then still the
 * caller's to free). */
bool psi_key_writers_build(const psi_history *h, const psi_index *idx, psi_key_writers *kw);
void psi_key_writers_free(psi_key_writers *kw);

typedef struct psi_resolver {
    const psi_history *h;
    const psi_polygraph *g; /* NULL in psi_hints_next, which has idx instead */
    const psi_index *idx;
    const psi_version_order *vo;
    psi_diag *d;
    /* psi_hints_open builds the key lookup alone: every name this
     * resolver looks up was resolved as the file was read (vo->named_in) */
    bool keys_only;
    /* committed and initial-state transactions, built on the first name
     * find_txn cannot place directly (tids.e NULL until then) */
    psi_txn_lookup tids;
    /* Committed and initial-state transactions by transaction id when the
     * ids span little more than the transactions (histories that number
     * them globally): by_tid[tid - tid_min] is the one with that id,
     * TID_SHARED when several have it, UINT32_MAX when none; NULL when the
     * ids are too sparse. */
    uint32_t *by_tid;
    uint64_t tid_min, tid_span;
    /* psi_hints_resolve_index (no polygraph): each key's committed
     * writers (borrowed); NULL otherwise */
    const psi_key_writers *kw;
    psi_key_lookup keys; /* by spelling or external integer */
    psi_hint_edge *e;    /* [cap_e]: one edge per consecutive pair of every chain */
    size_t n_e, cap_e;
} psi_resolver;

/* The lookups a resolver needs to name chains' transactions and keys. */
psi_status psi_hints_open(psi_resolver *r);
void psi_hints_close(psi_resolver *r);

/* Committed (or initial-state) transaction (sid, tid), UINT32_MAX when
 * there is none (or when out of memory: *nomem set). */
uint32_t psi_hints_find_txn(psi_resolver *r, uint64_t sid, uint64_t tid, bool *nomem);

/* The committed (or initial-state) transaction entry i of chain c names,
 * UINT32_MAX when there is none (or when out of memory: *nomem set):
 * psi_hints_find_txn's answer for the entry's name. A resolved entry
 * (c->txn) is the one transaction with that name, so the answer is it
 * when its status lets a hint name it. */
static inline uint32_t psi_hints_entry_txn(psi_resolver *r, const psi_hint_chain *c, size_t i,
                                           bool *nomem)
{
    if (c->txn) {
        assert(r->vo->named_in == r->h);
        return psi_hint_resolved_txn(r->vo, c, i);
    }
    return psi_hints_find_txn(r, c->tx[i].sid, c->tx[i].tid, nomem);
}

/* The dense key chain c names, UINT32_MAX when the history has none. */
uint32_t psi_hints_chain_key(const psi_resolver *r, const psi_hint_chain *c);

#endif
