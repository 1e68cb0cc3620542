/* The polynomial levels with a choice of writers (see level_choice.h).
 * level_poly.c is given a view: the index with read_src (and op_info for
 * RC/PL-2 repeat reads) swapped for this file's arrays of the choice. */
#include "check/level_choice.h"
#include "check/level_lattice.h"

#include "core/vec.h"
#include "solver/sat.h"
#include "solver/theory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX
/* Pruning rounds: each settles the reads whose other candidates the
 * previous round's settled reads exclude; a few catch nearly all of it,
 * and stopping early is sound (the search does the rest). */
#define MAX_ROUNDS 8u
/* Pruning's clocks take transactions times sessions entries (4 bytes):
 * above this the search goes without pruning. */
#define MAX_CLOCK_CELLS (UINT64_C(1) << 26)

typedef struct cctx {
    const psi_history *h;
    psi_index *idx;
    psi_index view; /* idx with src (and info) swapped in */
    uint32_t *src;  /* [n_ops] the view's read_src */
    uint8_t *info;  /* [n_ops] the view's op_info, or NULL when idx's serves */
    bool per_read;  /* RC, PL-2 */
    psi_level level;
    /* Pruning: each key's committed final writers, by session then
     * position: wt[woff[x] .. woff[x + 1]). */
    uint64_t *woff;
    uint32_t *wt;
    psi_level_choices *out;
    uint32_t *topo_rank; /* [n_txns] place in the known graph's order, NONE if unplaced */
    int *var;            /* [n_cand] solver variable of an open candidate, 0 if none */
    int *clause;
    size_t cap_clause;
    uint32_t *stamp; /* [n_reads] dependency marks */
    uint32_t stamp_now;
    /* causal paths: BFS scratch [n_txns] */
    uint32_t *next, *next_op, *queue;
    /* search: candidate of each variable, read of each candidate, the
     * theory's notifications, its scratch and last violating results */
    uint64_t *var_cand;
    uint32_t *cand_read;
    struct note *notes;
    size_t n_notes, cap_notes;
    psi_level_result scratch, last_bad;
    psi_status th_status;
    psi_diag *d;
} cctx;

static bool committed(const psi_history *h, uint32_t t)
{
    return t == PSI_INIT_TXN || h->txns[t].status == PSI_TXN_COMMITTED;
}

/* A repeat read's candidates: the initial value when it read it, and the
 * committed final writes of the value by other transactions, through the
 * write map's chain. Appends them to out->cand; returns how many, or
 * NONE out of memory. */
static uint32_t repeat_candidates(const psi_history *h, const psi_index *idx, uint32_t o,
                                  psi_level_choices *out, size_t *cap)
{
    const psi_op *op = &h->ops[o];
    uint32_t t = idx->op_txn[o], n = 0;
    uint32_t w = psi_index_writer(idx, op->key, op->value);
    if (op->flags & PSI_OPF_INIT) {
        if (!psi_grow((void **)&out->cand, cap, out->n_cand + 1, sizeof *out->cand))
            return NONE;
        out->cand[out->n_cand++] = PSI_SRC_INIT;
        n++;
    }
    for (; w != PSI_SRC_NONE; w = idx->dup_prev ? idx->dup_prev[w] : PSI_SRC_NONE) {
        uint8_t in = idx->op_info[w];
        if (!(in & PSI_OI_LIVE) || !(in & PSI_OI_FINAL_WRITE) || idx->op_txn[w] == t)
            continue;
        if (!psi_grow((void **)&out->cand, cap, out->n_cand + 1, sizeof *out->cand))
            return NONE;
        out->cand[out->n_cand++] = w;
        n++;
    }
    return n;
}

/* Whether repeat read o (live, RC or PL-2) has a choice of writers: its
 * value was written more than once, or it is the initial value and
 * someone wrote 0. */
static bool repeat_ambiguous(const psi_history *h, const psi_index *idx, uint32_t o)
{
    const psi_op *op = &h->ops[o];
    uint32_t w = psi_index_writer(idx, op->key, op->value);
    if (w == PSI_SRC_NONE)
        return false; /* the initial value alone, or no writer (reported) */
    return (op->flags & PSI_OPF_INIT) || (idx->dup_prev && idx->dup_prev[w] != PSI_SRC_NONE);
}

static bool live_repeat(const psi_index *idx, uint32_t o)
{
    uint8_t in = idx->op_info[o];
    return (in & PSI_OI_REPEAT_READ) && (in & PSI_OI_LIVE);
}

uint32_t psi_level_choice_reads(const psi_history *h, const psi_index *idx, psi_level l)
{
    uint32_t n = idx->n_amb;
    if (l == PSI_LEVEL_RC || l == PSI_LEVEL_PL2)
        for (uint32_t o = 0; o < h->n_ops; o++)
            n += live_repeat(idx, o) && repeat_ambiguous(h, idx, o);
    return n;
}

static int by_op(const void *a, const void *b)
{
    uint32_t x = ((const psi_rf_read *)a)->op, y = ((const psi_rf_read *)b)->op;
    return x < y ? -1 : x > y;
}

/* The choice reads with their candidates, sorted by operation. */
static bool collect(cctx *c)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    psi_level_choices *out = c->out;
    size_t cap_r = 0, cap_c = 0;
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *am = &idx->amb[a];
        psi_rf_read r = {.op = am->op,
                         .txn = am->txn,
                         .key = am->key,
                         .n = am->n,
                         .left = am->n,
                         .first = out->n_cand};
        if (!psi_grow((void **)&out->cand, &cap_c, out->n_cand + am->n, sizeof *out->cand) ||
            !psi_grow((void **)&out->reads, &cap_r, out->n_reads + 1, sizeof *out->reads))
            return false;
        memcpy(out->cand + out->n_cand, idx->amb_cand + am->first, am->n * sizeof *out->cand);
        out->n_cand += am->n;
        out->reads[out->n_reads++] = r;
    }
    for (uint32_t o = 0; c->per_read && o < h->n_ops; o++) {
        if (!live_repeat(idx, o) || !repeat_ambiguous(h, idx, o))
            continue;
        psi_rf_read r = {
            .op = o, .txn = idx->op_txn[o], .key = h->ops[o].key, .first = out->n_cand};
        r.n = repeat_candidates(h, idx, o, out, &cap_c);
        if (r.n == NONE)
            return false;
        if (r.n == 0)
            continue; /* no writer it may have read: the default's (reported) */
        r.repeat = true;
        r.left = r.n;
        if (!psi_grow((void **)&out->reads, &cap_r, out->n_reads + 1, sizeof *out->reads))
            return false;
        out->reads[out->n_reads++] = r;
    }
    qsort(out->reads, out->n_reads, sizeof *out->reads, by_op);
    out->excluded = calloc(out->n_cand ? out->n_cand : 1, 1);
    return out->excluded != NULL;
}

static uint32_t cand_txn(const cctx *c, uint32_t s)
{
    return s == PSI_SRC_INIT ? PSI_INIT_TXN : c->idx->op_txn[s];
}

/* The writer transaction of read event o in the view, NONE if o is none
 * or its writer is open. */
static uint32_t view_src_txn(const cctx *c, uint32_t o)
{
    uint8_t in = c->view.op_info[o];
    uint32_t s = PSI_SRC_NONE;
    if (in & PSI_OI_EXTERNAL_READ)
        s = c->src[o];
    else if (c->per_read && (in & PSI_OI_REPEAT_READ) && (in & PSI_OI_LIVE))
        s = psi_index_repeat_src(c->h, c->idx, o);
    return s == PSI_SRC_NONE ? NONE : cand_txn(c, s);
}

typedef struct kgraph {
    uint64_t *off; /* [n_txns + 1] */
    uint32_t *to;
} kgraph;

/* SO ∪ the WR edges of settled reads, as out-edges. */
static bool known_graph(cctx *c, kgraph *g)
{
    const psi_history *h = c->h;
    uint32_t n = h->n_txns;
    g->off = calloc((size_t)n + 1, sizeof *g->off);
    if (!g->off)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t *fill = NULL;
        if (pass) {
            for (uint32_t v = 0; v < n; v++)
                g->off[v + 1] += g->off[v];
            g->to = malloc((g->off[n] ? g->off[n] : 1) * sizeof *g->to);
            fill = malloc(((size_t)n + 1) * sizeof *fill);
            if (!g->to || !fill) {
                free(fill);
                return false;
            }
            memcpy(fill, g->off, ((size_t)n + 1) * sizeof *fill);
        }
        for (uint32_t s = 0; s < h->n_sessions; s++) {
            uint32_t prev = PSI_INIT_TXN;
            for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
                uint32_t t = h->sessions[s].first_txn + i;
                if (!committed(h, t))
                    continue;
                if (pass)
                    g->to[fill[prev]++] = t;
                else
                    g->off[prev + 1]++;
                prev = t;
                const psi_txn *tx = &h->txns[t];
                for (uint32_t j = 0; j < tx->n_ops; j++) {
                    uint32_t w = view_src_txn(c, tx->first_op + j);
                    if (w == NONE || w == t || w == PSI_INIT_TXN)
                        continue;
                    if (pass)
                        g->to[fill[w]++] = t;
                    else
                        g->off[w + 1]++;
                }
            }
        }
        free(fill);
    }
    return true;
}

/* The writers index (cctx.woff/wt). */
static bool writers_by_key(cctx *c)
{
    const psi_history *h = c->h;
    uint32_t nk = h->n_keys;
    c->woff = calloc((size_t)nk + 2, sizeof *c->woff);
    if (!c->woff)
        return false;
    for (int pass = 0; pass < 2; pass++) {
        if (pass) {
            for (uint32_t x = 0; x < nk; x++)
                c->woff[x + 1] += c->woff[x];
            if (!(c->wt = malloc((c->woff[nk] ? c->woff[nk] : 1) * sizeof *c->wt)))
                return false;
        }
        /* pass 1 fills through woff shifted by one, which ends as woff */
        for (uint32_t s = 0; s < h->n_sessions; s++)
            for (uint32_t i = 0; i < h->sessions[s].n_txns; i++) {
                uint32_t t = h->sessions[s].first_txn + i;
                const psi_txn *tx = &h->txns[t];
                if (!committed(h, t))
                    continue;
                for (uint32_t j = 0; j < tx->n_ops; j++) {
                    uint32_t o = tx->first_op + j;
                    if (h->ops[o].kind != PSI_OP_WRITE ||
                        !(c->idx->op_info[o] & PSI_OI_FINAL_WRITE))
                        continue;
                    if (pass)
                        c->wt[c->woff[h->ops[o].key]++] = t;
                    else
                        c->woff[h->ops[o].key + 1]++;
                }
            }
    }
    memmove(c->woff + 1, c->woff, (size_t)nk * sizeof *c->woff);
    c->woff[0] = 0;
    return true;
}

static bool writes_key(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t x)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t j = 0; j < tx->n_ops; j++) {
        uint32_t o = tx->first_op + j;
        if (h->ops[o].key == x && h->ops[o].kind == PSI_OP_WRITE &&
            (idx->op_info[o] & PSI_OI_FINAL_WRITE))
            return true;
    }
    return false;
}

/* Whether w reaches v over the known graph (clocks vc, k per row). */
static bool reaches(const cctx *c, const uint32_t *vc, uint32_t k, uint32_t w, uint32_t v)
{
    if (w == PSI_INIT_TXN)
        return true;
    if (v == PSI_INIT_TXN)
        return false;
    const psi_txn *a = &c->h->txns[w];
    return w == v || vc[(size_t)v * k + a->session] > a->pos;
}

/* Premise writers: writers t2 of the read's key that the level makes
 * precede whatever it reads from, known already: RC the writers of t's
 * settled earlier reads; RA those of all its settled reads and its
 * latest session predecessor writing the key; CC per session the latest
 * writer in t's known causal past (earlier ones it reaches). Each is
 * passed to fn, which excludes the candidates that reach it: choosing
 * such a w forces t2 before w, a cycle with w →+ t2. */
static void premise_writers(cctx *c, const psi_rf_read *rd, const uint32_t *vc, uint32_t k,
                            void (*fn)(cctx *, const psi_rf_read *, const uint32_t *, uint32_t,
                                       uint32_t))
{
    const psi_history *h = c->h;
    const psi_txn *tx = &h->txns[rd->txn];
    if (c->level == PSI_LEVEL_PL2)
        return;
    if (c->level == PSI_LEVEL_RC || c->level == PSI_LEVEL_RA) {
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j;
            if (c->level == PSI_LEVEL_RC && o >= rd->op)
                break;
            uint32_t t2 = view_src_txn(c, o);
            if (t2 != NONE && t2 != PSI_INIT_TXN && t2 != rd->txn &&
                writes_key(h, c->idx, t2, rd->key))
                fn(c, rd, vc, k, t2);
        }
        if (c->level == PSI_LEVEL_RC)
            return;
    }
    /* RA: t's own session; CC: every session, up to t's causal past */
    for (uint64_t i = c->woff[rd->key]; i < c->woff[rd->key + 1];) {
        uint32_t s = h->txns[c->wt[i]].session;
        uint64_t end = i;
        while (end < c->woff[rd->key + 1] && h->txns[c->wt[end]].session == s)
            end++;
        uint32_t lim = s == tx->session ? tx->pos : vc[(size_t)rd->txn * k + s];
        if (c->level == PSI_LEVEL_CC || s == tx->session) {
            uint64_t lo = i, hi = end; /* the last writer with pos < lim */
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo) / 2;
                if (h->txns[c->wt[mid]].pos < lim)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo > i && c->wt[lo - 1] != rd->txn)
                fn(c, rd, vc, k, c->wt[lo - 1]);
        }
        i = end;
    }
}

static void exclude_reaching(cctx *c, const psi_rf_read *rd, const uint32_t *vc, uint32_t k,
                             uint32_t t2)
{
    psi_level_choices *out = c->out;
    psi_rf_read *r = &out->reads[rd - out->reads];
    for (uint32_t j = 0; j < r->n && r->left; j++) {
        uint64_t ci = r->first + j;
        uint32_t w = cand_txn(c, out->cand[ci]);
        if (out->excluded[ci] || w == t2 || !reaches(c, vc, k, w, t2))
            continue;
        out->excluded[ci] = 1;
        out->n_excluded++;
        r->left--;
    }
}

/* One round: clocks over the known graph, then every open candidate
 * whose reader reaches it is excluded. *changed: a read was settled.
 * false: out of memory. */
static bool prune_round(cctx *c, uint32_t *vc, bool *changed, bool *cyclic)
{
    const psi_history *h = c->h;
    psi_level_choices *out = c->out;
    uint32_t n = h->n_txns, k = h->n_sessions ? h->n_sessions : 1;
    kgraph g = {0};
    uint32_t *indeg = calloc(n, sizeof *indeg), *order = malloc((size_t)n * sizeof *order);
    bool ok = indeg && order && known_graph(c, &g);
    *changed = false;
    *cyclic = false;
    if (!ok)
        goto out;
    for (uint64_t i = 0; i < g.off[n]; i++)
        indeg[g.to[i]]++;
    uint32_t head = 0, tail = 0, live = 0;
    for (uint32_t v = 0; v < n; v++) {
        live += committed(h, v);
        if (committed(h, v) && indeg[v] == 0)
            order[tail++] = v;
    }
    while (head < tail) {
        uint32_t v = order[head++];
        for (uint64_t i = g.off[v]; i < g.off[v + 1]; i++)
            if (--indeg[g.to[i]] == 0)
                order[tail++] = g.to[i];
    }
    if (tail < live) {
        /* a cycle of known edges: every read-from rejects, and the level
         * check will show it */
        *cyclic = true;
        goto out;
    }
    memset(vc, 0, (size_t)n * k * sizeof *vc);
    for (uint32_t i = 0; i < tail; i++) {
        uint32_t v = order[i];
        c->topo_rank[v] = i;
        if (v == PSI_INIT_TXN)
            continue;
        uint32_t *cv = vc + (size_t)v * k;
        const psi_txn *tx = &h->txns[v];
        if (cv[tx->session] < tx->pos + 1)
            cv[tx->session] = tx->pos + 1;
        for (uint64_t j = g.off[v]; j < g.off[v + 1]; j++) {
            uint32_t *cw = vc + (size_t)g.to[j] * k;
            for (uint32_t s = 0; s < k; s++)
                cw[s] = cw[s] < cv[s] ? cv[s] : cw[s];
        }
    }
    for (uint32_t r = 0; r < out->n_reads; r++) {
        psi_rf_read *rd = &out->reads[r];
        if (rd->left < 2)
            continue;
        const psi_txn *rt = &h->txns[rd->txn];
        for (uint32_t j = 0; j < rd->n; j++) {
            uint64_t ci = rd->first + j;
            uint32_t w = cand_txn(c, out->cand[ci]);
            if (out->excluded[ci] || w == PSI_INIT_TXN)
                continue;
            /* the reader reaches w: w →WR reader closes a cycle */
            if (vc[(size_t)w * k + rt->session] > rt->pos || w == rd->txn) {
                out->excluded[ci] = 1;
                out->n_excluded++;
                rd->left--;
            }
        }
        if (rd->left >= 1)
            premise_writers(c, rd, vc, k, exclude_reaching);
        if (rd->left == 1) {
            for (uint32_t j = 0; j < rd->n; j++)
                if (!out->excluded[rd->first + j])
                    rd->chosen = j;
            rd->how = PSI_RFC_FORCED;
            c->src[rd->op] = out->cand[rd->first + rd->chosen];
            *changed = true;
        } else if (rd->left == 0) {
            rd->how = PSI_RFC_NO_WRITER;
        }
    }
out:
    free(indeg);
    free(order);
    free(g.off);
    free(g.to);
    return ok;
}

static bool prune(cctx *c)
{
    const psi_history *h = c->h;
    uint64_t k = h->n_sessions ? h->n_sessions : 1;
    if ((uint64_t)h->n_txns * k > MAX_CLOCK_CELLS)
        return true;
    uint32_t *vc = malloc((size_t)h->n_txns * k * sizeof *vc);
    if (!vc || !writers_by_key(c)) {
        free(vc);
        return false;
    }
    bool changed = true, cyclic = false, ok = true;
    while (ok && changed && !cyclic && c->out->rounds < MAX_ROUNDS) {
        ok = prune_round(c, vc, &changed, &cyclic);
        c->out->rounds++;
    }
    free(vc);
    return ok;
}

/* The choice read of op o, or NONE. */
static uint32_t read_of(const cctx *c, uint32_t o)
{
    const psi_level_choices *out = c->out;
    uint32_t lo = 0, hi = out->n_reads;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (out->reads[mid].op < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < out->n_reads && out->reads[lo].op == o ? lo : NONE;
}

/* Marks o's choice read when the search chose it. false: out of memory. */
static bool depend(cctx *c, uint32_t o)
{
    if (o == NONE)
        return true;
    uint32_t r = read_of(c, o);
    if (r == NONE || c->out->reads[r].how != PSI_RFC_OPEN || c->stamp[r] == c->stamp_now)
        return true;
    c->stamp[r] = c->stamp_now;
    const psi_rf_read *rd = &c->out->reads[r];
    int v = c->var[rd->first + rd->chosen];
    assert(v > 0);
    size_t n = 0;
    while (n < c->cap_clause && c->clause[n])
        n++;
    if (!psi_grow((void **)&c->clause, &c->cap_clause, n + 2, sizeof *c->clause))
        return false;
    c->clause[n] = -v;
    c->clause[n + 1] = 0;
    return true;
}

/* CC's premise from →(SO ∪ WR)+ to: a path in the view (BFS backwards
 * from `to`), whose WR edges' reads are dependencies. */
static bool causal_deps(cctx *c, uint32_t from, uint32_t to)
{
    const psi_history *h = c->h;
    memset(c->next, 0xff, (size_t)h->n_txns * sizeof *c->next);
    uint32_t head = 0, tail = 0;
    c->queue[tail++] = to;
    c->next[to] = to;
    while (head < tail && c->next[from] == NONE) {
        uint32_t v = c->queue[head++];
        if (v == PSI_INIT_TXN)
            continue;
        uint32_t p = psi_history_so_prev_committed(h, v);
        if (c->next[p] == NONE) {
            c->next[p] = v;
            c->next_op[p] = NONE;
            c->queue[tail++] = p;
        }
        const psi_txn *tx = &h->txns[v];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j, w = view_src_txn(c, o);
            if (w == NONE || w == v || c->next[w] != NONE)
                continue;
            c->next[w] = v;
            c->next_op[w] = o;
            c->queue[tail++] = w;
        }
    }
    /* the level found the path, so it is there */
    assert(c->next[from] != NONE);
    for (uint32_t v = from; v != to && c->next[v] != NONE; v = c->next[v])
        if (!depend(c, c->next_op[v]))
            return false;
    return true;
}

/* c->clause gets "not all of the choices the cycle depends on",
 * 0-terminated. false: out of memory. */
static bool violation_clause(cctx *c, const psi_level_result *res, size_t *n)
{
    c->stamp_now++;
    if (!psi_grow((void **)&c->clause, &c->cap_clause, 1, sizeof *c->clause))
        return false;
    c->clause[0] = 0;
    for (uint32_t i = 0; i < res->cycle_len; i++) {
        const psi_level_edge *e = &res->cycle[i];
        if (e->why == PSI_LW_WR) {
            if (!depend(c, e->read_op))
                return false;
        } else if (e->why == PSI_LW_FORCED) {
            if (!depend(c, e->read_op) || !depend(c, e->read_op2))
                return false;
            if (e->premise == PSI_LP_CAUSAL && !causal_deps(c, e->from, e->reader))
                return false;
        }
    }
    *n = 0;
    while (c->clause[*n])
        (*n)++;
    return true;
}

/* The open reads' variables with exactly-one constraints (an at-least-one
 * clause, and at-most-one by a sequential counter: 3 clauses and one
 * helper variable per candidate, so 10^5 candidates stay linear), and
 * phases: the candidate latest in the known graph's order first, as a
 * store that reads the latest committed version would. */
static bool encode(cctx *c, psi_sat *s)
{
    psi_level_choices *out = c->out;
    int nv = 0;
    for (uint64_t ci = 0; ci < out->n_cand; ci++)
        c->var[ci] = 0;
    uint32_t n_open_cand = 0;
    for (uint32_t r = 0; r < out->n_reads; r++)
        if (out->reads[r].how == PSI_RFC_OPEN)
            for (uint32_t j = 0; j < out->reads[r].n; j++)
                n_open_cand += !out->excluded[out->reads[r].first + j];
    c->var_cand = malloc(((size_t)n_open_cand + 1) * sizeof *c->var_cand);
    if (!c->var_cand)
        return false;
    int aux = (int)n_open_cand;
    for (uint32_t r = 0; r < out->n_reads; r++) {
        psi_rf_read *rd = &out->reads[r];
        if (rd->how != PSI_RFC_OPEN)
            continue;
        size_t m = 0;
        uint32_t best = NONE, best_rank = 0;
        if (!psi_grow((void **)&c->clause, &c->cap_clause, rd->n + 1, sizeof *c->clause))
            return false;
        for (uint32_t j = 0; j < rd->n; j++) {
            uint64_t ci = rd->first + j;
            if (out->excluded[ci])
                continue;
            c->var[ci] = ++nv;
            c->var_cand[nv] = ci;
            c->clause[m++] = nv;
            uint32_t rk = c->topo_rank[cand_txn(c, out->cand[ci])];
            if (best == NONE || (rk != NONE && rk > best_rank)) {
                best = j;
                best_rank = rk == NONE ? 0 : rk;
            }
        }
        assert(m >= 2 && best != NONE);
        if (psi_sat_reserve(s, aux + (int)m) != 0 || psi_sat_add_clause(s, c->clause, m) != 0)
            return false;
        /* sequential counter: s_i = "one of x_1..x_i is true" */
        for (size_t i = 0; i < m; i++) {
            int x = c->clause[i], si = aux + 1 + (int)i, sp = aux + (int)i;
            int c1[2] = {-x, si}, c2[2] = {-sp, si}, c3[2] = {-x, -sp};
            if (psi_sat_add_clause(s, c1, 2) != 0 || psi_sat_observe(s, x) != 0 ||
                (i && (psi_sat_add_clause(s, c2, 2) != 0 || psi_sat_add_clause(s, c3, 2) != 0)))
                return false;
        }
        aux += (int)m;
        for (uint32_t j = 0; j < rd->n; j++) {
            int v = c->var[rd->first + j];
            if (v && psi_sat_set_phase(s, j == best ? v : -v) != 0)
                return false;
        }
    }
    return true;
}

/* The theory: each candidate that becomes true is its read's writer in
 * the view, and the level is checked on the partial read-from (reads not
 * yet chosen contribute no edge). Sound because a read-from's graph only
 * grows as reads get writers: a cycle now is a cycle in every
 * completion, and the conflict clause names the choices it uses. */
typedef struct note {
    uint32_t read;
    unsigned level;
} note;

static int th_notify(void *ctx, int lit, unsigned level, psi_theory_out *tout)
{
    cctx *c = ctx;
    psi_level_choices *out = c->out;
    if (lit < 0)
        return PSI_THEORY_OK;
    uint64_t ci = c->var_cand[lit];
    uint32_t r = c->cand_read[ci];
    psi_rf_read *rd = &out->reads[r];
    assert(rd->how == PSI_RFC_OPEN && c->src[rd->op] == PSI_SRC_NONE);
    if (!psi_grow((void **)&c->notes, &c->cap_notes, c->n_notes + 1, sizeof *c->notes))
        return PSI_THEORY_ENOMEM;
    rd->chosen = (uint32_t)(ci - rd->first);
    c->src[rd->op] = out->cand[ci];
    psi_level_result_free(&c->scratch);
    out->models++;
    psi_status st = psi_level_check(c->h, &c->view, c->level, &c->scratch, c->d);
    if (st != PSI_OK) {
        c->src[rd->op] = PSI_SRC_NONE;
        c->th_status = st;
        return PSI_THEORY_ENOMEM; /* the solver stops; th_status says why */
    }
    if (c->scratch.accept) {
        c->notes[c->n_notes++] = (note){r, level};
        return PSI_THEORY_OK;
    }
    size_t n;
    if (!violation_clause(c, &c->scratch, &n)) {
        c->src[rd->op] = PSI_SRC_NONE;
        return PSI_THEORY_ENOMEM;
    }
    c->src[rd->op] = PSI_SRC_NONE;
    if (n > out->depends_max)
        out->depends_max = n;
    out->clauses++;
    /* keep the violation: the reject's report when no choice avoids it */
    psi_level_result_free(&c->last_bad);
    c->last_bad = c->scratch;
    memset(&c->scratch, 0, sizeof c->scratch);
    for (size_t i = 0; i < n; i++)
        if (!psi_lits_push(&tout->clause, c->clause[i]))
            return PSI_THEORY_ENOMEM;
    return PSI_THEORY_CONFLICT;
}

static int th_explain(void *ctx, int lit, psi_theory_out *tout)
{
    (void)ctx, (void)lit, (void)tout;
    assert(!"the choice theory implies nothing");
    return PSI_THEORY_OK;
}

static void th_backtrack(void *ctx, unsigned level)
{
    cctx *c = ctx;
    size_t m = 0;
    for (size_t i = 0; i < c->n_notes; i++) {
        if (c->notes[i].level <= level) {
            c->notes[m++] = c->notes[i];
            continue;
        }
        c->src[c->out->reads[c->notes[i].read].op] = PSI_SRC_NONE;
    }
    c->n_notes = m;
}

static psi_status search(cctx *c, psi_level level, psi_level_result *res)
{
    const psi_history *h = c->h;
    psi_level_choices *out = c->out;
    psi_status st = PSI_OK;
    psi_sat *s = psi_sat_new();
    c->var = calloc(out->n_cand ? out->n_cand : 1, sizeof *c->var);
    c->cand_read = malloc((out->n_cand ? out->n_cand : 1) * sizeof *c->cand_read);
    c->stamp = calloc(out->n_reads ? out->n_reads : 1, sizeof *c->stamp);
    c->next = malloc((size_t)h->n_txns * sizeof *c->next);
    c->next_op = malloc((size_t)h->n_txns * sizeof *c->next_op);
    c->queue = malloc((size_t)h->n_txns * sizeof *c->queue);
    if (!s || !c->var || !c->cand_read || !c->stamp || !c->next || !c->next_op || !c->queue)
        goto nomem;
    for (uint32_t r = 0; r < out->n_reads; r++)
        for (uint32_t j = 0; j < out->reads[r].n; j++)
            c->cand_read[out->reads[r].first + j] = r;
    /* open reads start with no writer in the view */
    for (uint32_t r = 0; r < out->n_reads; r++)
        if (out->reads[r].how == PSI_RFC_OPEN)
            c->src[out->reads[r].op] = PSI_SRC_NONE;
    if (!encode(c, s))
        goto nomem;
    psi_theory th = {
        .ctx = c, .notify = th_notify, .explain = th_explain, .backtrack = th_backtrack};
    psi_sat_set_theory(s, &th);
    int r = psi_sat_solve(s);
    if (c->th_status != PSI_OK) {
        st = c->th_status;
        goto done;
    }
    if (r == PSI_SAT_SAT) {
        /* the model: every open read has one writer (the solver ends
         * at level 0, so it is read from the model, not the theory's
         * state); the theory checked this read-from when its last
         * choice was made */
        for (uint32_t i = 0; i < out->n_reads; i++) {
            psi_rf_read *rd = &out->reads[i];
            if (rd->how != PSI_RFC_OPEN)
                continue;
            uint32_t j = 0;
            while (j + 1 < rd->n &&
                   (!c->var[rd->first + j] || psi_sat_value(s, c->var[rd->first + j]) <= 0))
                j++;
            assert(c->var[rd->first + j] && psi_sat_value(s, c->var[rd->first + j]) > 0);
            rd->chosen = j;
            c->src[rd->op] = out->cand[rd->first + j];
        }
        st = psi_level_check(h, &c->view, level, res, c->d);
        assert(st != PSI_OK || res->accept);
    } else if (r == PSI_SAT_UNSAT) {
        /* every read-from violates: the last violation found shows one;
         * its reads' writers are the ones it used */
        assert(c->last_bad.cycle);
        *res = c->last_bad;
        memset(&c->last_bad, 0, sizeof c->last_bad);
        for (uint32_t i = 0; i < out->n_reads; i++)
            if (out->reads[i].how == PSI_RFC_OPEN)
                c->src[out->reads[i].op] = out->cand[out->reads[i].first + out->reads[i].chosen];
    } else {
        goto nomem;
    }
    goto done;
nomem:
    st = psi_diag_nomem(c->d, "searching the reads' writers");
done:
    psi_sat_free(s);
    psi_level_result_free(&c->scratch);
    psi_level_result_free(&c->last_bad);
    return st;
}

psi_status psi_level_check_choices(const psi_history *h, psi_index *idx, psi_level level,
                                   const uint32_t *hint, psi_level_result *res,
                                   psi_level_choices *out, psi_diag *d)
{
    assert(psi_level_is_polynomial(level));
    memset(res, 0, sizeof *res);
    memset(out, 0, sizeof *out);
    cctx c = {.h = h,
              .idx = idx,
              .per_read = level == PSI_LEVEL_RC || level == PSI_LEVEL_PL2,
              .level = level,
              .out = out,
              .d = d};
    psi_status st = PSI_OK;
    c.src = malloc((h->n_ops ? h->n_ops : 1) * sizeof *c.src);
    c.topo_rank = malloc((h->n_txns ? h->n_txns : 1) * sizeof *c.topo_rank);
    if (!c.src || !c.topo_rank || !collect(&c))
        goto nomem;
    memcpy(c.src, idx->read_src, (size_t)h->n_ops * sizeof *c.src);
    memset(c.topo_rank, 0xff, (size_t)h->n_txns * sizeof *c.topo_rank);
    c.view = *idx;
    c.view.read_src = c.src;
    /* A repeat read with a choice is read through read_src in the view:
     * under RC and PL-2 (per read) an external read and a repeat read are
     * read events alike, so marking it external changes nothing else. */
    for (uint32_t r = 0; r < out->n_reads; r++) {
        if (!out->reads[r].repeat)
            continue;
        if (!c.info) {
            if (!(c.info = malloc(h->n_ops ? h->n_ops : 1)))
                goto nomem;
            memcpy(c.info, idx->op_info, h->n_ops);
            c.view.op_info = c.info;
        }
        c.info[out->reads[r].op] |= PSI_OI_EXTERNAL_READ;
    }
    if (hint)
        psi_level_choices_take(out, hint); /* SI's read-from, for one check */
    else if (!prune(&c))
        goto nomem;
    /* reads pruning settled use their one writer; reads with none left,
     * any (every choice violates, and the check shows one violation) */
    bool open = false, dead = false;
    for (uint32_t r = 0; r < out->n_reads; r++) {
        psi_rf_read *rd = &out->reads[r];
        if (rd->n == 1 && rd->how == PSI_RFC_OPEN)
            rd->how = PSI_RFC_FORCED;
        if (rd->how == PSI_RFC_FORCED || rd->how == PSI_RFC_LATTICE)
            c.src[rd->op] = out->cand[rd->first + rd->chosen];
        else if (rd->how == PSI_RFC_NO_WRITER)
            dead = true;
        else
            open = true;
    }
    if (dead || !open) {
        /* one read-from decides: the open reads (if any) take the first
         * candidate pruning left */
        for (uint32_t r = 0; r < out->n_reads; r++) {
            psi_rf_read *rd = &out->reads[r];
            if (rd->how == PSI_RFC_OPEN) {
                rd->chosen = 0;
                while (rd->chosen + 1 < rd->n && out->excluded[rd->first + rd->chosen])
                    rd->chosen++;
            }
            if (rd->how != PSI_RFC_FORCED)
                c.src[rd->op] = out->cand[rd->first + rd->chosen];
        }
        out->models = 1;
        st = psi_level_check(h, &c.view, level, res, d);
        assert(st != PSI_OK || !dead || !res->accept);
    } else {
        st = search(&c, level, res);
    }
    /* the resolved writers, for reports and witnesses (level_choice.h) */
    for (uint32_t r = 0; st == PSI_OK && r < out->n_reads; r++)
        if (!out->reads[r].repeat)
            idx->read_src[out->reads[r].op] = c.src[out->reads[r].op];
    goto done;
nomem:
    st = psi_diag_nomem(d, "checking the reads' choice of writers");
done:
    free(c.src);
    free(c.info);
    free(c.topo_rank);
    free(c.var);
    free(c.clause);
    free(c.stamp);
    free(c.next);
    free(c.next_op);
    free(c.queue);
    free(c.woff);
    free(c.wt);
    free(c.var_cand);
    free(c.cand_read);
    free(c.notes);
    return st;
}

void psi_level_choices_free(psi_level_choices *c)
{
    free(c->reads);
    free(c->cand);
    free(c->excluded);
    memset(c, 0, sizeof *c);
}
