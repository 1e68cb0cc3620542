/* Parsing and writing the witness text format (see witness.h). The text is
 * untrusted: any bytes are handled, and whatever does not parse is a syntax
 * error naming line and column (in bytes, from 1). */
#include "formats/witness.h"

#include "core/vec.h"
#include "formats/input.h"

#include <stdlib.h>
#include <string.h>

/* Parser state: the witness being filled and its arrays' capacities. */
typedef struct wparse {
    const char *name;
    psi_diag *d;
    psi_witness *w;
    bool has_header;
    size_t cap_tx, cap_keys, cap_reads, cap_chains;
} wparse;

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && is_blank(*p))
        p++;
    return p;
}

/* An unsigned decimal at *p (< end); false, leaving *p where it was, if
 * there is none or it does not fit 64 bits. */
static bool parse_u64(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    if (psi_input_u64(&s, end, out) != PSI_DIGITS_OK)
        return false;
    *p = s;
    return true;
}

static psi_status syntax(wparse *ps, uint64_t line, const char *ls, const char *at,
                         const char *what)
{
    return psi_diag_line(ps->d, PSI_ERR_SYNTAX, ps->name, line, (uint64_t)(at - ls) + 1, "%s",
                         what);
}

/* Transactions "(S,ID)" separated by blanks until the end of the line. */
static psi_status parse_txns(wparse *ps, uint64_t line, const char *ls, const char *p,
                             const char *end, psi_witness_line *out)
{
    psi_witness *w = ps->w;
    out->first = w->n_tx;
    out->line = line;
    for (;;) {
        p = skip_blanks(p, end);
        if (p >= end)
            break;
        psi_witness_txn t = {.line = line};
        const char *at = p;
        if (*p != '(')
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        p++;
        if (!parse_u64(&p, end, &t.sid) || p >= end || *p != ',')
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        p++;
        if (!parse_u64(&p, end, &t.tid) || p >= end || *p != ')')
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        p++;
        if (p < end && !is_blank(*p))
            return syntax(ps, line, ls, p, "expected a blank after a transaction");
        if (!psi_grow((void **)&w->tx, &ps->cap_tx, w->n_tx + 1, sizeof *w->tx))
            return psi_diag_nomem(ps->d, "reading a witness");
        w->tx[w->n_tx++] = t;
    }
    out->n = w->n_tx - out->first;
    return PSI_OK;
}

/* One transaction "(S,ID)" at *p, followed by a blank or the line's end. */
static bool parse_one_txn(const char **p, const char *end, psi_witness_txn *t)
{
    const char *q = *p;
    if (q >= end || *q != '(')
        return false;
    q++;
    if (!parse_u64(&q, end, &t->sid) || q >= end || *q != ',')
        return false;
    q++;
    if (!parse_u64(&q, end, &t->tid) || q >= end || *q != ')')
        return false;
    q++;
    if (q < end && !is_blank(*q))
        return false;
    *p = q;
    return true;
}

/* Whether the word wd (followed by a blank or the line's end) is at *p;
 * if so *p moves past it. */
static bool word(const char **p, const char *end, const char *wd)
{
    size_t n = strlen(wd);
    if ((size_t)(end - *p) < n || memcmp(*p, wd, n) != 0)
        return false;
    if ((size_t)(end - *p) > n && !is_blank((*p)[n]))
        return false;
    *p += n;
    return true;
}

/* The header line, "polysi-witness 1", at q. */
static psi_status parse_header(wparse *ps, uint64_t line, const char *ls, const char *q,
                               const char *le)
{
    uint64_t v;
    if (!word(&q, le, "polysi-witness"))
        return syntax(ps, line, ls, q, "expected the header 'polysi-witness 1'");
    q = skip_blanks(q, le);
    if (!parse_u64(&q, le, &v) || v < 1 || v > 3)
        return syntax(ps, line, ls, q, "unsupported witness version (expected 1, 2 or 3)");
    ps->w->version = (unsigned)v;
    q = skip_blanks(q, le);
    if (q != le)
        return syntax(ps, line, ls, q, "unexpected text after the header");
    ps->has_header = true;
    return PSI_OK;
}

/* A line after the header, at q (its first non-blank byte). */
static psi_status parse_directive(wparse *ps, uint64_t line, const char *ls, const char *q,
                                  const char *le)
{
    psi_witness *w = ps->w;
    bool chain = false; /* a chain line (version 3), parsed like a key line */
    if (word(&q, le, "isolation")) {
        q = skip_blanks(q, le);
        const char *at = q;
        if (word(&q, le, "si"))
            w->ser = false;
        else if (word(&q, le, "ser"))
            w->ser = true;
        else
            return syntax(ps, line, ls, at, "expected 'si' or 'ser'");
        q = skip_blanks(q, le);
        if (q != le)
            return syntax(ps, line, ls, q, "unexpected text after the isolation level");
        if (w->has_isolation)
            return syntax(ps, line, ls, ls, "isolation given twice");
        w->has_isolation = true;
    } else if (word(&q, le, "key") || (w->version >= 3 && (chain = word(&q, le, "chain")))) {
        q = skip_blanks(q, le);
        psi_witness_line kl;
        const char *at = q;
        uint64_t key;
        if (!parse_u64(&q, le, &key) || (q < le && !is_blank(*q)))
            return syntax(ps, line, ls, at, "expected a key (an unsigned integer)");
        psi_status st = parse_txns(ps, line, ls, q, le, &kl);
        if (st != PSI_OK)
            return st;
        kl.key = key;
        if (chain) {
            if (!psi_grow((void **)&w->chains, &ps->cap_chains, w->n_chains + 1, sizeof *w->chains))
                return psi_diag_nomem(ps->d, "reading a witness");
            w->chains[w->n_chains++] = kl;
        } else {
            if (!psi_grow((void **)&w->keys, &ps->cap_keys, w->n_keys + 1, sizeof *w->keys))
                return psi_diag_nomem(ps->d, "reading a witness");
            w->keys[w->n_keys++] = kl;
        }
    } else if (word(&q, le, "order")) {
        psi_witness_line ol = {0};
        psi_status st = parse_txns(ps, line, ls, q, le, &ol);
        if (st != PSI_OK)
            return st;
        /* A second order line is well-formed; the checker refuses it. */
        if (w->has_order) {
            if (!w->second_order_line)
                w->second_order_line = line;
        } else {
            w->order = ol;
            w->has_order = true;
        }
    } else if (w->version >= 2 && word(&q, le, "init")) {
        q = skip_blanks(q, le);
        psi_witness_txn t = {.line = line};
        const char *at = q;
        if (!parse_one_txn(&q, le, &t))
            return syntax(ps, line, ls, at, "expected a transaction written (SESSION,ID)");
        q = skip_blanks(q, le);
        if (q != le)
            return syntax(ps, line, ls, q, "unexpected text after the initial transaction");
        if (w->has_init) {
            if (!w->second_init_line)
                w->second_init_line = line;
        } else {
            w->init = t;
            w->has_init = true;
        }
    } else if (w->version >= 2 && word(&q, le, "read")) {
        psi_witness_read r = {.line = line, .reader.line = line, .writer.line = line};
        q = skip_blanks(q, le);
        const char *at = q;
        if (!parse_one_txn(&q, le, &r.reader))
            return syntax(ps, line, ls, at, "expected the reader written (SESSION,ID)");
        q = skip_blanks(q, le);
        at = q;
        if (!parse_u64(&q, le, &r.key) || (q < le && !is_blank(*q)))
            return syntax(ps, line, ls, at, "expected a key (an unsigned integer)");
        q = skip_blanks(q, le);
        at = q;
        if (word(&q, le, "init"))
            r.init = true;
        else if (!parse_one_txn(&q, le, &r.writer))
            return syntax(ps, line, ls, at, "expected the writer written (SESSION,ID), or init");
        q = skip_blanks(q, le);
        if (q != le)
            return syntax(ps, line, ls, q, "unexpected text after the writer");
        if (!psi_grow((void **)&w->reads, &ps->cap_reads, w->n_reads + 1, sizeof *w->reads))
            return psi_diag_nomem(ps->d, "reading a witness");
        w->reads[w->n_reads++] = r;
    } else {
        return syntax(ps, line, ls, q,
                      w->version >= 3   ? "expected 'key', 'chain', 'order', 'isolation', 'init' "
                                          "or 'read'"
                      : w->version >= 2 ? "expected 'key', 'order', 'isolation', 'init' or 'read'"
                                        : "expected 'key', 'order' or 'isolation'");
    }
    return PSI_OK;
}

static psi_status parse(wparse *ps, const char *text, size_t len)
{
    psi_lines it = {.buf = text, .len = len};
    size_t start, stop;
    while (psi_next_line(&it, &start, &stop)) {
        const char *ls = text + start, *le = text + stop;
        const char *nul = memchr(ls, '\0', stop - start);
        if (nul)
            return syntax(ps, it.line, ls, nul, "NUL byte in the witness");
        const char *q = skip_blanks(ls, le);
        if (q == le || *q == '#')
            continue;
        psi_status st = ps->has_header ? parse_directive(ps, it.line, ls, q, le)
                                       : parse_header(ps, it.line, ls, q, le);
        if (st != PSI_OK)
            return st;
    }
    if (!ps->has_header)
        return psi_diag_set(ps->d, PSI_ERR_SYNTAX, "%s: not a witness (no 'polysi-witness 1' line)",
                            ps->name);
    return PSI_OK;
}

psi_status psi_witness_parse(const char *name, const char *text, size_t len, psi_witness *out,
                             psi_diag *d)
{
    memset(out, 0, sizeof *out);
    wparse ps = {.name = name, .d = d, .w = out};
    psi_status st = parse(&ps, text, len);
    if (st != PSI_OK)
        psi_witness_free(out);
    return st;
}

static void put_line(const psi_witness *w, const psi_witness_line *l, FILE *f)
{
    for (size_t i = l->first; i < l->first + l->n; i++)
        fprintf(f, " (%llu,%llu)", (unsigned long long)w->tx[i].sid,
                (unsigned long long)w->tx[i].tid);
    fputc('\n', f);
}

psi_status psi_witness_write(const psi_witness *w, const char *history, FILE *f, const char *path,
                             psi_diag *d)
{
    fprintf(f,
            "# polysi-solve witness for %s: the version order of every key, first\n"
            "# installed first (the initial value precedes them all)%s.\n"
            "# Re-check with: polysi-solve verify-witness%s HISTORY THIS-FILE\n",
            history ? history : "a history", w->has_order ? ", and a serialization order" : "",
            w->ser ? " --isolation ser" : "");
    bool v2 = w->has_init || w->n_reads;
    fputs(w->n_chains ? "polysi-witness 3\n" : v2 ? "polysi-witness 2\n" : "polysi-witness 1\n", f);
    if (w->has_isolation)
        fprintf(f, "isolation %s\n", w->ser ? "ser" : "si");
    if (w->has_init)
        fprintf(f, "init (%llu,%llu)\n", (unsigned long long)w->init.sid,
                (unsigned long long)w->init.tid);
    for (size_t k = 0; k < w->n_keys; k++) {
        fprintf(f, "key %llu", (unsigned long long)w->keys[k].key);
        put_line(w, &w->keys[k], f);
    }
    for (size_t k = 0; k < w->n_chains; k++) {
        fprintf(f, "chain %llu", (unsigned long long)w->chains[k].key);
        put_line(w, &w->chains[k], f);
    }
    if (w->has_order) {
        fputs("order", f);
        put_line(w, &w->order, f);
    }
    for (size_t i = 0; i < w->n_reads; i++) {
        const psi_witness_read *r = &w->reads[i];
        fprintf(f, "read (%llu,%llu) %llu", (unsigned long long)r->reader.sid,
                (unsigned long long)r->reader.tid, (unsigned long long)r->key);
        if (r->init)
            fputs(" init\n", f);
        else
            fprintf(f, " (%llu,%llu)\n", (unsigned long long)r->writer.sid,
                    (unsigned long long)r->writer.tid);
    }
    if (ferror(f))
        return psi_diag_set(d, PSI_ERR_IO, "%s: cannot write the witness",
                            path ? path : "<output>");
    return PSI_OK;
}

void psi_witness_free(psi_witness *w)
{
    free(w->tx);
    free(w->keys);
    free(w->reads);
    free(w->chains);
    memset(w, 0, sizeof *w);
}
