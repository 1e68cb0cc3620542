/* The brute-force SI/SER oracle (see oracle.h). Straight from the
 * definitions, slow on purpose, and written without any help from the
 * checker's own code: its own writer index, its own graph, its own cycle
 * test. Steps:
 *   0. a recorded initial state (the first transaction in the file, when
 *      committed and only writing 0) is T0 itself;
 *   1. index every write (key, value) -> (txn, op); values may repeat;
 *   2. decide which transactions take part: committed ones, and each
 *      UNKNOWN one is tried both committed and absent (every subset of
 *      those some other transaction could read from);
 *   3. graph-free checks: INT, and per external read its candidate
 *      writers (participants other than the reader whose last write of
 *      the key wrote the value, and T0 for 0); none left: G1a, G1b,
 *      unknown value or future read;
 *   4. for every choice of a version order per key and of a writer per
 *      read, build SO ∪ WR ∪ WW and RW as boolean matrices and test
 *      Theorem 6: SER iff SO∪WR∪WW∪RW is acyclic, SI iff (SO∪WR∪WW) ∪
 *      (SO∪WR∪WW);RW is acyclic, for some choice. */
#include "oracle.h"

#include <stdlib.h>
#include <string.h>

typedef struct wrec {
    uint64_t value;
    uint32_t key;
    uint32_t txn;
    uint32_t op; /* global op index */
} wrec;

typedef struct rrec {
    uint32_t reader; /* compact index */
    uint32_t key;
    uint32_t writer;        /* the current choice: compact index; 0 is T0 */
    uint32_t first, n, cur; /* candidates o->cand[first .. first + n), cur chosen */
} rrec;

/* A square boolean matrix over the participating transactions. */
typedef struct bmat {
    uint32_t n, words;
    uint64_t *bits;
} bmat;

static bool bmat_init(bmat *m, uint32_t n)
{
    m->n = n;
    m->words = (n + 63) / 64;
    m->bits = calloc((size_t)n * m->words + 1, sizeof *m->bits);
    return m->bits != NULL;
}

static inline uint64_t *bmat_row(const bmat *m, uint32_t u)
{
    return m->bits + (size_t)u * m->words;
}

static inline void bmat_set(bmat *m, uint32_t u, uint32_t v)
{
    bmat_row(m, u)[v / 64] |= 1ull << (v % 64);
}

static inline bool bmat_get(const bmat *m, uint32_t u, uint32_t v)
{
    return (bmat_row(m, u)[v / 64] >> (v % 64)) & 1u;
}

static void bmat_copy(bmat *dst, const bmat *src)
{
    memcpy(dst->bits, src->bits, (size_t)src->n * src->words * sizeof *src->bits);
}

/* Kahn's algorithm; a self-loop keeps its node's in-degree positive. */
static bool bmat_acyclic(const bmat *m, uint32_t *indeg, uint32_t *queue)
{
    uint32_t n = m->n;
    memset(indeg, 0, n * sizeof *indeg);
    for (uint32_t u = 0; u < n; u++)
        for (uint32_t v = 0; v < n; v++)
            if (bmat_get(m, u, v))
                indeg[v]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
        if (indeg[v] == 0)
            queue[tail++] = v;
    while (head < tail) {
        uint32_t u = queue[head++];
        for (uint32_t v = 0; v < n; v++)
            if (bmat_get(m, u, v) && --indeg[v] == 0)
                queue[tail++] = v;
    }
    return tail == n;
}

static int cmp_wrec(const void *a, const void *b)
{
    const wrec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return (x->op > y->op) - (x->op < y->op);
}

static const wrec *find_write(const wrec *w, size_t n, uint32_t key, uint64_t value)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w[mid].key < key || (w[mid].key == key && w[mid].value < value))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && w[lo].key == key && w[lo].value == value ? &w[lo] : NULL;
}

static bool is_init_read(const psi_op *o)
{
    return (o->flags & PSI_OPF_INIT) || o->value == 0;
}

/* Rearranges a[0..n) into the next permutation in lexicographic order;
 * returns false (leaving it sorted ascending) after the last one. */
static bool next_perm(uint32_t *a, uint32_t n)
{
    if (n < 2)
        return false;
    uint32_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0) {
        for (uint32_t l = 0, r = n - 1; l < r; l++, r--) {
            uint32_t t = a[l];
            a[l] = a[r];
            a[r] = t;
        }
        return false;
    }
    uint32_t j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    uint32_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
    for (uint32_t l = i, r = n - 1; l < r; l++, r--) {
        t = a[l];
        a[l] = a[r];
        a[r] = t;
    }
    return true;
}

typedef struct oracle {
    const psi_history *h;
    bool ser;
    uint64_t max_orders;
    oracle_result *res;

    wrec *writes;
    size_t n_writes;
    bool *part;      /* per history txn: takes part */
    uint32_t *cid;   /* history txn -> compact index (UINT32_MAX if out) */
    uint32_t *hid;   /* compact index -> history txn */
    uint32_t n_part; /* compact indices 0..n_part; 0 is T0 */
    rrec *reads;     /* external reads from other transactions */
    size_t n_reads;
    uint32_t *cand; /* candidate writers of the reads (compact indices) */
    size_t n_cand, cap_cand;
    uint32_t init_txn; /* the recorded initial state (history index), 0 if none */

    /* Version orders: key k's writers (compact ids, T0 excluded) are
     * ord[kfirst[k] .. kfirst[k+1]); pos[k * n_part + c] is c's place. */
    uint32_t *ord, *kfirst, *pos;
    bmat base, dep, rw, g;
    uint32_t *indeg, *queue;
    const oracle_hints *hints; /* known version orders, or NULL */
    const bool *outcome;       /* [n_txns] unknown transactions committed in this run, or NULL */
} oracle;

static oracle_verdict finish(oracle *o, oracle_verdict v, oracle_reason why, uint32_t txn)
{
    if (o->res) {
        o->res->verdict = v;
        o->res->why = why;
        o->res->txn = txn;
    }
    return v;
}

static bool index_writes(oracle *o)
{
    const psi_history *h = o->h;
    size_t n = 0;
    for (uint32_t i = 0; i < h->n_ops; i++)
        n += h->ops[i].kind == PSI_OP_WRITE;
    o->writes = malloc((n ? n : 1) * sizeof *o->writes);
    if (!o->writes)
        return false;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (t == o->init_txn)
            continue;
        for (uint32_t i = tx->first_op; i < tx->first_op + tx->n_ops; i++)
            if (h->ops[i].kind == PSI_OP_WRITE)
                o->writes[o->n_writes++] =
                    (wrec){.value = h->ops[i].value, .key = h->ops[i].key, .txn = t, .op = i};
    }
    qsort(o->writes, o->n_writes, sizeof *o->writes, cmp_wrec);
    return true;
}

/* Committed transactions, plus the UNKNOWN ones this run commits
 * (o->outcome): an unknown transaction is committed or absent, and which
 * is a choice (oracle_check_hinted tries them all). */
static void decide_participants(oracle *o)
{
    const psi_history *h = o->h;
    o->part[0] = true;
    for (uint32_t t = 1; t < h->n_txns; t++)
        o->part[t] = t != o->init_txn &&
                     (h->txns[t].status == PSI_TXN_COMMITTED ||
                      (h->txns[t].status == PSI_TXN_UNKNOWN && o->outcome && o->outcome[t]));
}

/* Graph-free anomalies of participant t; fills o->reads with its external
 * reads of other transactions' writes. Returns ORACLE_ACCEPT if none. */
static oracle_verdict check_txn(oracle *o, uint32_t t)
{
    const psi_history *h = o->h;
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = tx->first_op; i < tx->first_op + tx->n_ops; i++) {
        const psi_op *op = &h->ops[i];
        if (op->kind != PSI_OP_READ)
            continue;
        /* Internal read: some earlier op of t touched this key. */
        bool internal = false;
        uint64_t expect = 0;
        for (uint32_t j = i; j-- > tx->first_op;) {
            const psi_op *p = &h->ops[j];
            if (p->key != op->key)
                continue;
            if (p->kind == PSI_OP_WRITE) {
                expect = p->value;
                internal = true;
                break;
            }
            if (!internal) {
                expect = is_init_read(p) ? 0 : p->value;
                internal = true;
            }
        }
        uint64_t got = is_init_read(op) ? 0 : op->value;
        if (internal) {
            if (got != expect)
                return finish(o, ORACLE_REJECT, ORACLE_WHY_INT, t);
            continue;
        }
        /* Candidates: every participant other than t whose last write of
         * the key wrote the value, and T0 for the initial value. */
        uint32_t first = (uint32_t)o->n_cand, n = 0;
        oracle_reason why = ORACLE_WHY_NO_WRITER;
        const wrec *w = find_write(o->writes, o->n_writes, op->key, got);
        size_t most = 1;
        for (const wrec *v = w;
             v && v < o->writes + o->n_writes && v->key == op->key && v->value == got; v++)
            most++;
        if (o->n_cand + most > o->cap_cand) {
            size_t cap = 2 * (o->n_cand + most);
            uint32_t *c = realloc(o->cand, cap * sizeof *c);
            if (!c)
                return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
            o->cand = c;
            o->cap_cand = cap;
        }
        if (got == 0) {
            o->cand[o->n_cand++] = 0;
            n++;
        }
        for (; w && w < o->writes + o->n_writes && w->key == op->key && w->value == got; w++) {
            if (!o->part[w->txn]) {
                why = ORACLE_WHY_ABORTED_READ;
                continue;
            }
            if (w->txn == t) {
                why = ORACLE_WHY_FUTURE_READ;
                continue;
            }
            const psi_txn *wt = &h->txns[w->txn];
            bool later = false;
            for (uint32_t j = w->op + 1; j < wt->first_op + wt->n_ops; j++)
                later |= h->ops[j].kind == PSI_OP_WRITE && h->ops[j].key == op->key;
            if (later) {
                why = ORACLE_WHY_INTERMEDIATE_READ;
                continue;
            }
            o->cand[o->n_cand++] = o->cid[w->txn];
            n++;
        }
        if (n == 0)
            return finish(o, ORACLE_REJECT, why, t);
        o->reads[o->n_reads++] = (rrec){.reader = o->cid[t],
                                        .key = op->key,
                                        .writer = o->cand[first],
                                        .first = first,
                                        .n = n,
                                        .cur = 0};
    }
    return ORACLE_ACCEPT;
}

/* SO (T0 before each session's first participant, then the chain) and WR. */
static void build_base(oracle *o)
{
    const psi_history *h = o->h;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        uint32_t prev = 0;
        const psi_session *se = &h->sessions[s];
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            if (!o->part[t])
                continue;
            bmat_set(&o->base, prev, o->cid[t]);
            prev = o->cid[t];
        }
    }
    /* Real time and timestamps: every pair they order, literally. */
    const oracle_hints *x = o->hints;
    for (uint32_t a = 1; x && a < o->n_part; a++)
        for (uint32_t b = 1; b < o->n_part; b++) {
            uint32_t ha = o->hid[a], hb = o->hid[b];
            if (a == b)
                continue;
            if (x->realtime && h->rt && h->rt[ha].complete < h->rt[hb].invoke)
                bmat_set(&o->base, a, b);
            if (x->ts && x->ts[ha].has && x->ts[hb].has &&
                x->ts[ha].commit < (o->ser ? x->ts[hb].commit : x->ts[hb].start))
                bmat_set(&o->base, a, b);
        }
}

/* Whether history transactions a and b both have timestamps. */
static bool both_ts(const oracle *o, uint32_t a, uint32_t b)
{
    return o->hints && o->hints->ts && o->hints->ts[a].has && o->hints->ts[b].has;
}

/* Timestamps, the facts no version order can mend: a session's
 * transactions must see each other (SER: commit in session order), and
 * under SI two writers of a key must not overlap (neither commits before
 * the other starts). */
static bool ts_direct_ok(oracle *o)
{
    const psi_history *h = o->h;
    if (!o->hints || !o->hints->ts)
        return true;
    const oracle_ts *ts = o->hints->ts;
    for (uint32_t a = 1; a < o->n_part; a++)
        for (uint32_t b = 1; b < o->n_part; b++) {
            uint32_t ha = o->hid[a], hb = o->hid[b];
            if (a == b || !both_ts(o, ha, hb))
                continue;
            const psi_txn *ta = &h->txns[ha], *tb = &h->txns[hb];
            if (ta->session == tb->session && ta->pos < tb->pos &&
                !(ts[ha].commit < (o->ser ? ts[hb].commit : ts[hb].start)))
                return false;
            if (o->ser || a > b || ts[ha].commit < ts[hb].start || ts[hb].commit < ts[ha].start)
                continue;
            for (uint32_t i = ta->first_op; i < ta->first_op + ta->n_ops; i++)
                for (uint32_t j = tb->first_op; j < tb->first_op + tb->n_ops; j++)
                    if (h->ops[i].kind == PSI_OP_WRITE && h->ops[j].kind == PSI_OP_WRITE &&
                        h->ops[i].key == h->ops[j].key)
                        return false;
        }
    return true;
}

/* Builds the per-key writer lists; returns false when the space is too big. */
static bool build_orders(oracle *o, uint64_t *space)
{
    const psi_history *h = o->h;
    uint32_t nk = h->n_keys;
    *space = 1;
    uint32_t n = 0;
    size_t i = 0;
    for (uint32_t k = 0; k < nk; k++) {
        o->kfirst[k] = n;
        uint32_t cnt = 0;
        /* writes are sorted by key; a txn may write a key several times */
        for (; i < o->n_writes && o->writes[i].key == k; i++) {
            const wrec *w = &o->writes[i];
            if (!o->part[w->txn])
                continue;
            uint32_t c = o->cid[w->txn];
            bool dup = false;
            for (uint32_t j = o->kfirst[k]; j < n; j++)
                dup |= o->ord[j] == c;
            if (!dup) {
                o->ord[n++] = c;
                cnt++;
            }
        }
        for (uint32_t f = 2; f <= cnt; f++) {
            if (*space > o->max_orders / f)
                return false;
            *space *= f;
        }
        /* start from the sorted permutation */
        for (uint32_t a = o->kfirst[k] + 1; a < n; a++)
            for (uint32_t b = a; b > o->kfirst[k] && o->ord[b - 1] > o->ord[b]; b--) {
                uint32_t t = o->ord[b];
                o->ord[b] = o->ord[b - 1];
                o->ord[b - 1] = t;
            }
    }
    o->kfirst[nk] = n;
    return true;
}

/* Does the current choice of version orders satisfy Theorem 6? */
static bool choice_ok(oracle *o)
{
    const psi_history *h = o->h;
    uint32_t np = o->n_part;
    bmat_copy(&o->dep, &o->base);
    memset(o->rw.bits, 0, (size_t)np * o->rw.words * sizeof *o->rw.bits);
    for (uint32_t k = 0; k < h->n_keys; k++) {
        const uint32_t *ord = o->ord + o->kfirst[k];
        uint32_t cnt = o->kfirst[k + 1] - o->kfirst[k];
        for (uint32_t i = 0; i < cnt; i++) {
            o->pos[(size_t)k * np + ord[i]] = i + 1; /* T0 is place 0 */
            bmat_set(&o->dep, 0, ord[i]);
            for (uint32_t j = i + 1; j < cnt; j++)
                bmat_set(&o->dep, ord[i], ord[j]);
        }
    }
    /* Orders the hints rule out are not candidates at all. */
    for (size_t i = 0; o->hints && i < o->hints->n_ww; i++) {
        const oracle_ww_hint *x = &o->hints->ww[i];
        if (x->a >= h->n_txns || x->b >= h->n_txns || x->key >= h->n_keys)
            continue;
        uint32_t ca = o->cid[x->a], cb = o->cid[x->b];
        if (ca == UINT32_MAX || cb == UINT32_MAX)
            continue;
        uint32_t pa = o->pos[(size_t)x->key * np + ca], pb = o->pos[(size_t)x->key * np + cb];
        if (pa && pb && pa > pb)
            return false;
    }
    /* Timestamped writers are installed in commit order; under SI a read
     * sees only what committed before its start. */
    for (uint32_t k = 0; o->hints && o->hints->ts && k < h->n_keys; k++) {
        const uint32_t *ord = o->ord + o->kfirst[k];
        uint32_t cnt = o->kfirst[k + 1] - o->kfirst[k];
        for (uint32_t i = 0; i < cnt; i++)
            for (uint32_t j = i + 1; j < cnt; j++) {
                uint32_t ha = o->hid[ord[i]], hb = o->hid[ord[j]];
                if (both_ts(o, ha, hb) && o->hints->ts[hb].commit < o->hints->ts[ha].commit)
                    return false;
            }
    }
    for (size_t r = 0; !o->ser && o->hints && o->hints->ts && r < o->n_reads; r++) {
        const rrec *rd = &o->reads[r];
        uint32_t hw = o->hid[rd->writer], hr = o->hid[rd->reader];
        if (rd->writer && both_ts(o, hw, hr) && !(o->hints->ts[hw].commit < o->hints->ts[hr].start))
            return false;
    }
    for (size_t r = 0; r < o->n_reads; r++)
        bmat_set(&o->dep, o->reads[r].writer, o->reads[r].reader);
    for (size_t r = 0; r < o->n_reads; r++) {
        const rrec *rd = &o->reads[r];
        uint32_t k = rd->key, cnt = o->kfirst[k + 1] - o->kfirst[k];
        const uint32_t *ord = o->ord + o->kfirst[k];
        uint32_t from = rd->writer == 0 ? 0 : o->pos[(size_t)k * np + rd->writer];
        for (uint32_t j = from; j < cnt; j++)
            if (ord[j] != rd->reader)
                bmat_set(&o->rw, rd->reader, ord[j]);
    }
    bmat_copy(&o->g, &o->dep);
    if (o->ser) {
        for (size_t i = 0; i < (size_t)np * o->g.words; i++)
            o->g.bits[i] |= o->rw.bits[i];
    } else {
        /* g = dep ∪ dep;rw, materialized explicitly */
        for (uint32_t u = 0; u < np; u++) {
            uint64_t *gu = bmat_row(&o->g, u);
            for (uint32_t v = 0; v < np; v++) {
                if (!bmat_get(&o->dep, u, v))
                    continue;
                const uint64_t *rv = bmat_row(&o->rw, v);
                for (uint32_t w = 0; w < o->g.words; w++)
                    gu[w] |= rv[w];
            }
        }
    }
    return bmat_acyclic(&o->g, o->indeg, o->queue);
}

static oracle_verdict search(oracle *o)
{
    const psi_history *h = o->h;
    for (;;) {
        if (o->res)
            o->res->orders_tried++;
        if (choice_ok(o))
            return finish(o, ORACLE_ACCEPT, ORACLE_WHY_NONE, 0);
        /* odometer over reads (each digit a writer) then keys (each digit
         * a permutation) */
        size_t r = 0;
        for (; r < o->n_reads; r++) {
            rrec *rd = &o->reads[r];
            rd->cur = rd->cur + 1 < rd->n ? rd->cur + 1 : 0;
            rd->writer = o->cand[rd->first + rd->cur];
            if (rd->cur != 0)
                break;
        }
        if (r < o->n_reads)
            continue;
        uint32_t k = 0;
        for (; k < h->n_keys; k++)
            if (next_perm(o->ord + o->kfirst[k], o->kfirst[k + 1] - o->kfirst[k]))
                break;
        if (k == h->n_keys)
            return finish(o, ORACLE_REJECT, ORACLE_WHY_CYCLE, 0);
    }
}

/* Step 0: the transaction that starts first in the input (smallest src,
 * then lowest index), when committed and only writing 0; or one a check
 * already marked PSI_TXN_INITIAL. 0 if none. */
static uint32_t recorded_init(const psi_history *h)
{
    uint32_t first = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (h->txns[t].status == PSI_TXN_INITIAL)
            return t;
        if (first == 0 || h->txns[t].src < h->txns[first].src)
            first = t;
    }
    if (first == 0 || h->txns[first].status != PSI_TXN_COMMITTED || h->txns[first].n_ops == 0)
        return 0;
    for (uint32_t i = 0; i < h->txns[first].n_ops; i++) {
        const psi_op *op = &h->ops[h->txns[first].first_op + i];
        if (op->kind != PSI_OP_WRITE || op->value != 0)
            return 0;
    }
    return first;
}

static oracle_verdict run(oracle *o)
{
    const psi_history *h = o->h;
    if (h->n_list_reads > 0)
        return finish(o, ORACLE_INVALID, ORACLE_WHY_LIST, 0);
    for (uint32_t i = 0; i < h->n_ops; i++)
        if (h->ops[i].flags & PSI_OPF_LIST)
            return finish(o, ORACLE_INVALID, ORACLE_WHY_LIST, 0);
    bool zero_initial = h->format != PSI_FMT_EDN && h->format != PSI_FMT_COBRA;
    o->init_txn = zero_initial ? recorded_init(h) : 0;
    if (!index_writes(o))
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    for (size_t i = 0; i < o->n_writes; i++)
        if (o->writes[i].value == 0 && !zero_initial)
            return finish(o, ORACLE_INVALID, ORACLE_WHY_ZERO_WRITE, o->writes[i].txn);

    o->part = calloc(h->n_txns ? h->n_txns : 1, sizeof *o->part);
    o->cid = malloc((h->n_txns ? h->n_txns : 1) * sizeof *o->cid);
    if (!o->part || !o->cid)
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    decide_participants(o);
    for (uint32_t t = 0; t < h->n_txns; t++)
        o->cid[t] = o->part[t] ? o->n_part++ : UINT32_MAX;
    if (o->n_part > ORACLE_MAX_TXNS)
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    o->hid = malloc(o->n_part * sizeof *o->hid);
    if (!o->hid)
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    for (uint32_t t = 0; t < h->n_txns; t++)
        if (o->part[t])
            o->hid[o->cid[t]] = t;

    o->reads = malloc((h->n_ops ? h->n_ops : 1) * sizeof *o->reads);
    if (!o->reads)
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (!o->part[t])
            continue;
        oracle_verdict v = check_txn(o, t);
        if (v != ORACLE_ACCEPT)
            return v;
    }

    uint32_t np = o->n_part;
    o->ord = malloc((o->n_writes ? o->n_writes : 1) * sizeof *o->ord);
    o->kfirst = malloc(((size_t)h->n_keys + 1) * sizeof *o->kfirst);
    o->indeg = malloc(np * sizeof *o->indeg);
    o->queue = malloc(np * sizeof *o->queue);
    if (!o->ord || !o->kfirst || !o->indeg || !o->queue || !bmat_init(&o->base, np) ||
        !bmat_init(&o->dep, np) || !bmat_init(&o->rw, np) || !bmat_init(&o->g, np))
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    uint64_t space;
    bool fits = build_orders(o, &space);
    if (o->res)
        o->res->orders = space;
    for (size_t r = 0; fits && r < o->n_reads; r++) {
        if (space > o->max_orders / o->reads[r].n)
            fits = false;
        else
            space *= o->reads[r].n;
    }
    if (o->res)
        o->res->orders = space;
    if (!fits)
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    o->pos = calloc((size_t)h->n_keys * np + 1, sizeof *o->pos);
    if (!o->pos)
        return finish(o, ORACLE_TOO_BIG, ORACLE_WHY_BOUND, 0);
    if (!ts_direct_ok(o))
        return finish(o, ORACLE_REJECT, ORACLE_WHY_TIMESTAMPS, 0);
    build_base(o);
    return search(o);
}

oracle_verdict oracle_check_limit(const psi_history *h, bool ser, uint64_t max_orders,
                                  oracle_result *res)
{
    return oracle_check_hinted(h, ser, NULL, max_orders, res);
}

/* One run with the unknown transactions' outcomes fixed (outcome[t]:
 * committed; NULL: all absent). */
static oracle_verdict run_outcome(const psi_history *h, bool ser, const oracle_hints *hints,
                                  const bool *outcome, uint64_t max_orders, oracle_result *res)
{
    oracle o = {.h = h,
                .ser = ser,
                .max_orders = max_orders,
                .res = res,
                .hints = hints,
                .outcome = outcome};
    if (res)
        *res = (oracle_result){0};
    oracle_verdict v = run(&o);
    free(o.writes);
    free(o.part);
    free(o.cid);
    free(o.hid);
    free(o.reads);
    free(o.cand);
    free(o.ord);
    free(o.kfirst);
    free(o.pos);
    free(o.indeg);
    free(o.queue);
    free(o.base.bits);
    free(o.dep.bits);
    free(o.rw.bits);
    free(o.g.bits);
    return v;
}

size_t oracle_open_outcomes(const psi_history *h, uint32_t *out, size_t max)
{
    size_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (tx->status != PSI_TXN_UNKNOWN)
            continue;
        /* Committing a transaction nobody can read from only adds
         * dependencies: absent is then never worse, so it is no choice. */
        bool read = false;
        for (uint32_t i = tx->first_op; i < tx->first_op + tx->n_ops && !read; i++) {
            const psi_op *w = &h->ops[i];
            if (w->kind != PSI_OP_WRITE)
                continue;
            for (uint32_t j = 0; j < h->n_ops && !read; j++) {
                const psi_op *r = &h->ops[j];
                read = r->kind == PSI_OP_READ && r->key == w->key && r->value == w->value &&
                       !(r->flags & PSI_OPF_INIT) &&
                       (j < tx->first_op || j >= tx->first_op + tx->n_ops);
            }
        }
        if (read) {
            if (n < max)
                out[n] = t;
            n++;
        }
    }
    return n;
}

oracle_verdict oracle_check_hinted(const psi_history *h, bool ser, const oracle_hints *hints,
                                   uint64_t max_orders, oracle_result *res)
{
    if (hints && hints->outcome)
        return run_outcome(h, ser, hints, hints->outcome, max_orders, res);
    uint32_t open[ORACLE_MAX_OUTCOMES];
    size_t n = oracle_open_outcomes(h, open, ORACLE_MAX_OUTCOMES);
    if (n > ORACLE_MAX_OUTCOMES) {
        if (res)
            *res = (oracle_result){.verdict = ORACLE_TOO_BIG, .why = ORACLE_WHY_BOUND};
        return ORACLE_TOO_BIG;
    }
    bool *outcome = calloc(h->n_txns ? h->n_txns : 1, sizeof *outcome);
    if (!outcome) {
        if (res)
            *res = (oracle_result){.verdict = ORACLE_TOO_BIG, .why = ORACLE_WHY_BOUND};
        return ORACLE_TOO_BIG;
    }
    /* Every choice of outcomes: accepted when one is; too big when one
     * is and none accepts; else rejected, reported as the first run that
     * got as far as the graph (or the first run when none did). */
    oracle_result best = {0}, one;
    bool have = false, too_big = false;
    oracle_verdict v = ORACLE_REJECT;
    for (uint64_t m = 0; m < (1ull << n); m++) {
        for (size_t i = 0; i < n; i++)
            outcome[open[i]] = (m >> i) & 1u;
        oracle_verdict r = run_outcome(h, ser, hints, outcome, max_orders, &one);
        if (r == ORACLE_ACCEPT || r == ORACLE_INVALID) {
            best = one;
            v = r;
            have = true;
            break;
        }
        if (r == ORACLE_TOO_BIG)
            too_big = true;
        if (r == ORACLE_REJECT &&
            (!have || (best.why != ORACLE_WHY_CYCLE && one.why == ORACLE_WHY_CYCLE))) {
            best = one;
            have = true;
        }
    }
    free(outcome);
    if (v == ORACLE_REJECT && too_big) {
        v = ORACLE_TOO_BIG;
        best = (oracle_result){.verdict = ORACLE_TOO_BIG, .why = ORACLE_WHY_BOUND};
    }
    if (res)
        *res = best;
    return v;
}

oracle_verdict oracle_check_ex(const psi_history *h, bool ser, oracle_result *res)
{
    return oracle_check_limit(h, ser, ORACLE_MAX_ORDERS, res);
}

oracle_verdict oracle_check(const psi_history *h, bool ser)
{
    return oracle_check_ex(h, ser, NULL);
}

const char *oracle_verdict_name(oracle_verdict v)
{
    switch (v) {
    case ORACLE_ACCEPT:
        return "accept";
    case ORACLE_REJECT:
        return "reject";
    case ORACLE_INVALID:
        return "invalid";
    case ORACLE_TOO_BIG:
        return "too big";
    }
    return "?";
}

const char *oracle_reason_name(oracle_reason r)
{
    static const char *const names[] = {
        "none",
        "INT",
        "aborted read (G1a)",
        "intermediate read (G1b)",
        "no writer",
        "future read",
        "cycle",
        "duplicate write",
        "zero write",
        "list reads",
        "bound",
        "timestamps",
    };
    return (unsigned)r < sizeof names / sizeof names[0] ? names[r] : "?";
}
