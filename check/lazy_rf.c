/* SI and SER with read-from choices by lazy refinement (see lazy_rf.h).
 *
 * The theory's order labels (psi_acyc_node_order) are the commit order of
 * a model: they are topological for every active DEP edge the theory
 * holds, and in SI mode an active RW edge a -> b puts b's twin between a
 * and b's DEP successors. What the theory does not hold are the WW edges
 * of pairs never created and the RW edges of reads never refuted: the
 * model check below gives them the order's direction and looks for the
 * ones that go backwards. Only the RW edge from a read to the writer that
 * follows its chosen writer in the order is tested: an RW edge to a later
 * writer is implied by it and the WW chain (seed.h's argument), and every
 * WW edge of the order goes forward by construction. */
#include "check/lazy_rf.h"

#include "core/clock.h"
#include "core/vec.h"
#include "solver/acyclic.h"
#include "solver/sat.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

/* Edges the rounds may add by default: about 2 GB of theory and solver
 * state at the sizes this path is for. Past it the usual path decides. */
#define DEFAULT_MAX_EDGES  ((uint64_t)1 << 25)
#define DEFAULT_MAX_ROUNDS 100000u
/* Candidates a read gets when a model reads from one without a variable. */
#define EXPAND 4u
/* Conflicts over all solves before the check gives up: the usual path
 * then decides, so a search that does not converge costs a bounded
 * detour. */
#define DEFAULT_MAX_CONFLICTS ((uint64_t)1 << 12)

/* A read: its candidates are cand[first .. first + n). A read with one
 * writer is a fact. Otherwise only the first m have variables (lit[...],
 * 0 for the others), and y is the variable "one of the others" (0 once
 * all have theirs): a model that sets y and none of the first m makes
 * the check give the read more (expand). */
typedef struct lread {
    uint32_t txn, key, n, m;
    uint64_t first;
    int y;
} lread;

/* Open addressing over (a, b, c) -> v, v != 0 (0 marks a free slot). */
typedef struct hslot {
    uint32_t a, b, c;
    int v;
} hslot;

typedef struct htab {
    hslot *s;
    uint64_t cap, n; /* cap a power of two */
} htab;

typedef struct ordslot {
    uint64_t ord;
    uint32_t slot;
} ordslot;

typedef struct lctx {
    const psi_history *h;
    const psi_index *idx;
    bool ser;
    uint32_t n; /* transactions */
    psi_sat *s;
    psi_acyc *g;
    lread *rd;
    uint32_t n_rd;
    uint32_t *cand; /* candidate transactions (PSI_INIT_TXN for the initial value) */
    int *lit;
    uint64_t n_cand;
    /* Each key's committed final writers, sorted by transaction:
     * kw[kwf[k] .. kwf[k + 1]); ko the same sorted by the model's order,
     * kr[slot] each writer's rank in ko. */
    uint32_t *kwf, *kw, *ko, *kr;
    ordslot *tmp;     /* sort scratch, as long as the longest key's writers */
    uint32_t *wkf;    /* [n + 1] each transaction's written keys: wk[wkf[t] .. wkf[t + 1]) */
    uint32_t *wk;     /* ... the keys */
    uint32_t *so_nx;  /* [n] next committed transaction in the session, NONE */
    uint64_t *ord;    /* [n] the model's order */
    uint64_t *msucc;  /* [n] SI: least order of a DEP successor in the model */
    uint32_t *chosen; /* [n_rd] index of the chosen candidate (0 .. n-1), NONE: y alone */
    uint32_t *est;    /* [n] the rough commit times the search starts from (est_time) */
    int *cl;          /* clause scratch */
    size_t cap_cl;
    htab pairs; /* (key, lower txn, higher txn) -> variable */
    htab rws;   /* (read, chosen writer, head) -> 1 */
    int n_vars;
    uint64_t added, max_edges;
    psi_lazy_stats *st;
} lctx;

static uint64_t hmix(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t x = ((uint64_t)a << 32 | b) * 0x9e3779b97f4a7c15ull;
    x ^= (x >> 29) + c * 0xbf58476d1ce4e5b9ull;
    x ^= x >> 32;
    return x * 0x94d049bb133111ebull;
}

/* The slot of (a, b, c): its entry, or the free slot where it goes. */
static hslot *hfind(htab *t, uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t m = t->cap - 1, i = hmix(a, b, c) & m;
    while (t->s[i].v && !(t->s[i].a == a && t->s[i].b == b && t->s[i].c == c))
        i = (i + 1) & m;
    return &t->s[i];
}

/* Makes room for one more entry (load at most 1/2). false: out of memory. */
static bool hreserve(htab *t)
{
    if ((t->n + 1) * 2 <= t->cap)
        return true;
    uint64_t cap = t->cap ? t->cap * 2 : 1024;
    hslot *old = t->s;
    uint64_t ocap = t->cap;
    t->s = calloc(cap, sizeof *t->s);
    if (!t->s) {
        t->s = old;
        return false;
    }
    t->cap = cap;
    for (uint64_t i = 0; i < ocap; i++)
        if (old[i].v)
            *hfind(t, old[i].a, old[i].b, old[i].c) = old[i];
    free(old);
    return true;
}

static bool committed(const psi_history *h, uint32_t t)
{
    return t != PSI_INIT_TXN && h->txns[t].status == PSI_TXN_COMMITTED;
}

/* Operation o installs a version: a transaction's final write of its key
 * (the only one a version order holds). */
static bool final_write(const psi_history *h, const psi_index *idx, uint32_t o)
{
    return h->ops[o].kind == PSI_OP_WRITE && (idx->op_info[o] & PSI_OI_FINAL_WRITE);
}

bool psi_lazy_applies(const psi_history *h, const psi_index *idx)
{
    return idx->n_amb && !idx->opt && !h->n_list_reads && !idx->n_anomalies;
}

/* Writer slot of transaction t for key k (t must write k). */
static uint32_t slot_of(const lctx *c, uint32_t k, uint32_t t)
{
    uint32_t lo = c->kwf[k], hi = c->kwf[k + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->kw[mid] < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    assert(lo < c->kwf[k + 1] && c->kw[lo] == t);
    return lo;
}

/* Each key's writers and each transaction's written keys. */
static bool build_writers(lctx *c)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    c->kwf = calloc((size_t)h->n_keys + 1, sizeof *c->kwf);
    c->wkf = calloc((size_t)c->n + 1, sizeof *c->wkf);
    if (!c->kwf || !c->wkf)
        return false;
    uint32_t nw = 0;
    for (uint32_t t = 1; t < c->n; t++) {
        if (!committed(h, t))
            continue;
        const psi_txn *tx = &h->txns[t];
        for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++)
            if (final_write(h, idx, o)) {
                c->kwf[h->ops[o].key + 1]++;
                c->wkf[t + 1]++;
                nw++;
            }
    }
    for (uint32_t k = 0; k < h->n_keys; k++)
        c->kwf[k + 1] += c->kwf[k];
    for (uint32_t t = 0; t < c->n; t++)
        c->wkf[t + 1] += c->wkf[t];
    c->kw = malloc((nw ? nw : 1) * sizeof *c->kw);
    c->ko = malloc((nw ? nw : 1) * sizeof *c->ko);
    c->kr = malloc((nw ? nw : 1) * sizeof *c->kr);
    c->wk = malloc((nw ? nw : 1) * sizeof *c->wk);
    uint32_t *fill = malloc(((size_t)h->n_keys + 1) * sizeof *fill);
    if (!c->kw || !c->ko || !c->kr || !c->wk || !fill) {
        free(fill);
        return false;
    }
    memcpy(fill, c->kwf, ((size_t)h->n_keys + 1) * sizeof *fill);
    /* transactions in increasing order: each key's writers come sorted */
    uint32_t longest = 1;
    for (uint32_t t = 1; t < c->n; t++) {
        if (!committed(h, t))
            continue;
        const psi_txn *tx = &h->txns[t];
        for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++)
            if (final_write(h, idx, o))
                c->kw[fill[h->ops[o].key]++] = t;
    }
    free(fill);
    for (uint32_t k = 0; k < h->n_keys; k++)
        if (c->kwf[k + 1] - c->kwf[k] > longest)
            longest = c->kwf[k + 1] - c->kwf[k];
    uint32_t *wfill = malloc(((size_t)c->n + 1) * sizeof *wfill);
    c->tmp = malloc((size_t)longest * sizeof *c->tmp);
    if (!wfill || !c->tmp) {
        free(wfill);
        return false;
    }
    memcpy(wfill, c->wkf, ((size_t)c->n + 1) * sizeof *wfill);
    for (uint32_t k = 0; k < h->n_keys; k++)
        for (uint32_t i = c->kwf[k]; i < c->kwf[k + 1]; i++)
            c->wk[wfill[c->kw[i]]++] = k;
    free(wfill);
    return true;
}

/* The transaction of write op w (PSI_SRC_INIT, or a write of the
 * recorded initial state merged into it: the initial transaction). */
static uint32_t writer_txn(const psi_history *h, const psi_index *idx, uint32_t w)
{
    if (w == PSI_SRC_INIT)
        return PSI_INIT_TXN;
    uint32_t t = idx->op_txn[w];
    assert(committed(h, t) || h->txns[t].status == PSI_TXN_INITIAL);
    return committed(h, t) ? t : PSI_INIT_TXN;
}

/* Whether candidate a is likelier than b for a reader at rough time me:
 * the latest writer before the reader first (what a store shows), then
 * the earliest after it. */
static bool likelier(uint32_t a, uint32_t b, uint32_t me)
{
    bool ab = a < me, bb = b < me;
    return ab != bb ? ab : ab ? a > b : a < b;
}

/* Gives read r variables for up to `more` further candidates, the
 * likeliest first (moved to the front of its slice), their WR edges, and
 * the clause "y (or nothing, the first time) implies one of them or the
 * new y". The likeliest new one starts true, the rest false. */
static psi_status expand(lctx *c, uint32_t r, uint32_t more, psi_diag *d)
{
    lread *rd = &c->rd[r];
    uint32_t me = c->est[rd->txn], to = rd->m + more < rd->n ? rd->m + more : rd->n;
    uint32_t *cd = c->cand + rd->first;
    int *lt = c->lit + rd->first;
    assert(rd->n > 1 && rd->m < rd->n);
    if (c->n_vars > INT32_MAX / 2 - (int)more - 1 ||
        psi_sat_reserve(c->s, c->n_vars + (int)(to - rd->m) + 1) != 0 ||
        !psi_grow((void **)&c->cl, &c->cap_cl, (size_t)(to - rd->m) + 2, sizeof *c->cl))
        return psi_diag_nomem(d, "the lazy check's solver");
    size_t nc = 0;
    if (rd->y)
        c->cl[nc++] = -rd->y;
    for (uint32_t i = rd->m; i < to; i++) {
        uint32_t best = i;
        for (uint32_t j = i + 1; j < rd->n; j++)
            if (likelier(c->est[cd[j]], c->est[cd[best]], me))
                best = j;
        uint32_t w = cd[best];
        cd[best] = cd[i];
        cd[i] = w;
        int v = ++c->n_vars;
        lt[i] = v;
        c->cl[nc++] = v;
        /* the initial transaction precedes everyone: no edge needed */
        if (w != PSI_INIT_TXN && psi_acyc_add_edge(c->g, w, rd->txn, PSI_EDGE_DEP, v, 0) < 0)
            return psi_diag_nomem(d, "the lazy check's solver");
        if (psi_sat_set_phase(c->s, i == rd->m ? v : -v) != 0)
            return psi_diag_nomem(d, "the lazy check's solver");
        c->added++;
    }
    rd->m = to;
    rd->y = 0;
    if (to < rd->n) {
        rd->y = ++c->n_vars;
        c->cl[nc++] = rd->y;
        if (psi_sat_set_phase(c->s, -rd->y) != 0)
            return psi_diag_nomem(d, "the lazy check's solver");
    }
    if (psi_sat_add_clause(c->s, c->cl, nc) != 0)
        return psi_diag_nomem(d, "the lazy check's solver");
    c->st->materialized += nc;
    return PSI_OK;
}

/* The reads, their candidates (the likeliest with a variable), and the
 * known edges of the reads with one writer. */
static psi_status build_reads(lctx *c, psi_diag *d)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    size_t cap_r = 0, cap_c = 0;
    psi_status st;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint8_t in = idx->op_info[o];
        if (h->ops[o].kind != PSI_OP_READ || !(in & PSI_OI_LIVE) || !(in & PSI_OI_EXTERNAL_READ))
            continue;
        uint32_t t = idx->op_txn[o];
        if (!committed(h, t))
            continue;
        lread r = {.txn = t, .key = h->ops[o].key, .first = c->n_cand};
        if (in & PSI_OI_AMBIG)
            continue; /* below, from idx->amb */
        uint32_t src = idx->read_src[o];
        if (src == PSI_SRC_NONE)
            continue;
        r.n = 1;
        if (!psi_grow((void **)&c->rd, &cap_r, (size_t)c->n_rd + 1, sizeof *c->rd) ||
            !psi_grow((void **)&c->cand, &cap_c, c->n_cand + 1, sizeof *c->cand))
            return psi_diag_nomem(d, "the lazy check's reads");
        c->cand[c->n_cand++] = writer_txn(h, idx, src);
        c->rd[c->n_rd++] = r;
    }
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *am = &idx->amb[a];
        if (!committed(h, am->txn))
            continue;
        lread r = {.txn = am->txn, .key = am->key, .n = am->n, .first = c->n_cand};
        if (!psi_grow((void **)&c->rd, &cap_r, (size_t)c->n_rd + 1, sizeof *c->rd) ||
            !psi_grow((void **)&c->cand, &cap_c, c->n_cand + am->n, sizeof *c->cand))
            return psi_diag_nomem(d, "the lazy check's reads");
        for (uint32_t j = 0; j < am->n; j++) {
            uint32_t w = idx->amb_cand[am->first + j];
            c->cand[c->n_cand++] = writer_txn(h, idx, w);
        }
        c->rd[c->n_rd++] = r;
    }
    c->lit = calloc(c->n_cand ? c->n_cand : 1, sizeof *c->lit);
    c->chosen = calloc(c->n_rd ? c->n_rd : 1, sizeof *c->chosen);
    if (!c->lit || !c->chosen)
        return psi_diag_nomem(d, "the lazy check's reads");
    for (uint32_t r = 0; r < c->n_rd; r++) {
        const lread *rd = &c->rd[r];
        uint32_t w = c->cand[rd->first];
        c->st->choices += rd->n > 1 ? rd->n : 0;
        if (rd->n == 1 && w != PSI_INIT_TXN &&
            psi_acyc_add_edge(c->g, w, rd->txn, PSI_EDGE_DEP, 0, 0) < 0)
            return psi_diag_nomem(d, "the lazy check's solver");
        if (rd->n > 1 && (st = expand(c, r, 1, d)) != PSI_OK)
            return st;
    }
    return PSI_OK;
}

/* Session order as known edges, the initial transaction before each
 * session's first, and each transaction's successor. */
static bool build_sessions(lctx *c)
{
    const psi_history *h = c->h;
    c->so_nx = malloc((size_t)c->n * sizeof *c->so_nx);
    if (!c->so_nx)
        return false;
    memset(c->so_nx, 0xff, (size_t)c->n * sizeof *c->so_nx);
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        uint32_t prev = PSI_INIT_TXN;
        const psi_session *se = &h->sessions[s];
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            if (!committed(h, t))
                continue;
            if (psi_acyc_add_edge(c->g, prev, t, PSI_EDGE_DEP, 0, 0) < 0)
                return false;
            if (prev != PSI_INIT_TXN)
                c->so_nx[prev] = t;
            prev = t;
        }
    }
    return true;
}

/* A rough commit time from a transaction's place in its session: sessions
 * of a generated or recorded history progress side by side, so this is
 * the order the search starts from (an order hint and the choices'
 * phases). Any order is sound. */
static uint32_t est_time(const psi_history *h, uint32_t t)
{
    if (t == PSI_INIT_TXN)
        return 0;
    const psi_txn *tx = &h->txns[t];
    uint64_t len = h->sessions[tx->session].n_txns;
    return 1 + (uint32_t)(((2 * (uint64_t)tx->pos + 1) << 29) / (2 * len));
}

static psi_status hint_order(lctx *c, psi_diag *d)
{
    c->est = malloc((size_t)c->n * sizeof *c->est);
    if (!c->est)
        return psi_diag_nomem(d, "the lazy check's order hint");
    for (uint32_t t = 0; t < c->n; t++)
        c->est[t] = est_time(c->h, t);
    return psi_acyc_set_order_hint(c->g, c->est) == 0
               ? PSI_OK
               : psi_diag_nomem(d, "the lazy check's order hint");
}

/* The literal "a is installed before b" on key k (a, b writers of k in
 * different sessions, or a before b in one session: then 0, a fact),
 * creating the pair's variable and its two WW edges on first use. 0 with
 * *fail on memory or the edge bound. */
static int pair_lit(lctx *c, uint32_t k, uint32_t a, uint32_t b, bool *fail)
{
    const psi_history *h = c->h;
    if (h->txns[a].session == h->txns[b].session) {
        assert(h->txns[a].pos < h->txns[b].pos);
        return 0;
    }
    uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
    if (!hreserve(&c->pairs)) {
        *fail = true;
        return 0;
    }
    hslot *e = hfind(&c->pairs, k, lo, hi);
    if (!e->v) {
        if (c->n_vars == INT32_MAX || psi_sat_reserve(c->s, c->n_vars + 1) != 0 ||
            c->added + 2 > c->max_edges) {
            *fail = true;
            return 0;
        }
        int v = ++c->n_vars;
        if (psi_acyc_add_edge(c->g, lo, hi, PSI_EDGE_DEP, v, 0) < 0 ||
            psi_acyc_add_edge(c->g, hi, lo, PSI_EDGE_DEP, -v, 0) < 0) {
            *fail = true;
            return 0;
        }
        /* start from the order the model had */
        (void)psi_sat_set_phase(c->s, c->ord[lo] < c->ord[hi] ? v : -v);
        *e = (hslot){.a = k, .b = lo, .c = hi, .v = v};
        c->pairs.n++;
        c->added += 2;
        c->st->pairs++;
    }
    return a == lo ? e->v : -e->v;
}

static int by_ord(const void *a, const void *b)
{
    uint64_t x = ((const ordslot *)a)->ord, y = ((const ordslot *)b)->ord;
    return x < y ? -1 : x > y;
}

/* The model's order and, per key, its writers in that order. */
static void read_model(lctx *c)
{
    const psi_history *h = c->h;
    for (uint32_t t = 0; t < c->n; t++)
        c->ord[t] = psi_acyc_node_order(c->g, t);
    for (uint32_t k = 0; k < h->n_keys; k++) {
        uint32_t f = c->kwf[k], m = c->kwf[k + 1] - f;
        for (uint32_t i = 0; i < m; i++)
            c->tmp[i] = (ordslot){.ord = c->ord[c->kw[f + i]], .slot = f + i};
        if (m > 1)
            qsort(c->tmp, m, sizeof *c->tmp, by_ord);
        for (uint32_t i = 0; i < m; i++) {
            c->ko[f + i] = c->kw[c->tmp[i].slot];
            c->kr[c->tmp[i].slot] = i;
        }
    }
    for (uint32_t r = 0; r < c->n_rd; r++) {
        const lread *rd = &c->rd[r];
        uint32_t j = 0;
        if (rd->n > 1) {
            while (j < rd->m && psi_sat_value(c->s, c->lit[rd->first + j]) <= 0)
                j++;
            if (j == rd->m)
                j = NONE;
        }
        assert(j != NONE || psi_sat_value(c->s, rd->y) > 0);
        c->chosen[r] = j;
    }
    if (c->ser)
        return;
    for (uint32_t t = 0; t < c->n; t++)
        c->msucc[t] = c->so_nx[t] == NONE ? UINT64_MAX : c->ord[c->so_nx[t]];
    for (uint32_t r = 0; r < c->n_rd; r++) {
        if (c->chosen[r] == NONE)
            continue;
        uint32_t w = c->cand[c->rd[r].first + c->chosen[r]];
        if (w != PSI_INIT_TXN && c->ord[c->rd[r].txn] < c->msucc[w])
            c->msucc[w] = c->ord[c->rd[r].txn];
    }
    for (uint32_t k = 0; k < h->n_keys; k++)
        for (uint32_t i = c->kwf[k]; i + 1 < c->kwf[k + 1]; i++)
            if (c->ord[c->ko[i + 1]] < c->msucc[c->ko[i]])
                c->msucc[c->ko[i]] = c->ord[c->ko[i + 1]];
}

/* The writer after w on key k in the model's order (w the initial
 * transaction: the first), or NONE. */
static uint32_t next_writer(const lctx *c, uint32_t k, uint32_t w)
{
    uint32_t f = c->kwf[k], e = c->kwf[k + 1];
    if (w == PSI_INIT_TXN)
        return f < e ? c->ko[f] : NONE;
    uint32_t i = f + c->kr[slot_of(c, k, w)] + 1;
    return i < e ? c->ko[i] : NONE;
}

/* One model's check: every read's RW edge to the writer after its chosen
 * one that goes backwards (SER: against the order; SI: to a writer with
 * a DEP successor no later than the reader) is added, with (SI) the
 * writer pairs of that writer's WW successors that come no later than
 * the reader. *viol: backward edges found; *fresh: edges and pairs
 * added; *full: a bound was reached (nothing more may be added). */
static psi_status refine(lctx *c, uint64_t *viol, uint64_t *fresh, bool *full, psi_diag *d)
{
    *viol = *fresh = 0;
    *full = false;
    for (uint32_t r = 0; r < c->n_rd; r++) {
        if (c->chosen[r] == NONE) {
            /* the model read from a writer without a variable yet */
            psi_status st = expand(c, r, EXPAND, d);
            if (st != PSI_OK)
                return st;
            (*viol)++;
            (*fresh)++;
            if (c->added > c->max_edges) {
                *full = true;
                return PSI_OK;
            }
            continue;
        }
        const lread *rd = &c->rd[r];
        uint32_t w1 = c->cand[rd->first + c->chosen[r]], t = rd->txn, k = rd->key;
        uint32_t w2 = next_writer(c, k, w1);
        if (w2 == NONE || w2 == t)
            continue;
        if (c->ser ? c->ord[t] < c->ord[w2] : c->ord[t] < c->msucc[w2])
            continue;
        (*viol)++;
        if (!hreserve(&c->rws))
            return psi_diag_nomem(d, "the lazy check's edges");
        if (!hfind(&c->rws, r, w1, w2)->v) {
            bool fail = false;
            int pl = w1 == PSI_INIT_TXN ? 0 : pair_lit(c, k, w1, w2, &fail);
            if (fail || c->added + 1 > c->max_edges) {
                *full = true;
                return PSI_OK;
            }
            int cl = c->lit[rd->first + c->chosen[r]];
            if (psi_acyc_add_edge(c->g, t, w2, PSI_EDGE_ANTI, cl ? cl : pl, cl ? pl : 0) < 0)
                return psi_diag_nomem(d, "the lazy check's edges");
            *hfind(&c->rws, r, w1, w2) = (hslot){.a = r, .b = w1, .c = w2, .v = 1};
            c->rws.n++;
            c->added++;
            c->st->rw_edges++;
            (*fresh)++;
        }
        if (c->ser)
            continue;
        for (uint32_t i = c->wkf[w2]; i < c->wkf[w2 + 1]; i++) {
            uint32_t k2 = c->wk[i], s = next_writer(c, k2, w2);
            if (s == NONE || c->ord[s] > c->ord[t])
                continue;
            uint64_t before = c->st->pairs;
            bool fail = false;
            (void)pair_lit(c, k2, w2, s, &fail);
            if (fail) {
                *full = true;
                return PSI_OK;
            }
            *fresh += c->st->pairs - before;
        }
    }
    return PSI_OK;
}

static void lctx_free(lctx *c)
{
    psi_sat_free(c->s);
    psi_acyc_free(c->g);
    free(c->rd);
    free(c->cand);
    free(c->lit);
    free(c->kwf);
    free(c->kw);
    free(c->ko);
    free(c->kr);
    free(c->tmp);
    free(c->wkf);
    free(c->wk);
    free(c->so_nx);
    free(c->ord);
    free(c->msucc);
    free(c->chosen);
    free(c->est);
    free(c->cl);
    free(c->pairs.s);
    free(c->rws.s);
}

psi_status psi_lazy_check(const psi_history *h, const psi_index *idx, const psi_lazy_opts *opts,
                          psi_lazy_outcome *out, psi_lazy_stats *stats, psi_diag *d)
{
    memset(stats, 0, sizeof *stats);
    *out = PSI_LAZY_GAVE_UP;
    lctx c = {.h = h,
              .idx = idx,
              .ser = opts->ser,
              .n = h->n_txns,
              .max_edges = opts->max_edges ? opts->max_edges : DEFAULT_MAX_EDGES,
              .st = stats};
    uint32_t max_rounds = opts->max_rounds ? opts->max_rounds : DEFAULT_MAX_ROUNDS;
    uint64_t max_conflicts = opts->max_conflicts ? opts->max_conflicts : DEFAULT_MAX_CONFLICTS;
    psi_status st = PSI_OK;
    c.s = psi_sat_new();
    c.g = c.s ? psi_acyc_new(c.s, c.n, c.ser ? PSI_ACYC_SER : PSI_ACYC_SI) : NULL;
    c.ord = malloc((size_t)c.n * sizeof *c.ord);
    c.msucc = malloc((size_t)c.n * sizeof *c.msucc);
    if (!c.g || !c.ord || !c.msucc || !build_writers(&c) || !build_sessions(&c)) {
        st = psi_diag_nomem(d, "the lazy check");
        goto done;
    }
    if ((st = hint_order(&c, d)) != PSI_OK || (st = build_reads(&c, d)) != PSI_OK)
        goto done;
    for (;;) {
        if (stats->rounds >= max_rounds)
            break;
        psi_sat_stats ss;
        psi_sat_get_stats(c.s, &ss);
        if (ss.conflicts >= max_conflicts)
            break;
        psi_sat_set_conflict_limit(c.s, (int64_t)(max_conflicts - ss.conflicts));
        double t0 = psi_cpu_now();
        int r = psi_sat_solve(c.s);
        stats->t_solve += psi_cpu_now() - t0;
        if (r == PSI_SAT_ENOMEM) {
            st = psi_diag_nomem(d, "the lazy check's solver");
            break;
        }
        if (r == PSI_SAT_UNSAT) {
            *out = PSI_LAZY_REJECT;
            break;
        }
        if (r != PSI_SAT_SAT)
            break;
        stats->rounds++;
        t0 = psi_cpu_now();
        read_model(&c);
        uint64_t viol, fresh;
        bool full;
        st = refine(&c, &viol, &fresh, &full, d);
        stats->t_check += psi_cpu_now() - t0;
        stats->violations += viol;
        if (st != PSI_OK || full)
            break;
        if (!viol) {
            *out = PSI_LAZY_ACCEPT;
            break;
        }
        /* a backward edge the theory held would be a cycle it allowed */
        assert(fresh);
        if (!fresh)
            break;
    }
done:;
    if (c.s) {
        psi_sat_stats ss;
        psi_sat_get_stats(c.s, &ss);
        stats->decisions = ss.decisions;
        stats->conflicts = ss.conflicts;
    }
    lctx_free(&c);
    return st;
}
