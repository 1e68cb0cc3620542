/* Reader of dbcop's bincode histories (formats.md §2): little-endian, no
 * padding; a header of five u64 and three length-prefixed strings, then
 * sessions -> transactions -> 18-byte events, each transaction closed by a
 * success byte.
 *
 * Model mapping: dbcop has no ids, so sessions get ids 1..N in file order
 * and transactions get ids 1, 2, 3, ... in file order across the whole file
 * (session 1's transactions first); txn.src is the byte offset of the
 * transaction's event count. Events with success 0 did not happen and are
 * skipped; a transaction with success 0 is PSI_TXN_ABORTED (its events are
 * kept: an aborted write that a committed read observes is an anomaly the
 * checker reports). A read of 0 reads the initial value; a write of 0
 * writes it again (core/index.h: recorded initial state, repeated values). The
 * header is kept in psi_history.dbcop for writing the file back. A session
 * with no transactions leaves no trace in the model; a file with no
 * transactions at all is refused as an empty history, as in every format.
 *
 * Every count is checked against the bytes that remain before it is used,
 * so a hostile length costs nothing; truncation, booleans other than 0/1
 * and bytes after the last session are errors with the byte offset. */
#include "formats/read.h"

#include "formats/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dbcop_in {
    const char *name;
    const unsigned char *buf;
    size_t len, off;
    psi_diag *d;
    const psi_progress *progress; /* may be NULL */
} dbcop_in;

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static size_t left(const dbcop_in *in)
{
    return in->len - in->off;
}

static psi_status truncated(const dbcop_in *in, const char *what)
{
    return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, in->off,
                           "truncated file: %s expected, but only %zu byte%s left", what, left(in),
                           left(in) == 1 ? "" : "s");
}

static psi_status get_u64(dbcop_in *in, const char *what, uint64_t *v)
{
    if (left(in) < 8)
        return truncated(in, what);
    *v = le64(in->buf + in->off);
    in->off += 8;
    return PSI_OK;
}

static psi_status get_bool(dbcop_in *in, const char *what, bool *v)
{
    if (left(in) < 1)
        return truncated(in, what);
    unsigned char c = in->buf[in->off];
    if (c > 1)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, in->off,
                               "%s is %u; a boolean must be 0 or 1", what, c);
    *v = c;
    in->off++;
    return PSI_OK;
}

/* A count of items each at least `min_size` bytes long must fit in what is
 * left; checked before anything is sized from it. `at` is the count's offset. */
static psi_status check_count(dbcop_in *in, size_t at, uint64_t count, size_t min_size,
                              const char *what)
{
    if (count > left(in) / min_size)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, at,
                               "%s %llu runs past the end of the file (%zu bytes left, "
                               "%zu needed per item)",
                               what, (unsigned long long)count, left(in), min_size);
    return PSI_OK;
}

static psi_status get_string(dbcop_in *in, const char *what, char **s)
{
    size_t at = in->off;
    uint64_t n = 0;
    char w[64];
    snprintf(w, sizeof w, "length of the %s string", what);
    psi_status st = get_u64(in, w, &n);
    if (st != PSI_OK)
        return st;
    if (n > left(in))
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, at,
                               "%s string length %llu runs past the end of the file (%zu "
                               "bytes left)",
                               what, (unsigned long long)n, left(in));
    *s = malloc((size_t)n + 1);
    if (!*s)
        return psi_diag_nomem(in->d, "reading the dbcop header");
    memcpy(*s, in->buf + in->off, (size_t)n);
    (*s)[n] = '\0';
    in->off += (size_t)n;
    return PSI_OK;
}

static psi_status read_header(dbcop_in *in, psi_dbcop_meta *m)
{
    static const char *const names[5] = {"header id", "header session count", "header key count",
                                         "header transactions per session",
                                         "header events per transaction"};
    uint64_t *fields[5] = {&m->id, &m->n_sessions, &m->n_vars, &m->n_txns, &m->n_evts};
    psi_status st;
    for (int i = 0; i < 5; i++)
        if ((st = get_u64(in, names[i], fields[i])) != PSI_OK)
            return st;
    if ((st = get_string(in, "info", &m->info)) != PSI_OK ||
        (st = get_string(in, "start time", &m->start)) != PSI_OK ||
        (st = get_string(in, "end time", &m->end)) != PSI_OK)
        return st;
    return PSI_OK;
}

enum { EVENT_SIZE = 18 };

static psi_status read_txn(dbcop_in *in, psi_builder *b, uint64_t session, uint64_t txn_id,
                           uint64_t limit, uint64_t *n_ops)
{
    size_t at = in->off;
    uint64_t n_events = 0;
    psi_status st = get_u64(in, "transaction event count", &n_events);
    if (st != PSI_OK)
        return st;
    /* Each event is 18 bytes and the success byte follows them. */
    if (left(in) < 1 || n_events > (left(in) - 1) / EVENT_SIZE)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, at,
                               "event count %llu runs past the end of the file (%zu bytes "
                               "left, %d per event plus 1)",
                               (unsigned long long)n_events, left(in), EVENT_SIZE);
    if ((st = psi_builder_begin(b, session, txn_id, at, in->d)) != PSI_OK)
        return st;
    for (uint64_t e = 0; e < n_events; e++) {
        const unsigned char *p = in->buf + in->off;
        if (p[0] > 1)
            return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, in->off,
                                   "event is_write flag is %u; a boolean must be 0 or 1", p[0]);
        if (p[17] > 1)
            return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, in->off + 17,
                                   "event success flag is %u; a boolean must be 0 or 1", p[17]);
        if (p[17]) {
            uint64_t key = le64(p + 1), value = le64(p + 9);
            if (*n_ops >= limit)
                return psi_diag_offset(in->d, PSI_ERR_LIMIT, in->name, in->off,
                                       "history has more than %llu operations (the limit)",
                                       (unsigned long long)limit);
            unsigned flags = !p[0] && value == 0 ? PSI_OPF_INIT : 0u;
            st = psi_builder_op(b, p[0] ? PSI_OP_WRITE : PSI_OP_READ, key, value, flags, in->d);
            if (st != PSI_OK)
                return st;
            ++*n_ops;
        }
        in->off += EVENT_SIZE;
    }
    bool ok = false;
    if ((st = get_bool(in, "transaction success flag", &ok)) != PSI_OK)
        return st;
    return psi_builder_end(b, ok ? PSI_TXN_COMMITTED : PSI_TXN_ABORTED, in->d);
}

static psi_status read_body(dbcop_in *in, psi_builder *b, uint64_t limit)
{
    size_t at = in->off;
    uint64_t n_sessions = 0, n_ops = 0, txn_id = 0;
    psi_status st = get_u64(in, "session count", &n_sessions);
    if (st != PSI_OK)
        return st;
    if ((st = check_count(in, at, n_sessions, 8, "session count")) != PSI_OK)
        return st;
    for (uint64_t s = 0; s < n_sessions; s++) {
        at = in->off;
        uint64_t n_txns = 0;
        if ((st = get_u64(in, "session transaction count", &n_txns)) != PSI_OK)
            return st;
        /* A transaction is at least its event count and its success byte. */
        if ((st = check_count(in, at, n_txns, 9, "transaction count")) != PSI_OK)
            return st;
        for (uint64_t t = 0; t < n_txns; t++) {
            if ((st = read_txn(in, b, s + 1, ++txn_id, limit, &n_ops)) != PSI_OK)
                return st;
            if (in->progress && (txn_id & (PSI_INPUT_PROGRESS_EVERY - 1)) == 0)
                psi_progress_report(in->progress, "load", in->off, in->len, 0);
        }
    }
    if (left(in) != 0)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->name, in->off,
                               "%zu unexpected byte%s after the last session", left(in),
                               left(in) == 1 ? "" : "s");
    return PSI_OK;
}

psi_status psi_read_dbcop_buf(const char *name, const unsigned char *buf, size_t len,
                              uint64_t max_ops, psi_history **out, psi_diag *d)
{
    return psi_read_dbcop_mem(name, buf, len, max_ops, NULL, out, d);
}

psi_status psi_read_dbcop_mem(const char *name, const unsigned char *buf, size_t len,
                              uint64_t max_ops, const psi_progress *progress, psi_history **out,
                              psi_diag *d)
{
    *out = NULL;
    name = psi_input_name(name);
    uint64_t limit = psi_input_op_limit(max_ops);
    dbcop_in in = {.name = name, .buf = buf, .len = len, .d = d, .progress = progress};
    psi_dbcop_meta meta = {0};
    psi_status st = read_header(&in, &meta);
    if (st != PSI_OK) {
        free(meta.info);
        free(meta.start);
        free(meta.end);
        return st;
    }
    psi_builder *b = psi_builder_new(name, PSI_FMT_DBCOP);
    if (!b) {
        free(meta.info);
        free(meta.start);
        free(meta.end);
        return psi_diag_nomem(d, "reading the history");
    }
    psi_builder_set_dbcop_meta(b, &meta);
    size_t body_at = in.off;
    st = read_body(&in, b, limit);
    if (st == PSI_OK && psi_builder_n_txns(b) == 0)
        st = psi_diag_offset(d, PSI_ERR_INPUT, name, body_at,
                             "empty history: the file has no transactions");
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}
