/* Every choice of outcomes at the polynomial levels (see level_outcome.h). */
#include "check/level_outcome.h"

#include <stdlib.h>

/* Sets the optional transactions' statuses: bit i of mask commits opt[i];
 * as_recorded marks the committed ones for the next index build to reset
 * (psi_txn.open_outcome) and leaves the others unknown, else the others
 * are aborted (absent) and the committed ones ordinary. */
static void set_outcomes(psi_history *h, const uint32_t *opt, uint32_t n, uint64_t mask,
                         bool as_recorded)
{
    for (uint32_t i = 0; i < n; i++) {
        psi_txn *t = &h->txns[opt[i]];
        bool in = (mask >> i) & 1u;
        t->status = in ? PSI_TXN_COMMITTED : as_recorded ? PSI_TXN_UNKNOWN : PSI_TXN_ABORTED;
        t->open_outcome = in && as_recorded;
    }
}

psi_status psi_level_outcomes(psi_history *h, const psi_check_opts *opts, psi_check_result *res,
                              psi_diag *d)
{
    uint32_t n = res->idx.n_opt;
    if (n > PSI_LEVEL_MAX_OUTCOMES)
        return psi_diag_set(d, PSI_ERR_LIMIT,
                            "%s: %u transactions of unknown outcome write values that reads may "
                            "return; at %s each outcome is tried, for at most %u of them",
                            h->source ? h->source : "the history", n,
                            psi_level_name(res->level_checked), PSI_LEVEL_MAX_OUTCOMES);
    uint32_t *opt = malloc((n ? n : 1) * sizeof *opt);
    if (!opt)
        return psi_diag_nomem(d, "trying outcomes of transactions");
    uint32_t k = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (psi_index_optional(&res->idx, t))
            opt[k++] = t;
    const uint64_t all = (1ull << n) - 1;
    psi_status st = PSI_OK;
    /* all committed was the check that rejected */
    for (uint64_t m = 0; m < all && st == PSI_OK; m++) {
        set_outcomes(h, opt, n, m, false);
        psi_check_result r;
        st = psi_check(h, opts, &r, d);
        if (st == PSI_OK && r.verdict == PSI_ACCEPT) {
            psi_check_result_free(res);
            *res = r;
            set_outcomes(h, opt, n, m, true);
            free(opt);
            return PSI_OK;
        }
        psi_check_result_free(&r);
    }
    /* the rejecting check's state: every optional one committed */
    set_outcomes(h, opt, n, all, true);
    free(opt);
    return st;
}
