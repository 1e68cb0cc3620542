/* The history model: sessions, transactions and operations, as recorded by a
 * database tester, in compact arrays.
 *
 * Layout (after psi_builder_finish):
 *   txns[0] is the implicit initial transaction: it writes the initial value
 *   of every key and precedes every session's first transaction. It has no
 *   materialized operations (n_ops == 0) and session == PSI_NO_SESSION.
 *   Session s owns txns[sessions[s].first_txn .. + n_txns), in session order;
 *   sessions are sorted by external id.
 *   Transaction t owns ops[txns[t].first_op .. + n_ops), in program order.
 *   Keys are interned: op.key is a dense index into keys[] (external keys).
 *
 * Keys and values other than integers (issue 12: EDN keywords, strings,
 * symbols...) are interned by spelling. When every key of the input is a
 * non-negative integer, key_names is NULL and keys[k] is key k's integer;
 * otherwise key_names[k] is key k's original spelling (`:x`, `"acct 1"`,
 * `foo`, and `7` for an integer key, written in decimal) and keys[k] == k.
 * Likewise values: when every value is an integer, value_names is NULL and
 * op.value is the integer (0: the initial value); otherwise op.value is an
 * interned id, 0 still being the initial value (EDN nil) and v in
 * 1..n_value_names being value_names[v - 1] (integers written in decimal).
 * Two spellings are two keys (or values): integer 7 and keyword :7 differ,
 * while 7, 0x7 and 7N, all written "7", are one. Print keys and values with
 * psi_history_key_name and psi_history_value_name, never keys[] directly.
 *
 * Ownership: a psi_history is created by psi_builder_finish (or a reader)
 * and owns every array in it; psi_history_free releases all of it. Nothing
 * inside points into the input buffer. */
#ifndef PSI_CORE_HISTORY_H
#define PSI_CORE_HISTORY_H

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PSI_NO_SESSION UINT32_MAX
#define PSI_INIT_TXN   0u

/* Model limits: op and txn indices are 32-bit to keep arrays compact. */
#define PSI_MAX_TXNS (UINT32_MAX - 1u)
#define PSI_MAX_OPS  (UINT32_MAX - 1u)

typedef enum psi_op_kind { PSI_OP_READ = 0, PSI_OP_WRITE = 1 } psi_op_kind;

enum psi_op_flags {
    /* A read that observed the key's initial value (0 in text/dbcop, nil in
     * EDN, the 0xbebeebee/0xdeadbeef writer in Cobra). value is 0. */
    PSI_OPF_INIT = 1u << 0,
    /* A list-append read: the whole observed list is in hist->lists (see
     * psi_history_list). value is the last element (or 0 with PSI_OPF_INIT
     * when the list is empty). */
    PSI_OPF_LIST = 1u << 1,
    /* A write that is a list append (EDN :append), for conversion back. */
    PSI_OPF_APPEND = 1u << 2,
};

typedef struct psi_op {
    uint64_t value; /* value read or written (may repeat: see core/index.h) */
    uint32_t key;   /* dense key index into psi_history.keys */
    uint8_t kind;   /* psi_op_kind */
    uint8_t flags;  /* psi_op_flags */
    uint16_t reserved;
} psi_op;

typedef enum psi_txn_status {
    PSI_TXN_COMMITTED = 0,
    PSI_TXN_ABORTED = 1,
    PSI_TXN_UNKNOWN = 2, /* indeterminate (EDN :info); see psi_check_resolve_unknown */
    /* A recorded initial state (the file's transaction that writes the
     * initial values), merged into the implicit initial transaction by
     * psi_index_mark_initial: it takes no part of its own. */
    PSI_TXN_INITIAL = 3,
} psi_txn_status;

typedef struct psi_txn {
    uint64_t id;       /* external transaction id, as given (or assigned by the reader) */
    uint64_t src;      /* where it starts in the input: line (text formats) or byte offset */
    uint32_t session;  /* dense session index, PSI_NO_SESSION for the initial transaction */
    uint32_t pos;      /* 0-based position in its session */
    uint32_t first_op; /* index of its first operation in ops[] */
    uint32_t n_ops;
    uint8_t status; /* psi_txn_status */
    /* Set by psi_index_build on a transaction of unknown outcome whose
     * outcome is a choice (index.h, psi_index.opt), which it gives status
     * PSI_TXN_COMMITTED meanwhile; the next build starts from
     * PSI_TXN_UNKNOWN again, so that every check of a history sees the
     * recorded outcomes. 0 as read. */
    uint8_t open_outcome;
} psi_txn;

/* Real time (issue 15, Jepsen histories): when the transaction was invoked
 * and when it completed, as positions in one order of events (the
 * :index of the invoke and completion ops, or their places in the file).
 * Transaction a precedes b in real time iff a.complete < b.invoke. An
 * invoke that is not known is 0 (nothing precedes it); a completion that
 * never came (:info, or no completion at all) is PSI_RT_OPEN (it precedes
 * nothing). */
#define PSI_RT_OPEN UINT64_MAX
typedef struct psi_rt {
    uint64_t invoke, complete;
} psi_rt;

/* Start and commit timestamps a history carries itself (EDN/JSON
 * :start-ts and :commit-ts), fed to the check like `check --timestamps`. */
typedef struct psi_txn_ts {
    int64_t start, commit;
    bool has; /* false: this transaction has none */
} psi_txn_ts;

typedef struct psi_session {
    uint64_t id;        /* external session id */
    uint32_t first_txn; /* index of its first transaction in txns[] */
    uint32_t n_txns;
} psi_session;

/* An observed list of a list-append read: vals[first .. first+len). */
typedef struct psi_list_read {
    uint32_t op; /* the read operation */
    uint32_t len;
    uint64_t first; /* index into psi_history.list_vals */
} psi_list_read;

typedef enum psi_format {
    PSI_FMT_AUTO = 0,
    PSI_FMT_TEXT,
    PSI_FMT_DBCOP,
    PSI_FMT_COBRA,
    PSI_FMT_EDN,
    PSI_FMT_AWDIT, /* AWDIT's test format: r|w KEY VALUE, ----- and ===== */
    PSI_FMT_JSON,  /* Jepsen JSON: EDN's operations as JSON objects */
} psi_format;

/* Whether histories of format f are Jepsen's (EDN or JSON): the initial
 * value is nil, so a written 0 is an ordinary value. */
static inline bool psi_format_is_jepsen(psi_format f)
{
    return f == PSI_FMT_EDN || f == PSI_FMT_JSON;
}

/* What a read of the initial value means (issue 12, README "Formats").
 * implicit: an initial transaction writes every key's initial value (0 in
 *   text, dbcop and AWDIT; nil in EDN), and reads of it are PSI_OPF_INIT.
 * recorded: every write is in the history, the initial ones included; a
 *   read of 0 reads whichever transaction wrote 0 (AWDIT's semantics).
 * PSI_INITIAL_DEFAULT is for options only: the format's own choice. */
typedef enum psi_initial_state {
    PSI_INITIAL_DEFAULT = 0,
    PSI_INITIAL_IMPLICIT,
    PSI_INITIAL_RECORDED,
} psi_initial_state;

/* dbcop header fields, kept so a dbcop file converts back with its header. */
typedef struct psi_dbcop_meta {
    uint64_t id, n_sessions, n_vars, n_txns, n_evts;
    char *info, *start, *end; /* owned, NUL-terminated; may be NULL */
} psi_dbcop_meta;

typedef struct psi_history {
    psi_session *sessions;
    uint32_t n_sessions;
    psi_txn *txns; /* txns[0] is the initial transaction */
    uint32_t n_txns;
    psi_op *ops;
    uint32_t n_ops;
    uint64_t *keys; /* external key of each dense key (k itself with key_names) */
    uint32_t n_keys;
    /* NULL when every key is an integer; else n_keys owned NUL-terminated
     * spellings (see the top of this file). */
    char **key_names;
    /* NULL when every value is an integer; else n_value_names owned
     * NUL-terminated spellings, value v >= 1 being value_names[v - 1]. */
    char **value_names;
    uint64_t n_value_names;
    psi_list_read *list_reads; /* sorted by op */
    uint32_t n_list_reads;
    uint64_t *list_vals;
    uint64_t n_list_vals;
    psi_format format; /* what it was read from */
    /* Something the reader decided that the user should be told once (e.g.
     * "no :process: each transaction is its own session"), or NULL. A
     * static string: not owned. */
    const char *note;
    /* How the reader read initial values (psi_initial_state, never
     * DEFAULT once read; a history built by hand is implicit). */
    uint8_t initial_state;
    char *source; /* path it was read from (owned) */
    psi_dbcop_meta dbcop;
    /* [n_txns] each transaction's real-time interval (owned), or NULL when
     * the input carries no real time (every format but EDN and JSON with
     * :process). rt[PSI_INIT_TXN] is {0, 0}: it precedes everything. Whoever
     * copies a history copies this too (psi_builder_set_rt). */
    psi_rt *rt;
    /* With rt: true when the positions are the ops' :index values, false
     * when they are the ops' places among the file's maps (for messages). */
    bool rt_by_index;
    /* [n_txns] timestamps from the input (owned), or NULL when no
     * transaction has any; copied like rt (psi_builder_set_ts). */
    psi_txn_ts *ts;
    /* Operations of aborted transactions dropped after validation
     * (psi_index_drop_aborted, psi_check_opts.drop_aborted): 0 while the
     * history is the input's whole. A history with dropped operations is
     * no longer the input, and the writers refuse it. */
    uint64_t n_dropped_ops;
} psi_history;

void psi_history_free(psi_history *h);

/* The spelling of key k: a pointer into key_names (valid as long as h), or
 * buf holding keys[k] in decimal. */
const char *psi_history_key_name(const psi_history *h, uint32_t k, char buf[24]);
/* The spelling of value v: a pointer into value_names, "nil" for 0 when
 * values are named (the initial value), or buf holding v in decimal. */
const char *psi_history_value_name(const psi_history *h, uint64_t v, char buf[24]);
/* The same, as printf arguments ("%s"): the buffer is a compound literal,
 * which lives until the end of the enclosing block. */
#define PSI_KEY_NAME(h, k)   psi_history_key_name((h), (k), (char[24]){0})
#define PSI_VALUE_NAME(h, v) psi_history_value_name((h), (v), (char[24]){0})
/* Whether spelling s is an integer as this model writes it (decimal, no
 * sign, no leading zero, at most 2^64-1); if so *out is its value. */
bool psi_name_u64(const char *s, uint64_t *out);
/* Key k / value v as an integer, for formats that only have integers:
 * false when it is a name other than an integer's. Value 0 is 0. */
static inline bool psi_history_key_u64(const psi_history *h, uint32_t k, uint64_t *out)
{
    if (!h->key_names) {
        *out = h->keys[k];
        return true;
    }
    return psi_name_u64(h->key_names[k], out);
}
static inline bool psi_history_value_u64(const psi_history *h, uint64_t v, uint64_t *out)
{
    if (!h->value_names || v == 0) {
        *out = v;
        return true;
    }
    return psi_name_u64(h->value_names[v - 1], out);
}
/* Whether the history has names for its keys or values: such a history
 * cannot be written in a format that only has integers. */
static inline bool psi_history_has_names(const psi_history *h)
{
    return h->key_names || h->value_names;
}

static inline const psi_op *psi_txn_ops(const psi_history *h, uint32_t t)
{
    return h->ops + h->txns[t].first_op;
}

/* Index of the transaction that owns op `op` (binary search over txns). */
uint32_t psi_history_op_txn(const psi_history *h, uint32_t op);

/* The last committed transaction before t in t's session, or
 * PSI_INIT_TXN when there is none (the initial transaction precedes every
 * session). Linear in t's position: for explanations, not hot paths. */
uint32_t psi_history_so_prev_committed(const psi_history *h, uint32_t t);

/* The observed list of a PSI_OPF_LIST read, or NULL (and *len = 0). */
const uint64_t *psi_history_list(const psi_history *h, uint32_t op, uint32_t *len);

/* Bytes owned by the history (arrays only), for statistics. */
size_t psi_history_bytes(const psi_history *h);

const char *psi_format_name(psi_format f);
psi_format psi_format_from_name(const char *name); /* PSI_FMT_AUTO if unknown */

/* ---- Building a history (used by the readers and the generator) ----
 *
 * Transactions are given one at a time: begin, any number of ops, end.
 * Sessions may interleave (EDN does). External transaction ids must be
 * unique in the whole history; the builder refuses a repeat. */
typedef struct psi_builder psi_builder;

/* source: path used in diagnostics (copied). */
psi_builder *psi_builder_new(const char *source, psi_format fmt);
void psi_builder_free(psi_builder *b);

psi_status psi_builder_begin(psi_builder *b, uint64_t session_id, uint64_t txn_id, uint64_t src,
                             psi_diag *d);
/* A hint from a reader that knows a bound on the operations to come (from
 * the input's size): room for n operations in one block, so that adding
 * them never copies the array to a block twice as large. Pages are only
 * touched as operations arrive, and psi_builder_finish gives back what is
 * left. False (nothing changed) when n exceeds the model's limit or memory
 * is short: the builder then grows as usual. */
bool psi_builder_reserve_ops(psi_builder *b, uint64_t n);
psi_status psi_builder_op(psi_builder *b, psi_op_kind kind, uint64_t key, uint64_t value,
                          unsigned flags, psi_diag *d);
/* A list-append read observing vals[0..n) (n may be 0: the initial empty list). */
psi_status psi_builder_list_read(psi_builder *b, uint64_t key, const uint64_t *vals, uint32_t n,
                                 psi_diag *d);
psi_status psi_builder_end(psi_builder *b, psi_txn_status st, psi_diag *d);
/* The real-time interval of the transaction begun last (history.h,
 * psi_rt). Once any transaction has one the finished history has rt, and
 * every transaction given none gets {0, PSI_RT_OPEN} (nothing known). */
psi_status psi_builder_set_rt(psi_builder *b, uint64_t invoke, uint64_t complete, psi_diag *d);
/* Start and commit timestamps of the transaction begun last (start <=
 * commit); the others have none. */
psi_status psi_builder_set_ts(psi_builder *b, int64_t start, int64_t commit, psi_diag *d);
/* What the positions given to psi_builder_set_rt are (psi_history.rt_by_index). */
void psi_builder_set_rt_by_index(psi_builder *b, bool by_index);
/* Drops the transaction begun last (e.g. an EDN :info nobody may observe). */
void psi_builder_discard(psi_builder *b);

/* Keys and values by spelling (see the top of this file).
 *
 * A builder starts with integer keys and values: the key and value given to
 * psi_builder_op and psi_builder_list_read are the integers themselves. The
 * first psi_builder_key_named switches it to named keys for good: every key
 * so far gets its decimal spelling, and from then on the key given to
 * psi_builder_op / psi_builder_list_read must be one returned by
 * psi_builder_key_named or psi_builder_key_int (a dense key). Values
 * likewise with psi_builder_value_named / psi_builder_value_int (value ids;
 * 0 stays the initial value). A reader whose keys may be named passes every
 * integer key through psi_builder_key_int (which returns it unchanged while
 * no key is named, so the all-integer path costs one test), and every
 * integer value through psi_builder_value_int.
 *
 * The spelling s[0..len) is copied (the builder owns the copies); it must
 * not be empty and holds no NUL byte. Switching costs one pass over the
 * operations given so far. */
psi_status psi_builder_key_named(psi_builder *b, const char *s, size_t len, uint64_t *key,
                                 psi_diag *d);
psi_status psi_builder_key_int(psi_builder *b, uint64_t ext, uint64_t *key, psi_diag *d);
psi_status psi_builder_value_named(psi_builder *b, const char *s, size_t len, uint64_t *value,
                                   psi_diag *d);
psi_status psi_builder_value_int(psi_builder *b, uint64_t v, uint64_t *value, psi_diag *d);
/* Whether the builder has switched to named keys / values. */
bool psi_builder_keys_named(const psi_builder *b);
bool psi_builder_values_named(const psi_builder *b);
/* For copying (part of) a history h into a new builder b, before any
 * operation is given: b takes copies of h's key and value names, so that a
 * key k and value v of h, given as h->keys[k] and v, mean the same in b. */
psi_status psi_builder_copy_names(psi_builder *b, const psi_history *h, psi_diag *d);

/* Ownership of `meta`'s strings passes to the builder. */
void psi_builder_set_dbcop_meta(psi_builder *b, psi_dbcop_meta *meta);

/* Number of transactions/operations given so far (for readers' limits). */
uint32_t psi_builder_n_txns(const psi_builder *b);
uint32_t psi_builder_n_ops(const psi_builder *b);

/* Finishes and frees the builder (also on failure). On success *out owns the
 * new history. */
psi_status psi_builder_finish(psi_builder *b, psi_history **out, psi_diag *d);

#endif
