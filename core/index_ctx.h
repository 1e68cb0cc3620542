/* The index builder's state, shared by its passes in index.c and the
 * settling of unknown outcomes in index_outcome.c. Internal to core/. */
#ifndef PSI_CORE_INDEX_CTX_H
#define PSI_CORE_INDEX_CTX_H

#include "core/index.h"
#include "core/kvsort.h"

typedef struct index_ctx {
    psi_history *h;
    psi_index *idx;
    uint32_t *order; /* scratch: a txn's op offsets sorted by (key, position) */
    /* Scratch for the radix sorts of the write map and the join, sized
     * to each sort's records and freed after it (index.c, kv_alloc). */
    psi_kv *kv_a, *kv_tmp;
    size_t cap_order;
    size_t cap_anomalies;
    size_t cap_amb, cap_amb_cand;
    psi_diag *d;
    /* Unknown-outcome transactions that must stay absent (their reads
     * have no candidate even if every optional transaction commits), or
     * NULL; and the anomalies of optional transactions' own reads, which
     * are reasons for absence, not the history's, while they are
     * optional. */
    const uint8_t *never;
    /* psi_index_build_per_read: non-repeatable reads are no anomaly */
    bool per_read;
    psi_anomaly *opt_anom;
    size_t n_opt_anom, cap_opt_anom;
} index_ctx;

/* Records an anomaly (an optional transaction's own goes to opt_anom). */
psi_status psi_index_add_anomaly(index_ctx *c, psi_anomaly a);

/* The write before w of the same (key, value), or PSI_SRC_NONE. */
static inline uint32_t prev_dup(const psi_index *idx, uint32_t w)
{
    return idx->dup_prev ? idx->dup_prev[w] : PSI_SRC_NONE;
}

/* Pass 4 (index_outcome.c): promotes or makes optional the unknown
 * transactions committed reads observe. */
psi_status psi_index_settle_unknown(index_ctx *c);

/* After pass 6 (index_outcome.c): commits the optional writers committed
 * reads need alone, moves their anomalies to the history's, and marks in
 * dead[] (counting the new ones in *n_dead) the optional transactions
 * that can never commit. */
psi_status psi_index_settle_optional(index_ctx *c, uint8_t *dead, uint32_t *n_dead);

#endif
