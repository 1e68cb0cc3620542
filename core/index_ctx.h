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
    /* Pass 5's copies of the dup_prev chains (psi_index_dup_chain): each
     * read of a repeated (key, value) walks its chain, and every read of
     * it the same one; walked through dup_prev, op_info, op_txn and txns
     * that was four cache misses a writer (36 M writers at 10^5
     * transactions with values 1..4). chain_at[w] is 1 + the offset in
     * chains of the copy of the chain ending at write w, 0 before it is
     * made ([n_ops], allocated at the first chain); a copy ends with a
     * record whose w is PSI_SRC_NONE. */
    uint32_t *chain_at;
    struct psi_dup_rec *chains;
    size_t n_chains, cap_chains;
} index_ctx;

/* Records an anomaly (an optional transaction's own goes to opt_anom). */
psi_status psi_index_add_anomaly(index_ctx *c, psi_anomaly a);

/* The write before w of the same (key, value), or PSI_SRC_NONE. */
static inline uint32_t prev_dup(const psi_index *idx, uint32_t w)
{
    return idx->dup_prev ? idx->dup_prev[w] : PSI_SRC_NONE;
}

/* One write of a dup_prev chain, with what pass 5 asks of it. */
typedef struct psi_dup_rec {
    uint32_t w;            /* the write op, PSI_SRC_NONE past the chain's end */
    uint32_t session, pos; /* its transaction's */
    uint8_t info;          /* op_info[w] (pass 5 changes no write's bits) */
} psi_dup_rec;

/* The copy of the chain of writes ending at write last (index_ctx
 * chain_at), made at its first use (index_chain.c); NULL when out of
 * memory. */
const psi_dup_rec *psi_index_dup_chain(index_ctx *c, uint32_t last);

/* Why the chain's write cr cannot be what the transaction rt read (an
 * anomaly kind), or -1 when it can: index.c's invalid_source, on the
 * copy. */
static inline int psi_dup_invalid(const psi_dup_rec *cr, const psi_txn *rt)
{
    if (cr->w - rt->first_op < rt->n_ops)
        return PSI_ANOM_INT; /* observed its own later write */
    if (!(cr->info & PSI_OI_LIVE))
        return PSI_ANOM_G1A;
    if (!(cr->info & PSI_OI_FINAL_WRITE))
        return PSI_ANOM_G1B;
    return -1;
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
