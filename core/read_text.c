/* Reader of the PolySI text format (formats.md §1):
 *
 *     r(KEY,VALUE,SESSION,TXN)      a read
 *     w(KEY,VALUE,SESSION,TXN)      a write
 *
 * all four fields non-negative decimal u64. Spaces and tabs are accepted
 * around every token, blank lines and `#` comments (whole-line or after an
 * operation) are skipped, CRLF line ends are fine; anything else is a syntax
 * error naming line:column and what was expected there.
 *
 * Model mapping: session and transaction ids are kept as given; every
 * transaction is committed. Lines with the same TXN form one transaction in
 * file order, even when other transactions' lines come between them; a
 * session's transactions are ordered by their first line. One TXN id under
 * two sessions is refused (it cannot be one transaction, and guessing which
 * line is wrong would hide a broken recorder). A read of 0 reads the initial
 * value (PSI_OPF_INIT); a write of 0 is refused, since it would be
 * indistinguishable from the initial transaction's write.
 *
 * One pass parses every line into a flat array of records (24 bytes per
 * operation, no per-operation allocation), grouping lines by TXN with a
 * JudyL map; the records are then handed to the builder transaction by
 * transaction (a counting sort by group only when transactions interleave). */
#include "core/read.h"

#include "core/vec.h"

#include <Judy.h>
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

typedef struct text_parser {
    const char *name;
    const char *p, *end;
    const char *line_start;
    uint64_t line;
    psi_diag *d;
} text_parser;

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
    if (tp->p >= tp->end || *tp->p < '0' || *tp->p > '9') {
        char w[64];
        snprintf(w, sizeof w, "a non-negative decimal %s", what);
        return expected(tp, tp->p, w);
    }
    uint64_t x = 0;
    while (tp->p < tp->end && *tp->p >= '0' && *tp->p <= '9') {
        unsigned dgt = (unsigned)(*tp->p - '0');
        if (x > (UINT64_MAX - dgt) / 10)
            return psi_diag_line(tp->d, PSI_ERR_SYNTAX, tp->name, tp->line, col_of(tp, *start),
                                 "%s does not fit in 64 bits (at most %llu)", what,
                                 (unsigned long long)UINT64_MAX);
        x = x * 10 + dgt;
        tp->p++;
    }
    *v = x;
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

typedef struct text_state {
    text_rec *recs;
    size_t n_recs, cap_recs;
    text_group *groups;
    size_t n_groups, cap_groups;
    Pvoid_t txn_index; /* JudyL: TXN id -> group index + 1 */
    bool interleaved;  /* some transaction's lines are not contiguous */
} text_state;

static psi_status parse(text_parser *tp, text_state *ts, uint64_t limit)
{
    uint64_t last_txn = 0;
    size_t last_group = SIZE_MAX;
    while (tp->p < tp->end) {
        skip_spaces(tp);
        if (!at_line_end(tp)) {
            const char *op_start = tp->p;
            char c = *tp->p;
            if (c != 'r' && c != 'w')
                return expected(tp, tp->p,
                                "an operation r(...) or w(...), a comment or a "
                                "blank line");
            tp->p++;
            psi_status st = expect_char(tp, '(', c == 'r' ? "'(' after 'r'" : "'(' after 'w'");
            if (st != PSI_OK)
                return st;
            uint64_t f[4];
            const char *at[4];
            static const char *const field[4] = {"KEY", "VALUE", "SESSION", "TXN"};
            for (int i = 0; i < 4; i++) {
                if (i > 0 && (st = expect_char(tp, ',', "','")) != PSI_OK)
                    return st;
                if ((st = parse_u64(tp, field[i], &f[i], &at[i])) != PSI_OK)
                    return st;
            }
            if ((st = expect_char(tp, ')', "')' after TXN")) != PSI_OK)
                return st;
            skip_spaces(tp);
            if (!at_line_end(tp))
                return expected(tp, tp->p, "end of line after the operation");

            if (ts->n_recs >= limit)
                return psi_diag_line(tp->d, PSI_ERR_LIMIT, tp->name, tp->line, col_of(tp, op_start),
                                     "history has more than %llu operations (the limit)",
                                     (unsigned long long)limit);
            if (c == 'w' && f[1] == 0)
                return psi_diag_line(
                    tp->d, PSI_ERR_INPUT, tp->name, tp->line, col_of(tp, at[1]),
                    "write of value 0 to key %llu: 0 is the initial value of every key, "
                    "so reads of it would be ambiguous",
                    (unsigned long long)f[0]);

            /* Find the operation's transaction: usually the previous line's. */
            size_t g;
            if (last_group != SIZE_MAX && f[3] == last_txn) {
                g = last_group;
            } else {
                Word_t *slot;
                JLI(slot, ts->txn_index, (Word_t)f[3]);
                if (slot == PJERR)
                    return psi_diag_nomem(tp->d, "indexing transactions");
                if (*slot == 0) {
                    if (!psi_grow((void **)&ts->groups, &ts->cap_groups, ts->n_groups + 1,
                                  sizeof *ts->groups))
                        return psi_diag_nomem(tp->d, "storing transactions");
                    ts->groups[ts->n_groups] =
                        (text_group){.session = f[2], .txn = f[3], .line = tp->line};
                    *slot = (Word_t)++ts->n_groups;
                } else if (*slot - 1 != last_group) {
                    ts->interleaved = true;
                }
                g = (size_t)(*slot - 1);
                last_group = g;
                last_txn = f[3];
            }
            text_group *grp = &ts->groups[g];
            if (grp->session != f[2])
                return psi_diag_line(tp->d, PSI_ERR_INPUT, tp->name, tp->line, col_of(tp, at[2]),
                                     "transaction %llu is in session %llu here but in session "
                                     "%llu at line %llu; a transaction id must belong to one "
                                     "session",
                                     (unsigned long long)f[3], (unsigned long long)f[2],
                                     (unsigned long long)grp->session,
                                     (unsigned long long)grp->line);
            if (grp->n_ops == UINT32_MAX - 1)
                return psi_diag_line(tp->d, PSI_ERR_LIMIT, tp->name, tp->line, col_of(tp, op_start),
                                     "transaction %llu has too many operations",
                                     (unsigned long long)f[3]);
            grp->n_ops++;
            if (!psi_grow((void **)&ts->recs, &ts->cap_recs, ts->n_recs + 1, sizeof *ts->recs))
                return psi_diag_nomem(tp->d, "storing operations");
            ts->recs[ts->n_recs++] = (text_rec){.key = f[0],
                                                .value = f[1],
                                                .group = (uint32_t)g,
                                                .kind = c == 'w' ? PSI_OP_WRITE : PSI_OP_READ};
        }
        /* Skip the rest of the line (a comment, or the line end). */
        const char *nl = memchr(tp->p, '\n', (size_t)(tp->end - tp->p));
        if (!nl)
            break;
        tp->p = nl + 1;
        tp->line_start = tp->p;
        tp->line++;
    }
    return PSI_OK;
}

static psi_status add_op(psi_builder *b, const text_rec *r, psi_diag *d)
{
    bool init = r->kind == PSI_OP_READ && r->value == 0;
    return psi_builder_op(b, (psi_op_kind)r->kind, r->key, r->value, init ? PSI_OPF_INIT : 0u, d);
}

/* Hands the parsed transactions to the builder in order of first line. */
static psi_status build(const char *name, text_state *ts, psi_history **out, psi_diag *d)
{
    psi_builder *b = psi_builder_new(name, PSI_FMT_TEXT);
    if (!b)
        return psi_diag_nomem(d, "reading the history");
    psi_status st = PSI_OK;
    uint32_t *order = NULL;
    if (ts->interleaved) {
        /* Counting sort of records by group, stable (file order). */
        order = malloc(ts->n_recs * sizeof *order);
        if (!order) {
            psi_builder_free(b);
            return psi_diag_nomem(d, "grouping operations by transaction");
        }
        uint32_t at = 0;
        for (size_t g = 0; g < ts->n_groups; g++) {
            ts->groups[g].next = at;
            at += ts->groups[g].n_ops;
        }
        for (size_t i = 0; i < ts->n_recs; i++)
            order[ts->groups[ts->recs[i].group].next++] = (uint32_t)i;
    }
    size_t i = 0;
    for (size_t g = 0; g < ts->n_groups && st == PSI_OK; g++) {
        const text_group *grp = &ts->groups[g];
        st = psi_builder_begin(b, grp->session, grp->txn, grp->line, d);
        for (uint32_t k = 0; k < grp->n_ops && st == PSI_OK; k++, i++)
            st = add_op(b, &ts->recs[order ? order[i] : i], d);
        if (st == PSI_OK)
            st = psi_builder_end(b, PSI_TXN_COMMITTED, d);
    }
    free(order);
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}

psi_status psi_read_text_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                             psi_history **out, psi_diag *d)
{
    *out = NULL;
    if (!name)
        name = "<input>";
    uint64_t limit = max_ops && max_ops < PSI_MAX_OPS ? max_ops : PSI_MAX_OPS;
    text_parser tp = {
        .name = name, .p = buf, .end = buf + len, .line_start = buf, .line = 1, .d = d};
    text_state ts = {0};
    psi_status st = parse(&tp, &ts, limit);
    if (st == PSI_OK && ts.n_recs == 0)
        st = psi_diag_line(d, PSI_ERR_INPUT, name, 1, 1,
                           "empty history: no r(...) or w(...) operation in the file");
    Word_t freed;
    JLFA(freed, ts.txn_index);
    (void)freed;
    if (st == PSI_OK)
        st = build(name, &ts, out, d);
    free(ts.recs);
    free(ts.groups);
    return st;
}
