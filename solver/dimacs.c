/* DIMACS CNF and GNF (MonoSAT's graph extension, acyclicity subset) reader,
 * and the loader that turns a parsed file into a solver plus theory.
 *
 * The parser is a hand-written scanner over a memory buffer: every read is
 * bounds-checked, numbers are range-checked before they are stored, and
 * nothing is allocated from declared counts (a header may lie), so hostile
 * input yields an error with line and column, never a crash. */
#include "dimacs.h"

#include "theory.h"
#include "vec.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VARS  (INT32_MAX / 2 - 1)
#define MAX_NODES (1u << 26)

typedef struct cursor {
    const char *p, *end;
    uint64_t line, col;
    psi_dimacs_error *err;
} cursor;

static int fail(cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(cursor *c, const char *fmt, ...)
{
    if (c->err) {
        c->err->line = c->line;
        c->err->col = c->col;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->err->msg, sizeof c->err->msg, fmt, ap);
        va_end(ap);
    }
    return PSI_DIMACS_ESYNTAX;
}

static int nomem(cursor *c)
{
    if (c->err) {
        c->err->line = c->err->col = 0;
        snprintf(c->err->msg, sizeof c->err->msg, "out of memory");
    }
    return PSI_DIMACS_ENOMEM;
}

static int peek(const cursor *c)
{
    return c->p < c->end ? (unsigned char)*c->p : EOF;
}

static void advance(cursor *c)
{
    if (*c->p++ == '\n')
        c->line++, c->col = 1;
    else
        c->col++;
}

static bool is_space(int ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n' || ch == '\v' || ch == '\f';
}

static void skip_space(cursor *c)
{
    while (c->p < c->end && is_space((unsigned char)*c->p))
        advance(c);
}

/* Skips blanks but not line ends; true if something else follows on the line. */
static bool more_on_line(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\r'))
        advance(c);
    return c->p < c->end && *c->p != '\n';
}

static void skip_line(cursor *c)
{
    while (c->p < c->end && *c->p != '\n')
        advance(c);
}

/* Reads a word of letters, digits and '_' into w (truncated to cap-1). */
static void read_word(cursor *c, char *w, size_t cap)
{
    size_t n = 0;
    while (c->p < c->end) {
        int ch = (unsigned char)*c->p;
        if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '_'))
            break;
        if (n + 1 < cap)
            w[n++] = (char)ch;
        advance(c);
    }
    w[n] = 0;
}

/* Reads a decimal integer with optional '-' and magnitude at most max. */
static int read_int(cursor *c, int64_t max, int64_t *out, const char *what)
{
    skip_space(c);
    uint64_t line = c->line, col = c->col;
    bool neg = false;
    if (peek(c) == '-') {
        neg = true;
        advance(c);
    }
    if (peek(c) < '0' || peek(c) > '9')
        return fail(c, "expected %s (an integer)", what);
    uint64_t v = 0;
    while (peek(c) >= '0' && peek(c) <= '9') {
        v = v * 10 + (uint64_t)(peek(c) - '0');
        if (v > (uint64_t)max) {
            c->line = line;
            c->col = col;
            return fail(c, "%s is too large (at most %lld)", what, (long long)max);
        }
        advance(c);
    }
    int ch = peek(c);
    if (ch != EOF && !is_space(ch))
        return fail(c, "unexpected character '%c' in %s", ch, what);
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

static int read_nonneg(cursor *c, int64_t max, int64_t *out, const char *what)
{
    skip_space(c);
    uint64_t line = c->line, col = c->col;
    int rc = read_int(c, max, out, what);
    if (!rc && *out < 0) {
        c->line = line;
        c->col = col;
        return fail(c, "%s must not be negative", what);
    }
    return rc;
}

static bool push_lit(psi_dimacs *d, int lit)
{
    if (!psi_grow_array((void **)&d->lits, &d->lits_cap, d->nlits + 1, sizeof *d->lits))
        return false;
    d->lits[d->nlits++] = lit;
    return true;
}

static int64_t find_graph(const psi_dimacs *d, int64_t id)
{
    for (size_t i = 0; i < d->ngraphs; i++)
        if (d->graphs[i].id == id)
            return (int64_t)i;
    return -1;
}

typedef struct acyc_decl {
    uint64_t line, col;
    int var;
} acyc_decl;

static int parse_digraph(cursor *c, psi_dimacs *d)
{
    skip_space(c);
    int ch = peek(c);
    if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
        char w[16];
        read_word(c, w, sizeof w);
        if (strcmp(w, "int") && strcmp(w, "long") && strcmp(w, "float") && strcmp(w, "double"))
            return fail(c, "unknown digraph weight type '%s'", w);
    }
    int64_t nodes, edges, id;
    int rc;
    if ((rc = read_nonneg(c, MAX_NODES, &nodes, "node count")) ||
        (rc = read_nonneg(c, INT64_MAX / 4, &edges, "edge count")) ||
        (rc = read_nonneg(c, INT64_MAX / 4, &id, "graph id")))
        return rc;
    if (find_graph(d, id) >= 0)
        return fail(c, "graph %lld declared twice", (long long)id);
    if (!psi_grow_array((void **)&d->graphs, &d->graphs_cap, d->ngraphs + 1, sizeof *d->graphs))
        return nomem(c);
    d->graphs[d->ngraphs++] = (psi_dimacs_graph){id, (uint32_t)nodes, 0, 0};
    return 0;
}

static int parse_edge(cursor *c, psi_dimacs *d, bool anti)
{
    int64_t id, from, to, var;
    int rc;
    if ((rc = read_nonneg(c, INT64_MAX / 4, &id, "graph id")))
        return rc;
    int64_t g = find_graph(d, id);
    if (g < 0)
        return fail(c, "edge of undeclared graph %lld", (long long)id);
    uint32_t n = d->graphs[g].nodes;
    if ((rc = read_nonneg(c, INT64_MAX / 4, &from, "source node")))
        return rc;
    if (from >= n)
        return fail(c, "source node %lld out of range (graph has %u nodes)", (long long)from, n);
    if ((rc = read_nonneg(c, INT64_MAX / 4, &to, "target node")))
        return rc;
    if (to >= n)
        return fail(c, "target node %lld out of range (graph has %u nodes)", (long long)to, n);
    if ((rc = read_nonneg(c, d->nvars, &var, "edge variable")))
        return rc;
    if (var == 0)
        return fail(c, "edge variable must be at least 1");
    if (more_on_line(c)) { /* optional weight: irrelevant to acyclicity */
        if (!strchr("-+.0123456789", *c->p))
            return fail(c, "unexpected text after edge");
        while (c->p < c->end && !is_space((unsigned char)*c->p))
            advance(c);
    }
    if (!psi_grow_array((void **)&d->edges, &d->edges_cap, d->nedges + 1, sizeof *d->edges))
        return nomem(c);
    d->edges[d->nedges++] =
        (psi_dimacs_edge){(uint32_t)g, (uint32_t)from, (uint32_t)to, (int)var, (uint8_t)anti};
    return 0;
}

static int parse_acyclic(cursor *c, psi_dimacs *d, bool si, acyc_decl *decl)
{
    int64_t id, var;
    int rc;
    if ((rc = read_nonneg(c, INT64_MAX / 4, &id, "graph id")))
        return rc;
    int64_t g = find_graph(d, id);
    if (g < 0)
        return fail(c, "acyclic constraint on undeclared graph %lld", (long long)id);
    if (d->graphs[g].acyclic_var)
        return fail(c, "graph %lld already has an acyclic constraint", (long long)id);
    decl->line = c->line;
    decl->col = c->col + 1;
    if ((rc = read_nonneg(c, d->nvars, &var, "acyclic variable")))
        return rc;
    if (var == 0)
        return fail(c, "acyclic variable must be at least 1");
    d->graphs[g].acyclic_var = (int)var;
    d->graphs[g].si = si;
    decl->var = (int)var;
    return 0;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Semantic checks once everything is read. */
static int validate(cursor *c, psi_dimacs *d, const acyc_decl *decls, size_t ndecls)
{
    if (d->nedges) {
        int *vars = malloc(d->nedges * sizeof *vars);
        if (!vars)
            return nomem(c);
        for (size_t i = 0; i < d->nedges; i++)
            vars[i] = d->edges[i].var;
        qsort(vars, d->nedges, sizeof *vars, cmp_int);
        for (size_t i = 1; i < d->nedges; i++)
            if (vars[i] == vars[i - 1]) {
                int v = vars[i];
                free(vars);
                c->line = c->col = 0;
                return fail(c, "variable %d labels two edges (GNF needs one variable per edge)", v);
            }
        free(vars);
    }
    for (size_t k = 0; k < ndecls; k++) {
        bool unit = false;
        size_t start = 0;
        for (size_t i = 0; i < d->nlits && !unit; i++)
            if (d->lits[i] == 0) {
                unit = i == start + 1 && d->lits[start] == decls[k].var;
                start = i + 1;
            }
        if (!unit) {
            c->line = decls[k].line;
            c->col = decls[k].col;
            return fail(c,
                        "acyclic variable %d is not fixed true by a unit clause '%d 0'; only "
                        "required acyclicity is supported",
                        decls[k].var, decls[k].var);
        }
    }
    return 0;
}

int psi_dimacs_parse(const char *buf, size_t len, psi_dimacs *d, psi_dimacs_error *err)
{
    memset(d, 0, sizeof *d);
    if (err)
        memset(err, 0, sizeof *err);
    cursor c = {buf, buf + len, 1, 1, err};
    bool header = false, open = false;
    size_t declared = 0, clause_len = 0;
    acyc_decl *decls = NULL;
    size_t ndecls = 0, decls_cap = 0;
    int rc = 0;
    for (;;) {
        skip_space(&c);
        int ch = peek(&c);
        if (ch == EOF)
            break;
        if (ch == 'c') {
            skip_line(&c);
            continue;
        }
        if (ch == 'p') {
            if (header) {
                rc = fail(&c, "second 'p' header");
                goto out;
            }
            advance(&c);
            skip_space(&c);
            char w[8];
            read_word(&c, w, sizeof w);
            if (strcmp(w, "cnf")) {
                rc = fail(&c, "expected 'p cnf VARIABLES CLAUSES'");
                goto out;
            }
            int64_t nv, nc;
            if ((rc = read_nonneg(&c, MAX_VARS, &nv, "variable count")) ||
                (rc = read_nonneg(&c, INT64_MAX / 4, &nc, "clause count")))
                goto out;
            d->nvars = (int)nv;
            declared = (size_t)nc;
            header = true;
            continue;
        }
        if (ch == '-' || (ch >= '0' && ch <= '9')) {
            if (!header) {
                rc = fail(&c, "clause before the 'p cnf' header");
                goto out;
            }
            int64_t lit;
            uint64_t line = c.line, col = c.col;
            if ((rc = read_int(&c, d->nvars, &lit, "literal"))) {
                if (c.err && strstr(c.err->msg, "too large"))
                    snprintf(c.err->msg, sizeof c.err->msg,
                             "literal exceeds the %d variables of the header", d->nvars);
                goto out;
            }
            if (!push_lit(d, (int)lit)) {
                rc = nomem(&c);
                goto out;
            }
            if (lit == 0) {
                if (++d->nclauses > declared) {
                    c.line = line;
                    c.col = col;
                    rc = fail(&c, "more clauses than the %zu in the header", declared);
                    goto out;
                }
                open = false;
                clause_len = 0;
            } else {
                open = true;
                clause_len++;
            }
            continue;
        }
        if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
            uint64_t line = c.line, col = c.col;
            char w[16];
            read_word(&c, w, sizeof w);
            if (open) {
                c.line = line;
                c.col = col;
                rc = fail(&c, "clause not terminated by 0 before '%s'", w);
                goto out;
            }
            if (!header) {
                c.line = line;
                c.col = col;
                rc = fail(&c, "'%s' before the 'p cnf' header", w);
                goto out;
            }
            if (!strcmp(w, "digraph"))
                rc = parse_digraph(&c, d);
            else if (!strcmp(w, "edge") || !strcmp(w, "antiedge"))
                rc = parse_edge(&c, d, w[0] == 'a');
            else if (!strcmp(w, "acyclic") || !strcmp(w, "acyclic_si")) {
                if (!psi_grow_array((void **)&decls, &decls_cap, ndecls + 1, sizeof *decls)) {
                    rc = nomem(&c);
                    goto out;
                }
                rc = parse_acyclic(&c, d, w[7] == '_', &decls[ndecls]);
                ndecls += !rc;
            } else {
                c.line = line;
                c.col = col;
                rc = fail(&c, "unknown keyword '%s'", w);
            }
            if (rc)
                goto out;
            if (more_on_line(&c)) {
                rc = fail(&c, "unexpected text after '%s' line", w);
                goto out;
            }
            continue;
        }
        rc = fail(&c, "unexpected character '%c'", ch >= 32 && ch < 127 ? ch : '?');
        goto out;
    }
    if (!header) {
        rc = fail(&c, "missing 'p cnf' header");
        goto out;
    }
    if (open) {
        rc = fail(&c, "last clause not terminated by 0");
        goto out;
    }
    if (d->nclauses != declared) {
        rc = fail(&c, "header announces %zu clauses but %zu were given", declared, d->nclauses);
        goto out;
    }
    rc = validate(&c, d, decls, ndecls);
out:
    (void)clause_len;
    free(decls);
    return rc;
}

int psi_dimacs_parse_file(FILE *f, psi_dimacs *out, psi_dimacs_error *err)
{
    memset(out, 0, sizeof *out);
    size_t n = 0, cap = 0;
    char *buf = NULL;
    for (;;) {
        if (!psi_grow_array((void **)&buf, &cap, n + 65536, 1)) {
            free(buf);
            if (err) {
                memset(err, 0, sizeof *err);
                snprintf(err->msg, sizeof err->msg, "out of memory reading input");
            }
            return PSI_DIMACS_ENOMEM;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        free(buf);
        if (err) {
            memset(err, 0, sizeof *err);
            snprintf(err->msg, sizeof err->msg, "read error");
        }
        return PSI_DIMACS_EIO;
    }
    int rc = psi_dimacs_parse(buf, n, out, err);
    free(buf);
    return rc;
}

void psi_dimacs_free(psi_dimacs *d)
{
    free(d->lits);
    free(d->graphs);
    free(d->edges);
    memset(d, 0, sizeof *d);
}

static int load_fail(psi_dimacs_error *err, int rc, const char *what)
{
    if (err) {
        memset(err, 0, sizeof *err);
        snprintf(err->msg, sizeof err->msg, "%s", what);
    }
    return rc;
}

int psi_dimacs_load(const psi_dimacs *d, psi_sat *s, psi_acyc **acyc, int64_t *edge_ids,
                    psi_dimacs_error *err)
{
    *acyc = NULL;
    if (psi_sat_reserve(s, d->nvars))
        return load_fail(err, PSI_DIMACS_ENOMEM, "out of memory");
    size_t start = 0;
    for (size_t i = 0; i < d->nlits; i++)
        if (d->lits[i] == 0) {
            if (psi_sat_add_clause(s, d->lits + start, i - start))
                return load_fail(err, PSI_DIMACS_ENOMEM, "out of memory");
            start = i + 1;
        }
    uint64_t total = 0;
    bool si = false;
    for (size_t g = 0; g < d->ngraphs; g++)
        if (d->graphs[g].acyclic_var) {
            total += d->graphs[g].nodes;
            si |= d->graphs[g].si;
        }
    for (size_t e = 0; edge_ids && e < d->nedges; e++)
        edge_ids[e] = -1;
    bool any = false;
    for (size_t g = 0; g < d->ngraphs; g++)
        any |= d->graphs[g].acyclic_var != 0;
    if (!any)
        return 0;
    if (total > (UINT32_MAX - 16) / 2)
        return load_fail(err, PSI_DIMACS_ESYNTAX, "graphs too large");
    uint64_t *offset = malloc((d->ngraphs ? d->ngraphs : 1) * sizeof *offset);
    if (!offset)
        return load_fail(err, PSI_DIMACS_ENOMEM, "out of memory");
    uint64_t off = 0;
    for (size_t g = 0; g < d->ngraphs; g++) {
        offset[g] = off;
        if (d->graphs[g].acyclic_var)
            off += d->graphs[g].nodes;
    }
    psi_acyc *a = psi_acyc_new(s, (uint32_t)total, si ? PSI_ACYC_SI : PSI_ACYC_SER);
    if (!a) {
        free(offset);
        return load_fail(err, PSI_DIMACS_ENOMEM, "out of memory creating the graph theory");
    }
    for (size_t e = 0; e < d->nedges; e++) {
        const psi_dimacs_edge *x = &d->edges[e];
        const psi_dimacs_graph *g = &d->graphs[x->graph];
        if (!g->acyclic_var)
            continue;
        psi_edge_kind kind = (g->si && x->anti) ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
        int64_t id = psi_acyc_add_edge(a, (uint32_t)(offset[x->graph] + x->from),
                                       (uint32_t)(offset[x->graph] + x->to), kind, x->var, 0);
        if (id < 0) {
            free(offset);
            psi_acyc_free(a);
            psi_sat_set_theory(s, NULL);
            return load_fail(err, PSI_DIMACS_ENOMEM, "out of memory adding edges");
        }
        if (edge_ids)
            edge_ids[e] = id;
    }
    free(offset);
    *acyc = a;
    return 0;
}
