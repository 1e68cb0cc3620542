/* Internal to interpret/: shrinking a violation under SER by pipeline
 * re-checks (explain.c, shrink_by_checks), with each accept's model put to
 * use (interpret/ser_order.h).
 *
 * Deleting chunks while the rest stays a violation, as explain.c's
 * shrink_txns does, spends most re-checks on accepts when the violation
 * is hundreds of needed transactions (10k values 1..4 under SER: 706 of
 * 844, each costing the solver finding a model). Two facts make most of
 * them unnecessary:
 *  - acceptance is monotone in the set: the sub-history of a subset is a
 *    relaxation (sub_check.h), and a serial order of a set restricted to
 *    a subset is one of the subset. Once S minus u is accepted, u is
 *    needed in every violation inside S, and no chunk takes it again.
 *  - a model of S minus t shows which other members are needed too
 *    (model rotation, as in MUS extraction): for a member u, the model
 *    without u with t put back at a place that works (psi_serord_insert)
 *    is a model of S minus u. Only the members behind the constraints
 *    that rule t's places out are tried (psi_serord_insert_causes), and
 *    each model found so is rotated in turn.
 * The chunks are of members not known to be needed, their size adapting
 * (doubled after a deletion, halved after an accept, down to one); an
 * accepted chunk of up to 8 shows its needed members (its model with the
 * others put back). A deletion is tried on the last models first
 * (restricted, with what they lack put in), then by the cores' solver
 * (encode/local.h, psi_sub_cores: the first violation's sub-polygraph in
 * one incremental solver, each subset's absent transactions assumed
 * away), then by the pipeline. That solver's model is an accept once the
 * replay takes its order as a serial order, and its refutation a reject
 * (debug builds ask the pipeline too and assert that it agrees); before
 * the chunks, its core of the violation (the transactions its final
 * conflict assumed present) is tried as a deletion of everything else
 * not known to be needed (10k values 1..4 under SER: 566 -> 409 at
 * once). Its solves are bounded (solves per transaction, conflicts per
 * solve): past them the pipeline decides. The result is checked by the
 * pipeline once more when a deletion rested on that solver; should the
 * pipeline accept it (never seen), the shrink starts again without the
 * solver. Every accept the result rests on is the pipeline's or a serial
 * order the replay checked, and the result is a violation by the
 * pipeline, so it is the same kind of minimal violation shrink_txns
 * gives: without any one of its transactions the rest is accepted.
 *
 * Ownership: the caller's arrays are borrowed; scratch is freed on
 * return. */
#ifndef PSI_INTERPRET_SHRINK_MODELS_H
#define PSI_INTERPRET_SHRINK_MODELS_H

#include "interpret/ser_order.h"
#include "interpret/sub_check.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_shrink_io {
    psi_subcheck *sc; /* the re-checks (SER, no hints), set up */
    psi_serord *so;   /* usable for sc's history */
    uint64_t *calls;  /* re-checks so far (each pipeline run counts one) */
    uint64_t budget;  /* stop once *calls reaches it */
    bool out_of_budget;
    uint64_t rotated; /* accepts shown by a model, not a re-check */
} psi_shrink_io;

/* Shrinks the violation v[0..n) (committed transactions, the order chunks
 * are tried in) in place; returns the new count (v sorted), or
 * UINT32_MAX on error (out of memory). *complete: every single deletion
 * was settled (the budget lasted). */
uint32_t psi_shrink_by_models(psi_shrink_io *io, uint32_t *v, uint32_t n, bool *complete);

#endif
