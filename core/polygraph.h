/* The generalized polygraph of a history (PolySI §3, Def. 9): a known graph
 * plus generalized constraints over pairs of writers of a key.
 *
 * Nodes are transaction indices (0 = the initial transaction). Only
 * committed transactions take part. Known edges:
 *   SO  session order between consecutive committed transactions, and the
 *       initial transaction before every session's first one (decision 4);
 *   WR  writer -> reader for every external read (reads of the initial
 *       value need no edge: the initial transaction precedes everyone);
 *   WW/RW forced by the initial transaction: it is first in every key's
 *       version order, so init ->WW S and R ->RW S for every reader R of
 *       the initial value of x and every writer S of x;
 *   WW  from list-append reads, whose observed list is a version-order prefix.
 * A constraint for writers T, S of key(s) K chooses between
 *   either: T ->WW S, and R ->RW S for every R reading x∈K from T;
 *   or:     S ->WW T, and R ->RW T for every R reading x∈K from S.
 * With coalescing (default) one constraint covers all keys a writer pair
 * shares: mixed directions would form a WW cycle anyway.
 *
 * Two ways to generate constraints:
 *   all_pairs (for --no-pruning and small experiments): every writer pair of
 *     every key becomes a constraint and every reader of an initial value
 *     anti-depends on every writer of its key, as in the paper;
 *   default: the builder only prepares per-key writer lists, and pruning
 *     (prune/seed.c) generates constraints just for the writer pairs the
 *     known graph leaves unordered, adding the ordered pairs' consequences
 *     as a sparse equivalent edge set. That keeps hot keys from costing
 *     writers^2.
 *
 * Edge kinds: SO/WR/WW are DEP edges, RW is ANTI (decision 3).
 *
 * Every known edge records its origin (psi_edge_origin), so later stages
 * tell what the history shows from what pruning derived. Pruning changes
 * the polygraph only through the functions below (add_known, resolve,
 * set_constraints, shrink).
 *
 * Ownership: psi_polygraph_build allocates everything; psi_polygraph_free
 * releases it. The polygraph refers to the history and index by indices
 * only, but they must outlive it for the readers lists to make sense. */
#ifndef PSI_CORE_POLYGRAPH_H
#define PSI_CORE_POLYGRAPH_H

#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

typedef enum psi_edge_type {
    PSI_EDGE_SO = 0,
    PSI_EDGE_WR = 1,
    PSI_EDGE_WW = 2,
    PSI_EDGE_RW = 3,
} psi_edge_type;

static inline bool psi_edge_is_anti(psi_edge_type t)
{
    return t == PSI_EDGE_RW;
}

/* Where an edge comes from. Only PSI_FROM_HISTORY edges are facts the
 * history shows by itself as the polygraph builder derived them; the rest
 * were derived by pruning's reasoning or are one side of an open choice. */
typedef enum psi_edge_origin {
    PSI_FROM_HISTORY = 0,       /* psi_polygraph_build: SO, WR, list-append WW, and (all_pairs)
                                   the initial-value readers' RW edges */
    PSI_FROM_SEEDING = 1,       /* prune/seed.c: consequences of a writer pair the known graph
                                   orders (sparse WW and RW) */
    PSI_FROM_SEEDING_INIT = 2,  /* prune/seed.c: RW from readers of a key's initial value to
                                   its first writers */
    PSI_FROM_PRUNING = 3,       /* the side of a constraint pruning resolved */
    PSI_FROM_CONSTRAINT = 4,    /* a side of an open constraint: in reported cycles only,
                                   never a known edge */
    PSI_FROM_VERSION_ORDER = 5, /* check/hints.h: a known version order (check
                                   --version-order), WW only; its line is in the hints */
    PSI_FROM_TIMESTAMPS = 6,    /* check/timestamps.h: an order start/commit timestamps
                                   imply (WW per key in commit order; SO-typed DEP edges
                                   for visibility across sessions) */
    PSI_FROM_REALTIME = 7,      /* check/realtime.h: a transaction completed before another
                                   was invoked (SO-typed DEP edge, strict-ser, strong-si) */
    PSI_FROM_ESTIMATE = 8,      /* check/restricted.h: an order assumed from the estimated
                                   times (SO-typed DEP edge), in the restricted problem only,
                                   whose accepts alone are kept */
} psi_edge_origin;

/* A known edge. key is the dense key (UINT32_MAX for SO). */
typedef struct psi_edge {
    uint32_t from, to;
    uint32_t key;
    uint8_t type;   /* psi_edge_type */
    uint8_t origin; /* psi_edge_origin */
} psi_edge;

/* Known edges are the biggest array of a large check: keep them at 16 bytes. */
_Static_assert(sizeof(psi_edge) == 16, "psi_edge must stay 16 bytes");

/* One key's share of a constraint: the final writes of T and S on it. */
typedef struct psi_ckey {
    uint32_t key;
    uint32_t op_t, op_s; /* final write ops of T and S on key */
} psi_ckey;

/* Its keys are ckeys[first ..) up to the next constraint's first (or
 * n_ckeys): psi_constraint_n_keys. Keeping no count of its own keeps a
 * constraint at 16 bytes: 10^5 transactions with values 1..4 hold 62.7 M
 * of them through pruning (1.0 GB; 20 bytes with a count). */
typedef struct psi_constraint {
    uint32_t t, s;  /* writer transactions, t < s */
    uint32_t first; /* index into polygraph.ckeys */
    uint8_t state;  /* psi_cstate */
} psi_constraint;
_Static_assert(sizeof(psi_constraint) == 16, "psi_constraint stays 16 bytes");

typedef enum psi_cstate {
    PSI_C_OPEN = 0,   /* unresolved */
    PSI_C_EITHER = 1, /* resolved: T before S */
    PSI_C_OR = 2,     /* resolved: S before T */
} psi_cstate;

typedef enum psi_choice_state {
    PSI_CH_OPEN = 0,     /* still possible */
    PSI_CH_EXCLUDED = 1, /* pruning showed it closes a forbidden cycle */
    PSI_CH_FORCED = 2,   /* the read's only candidate left: its WR edge is known */
} psi_choice_state;

/* A read with a choice of writers (index.h, psi_amb_read), as a reader of
 * one candidate: its transaction and its choice number (the Boolean that
 * says it read from this candidate). */
typedef struct psi_cread {
    uint32_t txn, choice;
} psi_cread;

/* An edge that exists iff choice `choice` is taken: the consequences the
 * seeding (or all_pairs) derived for a conditional reader of an ordered
 * writer pair, and pruning for one of a resolved constraint. Never a known
 * edge while the choice is open: pruning excludes the choice when the edge
 * closes a forbidden cycle with the known graph, makes it known when the
 * choice is forced, and drops the edges of settled choices; encode/
 * labels it. */
typedef struct psi_cond_edge {
    uint32_t from, to, key, choice;
    uint8_t type; /* psi_edge_type */
} psi_cond_edge;

/* RW edges shared by every conditional reader of one final write (or of
 * a key's initial value, op == PSI_CSUCC_INIT): each reader whose choice
 * of that write is taken anti-depends on `to` (unless it is `to`). Seeding
 * and resolved constraints derive these per write, so keeping them once
 * per write instead of once per reader (psi_cond_edge) keeps memory linear
 * when a value has many writers and many readers; consumers expand them
 * over psi_polygraph_creaders (psi_polygraph_cinit for the initial value)
 * and judge each reader's choice by its psi_choice_state. */
#define PSI_CSUCC_INIT UINT32_MAX
typedef struct psi_cond_succ {
    uint32_t op, to, key;
} psi_cond_succ;

typedef struct psi_polygraph {
    uint32_t n_nodes; /* = history n_txns */
    /* Reads with a choice of writers (all NULL/0 when there are none, so
     * unique-value histories take the old path): conditional readers of
     * every final write (CSR over ops), of the initial value per key (CSR
     * over dense keys), and the conditional edges derived for them. */
    uint32_t n_choices;
    const psi_amb_read *amb; /* borrowed from the index */
    uint32_t n_amb;
    const uint32_t *amb_cand; /* borrowed from the index */
    /* [n_choices] psi_choice_state, pruning's verdict on each choice. */
    uint8_t *choice_state;
    uint32_t *cr_off; /* [n_ops + 1] */
    psi_cread *cr;
    uint32_t *ci_off; /* [n_keys + 1] */
    psi_cread *ci;
    /* End of each write's (each key's) live conditional readers: those
     * whose choice is not excluded come first, in their original order
     * (psi_polygraph_drop_excluded), and only they are listed. An excluded
     * choice adds no edge anywhere, and on hot values most choices end up
     * excluded: walking them in every pruning round was quadratic. */
    uint32_t *cr_end;    /* [n_cr_lists] */
    uint32_t n_cr_lists; /* = history n_ops when there are choices */
    uint32_t *ci_end;    /* [n_keys] */
    psi_cond_edge *cond;
    uint64_t n_cond, cap_cond;
    psi_cond_succ *csucc; /* see psi_cond_succ; pruning drops settled ones */
    uint64_t n_csucc, cap_csucc;
    /* Known edges, in the order they were added: the builder's (SO, WR,
     * list-append WW, then with all_pairs the initial-value RW edges), then
     * seeding's and pruning's. Only appended to, through the functions
     * below. */
    psi_edge *known;
    uint64_t n_known, cap_known;
    psi_constraint *cons;
    uint32_t n_cons;
    psi_ckey *ckeys;
    uint64_t n_ckeys;
    /* readers of each final write: readers[reader_off[w - ...]] via
     * psi_polygraph_readers(); CSR over write ops. */
    uint32_t *reader_off; /* [n_ops + 1] */
    uint32_t *readers;    /* reader transactions */
    /* Per key (CSR over dense keys): final writes of committed transactions
     * sorted by transaction index (so grouped by session, in session order),
     * and the readers of the key's initial value. */
    uint32_t n_keys;
    uint32_t *w_off; /* [n_keys + 1] */
    uint32_t *w_op;
    uint32_t *i_off; /* [n_keys + 1] */
    uint32_t *i_txn;
    bool pending;           /* constraints not generated yet (see psi_polygraph_opts) */
    const uint32_t *op_txn; /* borrowed from the index: operation -> transaction */
    /* Counts for statistics (the paper's Table 3 columns, before pruning). */
    uint64_t n_so, n_wr, n_init_edges, n_list_ww;
    uint64_t n_forced_edges; /* sparse edges of pairs the known graph orders (prune/seed.c) */
    uint64_t n_hint_edges;   /* WW edges of known version orders (check/hints.h) */
    uint64_t n_ts_edges;     /* edges timestamps imply (check/timestamps.h) */
    uint64_t n_rt_edges;     /* real-time edges (check/realtime.h) */
    uint64_t list_ww_first;  /* known[list_ww_first .. + n_list_ww): the list-append WW edges */
    /* Optional transactions (index.h, psi_index.opt; borrowed, NULL when
     * none): every edge out of one exists only if it committed. Such an
     * edge is never known: psi_polygraph_add_known puts it in gated[]
     * (its outcome literal is its label, encode.h), pruning leaves it out
     * of every test, and each side of a constraint that has one carries
     * the outcome as a second literal. Edges into one need no gate: a
     * cycle through an absent transaction would need an edge out of it.
     * Session order skips it: the builder adds SO from the committed
     * transaction before a run of optional ones to the one after it. */
    const uint8_t *opt;
    psi_edge *gated;
    uint64_t n_gated, cap_gated;
    /* What the paper's polygraph would hold: every writer pair per key, and
     * the edges of both sides of all of them (computed, not built). */
    uint64_t n_writer_pairs, n_pair_deps;
    bool coalesce;
} psi_polygraph;

typedef struct psi_polygraph_opts {
    bool no_coalescing; /* one constraint per (pair, key) */
    bool all_pairs;     /* generate every writer pair now (see above) */
} psi_polygraph_opts;

/* A writer pair on one key, as generated before grouping. */
typedef struct psi_pair {
    uint32_t t, s; /* t < s */
    psi_ckey k;
} psi_pair;

/* Replaces the constraints by those of pairs[0..n) (taking ownership of
 * the array: the constraints are written over it), grouped per writer
 * pair when g->coalesce: ordered by (t, s), a pair's keys in the order
 * given. Each record's t and s are its ops' transactions (g->op_txn). */
psi_status psi_polygraph_set_constraints(psi_polygraph *g, psi_pair *pairs, uint64_t n,
                                         psi_diag *d);

psi_status psi_polygraph_build(const psi_history *h, const psi_index *idx,
                               const psi_polygraph_opts *opts, psi_polygraph *g, psi_diag *d);
void psi_polygraph_free(psi_polygraph *g);

/* Transactions that read the final write `op` (external reads only). */
static inline const uint32_t *psi_polygraph_readers(const psi_polygraph *g, uint32_t op,
                                                    uint32_t *n)
{
    *n = g->reader_off[op + 1] - g->reader_off[op];
    return g->readers + g->reader_off[op];
}

/* Conditional readers of the final write `op` whose choice of it is not
 * excluded (excluded ones may be listed until the next
 * psi_polygraph_drop_excluded; every consumer skips them). */
static inline const psi_cread *psi_polygraph_creaders(const psi_polygraph *g, uint32_t op,
                                                      uint32_t *n)
{
    if (!g->cr_off) {
        *n = 0;
        return NULL;
    }
    *n = g->cr_end[op] - g->cr_off[op];
    return g->cr + g->cr_off[op];
}

/* Conditional readers that may have read key's initial value (as
 * psi_polygraph_creaders). */
static inline const psi_cread *psi_polygraph_cinit(const psi_polygraph *g, uint32_t key,
                                                   uint32_t *n)
{
    if (!g->ci_off) {
        *n = 0;
        return NULL;
    }
    *n = g->ci_end[key] - g->ci_off[key];
    return g->ci + g->ci_off[key];
}

/* Removes the readers whose choice is excluded from the lists above
 * (keeping the others' order). Pruning calls it after excluding choices;
 * a choice is never un-excluded. Linear in the listed readers. */
void psi_polygraph_drop_excluded(psi_polygraph *g);

/* The same for the lists marked in `marked` (n_cr_lists bytes, one per
 * write, then n_keys, one per key's initial value), when only those got
 * excluded readers since the last call: the others are left as they are
 * (debug builds assert they list none). On hot values a pass excludes
 * choices of a few writes, and reading every listed reader's state (a
 * cache miss each, tens of millions at 10^5 transactions) cost more. */
void psi_polygraph_drop_excluded_marked(psi_polygraph *g, const uint8_t *marked);

/* Appends a conditional edge (see psi_cond_edge). */
psi_status psi_polygraph_add_cond(psi_polygraph *g, uint32_t from, uint32_t to, psi_edge_type type,
                                  uint32_t key, uint32_t choice, psi_diag *d);

/* Appends a shared conditional RW edge (see psi_cond_succ). */
psi_status psi_polygraph_add_csucc(psi_polygraph *g, uint32_t op, uint32_t to, uint32_t key,
                                   psi_diag *d);

/* The conditional readers of shared edge e's write (or initial value). */
static inline const psi_cread *psi_polygraph_csucc_readers(const psi_polygraph *g,
                                                           const psi_cond_succ *e, uint32_t *n)
{
    return e->op == PSI_CSUCC_INIT ? psi_polygraph_cinit(g, e->key, n)
                                   : psi_polygraph_creaders(g, e->op, n);
}

/* Whether edges out of `from` are gated by its outcome (an optional
 * transaction's, index.h): they go to gated[], never to known[]. */
static inline bool psi_polygraph_gated_from(const psi_polygraph *g, uint32_t from)
{
    return g->opt && from < g->n_nodes && g->opt[from];
}

/* Appends a known edge derived by `origin` (an edge out of an optional
 * transaction goes to gated[] instead); seeding's edges are counted
 * in n_forced_edges (PSI_FROM_SEEDING) or n_init_edges
 * (PSI_FROM_SEEDING_INIT), hints' in n_hint_edges. */
psi_status psi_polygraph_add_known(psi_polygraph *g, uint32_t from, uint32_t to, psi_edge_type type,
                                   uint32_t key, psi_edge_origin origin, psi_diag *d);

/* Resolves open constraint c to one side (either: T before S) and appends
 * that side's edges as known (PSI_FROM_PRUNING). */
psi_status psi_polygraph_resolve(psi_polygraph *g, uint32_t c, bool either, psi_diag *d);

/* Returns the known array's growth slack once nothing more is added in
 * bulk; a failed shrink keeps the larger block. */
void psi_polygraph_shrink(psi_polygraph *g);

/* Number of edges of one side of constraint c (1 WW + readers per key,
 * self-loops excluded). */
uint64_t psi_constraint_side_size(const psi_polygraph *g, const psi_constraint *c, bool either);

/* How many keys constraint c (an element of g->cons) has. */
static inline uint32_t psi_constraint_n_keys(const psi_polygraph *g, const psi_constraint *c)
{
    /* the count is read off the next constraint: a copy would read past it */
    assert(c >= g->cons && c < g->cons + g->n_cons);
    uint64_t end = c + 1 < g->cons + g->n_cons ? c[1].first : g->n_ckeys;
    return (uint32_t)(end - c->first);
}

/* Calls fn(ctx, from, to, type, key) for every edge of one side
 * (either: T before S; or: S before T). Stops early if fn returns false;
 * returns false then. */
typedef bool (*psi_edge_fn)(void *ctx, uint32_t from, uint32_t to, psi_edge_type type,
                            uint32_t key);
bool psi_constraint_for_each(const psi_polygraph *g, const psi_constraint *c, bool either,
                             psi_edge_fn fn, void *ctx);

const char *psi_edge_type_name(psi_edge_type t); /* "SO", "WR", "WW", "RW" */

/* ---- The polygraph of a sub-history, flat ----
 *
 * interpret/ asks whether a few transactions are a violation by
 * themselves, so it rebuilds their generalized polygraph from the history
 * alone (nothing seeded or pruned), with the same construction as
 * psi_polygraph_build restricted to the sub-history, except that every
 * writer pair of a key is its own constraint (no coalescing), the
 * initial transaction's WW edges to the writers are listed, WR edges are
 * kept per key, and every edge, constraint sides included, is listed once
 * with its label so that minimization can switch single edges off.
 *
 * Edges, in this order: SO; WR; per key (ascending, keys with writers in
 * the sub-history): RW from the readers of its initial value to its
 * writers, WW from the initial transaction to its writers, then per writer
 * pair its either side and its or side, then the edges of the read-from
 * choices of its reads with a choice of writers (psi_sub_read); then the
 * list-append WW edges.
 * Edges between transactions outside the sub-history, and self-loops, are
 * left out. Nodes are local: 0..n_nodes-1 in the order of the given
 * transactions. */
typedef struct psi_sub_edge {
    psi_edge e;   /* local nodes; PSI_FROM_HISTORY when certain, else PSI_FROM_CONSTRAINT */
    int32_t cons; /* -1 when certain, else the constraint it is a side of */
    /* 0, or 1 + the read-from choice (psi_sub_polygraph.ch) the edge also
     * needs: it exists iff that choice is taken (and its side, if cons). */
    uint32_t rc;
    uint8_t side; /* constraint edges: 0 either (t installed first), 1 or (s first) */
    uint8_t on;   /* still part of the violation (minimization clears it) */
} psi_sub_edge;

/* A read with a choice of writers (psi_amb_read) whose reader and every
 * candidate are in the sub-history: exactly one of its choices
 * ch[first .. first + n) is taken. A read with a candidate outside the
 * sub-history is left out: reading from that one adds no edge here, so
 * the read constrains nothing (leaving it out is the exact relaxation). */
typedef struct psi_sub_read {
    uint32_t op;     /* the read */
    uint32_t reader; /* its local node */
    uint32_t key;
    uint32_t first, n;
} psi_sub_read;

/* One candidate writer of a psi_sub_read. Its edges: writer ->WR reader
 * (none for the initial transaction), and reader ->RW S for every other
 * writer S of the key, labelled also by the pair's side "writer first"
 * (the initial transaction is first anyway). */
typedef struct psi_sub_choice {
    uint32_t read;   /* index into reads */
    uint32_t writer; /* local node (the initial transaction's when op is PSI_SRC_INIT) */
    uint32_t op;     /* its final write op on the key, or PSI_SRC_INIT */
} psi_sub_choice;

typedef struct psi_sub_cons {
    uint32_t t, s, key; /* local nodes of the two writers (t's transaction first), dense key */
} psi_sub_cons;

typedef struct psi_sub_polygraph {
    uint32_t n_nodes;
    uint32_t *node_txn; /* [n_nodes] local node -> transaction */
    psi_sub_edge *e;
    uint32_t n_e;
    size_t cap_e;
    psi_sub_cons *c;
    uint32_t n_c;
    size_t cap_c;
    psi_sub_read *reads; /* reads with a choice of writers (repeated values) */
    uint32_t n_reads;
    size_t cap_reads;
    psi_sub_choice *ch;
    uint32_t n_ch;
    size_t cap_ch;
} psi_sub_polygraph;

/* Builds the polygraph of the sub-history over txns[0..n) (sorted, the
 * initial transaction first if present) of the history h, indexed by idx,
 * whose whole polygraph g was built by psi_polygraph_build (its readers
 * lists and list-append edges are reused). local is caller-owned scratch
 * of h->n_txns entries, all UINT32_MAX, and left so. PSI_ERR_LIMIT when
 * more than max_cons writer pairs would be needed. *S owns the result
 * (psi_sub_polygraph_free); after an error it holds nothing. */
psi_status psi_sub_polygraph_build(const psi_history *h, const psi_index *idx,
                                   const psi_polygraph *g, const uint32_t *txns, uint32_t n,
                                   uint32_t max_cons, uint32_t *local, psi_sub_polygraph *S,
                                   psi_diag *d);
/* The reads with a choice of writers a sub-history keeps: ops[0..n), in
 * operation order. Leaving a read out drops its choices and their edges,
 * a relaxation as for a read with a candidate outside. */
typedef struct psi_read_set {
    const uint32_t *ops;
    uint32_t n;
} psi_read_set;
/* psi_sub_polygraph_build keeping only the reads with a choice in rs
 * (every one whose candidates are all in the sub-history when rs is
 * NULL). */
psi_status psi_sub_polygraph_build_reads(const psi_history *h, const psi_index *idx,
                                         const psi_polygraph *g, const uint32_t *txns, uint32_t n,
                                         const psi_read_set *rs, uint32_t max_cons, uint32_t *local,
                                         psi_sub_polygraph *S, psi_diag *d);
void psi_sub_polygraph_free(psi_sub_polygraph *S);

#endif
