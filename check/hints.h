/* Ordering information the database or the harness already knows (issue
 * 15, the King Cobra idea): known version orders become known WW edges of
 * the polygraph before pruning, so pruning's seeding derives the RW edges
 * they force and a complete order leaves no constraint for the solver.
 *
 * The caller (cli/, or a library user) reads the hint file; formats/ parses
 * it (the witness format's key and chain lines, formats/witness.h) and the
 * caller hands the chains over in the plain form below, since check/ reads
 * no files. psi_check resolves them against the history: a transaction, a
 * key or a writer that is not in the history, or a key's chains that
 * contradict each other, is bad input (PSI_ERR_INPUT naming FILE:LINE), not
 * a verdict. A hint consistent in itself that contradicts the history is a
 * violation the check finds like any other: its cycle contains the hint's
 * WW edge (origin PSI_FROM_VERSION_ORDER), whose line psi_hints_line names.
 *
 * Ownership: psi_version_order is borrowed (the caller's, read only);
 * psi_hints_resolve fills a psi_hints that owns its arrays and a copy of
 * the file name; psi_hints_free releases them. */
#ifndef PSI_CHECK_HINTS_H
#define PSI_CHECK_HINTS_H

#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"
#include "core/polygraph.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A transaction a hint names: (session id, transaction id) as in the
 * history's input, and the hint file's line it is on. */
typedef struct psi_hint_txn {
    uint64_t sid, tid;
    uint64_t line;
} psi_hint_txn;

/* Writers of one key known to be installed in this order (any subsequence
 * of the key's version order). */
typedef struct psi_hint_chain {
    uint64_t key; /* the external key, when key_name is NULL */
    /* The key's spelling (a version-4 file, formats/witness.h), borrowed,
     * or NULL: resolved through the history's key names, an integer
     * spelling naming the key spelled so (core/keyname.h). */
    const char *key_name;
    uint64_t line;
    /* The entries, tx[0..n) by name, or (when the file was resolved while
     * it was read, interpret/hint_file.h) txn[0..n) as indices of the
     * history psi_version_order.named_in, each the one transaction of
     * that history with its name, whatever its status; the other one
     * NULL. Entries named either way are on the chain's line.
     * psi_hint_chain_entry gives either as a name. */
    const psi_hint_txn *tx;
    const uint32_t *txn;
    size_t n;
} psi_hint_chain;

/* A read line of the order file (the witness format's, version 2): the
 * writer the reader's read of a key returned. Only the polygraph-free pass
 * of a complete order uses them (complete_pass.h), for reads with a choice
 * of writers; everything else reads the history alone. */
typedef struct psi_hint_read {
    psi_hint_txn reader;
    uint64_t key;         /* as in psi_hint_chain */
    const char *key_name; /* as in psi_hint_chain, borrowed */
    bool init;            /* the initial value (writer unused) */
    psi_hint_txn writer;
    uint32_t event; /* which read of the key by the reader, from 0 */
    uint64_t line;
} psi_hint_read;

typedef struct psi_version_order {
    const char *name; /* the file, for messages */
    /* The history chains' txn[] index into (borrowed), NULL when every
     * chain names its entries (tx[]); a check of another history (a
     * counterexample's sub-history) is given chains by name. */
    const psi_history *named_in;
    const psi_hint_chain *chains;
    size_t n_chains;
    const psi_hint_read *reads; /* NULL when n_reads is 0 */
    size_t n_reads;
} psi_version_order;

/* Entry i of chain c of vo as a name: (session id, transaction id) and
 * the line it is on. */
psi_hint_txn psi_hint_chain_entry(const psi_version_order *vo, const psi_hint_chain *c, size_t i);

/* Entry i of chain c, resolved in vo->named_in (c->txn): its transaction
 * when a hint may name it (committed, or the recorded initial state),
 * UINT32_MAX otherwise, as a look-up of its name answers. */
static inline uint32_t psi_hint_resolved_txn(const psi_version_order *vo, const psi_hint_chain *c,
                                             size_t i)
{
    assert(c->txn && vo->named_in && i < c->n);
    uint32_t t = c->txn[i];
    assert(t > 0 && t < vo->named_in->n_txns);
    uint8_t s = vo->named_in->txns[t].status;
    return s == PSI_TXN_COMMITTED || s == PSI_TXN_INITIAL ? t : UINT32_MAX;
}

/* One known WW edge: from is installed before to on dense key `key`, as
 * hint line `line` says (the first such line when several do). */
typedef struct psi_hint_edge {
    uint32_t from, to, key;
    uint32_t pad; /* zero */
    uint64_t line;
} psi_hint_edge;

typedef struct psi_hints {
    char *file; /* the hint file's name (owned copy), NULL when no hints */
    /* Grouped by key, keys ascending, no duplicates; within a key in chain
     * order when its edges form one path, else sorted by (from, to). */
    psi_hint_edge *e;
    uint64_t n;
    /* The edges the whole order gives: n, unless only some of them were
     * resolved (psi_hints_of_cycle); 0 says the order orders no pair. */
    uint64_t n_all;
} psi_hints;

/* Resolves vo against the history h and its polygraph g (built, before
 * pruning: its per-key writer lists say who the committed writers are) into
 * *out: one edge per consecutive pair of every chain. Errors as above;
 * *out is then empty. */
psi_status psi_hints_resolve(const psi_history *h, const psi_polygraph *g,
                             const psi_version_order *vo, psi_hints *out, psi_diag *d);

/* psi_hints_resolve without a polygraph (the polynomial levels,
 * check/level.h): a chain's writers are the committed transactions with
 * a final write of its key in idx. The same edges, errors and lines. */
psi_status psi_hints_resolve_index(const psi_history *h, const psi_index *idx,
                                   const psi_version_order *vo, psi_hints *out, psi_diag *d);

/* Whether vo is a complete version order of h, decided from the chains
 * and g's per-key writer lists alone, before any edge is added: one chain
 * per key naming each committed writer of the key exactly once (the
 * recorded initial state may come first), a key with one writer needing
 * none. If so, *complete is set, *out holds what psi_hints_resolve would
 * (the same edges in the same order), and pos[g->w_off[k] + i] is the
 * index into g->w_op of key k's i-th version. Anything else (a partial
 * order, several chains of a key, bad input) leaves *complete false and
 * *out empty: psi_hints_resolve's to judge and name. Fails only when out
 * of memory. pos: room for every writer of every key (g->w_off[g->n_keys]). */
psi_status psi_hints_complete(const psi_history *h, const psi_polygraph *g,
                              const psi_version_order *vo, uint32_t *pos, psi_hints *out,
                              bool *complete, psi_diag *d);

/* The end of a key's version order in psi_hints_next's arrays. */
#define PSI_HINT_LAST UINT32_MAX

/* One operation's entry in psi_hints_next's array: its order successor
 * and its transaction side by side, so a pass that follows a read to the
 * version it read finds both on one cache line (complete_pass.c). */
typedef struct psi_hint_slot {
    uint32_t next; /* the order's next writer (final writes), see below */
    uint32_t txn;  /* the operation's transaction (idx->op_txn) */
} psi_hint_slot;

/* A complete version order in the form the polygraph-free pass walks
 * (check/complete_pass.h), decided from the index alone (no polygraph):
 * nx[o].next, for the final write o of key k by a committed transaction,
 * is the transaction that installs k's next version (PSI_HINT_LAST for
 * the last), and nx[o].txn is o's transaction for every operation;
 * first[k] is k's first writer (PSI_HINT_LAST when none). Complete
 * means what psi_hints_complete means: one chain per key naming each
 * committed writer of the key once (the recorded initial state may come
 * first), a key with one writer needing none. Anything else leaves
 * *complete false (nx and first then undefined): bad input is
 * psi_hints_resolve's to name. Fails only when out of memory.
 * nx: [h->n_ops], first: [h->n_keys], both the caller's. */
psi_status psi_hints_next(const psi_history *h, const psi_index *idx, const psi_version_order *vo,
                          psi_hint_slot *nx, uint32_t *first, bool *complete, psi_diag *d);

/* The writers vo's read lines name for idx's reads with a choice of
 * writers (idx->amb): src[a] is the candidate (a write op of amb_cand, or
 * PSI_SRC_INIT) that a read line names for read a, the reader's first read
 * of the key (event 0). *all says whether every such read has one; a read
 * without a line, a line naming no candidate, or two lines for one read
 * leave it false (src then undefined). Lines for other reads are not
 * looked at: their writer is the history's. Fails only when out of
 * memory. src: [idx->n_amb], the caller's. */
psi_status psi_hints_choices(const psi_history *h, const psi_index *idx,
                             const psi_version_order *vo, uint32_t *src, bool *all, psi_diag *d);

/* The hints a cycle of the polygraph-free pass (check/complete_pass.h)
 * rests on, without resolving the whole order (vo complete, as
 * psi_hints_next found it): each WW edge of cycle[0..n) from the order
 * (PSI_FROM_VERSION_ORDER), and for each RW edge whose reader read a
 * version (PSI_FROM_SEEDING), the order's edge from that version's writer
 * to the RW edge's target, which forces it; each with its key's chain
 * line. *out is as psi_hints_resolve leaves it (grouped by key ascending,
 * no duplicates; n_all counts the whole order's edges, as that would),
 * so psi_hints_line names the cycle's WW edges, and a
 * counterexample re-checking sub-histories with these edges alone keeps
 * the cycle's orders. Fails only when out of memory. */
psi_status psi_hints_of_cycle(const psi_history *h, const psi_index *idx,
                              const psi_version_order *vo, const psi_edge *cycle, uint32_t n,
                              psi_hints *out, psi_diag *d);

/* Adds the hints' edges to g as known WW edges (PSI_FROM_VERSION_ORDER). */
psi_status psi_hints_apply(const psi_hints *hs, psi_polygraph *g, psi_diag *d);

/* The hint line of the known edge from -> to on dense key `key`, 0 when no
 * hint gave it. */
uint64_t psi_hints_line(const psi_hints *hs, uint32_t from, uint32_t to, uint32_t key);

void psi_hints_free(psi_hints *hs);

#endif
