/* Internal to interpret/: the generalized polygraph of a small sub-history,
 * rebuilt from the history alone, as the counterexample search uses it
 * (explain.c builds and minimizes it, resolve.c settles and presents it,
 * classify.c names it). Nodes are local indices 0..n_nodes-1; node_txn
 * maps them back to transactions. */
#ifndef PSI_INTERPRET_LOCAL_H
#define PSI_INTERPRET_LOCAL_H

#include "interpret/explain.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_lx_edge {
    uint32_t from, to; /* local nodes */
    uint32_t key;      /* dense key, UINT32_MAX for SO */
    uint8_t type;      /* psi_edge_type */
    uint8_t on;        /* still part of the violation (minimization clears it) */
    uint8_t side;      /* constraint edges: 0 either (t first), 1 or (s first) */
    int32_t cons;      /* -1 for certain edges, else the constraint */
} psi_lx_edge;

typedef struct psi_lx_cons {
    uint32_t t, s, key; /* local nodes of the two writers, dense key */
} psi_lx_cons;

typedef struct psi_lx {
    uint32_t n_nodes;
    uint32_t *node_txn;
    psi_lx_edge *e;
    uint32_t n_e, cap_e;
    psi_lx_cons *c;
    uint32_t n_c, cap_c;
} psi_lx;

void psi_lx_free(psi_lx *L);

/* Settles, finalizes and writes the counterexample of the (minimized)
 * violation L into cex (edges, choices, cycles, txns). */
psi_status psi_lx_present(const psi_lx *L, bool ser, psi_cex *cex, psi_diag *d);

/* Names the counterexample (kind and summary) from its shape. */
void psi_cex_classify(const psi_history *h, const psi_index *idx, bool ser, psi_cex *cex);

/* A shortest forbidden cycle in the small graph of edges es[0..n) whose
 * active[i] is set, through at least one edge with through[i] set (all
 * when through is NULL). Writes its edge indices to out (capacity n) and
 * returns its length, 0 when there is none, -1 when out of memory. */
int psi_lx_find_cycle(uint32_t n_nodes, const psi_lx_edge *es, uint32_t n, const uint8_t *active,
                      const uint8_t *through, bool ser, uint32_t *out);

#endif
