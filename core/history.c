/* The history model and its builder: readers hand transactions over one at a
 * time; finishing groups them by session (sessions sorted by external id,
 * transactions in the order given) behind the implicit initial transaction.
 * Operations are never moved: each transaction's ops are contiguous because
 * a transaction is given whole before the next begins. */
#include "core/history.h"

#include "core/vec.h"

#include "core/idmap.h"

#include <Judy.h>
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
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

    psi_idmap key_index;     /* external key -> dense key + 1 */
    psi_idmap session_index; /* external session id -> dense session + 1 */
    psi_idmap txn_index;     /* external txn id -> txn index */

    bool open; /* a transaction has begun and not ended */
    psi_dbcop_meta dbcop;

    /* Named keys and values (history.h): once switched, key_index is no
     * longer used and keys[k] == k. key_names parallels keys (n_keys). */
    bool keys_named, values_named;
    char **key_names;
    size_t cap_key_names;
    Pvoid_t key_name_index; /* JudyHS: spelling -> dense key + 1 */
    char **value_names;     /* value id v is value_names[v - 1] */
    size_t n_value_names, cap_value_names;
    Pvoid_t value_name_index; /* JudyHS: spelling -> value id */

    /* Real time (psi_builder_set_rt): rt[t] for t < n_rt; NULL until the
     * first call. */
    psi_rt *rt;
    size_t n_rt, cap_rt;
    bool rt_by_index;
    /* Timestamps (psi_builder_set_ts): ts[t] for t < n_ts; NULL until the
     * first call. */
    psi_txn_ts *ts;
    size_t n_ts, cap_ts;
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
    psi_idmap_free(&b->key_index);
    psi_idmap_free(&b->session_index);
    psi_idmap_free(&b->txn_index);
    JudyHSFreeArray(&b->key_name_index, PJE0);
    JudyHSFreeArray(&b->value_name_index, PJE0);
    if (b->key_names)
        for (size_t k = 0; k < b->n_keys; k++)
            free(b->key_names[k]);
    free(b->key_names);
    for (size_t v = 0; v < b->n_value_names; v++)
        free(b->value_names[v]);
    free(b->value_names);
    free(b->source);
    free(b->txns);
    free(b->ops);
    free(b->keys);
    free(b->lists);
    free(b->list_vals);
    free(b->sessions);
    free(b->rt);
    free(b->ts);
    meta_free(&b->dbcop);
    free(b);
}

psi_status psi_builder_set_ts(psi_builder *b, int64_t start, int64_t commit, psi_diag *d)
{
    if (!b->open)
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: timestamps without a transaction", b->source);
    assert(start <= commit);
    if (!psi_grow((void **)&b->ts, &b->cap_ts, b->n_txns, sizeof *b->ts))
        return psi_diag_nomem(d, "storing timestamps");
    while (b->n_ts < b->n_txns - 1)
        b->ts[b->n_ts++] = (psi_txn_ts){0};
    b->ts[b->n_txns - 1] = (psi_txn_ts){start, commit, true};
    b->n_ts = b->n_txns;
    return PSI_OK;
}

psi_status psi_builder_set_rt(psi_builder *b, uint64_t invoke, uint64_t complete, psi_diag *d)
{
    if (!b->open)
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: real time without a transaction", b->source);
    assert(invoke <= complete);
    if (!psi_grow((void **)&b->rt, &b->cap_rt, b->n_txns, sizeof *b->rt))
        return psi_diag_nomem(d, "storing real time");
    /* The initial transaction precedes everything; the others given
     * nothing are unknown both ways. */
    if (b->n_rt == 0)
        b->rt[b->n_rt++] = (psi_rt){0, 0};
    while (b->n_rt < b->n_txns - 1)
        b->rt[b->n_rt++] = (psi_rt){0, PSI_RT_OPEN};
    b->rt[b->n_txns - 1] = (psi_rt){invoke, complete};
    b->n_rt = b->n_txns;
    return PSI_OK;
}

void psi_builder_set_rt_by_index(psi_builder *b, bool by_index)
{
    b->rt_by_index = by_index;
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

static psi_status intern(psi_idmap *index, uint64_t ext, size_t *count, size_t *dense, bool *is_new,
                         psi_diag *d)
{
    Word_t *slot = psi_idmap_slot(index, ext);
    if (!slot)
        return psi_diag_nomem(d, "indexing the history");
    *is_new = (*slot == 0);
    if (*is_new)
        *slot = (Word_t)(++*count);
    *dense = (size_t)(*slot - 1);
    return PSI_OK;
}

/* ---- Named keys and values ---- */

static char *copy_spelling(const char *s, size_t len)
{
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

/* The JudyHS slot of spelling s[0..len), inserted if absent (value 0). */
static psi_status name_slot(Pvoid_t *index, const char *s, size_t len, Word_t **slot, psi_diag *d)
{
    /* JudyHS does not write through the key; its prototype lacks const. */
    PPvoid_t pv = JudyHSIns(index, (void *)(uintptr_t)s, (Word_t)len, PJE0);
    if (pv == PPJERR)
        return psi_diag_nomem(d, "indexing key and value names");
    *slot = (Word_t *)pv;
    return PSI_OK;
}

static psi_status check_spelling(const psi_builder *b, const char *s, size_t len, psi_diag *d)
{
    if (len == 0 || memchr(s, '\0', len))
        return psi_diag_set(d, PSI_ERR_INPUT, "%s: a key or value is empty or holds a NUL byte",
                            b->source);
    return PSI_OK;
}

/* Interns a key spelling in named mode: its dense key. */
static psi_status intern_key_name(psi_builder *b, const char *s, size_t len, uint64_t *key,
                                  psi_diag *d)
{
    assert(b->keys_named);
    Word_t *slot = NULL;
    psi_status st = name_slot(&b->key_name_index, s, len, &slot, d);
    if (st != PSI_OK)
        return st;
    if (*slot == 0) {
        if (b->n_keys >= UINT32_MAX - 1u)
            return psi_diag_set(d, PSI_ERR_LIMIT, "%s: more than %u keys", b->source,
                                (unsigned)(UINT32_MAX - 1u));
        char *c = copy_spelling(s, len);
        if (!c || !psi_grow((void **)&b->keys, &b->cap_keys, b->n_keys + 1, sizeof *b->keys) ||
            !psi_grow((void **)&b->key_names, &b->cap_key_names, b->n_keys + 1,
                      sizeof *b->key_names)) {
            free(c);
            return psi_diag_nomem(d, "storing key names");
        }
        b->keys[b->n_keys] = b->n_keys;
        b->key_names[b->n_keys] = c;
        *slot = (Word_t)(++b->n_keys);
    }
    *key = (uint64_t)(*slot - 1);
    return PSI_OK;
}

static psi_status intern_value_name(psi_builder *b, const char *s, size_t len, uint64_t *value,
                                    psi_diag *d)
{
    Word_t *slot = NULL;
    psi_status st = name_slot(&b->value_name_index, s, len, &slot, d);
    if (st != PSI_OK)
        return st;
    if (*slot == 0) {
        char *c = copy_spelling(s, len);
        if (!c || !psi_grow((void **)&b->value_names, &b->cap_value_names, b->n_value_names + 1,
                            sizeof *b->value_names)) {
            free(c);
            return psi_diag_nomem(d, "storing value names");
        }
        b->value_names[b->n_value_names] = c;
        *slot = (Word_t)(++b->n_value_names);
    }
    *value = (uint64_t)*slot;
    return PSI_OK;
}

/* Every integer key given so far gets its decimal spelling; op.key (dense)
 * is unchanged. */
static psi_status switch_keys(psi_builder *b, psi_diag *d)
{
    assert(!b->keys_named);
    if (!psi_grow((void **)&b->key_names, &b->cap_key_names, b->n_keys ? b->n_keys : 1,
                  sizeof *b->key_names))
        return psi_diag_nomem(d, "storing key names");
    size_t n = b->n_keys;
    b->n_keys = 0; /* re-interned below, in the same dense order */
    b->keys_named = true;
    for (size_t k = 0; k < n; k++) {
        char buf[24];
        int len = snprintf(buf, sizeof buf, "%" PRIu64, b->keys[k]);
        uint64_t got;
        psi_status st = intern_key_name(b, buf, (size_t)len, &got, d);
        if (st != PSI_OK)
            return st;
        assert(got == k); /* integer keys are distinct, so are their spellings */
    }
    psi_idmap_free(&b->key_index);
    return PSI_OK;
}

static psi_status value_dec(psi_builder *b, uint64_t v, uint64_t *id, psi_diag *d)
{
    char buf[24];
    int len = snprintf(buf, sizeof buf, "%" PRIu64, v);
    return intern_value_name(b, buf, (size_t)len, id, d);
}

/* Every integer value given so far becomes the id of its decimal spelling
 * (reads of the initial value stay 0). */
static psi_status switch_values(psi_builder *b, psi_diag *d)
{
    assert(!b->values_named);
    psi_status st = PSI_OK;
    for (size_t i = 0; i < b->n_ops && st == PSI_OK; i++)
        if (!(b->ops[i].flags & PSI_OPF_INIT))
            st = value_dec(b, b->ops[i].value, &b->ops[i].value, d);
    for (size_t i = 0; i < b->n_list_vals && st == PSI_OK; i++)
        st = value_dec(b, b->list_vals[i], &b->list_vals[i], d);
    if (st == PSI_OK)
        b->values_named = true;
    return st;
}

psi_status psi_builder_key_named(psi_builder *b, const char *s, size_t len, uint64_t *key,
                                 psi_diag *d)
{
    psi_status st = check_spelling(b, s, len, d);
    if (st == PSI_OK && !b->keys_named)
        st = switch_keys(b, d);
    return st != PSI_OK ? st : intern_key_name(b, s, len, key, d);
}

psi_status psi_builder_key_int(psi_builder *b, uint64_t ext, uint64_t *key, psi_diag *d)
{
    if (!b->keys_named) {
        *key = ext;
        return PSI_OK;
    }
    char buf[24];
    int len = snprintf(buf, sizeof buf, "%" PRIu64, ext);
    return intern_key_name(b, buf, (size_t)len, key, d);
}

psi_status psi_builder_value_named(psi_builder *b, const char *s, size_t len, uint64_t *value,
                                   psi_diag *d)
{
    psi_status st = check_spelling(b, s, len, d);
    if (st == PSI_OK && !b->values_named)
        st = switch_values(b, d);
    return st != PSI_OK ? st : intern_value_name(b, s, len, value, d);
}

psi_status psi_builder_value_int(psi_builder *b, uint64_t v, uint64_t *value, psi_diag *d)
{
    if (!b->values_named) {
        *value = v;
        return PSI_OK;
    }
    return value_dec(b, v, value, d);
}

bool psi_builder_keys_named(const psi_builder *b)
{
    return b->keys_named;
}

bool psi_builder_values_named(const psi_builder *b)
{
    return b->values_named;
}

psi_status psi_builder_copy_names(psi_builder *b, const psi_history *h, psi_diag *d)
{
    assert(b->n_ops == 0 && b->n_keys == 0 && !b->keys_named && !b->values_named);
    psi_status st = PSI_OK;
    if (h->key_names) {
        b->keys_named = true;
        for (uint32_t k = 0; k < h->n_keys && st == PSI_OK; k++) {
            uint64_t got = 0;
            st = intern_key_name(b, h->key_names[k], strlen(h->key_names[k]), &got, d);
            assert(st != PSI_OK || got == k);
        }
    }
    if (h->value_names) {
        b->values_named = true;
        for (uint64_t v = 0; v < h->n_value_names && st == PSI_OK; v++) {
            uint64_t got = 0;
            st = intern_value_name(b, h->value_names[v], strlen(h->value_names[v]), &got, d);
            assert(st != PSI_OK || got == v + 1);
        }
    }
    return st;
}

psi_status psi_builder_begin(psi_builder *b, uint64_t session_id, uint64_t txn_id, uint64_t src,
                             psi_diag *d)
{
    if (b->open)
        return psi_diag_set(d, PSI_ERR_USAGE, "%s: transaction begun inside another", b->source);
    if (b->n_txns > PSI_MAX_TXNS)
        return psi_diag_set(d, PSI_ERR_LIMIT, "%s: more than %u transactions", b->source,
                            (unsigned)PSI_MAX_TXNS);

    Word_t *slot = psi_idmap_slot(&b->txn_index, txn_id);
    if (!slot)
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
    if (!psi_grow_huge((void **)&b->txns, &b->cap_txns, b->n_txns + 1, sizeof *b->txns,
                       b->n_txns)) {
        psi_idmap_del(&b->txn_index, txn_id);
        return psi_diag_nomem(d, "storing transactions");
    }

    size_t sess = 0; /* set by intern (GCC -O2 cannot tell) */
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
    if (!psi_grow_huge((void **)&b->ops, &b->cap_ops, b->n_ops + 1, sizeof *b->ops, b->n_ops))
        return psi_diag_nomem(d, "storing operations");
    size_t k = 0; /* set below (GCC -O2 cannot tell) */
    if (b->keys_named) {
        /* A dense key from psi_builder_key_named / _key_int. */
        assert(key < b->n_keys);
        k = (size_t)key;
    } else {
        bool fresh;
        psi_status st = intern(&b->key_index, key, &b->n_keys, &k, &fresh, d);
        if (st != PSI_OK)
            return st;
        if (fresh) {
            if (!psi_grow((void **)&b->keys, &b->cap_keys, b->n_keys, sizeof *b->keys))
                return psi_diag_nomem(d, "storing keys");
            b->keys[k] = key;
        }
    }
    assert(!b->values_named || (flags & PSI_OPF_INIT) || (value >= 1 && value <= b->n_value_names));
    if (flags & PSI_OPF_INIT)
        value = 0;
    b->ops[b->n_ops++] = (psi_op){
        .value = value, .key = (uint32_t)k, .kind = (uint8_t)kind, .flags = (uint8_t)flags};
    b->txns[b->n_txns - 1].n_ops++;
    return PSI_OK;
}

bool psi_builder_reserve_ops(psi_builder *b, uint64_t n)
{
    if (n <= b->cap_ops)
        return true;
    if (n > PSI_MAX_OPS)
        return false;
    psi_op *q = malloc((size_t)n * sizeof *q);
    if (!q)
        return false;
    psi_hint_huge(q, (size_t)n * sizeof *q);
    if (b->n_ops)
        memcpy(q, b->ops, b->n_ops * sizeof *q);
    free(b->ops);
    b->ops = q;
    b->cap_ops = (size_t)n;
    return true;
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
    if (b->n_rt > b->n_txns - 1)
        b->n_rt = b->n_txns - 1;
    if (b->n_ts > b->n_txns - 1)
        b->n_ts = b->n_txns - 1;
    psi_idmap_del(&b->txn_index, t->id);
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
    psi_rt *rt = NULL;
    psi_txn_ts *ts = NULL;

    if (b->open) {
        st = psi_diag_set(d, PSI_ERR_SYNTAX, "%s: input ends inside a transaction", b->source);
        goto done;
    }
    h = calloc(1, sizeof *h);
    size_t ns = b->n_sessions;
    rank = malloc((ns ? ns : 1) * sizeof *rank);
    fill = calloc(ns ? ns : 1, sizeof *fill);
    sorted = malloc(b->n_txns * sizeof *sorted);
    rt = b->rt ? malloc(b->n_txns * sizeof *rt) : NULL;
    ts = b->ts ? calloc(b->n_txns, sizeof *ts) : NULL;
    psi_hint_huge(sorted, b->n_txns * sizeof *sorted);
    /* Arrays of a finished history are never NULL, even when empty, so
     * `h->ops + first_op` and the like are defined for every reader. */
    bool empty_ok =
        (b->sessions ||
         psi_grow((void **)&b->sessions, &b->cap_sessions, 1, sizeof *b->sessions)) &&
        (b->ops || psi_grow((void **)&b->ops, &b->cap_ops, 1, sizeof *b->ops)) &&
        (b->keys || psi_grow((void **)&b->keys, &b->cap_keys, 1, sizeof *b->keys)) &&
        (b->lists || psi_grow((void **)&b->lists, &b->cap_lists, 1, sizeof *b->lists)) &&
        (b->list_vals ||
         psi_grow((void **)&b->list_vals, &b->cap_list_vals, 1, sizeof *b->list_vals)) &&
        (!b->keys_named || b->key_names ||
         psi_grow((void **)&b->key_names, &b->cap_key_names, 1, sizeof *b->key_names)) &&
        (!b->values_named || b->value_names ||
         psi_grow((void **)&b->value_names, &b->cap_value_names, 1, sizeof *b->value_names));
    if (!h || !rank || !fill || !sorted || !empty_ok || (b->rt && !rt) || (b->ts && !ts)) {
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
    if (rt)
        rt[0] = (psi_rt){0, 0};
    for (size_t t = 1; t < b->n_txns; t++) {
        uint32_t s = rank[b->txns[t].session];
        psi_txn tx = b->txns[t];
        tx.session = s;
        tx.pos = fill[s] - b->sessions[s].first_txn;
        if (rt)
            rt[fill[s]] = t < b->n_rt ? b->rt[t] : (psi_rt){0, PSI_RT_OPEN};
        if (ts && t < b->n_ts)
            ts[fill[s]] = b->ts[t];
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
    h->rt = rt;
    h->rt_by_index = b->rt_by_index;
    rt = NULL;
    h->ts = ts;
    ts = NULL;
    h->key_names = b->keys_named ? b->key_names : NULL;
    h->value_names = b->values_named ? b->value_names : NULL;
    h->n_value_names = b->values_named ? b->n_value_names : 0;
    if (b->keys_named)
        b->key_names = NULL;
    if (b->values_named) {
        b->value_names = NULL;
        b->n_value_names = 0;
    }
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
    free(rt);
    free(ts);
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
    if (h->key_names)
        for (uint32_t k = 0; k < h->n_keys; k++)
            free(h->key_names[k]);
    free(h->key_names);
    for (uint64_t v = 0; v < h->n_value_names; v++)
        free(h->value_names[v]);
    free(h->value_names);
    free(h->keys);
    free(h->list_reads);
    free(h->list_vals);
    free(h->source);
    free(h->rt);
    free(h->ts);
    meta_free(&h->dbcop);
    free(h);
}

bool psi_name_u64(const char *s, uint64_t *out)
{
    if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] != '\0'))
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned dgt = (unsigned)(*s - '0');
        if (v > (UINT64_MAX - dgt) / 10)
            return false;
        v = v * 10 + dgt;
    }
    *out = v;
    return true;
}

const char *psi_history_key_name(const psi_history *h, uint32_t k, char buf[24])
{
    assert(k < h->n_keys);
    if (h->key_names)
        return h->key_names[k];
    snprintf(buf, 24, "%" PRIu64, h->keys[k]);
    return buf;
}

const char *psi_history_value_name(const psi_history *h, uint64_t v, char buf[24])
{
    if (h->value_names) {
        assert(v <= h->n_value_names);
        return v == 0 ? "nil" : h->value_names[v - 1];
    }
    snprintf(buf, 24, "%" PRIu64, v);
    return buf;
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

uint32_t psi_history_so_prev_committed(const psi_history *h, uint32_t t)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t p = tx->pos; p-- > 0;) {
        uint32_t u = h->sessions[tx->session].first_txn + p;
        if (h->txns[u].status == PSI_TXN_COMMITTED)
            return u;
    }
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

static size_t names_bytes(const psi_history *h)
{
    size_t n = 0;
    if (h->key_names)
        for (uint32_t k = 0; k < h->n_keys; k++)
            n += sizeof *h->key_names + strlen(h->key_names[k]) + 1;
    for (uint64_t v = 0; v < h->n_value_names; v++)
        n += sizeof *h->value_names + strlen(h->value_names[v]) + 1;
    return n;
}

size_t psi_history_bytes(const psi_history *h)
{
    return sizeof *h + (size_t)h->n_sessions * sizeof *h->sessions +
           (size_t)h->n_txns * sizeof *h->txns + (size_t)h->n_ops * sizeof *h->ops +
           (size_t)h->n_keys * sizeof *h->keys + (size_t)h->n_list_reads * sizeof *h->list_reads +
           (size_t)h->n_list_vals * sizeof *h->list_vals + names_bytes(h) +
           (h->rt ? (size_t)h->n_txns * sizeof *h->rt : 0) +
           (h->ts ? (size_t)h->n_txns * sizeof *h->ts : 0);
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
