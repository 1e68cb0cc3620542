/* Transactions by external name (see txnid.h). */
#include "core/txnid.h"

#include <stdlib.h>
#include <string.h>

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

psi_status psi_txn_names_init(psi_txn_names *tn, const psi_history *h, psi_diag *d)
{
    memset(tn, 0, sizeof *tn);
    tn->h = h;
    tn->d = d;
    uint64_t lo = UINT64_MAX, hi = 0, n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        lo = h->txns[t].id < lo ? h->txns[t].id : lo;
        hi = h->txns[t].id > hi ? h->txns[t].id : hi;
        n++;
    }
    /* at most 4 slots a transaction, as check/hints.c's table */
    if (!n || hi - lo >= 4 * n + 64)
        return PSI_OK;
    tn->tid_min = lo;
    tn->tid_span = hi - lo + 1;
    tn->by_tid = malloc(tn->tid_span * sizeof *tn->by_tid);
    if (!tn->by_tid)
        return psi_diag_nomem(d, "reading the version order");
    memset(tn->by_tid, 0xff, tn->tid_span * sizeof *tn->by_tid); /* PSI_TXN_NAMES_NONE */
    for (uint32_t t = 1; t < h->n_txns; t++) {
        struct psi_txn_slot *s = &tn->by_tid[h->txns[t].id - lo];
        if (s->txn == PSI_TXN_NAMES_NONE)
            *s = (struct psi_txn_slot){t, h->txns[t].session};
        else
            s->txn = PSI_TXN_NAMES_SHARED;
    }
    return PSI_OK;
}

uint32_t psi_txn_names_search(psi_txn_names *tn, uint64_t sid, uint64_t tid)
{
    if (!tn->all.e &&
        psi_txn_lookup_init(&tn->all, tn->h, false, "reading the version order", tn->d) != PSI_OK)
        return PSI_TXN_NAMES_NOMEM;
    /* the first entry not below (sid, tid); a second one equal to it
     * means the name is shared */
    psi_txn_id q = {.sid = sid, .tid = tid};
    uint32_t b = 0, e = tn->all.n;
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (id_cmp(&tn->all.e[m], &q) < 0)
            b = m + 1;
        else
            e = m;
    }
    if (b >= tn->all.n || id_cmp(&tn->all.e[b], &q) != 0)
        return PSI_TXN_NAMES_NONE;
    if (b + 1 < tn->all.n && id_cmp(&tn->all.e[b + 1], &q) == 0)
        return PSI_TXN_NAMES_NONE;
    return tn->all.e[b].txn;
}

void psi_txn_names_free(psi_txn_names *tn)
{
    free(tn->by_tid);
    psi_txn_lookup_free(&tn->all);
    memset(tn, 0, sizeof *tn);
}
