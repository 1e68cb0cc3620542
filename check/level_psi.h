/* Parallel snapshot isolation by lazy refinement (internal to check/).
 *
 * PSI forbids exactly the cycles of SO ∪ WR ∪ WW ∪ RW with at most one RW
 * edge (Cerone & Gotsman, "Analysing snapshot isolation", J. ACM 2018:
 * (DEP+ ; RW?) irreflexive). No acyclicity of a fixed graph says "at most
 * one", so the encoding (encode.h) runs the theory in its PSI mode: DEP
 * acyclic, and every cycle of one RW edge found during search, when its
 * last edge goes in (solver/acyclic.h), so its models need no check. The
 * check of each model, complete on its own, runs when the theory checks
 * only RW activations (psi_check_opts.psi_refine_only) and, as an
 * assertion that it finds nothing, after every eager model in PSI_CHECK
 * builds (check.c; it costs one pass over all theory edges per model):
 * psi_psi_refine looks for an active RW edge a -> b whose head b reaches a
 * over active DEP edges, and for each one found adds the clause "not all
 * of these edges' labels", which no PSI model violates. The solver then searches again; a model
 * with no such edge is a PSI model. Finite: each clause removes the
 * current model for good.
 *
 * Ownership: *cycle (when set) is malloc'd and owned by the caller. */
#ifndef PSI_CHECK_LEVEL_PSI_H
#define PSI_CHECK_LEVEL_PSI_H

#include "core/history.h"
#include "encode/encode.h"

#include <stdint.h>

/* After PSI_SAT_SAT on an encoding made with opts.psi. *added: clauses
 * added (0: the model satisfies PSI). When a forbidden cycle consists of
 * unlabelled (known) edges only, no clause can help: *cycle / *cycle_len
 * get it and the history is rejected. */
psi_status psi_psi_refine(const psi_history *h, psi_encoding *enc, uint32_t *added,
                          psi_edge **cycle, uint32_t *cycle_len, psi_diag *d);

#endif
