/* Internal to prune/: how prune.c's rounds judge an edge (the level's
 * rule and the index of known RW/SO/WR edges it needs), shared with
 * choices.c, which prunes the read-from choices of repeated values. Not
 * installed; nothing outside prune/ includes it. */
#ifndef PSI_PRUNE_INTERNAL_H
#define PSI_PRUNE_INTERNAL_H

#include "core/graph.h"
#include "core/polygraph.h"
#include "prune/level_pc.h"
#include "prune/reach.h"

#include <stdbool.h>
#include <stdint.h>

/* How a side is judged: SER (any cycle), SI (the doubled graph), or DEP
 * (only DEP edges close cycles; prune.h dep_only). */
typedef enum psi_prune_rule {
    RULE_SI = 0,
    RULE_SER = 1,
    RULE_DEP = 2,
    RULE_PSI = 3,
    RULE_PC = 4
} psi_prune_rule;

/* RULE_PSI: the known RW edges by source and by target (plain graph).
 * RULE_PC: the known SO and WR edges, by target. */
typedef struct psi_anti_index {
    const psi_graph *g;
    /* RULE_PSI: g's edges are the known RW edges alone, numbered in known
     * order; rw_id[i] is edge i's index in the known array (ascending). */
    const uint32_t *rw_id;
    const psi_polygraph *pg;
    const psi_pc_extra *pc; /* RULE_PC: the reach's composed edges (level_pc.h) */
    /* RULE_SI with read-from choices, else NULL: for each transaction t,
     * n_sessions cells, cell s = 1 + the latest position in session s of
     * a known RW predecessor of t (0: none), from the reach's edges;
     * prune.c si_reach_anti says what it answers. */
    const uint32_t *rw_maxpos;
    /* RULE_PSI: for each node v with a known RW successor, the minimum
     * over its first MAX_ANTI_TESTS known RW successors y of y's frontier
     * row, cell by cell (rw_min, n_sessions cells per row at rw_row[v],
     * UINT32_MAX for a node without RW successors): one row read says
     * whether any of them reaches a transaction, instead of one random row
     * per y. A row is made when first asked for (rw_state[v]: ROW_UNMADE,
     * ROW_SET, or ROW_NONE when no such y has a row): the tests ask for
     * the heads of the open constraints' edges only, a small part of the
     * nodes in later rounds. Owned by prune.c's psi_anti_keep, which
     * keeps the arrays across rounds; writable through a const index, as
     * filling a row changes no answer. */
    uint32_t *rw_row, *rw_min;
    uint8_t *rw_state;
} psi_anti_index;

enum { ROW_UNMADE = 0, ROW_SET = 1, ROW_NONE = 2 };

/* Known RW edges tried per end of a DEP edge: skipping the rest only
 * prunes less. */
#define MAX_ANTI_TESTS 64u

/* Whether edge from -> to of the given type closes a cycle the rule
 * forbids with the known graph r was built from (a's index beside it). */
bool psi_prune_closes_cycle(const psi_reach *r, const psi_anti_index *a, psi_prune_rule ser,
                            uint32_t from, uint32_t to, psi_edge_type type);

/* One pass over the read-from choices against r: excludes the choices
 * whose edges close a forbidden cycle, turns a read left with one choice
 * into known edges (its WR edge and its seeded consequences), and compacts
 * the conditional edges to the open choices' (csucc_known: the shared
 * edges of psi_cond_succ are known to seeding and settled with them).
 * *changed counts the choices settled; imp is scratch of n_choices bytes;
 * *sorted is how much of g->csucc is sorted, kept up to date. rw_new
 * (SER and SI, with csucc_known; else NULL): the last call ran on the
 * reach r extends (r->changed) and every open choice has been tested
 * since, and rw_new[t] marks the transactions with known RW edges into
 * them added since that reach: only the tests that read a changed row or
 * such an edge run again (choices.c choice_delta). seeded_end (SER, in
 * the first round after seeding, on a reach extending seeding's; else 0):
 * the shared edges [0, seeded_end) are seeding's and the last pass was
 * psi_prune_settle_choices' probe on seeding's reach, which tested each
 * of their groups with the same edges (choices.c says why): the same
 * delta with none of those edges new (rw_new NULL: SER reads none). */
psi_status psi_prune_choices(const psi_reach *r, const psi_anti_index *ai, psi_polygraph *g,
                             psi_prune_rule ser, uint8_t *imp, uint64_t *sorted, bool csucc_known,
                             const uint8_t *rw_new, uint64_t seeded_end, uint32_t *changed,
                             psi_diag *d);

/* Before seeding (g->pending): psi_prune_choices on the known graph and
 * the conditional edges seeding would derive from the writer pairs r
 * orders (when probe), which are dropped again; *again when enough was
 * settled that a new reach is worth building before seeding
 * (choices.c says why). */
psi_status psi_prune_settle_choices(const psi_history *h, const psi_reach *r,
                                    const psi_anti_index *ai, psi_polygraph *g, psi_prune_rule ser,
                                    bool probe, uint8_t *imp, uint64_t *sorted, bool *again,
                                    psi_diag *d);

/* What psi_prune_resolve needs of each write's conditional readers,
 * worked out once per write and round (resolve.c says why). The caller
 * owns the arrays, n_cr_lists entries each, flags zeroed, and sets round
 * (> 0) before each round's constraint loop. */
typedef struct psi_creader_memo {
    uint32_t *flags; /* round << 2 | what the write's readers' choices are */
    uint32_t *txn;   /* the open readers' one transaction, or UINT32_MAX */
    uint32_t round;
} psi_creader_memo;

/* Resolves open constraint c to one side (psi_polygraph_resolve) and
 * makes the side's RW edges known for the readers whose choice of its
 * first writer is forced, shared conditional edges (psi_cond_succ) for
 * those whose choice is open. Choice states must not change during a
 * round's calls (memo). */
psi_status psi_prune_resolve(psi_polygraph *g, uint32_t c, bool either, psi_creader_memo *memo,
                             psi_diag *d);

/* SER and SI: whether open constraint con, tested against the last
 * round's reach, which r extends (r->changed non-NULL), answers as it did
 * then; rw_new[t] marks the transactions with known RW edges into them
 * added since (SI). */
bool psi_constraint_unchanged(const psi_reach *r, const uint8_t *rw_new, const psi_constraint *con);

/* SER, in the first round after seeding on a graph without optional
 * transactions, against a reach that extends seeding's (r->changed
 * non-NULL): whether open constraint con is one that neither side of
 * closes a cycle with, known without testing it (resolve.c says why);
 * false says nothing. */
bool psi_seeded_open(const psi_reach *r, const psi_polygraph *g, const psi_constraint *con);

/* *out = *rw (allocated when NULL, n_nodes bytes, the caller frees it)
 * marking the targets of the known RW edges past the first `since` (si),
 * none otherwise. */
psi_status psi_prune_new_rw(const psi_polygraph *g, bool si, uint64_t since, uint8_t **rw,
                            const uint8_t **out, psi_diag *d);

/* RULE_SI with a->rw_maxpos: psi_reach_to_anti(r, 2 s, t), the same
 * answer in one pass over the sessions (resolve.c). */
bool psi_si_reach_anti(const psi_reach *r, const psi_anti_index *a, uint32_t s, uint32_t t);

/* *buf (allocated when NULL, n_txns x n_sessions cells; the caller frees
 * it) filled as psi_anti_index.rw_maxpos from the first n known edges,
 * those reach r was built from. */
psi_status psi_prune_rw_maxpos(const psi_reach *r, const psi_polygraph *g, uint64_t n,
                               uint32_t **buf, psi_diag *d);

#endif
