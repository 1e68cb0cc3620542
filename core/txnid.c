/* Transactions by external name (see txnid.h). */
#include "core/txnid.h"

#include <stdlib.h>

static int id_cmp(const void *a, const void *b)
{
    const psi_txn_id *x = a, *y = b;
    if (x->sid != y->sid)
        return x->sid < y->sid ? -1 : 1;
    return x->tid < y->tid ? -1 : x->tid > y->tid;
}

psi_status psi_txn_lookup_init(psi_txn_lookup *tl, const psi_history *h, bool committed_only,
                               const char *what, psi_diag *d)
{
    tl->n = 0;
    tl->e = malloc((h->n_txns ? h->n_txns : 1) * sizeof *tl->e);
    if (!tl->e)
        return psi_diag_nomem(d, what);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (committed_only && tx->status != PSI_TXN_COMMITTED && tx->status != PSI_TXN_INITIAL)
            continue;
        tl->e[tl->n++] = (psi_txn_id){h->sessions[tx->session].id, tx->id, t};
    }
    if (tl->n)
        qsort(tl->e, tl->n, sizeof *tl->e, id_cmp);
    return PSI_OK;
}

uint32_t psi_txn_lookup_find(const psi_txn_lookup *tl, uint64_t sid, uint64_t tid)
{
    psi_txn_id q = {.sid = sid, .tid = tid};
    const psi_txn_id *f = tl->n ? bsearch(&q, tl->e, tl->n, sizeof *tl->e, id_cmp) : NULL;
    return f ? f->txn : UINT32_MAX;
}

void psi_txn_lookup_free(psi_txn_lookup *tl)
{
    free(tl->e);
    tl->e = NULL;
    tl->n = 0;
}
