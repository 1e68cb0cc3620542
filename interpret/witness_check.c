/* Witness re-checking (see witness_check.h): parse (formats/witness.c),
 * check completeness and consistency against the history, rebuild the
 * dependency graph, sort it topologically (core's kernel, core/graph.h).
 * Independent of prune/, encode/ and solver/ on purpose. */
#include "interpret/witness_check.h"

#include "check/realtime.h"
#include "core/graph.h"
#include "core/index.h"
#include "core/keyname.h"
#include "core/polygraph.h" /* psi_edge */
#include "core/txnid.h"
#include "core/vec.h"
#include "formats/witness.h"
#include "interpret/describe.h"
#include "interpret/witness_level.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Checking ---- */

static const char *type_name(uint8_t t)
{
    static const char *n[] = {"SO", "WR", "WW", "RW"};
    return t < 4 ? n[t] : "?";
}

typedef struct chk {
    psi_history *h;
    psi_index idx;
    bool ser;
    bool realtime;   /* strict-ser, strong-si: real-time edges too (check/realtime.h) */
    psi_level level; /* SI or SER (ser), or a level witness_level.c checks */
    bool per_read;   /* RC, PL-2: a repeat read is a read event (check/level.h) */
    char **why;      /* the refusal, allocated here */
    psi_wverdict *verdict;
    psi_txn_lookup tids; /* every transaction by (session, id) */
    psi_key_lookup keys; /* keys by external integer */
    psi_edge *e;         /* the dependency graph the witness implies */
    size_t n_e, cap_e;
    const uint64_t *key_line; /* [n_keys] witness line of each key's order */
    uint32_t *chosen;         /* [n_ops] the writer a read line gives (version 2; RC and
                                 PL-2: every repeat read's, witness_level.h), or
                                 UINT32_MAX */
} chk;

/* A growing string for messages of any length (a cycle through the whole
 * history is printed whole). */
typedef struct strbuf {
    char *s;
    size_t n, cap;
    bool failed; /* out of memory: s holds what fitted */
} strbuf;

static void sb_vprintf(strbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int k = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (k < 0 || b->failed)
        return;
    if (!psi_grow((void **)&b->s, &b->cap, b->n + (size_t)k + 1, 1)) {
        b->failed = true;
        return;
    }
    vsnprintf(b->s + b->n, b->cap - b->n, fmt, ap);
    b->n += (size_t)k;
}

static void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(b, fmt, ap);
    va_end(ap);
}

/* Refuses with the message; PSI_ERR_NOMEM when it cannot be kept. */
static psi_status refuse_sb(chk *c, strbuf *b)
{
    if (b->failed || !b->s) {
        free(b->s);
        return PSI_ERR_NOMEM;
    }
    *c->why = b->s;
    *c->verdict = PSI_WITNESS_REFUSED;
    return PSI_OK;
}

static psi_status refuse(chk *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static psi_status refuse(chk *c, const char *fmt, ...)
{
    strbuf b = {0};
    va_list ap;
    va_start(ap, fmt);
    sb_vprintf(&b, fmt, ap);
    va_end(ap);
    return refuse_sb(c, &b);
}

/* External key `ext` of a witness line as the history spells it: the
 * name when keys are named (ext is then the dense key, keys[k] == k, once
 * psi_witness_resolve_keys ran), else its decimal. */
static const char *key_text(const psi_history *h, uint64_t ext, char buf[24])
{
    if (h->key_names && ext < h->n_keys)
        return h->key_names[ext];
    snprintf(buf, 24, "%llu", (unsigned long long)ext);
    return buf;
}

static uint32_t find_txn(const chk *c, uint64_t sid, uint64_t tid)
{
    return psi_txn_lookup_find(&c->tids, sid, tid);
}

static bool add_edge(chk *c, uint32_t from, uint32_t to, uint8_t type, uint32_t key)
{
    if (from == to)
        return true;
    if (!psi_grow((void **)&c->e, &c->cap_e, c->n_e + 1, sizeof *c->e))
        return false;
    c->e[c->n_e++] = (psi_edge){.from = from, .to = to, .key = key, .type = type};
    return true;
}

/* A real-time edge (check/realtime.h's sweep): SO-typed, a DEP edge under
 * both rules, told apart by its origin in messages. */
static psi_status add_rt_edge(void *ctx, uint32_t from, uint32_t to)
{
    chk *c = ctx;
    if (!add_edge(c, from, to, PSI_EDGE_SO, UINT32_MAX))
        return PSI_ERR_NOMEM;
    c->e[c->n_e - 1].origin = PSI_FROM_REALTIME;
    return PSI_OK;
}

/* "a -RT-> b": a completed at position I before b was invoked at J. */
static void fmt_rt(const chk *c, const psi_edge *e, strbuf *b)
{
    char x[64], y[64];
    psi_fmt_txn(c->h, e->from, x, sizeof x);
    psi_fmt_txn(c->h, e->to, y, sizeof y);
    const char *pos = c->h->rt_by_index ? "index" : "position";
    sb_printf(b,
              "%s -RT-> %s (real time: %s completed at %s %llu before %s was invoked at %s %llu)",
              x, y, x, pos, (unsigned long long)c->h->rt[e->from].complete, y, pos,
              (unsigned long long)c->h->rt[e->to].invoke);
}

/* The final write of t on key, or UINT32_MAX. */
static uint32_t final_write(const chk *c, uint32_t t, uint32_t key)
{
    const psi_txn *tx = &c->h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        if (c->h->ops[o].key == key && (c->idx.op_info[o] & PSI_OI_FINAL_WRITE))
            return o;
    }
    return UINT32_MAX;
}

/* The ambiguous read at op o (idx.amb is in op order), or NULL. */
static const psi_amb_read *amb_of(const chk *c, uint32_t o)
{
    uint32_t lo = 0, hi = c->idx.n_amb;
    while (lo < hi) {
        uint32_t m = lo + (hi - lo) / 2;
        if (c->idx.amb[m].op < o)
            lo = m + 1;
        else
            hi = m;
    }
    return lo < c->idx.n_amb && c->idx.amb[lo].op == o ? &c->idx.amb[lo] : NULL;
}

/* Version 2's read lines: each names a committed reader's external read
 * of a key and a writer that must be one of its candidates (the one
 * writer when the value is unique); from version 5 also the writers of
 * its repeat reads of the key (RC and PL-2 only: at the other levels a
 * repeat read is no read event). Fills c->chosen. */
static psi_status read_lines(chk *c, const psi_witness *w)
{
    const psi_history *h = c->h;
    char a[64], b[64];
    for (size_t i = 0; i < w->n_reads; i++) {
        const psi_witness_read *r = &w->reads[i];
        unsigned long long L = (unsigned long long)r->line;
        char kb[24];
        const char *K = key_text(h, r->key, kb);
        snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)r->reader.sid,
                 (unsigned long long)r->reader.tid);
        uint32_t x = find_txn(c, r->reader.sid, r->reader.tid);
        uint32_t fk = psi_key_lookup_ext(&c->keys, r->key);
        if (x == UINT32_MAX || h->txns[x].status != PSI_TXN_COMMITTED || fk == UINT32_MAX)
            return refuse(c, "line %llu: %s is no committed transaction reading key %s", L, a, K);
        if (r->event && !c->per_read)
            return refuse(c,
                          "line %llu: a second writer for the read of key %s by %s, but under "
                          "%s only a transaction's first read of a key is a read event",
                          L, K, a, psi_level_name(c->level));
        uint32_t o = psi_witness_read_event(h, &c->idx, x, fk, r->event);
        if (o == UINT32_MAX && !r->event)
            return refuse(c, "line %llu: %s does not read key %s before writing it", L, a, K);
        if (o == UINT32_MAX)
            return refuse(c,
                          "line %llu: writer %u for the reads of key %s by %s, which reads it "
                          "only %u times before writing it",
                          L, r->event + 1, K, a, r->event);
        if (c->chosen[o] != UINT32_MAX)
            return refuse(c, "line %llu: the read of key %s by %s is given twice", L, K, a);
        uint32_t src = PSI_SRC_INIT;
        snprintf(b, sizeof b, "the initial value");
        if (!r->init) {
            snprintf(b, sizeof b, "(%llu,%llu)", (unsigned long long)r->writer.sid,
                     (unsigned long long)r->writer.tid);
            uint32_t y = find_txn(c, r->writer.sid, r->writer.tid);
            src = y == UINT32_MAX ? UINT32_MAX : final_write(c, y, fk);
        }
        bool ok = false;
        const psi_amb_read *am = amb_of(c, o);
        if (r->event) {
            uint32_t only;
            ok = src != UINT32_MAX && psi_witness_repeat_cands(h, &c->idx, o, src, &only) == 1;
        } else if (am) {
            for (uint32_t j = 0; j < am->n && !ok; j++)
                ok = c->idx.amb_cand[am->first + j] == src;
        } else {
            ok = c->idx.read_src[o] == src;
        }
        if (!ok || src == UINT32_MAX) {
            if (!r->event)
                return refuse(c,
                              "line %llu: %s cannot be what %s read from key %s (not a "
                              "committed writer of that value it may have read)",
                              L, b, a, K);
            return refuse(c,
                          "line %llu: %s cannot be what read %u of key %s by %s saw (not a "
                          "committed writer of that value it may have read)",
                          L, b, r->event + 1, K, a);
        }
        c->chosen[o] = src;
    }
    return c->per_read ? psi_witness_repeat_defaults(h, &c->idx, c->chosen) : PSI_OK;
}

/* Transactions of unknown outcome that are optional (core/index.h): the
 * witness's read lines say which committed. One a committed transaction's
 * read (a read line, or its only writer) names is committed, transitively;
 * the others are absent: their operations leave the index (not live)
 * and their status is unknown again, so key lines, session order and
 * reads treat them as not committed. A read line of an absent one is
 * refused: it read nothing. */
static psi_status settle_outcomes(chk *c, const psi_witness *w)
{
    psi_history *h = c->h;
    psi_index *idx = &c->idx;
    if (!idx->opt)
        return PSI_OK;
    uint8_t *in = calloc(h->n_txns, 1);
    if (!in)
        return PSI_ERR_NOMEM;
    for (uint32_t t = 1; t < h->n_txns; t++)
        in[t] = h->txns[t].status == PSI_TXN_COMMITTED && !idx->opt[t];
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t o = 0; o < h->n_ops; o++) {
            uint32_t src = c->chosen[o] != UINT32_MAX ? c->chosen[o] : idx->read_src[o];
            if (src < PSI_SRC_INIT && in[idx->op_txn[o]] && !in[idx->op_txn[src]]) {
                in[idx->op_txn[src]] = 1;
                changed = true;
            }
        }
    }
    psi_status st = PSI_OK;
    for (size_t i = 0; i < w->n_reads && st == PSI_OK && *c->verdict == PSI_WITNESS_VALID; i++) {
        uint32_t x = find_txn(c, w->reads[i].reader.sid, w->reads[i].reader.tid);
        if (!in[x])
            st = refuse(c,
                        "line %llu: (%llu,%llu) is of unknown outcome and no committed "
                        "transaction's read is resolved to it, so it did not commit and read "
                        "nothing",
                        (unsigned long long)w->reads[i].line,
                        (unsigned long long)w->reads[i].reader.sid,
                        (unsigned long long)w->reads[i].reader.tid);
    }
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (!idx->opt[t] || in[t])
            continue;
        h->txns[t].status = PSI_TXN_UNKNOWN;
        h->txns[t].open_outcome = 0;
        for (uint32_t j = 0; j < h->txns[t].n_ops; j++)
            idx->op_info[h->txns[t].first_op + j] &= (uint8_t)~PSI_OI_LIVE;
    }
    free(in);
    return st;
}

/* Appends "a -T(k)-> b -...-> a" for edges cyc[0..n) (in cycle order), a
 * run of k > 1 session-order edges written "a -SO*k-> b". */
static void fmt_cycle(const chk *c, const uint32_t *cyc, size_t n, strbuf *b)
{
    char a[64];
    for (size_t i = 0; i < n;) {
        const psi_edge *e = &c->e[cyc[i]];
        psi_fmt_txn(c->h, e->from, a, sizeof a);
        if (e->origin == PSI_FROM_REALTIME) {
            sb_printf(b, "%s -RT-> ", a);
            i++;
            continue;
        }
        if (e->type != PSI_EDGE_SO) {
            sb_printf(b, "%s -%s(%s)-> ", a, type_name(e->type), PSI_KEY_NAME(c->h, e->key));
            i++;
            continue;
        }
        size_t run = 1;
        while (i + run < n && c->e[cyc[i + run]].type == PSI_EDGE_SO &&
               c->e[cyc[i + run]].origin != PSI_FROM_REALTIME)
            run++;
        if (run == 1)
            sb_printf(b, "%s -SO-> ", a);
        else
            sb_printf(b, "%s -SO*%zu-> ", a, run);
        i += run;
    }
    if (n) {
        psi_fmt_txn(c->h, c->e[cyc[0]].from, a, sizeof a);
        sb_printf(b, "%s", a);
    }
}

/* The node a cycle's edge enters (SI: v1 after RW, else v0). */
static uint32_t entered(const chk *c, const psi_edge *e)
{
    if (c->ser)
        return e->to;
    return 2 * e->to + (e->type == PSI_EDGE_RW ? 1u : 0u);
}

/* Shortens the cycle cyc[0..*len) found by walking back: a shortest cycle
 * through each of (up to SHORTEN_TRIES of) its nodes, by breadth-first
 * search, keeping the shortest. Each search is linear, so this stays
 * cheap on any witness. */
enum { SHORTEN_TRIES = 64 };

static psi_status shorten(const chk *c, const psi_graph *g, uint32_t *cyc, uint32_t *len)
{
    psi_graph_bfs w;
    if (psi_graph_bfs_init(&w, g->n_nodes, NULL) != PSI_OK)
        return PSI_ERR_NOMEM;
    uint32_t *path = malloc((size_t)(g->n_nodes ? g->n_nodes : 1) * sizeof *path);
    if (!path) {
        psi_graph_bfs_free(&w);
        return PSI_ERR_NOMEM;
    }
    uint32_t n = *len, step = n > SHORTEN_TRIES ? n / SHORTEN_TRIES : 1;
    uint32_t nodes[SHORTEN_TRIES];
    uint32_t k = 0;
    for (uint32_t i = 0; i < n && k < SHORTEN_TRIES; i += step)
        nodes[k++] = entered(c, &c->e[cyc[i]]);
    for (uint32_t i = 0; i<k && * len> 1; i++) {
        uint32_t l = psi_graph_path(g, &w, nodes[i], nodes[i], PSI_NO_NODE, path);
        if (l && l < *len) {
            memcpy(cyc, path, l * sizeof *path);
            *len = l;
        }
    }
    free(path);
    psi_graph_bfs_free(&w);
    return PSI_OK;
}

/* Topological sort of the (doubled, for SI) graph; on a cycle, refuses
 * with a short one: found by walking back through the nodes left
 * unordered, then shortened, and printed whole. */
static psi_status acyclic(chk *c)
{
    psi_edge_view v = {.first = c->e, .n = c->n_e};
    psi_graph g;
    uint32_t *order = NULL, *cyc = NULL, n_ordered = 0, len = 0;
    psi_status st =
        psi_graph_build(&g, c->h->n_txns, &v, (c->ser ? 0u : PSI_GRAPH_SI) | PSI_GRAPH_IN, NULL);
    if (st != PSI_OK)
        return psi_diag_nomem(NULL, "checking a witness");
    uint32_t nn = g.n_nodes;
    order = malloc((nn ? nn : 1) * sizeof *order);
    cyc = malloc((nn ? nn : 1) * sizeof *cyc);
    if (!order || !cyc || psi_graph_topo(&g, false, order, &n_ordered, NULL) != PSI_OK) {
        st = psi_diag_nomem(NULL, "checking a witness");
        goto out;
    }
    if (n_ordered == nn)
        goto out;
    if (psi_graph_cycle_back(&g, order, n_ordered, cyc, &len, NULL) != PSI_OK ||
        shorten(c, &g, cyc, &len) != PSI_OK) {
        st = psi_diag_nomem(NULL, "checking a witness");
        goto out;
    }
    strbuf b = {0};
    sb_printf(&b,
              "the dependency graph the witness implies has a forbidden cycle (%s) of %u "
              "dependencies, through the version orders of lines ",
              c->ser ? "SER: any cycle" : "SI: no two adjacent RW edges", len);
    uint64_t last = 0;
    bool any = false;
    for (uint32_t i = 0; i < len; i++) {
        const psi_edge *e = &c->e[cyc[i]];
        if (e->type != PSI_EDGE_WW && e->type != PSI_EDGE_RW)
            continue;
        uint64_t line = c->key_line[e->key];
        if (any && line == last)
            continue;
        sb_printf(&b, "%s%llu", any ? ", " : "", (unsigned long long)line);
        last = line;
        any = true;
    }
    if (!any)
        sb_printf(&b, "(none)");
    sb_printf(&b, ": ");
    fmt_cycle(c, cyc, len, &b);
    for (uint32_t i = 0; i < len; i++)
        if (c->e[cyc[i]].origin == PSI_FROM_REALTIME) {
            sb_printf(&b, "; ");
            fmt_rt(c, &c->e[cyc[i]], &b);
        }
    st = refuse_sb(c, &b);
out:
    psi_graph_free(&g);
    free(order);
    free(cyc);
    return st;
}

static psi_status check(chk *c, const psi_witness *w)
{
    psi_history *h = c->h;
    const psi_index *idx = &c->idx;
    char a[64], b[128];
    if (idx->n_anomalies) {
        const psi_anomaly *an = &idx->anomalies[0];
        psi_fmt_txn(h, an->txn, a, sizeof a);
        psi_fmt_op(h, an->op, b, sizeof b);
        return refuse(c,
                      "the history has a graph-free anomaly, %s (%s), in %s %s: no version order "
                      "can be valid",
                      psi_anomaly_name(an->kind), psi_anomaly_title(an->kind), a, b);
    }
    if (w->n_chains)
        /* Partial orders are hints (check --version-order), not a witness:
         * a witness orders every writer of every key. */
        return refuse(c,
                      "line %llu: a chain line is an ordering hint for check --version-order, "
                      "not part of a witness",
                      (unsigned long long)w->chains[0].line);
    if (w->second_order_line)
        return refuse(c, "line %llu: a second order line (the first is on line %llu)",
                      (unsigned long long)w->second_order_line, (unsigned long long)w->order.line);
    uint32_t nk = h->n_keys;
    uint64_t *key_line = calloc(nk ? nk : 1, sizeof *key_line);
    uint32_t *vpos = malloc((h->n_ops ? h->n_ops : 1) * sizeof *vpos);
    uint32_t *writers = calloc(nk ? nk : 1, sizeof *writers),
             *listed = calloc(nk ? nk : 1, sizeof *listed);
    uint32_t *voff = calloc((size_t)nk + 1, sizeof *voff);
    uint32_t *vers = NULL, *ord = NULL;
    psi_status st = PSI_OK;
    if (!key_line || !vpos || !writers || !listed || !voff) {
        st = psi_diag_nomem(NULL, "checking a witness");
        goto out;
    }
    memset(vpos, 0xff, (h->n_ops ? h->n_ops : 1) * sizeof *vpos);
    for (uint32_t o = 0; o < h->n_ops; o++)
        if ((idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_FINAL_WRITE))
            writers[h->ops[o].key]++;
    /* Key lines: known keys, once each, their committed writers once each. */
    size_t total = 0;
    for (size_t i = 0; i < w->n_keys; i++) {
        const psi_witness_line *kl = &w->keys[i];
        uint32_t fk = psi_key_lookup_ext(&c->keys, kl->key);
        unsigned long long L = (unsigned long long)kl->line;
        char kb[24];
        const char *K = key_text(h, kl->key, kb);
        if (fk == UINT32_MAX) {
            st = refuse(c, "line %llu: key %s does not occur in the history", L, K);
            goto out;
        }
        if (key_line[fk]) {
            st = refuse(c, "line %llu: key %s is already ordered on line %llu", L, K,
                        (unsigned long long)key_line[fk]);
            goto out;
        }
        key_line[fk] = kl->line;
        for (size_t j = 0; j < kl->n; j++) {
            const psi_witness_txn *t = &w->tx[kl->first + j];
            uint32_t x = find_txn(c, t->sid, t->tid);
            snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)t->sid,
                     (unsigned long long)t->tid);
            if (x == UINT32_MAX) {
                st = refuse(c, "line %llu: transaction %s is not in the history", L, a);
                goto out;
            }
            if (h->txns[x].status != PSI_TXN_COMMITTED) {
                st = refuse(c,
                            "line %llu: transaction %s did not commit, so it installs no "
                            "version of key %s",
                            L, a, K);
                goto out;
            }
            uint32_t o = final_write(c, x, fk);
            if (o == UINT32_MAX) {
                st = refuse(c, "line %llu: transaction %s does not write key %s", L, a, K);
                goto out;
            }
            if (vpos[o] != UINT32_MAX) {
                st = refuse(c,
                            "line %llu: transaction %s is listed twice for key %s "
                            "(positions %u and %zu)",
                            L, a, K, vpos[o], j + 1);
                goto out;
            }
            vpos[o] = (uint32_t)j + 1;
        }
        listed[fk] = (uint32_t)kl->n;
        total += kl->n;
    }
    for (uint32_t k = 0; k < nk; k++) {
        if (listed[k] == writers[k])
            continue;
        /* name one writer that is missing */
        uint32_t miss = UINT32_MAX;
        for (uint32_t o = 0; o < h->n_ops && miss == UINT32_MAX; o++)
            if (h->ops[o].key == k && (idx->op_info[o] & PSI_OI_LIVE) &&
                (idx->op_info[o] & PSI_OI_FINAL_WRITE) && vpos[o] == UINT32_MAX)
                miss = o;
        psi_fmt_txn(h, miss != UINT32_MAX ? idx->op_txn[miss] : 0, a, sizeof a);
        if (!key_line[k])
            st = refuse(c,
                        "key %s: no version order given, but %u committed transactions "
                        "write it (%s, ...)",
                        PSI_KEY_NAME(h, k), writers[k], a);
        else
            st = refuse(c, "line %llu: the version order of key %s misses %s",
                        (unsigned long long)key_line[k], PSI_KEY_NAME(h, k), a);
        goto out;
    }
    /* Version arrays per key, in order. */
    for (uint32_t k = 0; k < nk; k++)
        voff[k + 1] = voff[k] + listed[k];
    vers = malloc((total ? total : 1) * sizeof *vers);
    if (!vers) {
        st = psi_diag_nomem(NULL, "checking a witness");
        goto out;
    }
    for (size_t i = 0; i < w->n_keys; i++) {
        const psi_witness_line *kl = &w->keys[i];
        uint32_t fk = psi_key_lookup_ext(&c->keys, kl->key);
        for (size_t j = 0; j < kl->n; j++)
            vers[voff[fk] + j] = find_txn(c, w->tx[kl->first + j].sid, w->tx[kl->first + j].tid);
    }
    /* The graph. */
    c->key_line = key_line;
    bool ok = true;
    for (uint32_t s = 0; s < h->n_sessions && ok; s++) {
        uint32_t prev = PSI_INIT_TXN;
        for (uint32_t i = 0; i < h->sessions[s].n_txns && ok; i++) {
            uint32_t t = h->sessions[s].first_txn + i;
            if (h->txns[t].status != PSI_TXN_COMMITTED)
                continue;
            ok = add_edge(c, prev, t, PSI_EDGE_SO, UINT32_MAX);
            prev = t;
        }
    }
    for (uint32_t k = 0; k < nk && ok; k++) {
        uint32_t prev = PSI_INIT_TXN;
        for (uint32_t i = voff[k]; i < voff[k + 1] && ok; i++) {
            ok = add_edge(c, prev, vers[i], PSI_EDGE_WW, k);
            prev = vers[i];
        }
    }
    for (uint32_t o = 0; o < h->n_ops && ok; o++) {
        if (!(idx->op_info[o] & PSI_OI_LIVE) || !(idx->op_info[o] & PSI_OI_EXTERNAL_READ))
            continue;
        uint32_t src = idx->read_src[o], r = idx->op_txn[o], k = h->ops[o].key, p;
        if (idx->op_info[o] & PSI_OI_AMBIG) {
            src = c->chosen[o];
            if (src == UINT32_MAX) {
                psi_fmt_txn(h, r, a, sizeof a);
                st = refuse(c,
                            "the read of key %s by %s has several candidate writers, and the "
                            "witness gives none (a 'read' line, witness version 2)",
                            PSI_KEY_NAME(h, k), a);
                goto out;
            }
        }
        if (src == PSI_SRC_NONE)
            continue;
        if (src == PSI_SRC_INIT) {
            p = 0;
        } else {
            ok = add_edge(c, idx->op_txn[src], r, PSI_EDGE_WR, k);
            p = vpos[src];
            if (p == UINT32_MAX)
                continue; /* not a final write: an anomaly, refused above */
        }
        /* RW to the next version (later ones follow by WW). */
        if (p < listed[k] && vers[voff[k] + p] != r)
            ok = ok && add_edge(c, r, vers[voff[k] + p], PSI_EDGE_RW, k);
    }
    for (uint32_t i = 0; i < h->n_list_reads && ok; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        if (!(idx->op_info[lr->op] & PSI_OI_LIVE))
            continue;
        uint32_t k = h->ops[lr->op].key, prev = PSI_INIT_TXN;
        for (uint32_t j = 0; j < lr->len && ok; j++) {
            uint32_t wo = psi_index_writer(idx, k, h->list_vals[lr->first + j]);
            if (wo == PSI_SRC_NONE)
                break;
            ok = add_edge(c, prev, idx->op_txn[wo], PSI_EDGE_WW, k);
            prev = idx->op_txn[wo];
        }
    }
    /* Real time: sparse edges whose paths give every real-time pair, so
     * an order that keeps them forward keeps every pair forward. */
    if (ok && c->realtime)
        ok = psi_rt_edges(h, add_rt_edge, c, NULL) == PSI_OK;
    if (!ok) {
        st = psi_diag_nomem(NULL, "checking a witness");
        goto out;
    }
    /* The serialization order, when given: a permutation of the committed
     * transactions that puts every edge forward. */
    if (w->has_order) {
        ord = malloc((size_t)h->n_txns * sizeof *ord);
        if (!ord) {
            st = psi_diag_nomem(NULL, "checking a witness");
            goto out;
        }
        memset(ord, 0xff, (size_t)h->n_txns * sizeof *ord);
        ord[PSI_INIT_TXN] = 0;
        unsigned long long L = (unsigned long long)w->order.line;
        for (size_t j = 0; j < w->order.n; j++) {
            const psi_witness_txn *t = &w->tx[w->order.first + j];
            uint32_t x = find_txn(c, t->sid, t->tid);
            snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)t->sid,
                     (unsigned long long)t->tid);
            if (x == UINT32_MAX) {
                st = refuse(c, "line %llu: transaction %s is not in the history", L, a);
                goto out;
            }
            if (h->txns[x].status != PSI_TXN_COMMITTED) {
                st = refuse(c, "line %llu: transaction %s did not commit", L, a);
                goto out;
            }
            if (ord[x] != UINT32_MAX) {
                st = refuse(c, "line %llu: transaction %s is listed twice in the order", L, a);
                goto out;
            }
            ord[x] = (uint32_t)j + 1;
        }
        for (uint32_t t = 1; t < h->n_txns; t++)
            if (h->txns[t].status == PSI_TXN_COMMITTED && ord[t] == UINT32_MAX) {
                psi_fmt_txn(h, t, a, sizeof a);
                st = refuse(c, "line %llu: the serialization order misses %s", L, a);
                goto out;
            }
        if (c->ser) {
            for (size_t i = 0; i < c->n_e; i++) {
                const psi_edge *e = &c->e[i];
                if (ord[e->from] < ord[e->to])
                    continue;
                char x2[64];
                psi_fmt_txn(h, e->from, a, sizeof a);
                psi_fmt_txn(h, e->to, x2, sizeof x2);
                if (e->origin == PSI_FROM_REALTIME) {
                    strbuf sb = {0};
                    sb_printf(&sb, "line %llu: the order puts %s after %s, but ", L, a, x2);
                    fmt_rt(c, e, &sb);
                    st = refuse_sb(c, &sb);
                } else if (e->type == PSI_EDGE_SO)
                    st = refuse(c, "line %llu: the order puts %s after %s, but %s -SO-> %s", L, a,
                                x2, a, x2);
                else
                    st = refuse(c, "line %llu: the order puts %s after %s, but %s -%s(%s)-> %s", L,
                                a, x2, a, type_name(e->type), PSI_KEY_NAME(h, e->key), x2);
                goto out;
            }
        }
    }
    st = acyclic(c);
out:
    free(key_line);
    free(vpos);
    free(writers);
    free(listed);
    free(voff);
    free(vers);
    free(ord);
    return st;
}

/* The levels other than SI and SER: the order line is a commit order
 * (witness_level.h); key lines are not needed and not read. */
static psi_status check_level(chk *c, const psi_witness *w)
{
    psi_history *h = c->h;
    char a[64], b[128];
    if (c->idx.n_anomalies) {
        const psi_anomaly *an = &c->idx.anomalies[0];
        psi_fmt_txn(h, an->txn, a, sizeof a);
        psi_fmt_op(h, an->op, b, sizeof b);
        return refuse(c,
                      "the history has a graph-free anomaly, %s (%s), in %s %s: no commit order "
                      "can be valid",
                      psi_anomaly_name(an->kind), psi_anomaly_title(an->kind), a, b);
    }
    if (!w->has_order)
        return refuse(c,
                      "no order line: under %s the witness is a commit order (witness "
                      "version 3)",
                      psi_level_name(c->level));
    if (w->second_order_line)
        return refuse(c, "line %llu: a second order line (the first is on line %llu)",
                      (unsigned long long)w->second_order_line, (unsigned long long)w->order.line);
    uint32_t *ord = malloc((size_t)h->n_txns * sizeof *ord);
    if (!ord)
        return PSI_ERR_NOMEM;
    memset(ord, 0xff, (size_t)h->n_txns * sizeof *ord);
    ord[PSI_INIT_TXN] = 0;
    unsigned long long L = (unsigned long long)w->order.line;
    psi_status st = PSI_OK;
    for (size_t j = 0; j < w->order.n && st == PSI_OK && !*c->why; j++) {
        const psi_witness_txn *t = &w->tx[w->order.first + j];
        uint32_t x = find_txn(c, t->sid, t->tid);
        snprintf(a, sizeof a, "(%llu,%llu)", (unsigned long long)t->sid,
                 (unsigned long long)t->tid);
        if (x == UINT32_MAX)
            st = refuse(c, "line %llu: transaction %s is not in the history", L, a);
        else if (h->txns[x].status != PSI_TXN_COMMITTED)
            st = refuse(c, "line %llu: transaction %s did not commit", L, a);
        else if (ord[x] != UINT32_MAX)
            st = refuse(c, "line %llu: transaction %s is listed twice in the order", L, a);
        else
            ord[x] = (uint32_t)j + 1;
    }
    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK && !*c->why; t++)
        if (h->txns[t].status == PSI_TXN_COMMITTED && ord[t] == UINT32_MAX) {
            psi_fmt_txn(h, t, a, sizeof a);
            st = refuse(c, "line %llu: the commit order misses %s", L, a);
        }
    for (uint32_t o = 0; o < h->n_ops && st == PSI_OK && !*c->why; o++)
        if ((c->idx.op_info[o] & PSI_OI_LIVE) && c->chosen[o] == UINT32_MAX &&
            ((c->idx.op_info[o] & PSI_OI_AMBIG) ||
             (c->per_read && (c->idx.op_info[o] & PSI_OI_REPEAT_READ)))) {
            /* a repeat read left without a writer by the defaults has
             * several candidates (with none the index reported it) */
            psi_fmt_txn(h, c->idx.op_txn[o], a, sizeof a);
            st = refuse(c,
                        "the read of key %s by %s has several candidate writers, and the "
                        "witness gives none (a 'read' line)",
                        PSI_KEY_NAME(h, h->ops[o].key), a);
        }
    if (st == PSI_OK && !*c->why) {
        char *why = NULL;
        st = psi_witness_level_check(h, &c->idx, c->chosen, ord, c->level, L, &why);
        if (st == PSI_OK && why) {
            *c->why = why;
            *c->verdict = PSI_WITNESS_REFUSED;
        }
    }
    free(ord);
    return st;
}

psi_status psi_witness_verify(psi_history *h, const char *wname, const char *text, size_t len,
                              bool ser, psi_wverdict *verdict, char **why, psi_diag *d)
{
    return psi_witness_verify_level(h, wname, text, len, ser ? PSI_LEVEL_SER : PSI_LEVEL_SI,
                                    verdict, why, d);
}

psi_status psi_witness_verify_level(psi_history *h, const char *wname, const char *text, size_t len,
                                    psi_level level, psi_wverdict *verdict, char **why, psi_diag *d)
{
    psi_witness w;
    /* strict-ser and strong-si: SER and SI with real time; the
     * strong-session levels are SER and SI (check/level.h). */
    const psi_level asked = level;
    bool realtime = psi_level_realtime(level);
    level = psi_level_base(level);
    bool ser = level == PSI_LEVEL_SER;
    bool weak = level != PSI_LEVEL_SER && level != PSI_LEVEL_SI;
    chk c = {
        .h = h, .ser = ser, .realtime = realtime, .level = level, .why = why, .verdict = verdict};
    *verdict = PSI_WITNESS_VALID;
    *why = NULL;
    if (realtime && !h->rt)
        return psi_diag_set(d, PSI_ERR_INPUT,
                            "%s: the history carries no real time, which %s needs: only EDN and "
                            "JSON histories with :invoke and completion ops of a :process do",
                            h->source ? h->source : "the history", psi_level_name(asked));
    psi_status st = psi_witness_parse(wname, text, len, &w, d);
    if (st != PSI_OK)
        goto out;
    /* Version 4 spells keys: map them to the history's keys first. */
    if ((st = psi_witness_resolve_keys(&w, h, wname, d)) != PSI_OK)
        goto out;
    /* The recorded initial state is the witness's: its init line, or none. */
    psi_init_opts io = {.mode = PSI_INIT_NONE};
    if (w.has_init)
        io = (psi_init_opts){.mode = PSI_INIT_NAMED, .session = w.init.sid, .id = w.init.tid};
    uint32_t it;
    psi_diag d2;
    st = psi_index_mark_initial(h, &io, &it, &d2);
    if (st == PSI_OK && w.has_init && h->txns[it].session != PSI_NO_SESSION &&
        (h->sessions[h->txns[it].session].id != w.init.sid || h->txns[it].id != w.init.tid)) {
        st = PSI_ERR_INPUT;
        snprintf(d2.msg, sizeof d2.msg,
                 "line %llu: the history's initial state is another "
                 "transaction",
                 (unsigned long long)w.init.line);
    }
    if (st == PSI_OK && w.second_init_line) {
        st = PSI_ERR_INPUT;
        snprintf(d2.msg, sizeof d2.msg, "line %llu: a second init line",
                 (unsigned long long)w.second_init_line);
    }
    if (st == PSI_ERR_INPUT) {
        /* Not an error of the files: the witness's claim is refused. */
        *verdict = PSI_WITNESS_REFUSED;
        *why = strdup(d2.msg);
        st = *why ? PSI_OK : psi_diag_nomem(d, "checking a witness");
        goto out;
    }
    if (st != PSI_OK)
        goto out;
    /* RC and PL-2 are per read (check.c): non-repeatable reads are theirs */
    bool per_read = c.per_read = level == PSI_LEVEL_RC || level == PSI_LEVEL_PL2;
    if ((st = per_read ? psi_index_build_per_read(h, &c.idx, d) : psi_index_build(h, &c.idx, d)) !=
        PSI_OK)
        goto out;
    c.chosen = malloc((h->n_ops ? h->n_ops : 1) * sizeof *c.chosen);
    if (!c.chosen) {
        st = psi_diag_nomem(d, "checking a witness");
        goto out_idx;
    }
    if ((st = psi_txn_lookup_init(&c.tids, h, false, "checking a witness", d)) != PSI_OK ||
        (st = psi_key_lookup_init(&c.keys, h, d)) != PSI_OK)
        goto out_idx;
    memset(c.chosen, 0xff, (h->n_ops ? h->n_ops : 1) * sizeof *c.chosen);
    st = read_lines(&c, &w);
    if (st == PSI_OK && *verdict == PSI_WITNESS_VALID)
        st = settle_outcomes(&c, &w);
    if (st == PSI_OK && *verdict == PSI_WITNESS_VALID)
        st = weak ? check_level(&c, &w) : check(&c, &w);
    if (st == PSI_ERR_NOMEM)
        psi_diag_nomem(d, "checking a witness");
out_idx:
    psi_index_free(&c.idx);
out:
    psi_txn_lookup_free(&c.tids);
    if (c.keys.h)
        psi_key_lookup_free(&c.keys);
    free(c.chosen);
    free(c.e);
    psi_witness_free(&w);
    return st;
}
