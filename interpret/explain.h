/* Counterexamples for rejected histories (PolySI §5.3, Appendix C and E):
 * the few transactions and dependencies that form the violation, with the
 * anomaly named the way Jepsen/Elle users know it.
 *
 * How a counterexample is found (Algorithm 3, adapted):
 *   Restore  - start from the transactions of the cycle(s) the check
 *              reported (pruning's or the solver's) plus the writers their
 *              anti-dependencies read from, and bring back neighbouring
 *              transactions (breadth first over the pruned known graph)
 *              until the sub-history over those transactions is itself a
 *              violation: its generalized polygraph, rebuilt from the
 *              history alone (SO, WR, the initial transaction, and one
 *              constraint per writer pair and key), is refuted by a local
 *              run of the solver. Edges pruning or seeding derived are never
 *              trusted: everything is re-derived from the history. With
 *              repeated values, when blind growth finds nothing up to 200
 *              transactions, the set is grown along pruning's reasons
 *              instead (interpret/reasons.c: per decided order or excluded
 *              candidate, the cheapest cycle the other way among the edges
 *              known before it), keeping only the reads with a choice of
 *              writers those reasons involve. Where local solves cannot
 *              (a set over 256 transactions: every writer of a hot key's
 *              value comes along), sets are re-checked by the whole
 *              pipeline instead, and when neither way finds a violation
 *              the whole history (up to 20k transactions) is shrunk by
 *              such re-checks (explain.c, shrink_by_checks).
 *   Minimize - drop transactions, then single dependencies, while the rest
 *              stays a violation. When every deletion was tried the result is
 *              a minimal violation in Appendix E's sense: removing any one
 *              dependency makes it acceptable.
 *   Resolve  - settle every writer pair one of whose orders closes a
 *              forbidden cycle with what is certain (local pruning to a
 *              fixpoint): those edges are "decided".
 *   Finalize - drop the impossible sides; writer pairs still open are shown
 *              as alternatives, each with the cycle it closes.
 * Both searches are bounded by a budget counted in local solver calls
 * (or, for levels shrunk through the pipeline, whole-check re-checks).
 *
 * Ownership: psi_cex_build fills a caller-provided psi_cex whose arrays it
 * allocates; psi_cex_free releases them. The history and check result must
 * outlive the call only. */
#ifndef PSI_INTERPRET_EXPLAIN_H
#define PSI_INTERPRET_EXPLAIN_H

#include "check/check.h"

#include <stdbool.h>
#include <stdint.h>

/* Default --interpret-budget: local solver calls (each one solves the
 * polygraph of a small sub-history). */
#define PSI_INTERPRET_BUDGET_DEFAULT 3000u

/* What a violation is called: the tool's one vocabulary, with Elle's
 * name wherever Elle has one (interpret/vocabulary.c holds the table; the
 * README lists it). New kinds go at the end of the enum and get a row in
 * that table. */
typedef enum psi_cex_kind {
    PSI_CEX_LOST_UPDATE = 0,    /* two writers of a key read the same version of it */
    PSI_CEX_LONG_FORK,          /* two readers see two writes in opposite orders */
    PSI_CEX_G_SINGLE,           /* a cycle with exactly one anti-dependency */
    PSI_CEX_G2_ITEM,            /* a cycle with adjacent anti-dependencies (SER only) */
    PSI_CEX_G0,                 /* a cycle of write-write dependencies */
    PSI_CEX_G1A,                /* aborted read */
    PSI_CEX_G1B,                /* intermediate read */
    PSI_CEX_G1C,                /* a cycle without anti-dependencies */
    PSI_CEX_INT,                /* internal: a read disagrees with its own transaction */
    PSI_CEX_UNWRITTEN,          /* a read of a value no transaction wrote */
    PSI_CEX_CYCLE,              /* a forbidden cycle, not named (no cycle to name) */
    PSI_CEX_G_NONADJACENT,      /* anti-dependencies, none adjacent, not a long fork */
    PSI_CEX_INCOMPATIBLE_ORDER, /* list reads of a key whose orders disagree */
    /* The weak levels' violations (check/level.h, interpret/level_cex.c). */
    PSI_CEX_NONMONOTONIC_READ,   /* RC: a read older than what an earlier read showed */
    PSI_CEX_FRACTURED_READ,      /* RA: part of a transaction's writes seen, part not */
    PSI_CEX_CAUSALITY_VIOLATION, /* CC: a read misses a write in its causal past */
    /* RA and up: two reads of a key in one txn see two committed versions
     * (an INT anomaly marked nonrepeatable; RC and PL-2 allow it) */
    PSI_CEX_NONREPEATABLE_READ,
    /* Shown by start/commit timestamps (check/timestamps.h). */
    PSI_CEX_STALE_READ,   /* a read misses a version committed before its start */
    PSI_CEX_FUTURE_READ,  /* a read sees a version committed after its start */
    PSI_CEX_SESSION_TIME, /* a session's transactions overlap in time */
} psi_cex_kind;
#define PSI_CEX_KIND_LAST PSI_CEX_SESSION_TIME

/* Where an edge of the counterexample comes from. */
typedef enum psi_cex_origin {
    PSI_CEX_CERTAIN = 0,    /* from the history alone: SO, WR, the initial transaction */
    PSI_CEX_DECIDED = 1,    /* a version order the interpretation settled (the other
                               order closes a forbidden cycle) */
    PSI_CEX_EITHER = 2,     /* an open writer pair: holds if choice.t is installed first */
    PSI_CEX_OR = 3,         /* an open writer pair: holds if choice.s is installed first */
    PSI_CEX_EXCLUDED = 4,   /* the order the interpretation ruled out (shown with the
                               cycle it would close) */
    PSI_CEX_FORCED = 5,     /* a version order a weak level's axiom forces (RC, RA, CC:
                               check/level.h), from the certain edges shown with it */
    PSI_CEX_HINT = 6,       /* a known version order (check --version-order): the
                               edge's hint_line of the counterexample's hint_file */
    PSI_CEX_TIMESTAMPS = 7, /* an order timestamps imply (check --timestamps): the
                               edge's hint_line (its target's line) of ts_file */
    PSI_CEX_REALTIME = 8,   /* real time (strict-ser, strong-si): `from` completed before
                               `to` was invoked (history.h rt) */
    PSI_CEX_READ_FROM = 9,  /* holds if its read (rcand) takes that writer, a
                               candidate left besides the one decided */
} psi_cex_origin;

typedef struct psi_cex_edge {
    uint32_t from, to;  /* transaction indices */
    uint32_t key;       /* dense key, UINT32_MAX for SO */
    uint8_t type;       /* psi_edge_type */
    uint8_t origin;     /* psi_cex_origin */
    uint8_t side;       /* edges of a writer pair: 0 if it holds when choice.t goes
                           first, 1 when choice.s does */
    uint32_t choice;    /* all but CERTAIN: index into choices; UINT32_MAX when
                           only a read-from choice (rcand) labels the edge */
    uint32_t rcand;     /* 0, or 1 + the read-from candidate (rcands) the edge
                           needs: a WR from it, or an RW its read implies */
    uint32_t shown_by;  /* a certain WW edge a list-append read shows (the read's
                           transaction is among txns): that read's op + 1; else 0 */
    uint64_t hint_line; /* PSI_CEX_HINT: the line of the hint file that gives it */
} psi_cex_edge;

/* A writer pair on a key whose version order the counterexample needs:
 * decided (one order closes a cycle; the other is taken) or open (every
 * order closes one). */
typedef struct psi_cex_choice {
    uint32_t t, s, key;
    uint8_t decided; /* 0 open, 1 t first, 2 s first */
} psi_cex_choice;

/* One condition of a forbidden cycle: choice `choice` takes side `side`
 * (0: its t is installed first, 1: its s is). */
typedef struct psi_cex_cond {
    uint32_t choice;
    uint8_t side;
} psi_cex_cond;

/* A forbidden cycle: edges[idx[first .. first+len)], in cycle order. It
 * exists when every condition conds[cond_first .. cond_first+n_cond) holds
 * (no condition: certain and decided edges alone close it). A cycle whose
 * condition is the excluded order of a decided choice is the reason for
 * that decision. */
typedef struct psi_cex_cycle {
    uint32_t first, len;
    uint32_t cond_first, n_cond;
    /* Read-from conditions: rconds[rcond_first .. + n_rcond) are rcands
     * indices, each "its read takes that writer". */
    uint32_t rcond_first, n_rcond;
} psi_cex_cycle;

/* How a read with several candidate writers (a repeated value, or the
 * initial value written again) was resolved in the counterexample. */
typedef enum psi_cex_rf_how {
    PSI_RF_FORCED = 0,   /* every other candidate closes a forbidden cycle (its
                            rcand names that cycle): this writer it is */
    PSI_RF_DECIDED = 1,  /* taken in the failing assignment shown: several
                            candidates were left, and the violation holds
                            whichever it takes (the latest writer left is
                            shown), or the check's own choice when its cycle
                            is shown as found */
    PSI_RF_EXCLUDED = 2, /* every candidate closes a forbidden cycle: the read
                            has no possible writer, which is the violation */
} psi_cex_rf_how;

typedef struct psi_cex_read {
    uint32_t op, txn, key; /* the read, its transaction, its dense key */
    uint32_t writer;       /* the transaction it was resolved to (PSI_INIT_TXN: the
                              initial one), UINT32_MAX when none */
    uint8_t how;           /* psi_cex_rf_how */
    uint32_t first, n;     /* its candidates: rcands[first .. first + n) */
} psi_cex_read;

typedef struct psi_cex_rcand {
    uint32_t read;    /* index into reads */
    uint32_t txn;     /* the candidate writer (PSI_INIT_TXN: the initial one) */
    uint8_t excluded; /* it closes a forbidden cycle */
    uint32_t cycle;   /* excluded: the cycle that excludes it, UINT32_MAX if none
                         is shown */
} psi_cex_rcand;

typedef struct psi_cex {
    psi_cex_kind kind;
    bool present;        /* a counterexample was built */
    bool minimal;        /* every single deletion was tried: no dependency can go */
    bool restored_whole; /* the rebuilt sub-history is a violation (else the reported
                            cycle is shown as found) */
    char summary[1536];  /* one sentence naming the anomaly and its participants */
    uint32_t *txns;      /* transaction indices, sorted */
    uint32_t n_txns;
    psi_cex_edge *edges;
    uint32_t n_edges;
    psi_cex_choice *choices;
    uint32_t n_choices;
    psi_cex_cycle *cycles;
    uint32_t n_cycles;
    uint32_t *idx; /* cycle edge indices */
    uint32_t n_idx;
    psi_cex_cond *conds; /* cycle conditions */
    uint32_t n_conds;
    /* Reads with a choice of writers that the violation involves (empty
     * when no value repeats), their candidates, and the cycles' read-from
     * conditions (rcands indices). */
    psi_cex_read *reads;
    uint32_t n_reads;
    psi_cex_rcand *rcands;
    uint32_t n_rcands;
    uint32_t *rconds;
    uint32_t n_rconds;
    uint32_t anomaly_op; /* graph-free anomalies: the offending read, else UINT32_MAX */
    psi_anomaly anomaly; /* graph-free anomalies: the one shown (anomaly.op == anomaly_op) */
    uint64_t solver_calls;
    double seconds;
    bool by_level; /* a polynomial level's cycle with its forcing facts (no search) */
    /* Shrunk by re-checks with the whole pipeline at the check's level
     * (PC, PSI, real time, version orders, timestamps: the local SI/SER
     * re-check cannot express them): the cycle shown is the level's check
     * of the smallest sub-history found, and minimal means that removing
     * any one of its transactions makes it acceptable at that level. */
    bool by_pipeline;
    /* Ordering information was used (known version orders, timestamps,
     * real time): hint_file names the version-order file whose lines
     * PSI_CEX_HINT edges name. */
    bool by_hints;
    char hint_file[512];
    char ts_file[512]; /* timestamps were used: their file */
    /* A reject by timestamps (PSI_BY_TIMESTAMPS): no cycle, the summary
     * names the transactions with their timestamps. */
    bool by_timestamps;
} psi_cex;

typedef struct psi_cex_opts {
    bool ser;
    uint64_t budget; /* local solver calls; 0 = PSI_INTERPRET_BUDGET_DEFAULT */
    /* The check's --version-order (borrowed; NULL: none or unknown).
     * Shrinking keeps each chain's order among the transactions it keeps;
     * without it each resolved hint edge stands alone, so a sub-history
     * leaving out a chain's middle loses the order it carried. */
    const psi_version_order *version_order;
} psi_cex_opts;

/* Builds the counterexample of a rejected check. */
psi_status psi_cex_build(const psi_history *h, const psi_check_result *res,
                         const psi_cex_opts *opts, psi_cex *cex, psi_diag *d);
void psi_cex_free(psi_cex *cex);

/* The vocabulary (interpret/vocabulary.c): the name reports use ("lost
 * update", "G-single", ...), Elle's name for it (NULL when Elle has none)
 * and a short description. */
const char *psi_cex_kind_name(psi_cex_kind k);
const char *psi_cex_kind_elle(psi_cex_kind k);
const char *psi_cex_kind_title(psi_cex_kind k);
/* The kind of a graph-free anomaly (core/index.h). */
psi_cex_kind psi_cex_kind_of_anomaly(psi_anomaly_kind k);
const char *psi_cex_origin_name(psi_cex_origin o);
const char *psi_cex_rf_how_name(psi_cex_rf_how how); /* "forced", "decided", ... */

#endif
