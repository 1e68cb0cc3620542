/* Every anomaly of a rejected history, not just one (`check
 * --all-anomalies`), as Elle lists its anomalies: all graph-free anomalies
 * (validation finds every one), and independent violations one after the
 * other, up to a bound.
 *
 * Independent means sharing no transaction: after a violation is found
 * and explained, its transactions are taken out of the history (with the
 * reads that observed their writes, and the reads that were graph-free
 * anomalies), and what is left is checked again. Taking transactions and
 * reads out only removes dependencies, so a violation of what is left is
 * a violation of the history. The search stops at the bound, or when what
 * is left satisfies the level: then there are no more (every violation
 * shares a transaction with one listed).
 *
 * Ownership: psi_all_find fills a psi_all whose items own the history
 * each was found in (the sub-history left at that point), its check
 * result and its counterexample; psi_all_free releases them. */
#ifndef PSI_INTERPRET_ALL_H
#define PSI_INTERPRET_ALL_H

#include "check/check.h"
#include "interpret/explain.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_all_item {
    psi_history *h; /* the history left when it was found (transaction ids as in the input) */
    psi_check_result res;
    psi_cex cx;
} psi_all_item;

typedef struct psi_all {
    psi_all_item *items; /* independent violations after the first (which the caller has) */
    uint32_t n;
    /* What the history left after the last one was checked and found:
     * PSI_ACCEPT (no more violations), PSI_REJECT (more: the bound was
     * reached), or unknown when the bound stopped the search first. */
    bool rest_checked;
    psi_verdict rest;
    size_t graph_free; /* graph-free anomalies (in the first check's idx.anomalies) */
} psi_all;

/* After h was checked (first) and its counterexample built (first_cx),
 * finds up to max - 1 more independent violations (max counts the first),
 * each checked with co and explained with xo, and checks what is left
 * once more (rest). h's transactions of unknown outcome are settled as the
 * first check left them. Errors: memory, or limits of the checks. */
psi_status psi_all_find(const psi_history *h, const psi_check_result *first,
                        const psi_cex *first_cx, const psi_check_opts *co, const psi_cex_opts *xo,
                        uint32_t max, psi_all *out, psi_diag *d);
void psi_all_free(psi_all *a);

#endif
