/* Start and commit timestamps the database knows (issue 15, `check
 * --timestamps FILE`): Chronos's idea (Zhang et al.) of checking SI from
 * them in O(n log n), and their implied orders as known edges when only
 * some transactions have them.
 *
 * Semantics: transaction a is visible to b iff commit(a) < start(b)
 * (strictly). With timestamps for every committed transaction (complete):
 *   SI:  events sorted by time (at equal times starts first); at b's start
 *        every external read of b must see the latest version committed
 *        before it; at b's commit no version of a key b writes may have
 *        committed since b's start (no two overlapping writers of a key);
 *        a session's transactions do not overlap (session order is
 *        visibility). No polygraph, no solver.
 *   SER: transactions replayed in commit order (commit timestamps must be
 *        distinct, else the partial rule below is used): every read sees
 *        the latest version before it; session order follows commit order.
 * With some timestamps (partial), or complete ones the replay cannot use
 * (list-append reads; SER with equal commit timestamps): the same direct
 * checks among timestamped transactions (overlapping writers under SI, a
 * read of a version committed after its start, session order), and as
 * known edges before pruning: per key the timestamped writers in commit
 * order (WW), and the visibility order (SI: commit(a) < start(b); SER:
 * commit order) as DEP edges, sparsely: SER a chain along commit order; SI
 * per session the latest transaction each other session's frontier gained
 * (up to PSI_TS_MAX_FRONTIER_SESSIONS sessions; beyond that only the WW
 * chains and the direct checks are used, which is sound, just weaker).
 *
 * Ownership: psi_timestamps is the caller's (read only); psi_ts_info and
 * psi_ts_violation live in the check result (psi_ts_info_free). */
#ifndef PSI_CHECK_TIMESTAMPS_H
#define PSI_CHECK_TIMESTAMPS_H

#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"
#include "core/polygraph.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PSI_TS_MAX_FRONTIER_SESSIONS 2048u

typedef struct psi_hint_ts {
    uint64_t sid, tid;
    int64_t start, commit;
    uint64_t line;
} psi_hint_ts;

typedef struct psi_timestamps {
    const char *name; /* the file, for messages */
    const psi_hint_ts *e;
    size_t n;
} psi_timestamps;

/* The timestamps resolved onto transactions. */
typedef struct psi_ts_info {
    char *file;     /* owned copy of the name; NULL: no timestamps */
    int64_t *start; /* [n_txns] */
    int64_t *commit;
    uint64_t *line; /* [n_txns] the hint line, 0: none */
    uint32_t n_with;
    bool complete; /* every committed transaction has timestamps */
    bool replayed; /* checked by the complete replay (no polygraph) */
} psi_ts_info;

typedef enum psi_ts_kind {
    PSI_TS_OK = 0,
    PSI_TS_CONCURRENT_WRITERS = 1, /* a and b overlap and both write key (lost update) */
    PSI_TS_STALE_READ = 2,    /* b's read op sees an older version than a's, committed before */
    PSI_TS_FUTURE_READ = 3,   /* b's read op sees a's version, committed after b started */
    PSI_TS_SESSION_ORDER = 4, /* a precedes b in its session, but does not commit before b
                                 starts (SER: commits) */
} psi_ts_kind;

typedef struct psi_ts_violation {
    uint8_t kind;   /* psi_ts_kind */
    uint32_t a, b;  /* transactions (a may be PSI_INIT_TXN: the initial value) */
    uint32_t key;   /* dense key (UINT32_MAX for SESSION_ORDER) */
    uint32_t op;    /* the read (STALE_READ, FUTURE_READ), else UINT32_MAX */
    uint32_t other; /* STALE_READ: the writer whose older version was read (or
                       PSI_INIT_TXN); else UINT32_MAX */
} psi_ts_violation;

/* Resolves ts against h (validated: idx built): a transaction that is not
 * a committed one of h is PSI_ERR_INPUT naming FILE:LINE. */
psi_status psi_ts_resolve(const psi_history *h, const psi_index *idx, const psi_timestamps *ts,
                          psi_ts_info *out, psi_diag *d);

/* Whether the complete replay applies (info complete, no list-append
 * reads, SER: distinct commit timestamps). */
bool psi_ts_can_replay(const psi_history *h, const psi_ts_info *info, bool ser);

/* The complete replay (above): v->kind PSI_TS_OK when the history passes. */
psi_status psi_ts_replay(const psi_history *h, const psi_index *idx, const psi_ts_info *info,
                         bool ser, psi_ts_violation *v, psi_diag *d);

/* Partial timestamps: the direct checks (v->kind != PSI_TS_OK: a
 * violation, nothing added), else the known edges (origin
 * PSI_FROM_TIMESTAMPS) added to g. */
psi_status psi_ts_constrain(const psi_history *h, const psi_index *idx, const psi_ts_info *info,
                            bool ser, psi_polygraph *g, psi_ts_violation *v, psi_diag *d);

/* The committed transactions with timestamps by commit time (ties by
 * transaction index) into *order (malloc'd, the caller frees it), *n of
 * them: after a passing replay, the version order of every key (SI's
 * first committer wins) and SER's serial order. PSI_ERR_NOMEM. */
psi_status psi_ts_commit_order(const psi_history *h, const psi_ts_info *info, uint32_t **order,
                               uint32_t *n, psi_diag *d);

void psi_ts_info_free(psi_ts_info *info);

#endif
