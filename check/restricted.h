/* SI and SER with read-from choices: a restricted problem tried first
 * (an under-approximation; internal to check/, driven by check.c).
 *
 * Where every (key, value) is written by dozens of transactions (10^5
 * transactions with values 1..4), no read has one candidate writer and the
 * known graph is session order alone: pruning cannot start, and seeding
 * keeps nearly every writer pair of a key (62.7 M) as a constraint. The
 * transactions' places in their sessions estimate when each ran, to
 * within some hundreds of transactions. So the check first tries a
 * problem that assumes each transaction ran within its span: its
 * estimate -+ (W / 2 plus a multiple of the estimate's uncertainty about
 * it), spans made monotone along sessions (psi_restricted_spans):
 *  (a) each read with a choice keeps only the candidates whose span
 *      overlaps the reader's, plus the one before it that starts last
 *      and those that may end after that one starts, the initial
 *      transaction and its own session's candidates (a read left with
 *      one candidate becomes an ordinary read);
 *  (b) a transaction whose span ends before another's starts precedes
 *      it: a known DEP edge (SO-typed, origin PSI_FROM_ESTIMATE), added
 *      sparsely to the first transaction of each other session past it.
 * Both only remove solutions: fewer candidates, and more DEP edges (which
 * can only close more cycles, in the SER graph and in SI's doubled one).
 * So a model of the restricted problem is a model of the full one, and
 * its accept (and its witness, read-from choices included) is the
 * history's; its reject or a give-up proves nothing, and the usual path
 * decides. With (b), pairs of writers with disjoint spans are ordered in
 * the known graph, seeding resolves them, and the reads' few candidates
 * let pruning settle reads and cascade as it does with values 1..16.
 *
 * Ownership: the estimate is the caller's array; psi_restricted_index
 * fills an index the caller frees with psi_index_free (the polygraph
 * built from it borrows its read arrays); the skeleton's edges go into
 * the caller's polygraph. */
#ifndef PSI_CHECK_RESTRICTED_H
#define PSI_CHECK_RESTRICTED_H

#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"
#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* Whether the restricted problem applies to h: what the lazy check needs
 * (committed transactions only take part, no list-append reads, some read
 * with a choice), and few enough sessions that the skeleton (n · sessions
 * edges at most) stays small. */
bool psi_restricted_applies(const psi_history *h, const psi_index *idx);

/* est[t] for every transaction: its estimated time, in transactions (the
 * history's transactions spread over [0, n)): its place in its session
 * scaled to the session's length, then `rounds` rounds that move each
 * session along by the reads its place makes implausible (a read is
 * plausible where the key's last writer before it wrote its value). The
 * initial transaction gets -1 (before everything). Increasing along each
 * session. unc, when not NULL, gets each transaction's uncertainty in
 * ranks: how far its reads, and its session's around it, still are from
 * a plausible place at the end (0 without rounds). est, unc: [h->n_txns],
 * the caller's. Fails only when out of memory. */
psi_status psi_restricted_estimate(const psi_history *h, const psi_index *idx, uint32_t rounds,
                                   double *est, double *unc, psi_diag *d);

/* Each transaction's span [lo[t], hi[t]]: where the restriction assumes
 * it ran, est[t] -+ (w / 2 + wid[t]) (wid may be NULL: one window w for
 * all), widened so that lo and hi increase along each session. Two
 * transactions whose spans overlap may run in either order; a span
 * wholly before another precedes it. lo, hi: [h->n_txns], the caller's. */
void psi_restricted_spans(const psi_history *h, const double *est, const double *wid, double w,
                          double *lo, double *hi);

/* Writer pairs of one key whose spans overlap: what (b) leaves open for
 * seeding, an upper bound of the constraints it keeps. Fails only when
 * out of memory. */
psi_status psi_restricted_open_pairs(const psi_history *h, const psi_index *idx, const double *lo,
                                     const double *hi, uint64_t *pairs, psi_diag *d);

/* Counts of one restriction. */
typedef struct psi_restricted_cut {
    uint64_t choices_before, choices_after; /* candidates of reads with a choice */
    uint32_t reads_before, reads_after;     /* reads with a choice */
} psi_restricted_cut;

/* *out: a copy of idx whose reads with a choice keep only the candidates
 * (a) allows: spans overlapping the reader's (psi_restricted_spans). idx
 * must have no optional transactions (psi_restricted_applies). */
psi_status psi_restricted_index(const psi_history *h, const psi_index *idx, const double *lo,
                                const double *hi, psi_index *out, psi_restricted_cut *cut,
                                psi_diag *d);

/* Adds (b)'s edges to g: a transaction precedes every transaction whose
 * span starts after its own ends; *n_added says how many. */
psi_status psi_restricted_skeleton(const psi_history *h, const double *lo, const double *hi,
                                   psi_polygraph *g, uint64_t *n_added, psi_diag *d);

/* The model's choices in full's numbering: cut is psi_restricted_index's
 * copy of full, choice[a] the candidate (index into cut's read a's list)
 * taken; *out[a'] gets, for full's read a', the index into its own list
 * of the same writer (the one left, for a read cut made ordinary).
 * *out is malloc'ed, the caller's. */
psi_status psi_restricted_choices_back(const psi_index *full, const psi_index *cut,
                                       const uint32_t *choice, uint32_t **out, psi_diag *d);

#endif
