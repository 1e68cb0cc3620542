/* An independent brute-force oracle for tiny histories: decides SI and SER
 * straight from the definitions (Theorem 6 of the PolySI paper) by trying
 * every version order. It shares no code with core/ prune/ encode/ solver/
 * (it only reads psi_history's fields), so differential tests can trust it
 * as a second opinion. Exponential by design: it refuses histories whose
 * number of version orders exceeds ORACLE_MAX_ORDERS.
 *
 * Semantics (the contract the product must match):
 *  - T0, the implicit initial transaction, writes every key's initial value
 *    (value 0 / PSI_OPF_INIT reads) and precedes every session's first
 *    transaction; it is first in every key's version order.
 *  - Committed transactions take part; ABORTED ones never do; an UNKNOWN
 *    one is committed (takes part, its reads checked like any) or absent,
 *    and the history is accepted iff some choice of outcomes is. Only
 *    unknown transactions one of whose writes some read returns are
 *    tried both ways (at most ORACLE_MAX_OUTCOMES; more: too big).
 *  - Rejected under both SI and SER, before any graph: INT violations,
 *    aborted reads (G1a), intermediate reads (G1b), reads of values nobody
 *    wrote, and an external read of a value its own transaction writes later.
 *  - Input errors (ORACLE_INVALID): a value written twice to one key, a
 *    write of the initial value 0, list-append histories. */
#ifndef PSI_TESTS_ORACLE_H
#define PSI_TESTS_ORACLE_H

#include "core/history.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Refuse when the product over keys of (number of writers)! exceeds this. */
#define ORACLE_MAX_ORDERS 2000000u
/* Refuse when more unknown transactions than this have a choice. */
#define ORACLE_MAX_OUTCOMES 10u
/* Refuse when more transactions than this take part. */
#define ORACLE_MAX_TXNS 1024u

typedef enum oracle_verdict {
    ORACLE_ACCEPT,
    ORACLE_REJECT,
    ORACLE_INVALID,
    ORACLE_TOO_BIG,
} oracle_verdict;

typedef enum oracle_reason {
    ORACLE_WHY_NONE,              /* accepted */
    ORACLE_WHY_INT,               /* internal read disagrees with the txn's own past */
    ORACLE_WHY_ABORTED_READ,      /* G1a */
    ORACLE_WHY_INTERMEDIATE_READ, /* G1b */
    ORACLE_WHY_NO_WRITER,         /* read of a value nobody wrote */
    ORACLE_WHY_FUTURE_READ,       /* external read of the txn's own later write */
    ORACLE_WHY_CYCLE,             /* every version order has a forbidden cycle */
    ORACLE_WHY_DUPLICATE_WRITE,   /* invalid: value written twice to a key */
    ORACLE_WHY_ZERO_WRITE,        /* invalid: write of the initial value 0 */
    ORACLE_WHY_LIST,              /* invalid: list-append reads are not supported */
    ORACLE_WHY_BOUND,             /* too big */
    ORACLE_WHY_TIMESTAMPS,        /* the timestamps contradict the history (oracle_ts) */
} oracle_reason;

typedef struct oracle_result {
    oracle_verdict verdict;
    oracle_reason why;
    uint32_t txn;          /* a transaction involved in a graph-free anomaly */
    uint64_t orders;       /* number of version-order choices in the space */
    uint64_t orders_tried; /* how many were examined */
} oracle_result;

/* ser: check serializability; otherwise snapshot isolation. */
oracle_verdict oracle_check(const psi_history *h, bool ser);
/* Same, with details in *res (may be NULL). */
oracle_verdict oracle_check_ex(const psi_history *h, bool ser, oracle_result *res);
/* Same, refusing (ORACLE_TOO_BIG) above max_orders version-order choices
 * instead of ORACLE_MAX_ORDERS. */
oracle_verdict oracle_check_limit(const psi_history *h, bool ser, uint64_t max_orders,
                                  oracle_result *res);

/* Known version orders (issue 15): the enumeration keeps only the orders
 * where history transaction a installs dense key `key` before b, for every
 * hint. A hint naming a transaction that takes no part or does not write
 * the key is ignored (the pipeline refuses it as bad input instead). */
typedef struct oracle_ww_hint {
    uint32_t a, b, key;
} oracle_ww_hint;

/* Start and commit timestamps of one history transaction (check
 * --timestamps): a is visible to b iff a.commit < b.start. */
typedef struct oracle_ts {
    bool has;
    int64_t start, commit;
} oracle_ts;

typedef struct oracle_hints {
    const oracle_ww_hint *ww;
    size_t n_ww;
    /* Real time (history.h rt; ignored when h->rt is NULL): the commit
     * order keeps every pair where a completed before b was invoked, as a
     * dependency (SER: strict serializability; SI: strong SI, a is in b's
     * snapshot). Every such pair is added, no reduction. */
    bool realtime;
    /* [h->n_txns] or NULL. Taken literally: timestamped participants a, b
     * with a visible to b (SI; SER: a.commit < b.commit) get a dependency;
     * timestamped writers of a key are installed in commit order; and
     * under SI a read of a timestamped writer not visible to it, session
     * order between timestamped transactions that is not visibility, and
     * two overlapping timestamped writers of a key are rejected
     * (ORACLE_WHY_TIMESTAMPS). */
    const oracle_ts *ts;
    /* [h->n_txns] or NULL: fixes the outcomes (true: committed) of the
     * UNKNOWN transactions instead of trying every choice. */
    const bool *outcome;
} oracle_hints;

/* The UNKNOWN transactions whose outcome is a choice (one of their
 * writes is returned by another transaction's read): writes up to max of
 * them to out and returns how many there are. */
size_t oracle_open_outcomes(const psi_history *h, uint32_t *out, size_t max);

/* oracle_check_limit with hints (NULL: none). */
oracle_verdict oracle_check_hinted(const psi_history *h, bool ser, const oracle_hints *hints,
                                   uint64_t max_orders, oracle_result *res);

const char *oracle_verdict_name(oracle_verdict v);
const char *oracle_reason_name(oracle_reason r);

#endif
