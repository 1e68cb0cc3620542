/* Validation of a history and the per-operation facts every later stage
 * needs: which transaction owns each operation, which write each external
 * read observed (WR), which writes are a transaction's final write of a key,
 * and the anomalies that need no dependency graph (INT, G1a, G1b, reads of
 * values nobody wrote).
 *
 * Building the index also settles transactions of unknown outcome (EDN
 * :info, Cobra transactions without a commit record): one that is the only
 * writer a committed read can have observed is committed (transitively);
 * one that is one of several candidates of a read is optional (psi_index.opt:
 * committed iff some read is resolved to it); the others keep
 * PSI_TXN_UNKNOWN and take no part, like aborted ones. This is the one place
 * that writes to the history (txn status; and psi_index_drop_aborted, which
 * takes aborted transactions' operations out of it).
 *
 * Ownership: psi_index_build allocates everything in the index;
 * psi_index_free releases it. The index points into nothing. */
#ifndef PSI_CORE_INDEX_H
#define PSI_CORE_INDEX_H

#include "core/history.h"

#include <stdbool.h>
#include <stdint.h>

/* read_src values that are not operation indices. */
#define PSI_SRC_INIT (UINT32_MAX - 1u) /* observed the initial value */
#define PSI_SRC_NONE UINT32_MAX        /* not an external committed read, or no writer */

enum psi_opinfo {
    PSI_OI_EXTERNAL_READ = 1u << 0, /* first op on its key in its txn, and a read */
    PSI_OI_FINAL_WRITE = 1u << 1,   /* last write of its key in its txn */
    PSI_OI_LIVE = 1u << 2,          /* belongs to a committed transaction */
    /* An external committed read whose (key, value) several writers (or
     * the initial transaction and writers) may have written: read_src is
     * PSI_SRC_NONE and its candidates are in idx->amb. */
    PSI_OI_AMBIG = 1u << 3,
    /* A read that is not the first op on its key in its txn and follows no
     * write of the key by its own txn: a read event of its own under RC and
     * PL-2 (per-read axioms), which may see another committed writer than
     * the txn's earlier read did. read_src stays PSI_SRC_NONE for it (the
     * SI/SER pipeline knows one read per key and txn): its writer is
     * psi_index_repeat_src. */
    PSI_OI_REPEAT_READ = 1u << 4,
};

/* A read whose writer is a choice (hyper-polygraph, issue 11): its
 * candidates are amb_cand[first .. first + n), n >= 2, each a final write
 * op of a committed transaction or PSI_SRC_INIT, sorted (PSI_SRC_INIT
 * last). Candidate j of read i is choice number first + j: encode/ gives
 * each choice one Boolean variable. */
typedef struct psi_amb_read {
    uint32_t op;    /* the read */
    uint32_t txn;   /* its transaction */
    uint32_t key;   /* its dense key */
    uint32_t n;     /* number of candidates */
    uint64_t first; /* index of its first candidate in amb_cand */
} psi_amb_read;

/* How the recorded initial state is recognized (--init). */
typedef enum psi_init_mode {
    PSI_INIT_AUTO = 0, /* the file's first transaction, when it only writes initial values */
    PSI_INIT_NONE = 1, /* never */
    PSI_INIT_NAMED = 2 /* the transaction (session, id) given */
} psi_init_mode;

typedef struct psi_init_opts {
    psi_init_mode mode;
    uint64_t session, id; /* PSI_INIT_NAMED */
} psi_init_opts;

typedef enum psi_anomaly_kind {
    PSI_ANOM_INT = 0,       /* a read disagrees with its own transaction's earlier ops */
    PSI_ANOM_G1A = 1,       /* aborted read: observed a write of an aborted transaction */
    PSI_ANOM_G1B = 2,       /* intermediate read: observed a write its writer overwrote */
    PSI_ANOM_UNWRITTEN = 3, /* observed a value no transaction wrote */
    /* Two list-append reads of a key whose lists are not prefixes of one
     * another (op and other_op are the two reads; other_op's list is the
     * longest of its key): no version order can give both. */
    PSI_ANOM_INCOMPATIBLE_ORDER = 4,
} psi_anomaly_kind;

typedef struct psi_anomaly {
    uint8_t kind;       /* psi_anomaly_kind */
    uint32_t txn;       /* the reading transaction */
    uint32_t op;        /* the offending read */
    uint32_t other_txn; /* INT: same txn; G1a/G1b: the writer; UNWRITTEN: PSI_SRC_NONE;
                           INCOMPATIBLE_ORDER: the other reader */
    uint32_t other_op;  /* INT: the op it should agree with; G1a/G1b: the write observed;
                           INCOMPATIBLE_ORDER: the other read */
    /* INT only: a non-repeatable read. op is a PSI_OI_REPEAT_READ that
     * observes a committed final write (other than its own txn's) unlike
     * other_op, the txn's earlier read of the key. Every level from RA up
     * rejects it; RC and PL-2, whose axioms are per read, allow it
     * (psi_index_allow_nonrepeatable). */
    bool nonrepeatable;
} psi_anomaly;

typedef struct psi_index {
    uint32_t *op_txn;   /* [n_ops] owning transaction */
    uint32_t *read_src; /* [n_ops] for external reads of committed txns: the write op
                           observed, PSI_SRC_INIT, or PSI_SRC_NONE */
    uint8_t *op_info;   /* [n_ops] psi_opinfo bits */
    uint32_t n_committed, n_aborted, n_unknown; /* after settling unknowns */
    uint32_t n_promoted;                        /* unknown txns settled as committed */
    psi_anomaly *anomalies;
    size_t n_anomalies;
    /* The write map, for psi_index_writer: every write op of a
     * non-initial transaction, sorted by (key, value), repeated values in
     * write order. Key k's writes are [w_first[k], w_first[k + 1]). */
    uint32_t *w_first; /* [n_keys + 1] */
    uint64_t *w_val;   /* [n_writes] the value written */
    uint32_t *w_op;    /* [n_writes] the write op */
    uint32_t n_keys, n_writes;
    /* Writes of a (key, value) that was written more than once, as a chain:
     * the write map holds the last such write, dup_prev[op] the one before
     * (PSI_SRC_NONE ends it). NULL when every value is written once. */
    uint32_t *dup_prev;
    /* Reads with a choice of writers (PSI_OI_AMBIG), in operation order. */
    psi_amb_read *amb;
    uint32_t n_amb;
    uint32_t *amb_cand; /* [n_amb_cand] candidate write ops or PSI_SRC_INIT */
    uint64_t n_amb_cand;
    /* The transaction psi_index_mark_initial merged into the initial one
     * (status PSI_TXN_INITIAL), 0 if none. */
    uint32_t init_txn;
    /* Transactions of unknown outcome whose outcome is a choice (issue
     * 11): opt[t] != 0 for each, NULL when there are none (every other
     * history takes the old path). Such a transaction writes a value some
     * read may return, but no committed read needs it alone: it is
     * committed iff a read is resolved to it (or a committed optional
     * transaction's read needs it), absent otherwise. While the index
     * lives its status is PSI_TXN_COMMITTED, so every stage sees its
     * operations, reads resolved and candidates; the polygraph gates
     * every edge out of it by its outcome literal (polygraph.h). Its own
     * reads always have a candidate if every optional transaction commits
     * (one that cannot is left absent). */
    uint8_t *opt;
    uint32_t n_opt;
} psi_index;

static inline bool psi_index_optional(const psi_index *idx, uint32_t t)
{
    return idx->opt && idx->opt[t];
}

/* Finds the recorded initial state (see psi_init_mode) and gives it
 * status PSI_TXN_INITIAL, so that psi_index_build treats its writes as the
 * initial transaction's. Auto: the transaction that starts first in the
 * input (smallest src), committed as recorded, with at least one
 * operation, all of them writes of the initial value 0, in a format whose
 * initial value is 0 (text, dbcop, histories built in memory). Named: that
 * transaction must exist, be committed and only write 0 (PSI_ERR_INPUT
 * otherwise). A history that already has an PSI_TXN_INITIAL transaction
 * keeps it. *txn gets the transaction index, 0 if none. */
psi_status psi_index_mark_initial(psi_history *h, const psi_init_opts *o, uint32_t *txn,
                                  psi_diag *d);

/* Builds the index. A (key, value) written several times gives its reads
 * a choice of writers (idx->amb), after removing the candidates no
 * serialization of the reader's own session allows: the reader's own
 * transaction, transactions later in its session, and same-session writers
 * overwritten by a later same-session candidate. A read left with one
 * candidate is an ordinary read. Reads of the initial value also have the
 * explicit writers of 0 as candidates (formats whose initial value is 0).
 * Anomalies are not failures: they are listed in idx->anomalies. */
psi_status psi_index_build(psi_history *h, psi_index *idx, psi_diag *d);
/* The same for the per-read levels (RC, PL-2): a non-repeatable read is
 * no anomaly (as after psi_index_allow_nonrepeatable), so it does not
 * leave an optional transaction absent either: that transaction may
 * commit at those levels. */
psi_status psi_index_build_per_read(psi_history *h, psi_index *idx, psi_diag *d);
void psi_index_free(psi_index *idx);

/* Frees the write map (psi_index_writer answers PSI_SRC_NONE afterwards):
 * once the polygraph is built nothing needs it, and on large histories it
 * is one of the biggest structures. */
void psi_index_release_writes(psi_index *idx);

/* Drops the operations of aborted transactions from h and renumbers the
 * index to match, for a check that goes on to the polygraph (SI, SER, PC,
 * PSI and their variants) once idx has no anomaly left: only G1a looks at
 * aborted writes, and it has been looked for. Kept operations keep their
 * order; transactions keep their indices (an aborted one keeps its id,
 * session and position, with n_ops 0), so everything that names
 * transactions is unchanged. Also releases the write map and dup_prev,
 * which name aborted writes (psi_index_writer answers PSI_SRC_NONE
 * afterwards): the polygraph's construction must not need them, so a
 * history with list-append reads (psi_list_ww_facts looks appenders up)
 * is left whole, as is one without aborted operations. *dropped gets the
 * number of operations dropped (also added to h->n_dropped_ops).
 * PSI_ERR_NOMEM leaves h and idx as they were. */
psi_status psi_index_drop_aborted(psi_history *h, psi_index *idx, uint64_t *dropped, psi_diag *d);

/* Drops the non-repeatable-read anomalies (RC and PL-2 allow them) from
 * idx->anomalies, keeping the others in order; returns how many it
 * dropped. */
size_t psi_index_allow_nonrepeatable(psi_index *idx);

/* The write op a PSI_OI_REPEAT_READ op observed: a write op, PSI_SRC_INIT,
 * or PSI_SRC_NONE (no writer; the index reported that). Needs the write
 * map (before psi_index_release_writes). */
uint32_t psi_index_repeat_src(const psi_history *h, const psi_index *idx, uint32_t op);

/* A write op that wrote `value` to dense key `key` (the last one when
 * several did; idx->dup_prev chains the others), or PSI_SRC_NONE. */
uint32_t psi_index_writer(const psi_index *idx, uint32_t key, uint64_t value);

/* The names of interpret/vocabulary.c (the tool's one vocabulary, kept in
 * step by tests/interpret): "internal", "G1a", "G1b", "unwritten read",
 * "incompatible order"; and what each is. */
const char *psi_anomaly_name(psi_anomaly_kind k);
const char *psi_anomaly_title(psi_anomaly_kind k);

#endif
