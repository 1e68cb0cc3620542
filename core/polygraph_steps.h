/* The construction steps shared by the whole history's polygraph
 * (polygraph.c) and a sub-history's (sub_polygraph.c): SO, WR, the initial
 * transaction's RW edges, writer pairs and their sides. Each is written
 * once and emits its edges through a psi_emitter, which puts them either
 * into the known edges of a psi_polygraph or into the flat, labelled edge
 * list of a psi_sub_polygraph (mapping transactions to local nodes and
 * dropping edges that leave the sub-history).
 *
 * Internal to core/ (not installed). The emitter borrows everything it
 * points to; nothing here allocates except through the target graph. */
#ifndef PSI_CORE_POLYGRAPH_STEPS_H
#define PSI_CORE_POLYGRAPH_STEPS_H

#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* Where the construction steps put their edges: exactly one of g and S. */
typedef struct psi_emitter {
    psi_polygraph *g;      /* the whole history: known edges, PSI_FROM_HISTORY */
    psi_sub_polygraph *S;  /* or a sub-history: labelled flat edges */
    const uint32_t *local; /* sub-history: transaction -> local node, UINT32_MAX outside */
    int32_t cons;          /* label of the edges emitted next (sub-history) */
    uint32_t rc;           /* and their read-from choice + 1 (0: none) */
    uint8_t side;
    psi_diag *d;
    psi_status st;
} psi_emitter;

/* One edge into the emitter's target. */
psi_status psi_emit(psi_emitter *em, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key);
/* psi_edge_fn adapter (ctx: a psi_emitter); its status lands in em->st. */
bool psi_emit_fn(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key);

/* SO edges; txns[0..n) the sub-history's sorted transactions, or NULL for
 * the whole history. *count grows by the edges emitted. */
psi_status psi_so_edges(psi_emitter *em, const psi_history *h, const uint32_t *txns, uint32_t n,
                        bool has_init, uint64_t *count);
/* WR edges from each external read's writer (txns as for psi_so_edges). */
psi_status psi_wr_edges(psi_emitter *em, const psi_history *h, const psi_index *idx,
                        const uint32_t *txns, uint32_t n, uint64_t *count);
/* RW from every reader of key's initial value to every writer of key. */
psi_status psi_init_rw_edges(psi_emitter *em, const uint32_t *op_txn, uint32_t key,
                             const uint32_t *readers, uint32_t nr, const uint32_t *w_op,
                             uint32_t nw, uint64_t *count);
/* Writers a < b of a key's writer list w_op as a pair. */
psi_pair psi_writer_pair(const uint32_t *op_txn, const uint32_t *w_op, uint32_t a, uint32_t b,
                         uint32_t key);
/* One side of writer pair (t, s) over keys ks[0..n), through fn; false as
 * soon as fn returns false. */
bool psi_side_edges(const psi_polygraph *g, uint32_t t, uint32_t s, const psi_ckey *ks, uint32_t n,
                    bool either, psi_edge_fn fn, void *ctx);

#endif
