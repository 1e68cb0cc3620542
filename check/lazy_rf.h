/* SI and SER with read-from choices, without writer-pair constraints up
 * front (lazy refinement; internal to check/).
 *
 * When nearly every read has several candidate writers, nothing the known
 * graph says orders a writer pair, and seeding (prune/seed.h) keeps almost
 * every cross-session pair of a key as a constraint: 10^5 transactions
 * with values 1..4 give 62.7 M of them, more than pruning and the
 * encoding can hold. Here the solver starts from the known graph (session
 * order, the reads with one writer) and, per read with a choice, a
 * variable for its likeliest candidate (by its place in the sessions)
 * and one for "another": a model that takes "another" gets the read's
 * next few candidates (the clause "another implies one of these or yet
 * another"), so a read's candidates become variables only when a model
 * wants them. Each model is checked whole: the theory's order of the
 * transactions is taken as the commit order, each key's version order is
 * its writers in that order, and every read's anti-dependency to the
 * writer that follows its chosen one is checked against that order. If
 * nothing goes backwards, the order is a witness (every edge of the
 * dependency graph goes forward in it, SER; or, SI, every RW edge's head
 * can be placed after its tail and before the head's DEP successors, the
 * doubled graph's condition): accept. Otherwise the edges that go
 * backwards become the solver's: a variable for the writer pair's order
 * (its two WW edges labelled by it) and the one RW edge, labelled by the
 * read's choice and that order; the theory then keeps them acyclic.
 *
 * Exact both ways: an accept carries a full witness; every edge added is
 * an edge of the full polygraph under the literals that imply it, and a
 * candidate without a variable is covered by "another", which labels no
 * edge, so the formula is a relaxation of the full one and UNSAT
 * rejects. Finite: each
 * round adds at least one edge of a finite set. Memory: one variable per
 * choice plus what the rounds add, bounded by psi_lazy_opts.max_edges;
 * time by its conflict and round budgets (past them the caller takes the
 * usual path). */
#ifndef PSI_CHECK_LAZY_RF_H
#define PSI_CHECK_LAZY_RF_H

#include "check/check.h" /* psi_lazy_outcome, psi_lazy_stats */
#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_lazy_opts {
    bool ser;
    uint64_t max_edges;     /* edges the rounds may add; 0: the default (lazy_rf.c) */
    uint32_t max_rounds;    /* models checked; 0: the default */
    uint64_t max_conflicts; /* the solver's, over all models; 0: the default */
} psi_lazy_opts;

/* Whether the lazy check applies to h: committed transactions only take
 * part (no optional ones), no list-append reads, some read with a choice.
 * The caller decides whether it is worth it. */
bool psi_lazy_applies(const psi_history *h, const psi_index *idx);

/* Decides h under SI (or SER with opts->ser) from the index alone (no
 * graph-free anomaly may be left in it). *out gets the outcome. */
psi_status psi_lazy_check(const psi_history *h, const psi_index *idx, const psi_lazy_opts *opts,
                          psi_lazy_outcome *out, psi_lazy_stats *stats, psi_diag *d);

#endif
