/* Counterexample search: restore a sub-history that is itself a violation,
 * then minimize it (see explain.h). The sub-history's polygraph is rebuilt
 * from the history for every candidate set of transactions (core's
 * psi_sub_polygraph_build) and refuted (or not) by a fresh local solve
 * (encode/local.h). */
#include "interpret/explain.h"

#include "core/vec.h"
#include "encode/local.h"
#include "interpret/local.h"
#include "interpret/shrink_models.h"
#include "interpret/sub_check.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Restore stops growing the sub-history beyond this many transactions, and
 * no sub-history polygraph gets more writer-pair constraints than this
 * (hot keys make them quadratic); both count as the budget running out. */
#define MAX_RESTORE_TXNS      2000u
#define MAX_LOCAL_CONSTRAINTS 1000000u
/* How many reasons deep by_reasons follows pruning's decisions. */
#define MAX_REASON_DEPTH 12u
/* by_reasons gives up past this many transactions. */
#define MAX_REASON_TXNS 4000u
/* Blind growth is tried first up to this many transactions. */
#define BLIND_FIRST_TXNS 200u
/* With repeated values, sets of more transactions than this are
 * re-checked by the whole pipeline (checks_unsat) instead
 * of a local solve: every candidate writer of a hot key's value comes
 * along, so the local polygraph's writer pairs grow quadratically (a
 * local solve of 500 such transactions takes 0.1 s, the pipeline's
 * pruning decides them in milliseconds). */
#define MAX_LOCAL_TXNS 256u
/* Shrinking the whole history by re-checks (by_checks) costs about one
 * check of the history per transaction of the result: only up to this
 * many transactions. */
#define MAX_CHECKS_TXNS 20000u
/* grow_by_checks tries prefixes of up to this many transactions. */
#define MAX_GROW_TXNS 2048u
/* A violation found by re-checks with more transactions than this is
 * shown as the pipeline's cycle in it (minimizing its dependencies by
 * local solves would cost more than the search). */
#define MAX_SHOWN_LOCAL 128u
/* Violations of up to this many transactions are shrunk under SER with
 * the accepts' models (shrink_models.h): rotating a model costs a replay
 * of the set per member. */
#define MAX_MODEL_SHRINK 4096u

typedef struct ctx {
    const psi_history *h;
    const psi_check_result *res;
    bool ser;
    uint64_t budget, calls;
    bool out_of_budget;
    uint32_t *local; /* [n_txns] scratch for psi_sub_polygraph_build, all UINT32_MAX */
    /* Non-NULL: re-checks run the whole pipeline on the sub-history at the
     * check's level (PC, PSI, real time, hints: sub_check.h) instead of the
     * local SI/SER solve. */
    psi_subcheck *pipe;
    /* Non-NULL: the local polygraphs keep only these reads with a choice
     * of writers (the ones pruning's reasons involve: reasons.c). */
    const psi_read_set *rs;
    /* Repeated values at SI/SER: re-checks of big sets by the pipeline
     * (MAX_LOCAL_TXNS), set up when first needed (checks_ready); by_checks
     * routes set_unsat through it. Its solves have no time limit, so that
     * the counterexample does not depend on the machine's load (with a
     * wall-clock limit of 0.05 s the results varied; the re-checks'
     * solves are short: 10k values 1..4 took 7.7 s with it, 8.7 s
     * without, at load 15-18). Owned: psi_cex_build frees it. */
    psi_subcheck checks;
    bool checks_ready, by_checks;
    /* grow_by_checks is running: its re-checks count pruning's
     * rejections only (sub_check.h, pruning_only). */
    bool growing;
    /* SER: serial orders replayed without the pipeline (shrink_models.h),
     * set up with the re-checks (so_ready; so_usable when the history
     * allows it). Owned. */
    psi_serord so;
    bool so_ready, so_usable;
} ctx;

/* The polygraph of the sub-history over txns[0..n) (sorted). False when
 * out of memory, or (x->out_of_budget) when it needs too many
 * constraints. */
static bool sub_build(ctx *x, const uint32_t *txns, uint32_t n, psi_sub_polygraph *L)
{
    psi_status st = psi_sub_polygraph_build_reads(x->h, &x->res->idx, &x->res->g, txns, n, x->rs,
                                                  MAX_LOCAL_CONSTRAINTS, x->local, L, NULL);
    if (st == PSI_ERR_LIMIT)
        x->out_of_budget = true;
    return st == PSI_OK;
}

/* 1: the polygraph L is a violation (no choice is acyclic), 0: it is not,
 * -1: out of memory or budget. */
static int sub_unsat(ctx *x, const psi_sub_polygraph *L)
{
    if (x->calls >= x->budget) {
        x->out_of_budget = true;
        return -1;
    }
    x->calls++;
    bool violation;
    if (psi_encode_solve_sub(L, x->ser, &violation, NULL) != PSI_OK)
        return -1;
    return violation ? 1 : 0;
}

/* 1/0/-1 as sub_unsat, by the pipeline on the sub-history. A sub-history
 * the check refuses as input (none of its errors but memory), or whose
 * check runs out of time, is no violation. */
static int pipe_unsat(ctx *x, psi_subcheck *pipe, const uint32_t *txns, uint32_t n)
{
    if (x->calls >= x->budget) {
        x->out_of_budget = true;
        return -1;
    }
    x->calls++;
    bool violation;
    psi_diag d = {0};
    psi_status st = psi_subcheck_run(pipe, txns, n, &violation, NULL, &d);
    if (st == PSI_ERR_NOMEM)
        return -1;
    return st == PSI_OK && violation ? 1 : 0;
}

/* Sets up the re-checks of checks_unsat; false when out of memory. */
static bool checks_unsat_ready(ctx *x)
{
    if (!x->checks_ready) {
        psi_diag d = {0};
        if (psi_subcheck_init(&x->checks, x->h, x->res, NULL, &d) != PSI_OK)
            return false;
        x->checks_ready = true;
    }
    return true;
}

/* 1/0/-1 as pipe_unsat, by the pipeline re-checks of big
 * sets with repeated values (MAX_LOCAL_TXNS). */
static int checks_unsat(ctx *x, const uint32_t *txns, uint32_t n)
{
    if (!checks_unsat_ready(x))
        return -1;
    x->checks.pruning_only = x->growing;
    return pipe_unsat(x, &x->checks, txns, n);
}

/* 1/0/-1 as sub_unsat, for the sub-history over txns[0..n). */
static int set_unsat(ctx *x, const uint32_t *txns, uint32_t n)
{
    if (x->pipe)
        return pipe_unsat(x, x->pipe, txns, n);
    if (x->by_checks)
        return checks_unsat(x, txns, n);
    psi_sub_polygraph L;
    if (!sub_build(x, txns, n, &L))
        return -1;
    int r = sub_unsat(x, &L);
    psi_sub_polygraph_free(&L);
    return r;
}

typedef struct tset {
    uint32_t *v;
    uint32_t n;
    size_t cap;
    uint8_t *in; /* [n_txns] */
} tset;

static bool tset_add(tset *s, uint32_t t)
{
    if (s->in[t])
        return true;
    if (!psi_grow((void **)&s->v, &s->cap, (size_t)s->n + 1, sizeof *s->v))
        return false;
    s->v[s->n++] = t;
    s->in[t] = 1;
    return true;
}

/* Restore brings the candidate writers of a read with a choice of writers
 * along with its reader (a read is only part of a sub-history's polygraph
 * when all its candidates are), unless it has more than this many. */
#define MAX_SEED_CANDIDATES 64u

/* Adds the candidate writers of t's reads with a choice of writers. */
static bool add_candidates(ctx *x, tset *s, uint32_t t)
{
    const psi_index *idx = &x->res->idx;
    if (!idx->n_amb || t == PSI_INIT_TXN)
        return true;
    const psi_txn *tx = &x->h->txns[t];
    for (uint32_t k = 0; k < tx->n_ops; k++) {
        uint32_t o = tx->first_op + k;
        if (!(idx->op_info[o] & PSI_OI_AMBIG))
            continue;
        uint32_t lo = psi_amb_of(idx, o);
        if (lo == UINT32_MAX || idx->amb[lo].n > MAX_SEED_CANDIDATES)
            continue;
        for (uint32_t j = 0; j < idx->amb[lo].n; j++) {
            uint32_t w = idx->amb_cand[idx->amb[lo].first + j];
            if (w != PSI_SRC_INIT && !tset_add(s, idx->op_txn[w]))
                return false;
        }
    }
    return true;
}

/* Seeds: the reported cycle(s), and for every anti-dependency the writer
 * its reader read the key from; and the candidate writers of their reads
 * with a choice of writers. */
static bool add_cycle_seeds(ctx *x, tset *s, const psi_edge *c, uint32_t n)
{
    const psi_history *h = x->h;
    const psi_index *idx = &x->res->idx;
    for (uint32_t i = 0; i < n; i++) {
        if (!tset_add(s, c[i].from) || !tset_add(s, c[i].to) || !add_candidates(x, s, c[i].from) ||
            !add_candidates(x, s, c[i].to))
            return false;
        if (c[i].type != PSI_EDGE_RW || c[i].from == PSI_INIT_TXN)
            continue;
        const psi_txn *tx = &h->txns[c[i].from];
        for (uint32_t k = 0; k < tx->n_ops; k++) {
            uint32_t o = tx->first_op + k;
            if (h->ops[o].key != c[i].key || !(idx->op_info[o] & PSI_OI_EXTERNAL_READ))
                continue;
            uint32_t src = idx->read_src[o];
            if (src < PSI_SRC_INIT && !tset_add(s, idx->op_txn[src]))
                return false;
        }
    }
    return true;
}

/* Undirected adjacency of the pruned known graph (CSR), for Restore's
 * breadth-first growth. The initial transaction is left out: it touches
 * everything. */
typedef struct adj {
    uint64_t *off;
    uint32_t *to;
} adj;

static bool adj_build(const psi_polygraph *g, uint32_t n, adj *A)
{
    A->off = calloc((size_t)n + 2, sizeof *A->off);
    A->to = malloc((g->n_known ? 2 * g->n_known : 1) * sizeof *A->to);
    if (!A->off || !A->to)
        return false;
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (e->from == PSI_INIT_TXN || e->to == PSI_INIT_TXN)
            continue;
        A->off[e->from + 2]++;
        A->off[e->to + 2]++;
    }
    for (uint32_t v = 0; v < n; v++)
        A->off[v + 2] += A->off[v + 1];
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (e->from == PSI_INIT_TXN || e->to == PSI_INIT_TXN)
            continue;
        A->to[A->off[e->from + 1]++] = e->to;
        A->to[A->off[e->to + 1]++] = e->from;
    }
    return true;
}

/* Restore: grow s breadth first until its sub-history is a violation.
 * Returns 1 when it is, 0 when growth stopped first (past max_txns), -1
 * on error. */
static int restore(ctx *x, tset *s, uint32_t max_txns)
{
    const psi_history *h = x->h;
    uint32_t *sorted = NULL;
    adj A = {0};
    int r = -1;
    uint32_t head = 0; /* BFS queue = s->v itself */
    if (!adj_build(&x->res->g, h->n_txns, &A))
        goto out;
    for (;;) {
        free(sorted);
        sorted = malloc(s->n * sizeof *sorted);
        if (!sorted)
            goto out;
        memcpy(sorted, s->v, s->n * sizeof *sorted);
        qsort(sorted, s->n, sizeof *sorted, psi_u32_cmp);
        r = set_unsat(x, sorted, s->n);
        if (r != 0)
            goto out;
        /* Grow by about as many transactions as there are (at least 8). */
        uint32_t target = s->n + (s->n < 8 ? 8 : s->n), before = s->n;
        while (s->n < target && head < s->n) {
            uint32_t v = s->v[head++];
            if (v == PSI_INIT_TXN)
                continue;
            for (uint64_t i = A.off[v]; i < A.off[v + 1]; i++)
                if (!tset_add(s, A.to[i]))
                    goto out;
            if (!add_candidates(x, s, v))
                goto out;
        }
        if (s->n == before || s->n > max_txns) {
            r = 0;
            goto out;
        }
    }
out:
    free(sorted);
    free(A.off);
    free(A.to);
    return r;
}

/* Histories with repeated values: the seeds plus the transactions and
 * reads pruning's reasons for the reported cycle(s) involve (reasons.c),
 * re-checked with only those reads with a choice of writers. 1: that is
 * a violation and becomes s (x->rs set to those reads); 0: it is not, s
 * and x->rs are left as they were; -1 on error. */
static int by_reasons(ctx *x, const psi_history *h, const psi_check_result *res, tset *s,
                      psi_reasons *R, psi_read_set *rs)
{
    const psi_edge *cyc[2];
    uint32_t len[2], nc = psi_reported_cycles(res, cyc, len);
    psi_diag d = {0};
    int r = 0;
    uint32_t *v = NULL, *srt = NULL, last_n = 0;
    /* Deeper and deeper reasons until the set is a violation: shallow
     * ones give small sets, and a decision's reasons may be needless
     * when the local solve re-derives it from fewer transactions. */
    psi_reasons_free(R);
    if (psi_reasons_start(h, res, x->ser, cyc, len, nc, R, &d) != PSI_OK)
        return -1;
    for (uint32_t depth = 0; depth <= MAX_REASON_DEPTH && r == 0; depth++) {
        if (psi_reasons_deepen(R, depth, &d) != PSI_OK)
            return -1;
        uint32_t n = 0;
        free(v);
        v = malloc(((size_t)R->n_txns + 1) * sizeof *v);
        if (!v)
            return -1;
        v[n++] = PSI_INIT_TXN; /* sorts first: the smallest transaction index */
        for (uint32_t i = 0; i < R->n_txns; i++)
            if (R->txns[i] != PSI_INIT_TXN)
                v[n++] = R->txns[i];
        /* The re-check wants them sorted; s keeps the reasons' order. */
        free(srt);
        srt = malloc(n * sizeof *srt);
        if (!srt) {
            free(v);
            return -1;
        }
        memcpy(srt, v, n * sizeof *srt);
        qsort(srt, n, sizeof *srt, psi_u32_cmp);
        if (n > MAX_REASON_TXNS || n == last_n)
            break; /* too big to re-check quickly, or nothing new */
        last_n = n;
        /* A big set goes to the pipeline, which keeps every read whose
         * candidates are all in it (x->rs stays NULL for what follows). */
        *rs = (psi_read_set){.ops = R->reads, .n = R->n_reads};
        x->rs = n > MAX_LOCAL_TXNS && !x->pipe ? NULL : rs;
        r = x->rs || x->pipe ? set_unsat(x, srt, n) : checks_unsat(x, srt, n);
#ifdef PSI_CHECK /* complete reasons are a violation at SI and SER (local.h) */
        assert(!(R->complete && r == 0 && !x->pipe));
#endif
        if (r == 1) {
            for (uint32_t i = 0; i < s->n; i++) /* s becomes exactly the reasons' set */
                s->in[s->v[i]] = 0;
            s->n = 0;
            for (uint32_t i = 0; i < n && r == 1; i++)
                if (!tset_add(s, v[i]))
                    r = -1;
        }
        if (R->complete)
            break;
    }
    if (r != 1)
        x->rs = NULL;
    free(v);
    free(srt);
    return r;
}

/* Minimize the transactions: drop chunks (halving) while it stays a
 * violation. v is in the order chunks are tried in (kept; the re-checks
 * get sorted copies) and comes back sorted; returns the new count, or
 * UINT32_MAX on error. *complete says whether every single deletion was
 * tried. */
static uint32_t shrink_txns(ctx *x, uint32_t *v, uint32_t n, bool *complete)
{
    uint32_t *tmp = malloc((n ? n : 1) * sizeof *tmp);
    uint32_t *srt = malloc((n ? n : 1) * sizeof *srt);
    if (!tmp || !srt) {
        free(tmp);
        free(srt);
        return UINT32_MAX;
    }
    *complete = false;
    for (uint32_t chunk = n / 2 ? n / 2 : 1;; chunk /= 2) {
        for (uint32_t i = 0; i < n;) {
            uint32_t len = n - i < chunk ? n - i : chunk, m = 0;
            for (uint32_t j = 0; j < n; j++)
                if (j < i || j >= i + len)
                    tmp[m++] = v[j];
            memcpy(srt, tmp, m * sizeof *srt);
            qsort(srt, m, sizeof *srt, psi_u32_cmp);
            int r = set_unsat(x, srt, m);
            if (r < 0) {
                free(tmp);
                free(srt);
                qsort(v, n, sizeof *v, psi_u32_cmp);
                return x->out_of_budget ? n : UINT32_MAX;
            }
            if (r == 1) {
                memcpy(v, tmp, m * sizeof *v);
                n = m;
            } else {
                i += len;
            }
        }
        if (chunk <= 1)
            break;
    }
    *complete = true;
    free(tmp);
    free(srt);
    qsort(v, n, sizeof *v, psi_u32_cmp);
    return n;
}

/* Repeated values at SI/SER: shrinks the violation s (more than
 * MAX_LOCAL_TXNS transactions, in the order chunks are tried in) or, with
 * from_all, the whole history (known to be one: transaction order) by
 * pipeline re-checks (checks_unsat; under SER, up to MAX_MODEL_SHRINK
 * transactions, with the accepts' models: shrink_models.h), to a set
 * without which no single transaction stays a violation when the budget
 * lasts; three quarters of what is left of the budget at most, so that
 * the local phase after it has calls left. 1: the result becomes s (sorted, the initial
 * transaction first) and *complete says whether every single deletion was
 * tried; 0: the history is too big to shrink this way; -1 on error. */
static int shrink_by_checks(ctx *x, tset *s, bool from_all, bool *complete)
{
    const psi_history *h = x->h;
    if (from_all && h->n_txns > MAX_CHECKS_TXNS)
        return 0;
    uint32_t *v = malloc(((size_t)(from_all ? h->n_txns : s->n) + 1) * sizeof *v), n = 0;
    if (!v)
        return -1;
    if (from_all) {
        for (uint32_t t = 1; t < h->n_txns; t++)
            if (h->txns[t].status == PSI_TXN_COMMITTED)
                v[n++] = t;
    } else {
        for (uint32_t i = 0; i < s->n; i++)
            if (s->v[i] != PSI_INIT_TXN)
                v[n++] = s->v[i];
    }
    /* SER: the replay of serial orders, set up once with the re-checks. */
    if (x->ser && !x->so_ready) {
        psi_diag d = {0};
        x->so_ready = true;
        if (!checks_unsat_ready(x) ||
            psi_serord_init(&x->so, h, &x->res->idx, &x->so_usable, &d) != PSI_OK) {
            free(v);
            return -1;
        }
    }
    uint64_t budget = x->budget;
    x->budget = x->calls + (budget - x->calls) / 4 * 3;
    x->by_checks = true;
    uint32_t m;
    if (x->so_usable && n <= MAX_MODEL_SHRINK) {
        psi_shrink_io io = {
            .sc = &x->checks, .so = &x->so, .calls = &x->calls, .budget = x->budget};
        m = psi_shrink_by_models(&io, v, n, complete);
    } else {
        m = shrink_txns(x, v, n, complete);
    }
    x->by_checks = false;
    x->budget = budget;
    x->out_of_budget = false;
    int r = m == UINT32_MAX ? -1 : 1;
    for (uint32_t i = 0; i < s->n && r == 1; i++)
        s->in[s->v[i]] = 0;
    if (r == 1)
        s->n = 0;
    if (r == 1 && !tset_add(s, PSI_INIT_TXN)) /* the smallest index: s stays sorted */
        r = -1;
    for (uint32_t i = 0; i < m && r == 1; i++)
        if (!tset_add(s, v[i]))
            r = -1;
    free(v);
    return r;
}

/* The order grow_by_checks tries transactions in: s's (the seeds and
 * what blind growth brought), then breadth first over the pruned known
 * graph and candidate writers as restore grows, then every other
 * committed transaction in history order, so that the last prefix is the
 * whole history. The order is returned in s itself. False when out of
 * memory. */
static bool order_all(ctx *x, tset *s)
{
    const psi_history *h = x->h;
    adj A = {0};
    bool ok = adj_build(&x->res->g, h->n_txns, &A);
    for (uint32_t head = 0; ok && head < s->n; head++) {
        uint32_t v = s->v[head];
        if (v == PSI_INIT_TXN)
            continue;
        for (uint64_t i = A.off[v]; i < A.off[v + 1] && ok; i++)
            ok = tset_add(s, A.to[i]);
        ok = ok && add_candidates(x, s, v);
    }
    for (uint32_t t = 1; ok && t < h->n_txns; t++)
        if (h->txns[t].status == PSI_TXN_COMMITTED)
            ok = tset_add(s, t);
    free(A.off);
    free(A.to);
    return ok;
}

/* Repeated values at SI/SER, when neither blind growth nor the reasons
 * gave a violation: the shortest prefix of order_all's order, of at most
 * MAX_GROW_TXNS transactions, whose sub-history pruning rejects (doubling
 * from s's size, then bisection; a prefix's sub-history is a relaxation
 * of every longer one's), which becomes s. Only pruning's rejections
 * count (sub_check.h, pruning_only): a full re-check of a mid-sized
 * prefix can be a hard instance for the solver (3,540 transactions of
 * 10k values 1..4 under SER took it over 20 s), and pruning's answer
 * depends on the sub-history alone. 1: s is that prefix (s's order
 * beyond it is dropped), 0: none found (s is left as it was: its first
 * `start` members), -1 on error. */
static int grow_by_checks(ctx *x, tset *s)
{
    uint32_t start = s->n;
    if (!order_all(x, s))
        return -1;
    uint32_t total = s->n < MAX_GROW_TXNS ? s->n : MAX_GROW_TXNS;
    uint32_t *srt = malloc(((size_t)total + 1) * sizeof *srt);
    if (!srt)
        return -1;
    /* lo: a prefix known to be no violation (0: none tried), hi: one known
     * to be (0: none yet). */
    uint32_t lo = 0, hi = 0, m = start < 64 ? 64 : start;
    int r = 0;
    x->by_checks = x->growing = true;
    while (m > lo) {
        if (m > total)
            m = total;
        memcpy(srt, s->v, m * sizeof *srt);
        qsort(srt, m, sizeof *srt, psi_u32_cmp);
        r = set_unsat(x, srt, m);
        if (r < 0 && x->out_of_budget)
            r = 0; /* stop: the shortest prefix found so far, if any */
        if (r < 0 || (r == 0 && x->out_of_budget))
            break;
        if (r == 1)
            hi = m;
        else
            lo = m;
        if ((hi && hi - lo <= 1) || (!hi && m == total))
            break;
        m = hi ? lo + (hi - lo) / 2 : 2 * m;
    }
    x->by_checks = x->growing = false;
    free(srt);
    if (r < 0)
        return -1;
    uint32_t keep = hi ? hi : start;
    for (uint32_t i = keep; i < s->n; i++)
        s->in[s->v[i]] = 0;
    s->n = keep;
    return hi ? 1 : 0;
}

/* Minimize the dependencies: switch off chunks (halving, down to single
 * ones; single ones only up to CHUNKED_EDGES dependencies, where failed
 * chunks would cost more than they save) while it stays a violation. Removing dependencies only
 * weakens a violation, so one pass of single deletions at the end leaves none that could go; the
 * chunks first take the many needless ones of a big restored set in a few calls each. Returns -1 on
 * error, else whether every deletion was tried. */
#define CHUNKED_EDGES 128u
static int shrink_edges(ctx *x, psi_sub_polygraph *L)
{
    uint32_t *tried = malloc((L->n_e ? L->n_e : 1) * sizeof *tried);
    if (!tried)
        return -1;
    int ret = 1;
    uint32_t first = L->n_e > CHUNKED_EDGES ? L->n_e / 2 : 1;
    for (uint32_t chunk = first; ret == 1; chunk /= 2) {
        for (uint32_t i = 0; i < L->n_e && ret == 1; i += chunk) {
            uint32_t end = L->n_e - i < chunk ? L->n_e : i + chunk, m = 0;
            for (uint32_t j = i; j < end; j++)
                if (L->e[j].on) {
                    L->e[j].on = 0;
                    tried[m++] = j;
                }
            if (!m)
                continue;
            int r = sub_unsat(x, L);
            if (r != 1) /* needed (or no answer): back on */
                for (uint32_t k = 0; k < m; k++)
                    L->e[tried[k]].on = 1;
            if (r < 0)
                ret = x->out_of_budget ? 0 : -1;
        }
        if (chunk <= 1)
            break;
    }
    free(tried);
    return ret;
}

psi_status psi_cex_build(const psi_history *h, const psi_check_result *res,
                         const psi_cex_opts *opts, psi_cex *cex, psi_diag *d)
{
    memset(cex, 0, sizeof *cex);
    cex->anomaly_op = UINT32_MAX;
    cex->kind = PSI_CEX_CYCLE;
    if (res->verdict != PSI_REJECT)
        return PSI_OK;
    double t0 = psi_cpu_now(); /* stage times are CPU time (check.h) */
    psi_status st = PSI_OK;
    if (res->reason == PSI_BY_LEVEL) {
        st = psi_level_cex_build(h, res, cex, d);
        cex->seconds = psi_cpu_now() - t0;
        return st;
    }
    if (res->reason == PSI_BY_TIMESTAMPS) {
        st = psi_ts_cex_build(h, res, cex, d);
        cex->seconds = psi_cpu_now() - t0;
        return st;
    }
    if (res->reason == PSI_BY_ANOMALY) {
        st = psi_cex_from_anomaly(h, &res->idx.anomalies[0], cex, d);
        if (st == PSI_OK)
            psi_cex_classify(h, &res->idx, opts->ser, cex);
        cex->seconds = psi_cpu_now() - t0;
        return st;
    }
    psi_subcheck pipe = {0};
    ctx x = {.h = h,
             .res = res,
             .ser = opts->ser,
             .budget = opts->budget ? opts->budget : PSI_INTERPRET_BUDGET_DEFAULT};
    tset s = {0};
    x.local = malloc(h->n_txns * sizeof *x.local);
    s.in = calloc(h->n_txns, 1);
    if (!x.local || !s.in) {
        st = psi_diag_nomem(d, "interpreting");
        goto out;
    }
    memset(x.local, 0xff, h->n_txns * sizeof *x.local);
    const psi_edge *cyc = NULL;
    uint32_t cyc_len = 0;
    bool ok = tset_add(&s, PSI_INIT_TXN);
    if (res->reason == PSI_BY_SOLVER) {
        cyc = res->solver_cycle;
        cyc_len = res->solver_cycle_len;
        ok = ok && add_cycle_seeds(&x, &s, cyc, cyc_len);
    } else {
        cyc = res->prune.cycle[0];
        cyc_len = res->prune.cycle_len[0];
        for (int c = 0; c < 2 && ok; c++)
            ok = add_cycle_seeds(&x, &s, res->prune.cycle[c], res->prune.cycle_len[c]);
    }
    if (!ok) {
        st = psi_diag_nomem(d, "interpreting");
        goto out;
    }
    /* PC and PSI: the local re-checks are SI's or SER's, which forbid more
     * than these levels do; real time, version orders and timestamps are
     * facts the local polygraph does not have. Those re-check with the
     * whole pipeline at the check's level (sub_check.h). */
    bool by_level = res->level_checked == PSI_LEVEL_PC || res->level_checked == PSI_LEVEL_PSI;
    /* n_all: a complete order's reject keeps only its cycle's hint edges
     * (check/complete_pass.h), which may be none */
    bool hinted = res->hints.n_all || res->ts.n_with || res->g.n_rt_edges ||
                  psi_level_realtime(res->level_checked);
    if (by_level || hinted) {
        st = psi_subcheck_init(&pipe, h, res, opts->version_order, d);
        if (st != PSI_OK)
            goto out;
        x.pipe = &pipe;
    }
    psi_reasons R = {0};
    psi_read_set rs = {0};
    /* Repeated values: blind growth while it stays small (it often finds
     * a small violation at once), then along pruning's reasons, whose
     * sets stay small where blind growth takes in every candidate of
     * every read; blind growth again when those are no violation. */
    int r = 0;
    bool by_reason_order = false, checked = false, checked_complete = false, as_found = false;
    if (res->idx.n_amb) {
        r = restore(&x, &s, BLIND_FIRST_TXNS);
        if (r == 0 || (r < 0 && x.out_of_budget && x.calls < x.budget)) {
            x.out_of_budget = false; /* the writer-pair bound, not the calls */
            r = by_reasons(&x, h, res, &s, &R, &rs);
            by_reason_order = r == 1;
            /* Reasons too many to follow within their scan bound: a
             * history this big (10^5 transactions with values 1..4
             * under SER: its searches spread over all 8 M known edges)
             * shows its cycle as found at once. Blind growth already
             * took in thousands of candidate writers there, so re-checks
             * of a prefix of them (0.36 s) and restore's local solve of
             * as many (over its writer-pair bound) are no violation or
             * no answer either. */
            as_found = r == 0 && R.spent;
        }
        /* Too big for local solves, or nothing found: the pipeline's
         * re-checks shrink it, or the whole history. */
        if (!x.pipe && r == 1 && s.n > MAX_LOCAL_TXNS) {
            r = shrink_by_checks(&x, &s, false, &checked_complete);
            checked = r == 1;
        }
        if (!x.pipe && r != 1 && !as_found && (r == 0 || x.out_of_budget) && x.calls < x.budget) {
            x.rs = NULL;
            x.out_of_budget = false;
            r = grow_by_checks(&x, &s);
            if (r >= 0)
                r = shrink_by_checks(&x, &s, r == 0, &checked_complete);
            checked = r == 1;
        }
        /* A set shrunk by re-checks is minimal as it is: a small one is
         * presented by the local phase once a local solve confirms it, a
         * big one (a hot key's every writer of a value) as the cycle the
         * pipeline finds in it; one the budget left big and not minimal
         * (hundreds of transactions) explains less than the reported
         * cycle shown as found. */
        if (checked && !checked_complete && s.n > MAX_SHOWN_LOCAL) {
            r = 0;
            as_found = true;
        } else if (checked && (s.n > MAX_SHOWN_LOCAL || set_unsat(&x, s.v, s.n) != 1)) {
            x.out_of_budget = false;
            x.pipe = &x.checks;
        }
        if (r < 0 && !x.out_of_budget) {
            st = psi_diag_nomem(d, "interpreting");
            goto out;
        }
    }
    if (r != 1 && !as_found) {
        x.rs = NULL;
        x.out_of_budget = false;
        r = restore(&x, &s, MAX_RESTORE_TXNS);
    }
    cex->by_hints = hinted;
    if (res->hints.n_all)
        snprintf(cex->hint_file, sizeof cex->hint_file, "%s", res->hints.file);
    if (res->ts.n_with)
        snprintf(cex->ts_file, sizeof cex->ts_file, "%s", res->ts.file);
    if (r < 0 && !x.out_of_budget) {
        st = psi_diag_nomem(d, "interpreting");
        goto out;
    }
    if (r == 1 && x.pipe) {
        if (!by_reason_order)
            qsort(s.v, s.n, sizeof *s.v, psi_u32_cmp);
        bool complete = checked_complete;
        uint32_t n = checked ? s.n : shrink_txns(&x, s.v, s.n, &complete);
        if (n == UINT32_MAX) {
            st = psi_diag_nomem(d, "interpreting");
            goto out;
        }
        x.calls++;
        int rp = psi_subcheck_present(x.pipe, s.v, n, cex, d);
        if (rp < 0) {
            st = PSI_ERR_NOMEM;
            goto out;
        }
        if (rp == 1) {
            st = psi_cex_add_list_evidence(h, &res->idx, cex, d);
            if (st != PSI_OK)
                goto out;
            cex->present = cex->restored_whole = cex->by_pipeline = true;
            cex->minimal = complete;
            /* Named by the shape of the level's own cycle: its decided
             * edges are the level's check's, trusted as under SI. */
            if (!cex->by_timestamps)
                psi_cex_classify(h, &res->idx, checked && opts->ser, cex);
            goto out;
        }
        r = 0; /* nothing built: show the check's own cycle */
    }
    if (r != 1) {
        st = psi_cex_from_cycle(h, res, cyc, cyc_len, cex, d);
        if (st == PSI_OK)
            st = psi_cex_add_list_evidence(h, &res->idx, cex, d);
        if (st == PSI_OK)
            psi_cex_classify(h, &res->idx, opts->ser, cex);
        goto out;
    }
    /* Blind growth's set is shrunk in transaction order, the reasons'
     * in the order reasons reached it: the deepest reasons, tried last
     * and together, go in a few big chunks when the violation needs
     * none of them. */
    if (!by_reason_order)
        qsort(s.v, s.n, sizeof *s.v, psi_u32_cmp);
    bool complete_t = checked_complete, complete_e = false;
    uint32_t n = checked ? s.n : shrink_txns(&x, s.v, s.n, &complete_t);
    if (n == UINT32_MAX) {
        st = psi_diag_nomem(d, "interpreting");
        goto out;
    }
    psi_sub_polygraph L;
    if (!sub_build(&x, s.v, n, &L)) {
        st = psi_diag_nomem(d, "interpreting");
        goto out;
    }
    int re = shrink_edges(&x, &L);
    if (re < 0) {
        psi_sub_polygraph_free(&L);
        st = psi_diag_nomem(d, "interpreting");
        goto out;
    }
    complete_e = re == 1;
    st = psi_cex_present(&L, opts->ser, cex, d);
    psi_sub_polygraph_free(&L);
    if (st == PSI_OK)
        st = psi_cex_add_list_evidence(h, &res->idx, cex, d);
    if (st != PSI_OK)
        goto out;
    cex->restored_whole = true;
    cex->minimal = complete_t && complete_e;
    psi_cex_classify(h, &res->idx, opts->ser, cex);
out:
    cex->solver_calls = x.calls;
    cex->seconds = psi_cpu_now() - t0;
    free(x.local);
    free(s.v);
    free(s.in);
    psi_reasons_free(&R);
    psi_subcheck_free(&pipe);
    if (x.checks_ready)
        psi_subcheck_free(&x.checks);
    if (x.so_ready)
        psi_serord_free(&x.so);
    if (st != PSI_OK)
        psi_cex_free(cex);
    return st;
}

void psi_cex_free(psi_cex *cex)
{
    free(cex->txns);
    free(cex->edges);
    free(cex->choices);
    free(cex->cycles);
    free(cex->idx);
    free(cex->conds);
    free(cex->reads);
    free(cex->rcands);
    free(cex->rconds);
    memset(cex, 0, sizeof *cex);
}

const char *psi_cex_origin_name(psi_cex_origin o)
{
    static const char *names[] = {"certain",   "decided",  "either",        "or",
                                  "excluded",  "forced",   "version-order", "timestamps",
                                  "real-time", "read-from"};
    return (unsigned)o <= PSI_CEX_READ_FROM ? names[o] : "?";
}

const char *psi_cex_rf_how_name(psi_cex_rf_how how)
{
    static const char *names[] = {"forced", "decided", "excluded"};
    return (unsigned)how <= PSI_RF_EXCLUDED ? names[how] : "?";
}
