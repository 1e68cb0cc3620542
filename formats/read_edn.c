/* Reader for Jepsen / Elle EDN histories (formats.md §4): one EDN map per
 * line, e.g.
 *     {:type :ok, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 2, :index 7}
 *
 * Three layers (edn.h): edn_scan.c parses EDN values into a tree of nodes,
 * edn_lines.c finds the op maps in the file (one per line, perhaps all
 * inside one vector), and this file interprets the op maps and hands
 * transactions to the history builder (named keys and values spelled by
 * edn_spell.c).
 *
 * Interpretation (each choice is deliberate; tests/edn/ pins them down):
 * - Keys used: :type, :f, :process, :value, :index; any other key is ignored.
 *   A map without :type is an error.
 * - An op is a transaction when its :f is :txn or absent, or when its
 *   :value is a list of micro-ops whatever its :f (Jepsen's long-fork
 *   workload uses :f :read with [[:r k nil] ...]), or when it completes an
 *   invoke that was one. Other ops (nemesis ops, :read/:write single-register
 *   ops, :cas ...) and a :process that is a name (keyword, symbol or string:
 *   :nemesis, named processes) make the map skipped. Any other non-integer
 *   :process (1.5, nil, a collection) is an error: such a transaction is
 *   neither a session's nor something to skip.
 * - Ops without :process (Elle's own test histories): an :invoke cannot be
 *   paired with its completion, so it is skipped, and each completion is a
 *   transaction in a session of its own (sessions numbered 0, 1, ... in file
 *   order); the history's note says so. A file that mixes ops with and
 *   without :process is refused: their sessions could not be told apart.
 * - :process is the session. :invoke announces an operation; the next
 *   completion of the same process completes it, and the completion's :value
 *   is used (values filled in). :ok -> committed, :fail -> aborted, :info ->
 *   PSI_TXN_UNKNOWN. An :invoke never completed by the end of the input is
 *   treated like :info. A completion without an invoke is accepted (some
 *   histories hold only completions). A process that invokes again while its
 *   previous operation is pending is an error.
 * - :info reads are unknown (the invoke's nil means "not known", not
 *   "initial"), so every read of an :info transaction is dropped and its
 *   writes are kept. For :fail, reads with a nil value are dropped for the
 *   same reason (the client usually returns the invoke's value); reads with
 *   a value are kept. If a :fail/:info completion has no :value (or nil), the
 *   invoke's :value is used. A completion with `:polysi/reads :observed`
 *   (our writer's mark, write_edn.c) keeps all its reads, nil being the
 *   initial value: it records what an aborted or unknown transaction read.
 * - Micro-ops: [:r k v] (v nil: initial value, PSI_OPF_INIT, also in
 *   list-append histories, where it means the same as []; v a vector or
 *   list: a list-append read, [] being the initial empty list), [:w k v],
 *   [:append k v] (a write with PSI_OPF_APPEND). Any other micro-op (:cas,
 *   :inc, ...) is refused with its place, never dropped.
 * - Keys and values may be any EDN scalar but nil: while all of them are
 *   non-negative integers up to 2^64-1 (hex 0x.. and a trailing N accepted)
 *   they are integers as they always were; a keyword, string, symbol,
 *   negative or huge integer, float, character or boolean makes the
 *   builder intern them by spelling (history.h: exact spellings, no
 *   hashing, so no collisions; integer 7 and keyword :7 are two keys; no
 *   length limit but memory). :process and :index stay integers. Integers
 *   too large for 64 bits there are errors only where a number is used (an
 *   ignored field such as a huge :time is legal EDN and ignored).
 * - Real time (history.h psi_rt): from a :process's :invoke to its
 *   completion (:info or none: open; no invoke: no known start), by the
 *   ops' :index when all have one in order, else by their places in the
 *   file. No invoke at all: rt NULL. :time is not read. A completion's
 *   :start-ts/:commit-ts are the transaction's timestamps (edn_ts.c).
 * - Transaction ids: every transaction's :index (of its completion, or of
 *   its invoke if never completed) when all have one and they are unique;
 *   otherwise the line numbers. txn.src is the line its values came from
 *   (the completion's, or the invoke's if never completed).
 * - An input without any transaction (no map at all, or only nemesis and
 *   other non-:txn ops) is refused as an empty history, as in every format.
 * Diagnostics name the line and the column (in characters) of the value at
 * fault. */
#include "formats/read.h"

#include "core/vec.h"
#include "formats/edn.h"

#include <Judy.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* An :invoke waiting for its completion: where its map is, to parse it
 * again only if its :value is needed. */
typedef struct edn_pending {
    edn_mark at;
    bool active;
    bool has_index;
    uint64_t ord, index; /* its place among the maps (1-based) and :index */
} edn_pending;

/* A transaction's real time (history.h psi_rt), both ways: places among
 * the file's maps (1-based; 0: no invoke) and :index values. */
typedef struct edn_rt {
    uint64_t inv_ord, cmp_ord, inv_index, cmp_index;
    bool inv_indexed, cmp_indexed;
} edn_rt;

/* Per transaction, in builder order: the provisional id (a line number) and
 * its :index, for choosing the ids once everything is read. */
typedef struct edn_txn_id {
    uint64_t line;
    uint64_t index;
    edn_rt rt;
} edn_txn_id;

typedef struct edn_reader {
    edn_parser p;
    edn_lines lines;
    psi_builder *b;
    uint64_t max_ops;
    Pvoid_t pending_index; /* JudyL: process -> slot in pending[] + 1 */
    edn_pending *pending;
    size_t n_pending, cap_pending;
    edn_txn_id *ids;
    size_t n_ids, cap_ids;
    bool all_indexed; /* every transaction so far has an :index */
    /* Real time of the transaction add_txn hands over next (set by the
     * caller; has_rt false: none, as without :process). rt_known: some
     * transaction had an :invoke, so real time says something; rt_indexed:
     * every invoke and completion so far had an :index. */
    edn_rt cur_rt;
    bool has_rt, rt_known, rt_indexed;
    /* Timestamps of the transaction add_txn hands over next (get_ts). */
    bool has_ts;
    int64_t ts_start, ts_commit;
    uint64_t *vals; /* scratch for a list read */
    size_t cap_vals;
    /* The builder switched to named keys / values (psi_builder_keys_named),
     * cached so that the all-integer path makes no call. */
    bool keys_named, values_named;
    uint64_t n_maps;              /* maps seen (any kind) */
    uint64_t n_processless;       /* transactions without :process */
    bool seen_process;            /* a transaction with an integer :process */
    const psi_progress *progress; /* may be NULL */
    size_t len;                   /* of the input, for progress */
} edn_reader;

enum edn_type { T_INVOKE, T_OK, T_FAIL, T_INFO };

/* The fields of an op map that matter; 0 when absent. */
typedef struct edn_op {
    uint32_t map, type, f, process, value, index, reads, start_ts, commit_ts;
} edn_op;

static psi_status op_fields(edn_parser *p, uint32_t map, edn_op *op)
{
    static const char *const names[] = {"type",         "f",        "process",  "value", "index",
                                        "polysi/reads", "start-ts", "commit-ts"};
    memset(op, 0, sizeof *op);
    op->map = map;
    uint32_t *slots[] = {&op->type,  &op->f,     &op->process,  &op->value,
                         &op->index, &op->reads, &op->start_ts, &op->commit_ts};
    for (uint32_t k = p->nodes[map].child; k; k = p->nodes[p->nodes[k].next].next) {
        uint32_t v = p->nodes[k].next;
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            if (!edn_keyword_is(p, k, names[i]))
                continue;
            if (*slots[i])
                return edn_error(p, PSI_ERR_SYNTAX, p->nodes[k].pos, "duplicate key :%s in the map",
                                 names[i]);
            *slots[i] = v;
        }
    }
    return PSI_OK;
}

/* Why node nd is not a non-negative integer that fits 64 bits. Kept out
 * of get_u64 (cold, never inlined) so that its every-number path stays a
 * few instructions with no registers to save. */
static psi_status not_u64(const edn_parser *p, const edn_node *nd, const char *what)
    __attribute__((cold, noinline));

static psi_status not_u64(const edn_parser *p, const edn_node *nd, const char *what)
{
    if (nd->kind != EDN_INT) {
        if (nd->kind == EDN_NIL || nd->kind >= EDN_MAP) /* no text worth quoting */
            return edn_error(p, PSI_ERR_SYNTAX, nd->pos, "expected an integer %s, found %s", what,
                             edn_kind_name(nd->kind));
        return edn_error(p, PSI_ERR_SYNTAX, nd->pos, "expected an integer %s, found %s '%.*s'",
                         what, edn_kind_name(nd->kind), EDN_NODE_TEXT(p, nd));
    }
    if (nd->big)
        return edn_error(p, PSI_ERR_SYNTAX, nd->pos,
                         "integer %s '%.*s' does not fit 64 bits (at most 18446744073709551615)",
                         what, EDN_NODE_TEXT(p, nd));
    return edn_error(p, PSI_ERR_SYNTAX, nd->pos,
                     "negative %s '%.*s' is not supported (must be a non-negative integer)", what,
                     EDN_NODE_TEXT(p, nd));
}

/* A non-negative integer that fits 64 bits, or an error naming its place. */
static psi_status get_u64(const edn_parser *p, uint32_t n, const char *what, uint64_t *out)
{
    const edn_node *nd = &p->nodes[n];
    if (nd->kind != EDN_INT || nd->big || (nd->neg && nd->u != 0))
        return not_u64(p, nd, what);
    *out = nd->u;
    return PSI_OK;
}

static psi_status check_limit(edn_reader *r, size_t pos)
{
    if (r->max_ops && psi_builder_n_ops(r->b) > r->max_ops)
        return edn_error(&r->p, PSI_ERR_LIMIT, pos,
                         "more than %llu operations (the configured limit)",
                         (unsigned long long)r->max_ops);
    return PSI_OK;
}

/* Keys and values (history.h): a non-negative integer that fits 64 bits
 * is an integer (7, 0x7 and 7N alike); a keyword, string, symbol, boolean
 * or negative integer is a name spelled as written (:x, "acct 1", foo,
 * true; a negative integer as -DECIMAL whatever its base). Floats,
 * characters and integers beyond 64 bits are refused: one of them has
 * several spellings (1.0, 1.00; \a, \u0061), and interning by spelling
 * would make them different values, so a read could miss its writer. */
static bool is_u64(const edn_node *nd)
{
    return nd->kind == EDN_INT && !nd->big && !(nd->neg && nd->u != 0);
}

static psi_status not_scalar(const edn_parser *p, const edn_node *nd, const char *what)
    __attribute__((cold, noinline));

static psi_status not_scalar(const edn_parser *p, const edn_node *nd, const char *what)
{
    if (nd->kind == EDN_INT && nd->big)
        return not_u64(p, nd, what);
    if (nd->len == UINT32_MAX)
        return edn_error(p, PSI_ERR_LIMIT, nd->pos, "%s '%.*s...' is too long (4 GB or more)", what,
                         EDN_NODE_TEXT(p, nd));
    if (nd->kind == EDN_NIL || nd->kind >= EDN_MAP) /* no text worth quoting */
        return edn_error(p, PSI_ERR_SYNTAX, nd->pos,
                         "expected a %s (an integer, keyword, string or symbol), found %s", what,
                         edn_kind_name(nd->kind));
    return edn_error(p, PSI_ERR_SYNTAX, nd->pos,
                     "expected a %s (an integer, keyword, string or symbol), found %s '%.*s'", what,
                     edn_kind_name(nd->kind), EDN_NODE_TEXT(p, nd));
}

/* Checks that node n can be a key or value (without interning it). */
static psi_status check_scalar(const edn_parser *p, uint32_t n, const char *what)
{
    const edn_node *nd = &p->nodes[n];
    bool ok = (nd->kind == EDN_INT && !nd->big) || nd->kind == EDN_KEYWORD ||
              nd->kind == EDN_STRING || nd->kind == EDN_SYMBOL || nd->kind == EDN_BOOL;
    return ok && nd->len != UINT32_MAX ? PSI_OK : not_scalar(p, nd, what);
}

/* Interns node n as a key (named: the builder's dense key). */
static psi_status get_key(edn_reader *r, uint32_t n, uint64_t *out)
{
    edn_parser *p = &r->p;
    const edn_node *nd = &p->nodes[n];
    if (is_u64(nd)) {
        if (!r->keys_named) {
            *out = nd->u;
            return PSI_OK;
        }
        return psi_builder_key_int(r->b, nd->u, out, p->d);
    }
    psi_status st = check_scalar(p, n, "key");
    if (st != PSI_OK)
        return st;
    char buf[24];
    size_t len;
    const char *s = edn_name_spelling(p, nd, buf, &len);
    if (!s)
        return p->d->status;
    r->keys_named = true; /* on failure too: the read stops there */
    return psi_builder_key_named(r->b, s, len, out, p->d);
}

/* Interns node n as a value (named: an id >= 1; 0 is nil, never here). */
static psi_status get_value(edn_reader *r, uint32_t n, const char *what, uint64_t *out)
{
    edn_parser *p = &r->p;
    const edn_node *nd = &p->nodes[n];
    if (is_u64(nd)) {
        if (!r->values_named) {
            *out = nd->u;
            return PSI_OK;
        }
        return psi_builder_value_int(r->b, nd->u, out, p->d);
    }
    psi_status st = check_scalar(p, n, what);
    if (st != PSI_OK)
        return st;
    char buf[24];
    size_t len;
    const char *s = edn_name_spelling(p, nd, buf, &len);
    if (!s)
        return p->d->status;
    r->values_named = true;
    return psi_builder_value_named(r->b, s, len, out, p->d);
}

/* One micro-op [:f k v] of a transaction with status `status`; `observed`:
 * its completion says its reads are what was observed (:polysi/reads
 * :observed), so none of them is "not known". */
static psi_status add_micro_op(edn_reader *r, uint32_t mop, psi_txn_status status, bool observed)
{
    edn_parser *p = &r->p;
    const edn_node *m = &p->nodes[mop];
    if (m->kind != EDN_VECTOR)
        return edn_error(p, PSI_ERR_SYNTAX, m->pos,
                         "expected a micro-op such as [:r 1 nil] or [:w 1 2], found %s",
                         edn_kind_name(m->kind));
    uint32_t fn = m->child;
    if (!fn || !edn_is_name(p, fn))
        return edn_error(p, PSI_ERR_SYNTAX, fn ? p->nodes[fn].pos : m->pos,
                         "a micro-op starts with :r, :w or :append");
    bool is_r = edn_keyword_is(p, fn, "r"), is_w = edn_keyword_is(p, fn, "w"),
         is_app = edn_keyword_is(p, fn, "append");
    if (!is_r && !is_w && !is_app)
        return edn_error(p, PSI_ERR_INPUT, p->nodes[fn].pos,
                         "unsupported micro-op '%.*s' (this reader knows :r, :w and :append)",
                         EDN_NODE_TEXT(p, &p->nodes[fn]));
    if (m->count != 3)
        return edn_error(p, PSI_ERR_SYNTAX, m->pos,
                         "micro-op '%.*s' has %u elements, expected 3 ([%.*s key value])",
                         EDN_NODE_TEXT(p, &p->nodes[fn]), (unsigned)m->count,
                         EDN_NODE_TEXT(p, &p->nodes[fn]));
    uint32_t kn = p->nodes[fn].next, vn = p->nodes[kn].next;
    uint64_t key = 0, val = 0;
    const edn_node *v = &p->nodes[vn];
    /* A read that is dropped names no key or value: interning them would
     * add keys and values that no operation has. */
    bool keep = !is_r || status == PSI_TXN_COMMITTED || observed ||
                (status == PSI_TXN_ABORTED && v->kind != EDN_NIL);
    psi_status st = keep ? get_key(r, kn, &key) : check_scalar(p, kn, "key");
    if (st != PSI_OK)
        return st;

    if (!is_r) {
        if ((st = get_value(r, vn, "value", &val)) != PSI_OK)
            return st;
        st = psi_builder_op(r->b, PSI_OP_WRITE, key, val, is_app ? PSI_OPF_APPEND : 0u, p->d);
        return st != PSI_OK ? st : check_limit(r, m->pos);
    }

    /* A read: nil, a scalar, or a list-append read's vector/list. */
    if (v->kind == EDN_NIL) {
        if (keep)
            st = psi_builder_op(r->b, PSI_OP_READ, key, 0, PSI_OPF_INIT, p->d);
    } else if (v->kind == EDN_VECTOR || v->kind == EDN_LIST) {
        uint32_t n = v->count;
        if (!psi_grow((void **)&r->vals, &r->cap_vals, n ? n : 1, sizeof *r->vals))
            return psi_diag_nomem(p->d, "reading a list");
        uint32_t i = 0;
        for (uint32_t e = v->child; e; e = p->nodes[e].next)
            if ((st = keep ? get_value(r, e, "list element", &r->vals[i++])
                           : check_scalar(p, e, "list element")) != PSI_OK)
                return st;
        if (keep)
            st = psi_builder_list_read(r->b, key, r->vals, n, p->d);
    } else {
        const char *what = "value read (or nil, or a list)";
        if ((st = keep ? get_value(r, vn, what, &val) : check_scalar(p, vn, what)) != PSI_OK)
            return st;
        if (keep)
            st = psi_builder_op(r->b, PSI_OP_READ, key, val, 0, p->d);
    }
    return st != PSI_OK ? st : check_limit(r, m->pos);
}

/* Hands one transaction to the builder. `value` (0: none) is in the line
 * the parser's context currently names; `src` is the line the transaction
 * is attributed to (and its provisional id). */
static psi_status add_txn(edn_reader *r, uint64_t session, uint32_t value, psi_txn_status status,
                          bool observed, bool has_index, uint64_t index, uint64_t src)
{
    edn_parser *p = &r->p;
    if (value && p->nodes[value].kind != EDN_VECTOR && p->nodes[value].kind != EDN_LIST)
        return edn_error(p, PSI_ERR_SYNTAX, p->nodes[value].pos,
                         "expected :value to be a vector of micro-ops such as [[:r 1 nil] [:w 1 "
                         "2]], found %s",
                         edn_kind_name(p->nodes[value].kind));
    if (!psi_grow((void **)&r->ids, &r->cap_ids, r->n_ids + 1, sizeof *r->ids))
        return psi_diag_nomem(p->d, "reading EDN transactions");
    r->ids[r->n_ids++] = (edn_txn_id){.line = src, .index = index, .rt = r->cur_rt};
    r->all_indexed = r->all_indexed && has_index;

    psi_status st = psi_builder_begin(r->b, session, src, src, p->d);
    if (st != PSI_OK)
        return st;
    if (r->has_ts) {
        r->has_ts = false;
        if ((st = psi_builder_set_ts(r->b, r->ts_start, r->ts_commit, p->d)) != PSI_OK)
            return st;
    }
    if (r->has_rt) {
        /* Places among the maps for now; choose_rt may switch to :index. */
        const edn_rt *t = &r->cur_rt;
        uint64_t cmp = t->cmp_ord ? t->cmp_ord : PSI_RT_OPEN;
        r->rt_known = r->rt_known || t->inv_ord;
        r->rt_indexed =
            r->rt_indexed && (!t->inv_ord || t->inv_indexed) && (!t->cmp_ord || t->cmp_indexed);
        if ((st = psi_builder_set_rt(r->b, t->inv_ord, cmp, p->d)) != PSI_OK)
            return st;
    }
    for (uint32_t e = value ? p->nodes[value].child : 0; e; e = p->nodes[e].next)
        if ((st = add_micro_op(r, e, status, observed)) != PSI_OK)
            return st;
    return psi_builder_end(r->b, status, p->d);
}

/* The completion's :start-ts and :commit-ts (edn_timestamps). */
static psi_status get_ts(edn_reader *r, const edn_op *op)
{
    return edn_timestamps(&r->p, op->start_ts, op->commit_ts, &r->has_ts, &r->ts_start,
                          &r->ts_commit);
}

static psi_status get_index(const edn_parser *p, const edn_op *op, bool *has, uint64_t *index)
{
    *has = op->index != 0;
    *index = 0;
    return *has ? get_u64(p, op->index, ":index", index) : PSI_OK;
}

/* Parses a pending invoke's map again (appending to the arena) and points
 * the parser's context at its line. */
static psi_status reparse_invoke(edn_reader *r, const edn_pending *pd, edn_op *op)
{
    uint32_t root;
    psi_status st = edn_reparse(&r->p, &pd->at, &root);
    if (st != PSI_OK)
        return st;
    return op_fields(&r->p, root, op);
}

/* Whether op is a transaction by itself: :f :txn or absent, or a :value
 * that is a list of micro-ops (its first element a vector starting with
 * :r, :w or :append; the others are checked when the ops are read). */
static bool is_txn_op(const edn_parser *p, const edn_op *op)
{
    if (!op->f || edn_keyword_is(p, op->f, "txn"))
        return true;
    if (!op->value)
        return false;
    const edn_node *v = &p->nodes[op->value];
    if ((v->kind != EDN_VECTOR && v->kind != EDN_LIST) || !v->child)
        return false;
    const edn_node *m = &p->nodes[v->child];
    if (m->kind != EDN_VECTOR || !m->child)
        return false;
    return edn_keyword_is(p, m->child, "r") || edn_keyword_is(p, m->child, "w") ||
           edn_keyword_is(p, m->child, "append");
}

/* Whether the completion carries our writer's :polysi/reads :observed. */
static psi_status get_observed(const edn_parser *p, const edn_op *op, bool *observed)
{
    *observed = op->reads != 0;
    if (op->reads && !edn_keyword_is(p, op->reads, "observed"))
        return edn_error(p, PSI_ERR_SYNTAX, p->nodes[op->reads].pos,
                         ":polysi/reads must be :observed, found '%.*s'",
                         EDN_NODE_TEXT(p, &p->nodes[op->reads]));
    return PSI_OK;
}

static psi_status mixed_processes(edn_reader *r, const edn_op *op)
{
    return edn_error(&r->p, PSI_ERR_INPUT, r->p.nodes[op->map].pos,
                     "%s: some transactions have a :process and some have none; their sessions "
                     "cannot be told apart",
                     op->process ? "this transaction has a :process" : "this transaction has none");
}

/* An op without :process: a completion is a transaction of its own session
 * (see the file comment); an invoke cannot be paired, so it is skipped. */
static psi_status handle_processless(edn_reader *r, const edn_op *op, enum edn_type type,
                                     uint64_t line)
{
    edn_parser *p = &r->p;
    if (!is_txn_op(p, op) || type == T_INVOKE)
        return PSI_OK;
    if (r->seen_process)
        return mixed_processes(r, op);
    if (!op->value || p->nodes[op->value].kind == EDN_NIL)
        return edn_error(p, PSI_ERR_SYNTAX, p->nodes[op->map].pos,
                         "a transaction without :process needs a :value of micro-ops (there is "
                         "no :invoke to take them from)");
    bool has_index;
    uint64_t index;
    psi_status st = get_index(p, op, &has_index, &index);
    if (st != PSI_OK)
        return st;
    bool observed;
    if ((st = get_observed(p, op, &observed)) != PSI_OK || (st = get_ts(r, op)) != PSI_OK)
        return st;
    psi_txn_status status = type == T_OK     ? PSI_TXN_COMMITTED
                            : type == T_FAIL ? PSI_TXN_ABORTED
                                             : PSI_TXN_UNKNOWN;
    return add_txn(r, r->n_processless++, op->value, status, observed, has_index, index, line);
}

/* One op map of the input, found at `at`. */
static psi_status handle_map(edn_reader *r, uint32_t root, const edn_mark *at)
{
    edn_parser *p = &r->p;
    r->n_maps++;
    edn_op op;
    psi_status st;
    if ((st = op_fields(p, root, &op)) != PSI_OK)
        return st;
    const edn_node *m = &p->nodes[root];
    if (!op.type)
        return edn_error(p, PSI_ERR_SYNTAX, m->pos, "the map has no :type");
    enum edn_type type;
    if (edn_keyword_is(p, op.type, "invoke"))
        type = T_INVOKE;
    else if (edn_keyword_is(p, op.type, "ok"))
        type = T_OK;
    else if (edn_keyword_is(p, op.type, "fail"))
        type = T_FAIL;
    else if (edn_keyword_is(p, op.type, "info"))
        type = T_INFO;
    else
        return edn_error(p, PSI_ERR_SYNTAX, p->nodes[op.type].pos,
                         "unknown :type '%.*s' (expected :invoke, :ok, :fail or :info)",
                         EDN_NODE_TEXT(p, &p->nodes[op.type]));
    if (!op.process)
        return handle_processless(r, &op, type, at->line);
    uint8_t pk = p->nodes[op.process].kind;
    if (pk == EDN_KEYWORD || pk == EDN_SYMBOL || pk == EDN_STRING)
        return PSI_OK; /* :nemesis or another named process */
    if (pk != EDN_INT) /* 1.5, nil, [..]: not a session, and not a name to skip */
        return edn_error(p, PSI_ERR_SYNTAX, p->nodes[op.process].pos,
                         "a transaction's :process must be an integer (its session) or a name "
                         "such as :nemesis");
    uint64_t process;
    if ((st = get_u64(p, op.process, ":process", &process)) != PSI_OK)
        return st;
    bool is_txn = is_txn_op(p, &op);
    if (!is_txn && !(type != T_INVOKE && (!op.value || p->nodes[op.value].kind == EDN_NIL)))
        return PSI_OK; /* not a transaction: nemesis and other ops */
    /* A completion without :value of a non-:txn :f is a transaction only if
     * it completes one (checked below, once its invoke is found). */
    if (r->n_processless)
        return mixed_processes(r, &op);
    r->seen_process = true;
    bool has_index;
    uint64_t index;
    if ((st = get_index(p, &op, &has_index, &index)) != PSI_OK)
        return st;

    Word_t *slot;
    JLI(slot, r->pending_index, (Word_t)process);
    if (slot == PJERR)
        return psi_diag_nomem(p->d, "indexing EDN processes");
    if (*slot == 0) {
        if (!psi_grow((void **)&r->pending, &r->cap_pending, r->n_pending + 1, sizeof *r->pending))
            return psi_diag_nomem(p->d, "reading EDN operations");
        r->pending[r->n_pending++] = (edn_pending){0};
        *slot = (Word_t)r->n_pending;
    }
    edn_pending *pd = &r->pending[*slot - 1];

    if (type == T_INVOKE) {
        if (pd->active)
            return edn_error(p, PSI_ERR_INPUT, m->pos,
                             "process %llu invokes a new operation while its operation invoked "
                             "on line %llu has not completed",
                             (unsigned long long)process, (unsigned long long)pd->at.line);
        *pd = (edn_pending){
            .at = *at, .active = true, .has_index = has_index, .ord = r->n_maps, .index = index};
        return PSI_OK;
    }

    psi_txn_status status = type == T_OK     ? PSI_TXN_COMMITTED
                            : type == T_FAIL ? PSI_TXN_ABORTED
                                             : PSI_TXN_UNKNOWN;
    /* Only the completion's own :value can be observed; the invoke's reads
     * are always "not known". */
    bool observed;
    if ((st = get_observed(p, &op, &observed)) != PSI_OK || (st = get_ts(r, &op)) != PSI_OK)
        return st;
    uint32_t value = op.value;
    bool had_invoke = pd->active;
    if (!is_txn && !had_invoke)
        return PSI_OK; /* e.g. {:type :fail, :f :read, :process 3} of a register */
    edn_pending inv = *pd;
    pd->active = false;
    if (!value || p->nodes[value].kind == EDN_NIL) {
        if (type == T_OK)
            return edn_error(p, PSI_ERR_SYNTAX, value ? p->nodes[value].pos : m->pos,
                             "an :ok transaction needs a :value of micro-ops");
        value = 0;
        observed = false;
        if (had_invoke) {
            /* Fall back on the invoke's micro-ops; errors in them name the
             * invoke's line, the transaction is still this line's. */
            edn_op iop;
            if ((st = reparse_invoke(r, &inv, &iop)) != PSI_OK)
                return st;
            if (iop.value && p->nodes[iop.value].kind != EDN_NIL)
                value = iop.value;
        }
    }
    /* Real time: an :info completion says nothing about when it took
     * effect, so its completion stays open. */
    r->has_rt = true;
    r->cur_rt = (edn_rt){.inv_ord = had_invoke ? inv.ord : 0,
                         .inv_index = inv.index,
                         .inv_indexed = had_invoke && inv.has_index,
                         .cmp_ord = type == T_INFO ? 0 : r->n_maps,
                         .cmp_index = index,
                         .cmp_indexed = has_index};
    return add_txn(r, process, value, status, observed, has_index, index, at->line);
}

/* Invokes never completed: outcome unknown, like :info. */
static psi_status finish_pending(edn_reader *r)
{
    Word_t process = 0;
    Word_t *slot;
    JLF(slot, r->pending_index, process);
    while (slot) {
        edn_pending *pd = &r->pending[*slot - 1];
        if (pd->active) {
            edn_clear_nodes(&r->p);
            edn_op op;
            psi_status st = reparse_invoke(r, pd, &op);
            if (st != PSI_OK)
                return st;
            bool has_index;
            uint64_t index;
            if ((st = get_index(&r->p, &op, &has_index, &index)) != PSI_OK)
                return st;
            uint32_t value = op.value && r->p.nodes[op.value].kind != EDN_NIL ? op.value : 0;
            r->has_rt = true;
            r->has_ts = false;
            r->cur_rt =
                (edn_rt){.inv_ord = pd->ord, .inv_index = pd->index, .inv_indexed = pd->has_index};
            st = add_txn(r, (uint64_t)process, value, PSI_TXN_UNKNOWN, false, has_index, index,
                         pd->at.line);
            if (st != PSI_OK)
                return st;
        }
        JLN(slot, r->pending_index, process);
    }
    return PSI_OK;
}

static int cmp_id_line(const void *a, const void *b)
{
    uint64_t x = ((const edn_txn_id *)a)->line, y = ((const edn_txn_id *)b)->line;
    return (x > y) - (x < y);
}

static int cmp_id_index(const void *a, const void *b)
{
    uint64_t x = ((const edn_txn_id *)a)->index, y = ((const edn_txn_id *)b)->index;
    return (x > y) - (x < y);
}

/* Real time by :index when every invoke and completion has one and each
 * completion's comes after its invoke's (Jepsen's histories); else by the
 * places in the file, which are in real-time order in Jepsen's histories
 * too. No invoke at all: nothing is known, no real time. Needs r->ids
 * sorted by line. */
static void choose_rt(edn_reader *r, psi_history *h)
{
    if (!h->rt)
        return;
    if (!r->rt_known) {
        free(h->rt);
        h->rt = NULL;
        return;
    }
    for (size_t i = 0; i < r->n_ids && r->rt_indexed; i++) {
        const edn_rt *t = &r->ids[i].rt;
        if (t->inv_ord && t->cmp_ord && t->cmp_index < t->inv_index)
            r->rt_indexed = false;
    }
    if (!r->rt_indexed)
        return;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        edn_txn_id key = {.line = h->txns[t].src};
        const edn_txn_id *hit = bsearch(&key, r->ids, r->n_ids, sizeof *r->ids, cmp_id_line);
        assert(hit); /* every transaction was given by add_txn */
        const edn_rt *x = &hit->rt;
        /* An :index of 0 on an invoke is still a known invoke: nothing
         * completes before it, so it means the same as unknown. */
        h->rt[t] = (psi_rt){x->inv_ord ? x->inv_index : 0, x->cmp_ord ? x->cmp_index : PSI_RT_OPEN};
    }
    h->rt_by_index = true;
}

/* Replaces the provisional (line number) ids by :index values when every
 * transaction has one and they are unique. */
static void choose_ids(edn_reader *r, psi_history *h)
{
    if (r->n_ids)
        qsort(r->ids, r->n_ids, sizeof *r->ids, cmp_id_line);
    choose_rt(r, h);
    if (!r->all_indexed || r->n_ids == 0)
        return;
    qsort(r->ids, r->n_ids, sizeof *r->ids, cmp_id_index);
    for (size_t i = 1; i < r->n_ids; i++)
        if (r->ids[i].index == r->ids[i - 1].index)
            return;
    qsort(r->ids, r->n_ids, sizeof *r->ids, cmp_id_line);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        edn_txn_id key = {.line = h->txns[t].id};
        const edn_txn_id *hit = bsearch(&key, r->ids, r->n_ids, sizeof *r->ids, cmp_id_line);
        if (hit)
            h->txns[t].id = hit->index;
    }
}

static void reader_free(edn_reader *r)
{
    JudyLFreeArray(&r->pending_index, PJE0); /* not JLFA: clang -Wsign-compare */
    free(r->pending);
    free(r->ids);
    free(r->vals);
    edn_parser_free(&r->p);
    psi_builder_free(r->b);
}

psi_status psi_read_edn_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                            psi_history **out, psi_diag *d)
{
    return psi_read_edn_mem(name, buf, len, max_ops, NULL, out, d);
}

/* EDN, or Jepsen JSON when `json` (json_scan.c: the same operations). */
static psi_status read_jepsen(const char *name, const char *buf, size_t len, uint64_t max_ops,
                              bool json, const psi_progress *progress, psi_history **out,
                              psi_diag *d)
{
    *out = NULL;
    name = psi_input_name(name);
    edn_reader r = {.max_ops = max_ops,
                    .all_indexed = true,
                    .rt_indexed = true,
                    .progress = progress,
                    .len = len};
    edn_parser_init(&r.p, name, buf, d);
    r.p.json = json;
    edn_lines_init(&r.lines, buf, len);
    r.b = psi_builder_new(name, json ? PSI_FMT_JSON : PSI_FMT_EDN);
    if (!r.b)
        return psi_diag_nomem(d, "starting an EDN history");

    psi_status st;
    uint32_t root;
    edn_mark at;
    while ((st = edn_next_map(&r.lines, &r.p, &root, &at)) == PSI_OK && root) {
        if ((st = handle_map(&r, root, &at)) != PSI_OK)
            break;
        if (progress && (r.n_maps & (PSI_INPUT_PROGRESS_EVERY - 1)) == 0)
            psi_progress_report(progress, "load", at.end, len, 0);
    }
    if (st == PSI_OK)
        st = finish_pending(&r);
    if (st == PSI_OK && r.n_maps == 0)
        st = psi_diag_line(d, PSI_ERR_INPUT, name, 1, 1, "%s",
                           json ? "empty history: no JSON object in the file (one operation "
                                  "object per line, or an array of them, expected)"
                                : "empty history: no EDN map in the file (one operation map per "
                                  "line expected)");
    if (st == PSI_OK && psi_builder_n_txns(r.b) == 0)
        st = psi_diag_line(d, PSI_ERR_INPUT, name, 1, 1,
                           "empty history: no transaction (no :f :txn operation, or list of "
                           "micro-ops, of an integer :process) in the file");
    if (st != PSI_OK) {
        reader_free(&r);
        return st;
    }
    psi_history *h;
    st = psi_builder_finish(r.b, &h, d);
    r.b = NULL; /* finish freed it */
    if (st == PSI_OK) {
        choose_ids(&r, h);
        if (r.n_processless)
            h->note = "no :process in the input: each transaction is its own session";
        *out = h;
    }
    reader_free(&r);
    return st;
}

psi_status psi_read_edn_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                            const psi_progress *progress, psi_history **out, psi_diag *d)
{
    return read_jepsen(name, buf, len, max_ops, false, progress, out, d);
}

psi_status psi_read_json_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             const psi_progress *progress, psi_history **out, psi_diag *d)
{
    return read_jepsen(name, buf, len, max_ops, true, progress, out, d);
}

psi_status psi_read_json_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             psi_history **out, psi_diag *d)
{
    return read_jepsen(name, buf, len, max_ops, true, NULL, out, d);
}
