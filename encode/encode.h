/* Encoding a pruned polygraph for the solver (design decisions 2 and 3).
 *
 * One selector variable per surviving constraint: selector true means the
 * `either` side (T before S), false the `or` side. Every known edge becomes
 * an unlabelled edge of the solver's acyclicity theory; every edge of a
 * surviving constraint becomes an edge labelled by the selector literal
 * (+c for either, -c for or), tagged DEP (SO/WR/WW) or ANTI (RW). The
 * theory runs in SI mode for --isolation si and plain acyclicity for ser.
 * Nothing is created per pair of transactions; there are no clauses at all:
 * acyclicity alone constrains the selectors, and an absent side's edges need
 * not be forced false (more edges only make acyclicity harder).
 *
 * Edge ids in the theory: 0 .. n_known_edges-1 are the polygraph's known
 * edges the theory needs, in order (psi_encoding.known_id); then, for each
 * surviving constraint in order, its either side then its or side (see
 * psi_encoding.cons_edge). That numbering is encode/'s
 * own: callers map ids back with psi_encoding_edge and
 * psi_encoding_conflict_cycle, never by re-deriving it.
 *
 * Reads with a choice of writers (polygraph.h, conditional readers) add,
 * after the constraint edges: one variable per choice (after the
 * selectors), a clause "at least one" per read (at most one need not be
 * said: more edges only make acyclicity harder, so any acyclic model
 * stays acyclic with all but one choice of a read switched off), the WR
 * edge of each choice labelled by it, each RW edge of a conditional reader
 * labelled by its choice and the constraint's selector (two literals), and
 * the polygraph's conditional edges labelled by their choice.
 *
 * Optional transactions (transactions of unknown outcome that are a
 * candidate of some read, polygraph.h) get one outcome variable o_w each,
 * after the selectors: every edge out of w is labelled by o_w (its gated
 * edges alone, a constraint side's edge with the selector as well; an
 * edge a choice labels needs no more, as the choice implies o_w); a choice
 * of w implies o_w, a read of w needs a writer only when o_w (its
 * choices imply o_w, its "at least one" clause has -o_w), a read of w
 * whose writer is fixed implies its writer's outcome. A model's true o_w
 * says w may commit; the writers the reads chose are committed.
 *
 * Ownership: psi_encode creates the solver and theory inside *enc;
 * psi_encoding_free releases them. The polygraph must outlive the encoding
 * when edges are mapped back. */
#ifndef PSI_ENCODE_ENCODE_H
#define PSI_ENCODE_ENCODE_H

#include "core/polygraph.h"
#include "solver/acyclic.h"
#include "solver/sat.h"

#include <stdbool.h>
#include <stdint.h>

/* PC and PSI (check/level.h) reuse the theory without a rule of their own:
 *   PC forbids the cycles of DEP ∪ (SO ∪ WR);RW (a WW edge never composes
 *   with the RW after it; derivation in README, "Isolation levels"). The
 *   theory runs in SI mode over 2n nodes: every WW edge u->v goes to
 *   v's twin n+v instead, and one known RW edge n+v -> v leaves the twin
 *   (only a twin that a WW edge of the encoding enters: no cycle passes
 *   through the others; edges added after psi_encode must bring it).
 *   A path through a WW edge thus arrives at v "by RW" and cannot take an
 *   RW edge next, while SO and WR arrive as DEP: SI mode's cycles are
 *   then exactly PC's. The twin edges come last (ids from aux_edge0) and
 *   are left out of mapped-back cycles.
 *   PSI forbids cycles with at most one RW edge (Cerone & Gotsman): the
 *   theory runs in PSI mode (acyclic.h: DEP acyclic, and the cycles of
 *   one RW edge found when its last edge becomes active: acyclic_psi.c),
 *   and check/ still checks each model completely and refines it
 *   (level_psi.c) with clauses over the labels kept in psi_lits /
 *   psi_edges. */
typedef struct psi_encode_opts {
    bool ser;                   /* plain acyclicity instead of SI */
    bool pc, psi;               /* prefix consistency / parallel SI (above); override ser */
    bool no_theory_propagation; /* switch the theory's propagation off */
    bool no_phase_hints;        /* leave the solver's initial phases alone (for measuring) */
    bool no_known_reduction;    /* hand the theory every known edge (encode/reduce.h) */
    bool no_routing;            /* no relay nodes: one RW edge per reader and target (route.h) */
    /* The solver in stable mode only (option modes = 2: Luby restarts, no
     * focused phase). Set before any phase, as psi_sat_set_option resets
     * them. The restricted problem's search (check/restricted.h) needs
     * it: with focused restarts 10^5 transactions with values 1..4 made
     * ~5,000 decisions per conflict (200 s), stable only 102 (2.5 s;
     * bench/README, s30, i17s). */
    bool stable_only;
    /* PC, optional: the known edges PC's reduction keeps in g, ascending
     * (pruning's last round has them: psi_prune_result.pc_kept), taken
     * instead of reducing again when pc_kept_of == g->n_known. Only read. */
    const uint32_t *pc_kept;
    uint64_t n_pc_kept, pc_kept_of;
    /* PSI, optional: known RW edges the theory need not hold (one byte per
     * known edge, nonzero: drop; psi_prune_result.psi_rw_drop says why),
     * left out of the reduced known edges when psi_rw_drop_of ==
     * g->n_known. Only read. */
    const uint8_t *psi_rw_drop;
    uint64_t psi_rw_drop_of;
} psi_encode_opts;

typedef struct psi_encoding {
    psi_sat *sat;
    psi_acyc *graph;
    int *cons_var;       /* [n_cons] selector variable, 0 for resolved constraints */
    uint32_t *cons_edge; /* [n_cons] first theory edge id of the constraint's edges */
    uint32_t n_vars;
    /* Theory ids 0 .. n_known_edges-1 are the known edges the theory got:
     * known_id[i] is the polygraph's index of id i (ascending), or NULL
     * when it got all of them (id i is known edge i). encode/reduce.h
     * says which edges it may go without. */
    uint32_t *known_id;
    uint64_t n_known_edges, n_constraint_edges;
    /* [n_choices] the variable of each open choice, 0 for those pruning
     * forced or excluded (psi_encoding_choice_var). The edges they label
     * follow the constraints' (ids n_known_edges + n_constraint_edges + i
     * is choice_edge[i]). */
    int *choice_var;
    psi_edge *choice_edge;
    uint64_t n_choice_edges, cap_choice_edge;
    /* [n_txn_nodes] the outcome variable of each optional transaction
     * (polygraph.h, g->opt; true: committed), 0 for the others; NULL when
     * there are none. Its gated edges follow the choices' edges (in
     * choice_edge, with their origins). */
    int *outcome_var;
    bool pc, psi;
    uint32_t n_txn_nodes; /* the polygraph's nodes (the theory may have more) */
    /* Relay nodes (encode/route.h), theory nodes n_txn_nodes .. + n_relay
     * under SI and SER: a conditional reader's RW edge R -> S may be two
     * choice edges R -> N and N -> S. psi_encoding_conflict_cycle joins
     * them again; psi_encoding_edge returns each half as it is. */
    uint32_t n_relay;
    /* [n_txn_nodes] the theory node of each transaction, or NULL: the
     * identity. Under SI and SER without choices, relays or optional
     * transactions, the theory gets nodes only for the transactions some
     * edge touches, numbered in transaction order: aborted attempts (78 %
     * of the 10^6 history) would otherwise cost the theory about
     * 64 bytes per internal node for nothing. Theory edge ids, which is
     * all that comes back from the solver, do not change. Owned. */
    uint32_t *node_map;
    uint32_t n_theory_nodes; /* with node_map: the transactions' theory nodes */
    struct psi_route *route; /* the plan, owned */
    uint64_t aux_edge0;      /* PC: first twin edge id (edges before it are mapped back) */
    /* PC: per transaction v, whether a WW edge goes to its twin n+v (only
     * those twins get their way out, psi_encode); owned, NULL after the
     * encoding */
    uint8_t *pc_twin_in;
    /* PSI: per theory edge, its polygraph edge and two label literals
     * (0: none), for level_psi.c's refinement clauses. */
    psi_edge *psi_edges;
    int *psi_lits; /* [2 * edges] */
    size_t cap_psi;
} psi_encoding;

psi_status psi_encode(const psi_polygraph *g, const psi_encode_opts *opts, psi_encoding *enc,
                      psi_diag *d);
void psi_encoding_free(psi_encoding *enc);

/* The solver variable of read-from choice `choice` (true iff the read
 * reads from that candidate), or 0 when pruning settled it (its
 * polygraph choice_state says how). */
static inline int psi_encoding_choice_var(const psi_encoding *enc, uint32_t choice)
{
    return enc->choice_var ? enc->choice_var[choice] : 0;
}

/* Maps a theory edge id back: known edge index (*is_known) or constraint
 * index and side. */
void psi_encoding_edge_origin(const psi_encoding *enc, const psi_polygraph *g, uint64_t edge,
                              bool *is_known, uint32_t *index, bool *either);

/* The polygraph edge behind theory edge `edge`: the known edge itself, or
 * the constraint side's edge (origin PSI_FROM_CONSTRAINT). */
psi_edge psi_encoding_edge(const psi_encoding *enc, const psi_polygraph *g, uint64_t edge);

/* After a SAT answer: the choice edges the model switched on, as
 * polygraph edges between transactions (relayed halves joined, see
 * n_relay). *edges is malloc'd (caller frees). */
psi_status psi_encoding_model_choice_edges(const psi_encoding *enc, psi_edge **edges, uint64_t *n,
                                           psi_diag *d);

/* The cycle of the solver's last theory conflict as polygraph edges, in
 * cycle order: *cycle is malloc'd (caller frees), NULL with *len 0 when
 * the theory reported none. */
psi_status psi_encoding_conflict_cycle(const psi_encoding *enc, const psi_polygraph *g,
                                       psi_edge **cycle, uint32_t *len, psi_diag *d);

#endif
