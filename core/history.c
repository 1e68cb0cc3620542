/* The history model and its builder: readers hand transactions over one at a
 * time; finishing groups them by session (sessions sorted by external id,
 * transactions in the order given) behind the implicit initial transaction.
 * Operations are never moved: each transaction's ops are contiguous because
 * a transaction is given whole before the next begins. */
#include "core/history.h"

#include "core/vec.h"

#include <Judy.h>
#include <stdlib.h>
#include <string.h>

struct psi_builder {
    char *source;
    psi_format format;

    psi_txn *txns; /* txns[0] reserved for the initial transaction */
    size_t n_txns, cap_txns;
    psi_op *ops;
    size_t n_ops, cap_ops;
    uint64_t *keys;
    size_t n_keys, cap_keys;
    psi_list_read *lists;
    size_t n_lists, cap_lists;
    uint64_t *list_vals;
    size_t n_list_vals, cap_list_vals;
    psi_session *sessions; /* id only until finish */
    size_t n_sessions, cap_sessions;

    Pvoid_t key_index;     /* JudyL: external key -> dense key + 1 */
    Pvoid_t session_index; /* JudyL: external session id -> dense session + 1 */
    Pvoid_t txn_index;     /* JudyL: external txn id -> txn index */

    bool open; /* a transaction has begun and not ended */
    psi_dbcop_meta dbcop;
};

static void meta_free(psi_dbcop_meta *m)
{
    free(m->info);
    free(m->start);
    free(m->end);
    memset(m, 0, sizeof *m);
}

psi_builder *psi_builder_new(const char *source, psi_format fmt)
{
    psi_builder *b = calloc(1, sizeof *b);
    if (!b)
        return NULL;
    b->source = strdup(source ? source : "<input>");
    b->format = fmt;
    if (!b->source || !psi_grow((void **)&b->txns, &b->cap_txns, 1, sizeof *b->txns)) {
        psi_builder_free(b);
        return NULL;
    }
    memset(&b->txns[0], 0, sizeof b->txns[0]);
    b->txns[0].session = PSI_NO_SESSION;
    b->n_txns = 1;
    return b;
}

void psi_builder_free(psi_builder *b)
{
    if (!b)
        return;
    /* JudyLFreeArray rather than the JLFA macro, which trips clang's
     * -Wsign-compare. */
    JudyLFreeArray(&b->key_index, PJE0);
    JudyLFreeArray(&b->session_index, PJE0);
    JudyLFreeArray(&b->txn_index, PJE0);
    free(b->source);
    free(b->txns);
    free(b->ops);
    free(b->keys);
    free(b->lists);
    free(b->list_vals);
    free(b->sessions);
    meta_free(&b->dbcop);
    free(b);
}

void psi_builder_set_dbcop_meta(psi_builder *b, psi_dbcop_meta *meta)
{
    meta_free(&b->dbcop);
    b->dbcop = *meta;
    memset(meta, 0, sizeof *meta);
}

uint32_t psi_builder_n_txns(const psi_builder *b)
{
    return (uint32_t)(b->n_txns - 1);
}

uint32_t psi_builder_n_ops(const psi_builder *b)
{
    return (uint32_t)b->n_ops;
}

/* Judy reports allocation failure through PJERR; we treat it as NOMEM. */
static psi_status intern(Pvoid_t *index, uint64_t ext, size_t *count, size_t *dense, bool *is_new,
                         psi_diag *d)
{
    Word_t *slot;
    JLI(slot, *index, (Word_t)ext);
    if (slot == PJERR)
        return psi_diag_nomem(d, "indexing the history");
    *is_new = (*slot == 0);
    if (*is_new)
        *slot = (Word_t)(++*count);
    *dense = (size_t)(*slot - 1);
    return PSI_OK;
}

psi_status psi_builder_begin(psi_builder *b, uint64_t session_id, uint64_t txn_id, uint64_t src,
                             psi_diag *d)
{
    if (b->open)
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: transaction begun inside another", b->source);
    if (b->n_txns > PSI_MAX_TXNS)
        return psi_diag_set(d, PSI_ERR_LIMIT, "%s: more than %u transactions", b->source,
                            (unsigned)PSI_MAX_TXNS);

    Word_t *slot;
    JLI(slot, b->txn_index, (Word_t)txn_id);
    if (slot == PJERR)
        return psi_diag_nomem(d, "indexing transactions");
    if (*slot != 0) {
        /* src is a line (text formats) or a byte offset (binary ones):
         * name the place the way the format's own errors do. */
        const psi_txn *prev = &b->txns[*slot];
        unsigned long long id = (unsigned long long)txn_id, at = (unsigned long long)prev->src;
        if (b->format == PSI_FMT_TEXT || psi_format_is_jepsen(b->format) ||
            b->format == PSI_FMT_AWDIT)
            return psi_diag_line(d, PSI_ERR_INPUT, b->source, src, 1,
                                 "transaction id %llu repeats the id of the transaction at line "
                                 "%llu; transaction ids must be unique",
                                 id, at);
        if (b->format == PSI_FMT_DBCOP)
            return psi_diag_offset(d, PSI_ERR_INPUT, b->source, src,
                                   "transaction id %llu repeats the id of the transaction at "
                                   "byte %llu; transaction ids must be unique",
                                   id, at);
        /* Cobra: src is an offset into one of several logs, which only the
         * reader knows; it puts the place in front. */
        return psi_diag_set(d, PSI_ERR_INPUT,
                            "transaction id %llu repeats the id of the transaction at byte %llu "
                            "of its log; transaction ids must be unique",
                            id, at);
    }
    if (!psi_grow((void **)&b->txns, &b->cap_txns, b->n_txns + 1, sizeof *b->txns)) {
        int rc;
        JLD(rc, b->txn_index, (Word_t)txn_id);
        (void)rc;
        return psi_diag_nomem(d, "storing transactions");
    }

    size_t sess;
    bool fresh;
    psi_status st = intern(&b->session_index, session_id, &b->n_sessions, &sess, &fresh, d);
    if (st != PSI_OK)
        return st;
    if (fresh) {
        if (!psi_grow((void **)&b->sessions, &b->cap_sessions, b->n_sessions, sizeof *b->sessions))
            return psi_diag_nomem(d, "storing sessions");
        b->sessions[sess] = (psi_session){.id = session_id};
    }

    *slot = (Word_t)b->n_txns;
    psi_txn *t = &b->txns[b->n_txns++];
    *t = (psi_txn){.id = txn_id,
                   .src = src,
                   .session = (uint32_t)sess,
                   .first_op = (uint32_t)b->n_ops,
                   .status = PSI_TXN_COMMITTED};
    b->open = true;
    return PSI_OK;
}

static psi_status add_op(psi_builder *b, psi_op_kind kind, uint64_t key, uint64_t value,
                         unsigned flags, psi_diag *d)
{
    if (!b->open)
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: operation outside a transaction", b->source);
    if (b->n_ops >= PSI_MAX_OPS)
        return psi_diag_set(d, PSI_ERR_LIMIT, "%s: more than %u operations", b->source,
                            (unsigned)PSI_MAX_OPS);
    if (!psi_grow((void **)&b->ops, &b->cap_ops, b->n_ops + 1, sizeof *b->ops))
        return psi_diag_nomem(d, "storing operations");
    size_t k;
    bool fresh;
    psi_status st = intern(&b->key_index, key, &b->n_keys, &k, &fresh, d);
    if (st != PSI_OK)
        return st;
    if (fresh) {
        if (!psi_grow((void **)&b->keys, &b->cap_keys, b->n_keys, sizeof *b->keys))
            return psi_diag_nomem(d, "storing keys");
        b->keys[k] = key;
    }
    if (flags & PSI_OPF_INIT)
        value = 0;
    b->ops[b->n_ops++] = (psi_op){
        .value = value, .key = (uint32_t)k, .kind = (uint8_t)kind, .flags = (uint8_t)flags};
    b->txns[b->n_txns - 1].n_ops++;
    return PSI_OK;
}

psi_status psi_builder_op(psi_builder *b, psi_op_kind kind, uint64_t key, uint64_t value,
                          unsigned flags, psi_diag *d)
{
    return add_op(b, kind, key, value, flags & ~(unsigned)PSI_OPF_LIST, d);
}

psi_status psi_builder_list_read(psi_builder *b, uint64_t key, const uint64_t *vals, uint32_t n,
                                 psi_diag *d)
{
    if (!psi_grow((void **)&b->lists, &b->cap_lists, b->n_lists + 1, sizeof *b->lists) ||
        !psi_grow((void **)&b->list_vals, &b->cap_list_vals, b->n_list_vals + n,
                  sizeof *b->list_vals))
        return psi_diag_nomem(d, "storing list reads");
    unsigned flags = PSI_OPF_LIST | (n == 0 ? PSI_OPF_INIT : 0u);
    psi_status st = add_op(b, PSI_OP_READ, key, n ? vals[n - 1] : 0, flags, d);
    if (st != PSI_OK)
        return st;
    b->lists[b->n_lists++] =
        (psi_list_read){.op = (uint32_t)(b->n_ops - 1), .len = n, .first = b->n_list_vals};
    if (n)
        memcpy(b->list_vals + b->n_list_vals, vals, n * sizeof *vals);
    b->n_list_vals += n;
    return PSI_OK;
}

psi_status psi_builder_end(psi_builder *b, psi_txn_status st, psi_diag *d)
{
    if (!b->open)
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: end without begin", b->source);
    b->txns[b->n_txns - 1].status = (uint8_t)st;
    b->open = false;
    return PSI_OK;
}

void psi_builder_discard(psi_builder *b)
{
    if (b->n_txns <= 1)
        return;
    psi_txn *t = &b->txns[b->n_txns - 1];
    /* Drop its list reads, then its ops; keys it interned stay (harmless:
     * they get the initial value like every key). */
    while (b->n_lists && b->lists[b->n_lists - 1].op >= t->first_op) {
        b->n_list_vals = b->lists[b->n_lists - 1].first;
        b->n_lists--;
    }
    b->n_ops = t->first_op;
    int rc;
    JLD(rc, b->txn_index, (Word_t)t->id);
    (void)rc;
    b->n_txns--;
    b->open = false;
}

static int cmp_session_id(const void *a, const void *b)
{
    uint64_t x = ((const psi_session *)a)->id, y = ((const psi_session *)b)->id;
    return (x > y) - (x < y);
}

psi_status psi_builder_finish(psi_builder *b, psi_history **out, psi_diag *d)
{
    *out = NULL;
    psi_status st = PSI_OK;
    psi_history *h = NULL;
    uint32_t *rank = NULL, *fill = NULL;
    psi_txn *sorted = NULL;

    if (b->open) {
        st = psi_diag_set(d, PSI_ERR_SYNTAX, "%s: input ends inside a transaction", b->source);
        goto done;
    }
    h = calloc(1, sizeof *h);
    size_t ns = b->n_sessions;
    rank = malloc((ns ? ns : 1) * sizeof *rank);
    fill = calloc(ns ? ns : 1, sizeof *fill);
    sorted = malloc(b->n_txns * sizeof *sorted);
    /* Arrays of a finished history are never NULL, even when empty, so
     * `h->ops + first_op` and the like are defined for every reader. */
    bool empty_ok =
        (b->sessions ||
         psi_grow((void **)&b->sessions, &b->cap_sessions, 1, sizeof *b->sessions)) &&
        (b->ops || psi_grow((void **)&b->ops, &b->cap_ops, 1, sizeof *b->ops)) &&
        (b->keys || psi_grow((void **)&b->keys, &b->cap_keys, 1, sizeof *b->keys)) &&
        (b->lists || psi_grow((void **)&b->lists, &b->cap_lists, 1, sizeof *b->lists)) &&
        (b->list_vals ||
         psi_grow((void **)&b->list_vals, &b->cap_list_vals, 1, sizeof *b->list_vals));
    if (!h || !rank || !fill || !sorted || !empty_ok) {
        st = psi_diag_nomem(d, "finishing the history");
        goto done;
    }

    /* Sort sessions by external id; rank maps builder order -> sorted order. */
    for (size_t s = 0; s < ns; s++)
        b->sessions[s].first_txn = (uint32_t)s; /* remember builder index */
    if (ns)
        qsort(b->sessions, ns, sizeof *b->sessions, cmp_session_id);
    for (size_t s = 0; s < ns; s++)
        rank[b->sessions[s].first_txn] = (uint32_t)s;

    /* Counting sort of transactions by session, stable within a session. */
    for (size_t s = 0; s < ns; s++)
        b->sessions[s].n_txns = 0;
    for (size_t t = 1; t < b->n_txns; t++)
        b->sessions[rank[b->txns[t].session]].n_txns++;
    uint32_t next = 1;
    for (size_t s = 0; s < ns; s++) {
        b->sessions[s].first_txn = next;
        fill[s] = next;
        next += b->sessions[s].n_txns;
    }
    sorted[0] = b->txns[0];
    for (size_t t = 1; t < b->n_txns; t++) {
        uint32_t s = rank[b->txns[t].session];
        psi_txn tx = b->txns[t];
        tx.session = s;
        tx.pos = fill[s] - b->sessions[s].first_txn;
        sorted[fill[s]++] = tx;
    }

    /* Growth by doubling leaves up to half of each array unused; at 10^8
     * operations that is over a gigabyte, so give it back. A failed shrink
     * just keeps the larger block. */
    if (b->n_ops && b->n_ops < b->cap_ops) {
        psi_op *shrunk = realloc(b->ops, b->n_ops * sizeof *b->ops);
        if (shrunk)
            b->ops = shrunk;
    }
    h->sessions = b->sessions;
    h->n_sessions = (uint32_t)ns;
    h->txns = sorted;
    h->n_txns = (uint32_t)b->n_txns;
    h->ops = b->ops;
    h->n_ops = (uint32_t)b->n_ops;
    h->keys = b->keys;
    h->n_keys = (uint32_t)b->n_keys;
    h->list_reads = b->lists;
    h->n_list_reads = (uint32_t)b->n_lists;
    h->list_vals = b->list_vals;
    h->n_list_vals = b->n_list_vals;
    h->format = b->format;
    h->initial_state = PSI_INITIAL_IMPLICIT;
    h->source = b->source;
    h->dbcop = b->dbcop;
    b->sessions = NULL;
    b->ops = NULL;
    b->keys = NULL;
    b->lists = NULL;
    b->list_vals = NULL;
    b->source = NULL;
    memset(&b->dbcop, 0, sizeof b->dbcop);
    sorted = NULL;
    *out = h;
    h = NULL;

done:
    free(rank);
    free(fill);
    free(sorted);
    free(h);
    psi_builder_free(b);
    return st;
}

void psi_history_free(psi_history *h)
{
    if (!h)
        return;
    free(h->sessions);
    free(h->txns);
    free(h->ops);
    free(h->keys);
    free(h->list_reads);
    free(h->list_vals);
    free(h->source);
    meta_free(&h->dbcop);
    free(h);
}

uint32_t psi_history_op_txn(const psi_history *h, uint32_t op)
{
    /* Transactions' op ranges are disjoint but not sorted by first_op once
     * grouped by session, so search is linear in the worst case; callers on
     * hot paths keep their own op->txn map (see core/index.h). */
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (op >= h->txns[t].first_op && op < h->txns[t].first_op + h->txns[t].n_ops)
            return t;
    return PSI_INIT_TXN;
}

const uint64_t *psi_history_list(const psi_history *h, uint32_t op, uint32_t *len)
{
    size_t lo = 0, hi = h->n_list_reads;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->list_reads[mid].op < op)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < h->n_list_reads && h->list_reads[lo].op == op) {
        *len = h->list_reads[lo].len;
        return h->list_vals + h->list_reads[lo].first;
    }
    *len = 0;
    return NULL;
}

size_t psi_history_bytes(const psi_history *h)
{
    return sizeof *h + (size_t)h->n_sessions * sizeof *h->sessions +
           (size_t)h->n_txns * sizeof *h->txns + (size_t)h->n_ops * sizeof *h->ops +
           (size_t)h->n_keys * sizeof *h->keys + (size_t)h->n_list_reads * sizeof *h->list_reads +
           (size_t)h->n_list_vals * sizeof *h->list_vals;
}

const char *psi_format_name(psi_format f)
{
    switch (f) {
    case PSI_FMT_AUTO:
        return "auto";
    case PSI_FMT_TEXT:
        return "text";
    case PSI_FMT_DBCOP:
        return "dbcop";
    case PSI_FMT_COBRA:
        return "cobra";
    case PSI_FMT_EDN:
        return "edn";
    case PSI_FMT_AWDIT:
        return "awdit";
    case PSI_FMT_JSON:
        return "json";
    }
    return "unknown";
}

psi_format psi_format_from_name(const char *name)
{
    static const struct {
        const char *name;
        psi_format f;
    } names[] = {{"text", PSI_FMT_TEXT},        {"polysi", PSI_FMT_TEXT}, {"dbcop", PSI_FMT_DBCOP},
                 {"bincode", PSI_FMT_DBCOP},    {"cobra", PSI_FMT_COBRA}, {"edn", PSI_FMT_EDN},
                 {"jepsen", PSI_FMT_EDN},       {"elle", PSI_FMT_EDN},    {"awdit", PSI_FMT_AWDIT},
                 {"awdit-test", PSI_FMT_AWDIT}, {"json", PSI_FMT_JSON}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i].name) == 0)
            return names[i].f;
    return PSI_FMT_AUTO;
}
