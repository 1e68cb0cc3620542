/* The acyclicity theory's private state, shared by its files. Not for use
 * outside solver/acyclic*.c (and white-box tests).
 *
 * Representation. User edges (what the caller added) map to one or two
 * internal edges over internal nodes: the user graph itself in SER mode, the
 * doubled graph in SI mode (see acyclic.h). The theory only ever checks plain
 * acyclicity of the internal graph.
 *
 * Invariants while no callback is running (checked in full by
 * psi_acyc_check_invariants, acyclic_invariants.c):
 * - the order list (ohead, onext, oprev) holds every internal node once,
 *   its labels ord[] increase strictly along it, and every active internal
 *   edge x->y has ord[x] < ord[y] (unless the known edges alone are cyclic,
 *   static_cycle, which ends the search at the root);
 * - out[x] and in[y] hold the same active edges; in each list the known
 *   edges come first, then the edges activated during search in activation
 *   order, so backtracking pops from the ends (LIFO, like the trail);
 * - act[] lists the edges activated during search in activation order, each
 *   at the highest level of its labels, ie_act[act[i].ie] == i + 1, and
 *   ie_act is 0 for every other edge;
 * - asg[] lists the notified literals in notification order with their
 *   solver levels (also in lvl[]), val[] agrees with it, and each user
 *   edge's cnt counts its labels true in val;
 * - in both, pmax is the running maximum of the levels.
 *
 * Files: acyclic.c (construction, edge store, queries, occurrence tables),
 * acyclic_order.c (static sort of the known edges, order maintenance by a
 * two-way bounded search and a labelled order list), acyclic_cycle.c (0-1 BFS, conflict cycles,
 * explanations), acyclic_theory.c (the theory callbacks: activation, propagation, backtracking),
 * acyclic_psi.c (PSI mode's cycles of one ANTI edge), acyclic_invariants.c (the debug checker). */
#ifndef PSI_SOLVER_ACYCLIC_INTERNAL_H
#define PSI_SOLVER_ACYCLIC_INTERNAL_H

#include "acyclic.h"
#include "invariants.h"
#include "theory.h"
#include "vec.h"

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct adj {
    uint32_t node, edge;
} adj;

typedef struct adjvec {
    adj *a;
    uint32_t n, cap;
} adjvec;

typedef struct uedge {
    uint32_t from, to;
    int lit[2];  /* labels, 0 = none */
    uint32_t ie; /* first internal edge */
    uint8_t nie, need, cnt, kind;
    uint8_t active; /* all its internal edges are in the graph */
    uint8_t root;   /* activated at level 0: contributes no literal */
    uint8_t dead;   /* contradictory labels: never active */
    uint8_t inbw;   /* PSI mode, ANTI: listed in bw (acyclic_psi.c) */
} uedge;

/* Stack entries carry their level and the highest level of the entries up
 * to them (pmax): with the solver's chronological backtracking levels need
 * not increase along the stacks, and a backtrack to level L touches exactly
 * the suffix whose pmax exceeds L. */
typedef struct act_entry {
    uint32_t ie, level, pmax;
} act_entry;

/* A node with its order label, for sorting a search side by label. */
typedef struct lab_node {
    uint64_t lab;
    uint32_t node;
} lab_node;

/* PSI mode: an active ANTI edge whose head comes before its tail in the
 * order (only those can close a cycle of one ANTI edge), with pm the
 * highest tail label of the entries up to it (acyclic_psi.c). */
typedef struct psi_bw {
    uint32_t ie, head, tail; /* internal edge, its user edge's head and tail */
    uint64_t pm;
} psi_bw;

/* No node (ends of the order list). */
#define PSI_ACYC_NONE UINT32_MAX

typedef struct asg_entry {
    int lit;
    uint32_t level, pmax;
} asg_entry;

struct psi_acyc {
    psi_sat *s;
    psi_acyc_mode mode;
    uint32_t nodes, N; /* user nodes, internal nodes */
    bool propagate;

    uedge *ue;
    size_t ue_n, ue_cap;

    /* Internal edges: user edge, activation index + 1 (0: none; ie_act_of).
     * Their endpoints are not stored but derived from the user edge
     * (ie_src, ie_dst): 8 bytes less per internal edge, which matters with
     * tens of millions of known edges. Activation indices have slots only
     * from slot_base on (SIZE_MAX: none yet): the edges before it are known
     * edges added before any labelled edge and before the static setup,
     * which puts them in place for good, so the search never activates
     * them, and an encoding adds its known edges first: another 4 bytes
     * less for most of them. */
    uint32_t *ie_user, *ie_act;
    size_t ie_n, ie_cap;
    size_t slot_base, slot_cap; /* ie_act[i] is edge slot_base + i's; slot_cap: its room */

    adjvec *out, *in; /* active edges per internal node */
    /* The known edges' lists, cut from one block by the static setup
     * (acyclic_order.c) instead of a malloc per list: PC's graph has tens
     * of thousands of lists, whose mallocs and frees cost more than
     * filling them. Owned; freed after the lists (adj_release). */
    adj *adj_pool;
    /* The topological order: a doubly linked list of the internal nodes
     * (PSI_ACYC_NONE at its ends) with labels that increase along it and
     * leave gaps, so nodes move by relinking and relabelling only them
     * (acyclic_order.c). */
    uint64_t *ord;
    uint32_t *onext, *oprev, ohead;
    uint32_t *hint;    /* [nodes] caller's sort keys (psi_acyc_set_order_hint), or NULL */
    bool ordered;      /* static sort done */
    bool static_cycle; /* known edges are cyclic */
    size_t ue_done;    /* user edges already handled by prepare */

    /* Occurrences of literals in labels (CSR over literal index), and
     * labelled internal edges by source node (propagation candidates). */
    uint32_t *occ_start, *occ;
    size_t occ_lits;
    uint32_t *cand_start, *cand;
    bool tables_dirty;

    /* Per variable (index var-1). */
    int8_t *val;
    uint32_t *lvl; /* level of the notification, while val is set */
    uint32_t *prop_edge, *prop_stamp, *lit_mark;
    size_t var_cap;
    uint32_t lit_epoch;

    act_entry *act;
    size_t act_n, act_cap;
    asg_entry *asg;
    size_t asg_n, asg_cap;

    /* Search scratch (per internal node). */
    uint32_t *fmark, *bmark, *dist, *parent;
    uint32_t epoch;
    u32vec fwd, bwd, cur, next, pool;
    lab_node *sortbuf;
    size_t sortbuf_cap;

    u32vec cycle, known_cycle;
    psi_acyc_stats st;

    /* PSI mode (acyclic_psi.c). bw: every active ANTI edge pointing
     * backwards in the order, sorted by its head's label, plus inactive
     * or no longer backward ones not yet dropped (inbw marks the edges
     * listed). hant_start/hant: the internal ANTI edges by head (CSR over
     * user nodes, built with the other tables). */
    psi_bw *bw;
    size_t bw_n, bw_cap;
    uint32_t *hant_start, *hant;
    bool psi_eager; /* check DEP activations too (psi_acyc_set_psi_eager) */
    bool psi_clean; /* eager checks have covered every active edge */
    bool moved_fwd; /* the last reorder moved g->fwd (else g->bwd) */

    psi_check_sched check; /* debug checker (invariants.h; only with PSI_CHECK) */
};

/* --- small helpers ------------------------------------------------------ */

static inline size_t lit_index(int lit)
{
    return lit > 0 ? 2 * (size_t)(lit - 1) : 2 * (size_t)(-lit - 1) + 1;
}

static inline size_t lit_var0(int lit)
{
    return (size_t)(lit > 0 ? lit : -lit) - 1;
}

/* Where a list's array lives: every array has one hidden entry before it,
 * a[-1], whose node is ADJ_POOLED when the array is cut from g->adj_pool
 * (it is never freed or realloc'd alone; growing moves it out) or ADJ_OWN
 * when it is a malloc of its own, starting at a - 1. */
enum { ADJ_OWN, ADJ_POOLED };

/* Frees v's array if it is its own (not the pool's). */
static inline void adj_release(adjvec *v)
{
    if (v->a && v->a[-1].node == ADJ_OWN)
        free(v->a - 1);
}

/* adj_push's growth path: doubles v's room (8 at first), moving a pooled
 * array to a malloc of its own. */
bool psi_acyc_adj_grow(adjvec *v);

/* Appends to an adjacency list; the growth path is out of line. */
static inline bool adj_push(adjvec *v, uint32_t node, uint32_t edge)
{
    if (v->n == v->cap && !psi_acyc_adj_grow(v))
        return false;
    v->a[v->n++] = (adj){node, edge};
    return true;
}

/* Endpoints of internal edge e: the user edge itself in SER mode; in SI
 * mode DEP u->v gives u0->v0 then u1->v0, ANTI u->v gives u0->v1, RELAY
 * u->v gives u1->v1 (acyclic.h), node v's copies being 2v and 2v+1; in
 * PSI mode DEP u->v is itself and ANTI u->v gives u->S, S = nodes the
 * sink (the real head is checked apart, acyclic_theory.c). */
static inline uint32_t ie_src(const psi_acyc *g, uint32_t e)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    if (g->mode != PSI_ACYC_SI)
        return u->from;
    return 2 * u->from + (u->kind == PSI_EDGE_RELAY ? 1 : e - u->ie);
}

static inline uint32_t ie_dst(const psi_acyc *g, uint32_t e)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    if (g->mode == PSI_ACYC_PSI)
        return u->kind == PSI_EDGE_ANTI ? g->nodes : u->to;
    return g->mode == PSI_ACYC_SER ? u->to : 2 * u->to + (u->kind != PSI_EDGE_DEP);
}

/* Where the path back of a cycle through internal edge e ends: its
 * target, except for PSI's ANTI edges, whose cycle goes through the user
 * edge's head (a DEP path from it back to the tail). */
static inline uint32_t cycle_head(const psi_acyc *g, uint32_t e)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    return g->mode == PSI_ACYC_PSI && u->kind == PSI_EDGE_ANTI ? u->to : ie_dst(g, e);
}

/* Activation index + 1 of internal edge e, 0 when it is not active in
 * the search (always for the edges before slot_base). */
static inline uint32_t ie_act_of(const psi_acyc *g, uint32_t e)
{
    return e >= g->slot_base ? g->ie_act[e - g->slot_base] : 0;
}

/* Sets it, for an edge the search activates (which has a slot). */
static inline void ie_act_set(psi_acyc *g, uint32_t e, uint32_t v)
{
    assert(e >= g->slot_base && e - g->slot_base < g->slot_cap);
    g->ie_act[e - g->slot_base] = v;
}

/* Does internal edge e add literals to a clause? */
static inline bool labelled(const psi_acyc *g, uint32_t e)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    return u->need && !u->root;
}

/* Fresh marks for lit_mark (literals already in a clause being built). */
static inline void new_lit_epoch(psi_acyc *g)
{
    if (++g->lit_epoch == 0) {
        memset(g->lit_mark, 0, g->var_cap * sizeof *g->lit_mark);
        g->lit_epoch = 1;
    }
}

/* Fresh marks for fmark/bmark (nodes visited by a search). */
static inline void new_epoch(psi_acyc *g)
{
    if (++g->epoch == 0) {
        memset(g->fmark, 0, g->N * sizeof *g->fmark);
        memset(g->bmark, 0, g->N * sizeof *g->bmark);
        g->epoch = 1;
    }
}

/* acyclic.c: per-variable arrays and the literal/candidate tables. */
bool psi_acyc_ensure_vars(psi_acyc *g, size_t nvars);
bool psi_acyc_build_tables(psi_acyc *g);

/* acyclic_order.c */
bool psi_acyc_static_setup(psi_acyc *g);
/* Restores the order before edge x->y (ord[x] > ord[y]) goes in: 1 if
 * y reaches x (a cycle; order untouched, marks meaningless), 0 if the order
 * now has x before y, -1 on ENOMEM. On 0, g->fwd lists nodes reachable from
 * y (fmark) and g->bwd nodes reaching x (bmark), one of the two sides
 * complete within the searched bounds: the side that moved, g->fwd if
 * g->moved_fwd, else g->bwd. */
int psi_acyc_restore_order(psi_acyc *g, uint32_t x, uint32_t y);

/* acyclic_cycle.c */
bool psi_acyc_search_forward(psi_acyc *g, uint32_t src, uint32_t dst, uint32_t stamp, bool *nomem);
bool psi_acyc_record_cycle(psi_acyc *g, uint32_t e, psi_lits *clause);
int psi_acyc_explain(void *ctx, int lit, psi_theory_out *out);

/* acyclic_psi.c: PSI mode's checks of cycles with one ANTI edge. Each
 * returns PSI_THEORY_OK, CONFLICT (clause in out) or ENOMEM. anti: ANTI
 * edge e is about to go in; dep: DEP edge e just went in (it is the top
 * of act and of its lists); moved: after a reorder (restore_order
 * returned 0; its marks still current), keeps bw sorted and complete;
 * prepare: at the root, after the static sort, lists bw afresh and
 * checks the edges that were never activated one by one. */
int psi_acyc_psi_anti(psi_acyc *g, uint32_t e, psi_theory_out *out);
int psi_acyc_psi_dep(psi_acyc *g, uint32_t e, psi_theory_out *out);
bool psi_acyc_psi_moved(psi_acyc *g);
int psi_acyc_psi_prepare(psi_acyc *g, psi_theory_out *out);
bool psi_acyc_psi_tables(psi_acyc *g);

/* acyclic_theory.c: attaches g to its solver as the theory. */
void psi_acyc_attach(psi_acyc *g);

/* acyclic_invariants.c: the debug checker. False, with the first violation
 * described in why, when an invariant above is broken. Reads only. */
bool psi_acyc_check_invariants(const psi_acyc *g, char *why, size_t why_n);
void psi_acyc_check_or_die(const psi_acyc *g);

#endif
