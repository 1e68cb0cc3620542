/* Counterexamples shown as the check found them: a graph-free anomaly,
 * or the reported cycle when no sub-history was restored (see local.h);
 * and the list-append reads that show certain WW edges. Also the small
 * helpers on id arrays the counterexample code shares. */
#include "interpret/local.h"

#include <stdlib.h>
#include <string.h>

int psi_u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

uint32_t psi_u32_sort_unique(uint32_t *v, uint32_t n)
{
    qsort(v, n, sizeof *v, psi_u32_cmp);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!m || v[m - 1] != v[i])
            v[m++] = v[i];
    return m;
}

uint32_t psi_amb_of(const psi_index *idx, uint32_t o)
{
    uint32_t lo = 0, hi = idx->n_amb; /* idx->amb is in operation order */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (idx->amb[mid].op < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < idx->n_amb && idx->amb[lo].op == o ? lo : UINT32_MAX;
}

/* Graph-free anomaly: the reader, and the writer it observed (for an
 * incompatible order, the other reader, with no dependency between
 * them). */
psi_status psi_cex_from_anomaly(const psi_history *h, const psi_anomaly *an, psi_cex *cex,
                                psi_diag *d)
{
    cex->txns = malloc(2 * sizeof *cex->txns);
    cex->edges = malloc(sizeof *cex->edges);
    if (!cex->txns || !cex->edges)
        return psi_diag_nomem(d, "building a counterexample");
    cex->txns[cex->n_txns++] = an->txn;
    if (an->other_op != PSI_SRC_NONE && an->other_txn != an->txn) {
        if (an->other_txn < an->txn) {
            cex->txns[1] = an->txn;
            cex->txns[0] = an->other_txn;
        } else {
            cex->txns[1] = an->other_txn;
        }
        cex->n_txns = 2;
        if (an->kind != PSI_ANOM_INCOMPATIBLE_ORDER)
            cex->edges[cex->n_edges++] = (psi_cex_edge){.from = an->other_txn,
                                                        .to = an->txn,
                                                        .key = h->ops[an->op].key,
                                                        .type = PSI_EDGE_WR,
                                                        .origin = PSI_CEX_CERTAIN};
    }
    cex->anomaly = *an;
    cex->anomaly_op = an->op;
    cex->minimal = true;
    cex->restored_whole = true;
    cex->present = true;
    return PSI_OK;
}

/* Does t append a value v to key (any of its writes)? */
static bool appends(const psi_history *h, uint32_t t, uint32_t key, uint64_t v)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        const psi_op *o = &h->ops[tx->first_op + i];
        if (o->kind == PSI_OP_WRITE && o->key == key && o->value == v)
            return true;
    }
    return false;
}

/* A committed list-append read of key in which an element `from` appended
 * is directly followed by one `to` appended (the read that orders them),
 * or UINT32_MAX. */
static uint32_t list_read_showing(const psi_history *h, const psi_index *idx, uint32_t key,
                                  uint32_t from, uint32_t to)
{
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        if (h->ops[lr->op].key != key || !(idx->op_info[lr->op] & PSI_OI_LIVE))
            continue;
        const uint64_t *v = h->list_vals + lr->first;
        for (uint32_t k = 0; k + 1 < lr->len; k++)
            if (appends(h, from, key, v[k]) && appends(h, to, key, v[k + 1]))
                return lr->op;
    }
    return UINT32_MAX;
}

/* WW edges between two transactions that are certain come from list-append
 * reads (the history's other WW edges are the initial transaction's): name
 * the read that shows each, and bring its transaction into the
 * counterexample, so a G0 of appends shows what orders the appends. */
psi_status psi_cex_add_list_evidence(const psi_history *h, const psi_index *idx, psi_cex *cex,
                                     psi_diag *d)
{
    if (!h->n_list_reads)
        return PSI_OK;
    for (uint32_t i = 0; i < cex->n_edges; i++) {
        psi_cex_edge *e = &cex->edges[i];
        if (e->type != PSI_EDGE_WW || e->origin != PSI_CEX_CERTAIN || e->from == PSI_INIT_TXN)
            continue;
        uint32_t op = list_read_showing(h, idx, e->key, e->from, e->to);
        if (op == UINT32_MAX)
            continue;
        e->shown_by = op + 1;
        uint32_t t = idx->op_txn[op], at = 0;
        while (at < cex->n_txns && cex->txns[at] < t)
            at++;
        if (at < cex->n_txns && cex->txns[at] == t)
            continue;
        uint32_t *nt = realloc(cex->txns, ((size_t)cex->n_txns + 1) * sizeof *nt);
        if (!nt)
            return psi_diag_nomem(d, "presenting a counterexample");
        cex->txns = nt;
        memmove(nt + at + 1, nt + at, (cex->n_txns - at) * sizeof *nt);
        nt[at] = t;
        cex->n_txns++;
    }
    return PSI_OK;
}

/* The reported cycle as found, when no sub-history could be restored
 * within the budget: edges present in the history count as certain. */
psi_status psi_cex_from_cycle(const psi_history *h, const psi_check_result *res, const psi_edge *c,
                              uint32_t n, psi_cex *cex, psi_diag *d)
{
    cex->edges = malloc((n ? n : 1) * sizeof *cex->edges);
    cex->txns = malloc((n ? n : 1) * sizeof *cex->txns);
    cex->idx = malloc((n ? n : 1) * sizeof *cex->idx);
    cex->cycles = malloc(sizeof *cex->cycles);
    if (!cex->edges || !cex->txns || !cex->idx || !cex->cycles)
        return psi_diag_nomem(d, "building a counterexample");
    for (uint32_t i = 0; i < n; i++) {
        bool certain = false;
        for (uint64_t k = 0; k < res->g.n_known && !certain; k++) {
            const psi_edge *e = &res->g.known[k];
            certain = e->origin == PSI_FROM_HISTORY && e->from == c[i].from && e->to == c[i].to &&
                      e->type == c[i].type && e->key == c[i].key;
        }
        if (c[i].type == PSI_EDGE_SO && h->txns[c[i].from].session == h->txns[c[i].to].session)
            certain = true;
        /* No polygraph (a complete order's reject, check/complete_pass.h):
         * the cycle's edges from the history say so themselves. */
        if (!res->g.known && c[i].origin == PSI_FROM_HISTORY)
            certain = true;
        uint64_t hint = c[i].origin == PSI_FROM_VERSION_ORDER
                            ? psi_hints_line(&res->hints, c[i].from, c[i].to, c[i].key)
                            : 0;
        uint64_t ts =
            c[i].origin == PSI_FROM_TIMESTAMPS && res->ts.line ? res->ts.line[c[i].to] : 0;
        bool rt = c[i].origin == PSI_FROM_REALTIME;
        cex->edges[i] = (psi_cex_edge){.from = c[i].from,
                                       .to = c[i].to,
                                       .key = c[i].key,
                                       .type = c[i].type,
                                       .origin = hint      ? PSI_CEX_HINT
                                                 : ts      ? PSI_CEX_TIMESTAMPS
                                                 : rt      ? PSI_CEX_REALTIME
                                                 : certain ? PSI_CEX_CERTAIN
                                                           : PSI_CEX_DECIDED,
                                       .hint_line = hint ? hint : ts};
        cex->idx[i] = i;
        cex->txns[i] = c[i].from;
    }
    cex->n_edges = cex->n_idx = n;
    cex->n_txns = psi_u32_sort_unique(cex->txns, n);
    cex->cycles[0] = (psi_cex_cycle){.first = 0, .len = n};
    cex->n_cycles = 1;
    cex->present = true;
    return PSI_OK;
}
