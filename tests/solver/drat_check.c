/* Forward DRAT checker (see drat_check.h). Clauses are stored in one int
 * pool; deletion finds the clause through a hash of its literal set; unit
 * propagation uses two watched literals. Root-level units persist, and
 * deleting a unit clause is ignored, as drat-trim does. */
#include "drat_check.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct ivec {
    int *a;
    size_t n, cap;
} ivec;

static void ipush(ivec *v, int x)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->a = realloc(v->a, v->cap * sizeof *v->a);
        if (!v->a)
            abort();
    }
    v->a[v->n++] = x;
}

typedef struct checker {
    int nvars;
    ivec pool;            /* clause literals */
    ivec start, len, del; /* per clause */
    ivec *watch;          /* per literal index: clause ids */
    signed char *val;     /* per literal index */
    ivec trail;
    size_t root;        /* size of the root trail */
    bool root_conflict; /* root propagation failed: empty clause holds */
    ivec *hash;         /* buckets of clause ids */
    size_t nbuckets;
} checker;

static size_t li(int lit)
{
    return lit > 0 ? 2 * (size_t)lit : 2 * (size_t)(-lit) + 1;
}

static int val(const checker *c, int lit)
{
    return c->val[li(lit)];
}

static void assign(checker *c, int lit)
{
    c->val[li(lit)] = 1;
    c->val[li(-lit)] = -1;
    ipush(&c->trail, lit);
}

static void undo(checker *c, size_t to)
{
    while (c->trail.n > to) {
        int lit = c->trail.a[--c->trail.n];
        c->val[li(lit)] = c->val[li(-lit)] = 0;
    }
}

static int *lits(checker *c, int id)
{
    return c->pool.a + c->start.a[id];
}

/* Propagates from trail position *head; returns false on conflict. */
static bool propagate(checker *c, size_t head)
{
    while (head < c->trail.n) {
        int f = -c->trail.a[head++];
        ivec *w = &c->watch[li(f)];
        size_t j = 0;
        bool conflict = false;
        for (size_t i = 0; i < w->n; i++) {
            int id = w->a[i];
            if (c->del.a[id])
                continue; /* lazily drop watches of deleted clauses */
            if (conflict) {
                w->a[j++] = id;
                continue;
            }
            int *l = lits(c, id), n = c->len.a[id];
            if (l[0] == f) {
                l[0] = l[1];
                l[1] = f;
            }
            if (val(c, l[0]) > 0) {
                w->a[j++] = id;
                continue;
            }
            int k = 2;
            while (k < n && val(c, l[k]) < 0)
                k++;
            if (k < n) {
                l[1] = l[k];
                l[k] = f;
                ipush(&c->watch[li(l[1])], id);
                continue;
            }
            w->a[j++] = id;
            if (val(c, l[0]) < 0)
                conflict = true;
            else
                assign(c, l[0]);
        }
        w->n = j;
        if (conflict)
            return false;
    }
    return true;
}

static uint64_t set_hash(const int *l, int n)
{
    uint64_t s = 0, x = 0, p = 1;
    for (int i = 0; i < n; i++) {
        uint64_t h = (uint64_t)(int64_t)l[i] * 0x9E3779B97F4A7C15ull;
        s += h;
        x ^= h;
        p *= (h | 1);
    }
    return s ^ (x << 1) ^ (p >> 3);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return x < y ? -1 : x > y;
}

/* Sorts and removes duplicates; returns the new length, or -1 for a
 * tautology. */
static int normalize(int *l, int n)
{
    if (n == 0)
        return 0;
    qsort(l, (size_t)n, sizeof *l, cmp_int);
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (m && l[m - 1] == l[i])
            continue;
        l[m++] = l[i];
    }
    for (int i = 0; i + 1 < m; i++)
        for (int k = i + 1; k < m && -l[i] >= l[k]; k++)
            if (l[k] == -l[i])
                return -1;
    return m;
}

static void grow_vars(checker *c, int v)
{
    if (v <= c->nvars)
        return;
    int nv = c->nvars ? c->nvars : 16;
    while (nv < v)
        nv *= 2;
    c->watch = realloc(c->watch, (2 * (size_t)nv + 2) * sizeof *c->watch);
    c->val = realloc(c->val, 2 * (size_t)nv + 2);
    if (!c->watch || !c->val)
        abort();
    size_t old = c->nvars ? 2 * (size_t)c->nvars + 2 : 0, now = 2 * (size_t)nv + 2;
    memset(c->watch + old, 0, (now - old) * sizeof *c->watch);
    memset(c->val + old, 0, now - old);
    c->nvars = nv;
}

/* Adds a (normalized, non-tautological) clause; handles units at the root. */
static void add_clause(checker *c, const int *l, int n)
{
    int id = (int)c->start.n;
    ipush(&c->start, (int)c->pool.n);
    ipush(&c->len, n);
    ipush(&c->del, 0);
    for (int i = 0; i < n; i++)
        ipush(&c->pool, l[i]);
    size_t b = set_hash(l, n) % c->nbuckets;
    ipush(&c->hash[b], id);
    if (c->root_conflict)
        return;
    if (n == 0) {
        c->root_conflict = true;
        return;
    }
    int *cl = lits(c, id);
    /* Put non-false literals first so the watches are sound at the root. */
    for (int i = 0, k = 0; i < n; i++)
        if (val(c, cl[i]) >= 0) {
            int t = cl[k];
            cl[k] = cl[i];
            cl[i] = t;
            k++;
        }
    if (n == 1 || val(c, cl[1]) < 0) {
        if (val(c, cl[0]) < 0) {
            c->root_conflict = true;
            return;
        }
        if (val(c, cl[0]) == 0) {
            size_t head = c->trail.n;
            assign(c, cl[0]);
            if (!propagate(c, head))
                c->root_conflict = true;
        }
        c->root = c->trail.n;
        if (n == 1)
            return;
    }
    ipush(&c->watch[li(cl[0])], id);
    ipush(&c->watch[li(cl[1])], id);
}

static bool rup(checker *c, const int *l, int n, int skip_neg_of)
{
    if (c->root_conflict)
        return true;
    size_t base = c->trail.n;
    bool ok = false;
    for (int i = 0; i < n && !ok; i++) {
        if (l[i] == skip_neg_of)
            continue;
        int v = val(c, l[i]);
        if (v > 0)
            ok = true;
        else if (v == 0)
            assign(c, -l[i]);
    }
    if (!ok)
        ok = !propagate(c, base);
    undo(c, base);
    return ok;
}

static bool rat(checker *c, const int *l, int n)
{
    if (n == 0)
        return false;
    int p = l[0];
    int *buf = malloc(sizeof(int) * (size_t)(n + c->nvars + 1));
    if (!buf)
        abort();
    bool ok = true;
    for (size_t id = 0; id < c->start.n && ok; id++) {
        if (c->del.a[id])
            continue;
        int *d = lits(c, (int)id), dn = c->len.a[id];
        bool has = false;
        for (int i = 0; i < dn; i++)
            has |= d[i] == -p;
        if (!has)
            continue;
        int m = 0;
        for (int i = 0; i < n; i++)
            buf[m++] = l[i];
        for (int i = 0; i < dn; i++)
            if (d[i] != -p)
                buf[m++] = d[i];
        ok = rup(c, buf, m, 0);
    }
    free(buf);
    return ok;
}

static bool find_delete(checker *c, int *l, int n)
{
    size_t b = set_hash(l, n) % c->nbuckets;
    ivec *h = &c->hash[b];
    for (size_t i = 0; i < h->n; i++) {
        int id = h->a[i];
        if (c->del.a[id] || c->len.a[id] != n)
            continue;
        int *d = lits(c, id);
        int tmp[n > 0 ? n : 1];
        memcpy(tmp, d, sizeof(int) * (size_t)n);
        if (n)
            qsort(tmp, (size_t)n, sizeof *tmp, cmp_int);
        if (!memcmp(tmp, l, sizeof(int) * (size_t)n)) {
            if (n == 1)
                return true; /* unit deletions are ignored */
            c->del.a[id] = 1;
            h->a[i] = h->a[--h->n];
            return true;
        }
    }
    return false;
}

/* Reads the next integer; returns false at the end. Skips comment lines and
 * the header in CNF text. */
typedef struct rd {
    const char *p, *e;
} rd;

static bool next_tok(rd *r, int *out, bool *is_d)
{
    *is_d = false;
    for (;;) {
        while (r->p < r->e && (*r->p == ' ' || *r->p == '\n' || *r->p == '\t' || *r->p == '\r'))
            r->p++;
        if (r->p >= r->e)
            return false;
        if (*r->p == 'c' || *r->p == 'p') {
            while (r->p < r->e && *r->p != '\n')
                r->p++;
            continue;
        }
        if (*r->p == 'd') {
            *is_d = true;
            r->p++;
            continue;
        }
        char *end;
        long v = strtol(r->p, &end, 10);
        if (end == r->p)
            return false;
        r->p = end;
        *out = (int)v;
        return true;
    }
}

int drat_check(const char *cnf, size_t cnf_len, const char *proof, size_t proof_len, char *msg,
               size_t msg_cap)
{
    checker c;
    memset(&c, 0, sizeof c);
    c.nbuckets = 1 << 16;
    c.hash = calloc(c.nbuckets, sizeof *c.hash);
    ivec cl = {0};
    int result = 0;
    size_t lemmas = 0;
    bool empty = false;
    rd r = {cnf, cnf + cnf_len};
    int x;
    bool d;
    while (next_tok(&r, &x, &d)) {
        if (x) {
            grow_vars(&c, abs(x));
            ipush(&cl, x);
            continue;
        }
        int n = normalize(cl.a, (int)cl.n);
        if (n >= 0)
            add_clause(&c, cl.a, n);
        cl.n = 0;
    }
    r = (rd){proof, proof + proof_len};
    bool del_pending = false;
    while (!empty && next_tok(&r, &x, &d)) {
        del_pending |= d;
        if (x) {
            grow_vars(&c, abs(x));
            ipush(&cl, x);
            continue;
        }
        if (del_pending) {
            int n = normalize(cl.a, (int)cl.n);
            if (n >= 0 && !find_delete(&c, cl.a, n)) {
                /* drat-trim only warns here; so do we, by ignoring it. */
            }
            del_pending = false;
            cl.n = 0;
            continue;
        }
        lemmas++;
        /* Keep the first literal first for RAT: normalize a copy. */
        int first = cl.n ? cl.a[0] : 0;
        int n = normalize(cl.a, (int)cl.n);
        if (n >= 0) {
            for (int i = 0; i < n; i++)
                if (cl.a[i] == first) {
                    cl.a[i] = cl.a[0];
                    cl.a[0] = first;
                }
            if (!rup(&c, cl.a, n, 0) && !rat(&c, cl.a, n)) {
                snprintf(msg, msg_cap, "lemma %zu (size %d) is neither RUP nor RAT", lemmas, n);
                goto out;
            }
            add_clause(&c, cl.a, n);
            if (n == 0)
                empty = true;
        }
        cl.n = 0;
    }
    if (!empty) {
        snprintf(msg, msg_cap, "proof does not derive the empty clause (%zu lemmas)", lemmas);
        goto out;
    }
    snprintf(msg, msg_cap, "verified %zu lemmas", lemmas);
    result = 1;
out:
    free(cl.a);
    free(c.pool.a);
    free(c.start.a);
    free(c.len.a);
    free(c.del.a);
    for (int i = 0; c.watch && i < 2 * c.nvars + 2; i++)
        free(c.watch[i].a);
    free(c.watch);
    free(c.val);
    free(c.trail.a);
    for (size_t i = 0; i < c.nbuckets; i++)
        free(c.hash[i].a);
    free(c.hash);
    return result;
}
