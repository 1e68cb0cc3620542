/* Reader of the PolySI text format (formats.md §1), with IsoVista's
 * aborted writes:
 *
 *     r(KEY,VALUE,SESSION,TXN)      a read
 *     w(KEY,VALUE,SESSION,TXN)      a write
 *     w(KEY,VALUE,SESSION,-1)       an aborted write (IsoVista)
 *
 * KEY, VALUE and SESSION are non-negative decimal u64, TXN too or exactly
 * -1 on a write. Spaces and tabs are accepted around every token, blank
 * lines and `#` comments (whole-line or after an operation) are skipped,
 * CRLF line ends and a leading UTF-8 byte order mark are fine; anything
 * else is a syntax error naming line:column and what was expected there.
 *
 * Model mapping: session and transaction ids are kept as given (the
 * builder interns them to dense indices, so sparse or huge ids cost
 * nothing and reports show the file's own ids); every transaction is
 * committed. Lines with the same TXN form one transaction in file order,
 * even when other transactions' lines come between them; a session's
 * transactions are ordered by their first line. One TXN id under two
 * sessions is refused (it cannot be one transaction, and guessing which
 * line is wrong would hide a broken recorder). A read of 0 reads the
 * initial value (PSI_OPF_INIT); a write of 0 writes the initial value
 * again (a recorded initial state, or a repeated value: core/index.h).
 *
 * TXN -1 (IsoVista's text histories): the write did not commit. IsoVista
 * keeps such writes as a bag of (key, value) pairs with no transaction of
 * their own, so each -1 line becomes its own aborted transaction (one
 * write), in its line's session, placed after that session's committed
 * transactions (aborted transactions take no part in session order). It
 * gets the first transaction id not used in the file above the largest
 * one (wrapping to the smallest free id), in file order; txn.src is its
 * line, so a read of its value is reported as G1a at the reading line and
 * the write is located at its own line. IsoVista silently drops reads
 * with TXN -1; here they are refused (a read cannot abort on its own, so
 * such a line means a broken recorder), as is any other negative TXN.
 *
 * Usually each transaction's lines are contiguous, and one pass hands the
 * operations straight to the builder with nothing stored per operation
 * (aborted writes, rare, are kept aside and built last). If a transaction
 * id comes back after another transaction's lines, reading starts over in
 * grouping mode: every line goes into a flat array of records (24 bytes
 * per operation, no per-operation allocation), grouped by TXN with an id
 * map (core/idmap.h), then handed over transaction by transaction. */
#include "formats/read.h"

#include "core/idmap.h"
#include "core/vec.h"
#include "formats/input.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct text_rec {
    uint64_t key, value;
    uint32_t group; /* index into groups[] */
    uint8_t kind;
} text_rec;

typedef struct text_group {
    uint64_t session, txn;
    uint64_t line; /* first line, for diagnostics and txn.src */
    uint32_t n_ops;
    uint32_t next; /* counting sort: next slot */
} text_group;

/* An aborted write (TXN -1), kept aside until every id in the file is known. */
typedef struct text_aborted {
    uint64_t key, value, session;
    uint64_t line; /* its line: txn.src of its transaction */
} text_aborted;

typedef struct text_aborted_vec {
    text_aborted *v;
    size_t n, cap;
} text_aborted_vec;

typedef struct text_parser {
    const char *name;
    const char *p, *end;
    const char *line_start;
    uint64_t line;
    psi_diag *d;
    const char *begin;            /* the input's first byte, for progress */
    const psi_progress *progress; /* may be NULL */
    text_aborted_vec *aborted;    /* borrowed: the TXN -1 writes read so far */
} text_parser;

/* Reports the bytes parsed so far, every PSI_INPUT_PROGRESS_EVERY ops. */
static void text_progress(const text_parser *tp, uint64_t n_ops)
{
    if (tp->progress && (n_ops & (PSI_INPUT_PROGRESS_EVERY - 1)) == 0)
        psi_progress_report(tp->progress, "load", (uint64_t)(tp->p - tp->begin),
                            (uint64_t)(tp->end - tp->begin), 0);
}

static uint64_t col_of(const text_parser *tp, const char *at)
{
    return (uint64_t)(at - tp->line_start) + 1;
}

/* What sits at `at`, for "found ..." in messages. */
static const char *describe(const text_parser *tp, const char *at, char *buf, size_t n)
{
    if (at >= tp->end)
        return "end of file";
    unsigned char c = (unsigned char)*at;
    if (c == '\n' || c == '\r')
        return "end of line";
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, n, "'%c'", c);
    else
        snprintf(buf, n, "byte 0x%02x", c);
    return buf;
}

static psi_status expected(const text_parser *tp, const char *at, const char *what)
{
    char b[16];
    return psi_diag_line(tp->d, PSI_ERR_SYNTAX, tp->name, tp->line, col_of(tp, at),
                         "expected %s, found %s", what, describe(tp, at, b, sizeof b));
}

static void skip_spaces(text_parser *tp)
{
    while (tp->p < tp->end && (*tp->p == ' ' || *tp->p == '\t'))
        tp->p++;
}

static bool at_line_end(const text_parser *tp)
{
    const char *p = tp->p;
    if (p >= tp->end || *p == '\n' || *p == '#')
        return true;
    return *p == '\r' && (p + 1 >= tp->end || p[1] == '\n');
}

/* Parses a u64 field; `what` names it in messages. */
static psi_status parse_u64(text_parser *tp, const char *what, uint64_t *v, const char **start)
{
    skip_spaces(tp);
    *start = tp->p;
    psi_digits r = psi_input_u64(&tp->p, tp->end, v);
    if (r == PSI_DIGITS_NONE) {
        char w[64];
        snprintf(w, sizeof w, "a non-negative decimal %s", what);
        return expected(tp, tp->p, w);
    }
    if (r == PSI_DIGITS_OVERFLOW)
        return psi_diag_line(tp->d, PSI_ERR_SYNTAX, tp->name, tp->line, col_of(tp, *start),
                             "%s does not fit in 64 bits (at most %llu)", what,
                             (unsigned long long)UINT64_MAX);
    return PSI_OK;
}

static psi_status expect_char(text_parser *tp, char c, const char *what)
{
    skip_spaces(tp);
    if (tp->p < tp->end && *tp->p == c) {
        tp->p++;
        return PSI_OK;
    }
    return expected(tp, tp->p, what);
}

/* Parses the TXN field: a u64, or exactly -1 on a write (*aborted set).
 * Any other negative number, and -1 on a read, is refused at its column. */
static psi_status parse_txn(text_parser *tp, char kind, uint64_t *v, bool *aborted,
                            const char **start)
{
    skip_spaces(tp);
    *aborted = false;
    const char *p = tp->p;
    if (p >= tp->end || *p != '-')
        return parse_u64(tp, "TXN", v, start);
    *start = p;
    const char *q = p + 1;
    while (q < tp->end && *q >= '0' && *q <= '9')
        q++;
    int n = (int)(q - p);
    bool minus_one = n == 2 && p[1] == '1';
    if (minus_one && kind == 'r')
        return psi_diag_line(tp->d, PSI_ERR_INPUT, tp->name, tp->line, col_of(tp, p),
                             "TXN -1 on a read: -1 marks an aborted write (IsoVista), and a "
                             "read cannot be one");
    if (!minus_one)
        return psi_diag_line(tp->d, PSI_ERR_SYNTAX, tp->name, tp->line, col_of(tp, p),
                             "negative TXN %.*s%s: TXN is a non-negative decimal, or -1 for an "
                             "aborted write (IsoVista)",
                             n > 21 ? 21 : n, p, n > 21 ? "..." : "");
    tp->p = q;
    *aborted = true;
    *v = 0;
    return PSI_OK;
}

/* One parsed operation line. */
typedef struct text_op {
    uint64_t key, value, session, txn;
    bool aborted; /* TXN -1: txn is meaningless */
    uint8_t kind;
    uint64_t line;
    uint64_t col_op, col_session; /* columns, for diagnostics */
} text_op;

/* The fast path for the usual line, `r(K,V,S,T)` with no spaces, 1 to 19
 * digits per field (so no overflow is possible) and a line end: parsed in
 * one pass over its bytes. Anything else returns false with nothing
 * consumed, and the general parser below reads (or refuses) the line, so
 * both accept exactly the same lines with the same meaning. */
static bool fast_op(text_parser *tp, text_op *op)
{
    const char *p = tp->p, *end = tp->end;
    if (end - p < 10 || (p[0] != 'r' && p[0] != 'w') || p[1] != '(')
        return false;
    const char *q = p + 2, *session_at = q;
    uint64_t f[4];
    for (int i = 0; i < 4; i++) {
        const char *s0 = q;
        uint64_t v = 0;
        for (unsigned dgt; q < end && (dgt = (unsigned)(*q - '0')) <= 9; q++)
            v = v * 10 + dgt;
        if (q == s0 || q - s0 > 19 || q >= end || *q != (i < 3 ? ',' : ')'))
            return false;
        if (i == 2)
            session_at = s0;
        f[i] = v;
        q++;
    }
    bool nl = false;
    if (q < end) {
        if (*q == '\r' && q + 1 < end)
            q++;
        if (*q != '\n')
            return false;
        q++;
        nl = true;
    }
    *op = (text_op){.key = f[0],
                    .value = f[1],
                    .session = f[2],
                    .txn = f[3],
                    .kind = p[0] == 'w' ? PSI_OP_WRITE : PSI_OP_READ,
                    .line = tp->line,
                    .col_op = col_of(tp, p),
                    .col_session = col_of(tp, session_at)};
    tp->p = q;
    if (nl) {
        tp->line_start = q;
        tp->line++;
    }
    return true;
}

/* Parses up to the next operation, skipping blank and comment lines; *have
 * is false at the end of the input. */
static psi_status next_op(text_parser *tp, text_op *op, bool *have)
{
    *have = true;
    if (fast_op(tp, op))
        return PSI_OK;
    *have = false;
    while (tp->p < tp->end) {
        skip_spaces(tp);
        if (at_line_end(tp)) {
            /* Blank line or comment: skip to the next line. */
            const char *nl = memchr(tp->p, '\n', (size_t)(tp->end - tp->p));
            if (!nl) {
                tp->p = tp->end;
                break;
            }
            tp->p = nl + 1;
            tp->line_start = tp->p;
            tp->line++;
            continue;
        }
        const char *op_start = tp->p;
        char c = *tp->p;
        if (c != 'r' && c != 'w')
            return expected(tp, tp->p, "an operation r(...) or w(...), a comment or a blank line");
        tp->p++;
        psi_status st = expect_char(tp, '(', c == 'r' ? "'(' after 'r'" : "'(' after 'w'");
        if (st != PSI_OK)
            return st;
        uint64_t f[4];
        const char *at[4];
        bool aborted = false;
        static const char *const field[3] = {"KEY", "VALUE", "SESSION"};
        for (int i = 0; i < 4; i++) {
            if (i > 0 && (st = expect_char(tp, ',', "','")) != PSI_OK)
                return st;
            st = i < 3 ? parse_u64(tp, field[i], &f[i], &at[i])
                       : parse_txn(tp, c, &f[i], &aborted, &at[i]);
            if (st != PSI_OK)
                return st;
        }
        if ((st = expect_char(tp, ')', "')' after TXN")) != PSI_OK)
            return st;
        skip_spaces(tp);
        if (!at_line_end(tp))
            return expected(tp, tp->p, "end of line after the operation");
        *op = (text_op){.key = f[0],
                        .value = f[1],
                        .session = f[2],
                        .txn = f[3],
                        .aborted = aborted,
                        .kind = c == 'w' ? PSI_OP_WRITE : PSI_OP_READ,
                        .line = tp->line,
                        .col_op = col_of(tp, op_start),
                        .col_session = col_of(tp, at[2])};
        /* Leave the parser at the next line (past a trailing comment). */
        const char *nl = memchr(tp->p, '\n', (size_t)(tp->end - tp->p));
        tp->p = nl ? nl + 1 : tp->end;
        if (nl) {
            tp->line_start = tp->p;
            tp->line++;
        }
        *have = true;
        return PSI_OK;
    }
    return PSI_OK;
}

static psi_status too_many(const text_parser *tp, const text_op *op, uint64_t limit)
{
    return psi_diag_line(tp->d, PSI_ERR_LIMIT, tp->name, op->line, op->col_op,
                         "history has more than %llu operations (the limit)",
                         (unsigned long long)limit);
}

static psi_status two_sessions(const text_parser *tp, const text_op *op, uint64_t first_session,
                               uint64_t first_line)
{
    return psi_diag_line(tp->d, PSI_ERR_INPUT, tp->name, op->line, op->col_session,
                         "transaction %llu is in session %llu here but in session %llu at "
                         "line %llu; a transaction id must belong to one session",
                         (unsigned long long)op->txn, (unsigned long long)op->session,
                         (unsigned long long)first_session, (unsigned long long)first_line);
}

static psi_status add_op(psi_builder *b, uint8_t kind, uint64_t key, uint64_t value, psi_diag *d)
{
    bool init = kind == PSI_OP_READ && value == 0;
    return psi_builder_op(b, (psi_op_kind)kind, key, value, init ? PSI_OPF_INIT : 0u, d);
}

/* Keeps an aborted write aside (both modes). */
static psi_status keep_aborted(text_parser *tp, const text_op *op)
{
    text_aborted_vec *ab = tp->aborted;
    if (!psi_grow((void **)&ab->v, &ab->cap, ab->n + 1, sizeof *ab->v))
        return psi_diag_nomem(tp->d, "storing aborted writes");
    ab->v[ab->n++] = (text_aborted){
        .key = op->key, .value = op->value, .session = op->session, .line = op->line};
    return PSI_OK;
}

/* Builds each aborted write as its own aborted transaction, after the
 * committed ones. *ids holds every TXN id of the file; each aborted
 * transaction takes the next id not in it above the largest (wrapping to
 * the smallest free one), which is added so it is not taken twice. */
static psi_status build_aborted(psi_builder *b, psi_idmap *ids, const text_aborted_vec *ab,
                                psi_diag *d)
{
    uint64_t from;
    /* from = largest id + 1 (0 when there is none, or it is UINT64_MAX). */
    from = psi_idmap_last(ids, &from) ? from + 1 : 0;
    for (size_t i = 0; i < ab->n; i++) {
        uint64_t id = from;
        if (!psi_idmap_first_empty(ids, &id)) {
            id = 0;
            /* Fewer than 2^64 ids are used, so some id is free. */
            bool found = psi_idmap_first_empty(ids, &id);
            assert(found);
            (void)found;
        }
        Word_t *slot = psi_idmap_slot(ids, id);
        if (!slot)
            return psi_diag_nomem(d, "indexing transactions");
        assert(*slot == 0);
        *slot = 1;
        from = id + 1;
        const text_aborted *a = &ab->v[i];
        psi_status st = psi_builder_begin(b, a->session, id, a->line, d);
        if (st == PSI_OK)
            st = add_op(b, PSI_OP_WRITE, a->key, a->value, d);
        if (st == PSI_OK)
            st = psi_builder_end(b, PSI_TXN_ABORTED, d);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

/* ---- Direct mode: every transaction's lines are contiguous ----
 * The usual case: operations go straight to the builder, nothing is stored
 * per operation. Returns with *interleaved set (and nothing reported) as
 * soon as a transaction id comes back after another transaction's lines. */
static psi_status read_direct(text_parser *tp, psi_builder *b, uint64_t limit, uint64_t *n_ops,
                              bool *interleaved)
{
    psi_idmap seen = {0}; /* TXN ids begun so far (slot 1) */
    bool open = false;
    uint64_t cur_txn = 0, cur_session = 0, cur_line = 0, n = 0;
    psi_status st = PSI_OK;
    text_op op;
    bool have;
    *interleaved = false;
    while ((st = next_op(tp, &op, &have)) == PSI_OK && have) {
        if (n >= limit) {
            st = too_many(tp, &op, limit);
            break;
        }
        if (op.aborted) {
            /* Not part of the open transaction, which may go on after it. */
            if ((st = keep_aborted(tp, &op)) != PSI_OK)
                break;
            text_progress(tp, ++n);
            continue;
        }
        if (!open || op.txn != cur_txn) {
            Word_t *slot = psi_idmap_slot(&seen, op.txn);
            if (!slot) {
                st = psi_diag_nomem(tp->d, "indexing transactions");
                break;
            }
            if (*slot) {
                *interleaved = true;
                break;
            }
            *slot = 1;
            if (open && (st = psi_builder_end(b, PSI_TXN_COMMITTED, tp->d)) != PSI_OK)
                break;
            if ((st = psi_builder_begin(b, op.session, op.txn, op.line, tp->d)) != PSI_OK)
                break;
            open = true;
            cur_txn = op.txn;
            cur_session = op.session;
            cur_line = op.line;
        } else if (op.session != cur_session) {
            st = two_sessions(tp, &op, cur_session, cur_line);
            break;
        }
        if ((st = add_op(b, op.kind, op.key, op.value, tp->d)) != PSI_OK)
            break;
        text_progress(tp, ++n);
    }
    if (st == PSI_OK && !*interleaved && open)
        st = psi_builder_end(b, PSI_TXN_COMMITTED, tp->d);
    if (st == PSI_OK && !*interleaved)
        st = build_aborted(b, &seen, tp->aborted, tp->d);
    psi_idmap_free(&seen);
    *n_ops = n;
    return st;
}

/* ---- Grouping mode: some transaction's lines are interleaved ----
 * Every operation is stored (24 bytes each, in one array), grouped by TXN
 * with an id map, then handed over transaction by transaction. */
typedef struct text_state {
    text_rec *recs;
    size_t n_recs, cap_recs;
    text_group *groups;
    size_t n_groups, cap_groups;
    psi_idmap txn_index; /* TXN id -> group index + 1 */
} text_state;

static psi_status parse_grouped(text_parser *tp, text_state *ts, uint64_t limit)
{
    uint64_t last_txn = 0;
    size_t last_group = SIZE_MAX;
    psi_status st;
    text_op op;
    bool have;
    while ((st = next_op(tp, &op, &have)) == PSI_OK && have) {
        if (ts->n_recs + tp->aborted->n >= limit)
            return too_many(tp, &op, limit);
        text_progress(tp, ts->n_recs + tp->aborted->n + 1);
        if (op.aborted) {
            if ((st = keep_aborted(tp, &op)) != PSI_OK)
                return st;
            continue;
        }
        /* Find the operation's transaction: usually the previous line's. */
        size_t g;
        if (last_group != SIZE_MAX && op.txn == last_txn) {
            g = last_group;
        } else {
            Word_t *slot = psi_idmap_slot(&ts->txn_index, op.txn);
            if (!slot)
                return psi_diag_nomem(tp->d, "indexing transactions");
            if (*slot == 0) {
                if (!psi_grow((void **)&ts->groups, &ts->cap_groups, ts->n_groups + 1,
                              sizeof *ts->groups))
                    return psi_diag_nomem(tp->d, "storing transactions");
                ts->groups[ts->n_groups] =
                    (text_group){.session = op.session, .txn = op.txn, .line = op.line};
                *slot = (Word_t)++ts->n_groups;
            }
            g = (size_t)(*slot - 1);
            last_group = g;
            last_txn = op.txn;
        }
        text_group *grp = &ts->groups[g];
        if (grp->session != op.session)
            return two_sessions(tp, &op, grp->session, grp->line);
        grp->n_ops++;
        if (!psi_grow((void **)&ts->recs, &ts->cap_recs, ts->n_recs + 1, sizeof *ts->recs))
            return psi_diag_nomem(tp->d, "storing operations");
        ts->recs[ts->n_recs++] =
            (text_rec){.key = op.key, .value = op.value, .group = (uint32_t)g, .kind = op.kind};
    }
    return st;
}

/* Hands the grouped transactions to the builder in order of first line:
 * a stable counting sort of the records by group. */
static psi_status build_grouped(psi_builder *b, text_state *ts, psi_diag *d)
{
    uint32_t *order = malloc((ts->n_recs ? ts->n_recs : 1) * sizeof *order);
    if (!order)
        return psi_diag_nomem(d, "grouping operations by transaction");
    uint32_t at = 0;
    for (size_t g = 0; g < ts->n_groups; g++) {
        ts->groups[g].next = at;
        at += ts->groups[g].n_ops;
    }
    for (size_t i = 0; i < ts->n_recs; i++)
        order[ts->groups[ts->recs[i].group].next++] = (uint32_t)i;
    psi_status st = PSI_OK;
    size_t i = 0;
    for (size_t g = 0; g < ts->n_groups && st == PSI_OK; g++) {
        const text_group *grp = &ts->groups[g];
        st = psi_builder_begin(b, grp->session, grp->txn, grp->line, d);
        for (uint32_t k = 0; k < grp->n_ops && st == PSI_OK; k++, i++) {
            const text_rec *r = &ts->recs[order[i]];
            st = add_op(b, r->kind, r->key, r->value, d);
        }
        if (st == PSI_OK)
            st = psi_builder_end(b, PSI_TXN_COMMITTED, d);
    }
    free(order);
    return st;
}

static psi_status read_grouped(text_parser *tp, psi_builder *b, uint64_t limit, uint64_t *n_ops)
{
    text_state ts = {0};
    psi_status st = parse_grouped(tp, &ts, limit);
    *n_ops = ts.n_recs + tp->aborted->n;
    if (st == PSI_OK)
        st = build_grouped(b, &ts, tp->d);
    if (st == PSI_OK)
        st = build_aborted(b, &ts.txn_index, tp->aborted, tp->d);
    psi_idmap_free(&ts.txn_index);
    free(ts.recs);
    free(ts.groups);
    return st;
}

psi_status psi_read_text_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             psi_history **out, psi_diag *d)
{
    return psi_read_text_mem(name, buf, len, max_ops, NULL, out, d);
}

psi_status psi_read_text_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             const psi_progress *progress, psi_history **out, psi_diag *d)
{
    *out = NULL;
    name = psi_input_name(name);
    uint64_t limit = psi_input_op_limit(max_ops);
    size_t bom = psi_input_bom(buf, len); /* not content */
    buf += bom;
    len -= bom;
    text_aborted_vec aborted = {0};
    const text_parser start = {.name = name,
                               .p = buf,
                               .end = buf + len,
                               .line_start = buf,
                               .line = 1,
                               .d = d,
                               .begin = buf,
                               .progress = progress,
                               .aborted = &aborted};
    text_parser tp = start;
    psi_builder *b = psi_builder_new(name, PSI_FMT_TEXT);
    if (!b)
        return psi_diag_nomem(d, "reading the history");
    uint64_t n_ops = 0;
    bool interleaved;
    psi_status st = read_direct(&tp, b, limit, &n_ops, &interleaved);
    if (st == PSI_OK && interleaved) {
        /* Start over, keeping every operation until all lines are seen. */
        psi_builder_free(b);
        if (!(b = psi_builder_new(name, PSI_FMT_TEXT))) {
            free(aborted.v);
            return psi_diag_nomem(d, "reading the history");
        }
        tp = start;
        aborted.n = 0; /* read again from the start */
        st = read_grouped(&tp, b, limit, &n_ops);
    }
    free(aborted.v);
    if (st == PSI_OK && n_ops == 0)
        st = psi_diag_line(d, PSI_ERR_INPUT, name, 1, 1,
                           "empty history: no r(...) or w(...) operation in the file");
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}
