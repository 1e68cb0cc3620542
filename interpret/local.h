/* Internal to interpret/: the counterexample search works on the
 * generalized polygraph of a small sub-history, rebuilt from the history
 * alone by core (psi_sub_polygraph, core/polygraph.h) and solved through
 * encode/local.h. explain.c restores and minimizes it, resolve.c settles
 * and presents it, classify.c names the result. */
#ifndef PSI_INTERPRET_LOCAL_H
#define PSI_INTERPRET_LOCAL_H

#include "core/polygraph.h"
#include "interpret/explain.h"

#include <stdbool.h>

/* Transactions and reads with a choice of writers that pruning's
 * decisions on a reported cycle rest on (interpret/reasons.c): the
 * cycle's transactions, the writers its anti-dependencies' reads observed
 * or were resolved to, each read's candidates, and per decided order or
 * excluded candidate the transactions of the shortest cycle the other way
 * in the final known graph, recursively up to max_depth reasons deep
 * (the cycle's own edges are depth 0; bounded). A guess to re-check:
 * the final graph holds later decisions too. Ownership: psi_reasons_grow
 * allocates, psi_reasons_free releases. */
typedef struct psi_reasons {
    uint32_t *txns; /* distinct, in the order reasons reached them (the cycle's first) */
    uint32_t n_txns;
    size_t cap_txns;
    uint32_t *reads; /* read ops with a choice of writers, in operation order */
    uint32_t n_reads;
    size_t cap_reads;
    /* Pruning rejected (a known cycle, or both sides of a constraint) and
     * every decision's reason was found and followed (no bound was hit):
     * then the set is a violation by construction under SER and SI (each
     * reason is a cycle the level forbids, among the decisions of earlier
     * rounds, whose reads keep all their candidates), and explain.c
     * asserts it in PSI_CHECK builds. Never for the solver's cycle. */
    bool complete;
    /* The searches scanned all the known edges one growth may (reasons.c,
     * MAX_SCAN_PER_GROWTH): the history is too big for its reasons to be
     * followed, and deepening adds nothing more. */
    bool spent;
    struct psi_reasons_ctx *ctx; /* the growth, for deepening it (owned) */
} psi_reasons;

/* The reject's reported cycles, where the reasons start: the solver's,
 * or pruning's one or two (a known cycle, or both sides of a
 * constraint). Fills cyc/len (borrowed from res); returns their count. */
uint32_t psi_reported_cycles(const psi_check_result *res, const psi_edge *cyc[2], uint32_t len[2]);

/* psi_reasons_grow in steps: start, then deepen to max_depth, 1, 2, ...:
 * each deepening follows the reasons further from where the last one
 * stopped (a deeper set is a superset, txns extended in order), so that
 * trying depth after depth costs one growth. */
psi_status psi_reasons_start(const psi_history *h, const psi_check_result *res, bool ser,
                             const psi_edge *const *cycles, const uint32_t *lens, uint32_t n_cycles,
                             psi_reasons *R, psi_diag *d);
psi_status psi_reasons_deepen(psi_reasons *R, uint32_t max_depth, psi_diag *d);
/* Lowers the known edges the growth's searches may scan in all (default
 * MAX_SCAN_PER_GROWTH in reasons.c), between start and the first
 * deepening: tests reach the spent path on small histories with it. */
void psi_reasons_limit_scan(psi_reasons *R, uint64_t max_scanned);
psi_status psi_reasons_grow(const psi_history *h, const psi_check_result *res, bool ser,
                            const psi_edge *const *cycles, const uint32_t *lens, uint32_t n_cycles,
                            uint32_t max_depth, psi_reasons *R, psi_diag *d);
void psi_reasons_free(psi_reasons *R);

/* Ascending order of uint32_t (qsort). */
int psi_u32_cmp(const void *a, const void *b);
/* Sorts v[0..n) and drops repeats; returns how many are left. */
uint32_t psi_u32_sort_unique(uint32_t *v, uint32_t n);
/* The index in idx->amb of read op o, or UINT32_MAX (interpret/as_found.c). */
uint32_t psi_amb_of(const psi_index *idx, uint32_t o);

/* Shown as found (interpret/as_found.c): a graph-free anomaly (the reader
 * and the writer it observed), or the reported cycle c[0..n) when no
 * sub-history was restored (edges present in the history count as
 * certain); psi_cex_add_list_evidence names the list-append read that
 * shows each certain WW edge and brings its transaction in. */
psi_status psi_cex_from_anomaly(const psi_history *h, const psi_anomaly *an, psi_cex *cex,
                                psi_diag *d);
psi_status psi_cex_from_cycle(const psi_history *h, const psi_check_result *res, const psi_edge *c,
                              uint32_t n, psi_cex *cex, psi_diag *d);
psi_status psi_cex_add_list_evidence(const psi_history *h, const psi_index *idx, psi_cex *cex,
                                     psi_diag *d);

/* Settles, finalizes and writes the counterexample of the (minimized)
 * violation L into cex (edges, choices, cycles, txns). */
psi_status psi_cex_present(const psi_sub_polygraph *L, bool ser, psi_cex *cex, psi_diag *d);

/* Names the counterexample (kind and summary) from its shape. */
void psi_cex_classify(const psi_history *h, const psi_index *idx, bool ser, psi_cex *cex);

/* The counterexample of a PSI_BY_LEVEL reject (interpret/level_cex.c). */
/* The counterexample of a reject by timestamps (interpret/ts_cex.c). */
psi_status psi_ts_cex_build(const psi_history *h, const psi_check_result *res, psi_cex *cex,
                            psi_diag *d);
psi_status psi_level_cex_build(const psi_history *h, const psi_check_result *res, psi_cex *cex,
                               psi_diag *d);

#endif
