/* Parsing timestamp hints (see timestamps.h). Untrusted text: any bytes. */
#include "formats/timestamps.h"

#include "core/vec.h"
#include "formats/input.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* A signed 64-bit decimal. */
static bool parse_i64(const char **p, const char *end, int64_t *out)
{
    const char *s = *p;
    bool neg = s < end && *s == '-';
    s += neg;
    uint64_t v;
    if (!psi_input_field_u64(&s, end, &v) || v > (uint64_t)INT64_MAX + neg)
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    *p = s;
    return true;
}

typedef struct ts_key {
    uint64_t sid, tid, line;
} ts_key;

static int key_cmp(const void *a, const void *b)
{
    const ts_key *x = a, *y = b;
    if (x->sid != y->sid)
        return x->sid < y->sid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static psi_status parse_line(const char *name, uint64_t line, const char *ls, const char *q,
                             const char *le, psi_ts_line *t, psi_diag *d)
{
    const char *at = q;
    *t = (psi_ts_line){.line = line};
    if (!psi_input_txn_ref(&q, le, &t->sid, &t->tid))
        goto txn;
    q = psi_input_skip_blanks(q, le);
    at = q;
    if (!parse_i64(&q, le, &t->start) || (q < le && !psi_input_blank(*q)))
        return psi_diag_line(d, PSI_ERR_SYNTAX, name, line, (uint64_t)(at - ls) + 1,
                             "expected the start timestamp (an integer)");
    q = psi_input_skip_blanks(q, le);
    at = q;
    if (!parse_i64(&q, le, &t->commit) || (q < le && !psi_input_blank(*q)))
        return psi_diag_line(d, PSI_ERR_SYNTAX, name, line, (uint64_t)(at - ls) + 1,
                             "expected the commit timestamp (an integer)");
    q = psi_input_skip_blanks(q, le);
    if (q != le)
        return psi_diag_line(d, PSI_ERR_SYNTAX, name, line, (uint64_t)(q - ls) + 1,
                             "unexpected text after the commit timestamp");
    if (t->start > t->commit)
        return psi_diag_line(d, PSI_ERR_SYNTAX, name, line, (uint64_t)(at - ls) + 1,
                             "the transaction commits (%lld) before it starts (%lld)",
                             (long long)t->commit, (long long)t->start);
    return PSI_OK;
txn:
    return psi_diag_line(d, PSI_ERR_SYNTAX, name, line, (uint64_t)(at - ls) + 1,
                         "expected a transaction written (SESSION,ID)");
}

/* A transaction given twice: named with both lines. */
static psi_status duplicates(const char *name, const psi_ts_list *l, psi_diag *d)
{
    ts_key *k = malloc((l->n ? l->n : 1) * sizeof *k);
    if (!k)
        return psi_diag_nomem(d, "reading timestamps");
    for (size_t i = 0; i < l->n; i++)
        k[i] = (ts_key){l->e[i].sid, l->e[i].tid, l->e[i].line};
    if (l->n)
        qsort(k, l->n, sizeof *k, key_cmp);
    psi_status st = PSI_OK;
    for (size_t i = 1; i < l->n && st == PSI_OK; i++)
        if (k[i].sid == k[i - 1].sid && k[i].tid == k[i - 1].tid)
            st = psi_diag_line(d, PSI_ERR_SYNTAX, name, k[i].line, 1,
                               "(%llu,%llu) already has timestamps (line %llu)",
                               (unsigned long long)k[i].sid, (unsigned long long)k[i].tid,
                               (unsigned long long)k[i - 1].line);
    free(k);
    return st;
}

psi_status psi_ts_parse(const char *name, const char *text, size_t len, psi_ts_list *out,
                        psi_diag *d)
{
    memset(out, 0, sizeof *out);
    psi_lines it = {.buf = text, .len = len};
    size_t start, stop, cap = 0;
    psi_status st = PSI_OK;
    while (st == PSI_OK && psi_next_line(&it, &start, &stop)) {
        const char *ls = text + start, *le = text + stop;
        const char *nul = memchr(ls, '\0', stop - start);
        if (nul) {
            st = psi_diag_line(d, PSI_ERR_SYNTAX, name, it.line, (uint64_t)(nul - ls) + 1,
                               "NUL byte in the timestamps");
            break;
        }
        const char *q = psi_input_skip_blanks(ls, le);
        if (q == le || *q == '#')
            continue;
        if (!psi_grow((void **)&out->e, &cap, out->n + 1, sizeof *out->e)) {
            st = psi_diag_nomem(d, "reading timestamps");
            break;
        }
        st = parse_line(name, it.line, ls, q, le, &out->e[out->n], d);
        out->n += st == PSI_OK;
    }
    if (st == PSI_OK)
        st = duplicates(name, out, d);
    if (st != PSI_OK)
        psi_ts_list_free(out);
    return st;
}

void psi_ts_list_free(psi_ts_list *l)
{
    free(l->e);
    memset(l, 0, sizeof *l);
}
