/* Fixpoint pruning of a generalized polygraph (PolySI Alg. 1 / Alg. 2,
 * §4.3, Appendix A), for SI and its analogue for SER.
 *
 * A side of a constraint is impossible when one of its edges would close a
 * forbidden cycle with the known graph: for SER any cycle, for SI a cycle
 * without two consecutive RW edges. Such a constraint is resolved to its
 * other side, whose edges become known. Rounds repeat until nothing
 * changes. If both sides of a constraint are impossible, or the known graph
 * itself has a forbidden cycle, the history is rejected right there and the
 * cycle(s) are kept for the counterexample.
 *
 * "Forbidden cycle" is decided exactly on a doubled graph for SI (every
 * transaction v has v0, reached by DEP edges or at the start, and v1,
 * reached by an RW edge; DEP u->v gives u0->v0 and u1->v0, RW u->v gives
 * u0->v1), so that pruning never misses a cycle the solver would find via
 * an edge's own predecessor. Reachability is kept per node as the earliest
 * reachable position in every session (design decision 1): memory is
 * nodes x sessions, never nodes^2, because every session is an SO chain.
 *
 * Ownership: psi_prune fills a caller-provided result; psi_prune_result_free
 * releases its arrays. The polygraph is modified in place, only through
 * core's API: constraints seeded (psi_polygraph_set_constraints) and
 * resolved (psi_polygraph_resolve), known edges appended. */
#ifndef PSI_PRUNE_PRUNE_H
#define PSI_PRUNE_PRUNE_H

#include "core/history.h"
#include "core/polygraph.h"
#include "core/progress.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum psi_prune_outcome {
    PSI_PRUNE_OK = 0,          /* no contradiction; open constraints remain for the solver */
    PSI_PRUNE_KNOWN_CYCLE = 1, /* the known graph has a forbidden cycle */
    PSI_PRUNE_BOTH_SIDES = 2,  /* a constraint with both sides impossible */
} psi_prune_outcome;

typedef struct psi_prune_opts {
    bool ser; /* serializability (plain acyclicity) instead of SI */
    /* PC and PSI: prune by DEP cycles only (reach.h psi_reach_build_dep),
     * which every level forbids; sides' RW edges never close one. Sound
     * for any level whose forbidden cycles include all DEP cycles, at the
     * price of pruning less than SI's rule. Overrides ser. */
    bool dep_only;
    /* PSI (with dep_only): also a cycle of one RW edge and DEP paths, each
     * RW edge of a side or a known one next to the side's DEP edge's ends
     * (level_psi.h): PSI forbids every such cycle. */
    bool psi;
    /* PC (with dep_only): also an RW edge after a known SO or WR edge whose
     * head reaches that edge's tail: PC forbids such cycles (encode.h). */
    bool pc;
    /* PC: build the reach from every known edge instead of those the
     * reduction keeps (prune/level_pc.h): the same answers, slower; tests
     * compare the two. */
    bool pc_unreduced;
    bool disabled; /* --no-pruning: only check the known graph for a cycle */
    /* Rounds until nothing changes (the fixpoint). Otherwise (SI and SER)
     * rounds stop once a round on a large graph resolved under 1% of the
     * open constraints (with reads that have a choice of writers: under
     * 5%, from 2^17 cells, and only once at most stop_open are left
     * open; prune.c): each round costs a reachability pass, and
     * what it would still resolve the solver decides as well (leaving a
     * constraint open never changes a verdict). The known graph is still
     * checked for a cycle after the last round. */
    bool exact;
    uint64_t stop_cells; /* a round is large from this many frontier cells (rows x
                            sessions); 0: the default, 2^22 (2^17 with read
                            choices). Tests lower it */
    /* Workers for the frontiers; 0: all online cores, on frontiers of 2^22
     * cells or more (prune.c PARALLEL_CELLS). Same result for any */
    uint32_t threads;
    /* Reads with a choice of writers: rounds do not stop early while more
     * than this many constraints are open, since the encoding would not
     * hold them (prune.c CHOICE_STOP_OPEN); 0: the default, 2^22. Tests
     * set 1 to keep the rounds going wherever any two remain open. */
    uint64_t stop_open;
    /* Reads with a choice of writers: from this many choices, the passes
     * before seeding also test the conditional edges of the writer pairs
     * the known graph orders (prune.c settle_choices_before_seeding); 0:
     * the default, 2^20; UINT64_MAX: never. Below it seeding comes sooner,
     * as it did before, which keeps pruning's decisions (and so the
     * counterexamples interpret/ grows along them) on small histories.
     * Tests set 1 to take the probe everywhere. */
    uint64_t probe_choices;
    const psi_progress *progress; /* stage "prune": round, constraints checked (may be NULL) */
} psi_prune_opts;

#define PSI_PRUNE_ROUND_MARKS 64u

typedef struct psi_prune_result {
    psi_prune_outcome outcome;
    uint32_t rounds;
    uint32_t probes;                 /* passes before seeding that tested conditional edges */
    bool stopped_early;              /* rounds stopped before the fixpoint (opts.exact) */
    uint32_t seeded;                 /* constraints generated for unordered writer pairs */
    uint32_t resolved;               /* constraints resolved by pruning rounds */
    uint32_t remaining;              /* open constraints left */
    uint64_t remaining_unknown_deps; /* edges in the remaining constraints (both sides) */
    uint32_t constraint;             /* PSI_PRUNE_BOTH_SIDES: the constraint */
    /* The forbidden cycle(s): for KNOWN_CYCLE one cycle in cycle[0]; for
     * BOTH_SIDES cycle[0] closes with the either side, cycle[1] with the or
     * side (each includes the constraint edge that closes it, first). */
    psi_edge *cycle[2];
    uint32_t cycle_len[2];
    size_t peak_bytes; /* reachability memory */
    /* How many known edges there were when each round's reachability was
     * built, for the first PSI_PRUNE_ROUND_MARKS rounds (round_marks_full
     * when there were more): every decision of round r rests on the first
     * round_known[r] known edges alone, which interpret/ needs to explain
     * a decision by earlier ones, never by one of its own round or later. */
    uint64_t round_known[PSI_PRUNE_ROUND_MARKS];
    uint32_t n_round_known;
    bool round_marks_full;
    /* PC: the known edges PC's reduction keeps (core/known_reduce.h) in the
     * known graph pruning left, ascending, when its last round reduced
     * that graph (pc_kept_of == its n_known), for the encoding to take
     * instead of reducing it again (psi_encode_opts.pc_kept); else NULL. */
    uint32_t *pc_kept;
    uint64_t n_pc_kept, pc_kept_of;
    /* PSI: the known RW edges the theory need not hold, one byte per
     * known edge of the graph pruning left (psi_rw_drop_of == its
     * n_known; else NULL), for the encoding (psi_encode_opts.psi_rw_drop).
     * An RW edge a -> b whose tail a reaches its head b over known DEP
     * edges closes a one-RW cycle only with a DEP path b ->* a, which
     * closes a DEP cycle with a ->+ b first: the theory, which keeps the
     * known DEP edges' closure (encode/reduce.h), rejects that cycle
     * anyway, and never sees the RW edge point backwards. Each tail keeps
     * one known RW edge (a non-dropped one if it has any), so that the
     * theory's sink (acyclic.h) has the same known in-neighbours and its
     * static order is the same. GeneralRW: 29,772 of 35,488 known RW
     * edges are such. */
    uint8_t *psi_rw_drop;
    uint64_t n_psi_rw_drop, psi_rw_drop_of;
} psi_prune_result;

psi_status psi_prune(const psi_history *h, psi_polygraph *g, const psi_prune_opts *opts,
                     psi_prune_result *res, psi_diag *d);
/* The known graph's cycle check alone, SI's rule (the doubled graph) or
 * SER's (any cycle), as the last pass of rounds stopped early runs it: for
 * a polygraph whose constraints are generated and none is open, and with
 * no read choice (check/known_only.h), where rounds would resolve
 * nothing. Fills *res as psi_prune would (outcome, cycle; 0 rounds). */
psi_status psi_prune_known_graph(const psi_history *h, psi_polygraph *g, bool ser,
                                 psi_prune_result *res, psi_diag *d);
void psi_prune_result_free(psi_prune_result *res);

#endif
