/* The isolation levels `check --isolation` knows, their names and the
 * lattice between them, and the polynomial checkers of the weak ones.
 *
 * The definitions (README, "Isolation levels") are the axioms over a
 * commit order co, a total order on committed transactions that contains
 * SO ∪ WR and starts with the initial transaction (Biswas & Enea, OOPSLA
 * 2019; Cerone et al., CONCUR 2015). For a read in t of key x from t1 and
 * another writer t2 of x, the level requires t2 co t1 when:
 *   RC   t2 →WR a read of t that comes before this one in t
 *   RA   t2 →(SO ∪ WR) t
 *   CC   t2 →(SO ∪ WR)+ t
 * PL-2 is Adya's "no G0, G1a, G1b, G1c" with session order: some version
 * order makes SO ∪ WR ∪ WW acyclic, which holds iff SO ∪ WR is acyclic
 * (a topological order of it is such a version order).
 *
 * Each premise mentions only SO and WR, which the history fixes, so the
 * level holds iff SO ∪ WR plus every forced edge t2 → t1 is acyclic
 * ("saturation", Biswas & Enea §4): any topological order is then a
 * commit order. psi_level_check builds exactly that graph, with forced
 * edges already implied by SO (and for CC by SO ∪ WR) left out, and on a
 * cycle returns the shortest cycle through one of its transactions.
 *
 * Ownership: psi_level_check allocates res->cycle and res->order (the
 * caller frees both with psi_level_result_free). The history and index
 * are only read. */
#ifndef PSI_CHECK_LEVEL_H
#define PSI_CHECK_LEVEL_H

#include "core/history.h"
#include "core/index.h"

#include <stdbool.h>
#include <stdint.h>

/* SI is 0 so that zeroed options mean the default level. */
typedef enum psi_level {
    PSI_LEVEL_SI = 0,
    PSI_LEVEL_SER,
    PSI_LEVEL_PL2,
    PSI_LEVEL_RC,
    PSI_LEVEL_RA,
    PSI_LEVEL_CC,
    PSI_LEVEL_PC,  /* prefix consistency: polygraph and solver (encode.h) */
    PSI_LEVEL_PSI, /* parallel snapshot isolation: polygraph and solver */
    /* Real time (issue 15, check/realtime.h): SER or SI whose commit order
     * also contains real time (a transaction that completed before another
     * was invoked precedes it; SI: is in its snapshot). They need a
     * history with real time (EDN or JSON with :invoke ops). */
    PSI_LEVEL_STRICT_SER, /* strict serializability */
    PSI_LEVEL_STRONG_SI,  /* strong snapshot isolation */
    /* Session order alone as real time (Elle's strong-session-*). Our SI
     * and SER already put session order in the commit order, so these
     * accept exactly what SI and SER accept; the lattice still places them
     * above (Elle's plain levels leave session order out). */
    PSI_LEVEL_STRONG_SESSION_SI,
    PSI_LEVEL_STRONG_SESSION_SER,
} psi_level;
#define PSI_LEVEL_LAST PSI_LEVEL_STRONG_SESSION_SER

/* The names --isolation takes, for messages: "rc, ra, cc, si, ser, pl2
 * (or their long names)". */
#define PSI_LEVEL_NAMES                                                                            \
    "pl2 (adya-pl-2), rc (read-committed), ra (read-atomic), cc (causal), pc "                     \
    "(prefix-consistency), psi (parallel-si), si (snapshot-isolation), ser (serializability), "    \
    "strong-session-si, strong-session-ser, strong-si (strong-snapshot-isolation), strict-ser "    \
    "(strict-serializability)"

/* Case-insensitive short or long name -> level; false when unknown. */
bool psi_level_parse(const char *name, psi_level *out);
/* "PL-2", "RC", "RA", "CC", "PC", "PSI", "SI", "SER": what reports say. */
const char *psi_level_name(psi_level l);
/* Lower-case short name ("rc"), as --isolation takes it. */
const char *psi_level_arg(psi_level l);
/* The level a (ser, level) pair of options means: level, or SER when
 * level is SI and ser is set. */
psi_level psi_level_of(bool ser, psi_level level);
/* True when every history `strong` accepts, `weak` accepts too. The
 * levels form a lattice, not a chain: PL-2 < RC < RA < CC, then CC < PC <
 * SI and CC < PSI < SI with PC and PSI incomparable (PSI allows a long
 * fork, which PC forbids; PC allows a lost update, which PSI forbids),
 * then SI < SER. Real time: SI < strong-session-si < strong-si and SER <
 * strong-session-ser < strict-ser, each X-ser above its X-si (strict-ser
 * < strong-si: a serial order inside the real-time intervals is a strong
 * SI execution with start = commit). */
bool psi_level_implies(psi_level strong, psi_level weak);
/* The level whose pipeline checks l: SI for strong-si and
 * strong-session-si, SER for strict-ser and strong-session-ser, else l. */
psi_level psi_level_base(psi_level l);
/* Whether l orders transactions by real time (strict-ser, strong-si). */
bool psi_level_realtime(psi_level l);
/* RC, RA, CC and PL-2: checked by psi_level_check, without the solver. */
bool psi_level_is_polynomial(psi_level l);

/* Why an edge of a level's graph is there. */
typedef enum psi_level_why {
    PSI_LW_SO = 0,       /* session order (also the initial transaction before a session) */
    PSI_LW_WR = 1,       /* t2 wrote what `to` read */
    PSI_LW_FORCED = 2,   /* the level's axiom: `to`'s write of key must follow `from`'s */
    PSI_LW_LIST_WW = 3,  /* a list-append read shows `from`'s append to key before `to`'s */
    PSI_LW_ORDER_WW = 4, /* the given version order puts `from`'s version of key before `to`'s */
} psi_level_why;

/* A forced edge's premise: which relation between `from` and the reader
 * made the axiom apply. */
typedef enum psi_level_premise {
    PSI_LP_NONE = 0,
    PSI_LP_EARLIER_READ = 1, /* RC: from →WR an earlier read of reader (read_op2) */
    PSI_LP_WR = 2,           /* RA: from →WR reader (read_op2 is such a read) */
    PSI_LP_SO = 3,           /* RA: from →SO reader */
    PSI_LP_CAUSAL = 4,       /* CC: from →(SO ∪ WR)+ reader */
} psi_level_premise;

typedef struct psi_level_edge {
    uint32_t from, to; /* transactions */
    uint32_t key;      /* WR and forced edges: the key; SO: UINT32_MAX */
    uint8_t why;       /* psi_level_why */
    uint8_t premise;   /* psi_level_premise (forced edges) */
    /* Forced edges: the reading transaction and its read of key from
     * `to` (read_op), and for RC/RA-by-WR a read of reader from `from`
     * (read_op2, else UINT32_MAX). WR edges: read_op is the read. */
    uint32_t reader, read_op, read_op2;
} psi_level_edge;

typedef struct psi_level_result {
    bool accept;
    psi_level_edge *cycle; /* reject: a cycle, edges in order (cycle[i].to == cycle[i+1].from) */
    uint32_t cycle_len;
    /* accept: a commit order of the committed transactions, the initial
     * transaction first */
    uint32_t *order;
    uint32_t n_order;
    uint64_t forced_edges; /* forced edges the graph needed (statistics) */
} psi_level_result;

/* The level must be polynomial. The index must be built and free of
 * graph-free anomalies (those reject every level). */
psi_status psi_level_check(const psi_history *h, const psi_index *idx, psi_level level,
                           psi_level_result *res, psi_diag *d);
/* The same with the committed transactions absent[t] != 0 left out, as
 * if aborted (absent NULL: none): their reads are no read events, their
 * writes no one's source (a read of one has no writer yet) and session
 * order skips them. The outcome search (level_outcome.h) checks its
 * partial choices of optional transactions this way. */
psi_status psi_level_check_in(const psi_history *h, const psi_index *idx, const uint8_t *absent,
                              psi_level level, psi_level_result *res, psi_diag *d);
/* psi_level_check_in with a given version order's edges as well (hints,
 * resolved: check/hints.h; NULL for none): facts the commit order must
 * follow, as list-append ones, so the level holds iff SO ∪ WR ∪ forced ∪
 * those edges is acyclic (the premises still use SO and WR alone); on a
 * cycle through one, its edge is PSI_LW_ORDER_WW. */
struct psi_hints;
psi_status psi_level_check_hinted(const psi_history *h, const psi_index *idx, const uint8_t *absent,
                                  const struct psi_hints *hints, psi_level level,
                                  psi_level_result *res, psi_diag *d);
void psi_level_result_free(psi_level_result *res);

#endif
