/* Finding a key by its spelling (issue 12). Witness and version-order
 * files name keys as the history spells them (`:x`, `"acct 1"`, `7`);
 * whoever checks or uses such a file maps each spelling back to the dense
 * key through this index: one sort of the history's key names, then a
 * binary search per line, so a file naming every key stays O(n log n).
 * Integer keys that span little more than their number (generated and
 * most recorded histories) are found in a table instead: a version-order
 * file names every key, and the sort and a binary search per key (a
 * cache miss per step) cost about 25 ms for 10^5 keys.
 *
 * Ownership: psi_key_lookup_init allocates the index (it borrows h, which
 * must outlive it); psi_key_lookup_free releases it. */
#ifndef PSI_CORE_KEYNAME_H
#define PSI_CORE_KEYNAME_H

#include "core/diag.h"
#include "core/history.h"

#include <stdint.h>

typedef struct psi_key_lookup {
    const psi_history *h;
    uint32_t *by_name; /* dense keys sorted by spelling; NULL when keys are integers */
    uint32_t *by_ext;  /* dense keys sorted by external integer; NULL when named
                          or when table is set */
    uint64_t *ext;     /* [n_keys] the external integers in by_ext's order */
    /* Integer keys spanning at most twice their number:
     * table[ext - table_min] is the dense key with external integer ext,
     * UINT32_MAX when none; NULL otherwise. */
    uint32_t *table;
    uint64_t table_min, table_span;
} psi_key_lookup;

/* Builds the index of h's keys. PSI_ERR_NOMEM (set in d) when it cannot. */
psi_status psi_key_lookup_init(psi_key_lookup *kl, const psi_history *h, psi_diag *d);

/* The dense key spelled `name` (a NUL-terminated spelling as the history
 * prints it: psi_history_key_name), or UINT32_MAX when the history has no
 * such key. In a history of integer keys only a decimal integer spelling
 * can match. */
uint32_t psi_key_lookup_name(const psi_key_lookup *kl, const char *name);

/* The dense key whose external key is `ext` (for named histories the dense
 * id itself, as keys[k] == k there), or UINT32_MAX. */
uint32_t psi_key_lookup_ext(const psi_key_lookup *kl, uint64_t ext);

void psi_key_lookup_free(psi_key_lookup *kl);

#endif
