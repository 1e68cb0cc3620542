/* Reader for AWDIT's test format (formats.md §6), a human-friendly text
 * format used by AWDIT's own tests:
 *     w 0 0        one operation per line: r|w KEY VALUE
 *     w 1 0
 *     =====        the next session starts
 *     w 0 1
 *     -----        the next transaction of the session starts
 *     r 0 1
 * Sessions are numbered 0, 1, ... in file order, every transaction is
 * committed, and a transaction's id (and src) is the line of its first
 * operation, so reports point at it. Blank lines are skipped; a line of
 * three or more '-' (or '=') is a separator, and repeated separators do not
 * make empty transactions.
 *
 * Initial state: AWDIT records every write, the initial ones included, and
 * a read must read a recorded write. So by default (`recorded`) a read of 0
 * is an ordinary read of whichever transaction wrote 0, and writes of 0 are
 * ordinary writes. With `recorded` false (--initial-state implicit) the
 * format reads like PolySI's text: a read of 0 reads the implicit initial
 * value and a write of 0 is refused as ambiguous.
 *
 * Diagnostics name the line and the column (in bytes, as the text reader). */
#include "formats/read.h"

#include "formats/input.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct awdit_reader {
    const char *name;
    const char *buf;
    psi_diag *d;
    psi_builder *b;
    uint64_t limit;
    bool recorded;
    bool open;        /* a transaction has begun and not ended */
    uint64_t session; /* the current session's number */
} awdit_reader;

static psi_status at(const awdit_reader *r, psi_status st, uint64_t line, size_t col,
                     const char *msg)
{
    return psi_diag_line(r->d, st, r->name, line, col, "%s", msg);
}

static bool is_sp(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Whether [s, e) is a separator line made of `c` (at least three). */
static bool is_separator(const char *s, const char *e, char c)
{
    size_t n = 0;
    while (s < e && *s == c) {
        s++;
        n++;
    }
    while (s < e && is_sp(*s))
        s++;
    return n >= 3 && s == e;
}

static psi_status end_txn(awdit_reader *r)
{
    if (!r->open)
        return PSI_OK;
    r->open = false;
    return psi_builder_end(r->b, PSI_TXN_COMMITTED, r->d);
}

/* A field: spaces, then a decimal u64. */
static psi_status field(const awdit_reader *r, const char **p, const char *e, const char *ls,
                        uint64_t line, const char *what, uint64_t *v)
{
    const char *q = *p;
    if (q >= e || !is_sp(*q)) {
        char msg[96];
        snprintf(msg, sizeof msg, "expected a space and the %s", what);
        return at(r, PSI_ERR_SYNTAX, line, (size_t)(q - ls) + 1, msg);
    }
    while (q < e && is_sp(*q))
        q++;
    const char *start = q;
    psi_digits dg = psi_input_u64(&q, e, v);
    if (dg != PSI_DIGITS_OK || (q < e && !is_sp(*q))) {
        char msg[128];
        snprintf(msg, sizeof msg,
                 dg == PSI_DIGITS_OVERFLOW ? "%s does not fit 64 bits"
                                           : "expected the %s (a non-negative decimal integer)",
                 what);
        return at(r, PSI_ERR_SYNTAX, line, (size_t)(start - ls) + 1, msg);
    }
    *p = q;
    return PSI_OK;
}

static psi_status op_line(awdit_reader *r, const char *ls, const char *s, const char *e,
                          uint64_t line)
{
    char c = *s;
    uint64_t key, value;
    const char *p = s + 1, *vstart;
    psi_status st = field(r, &p, e, ls, line, "key", &key);
    if (st != PSI_OK)
        return st;
    vstart = p;
    while (vstart < e && is_sp(*vstart))
        vstart++;
    if ((st = field(r, &p, e, ls, line, "value", &value)) != PSI_OK)
        return st;
    while (p < e && is_sp(*p))
        p++;
    if (p < e)
        return at(r, PSI_ERR_SYNTAX, line, (size_t)(p - ls) + 1,
                  "unexpected text after the operation (r|w KEY VALUE)");
    if (c == 'w' && value == 0 && !r->recorded) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "write of value 0 to key %llu: with --initial-state implicit, 0 is the "
                 "initial value of every key, so reads of it would be ambiguous",
                 (unsigned long long)key);
        return at(r, PSI_ERR_INPUT, line, (size_t)(vstart - ls) + 1, msg);
    }
    if (!r->open) {
        if ((st = psi_builder_begin(r->b, r->session, line, line, r->d)) != PSI_OK)
            return st;
        r->open = true;
    }
    if (psi_builder_n_ops(r->b) >= r->limit)
        return at(r, PSI_ERR_LIMIT, line, (size_t)(s - ls) + 1,
                  "history has more operations than the limit");
    bool init = c == 'r' && value == 0 && !r->recorded;
    return psi_builder_op(r->b, c == 'w' ? PSI_OP_WRITE : PSI_OP_READ, key, value,
                          init ? PSI_OPF_INIT : 0u, r->d);
}

psi_status psi_read_awdit_mem(const char *name, const char *buf, size_t len, uint64_t max_ops,
                              bool recorded, const psi_progress *progress, psi_history **out,
                              psi_diag *d)
{
    *out = NULL;
    name = psi_input_name(name);
    awdit_reader r = {.name = name,
                      .buf = buf,
                      .d = d,
                      .limit = psi_input_op_limit(max_ops),
                      .recorded = recorded};
    r.b = psi_builder_new(name, PSI_FMT_AWDIT);
    if (!r.b)
        return psi_diag_nomem(d, "starting an AWDIT history");
    psi_lines it = {.buf = buf, .len = len, .pos = psi_input_bom(buf, len)};
    size_t s0, e0;
    psi_status st = PSI_OK;
    while (st == PSI_OK && psi_next_line(&it, &s0, &e0)) {
        const char *ls = buf + s0, *s = ls, *e = buf + e0;
        while (s < e && is_sp(*s))
            s++;
        if (s == e)
            continue;
        if (progress && (it.line & (PSI_INPUT_PROGRESS_EVERY - 1)) == 0)
            psi_progress_report(progress, "load", s0, len, 0);
        if (is_separator(s, e, '-')) {
            st = end_txn(&r);
        } else if (is_separator(s, e, '=')) {
            st = end_txn(&r);
            r.session++;
        } else if (*s == 'r' || *s == 'w') {
            st = op_line(&r, ls, s, e, it.line);
        } else {
            st = at(&r, PSI_ERR_SYNTAX, it.line, (size_t)(s - ls) + 1,
                    "expected r KEY VALUE, w KEY VALUE, ----- (next transaction) or ===== "
                    "(next session)");
        }
    }
    if (st == PSI_OK)
        st = end_txn(&r);
    if (st == PSI_OK && psi_builder_n_txns(r.b) == 0)
        st = at(&r, PSI_ERR_INPUT, 1, 1, "empty history: no operation in the file");
    if (st != PSI_OK) {
        psi_builder_free(r.b);
        return st;
    }
    psi_history *h;
    st = psi_builder_finish(r.b, &h, d);
    if (st == PSI_OK) {
        h->initial_state = recorded ? PSI_INITIAL_RECORDED : PSI_INITIAL_IMPLICIT;
        *out = h;
    }
    return st;
}

psi_status psi_read_awdit_buf(const char *name, const char *buf, size_t len, uint64_t max_ops,
                              psi_history **out, psi_diag *d)
{
    return psi_read_awdit_mem(name, buf, len, max_ops, true, NULL, out, d);
}
