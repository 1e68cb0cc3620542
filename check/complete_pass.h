/* A complete version order checked in one pass over the history, without
 * the polygraph (issue 15: "with a complete version order, no slower than
 * loading plus one graph pass").
 *
 * With every key's version order given, the known graph psi_known_complete
 * builds (known_only.h) is fixed by the history and the order alone:
 *   SO  each committed transaction to the next committed one of its session;
 *   WR  a version's writer to each transaction that read it (index.h's
 *       read_src, grouped once by writer);
 *   WW  each version's writer to the next version's (the order's chains);
 *   RW  each reader of a version (or of the initial value) to the writer of
 *       the key's next version (or its first), unless that is itself.
 * This pass walks those edges where they are, as the successors of a node,
 * and looks for a forbidden cycle by an iterative depth-first search: SER's
 * plain graph, or SI's doubled graph (reach.h: u0 -> u1 free, DEP u1 -> v0,
 * RW u0 -> w1), so no edge array, no CSR of edges and no polygraph is
 * built. The initial transaction takes no part: no edge enters it.
 *
 * A cycle is a reject with its cycle: a shortest one through the node
 * the search found on it (or the other copy of its transaction, SI), by
 * a breadth-first search over the same implicit edges, as the old path's
 * report makes over its known graph from the node its own search found
 * (the two walk successors in much the same order, but may still report
 * different cycles of one history, and so different anomalies), each step
 * as the polygraph's edge (SO and WR from the history, WW from the
 * order with origin PSI_FROM_VERSION_ORDER, RW forced by it with
 * seeding's origins), so the caller reports it without the polygraph
 * (psi_hints_of_cycle names the WW edges' lines). Where the cycle does
 * not stand for the history (a read with a choice of writers walked as
 * its read line's, a list-append fact against the order) no cycle is
 * given: the caller checks again the old way (known_only.h). It declines
 * (*taken false) wherever the old complete path
 * declines or has edges this pass does not walk: an order that is not
 * complete (psi_hints_next), reads with a choice of writers that the
 * order file's read lines do not all resolve (psi_hints_choices),
 * optional transactions.
 *
 * List-append reads show WW facts (core/list_order.h). With a total
 * order per key a fact that agrees with it adds nothing the order's WW
 * path does not already reach, and one against it closes a cycle with
 * that path: the pass checks each fact's two writers' places in the
 * order, and reports one against it as a cycle (the old path explains
 * it). The facts count as known edges, as in the polygraph.
 *
 * A read with a choice of writers (repeated values, index.h's amb) is
 * walked as a read of the writer its read line names (one of its
 * candidates, as `check --witness` writes them): the graph is then the
 * one of that choice, and its acyclicity is an accept for the history,
 * which has that choice among others. A cycle says nothing about the
 * other choices: the old path searches them.
 *
 * The statistics are the old path's (psi_complete_counts): the known
 * edges it would have before and after the forced ones, the writer pairs
 * and the edges of the paper's polygraph, counted while walking. With
 * choice reads they count the graph of the named writers (the old path
 * would count each choice's edges as constraints).
 *
 * Ownership: nothing is kept; the pass allocates and frees its scratch. */
#ifndef PSI_CHECK_COMPLETE_PASS_H
#define PSI_CHECK_COMPLETE_PASS_H

#include "check/hints.h"
#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"
#include "core/polygraph.h"

#include <stdbool.h>
#include <stdint.h>

/* What psi_known_complete's polygraph would count (check.h's stats). */
typedef struct psi_complete_counts {
    uint64_t known_before; /* SO, WR and the order's WW edges */
    uint64_t known_after;  /* and the RW edges the order forces */
    uint64_t writer_pairs; /* polygraph.h n_writer_pairs */
    uint64_t pair_deps;    /* polygraph.h n_pair_deps */
} psi_complete_counts;

/* idx: built for SI or SER (psi_index_build), no anomalies. *taken: the
 * pass applied; then *acyclic says whether the graph has no forbidden
 * cycle (SI's rule, or SER's when ser) and *cnt is filled. cycle (may be
 * NULL: not wanted): when not acyclic and the cycle is the history's (see
 * above), *cycle gets its edges in order (the caller frees it) and
 * *cycle_len their number; else NULL and 0. */
psi_status psi_complete_pass(const psi_history *h, const psi_index *idx,
                             const psi_version_order *vo, bool ser, bool *taken, bool *acyclic,
                             psi_complete_counts *cnt, psi_edge **cycle, uint32_t *cycle_len,
                             psi_diag *d);

#endif
