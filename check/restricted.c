/* The restricted problem tried first (see restricted.h). */
#include "check/restricted.h"

#include "core/prefetch.h"
#include "core/vec.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The skeleton costs up to one edge per transaction and other session:
 * past this many (transactions times sessions) the path is not taken. */
#define MAX_SKELETON_WORK (UINT64_C(1) << 26)

bool psi_restricted_applies(const psi_history *h, const psi_index *idx)
{
    return idx->n_amb && !idx->opt && !h->n_list_reads && !idx->n_anomalies &&
           (uint64_t)h->n_txns * h->n_sessions <= MAX_SKELETON_WORK;
}

/* Whether operation o is a committed transaction's final write. */
static bool live_final_write(const psi_history *h, const psi_index *idx, uint32_t o)
{
    return (idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_FINAL_WRITE) &&
           h->ops[o].kind == PSI_OP_WRITE;
}

/* Each key's committed final writes, in operation order: key k's are
 * (*ops)[(*off)[k] .. (*off)[k + 1]). Both arrays are the caller's to
 * free (also on failure: false, out of memory). */
static bool key_writers(const psi_history *h, const psi_index *idx, uint32_t **off, uint32_t **ops)
{
    uint32_t *koff = calloc((size_t)h->n_keys + 1, sizeof *koff);
    *off = koff;
    *ops = NULL;
    if (!koff)
        return false;
    uint32_t n = 0;
    for (uint32_t o = 0; o < h->n_ops; o++)
        if (live_final_write(h, idx, o))
            koff[h->ops[o].key + 1]++, n++;
    for (uint32_t k = 0; k < h->n_keys; k++)
        koff[k + 1] += koff[k];
    uint32_t *w = malloc((n ? n : 1) * sizeof *w);
    uint32_t *fill = malloc(((size_t)h->n_keys + 1) * sizeof *fill);
    *ops = w;
    if (!w || !fill) {
        free(fill);
        return false;
    }
    memcpy(fill, koff, ((size_t)h->n_keys + 1) * sizeof *fill);
    for (uint32_t o = 0; o < h->n_ops; o++)
        if (live_final_write(h, idx, o))
            w[fill[h->ops[o].key]++] = o;
    free(fill);
    return true;
}

/* Session positions: sessions of a generated or recorded workload run
 * side by side at roughly even speed, so a transaction's share of its
 * session is a share of the whole run (bench/README, s29: mean error 403
 * of 10^5 transactions). */
static void by_position(const psi_history *h, double *est)
{
    double n = h->n_txns > 1 ? (double)(h->n_txns - 1) : 1.0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        est[t] = -1.0;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        for (uint32_t i = 0; i < se->n_txns; i++)
            est[se->first_txn + i] = ((double)i + 0.5) * n / (double)se->n_txns;
    }
    est[PSI_INIT_TXN] = -1.0;
}

/* A key's writer, or a transaction, placed by the estimate. */
typedef struct est_item {
    double est;     /* its transaction's, as of the round's start */
    uint64_t value; /* the value written (writers only) */
    uint32_t txn;
    uint32_t tie; /* the order among equal estimates: the operation (writers), the transaction */
} est_item;

/* The rounds' work space: each key's final writers, sorted by their
 * transactions' estimate each round, with the value and transaction a
 * read's test needs next to the estimate (looking them up in the
 * history's operations was most of a round's time: a cache miss each);
 * and per transaction the sum and count of its reads' pulls. */
typedef struct est_ctx {
    const psi_history *h;
    const psi_index *idx;
    double *est;
    uint32_t *koff; /* key k's writers: kw[koff[k] .. koff[k + 1]) */
    est_item *kw;
    est_item *order; /* [n_txns - 1] every transaction but the initial one, by estimate */
    uint32_t *reads; /* external reads of committed transactions */
    uint32_t *slot;  /* [n_reads] each read's place among its key's writers, last round */
    uint32_t n_reads;
    uint8_t *init_ok; /* [n_ops] the read may return the initial value */
    double *pull, *smooth;
    uint32_t *n_pull;
} est_ctx;

/* Whether a read of value v by transaction t, placed after key writer
 * slot q - 1 (of the key's writers from b) and before slot q, returns its
 * value; init_ok: whether it may return the initial one. */
static bool plausible(const est_ctx *c, uint32_t b, uint32_t q, uint64_t v, uint32_t t,
                      bool init_ok)
{
    if (q == 0)
        return init_ok;
    const est_item *w = &c->kw[b + q - 1];
    return w->value == v && w->txn != t;
}

/* The most one read moves its transaction in the first round, in ranks;
 * it shrinks linearly to 0 over the rounds (with a fixed bound the
 * sessions overshoot and oscillate: bench/README, s30). */
#define PULL_MAX 256.0
/* The pulls are averaged over 2 SMOOTH + 1 positions of a session. */
#define SMOOTH 80

/* The nearest place (slot q) where a read of value v by transaction t
 * is plausible, walking at most `reach` slots each way from p among the
 * m writers from b; UINT32_MAX when none. */
static uint32_t nearest(const est_ctx *c, uint32_t b, uint32_t p, uint32_t m, uint64_t v,
                        uint32_t t, bool init_ok, uint32_t reach)
{
    for (uint32_t d = 1; d <= reach; d++) {
        if (p >= d && plausible(c, b, p - d, v, t, init_ok))
            return p - d;
        if (p + d <= m && plausible(c, b, p + d, v, t, init_ok))
            return p + d;
    }
    return UINT32_MAX;
}

static bool item_before(const est_item *x, const est_item *y)
{
    return x->est < y->est || (x->est == y->est && x->tie < y->tie);
}

static int item_cmp(const void *a, const void *b)
{
    const est_item *x = a, *y = b;
    return item_before(x, y) ? -1 : item_before(y, x) ? 1 : 0;
}

/* Sorts a[0 .. n) by estimate, then tie (a total order: the result does
 * not depend on the order a starts in). A round moves each transaction
 * by a few ranks, so the last round's order is nearly sorted and an
 * insertion sort costs about n; past a few moves per item (the first
 * round, from the sessions' positions) qsort sorts the rest. */
static void sort_items(est_item *a, uint32_t n)
{
    uint64_t budget = 8 * (uint64_t)n + 64;
    for (uint32_t i = 1; i < n; i++) {
        est_item x = a[i];
        uint32_t j = i;
        while (j > 0 && item_before(&x, &a[j - 1])) {
            a[j] = a[j - 1];
            j--;
            if (!--budget) {
                a[j] = x;
                qsort(a, n, sizeof *a, item_cmp);
                return;
            }
        }
        a[j] = x;
    }
}

/* How many of the m writers kw[0 .. m) (sorted) are placed before e,
 * from guess (the read's answer in the last round): a round moves the
 * read and the writers around it by a few ranks, so a short walk from
 * there touches one or two cache lines where a binary search over a hot
 * key's writers missed the cache at every step (most of a round's time);
 * past a few steps, the binary search. */
static uint32_t slot_before(const est_item *kw, uint32_t m, double e, uint32_t guess)
{
    uint32_t p = guess < m ? guess : m;
    for (int step = 0; step < 8; step++) {
        if (p > 0 && !(kw[p - 1].est < e))
            p--;
        else if (p < m && kw[p].est < e)
            p++;
        else
            return p;
    }
    uint32_t lo = 0, hi = m;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (kw[mid].est < e)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Reads ahead whose first writer slot a round prefetches. */
#define EST_AHEAD 16u

/* c->smooth[f + i], for the session's n transactions from f: the sum of
 * val over positions i - w .. i + w divided by their reads' count
 * (n_pull), a moving mean per read that skips transactions without reads. */
static void session_mean(est_ctx *c, const double *val, uint32_t f, uint32_t n, uint32_t w)
{
    double sum = 0;
    uint32_t cnt = 0, lo = 0, hi = 0;
    for (uint32_t i = 0; i < n; i++) {
        while (hi < n && hi <= i + w) {
            sum += val[f + hi];
            cnt += c->n_pull[f + hi];
            hi++;
        }
        while (lo + w < i) {
            sum -= val[f + lo];
            cnt -= c->n_pull[f + lo];
            lo++;
        }
        c->smooth[f + i] = cnt ? sum / cnt : 0.0;
    }
}

/* One round: every read that its place makes implausible pulls its
 * transaction towards the nearest place that is not; each session
 * moves by its pulls smoothed along its positions (a session's drift is
 * slow), then is made increasing again. */
static void est_round(est_ctx *c, uint32_t smooth_w, double cap, double *resid)
{
    const psi_history *h = c->h;
    for (uint32_t k = 0; k < h->n_keys; k++) {
        uint32_t b = c->koff[k], e = c->koff[k + 1];
        for (uint32_t i = b; i < e; i++)
            c->kw[i].est = c->est[c->kw[i].txn];
        sort_items(c->kw + b, e - b);
    }
    for (uint32_t t = 0; t < h->n_txns; t++)
        c->pull[t] = 0.0, c->n_pull[t] = 0;
    for (uint32_t i = 0; i < c->n_reads; i++) {
        if (i + EST_AHEAD < c->n_reads) {
            /* the place a read a little ahead looks at first (its key's
             * writers are seldom in the cache) */
            uint32_t ahead = i + EST_AHEAD;
            PSI_PREFETCH(&c->kw[c->koff[h->ops[c->reads[ahead]].key] + c->slot[ahead]]);
        }
        uint32_t o = c->reads[i], k = h->ops[o].key, t = c->idx->op_txn[o];
        uint32_t b = c->koff[k], m = c->koff[k + 1] - b;
        uint64_t v = h->ops[o].value;
        bool init_ok = c->init_ok[o];
        double e = c->est[t];
        uint32_t lo = c->slot[i] = slot_before(c->kw + b, m, e, c->slot[i]);
        c->n_pull[t]++;
        if (plausible(c, b, lo, v, t, init_ok))
            continue;
        uint32_t q = nearest(c, b, lo, m, v, t, init_ok, 64);
        if (q == UINT32_MAX) {
            if (resid) /* nothing plausible within reach: at least that far */
                resid[t] += fmax(fabs(c->kw[b + (lo + 64 < m ? lo + 64 : m - 1)].est - e),
                                 fabs(c->kw[b + (lo > 64 ? lo - 64 : 0)].est - e));
            continue;
        }
        double target = q == 0   ? c->kw[b].est - 0.5
                        : q == m ? c->kw[b + m - 1].est + 0.5
                                 : (c->kw[b + q - 1].est + c->kw[b + q].est) / 2;
        /* one read moves its transaction a little per round: a read
         * whose nearest plausible place is far off is more likely
         * explained by another order of the writers than by the reader
         * being there */
        double pull = target - e;
        c->pull[t] += pull > cap ? cap : pull < -cap ? -cap : pull;
        if (resid)
            resid[t] += fabs(pull);
    }
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        uint32_t f = se->first_txn, n = se->n_txns;
        session_mean(c, c->pull, f, n, smooth_w);
        for (uint32_t i = 0; i < n; i++) {
            c->est[f + i] += c->smooth[f + i];
            if (i && c->est[f + i] <= c->est[f + i - 1])
                c->est[f + i] = c->est[f + i - 1] + 1e-3;
        }
    }
    /* Back to ranks, so that the window keeps its meaning (order holds
     * the last round's ranking, or the transactions in order before the
     * first). */
    uint32_t m = h->n_txns - 1;
    for (uint32_t i = 0; i < m; i++)
        c->order[i].est = c->est[c->order[i].txn];
    sort_items(c->order, m);
    for (uint32_t i = 0; i < m; i++)
        c->est[c->order[i].txn] = i;
}

/* unc[t]: the mean distance, in ranks, from its reads' places to their
 * nearest plausible ones, the larger of t's own and its session's around
 * it (over 2 SMOOTH + 1 positions). */
static void uncertainty(est_ctx *c, double *unc)
{
    const psi_history *h = c->h;
    for (uint32_t t = 0; t < h->n_txns; t++)
        unc[t] = 0.0;
    est_round(c, SMOOTH, 0.0, unc); /* moves nothing: cap 0 */
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        uint32_t f = se->first_txn, n = se->n_txns;
        session_mean(c, unc, f, n, SMOOTH);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t np = c->n_pull[f + i];
            double own = np ? unc[f + i] / np : 0.0;
            unc[f + i] = fmax(own, c->smooth[f + i]);
        }
    }
    unc[PSI_INIT_TXN] = 0.0;
}

psi_status psi_restricted_estimate(const psi_history *h, const psi_index *idx, uint32_t rounds,
                                   double *est, double *unc, psi_diag *d)
{
    by_position(h, est);
    if (unc)
        for (uint32_t t = 0; t < h->n_txns; t++)
            unc[t] = 0.0;
    if (!rounds)
        return PSI_OK;
    est_ctx c = {.h = h, .idx = idx, .est = est};
    uint32_t *wops = NULL;
    bool kw_ok = key_writers(h, idx, &c.koff, &wops);
    c.init_ok = calloc(h->n_ops ? h->n_ops : 1, 1);
    c.pull = malloc((size_t)h->n_txns * sizeof *c.pull);
    c.smooth = malloc((size_t)h->n_txns * sizeof *c.smooth);
    c.n_pull = malloc((size_t)h->n_txns * sizeof *c.n_pull);
    c.order = malloc((size_t)h->n_txns * sizeof *c.order);
    psi_status st = PSI_OK;
    if (!kw_ok || !c.init_ok || !c.pull || !c.smooth || !c.n_pull || !c.order) {
        free(wops);
        goto nomem;
    }
    uint32_t nw = c.koff[h->n_keys];
    c.kw = malloc((nw ? nw : 1) * sizeof *c.kw);
    for (uint32_t i = 0; c.kw && i < nw; i++)
        c.kw[i] =
            (est_item){.value = h->ops[wops[i]].value, .txn = idx->op_txn[wops[i]], .tie = wops[i]};
    free(wops);
    for (uint32_t t = 1; t < h->n_txns; t++)
        c.order[t - 1] = (est_item){.txn = t, .tie = t};
    for (uint32_t o = 0; o < h->n_ops; o++)
        if ((idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_EXTERNAL_READ))
            c.n_reads++;
    c.reads = malloc((c.n_reads ? c.n_reads : 1) * sizeof *c.reads);
    c.slot = calloc(c.n_reads ? c.n_reads : 1, sizeof *c.slot);
    if (!c.kw || !c.reads || !c.slot)
        goto nomem;
    c.n_reads = 0;
    for (uint32_t o = 0; o < h->n_ops; o++)
        if ((idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_EXTERNAL_READ)) {
            c.reads[c.n_reads++] = o;
            c.init_ok[o] = idx->read_src[o] == PSI_SRC_INIT;
        }
    for (uint32_t a = 0; a < idx->n_amb; a++)
        c.init_ok[idx->amb[a].op] =
            idx->amb_cand[idx->amb[a].first + idx->amb[a].n - 1] == PSI_SRC_INIT;
    for (uint32_t r = 0; r < rounds; r++)
        est_round(&c, SMOOTH, PULL_MAX * (rounds - r) / rounds, NULL);
    if (unc)
        uncertainty(&c, unc);
    goto out;
nomem:
    st = psi_diag_nomem(d, "estimating the transactions' times");
out:
    free(c.koff);
    free(c.kw);
    free(c.reads);
    free(c.slot);
    free(c.init_ok);
    free(c.pull);
    free(c.smooth);
    free(c.n_pull);
    free(c.order);
    return st;
}

static int span_cmp(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return (x[0] > y[0]) - (x[0] < y[0]);
}

void psi_restricted_spans(const psi_history *h, const double *est, const double *wid, double w,
                          double *lo, double *hi)
{
    for (uint32_t t = 0; t < h->n_txns; t++) {
        double half = w / 2 + (wid ? wid[t] : 0.0);
        lo[t] = est[t] - half;
        hi[t] = est[t] + half;
    }
    lo[PSI_INIT_TXN] = hi[PSI_INIT_TXN] = est[PSI_INIT_TXN];
    /* Monotone along each session (widening only): then every path of
     * session order and skeleton edges goes from a span to a later one,
     * and no kept candidate is forced after its reader (restricted.h). */
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        uint32_t f = se->first_txn, n = se->n_txns;
        for (uint32_t i = 1; i < n; i++)
            hi[f + i] = fmax(hi[f + i], hi[f + i - 1]);
        for (uint32_t i = n; i-- > 1;)
            lo[f + i - 1] = fmin(lo[f + i - 1], lo[f + i]);
    }
}

psi_status psi_restricted_open_pairs(const psi_history *h, const psi_index *idx, const double *lo,
                                     const double *hi, uint64_t *pairs, psi_diag *d)
{
    *pairs = 0;
    uint32_t *off, *wops;
    bool ok = key_writers(h, idx, &off, &wops);
    uint32_t n = ok ? off[h->n_keys] : 0;
    double *t = ok ? malloc((n ? n : 1) * 2 * sizeof *t) : NULL; /* (lo, hi) pairs */
    if (!t) {
        free(off);
        free(wops);
        return psi_diag_nomem(d, "estimating the restricted problem");
    }
    for (uint32_t i = 0; i < n; i++) {
        t[2 * i] = lo[idx->op_txn[wops[i]]];
        t[2 * i + 1] = hi[idx->op_txn[wops[i]]];
    }
    free(wops);
    /* Per key, by span start: each writer's later-starting writers whose
     * span overlaps its own (same-session pairs too: an upper bound is
     * what the caller needs). */
    for (uint32_t k = 0; k < h->n_keys; k++) {
        uint32_t b = off[k], e = off[k + 1];
        if (e - b < 2)
            continue;
        qsort(t + 2 * b, e - b, 2 * sizeof *t, span_cmp);
        for (uint32_t i = b; i < e; i++) {
            uint32_t l = i + 1, r = e; /* first start past i's end */
            while (l < r) {
                uint32_t mid = l + (r - l) / 2;
                if (t[2 * mid] <= t[2 * i + 1])
                    l = mid + 1;
                else
                    r = mid;
            }
            *pairs += l - i - 1;
        }
    }
    free(off);
    free(t);
    return PSI_OK;
}

/* A transaction's span and session, side by side: choose looks all
 * three up for each of tens of millions of candidates (a cache miss per
 * array in the history's own layout). */
typedef struct span_rec {
    double lo, hi;
    uint32_t session;
} span_rec;

/* choose's scratch, room for the longest candidate list. */
typedef struct choose_buf {
    uint8_t *keep;
    double *hi; /* candidate j's span end, for the rule on those before the window */
} choose_buf;

/* The candidates (a) keeps of read r, appended to dst (room for r->n) in
 * the list's order; returns how many (at least 1). Kept: those whose span
 * overlaps the reader's (either may run first). */
static uint32_t choose(const psi_index *idx, const span_rec *sp, const psi_amb_read *r,
                       choose_buf *buf, uint32_t *dst)
{
    const uint32_t *cand = idx->amb_cand + r->first;
    uint8_t *keep = buf->keep;
    const double rlo = sp[r->txn].lo, rhi = sp[r->txn].hi;
    const uint32_t sess = sp[r->txn].session;
    uint32_t after = UINT32_MAX;                  /* the nearest after the window */
    double before_lo = -INFINITY, after_lo = 0.0; /* the latest start before it, the first after */
    bool before = false, any = false;
    for (uint32_t j = 0; j < r->n; j++) {
        /* two steps ahead: a later candidate's transaction, and the span
         * of a nearer one's (both cache misses on large histories) */
        if (j + 2 * EST_AHEAD < r->n && cand[j + 2 * EST_AHEAD] != PSI_SRC_INIT)
            PSI_PREFETCH(&idx->op_txn[cand[j + 2 * EST_AHEAD]]);
        if (j + EST_AHEAD < r->n && cand[j + EST_AHEAD] != PSI_SRC_INIT)
            PSI_PREFETCH(&sp[idx->op_txn[cand[j + EST_AHEAD]]]);
        keep[j] = 0;
        buf->hi[j] = INFINITY; /* not before the window */
        if (cand[j] == PSI_SRC_INIT) {
            keep[j] = 1; /* the rules say whether it can be (seeding's RW edges) */
            any = true;
            continue;
        }
        const span_rec *t = &sp[idx->op_txn[cand[j]]];
        if (t->session == sess || (t->hi >= rlo && t->lo <= rhi)) {
            keep[j] = 1;
            any = true;
        } else if (t->hi < rlo) {
            buf->hi[j] = t->hi;
            if (!before || t->lo > before_lo)
                before_lo = t->lo;
            before = true;
        } else if (after == UINT32_MAX || t->lo < after_lo) {
            after = j;
            after_lo = t->lo;
        }
    }
    /* The one before the window that starts last, and those that may end
     * after it starts: the version a read of a key nobody wrote for a
     * while returns, which the estimate may have placed a little before
     * another candidate. A candidate after the window is kept only when
     * nothing else is (the skeleton then makes it impossible, and the
     * restricted problem rejects, which proves nothing). */
    if (before) {
        for (uint32_t j = 0; j < r->n; j++)
            if (buf->hi[j] != INFINITY && buf->hi[j] >= before_lo)
                keep[j] = 1;
        any = true;
    }
    assert(any || after != UINT32_MAX); /* a read has a candidate */
    if (!any && after != UINT32_MAX)
        keep[after] = 1;
    uint32_t k = 0;
    for (uint32_t j = 0; j < r->n; j++)
        if (keep[j])
            dst[k++] = cand[j];
    assert(k >= 1);
    return k;
}

psi_status psi_restricted_index(const psi_history *h, const psi_index *idx, const double *lo,
                                const double *hi, psi_index *out, psi_restricted_cut *cut,
                                psi_diag *d)
{
    assert(!idx->opt && !idx->n_anomalies);
    memset(out, 0, sizeof *out);
    memset(cut, 0, sizeof *cut);
    const size_t n_ops = h->n_ops;
    *out = (psi_index){.n_committed = idx->n_committed,
                       .n_aborted = idx->n_aborted,
                       .n_unknown = idx->n_unknown,
                       .n_promoted = idx->n_promoted,
                       .n_keys = idx->n_keys,
                       .n_writes = idx->n_writes,
                       .init_txn = idx->init_txn};
    uint32_t max_n = 0;
    for (uint32_t a = 0; a < idx->n_amb; a++)
        max_n = idx->amb[a].n > max_n ? idx->amb[a].n : max_n;
    choose_buf buf = {.keep = malloc(max_n ? max_n : 1),
                      .hi = malloc((max_n ? max_n : 1) * sizeof *buf.hi)};
    span_rec *sp = malloc((size_t)h->n_txns * sizeof *sp);
    size_t cap = 0;
    out->op_txn = malloc((n_ops ? n_ops : 1) * sizeof *out->op_txn);
    out->read_src = malloc((n_ops ? n_ops : 1) * sizeof *out->read_src);
    out->op_info = malloc(n_ops ? n_ops : 1);
    out->amb = malloc(idx->n_amb * sizeof *out->amb);
    if (idx->w_first) {
        out->w_first = malloc(((size_t)idx->n_keys + 1) * sizeof *out->w_first);
        out->w_val = malloc(((size_t)idx->n_writes + 1) * sizeof *out->w_val);
        out->w_op = malloc(((size_t)idx->n_writes + 1) * sizeof *out->w_op);
    }
    if (idx->dup_prev)
        out->dup_prev = malloc((n_ops ? n_ops : 1) * sizeof *out->dup_prev);
    if (!buf.keep || !buf.hi || !sp || !out->op_txn || !out->read_src || !out->op_info ||
        !out->amb || (idx->w_first && (!out->w_first || !out->w_val || !out->w_op)) ||
        (idx->dup_prev && !out->dup_prev))
        goto nomem;
    memcpy(out->op_txn, idx->op_txn, n_ops * sizeof *out->op_txn);
    memcpy(out->read_src, idx->read_src, n_ops * sizeof *out->read_src);
    memcpy(out->op_info, idx->op_info, n_ops);
    if (idx->w_first) {
        memcpy(out->w_first, idx->w_first, ((size_t)idx->n_keys + 1) * sizeof *out->w_first);
        memcpy(out->w_val, idx->w_val, (size_t)idx->n_writes * sizeof *out->w_val);
        memcpy(out->w_op, idx->w_op, (size_t)idx->n_writes * sizeof *out->w_op);
    }
    if (idx->dup_prev)
        memcpy(out->dup_prev, idx->dup_prev, n_ops * sizeof *out->dup_prev);
    for (uint32_t t = 0; t < h->n_txns; t++)
        sp[t] = (span_rec){.lo = lo[t], .hi = hi[t], .session = h->txns[t].session};
    /* One pass: each read's kept candidates go straight to the end of
     * out's list, and stay there if they are at least two. */
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *r = &idx->amb[a];
        if (!psi_grow((void **)&out->amb_cand, &cap, out->n_amb_cand + r->n, sizeof *out->amb_cand))
            goto nomem;
        uint32_t *dst = out->amb_cand + out->n_amb_cand;
        uint32_t k = choose(idx, sp, r, &buf, dst);
        cut->choices_before += r->n;
        cut->choices_after += k;
        if (k == 1) {
            /* An ordinary read of the one writer left (index.h). */
            out->read_src[r->op] = dst[0];
            out->op_info[r->op] &= (uint8_t)~PSI_OI_AMBIG;
            continue;
        }
        psi_amb_read *o = &out->amb[out->n_amb++];
        *o = *r;
        o->first = out->n_amb_cand;
        o->n = k;
        out->n_amb_cand += k;
    }
    cut->reads_before = idx->n_amb;
    cut->reads_after = out->n_amb;
    /* the list grew by doubling: give back what it did not use */
    uint32_t *fit =
        realloc(out->amb_cand, (out->n_amb_cand ? out->n_amb_cand : 1) * sizeof *out->amb_cand);
    if (fit)
        out->amb_cand = fit;
    free(buf.keep);
    free(buf.hi);
    free(sp);
    return PSI_OK;
nomem:
    free(buf.keep);
    free(buf.hi);
    free(sp);
    psi_index_free(out);
    return psi_diag_nomem(d, "restricting the read-from choices");
}

/* The committed transactions of session s, in order, into list (room for
 * the session's transactions); returns how many. */
static uint32_t committed_of(const psi_history *h, uint32_t s, uint32_t *list)
{
    const psi_session *se = &h->sessions[s];
    uint32_t n = 0;
    for (uint32_t i = 0; i < se->n_txns; i++)
        if (h->txns[se->first_txn + i].status == PSI_TXN_COMMITTED)
            list[n++] = se->first_txn + i;
    return n;
}

psi_status psi_restricted_skeleton(const psi_history *h, const double *lo, const double *hi,
                                   psi_polygraph *g, uint64_t *n_added, psi_diag *d)
{
    *n_added = 0;
    uint32_t longest = 0;
    for (uint32_t s = 0; s < h->n_sessions; s++)
        longest = h->sessions[s].n_txns > longest ? h->sessions[s].n_txns : longest;
    uint32_t *a = malloc((longest ? longest : 1) * sizeof *a);
    uint32_t *b = malloc((longest ? longest : 1) * sizeof *b);
    if (!a || !b) {
        free(a);
        free(b);
        return psi_diag_nomem(d, "adding the estimate's edges");
    }
    psi_status st = PSI_OK;
    const uint64_t before = g->n_known;
    for (uint32_t s = 0; s < h->n_sessions && st == PSI_OK; s++) {
        uint32_t na = committed_of(h, s, a);
        for (uint32_t s2 = 0; s2 < h->n_sessions && st == PSI_OK; s2++) {
            if (s2 == s)
                continue;
            uint32_t nb = committed_of(h, s2, b);
            /* t's target: s2's first transaction whose span starts past
             * t's end. Spans are monotone along sessions, so targets only
             * move on along s, and an edge goes from the last t with a
             * given target alone: the earlier ones reach it by session
             * order. */
            uint32_t j = 0, prev = UINT32_MAX, prev_tgt = UINT32_MAX;
            for (uint32_t i = 0; i < na && st == PSI_OK; i++) {
                while (j < nb && lo[b[j]] <= hi[a[i]])
                    j++;
                uint32_t tgt = j < nb ? b[j] : UINT32_MAX;
                if (prev_tgt != UINT32_MAX && tgt != prev_tgt)
                    st = psi_polygraph_add_known(g, prev, prev_tgt, PSI_EDGE_SO, UINT32_MAX,
                                                 PSI_FROM_ESTIMATE, d);
                if (tgt == UINT32_MAX)
                    break;
                prev = a[i];
                prev_tgt = tgt;
            }
            if (st == PSI_OK && prev_tgt != UINT32_MAX && j < nb)
                st = psi_polygraph_add_known(g, prev, prev_tgt, PSI_EDGE_SO, UINT32_MAX,
                                             PSI_FROM_ESTIMATE, d);
        }
    }
    *n_added = st == PSI_OK ? g->n_known - before : 0;
    free(a);
    free(b);
    return st;
}

/* The index of writer src in read r's candidates of index x (a linear
 * search: the lists' order is index.c's to choose). */
static uint32_t cand_index(const psi_index *x, const psi_amb_read *r, uint32_t src)
{
    const uint32_t *c = x->amb_cand + r->first;
    uint32_t j = 0;
    while (j < r->n && c[j] != src)
        j++;
    assert(j < r->n);
    return j;
}

psi_status psi_restricted_choices_back(const psi_index *full, const psi_index *cut,
                                       const uint32_t *choice, uint32_t **out, psi_diag *d)
{
    *out = malloc((full->n_amb ? full->n_amb : 1) * sizeof **out);
    if (!*out)
        return psi_diag_nomem(d, "keeping the model");
    /* Both lists are in operation order, cut's a subsequence of full's. */
    uint32_t c = 0;
    for (uint32_t a = 0; a < full->n_amb; a++) {
        const psi_amb_read *r = &full->amb[a];
        uint32_t src;
        if (c < cut->n_amb && cut->amb[c].op == r->op) {
            src = cut->amb_cand[cut->amb[c].first + choice[c]];
            c++;
        } else {
            src = cut->read_src[r->op];
        }
        (*out)[a] = cand_index(full, r, src);
    }
    assert(c == cut->n_amb);
    return PSI_OK;
}
