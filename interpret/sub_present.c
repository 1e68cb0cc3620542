/* A minimal violation shrunk by pipeline re-checks, shown as the
 * pipeline's own cycle in it (see sub_check.h, psi_subcheck_present).
 * Split from explain.c, whose counterexample search calls it last. */
#include "interpret/local.h"
#include "interpret/sub_check.h"

#include <stdlib.h>

/* The violation the pipeline finds in the minimal sub-history over
 * txns[0..n): its cycle (or timestamp violation), with the transactions
 * and keys of the whole history, and every transaction of the set. 1 when
 * shown, 0 when the sub-history gives nothing to show (the caller shows
 * the check's own cycle), -1 on error. */
int psi_subcheck_present(psi_subcheck *sc, const uint32_t *txns, uint32_t n, psi_cex *cex,
                         psi_diag *d)
{
    const psi_history *h = sc->h;
    psi_subrun r = {0};
    bool violation = false;
    psi_diag sd = {0};
    sc->pruning_only = false; /* the whole check's cycle, solver's or pruning's */
    psi_status st = psi_subcheck_run(sc, txns, n, &violation, &r, &sd);
    if (st == PSI_ERR_NOMEM) {
        psi_diag_nomem(d, "interpreting");
        return -1;
    }
    if (st != PSI_OK || !violation)
        return st == PSI_OK ? 0 : (psi_subrun_free(&r), 0);
    const psi_check_result *sr = &r.res;
    const psi_edge *cyc = NULL;
    uint32_t len = 0;
    if (sr->reason == PSI_BY_SOLVER) {
        cyc = sr->solver_cycle;
        len = sr->solver_cycle_len;
    } else if (sr->reason == PSI_BY_KNOWN_CYCLE || sr->reason == PSI_BY_PRUNING) {
        cyc = sr->prune.cycle[0];
        len = sr->prune.cycle_len[0];
    }
    int ret = 1;
    if (sr->reason == PSI_BY_TIMESTAMPS)
        st = psi_ts_cex_build(r.h, sr, cex, d);
    else if (len)
        st = psi_cex_from_cycle(r.h, sr, cyc, len, cex, d);
    else
        ret = 0;
    if (ret && st == PSI_OK) {
        for (uint32_t i = 0; i < cex->n_edges; i++) {
            psi_cex_edge *e = &cex->edges[i];
            e->from = r.txn_map[e->from];
            e->to = r.txn_map[e->to];
            if (e->type != PSI_EDGE_SO && e->key < r.h->n_keys)
                e->key = r.key_map[e->key];
        }
        if (cex->anomaly_op != UINT32_MAX)
            cex->anomaly_op = r.op_map[cex->anomaly_op];
        /* Every transaction of the set: the cycle may leave out one its
         * edges rest on (the writer an anti-dependency's reader read). */
        uint32_t *t = realloc(cex->txns, ((size_t)cex->n_txns + n + 1) * sizeof *t);
        if (!t) {
            st = psi_diag_nomem(d, "interpreting");
        } else {
            cex->txns = t;
            for (uint32_t i = 0; i < cex->n_txns; i++)
                t[i] = r.txn_map[t[i]];
            for (uint32_t i = 0; i < n; i++)
                if (txns[i] != PSI_INIT_TXN && h->txns[txns[i]].status == PSI_TXN_COMMITTED)
                    t[cex->n_txns++] = txns[i];
            cex->n_txns = psi_u32_sort_unique(t, cex->n_txns);
        }
    }
    psi_subrun_free(&r);
    return st == PSI_OK ? ret : -1;
}
