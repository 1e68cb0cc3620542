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
 * The input is a psi_stream (formats/input.h): a file is read through a
 * bounded window, front to back, and never held whole (it is 19 bytes per
 * operation, more than the model keeps); memory (the *_buf entry point,
 * the fuzzers) is a stream whose window is everything. When the input's
 * size is known every count is checked against the bytes that remain
 * before it is used; a pipe's counts run into its end instead. Nothing is
 * sized from a count, so a hostile length costs nothing either way;
 * truncation, booleans other than 0/1 and bytes after the last session are
 * errors with the byte offset. */
#include "formats/read.h"

#include "formats/input.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct dbcop_in {
    psi_stream *s; /* the input, read front to back */
    psi_diag *d;
    const psi_progress *progress; /* may be NULL */
} dbcop_in;

static uint64_t le64(const unsigned char *p)
{
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static uint64_t offset(const dbcop_in *in)
{
    return psi_stream_offset(in->s);
}

static bool size_known(const dbcop_in *in)
{
    return in->s->size != PSI_STREAM_SIZE_UNKNOWN;
}

/* Bytes after the read position: exact when the size is known (the stream
 * keeps offset <= size), else what the window holds, which is all that is
 * left once a fill came up short. */
static uint64_t left(const dbcop_in *in)
{
    return size_known(in) ? in->s->size - offset(in) : psi_stream_avail(in->s);
}

static const unsigned char *at(const dbcop_in *in)
{
    return in->s->win + in->s->start;
}

static void skip(dbcop_in *in, size_t n)
{
    assert(n <= psi_stream_avail(in->s));
    in->s->start += n;
}

static psi_status truncated(const dbcop_in *in, const char *what)
{
    uint64_t n = left(in);
    return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, offset(in),
                           "truncated file: %s expected, but only %llu byte%s left", what,
                           (unsigned long long)n, n == 1 ? "" : "s");
}

/* Makes n bytes readable at at(in), or fails as a truncation. */
static psi_status need(dbcop_in *in, size_t n, const char *what)
{
    psi_status st = psi_stream_fill(in->s, n, in->d);
    if (st == PSI_OK && psi_stream_avail(in->s) < n)
        st = truncated(in, what);
    return st;
}

static psi_status get_u64(dbcop_in *in, const char *what, uint64_t *v)
{
    psi_status st = need(in, 8, what);
    if (st != PSI_OK)
        return st;
    *v = le64(at(in));
    skip(in, 8);
    return PSI_OK;
}

static psi_status get_bool(dbcop_in *in, const char *what, bool *v)
{
    psi_status st = need(in, 1, what);
    if (st != PSI_OK)
        return st;
    unsigned char c = *at(in);
    if (c > 1)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, offset(in),
                               "%s is %u; a boolean must be 0 or 1", what, c);
    *v = c;
    skip(in, 1);
    return PSI_OK;
}

/* A count of items each at least `min_size` bytes long must fit in what is
 * left; checked when the input's size is known (a pipe's is not: its
 * items then run into the end of the input instead, which costs no more,
 * as nothing is sized from a count). `pos` is the count's offset. */
static psi_status check_count(dbcop_in *in, uint64_t pos, uint64_t count, size_t min_size,
                              const char *what)
{
    if (size_known(in) && count > left(in) / min_size)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, pos,
                               "%s %llu runs past the end of the file (%llu bytes left, "
                               "%zu needed per item)",
                               what, (unsigned long long)count, (unsigned long long)left(in),
                               min_size);
    return PSI_OK;
}

static psi_status string_past_end(dbcop_in *in, uint64_t pos, const char *what, uint64_t n,
                                  uint64_t bytes_left)
{
    return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, pos,
                           "%s string length %llu runs past the end of the file (%llu bytes "
                           "left)",
                           what, (unsigned long long)n, (unsigned long long)bytes_left);
}

/* A length-prefixed string, copied a window at a time. Its buffer grows
 * with the bytes that actually arrived, so a hostile length in a pipe
 * costs no more memory than the input. */
static psi_status get_string(dbcop_in *in, const char *what, char **s)
{
    uint64_t pos = offset(in), n = 0;
    char w[64];
    snprintf(w, sizeof w, "length of the %s string", what);
    psi_status st = get_u64(in, w, &n);
    if (st != PSI_OK)
        return st;
    if (size_known(in) && n > left(in))
        return string_past_end(in, pos, what, n, left(in));
    size_t cap = 0, got = 0;
    char *buf = NULL;
    for (;;) {
        size_t want = n - got < in->s->cap ? (size_t)(n - got) : in->s->cap;
        assert(want > 0 || got == n);
        if ((st = psi_stream_fill(in->s, want, in->d)) != PSI_OK)
            break;
        size_t k = psi_stream_avail(in->s) < want ? psi_stream_avail(in->s) : want;
        if (got + k + 1 > cap) {
            size_t nc = cap ? cap : 64;
            while (nc < got + k + 1)
                nc *= 2;
            if (nc > n + 1)
                nc = (size_t)n + 1;
            char *q = realloc(buf, nc);
            if (!q) {
                st = psi_diag_nomem(in->d, "reading the dbcop header");
                break;
            }
            buf = q;
            cap = nc;
        }
        memcpy(buf + got, at(in), k);
        skip(in, k);
        got += k;
        if (got == n) {
            buf[got] = '\0';
            *s = buf;
            return PSI_OK;
        }
        if (k < want) {
            st = string_past_end(in, pos, what, n, got + psi_stream_avail(in->s));
            break;
        }
    }
    free(buf);
    return st;
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

/* An event count that runs past the end of the input: found before the
 * events when the size is known, else when the input ends among them (the
 * same message either way: bytes left after the count). */
static psi_status events_past_end(dbcop_in *in, uint64_t pos, uint64_t n_events,
                                  uint64_t bytes_left)
{
    return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, pos,
                           "event count %llu runs past the end of the file (%llu bytes "
                           "left, %d per event plus 1)",
                           (unsigned long long)n_events, (unsigned long long)bytes_left,
                           EVENT_SIZE);
}

static psi_status read_txn(dbcop_in *in, psi_builder *b, uint64_t session, uint64_t txn_id,
                           uint64_t limit, uint64_t *n_ops)
{
    uint64_t pos = offset(in);
    uint64_t n_events = 0;
    psi_status st = get_u64(in, "transaction event count", &n_events);
    if (st != PSI_OK)
        return st;
    /* Each event is 18 bytes and the success byte follows them. */
    if (size_known(in) && (left(in) < 1 || n_events > (left(in) - 1) / EVENT_SIZE))
        return events_past_end(in, pos, n_events, left(in));
    if ((st = psi_builder_begin(b, session, txn_id, pos, in->d)) != PSI_OK)
        return st;
    for (uint64_t e = 0; e < n_events; e++) {
        if ((st = psi_stream_fill(in->s, EVENT_SIZE, in->d)) != PSI_OK)
            return st;
        if (psi_stream_avail(in->s) < EVENT_SIZE)
            return events_past_end(in, pos, n_events, offset(in) + left(in) - (pos + 8));
        const unsigned char *p = at(in);
        if (p[0] > 1)
            return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, offset(in),
                                   "event is_write flag is %u; a boolean must be 0 or 1", p[0]);
        if (p[17] > 1)
            return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, offset(in) + 17,
                                   "event success flag is %u; a boolean must be 0 or 1", p[17]);
        if (p[17]) {
            uint64_t key = le64(p + 1), value = le64(p + 9);
            if (*n_ops >= limit)
                return psi_diag_offset(in->d, PSI_ERR_LIMIT, in->s->name, offset(in),
                                       "history has more than %llu operations (the limit)",
                                       (unsigned long long)limit);
            unsigned flags = !p[0] && value == 0 ? PSI_OPF_INIT : 0u;
            st = psi_builder_op(b, p[0] ? PSI_OP_WRITE : PSI_OP_READ, key, value, flags, in->d);
            if (st != PSI_OK)
                return st;
            ++*n_ops;
        }
        skip(in, EVENT_SIZE);
    }
    bool ok = false;
    if ((st = get_bool(in, "transaction success flag", &ok)) != PSI_OK)
        return st;
    return psi_builder_end(b, ok ? PSI_TXN_COMMITTED : PSI_TXN_ABORTED, in->d);
}

/* The bytes after the last session, counted (a pipe is read to its end);
 * 0 when there are none. */
static psi_status trailing_bytes(dbcop_in *in, uint64_t *n)
{
    *n = 0;
    for (;;) {
        psi_status st = psi_stream_fill(in->s, 1, in->d);
        if (st != PSI_OK)
            return st;
        size_t k = psi_stream_avail(in->s);
        if (k == 0)
            return PSI_OK;
        if (size_known(in)) {
            *n = left(in);
            return PSI_OK;
        }
        *n += k;
        skip(in, k);
    }
}

static psi_status read_body(dbcop_in *in, psi_builder *b, uint64_t limit)
{
    uint64_t pos = offset(in);
    uint64_t n_sessions = 0, n_ops = 0, txn_id = 0;
    psi_status st = get_u64(in, "session count", &n_sessions);
    if (st != PSI_OK)
        return st;
    if ((st = check_count(in, pos, n_sessions, 8, "session count")) != PSI_OK)
        return st;
    for (uint64_t s = 0; s < n_sessions; s++) {
        pos = offset(in);
        uint64_t n_txns = 0;
        if ((st = get_u64(in, "session transaction count", &n_txns)) != PSI_OK)
            return st;
        /* A transaction is at least its event count and its success byte. */
        if ((st = check_count(in, pos, n_txns, 9, "transaction count")) != PSI_OK)
            return st;
        for (uint64_t t = 0; t < n_txns; t++) {
            if ((st = read_txn(in, b, s + 1, ++txn_id, limit, &n_ops)) != PSI_OK)
                return st;
            if (in->progress && (txn_id & (PSI_INPUT_PROGRESS_EVERY - 1)) == 0)
                psi_progress_report(in->progress, "load", offset(in),
                                    size_known(in) ? in->s->size : 0, 0);
        }
    }
    pos = offset(in);
    uint64_t extra = 0;
    if ((st = trailing_bytes(in, &extra)) != PSI_OK)
        return st;
    if (extra != 0)
        return psi_diag_offset(in->d, PSI_ERR_SYNTAX, in->s->name, pos,
                               "%llu unexpected byte%s after the last session",
                               (unsigned long long)extra, extra == 1 ? "" : "s");
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
    psi_stream s;
    psi_stream_mem(&s, psi_input_name(name), buf, len);
    return psi_read_dbcop_stream(&s, max_ops, progress, out, d);
}

psi_status psi_read_dbcop_stream(psi_stream *s, uint64_t max_ops, const psi_progress *progress,
                                 psi_history **out, psi_diag *d)
{
    *out = NULL;
    uint64_t limit = psi_input_op_limit(max_ops);
    dbcop_in in = {.s = s, .d = d, .progress = progress};
    psi_dbcop_meta meta = {0};
    psi_status st = read_header(&in, &meta);
    if (st != PSI_OK) {
        free(meta.info);
        free(meta.start);
        free(meta.end);
        return st;
    }
    psi_builder *b = psi_builder_new(s->name, PSI_FMT_DBCOP);
    if (!b) {
        free(meta.info);
        free(meta.start);
        free(meta.end);
        return psi_diag_nomem(d, "reading the history");
    }
    psi_builder_set_dbcop_meta(b, &meta);
    /* Every event takes 18 bytes of the body, so a known size bounds the
     * operations within a few percent (the counts and success bytes):
     * reserving that much spares the doubling growth its copy (at 69 M
     * operations, 1 GB copied into a second, 2 GB block). A hint only. */
    if (size_known(&in)) {
        uint64_t bound = left(&in) / 18;
        (void)psi_builder_reserve_ops(b, bound < limit ? bound : limit);
    }
    uint64_t body_at = offset(&in);
    st = read_body(&in, b, limit);
    if (st == PSI_OK && psi_builder_n_txns(b) == 0)
        st = psi_diag_offset(d, PSI_ERR_INPUT, s->name, body_at,
                             "empty history: the file has no transactions");
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}
