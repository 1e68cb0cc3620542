/* Validation and per-operation facts (see index.h).
 *
 * Passes: (1) op -> txn; (2) the write map: every write (key, value, op)
 * radix-sorted by (key, value), so a lookup is a binary search in its key's
 * range and repeated values are neighbours (chained in dup_prev); (3) per
 * transaction, group its ops by key in program order to find external
 * reads and final writes; (4) settle transactions of unknown outcome from
 * the reads that observe them (only when there are some); (5) join the
 * external reads of committed transactions with the write map: the reads
 * are radix-sorted the same way and merged in one sequential pass, instead
 * of a lookup per read (the lookups' cache misses were most of validation
 * on large histories); (6) resolve every external read of a committed
 * transaction and record the graph-free anomalies, including INT inside
 * transactions; (7) compare the list-append reads of each key (incompatible
 * orders). */
#include "core/index.h"

#include "core/index_ctx.h"
#include "core/kvsort.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

psi_status psi_index_add_anomaly(index_ctx *c, psi_anomaly a)
{
    psi_index *idx = c->idx;
    if (c->per_read && a.nonrepeatable)
        return PSI_OK; /* allowed (RC, PL-2): an optional transaction may commit */
    if (psi_index_optional(idx, a.txn)) {
        if (!psi_grow((void **)&c->opt_anom, &c->cap_opt_anom, c->n_opt_anom + 1,
                      sizeof *c->opt_anom))
            return psi_diag_nomem(c->d, "recording anomalies");
        c->opt_anom[c->n_opt_anom++] = a;
        return PSI_OK;
    }
    if (!psi_grow((void **)&idx->anomalies, &c->cap_anomalies, idx->n_anomalies + 1,
                  sizeof *idx->anomalies))
        return psi_diag_nomem(c->d, "recording anomalies");
    idx->anomalies[idx->n_anomalies++] = a;
    return PSI_OK;
}

/* The radix sorts' two buffers, n records each, for one sort: the write
 * map's and the join's are sized to their own records (the join's, the
 * committed transactions' external reads, are far fewer than the writes
 * when most attempts abort) and freed after it. */
static bool kv_alloc(index_ctx *c, size_t n)
{
    assert(!c->kv_a && !c->kv_tmp);
    size_t bytes = (n ? n : 1) * sizeof *c->kv_a;
    c->kv_a = malloc(bytes);
    c->kv_tmp = malloc(bytes);
    psi_hint_huge(c->kv_a, bytes);
    psi_hint_huge(c->kv_tmp, bytes);
    return c->kv_a && c->kv_tmp;
}

static void kv_free(index_ctx *c)
{
    free(c->kv_a);
    free(c->kv_tmp);
    c->kv_a = c->kv_tmp = NULL;
}

/* Writes of non-initial transactions as (key, value, op) records, in
 * (txn, program) order so that the stable sort keeps repeated values in
 * write order: the last of a run is the map's answer, dup_prev chains the
 * others back. */
static psi_status build_write_map(index_ctx *c)
{
    psi_history *h = c->h;
    psi_index *idx = c->idx;
    size_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        /* A recorded initial state is the initial transaction: reads of
         * its values read the initial value, not one of its writes. */
        if (tx->status == PSI_TXN_INITIAL)
            continue;
        for (uint32_t i = 0; i < tx->n_ops; i++)
            n += h->ops[tx->first_op + i].kind == PSI_OP_WRITE;
    }
    if (!kv_alloc(c, n))
        return psi_diag_nomem(c->d, "indexing writes");
    psi_kv *a = c->kv_a;
    size_t k = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (tx->status == PSI_TXN_INITIAL)
            continue;
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            const psi_op *op = &h->ops[tx->first_op + i];
            if (op->kind == PSI_OP_WRITE)
                a[k++] = (psi_kv){.value = op->value, .key = op->key, .op = tx->first_op + i};
        }
    }
    assert(k == n);
    idx->w_first = malloc(((size_t)h->n_keys + 1) * sizeof *idx->w_first);
    if (!idx->w_first)
        return psi_diag_nomem(c->d, "indexing writes");
    const psi_kv *sorted = psi_kv_sort(a, c->kv_tmp, n, h->n_keys, idx->w_first);
    /* The sort's other buffer holds garbage: give it back before the map's
     * arrays are allocated, so the two never coexist (at 10^6 committed
     * transactions with their aborted attempts, 34 M writes: 0.5 GB). */
    if (sorted == c->kv_a) {
        free(c->kv_tmp);
        c->kv_tmp = NULL;
    } else {
        free(c->kv_a);
        c->kv_a = NULL;
    }
    idx->w_val = malloc((n ? n : 1) * sizeof *idx->w_val);
    idx->w_op = malloc((n ? n : 1) * sizeof *idx->w_op);
    if (!idx->w_val || !idx->w_op)
        return psi_diag_nomem(c->d, "indexing writes");
    psi_hint_huge(idx->w_val, (n ? n : 1) * sizeof *idx->w_val);
    psi_hint_huge(idx->w_op, (n ? n : 1) * sizeof *idx->w_op);
    idx->n_keys = h->n_keys;
    idx->n_writes = (uint32_t)n;
    for (size_t i = 0; i < n; i++) {
        idx->w_val[i] = sorted[i].value;
        idx->w_op[i] = sorted[i].op;
        if (i == 0 || sorted[i].key != sorted[i - 1].key || sorted[i].value != sorted[i - 1].value)
            continue;
        /* A repeated value: chain the writes (allocated on the first
         * repeat, so unique-value histories pay nothing). */
        if (!idx->dup_prev) {
            idx->dup_prev = malloc((size_t)h->n_ops * sizeof *idx->dup_prev);
            if (!idx->dup_prev)
                return psi_diag_nomem(c->d, "indexing repeated values");
            memset(idx->dup_prev, 0xff, (size_t)h->n_ops * sizeof *idx->dup_prev);
        }
        idx->dup_prev[sorted[i].op] = sorted[i - 1].op;
    }
    kv_free(c);
    return PSI_OK;
}

/* Sorts offsets 0..n-1 of txn t by (key, offset): insertion sort for the
 * common short transaction, qsort of packed (key, offset) words for long
 * ones, so no comparison callback needs the ops array. */

static int cmp_packed(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static psi_status order_txn_ops(index_ctx *c, uint32_t t, uint32_t **out)
{
    const psi_txn *tx = &c->h->txns[t];
    const psi_op *ops = c->h->ops + tx->first_op;
    uint32_t n = tx->n_ops;
    if (n <= 64) {
        if (!psi_grow((void **)&c->order, &c->cap_order, n ? n : 1, sizeof *c->order))
            return psi_diag_nomem(c->d, "scanning transactions");
        uint32_t *ord = c->order;
        for (uint32_t i = 0; i < n; i++) {
            uint32_t j = i;
            while (j > 0 && ops[ord[j - 1]].key > ops[i].key) {
                ord[j] = ord[j - 1];
                j--;
            }
            ord[j] = i;
        }
        *out = ord;
        return PSI_OK;
    }
    /* Long transaction: sort packed (key << 32 | offset) values. */
    uint64_t *packed = malloc((size_t)n * sizeof *packed);
    if (!packed || !psi_grow((void **)&c->order, &c->cap_order, n, sizeof *c->order)) {
        free(packed);
        return psi_diag_nomem(c->d, "scanning transactions");
    }
    for (uint32_t i = 0; i < n; i++)
        packed[i] = ((uint64_t)ops[i].key << 32) | i;
    qsort(packed, n, sizeof *packed, cmp_packed);
    for (uint32_t i = 0; i < n; i++)
        c->order[i] = (uint32_t)packed[i];
    free(packed);
    *out = c->order;
    return PSI_OK;
}

static uint32_t lookup_writer(const index_ctx *c, const psi_op *op);
static psi_status check_list(index_ctx *c, uint32_t t, uint32_t o);

/* Pass 5, a repeat read o (PSI_OI_REPEAT_READ) that disagrees with first,
 * its transaction's first read of the key: resolved like an external read.
 * A committed final write (or the initial value) is a non-repeatable read,
 * an INT anomaly marked nonrepeatable that RC and PL-2 allow; the other
 * outcomes are the anomalies every level rejects. */
static psi_status resolve_repeat(index_ctx *c, uint32_t t, uint32_t o, uint32_t first)
{
    const psi_history *h = c->h;
    const psi_op *op = &h->ops[o];
    psi_anomaly a = {.kind = PSI_ANOM_INT, .txn = t, .op = o, .other_txn = t, .other_op = first};
    if (op->flags & PSI_OPF_INIT) {
        a.nonrepeatable = true;
        return psi_index_add_anomaly(c, a);
    }
    uint32_t w = lookup_writer(c, op);
    if (w == PSI_SRC_NONE) {
        a.kind = PSI_ANOM_UNWRITTEN;
        a.other_txn = a.other_op = PSI_SRC_NONE;
        return psi_index_add_anomaly(c, a);
    }
    /* A repeated value: any committed final write of it by another
     * transaction may be what the read saw (RC and PL-2 then choose among
     * them, check/level_choice.h); only when none is does the last
     * writer's anomaly stand. */
    for (uint32_t v = w; c->idx->dup_prev && v != PSI_SRC_NONE; v = c->idx->dup_prev[v]) {
        uint32_t vt = c->idx->op_txn[v];
        if (vt != t && h->txns[vt].status == PSI_TXN_COMMITTED &&
            (c->idx->op_info[v] & PSI_OI_FINAL_WRITE)) {
            a.nonrepeatable = true;
            return psi_index_add_anomaly(c, a);
        }
    }
    uint32_t wt = c->idx->op_txn[w];
    if (wt == t) {
        a.other_op = w; /* observed its own later write */
    } else if (h->txns[wt].status != PSI_TXN_COMMITTED) {
        a = (psi_anomaly){.kind = PSI_ANOM_G1A, .txn = t, .op = o, .other_txn = wt, .other_op = w};
    } else if (!(c->idx->op_info[w] & PSI_OI_FINAL_WRITE)) {
        a = (psi_anomaly){.kind = PSI_ANOM_G1B, .txn = t, .op = o, .other_txn = wt, .other_op = w};
    } else {
        a.nonrepeatable = true;
    }
    return psi_index_add_anomaly(c, a);
}

/* Pass 3 (flags) or pass 5's INT part (check_int) over one transaction. */
static psi_status scan_txn(index_ctx *c, uint32_t t, bool check_int)
{
    const psi_txn *tx = &c->h->txns[t];
    const psi_op *ops = c->h->ops + tx->first_op;
    uint32_t n = tx->n_ops, *ord = NULL;
    psi_status st = order_txn_ops(c, t, &ord);
    if (st != PSI_OK)
        return st;
    for (uint32_t g = 0; g < n;) {
        uint32_t e = g + 1;
        while (e < n && ops[ord[e]].key == ops[ord[g]].key)
            e++;
        /* ord[g..e) are the ops on one key, in program order. */
        uint32_t cur = ord[g], last_write = UINT32_MAX;
        for (uint32_t k = g; k < e; k++) {
            uint32_t i = ord[k];
            const psi_op *op = &ops[i];
            if (op->kind == PSI_OP_WRITE) {
                last_write = i;
                cur = i;
                continue;
            }
            if (k == g) {
                if (!check_int)
                    c->idx->op_info[tx->first_op + i] |= PSI_OI_EXTERNAL_READ;
                continue;
            }
            /* No own write before it: a read event of its own (RC, PL-2). */
            bool repeat = last_write == UINT32_MAX;
            if (!check_int) {
                if (repeat)
                    c->idx->op_info[tx->first_op + i] |= PSI_OI_REPEAT_READ;
                continue;
            }
            const psi_op *want = &ops[cur];
            bool same = want->value == op->value &&
                        (want->flags & PSI_OPF_INIT) == (op->flags & PSI_OPF_INIT);
            if (same)
                continue;
            if (repeat) {
                /* A list-append repeat read is a read event too (RC, PL-2:
                 * it may see a later list than the first read did): its
                 * elements are checked like an external read's, its last
                 * element resolved like a plain repeat read's value. */
                if (op->flags & PSI_OPF_LIST)
                    st = check_list(c, t, tx->first_op + i);
                if (st == PSI_OK)
                    st = resolve_repeat(c, t, tx->first_op + i, tx->first_op + cur);
                if (st != PSI_OK)
                    return st;
            } else {
                st = psi_index_add_anomaly(c, (psi_anomaly){.kind = PSI_ANOM_INT,
                                                            .txn = t,
                                                            .op = tx->first_op + i,
                                                            .other_txn = t,
                                                            .other_op = tx->first_op + cur});
                if (st != PSI_OK)
                    return st;
            }
        }
        if (!check_int && last_write != UINT32_MAX)
            c->idx->op_info[tx->first_op + last_write] |= PSI_OI_FINAL_WRITE;
        g = e;
    }
    return PSI_OK;
}

static uint32_t lookup_writer(const index_ctx *c, const psi_op *op)
{
    return psi_index_writer(c->idx, op->key, op->value);
}

uint32_t psi_index_writer(const psi_index *idx, uint32_t key, uint64_t value)
{
    if (key >= idx->n_keys)
        return PSI_SRC_NONE;
    /* The last write of the value: the first position whose value is
     * larger, minus one. */
    uint32_t lo = idx->w_first[key], hi = idx->w_first[key + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (idx->w_val[mid] <= value)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == idx->w_first[key] || idx->w_val[lo - 1] != value)
        return PSI_SRC_NONE;
    return idx->w_op[lo - 1];
}

/* Every element of a list-append read but the last (which is the read's
 * value, resolved like any read) must be a committed, final write. */
static psi_status check_list(index_ctx *c, uint32_t t, uint32_t o)
{
    uint32_t len;
    const uint64_t *vals = psi_history_list(c->h, o, &len);
    for (uint32_t i = 0; i + 1 < len; i++) {
        psi_op probe = c->h->ops[o];
        probe.value = vals[i];
        uint32_t w = lookup_writer(c, &probe);
        /* With a repeated value, any committed append by another
         * transaction explains the element. */
        /* prev_dup indexes by op: never call it with PSI_SRC_NONE (an
         * element no one wrote). */
        for (uint32_t v = w == PSI_SRC_NONE ? PSI_SRC_NONE : prev_dup(c->idx, w); v != PSI_SRC_NONE;
             v = prev_dup(c->idx, v)) {
            uint32_t vt = c->idx->op_txn[v];
            if (vt != t && c->h->txns[vt].status == PSI_TXN_COMMITTED)
                w = v;
        }
        psi_anomaly a = {.txn = t, .op = o, .other_txn = PSI_SRC_NONE, .other_op = PSI_SRC_NONE};
        if (w == PSI_SRC_NONE) {
            a.kind = PSI_ANOM_UNWRITTEN;
        } else {
            uint32_t wt = c->idx->op_txn[w];
            a.other_txn = wt;
            a.other_op = w;
            if (wt == t)
                a.kind = PSI_ANOM_INT;
            else if (c->h->txns[wt].status != PSI_TXN_COMMITTED)
                a.kind = PSI_ANOM_G1A;
            else
                continue; /* appends are not overwrites: any committed append is fine */
        }
        psi_status st = psi_index_add_anomaly(c, a);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

/* Whether the format's written 0 is the initial value (EDN's initial
 * value is nil, Cobra's a marker: a written 0 there is an ordinary value). */
static bool zero_is_initial(const psi_history *h)
{
    return !psi_format_is_jepsen(h->format) && h->format != PSI_FMT_COBRA;
}

/* Why write w cannot be what transaction t read (an anomaly kind), or -1
 * when it can. */
static int invalid_source(const index_ctx *c, uint32_t t, uint32_t w)
{
    /* One byte of the writer's (PSI_OI_LIVE marks the ops of committed
     * transactions before pass 6) instead of two dependent loads through
     * op_txn and txns: on large histories those were cache misses per read. */
    const psi_txn *tx = &c->h->txns[t];
    uint8_t info = c->idx->op_info[w];
    assert(((info & PSI_OI_LIVE) != 0) ==
           (c->h->txns[c->idx->op_txn[w]].status == PSI_TXN_COMMITTED));
    if (w - tx->first_op < tx->n_ops)
        return PSI_ANOM_INT; /* observed its own later write */
    if (!(info & PSI_OI_LIVE))
        return PSI_ANOM_G1A;
    if (!(info & PSI_OI_FINAL_WRITE))
        return PSI_ANOM_G1B;
    return -1;
}

/* The candidates of read o (transaction t) whose (key, value) has
 * several writes, or whose initial value someone also wrote: returns
 * PSI_OK and sets *src to the one writer left (or PSI_SRC_INIT), or to
 * PSI_SRC_NONE after recording a choice in idx->amb. *bad gets an anomaly
 * kind (and *bad_w its write) when no candidate is left at all. */
static psi_status choose_sources(index_ctx *c, uint32_t t, uint32_t o, uint32_t last, bool init,
                                 uint32_t *src, int *bad, uint32_t *bad_w)
{
    psi_index *idx = c->idx;
    const psi_txn *rt = &c->h->txns[t];
    uint64_t first = idx->n_amb_cand;
    uint32_t n = 0, same = PSI_SRC_NONE, later = PSI_SRC_NONE, same_pos = 0;
    *bad = -1;
    *bad_w = PSI_SRC_NONE;
    const psi_dup_rec *chain = psi_index_dup_chain(c, last);
    if (!chain)
        return psi_diag_nomem(c->d, "recording candidate writers");
    for (const psi_dup_rec *cr = chain; cr->w != PSI_SRC_NONE; cr++) {
        uint32_t w = cr->w;
        int why = psi_dup_invalid(cr, rt);
        assert(why == invalid_source(c, t, w));
        if (why >= 0) {
            if (*bad < 0) {
                *bad = why;
                *bad_w = w;
            }
            continue;
        }
        if (cr->session == rt->session) {
            /* Later in the session: the WR edge would close a cycle with
             * SO. Earlier: only the last such writer, which overwrites the
             * others (and the initial value) before the read. */
            if (cr->pos > rt->pos)
                later = w;
            else if (same == PSI_SRC_NONE || cr->pos > same_pos)
                same = w, same_pos = cr->pos;
            continue;
        }
        if (!psi_grow((void **)&idx->amb_cand, &c->cap_amb_cand, (size_t)first + n + 1,
                      sizeof *idx->amb_cand))
            return psi_diag_nomem(c->d, "recording candidate writers");
        idx->amb_cand[first + n++] = w;
    }
    if (same != PSI_SRC_NONE || init) {
        if (!psi_grow((void **)&idx->amb_cand, &c->cap_amb_cand, (size_t)first + n + 1,
                      sizeof *idx->amb_cand))
            return psi_diag_nomem(c->d, "recording candidate writers");
        idx->amb_cand[first + n++] = same != PSI_SRC_NONE ? same : PSI_SRC_INIT;
    }
    if (n == 0) {
        /* Nothing a serialization allows: a later writer of the session
         * leaves the cycle to the graph, as a unique value would. */
        *src = later;
        if (later != PSI_SRC_NONE)
            *bad = -1;
        return PSI_OK;
    }
    *bad = -1;
    if (n == 1) {
        *src = idx->amb_cand[first];
        return PSI_OK;
    }
    /* Chained in reverse write order: ascending op order, PSI_SRC_INIT last. */
    for (uint32_t i = 0; i < n / 2; i++) {
        uint32_t tmp = idx->amb_cand[first + i];
        idx->amb_cand[first + i] = idx->amb_cand[first + n - 1 - i];
        idx->amb_cand[first + n - 1 - i] = tmp;
    }
    if (same != PSI_SRC_NONE) {
        /* same was appended last but belongs in op order. */
        uint32_t *a = idx->amb_cand + first;
        uint32_t s0 = a[0];
        uint32_t i = 0;
        while (i + 1 < n && a[i + 1] < s0) {
            a[i] = a[i + 1];
            i++;
        }
        a[i] = s0;
    } else if (init) {
        uint32_t *a = idx->amb_cand + first;
        for (uint32_t i = 0; i + 1 < n; i++)
            a[i] = a[i + 1];
        a[n - 1] = PSI_SRC_INIT;
    }
    if (!psi_grow((void **)&idx->amb, &c->cap_amb, (size_t)idx->n_amb + 1, sizeof *idx->amb))
        return psi_diag_nomem(c->d, "recording candidate writers");
    idx->amb[idx->n_amb++] =
        (psi_amb_read){.op = o, .txn = t, .key = c->h->ops[o].key, .n = n, .first = first};
    idx->n_amb_cand = first + n;
    idx->op_info[o] |= PSI_OI_AMBIG;
    *src = PSI_SRC_NONE;
    return PSI_OK;
}

/* Pass 5: the writer of every external read of a committed transaction
 * that looks one up (not a read of the initial value where a written 0 is
 * an ordinary value), by merging the reads, radix-sorted by (key, value),
 * with the sorted write map: read_src[o] gets the last write of the read's
 * value or PSI_SRC_NONE, for pass 6 to resolve. Needs PSI_OI_LIVE on the
 * ops of committed transactions (their statuses are final). */
static psi_status join_reads(index_ctx *c)
{
    const psi_history *h = c->h;
    psi_index *idx = c->idx;
    bool zero_init = zero_is_initial(h);
    size_t n = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint8_t info = idx->op_info[o];
        n += (info & PSI_OI_LIVE) && (info & PSI_OI_EXTERNAL_READ) &&
             (zero_init || !(h->ops[o].flags & PSI_OPF_INIT));
    }
    uint32_t *first = malloc(((size_t)h->n_keys + 1) * sizeof *first);
    if (!first || !kv_alloc(c, n)) {
        free(first);
        return psi_diag_nomem(c->d, "resolving reads");
    }
    psi_kv *a = c->kv_a;
    n = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        uint8_t info = idx->op_info[o];
        const psi_op *op = &h->ops[o];
        if ((info & PSI_OI_LIVE) && (info & PSI_OI_EXTERNAL_READ) &&
            (zero_init || !(op->flags & PSI_OPF_INIT)))
            a[n++] = (psi_kv){.value = op->value, .key = op->key, .op = o};
    }
    const psi_kv *r = psi_kv_sort(a, c->kv_tmp, n, h->n_keys, first);
    /* Both sides are sorted by (key, value): one merge. j runs over the
     * writes; a run of equal (key, value) writes answers with its last. */
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t key = r[i].key;
        uint64_t v = r[i].value;
        if (j < idx->w_first[key])
            j = idx->w_first[key];
        uint32_t end = idx->w_first[key + 1];
        while (j < end && idx->w_val[j] < v)
            j++;
        uint32_t w = PSI_SRC_NONE;
        if (j < end && idx->w_val[j] == v) {
            size_t e = j;
            while (e + 1 < end && idx->w_val[e + 1] == v)
                e++;
            w = idx->w_op[e];
        }
        idx->read_src[r[i].op] = w;
    }
    free(first);
    kv_free(c);
    return PSI_OK;
}

/* Pass 5: resolve external reads of committed transactions. */
static psi_status resolve_reads(index_ctx *c, uint32_t t)
{
    psi_history *h = c->h;
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        const psi_op *op = &h->ops[o];
        if (!(c->idx->op_info[o] & PSI_OI_EXTERNAL_READ))
            continue;
        if (op->flags & PSI_OPF_LIST) {
            psi_status st = check_list(c, t, o);
            if (st != PSI_OK)
                return st;
        }
        bool init = (op->flags & PSI_OPF_INIT) != 0;
        /* Pass 5 left the read's writer (the last of its value) in
         * read_src; from here on read_src is the resolved source. */
        uint32_t w = c->idx->read_src[o];
        c->idx->read_src[o] = PSI_SRC_NONE;
        assert(w == ((!init || zero_is_initial(h)) ? lookup_writer(c, op) : PSI_SRC_NONE));
        if (init && w == PSI_SRC_NONE) {
            c->idx->read_src[o] = PSI_SRC_INIT;
            continue;
        }
        psi_anomaly a = {.txn = t, .op = o, .other_txn = PSI_SRC_NONE, .other_op = PSI_SRC_NONE};
        if (w == PSI_SRC_NONE) {
            a.kind = PSI_ANOM_UNWRITTEN;
        } else if (init || prev_dup(c->idx, w) != PSI_SRC_NONE) {
            /* A choice of writers (hyper-polygraph). */
            uint32_t src = PSI_SRC_NONE, bad_w = PSI_SRC_NONE;
            int bad;
            psi_status st = choose_sources(c, t, o, w, init, &src, &bad, &bad_w);
            if (st != PSI_OK)
                return st;
            if (bad < 0) {
                c->idx->read_src[o] = src;
                continue;
            }
            a.kind = (uint8_t)bad;
            a.other_txn = c->idx->op_txn[bad_w];
            a.other_op = bad_w;
        } else {
            int bad = invalid_source(c, t, w);
            if (bad < 0) {
                c->idx->read_src[o] = w;
                continue;
            }
            a.other_txn = c->idx->op_txn[w];
            a.other_op = w;
            a.kind = (uint8_t)bad;
        }
        psi_status st = psi_index_add_anomaly(c, a);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

/* Pass 6: list-append reads of one key must be prefixes of one another
 * (a list read shows the whole version order up to it), so every external
 * committed read of a key is compared with the longest. Internal reads
 * (after the transaction's own appends) show its own snapshot and are left
 * out. */
typedef struct list_ref {
    uint32_t key, len, i; /* i: index into h->list_reads */
} list_ref;

static int list_ref_cmp(const void *a, const void *b)
{
    const list_ref *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->len != y->len)
        return x->len > y->len ? -1 : 1; /* longest first */
    return (x->i > y->i) - (x->i < y->i);
}

static psi_status check_list_orders(index_ctx *c)
{
    const psi_history *h = c->h;
    list_ref *refs = malloc((h->n_list_reads ? h->n_list_reads : 1) * sizeof *refs);
    if (!refs)
        return psi_diag_nomem(c->d, "comparing list reads");
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *lr = &h->list_reads[i];
        uint8_t info = c->idx->op_info[lr->op];
        /* repeat reads show version orders too (RC and PL-2 take them as
         * read events of their own) */
        if ((info & PSI_OI_LIVE) && (info & (PSI_OI_EXTERNAL_READ | PSI_OI_REPEAT_READ)))
            refs[n++] = (list_ref){.key = h->ops[lr->op].key, .len = lr->len, .i = i};
    }
    qsort(refs, n, sizeof *refs, list_ref_cmp);
    psi_status st = PSI_OK;
    for (uint32_t a = 0; a < n && st == PSI_OK;) {
        uint32_t e = a + 1;
        while (e < n && refs[e].key == refs[a].key)
            e++;
        const psi_list_read *top = &h->list_reads[refs[a].i];
        const uint64_t *tv = h->list_vals + top->first;
        for (uint32_t k = a + 1; k < e && st == PSI_OK; k++) {
            const psi_list_read *lr = &h->list_reads[refs[k].i];
            if (lr->len && memcmp(h->list_vals + lr->first, tv, lr->len * sizeof *tv) != 0)
                st = psi_index_add_anomaly(c, (psi_anomaly){.kind = PSI_ANOM_INCOMPATIBLE_ORDER,
                                                            .txn = c->idx->op_txn[lr->op],
                                                            .op = lr->op,
                                                            .other_txn = c->idx->op_txn[top->op],
                                                            .other_op = top->op});
        }
        a = e;
    }
    free(refs);
    return st;
}

static int amb_by_op(const void *a, const void *b)
{
    uint32_t x = ((const psi_amb_read *)a)->op, y = ((const psi_amb_read *)b)->op;
    return x < y ? -1 : x > y;
}

static psi_status build_once(psi_history *h, psi_index *idx, const uint8_t *never, uint8_t *dead,
                             uint32_t *n_dead, bool per_read, psi_diag *d)
{
    memset(idx, 0, sizeof *idx);
    index_ctx c = {.h = h, .idx = idx, .d = d, .never = never, .per_read = per_read};
    size_t n = h->n_ops ? h->n_ops : 1;
    /* The write map first: its sort's two buffers of every write are the
     * largest scratch here, and the per-operation arrays below (9 bytes
     * an operation) need not be held alongside them. */
    psi_status st = build_write_map(&c);
    if (st != PSI_OK)
        goto out;
    idx->op_txn = malloc(n * sizeof *idx->op_txn);
    idx->read_src = malloc(n * sizeof *idx->read_src);
    idx->op_info = calloc(n, sizeof *idx->op_info);
    if (!idx->op_txn || !idx->read_src || !idx->op_info) {
        st = psi_diag_nomem(d, "indexing operations");
        goto out;
    }
    /* Arrays of a word per operation are hundreds of megabytes at 10^7
     * operations: huge pages save a page fault per 4 KiB and most of the
     * TLB misses of the random accesses below. */
    psi_hint_huge(idx->op_txn, n * sizeof *idx->op_txn);
    psi_hint_huge(idx->read_src, n * sizeof *idx->read_src);
    psi_hint_huge(idx->op_info, n * sizeof *idx->op_info);
    for (uint32_t t = 1; t < h->n_txns; t++)
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++)
            idx->op_txn[h->txns[t].first_op + i] = t;
    for (uint32_t o = 0; o < h->n_ops; o++)
        idx->read_src[o] = PSI_SRC_NONE;

    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK; t++)
        st = scan_txn(&c, t, false);
    if (st == PSI_OK)
        st = psi_index_settle_unknown(&c);
    /* Statuses are final: mark the ops of committed transactions (what
     * invalid_source and the join read). */
    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK; t++)
        if (h->txns[t].status == PSI_TXN_COMMITTED)
            for (uint32_t i = 0; i < h->txns[t].n_ops; i++)
                idx->op_info[h->txns[t].first_op + i] |= PSI_OI_LIVE;
    if (st == PSI_OK)
        st = join_reads(&c);
    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK; t++) {
        switch (h->txns[t].status) {
        case PSI_TXN_COMMITTED:
            idx->n_committed += !psi_index_optional(idx, t);
            st = scan_txn(&c, t, true);
            if (st == PSI_OK)
                st = resolve_reads(&c, t);
            break;
        case PSI_TXN_ABORTED:
            idx->n_aborted++;
            break;
        case PSI_TXN_INITIAL:
            idx->init_txn = t;
            break;
        default:
            idx->n_unknown++;
            break;
        }
    }

    /* Appended transaction by transaction, and a built history's
     * operations need not be in transaction order: put idx->amb in
     * operation order, which lookups by op (binary searches) rely on. */
    for (uint32_t a = 1; st == PSI_OK && a < idx->n_amb; a++)
        if (idx->amb[a - 1].op > idx->amb[a].op) {
            qsort(idx->amb, idx->n_amb, sizeof *idx->amb, amb_by_op);
            break;
        }
    if (st == PSI_OK && h->n_list_reads)
        st = check_list_orders(&c);
    *n_dead = 0;
    if (st == PSI_OK && idx->opt) {
        uint32_t before = idx->n_opt;
        st = psi_index_settle_optional(&c, dead, n_dead);
        idx->n_committed += before - idx->n_opt;
        if (st == PSI_OK && !idx->n_opt) {
            free(idx->opt);
            idx->opt = NULL;
        }
    }

out:
    /* The write map stays with the index (psi_index_writer). */
    free(c.order);
    kv_free(&c);
    free(c.opt_anom);
    free(c.chain_at);
    free(c.chains);
    if (st != PSI_OK)
        psi_index_free(idx);
    return st;
}

static psi_status build(psi_history *h, psi_index *idx, bool per_read, psi_diag *d)
{
    uint32_t *unknown = NULL, n_unknown = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (h->txns[t].open_outcome) {
            /* an earlier build's optional transaction: recorded unknown */
            h->txns[t].status = PSI_TXN_UNKNOWN;
            h->txns[t].open_outcome = 0;
        }
        n_unknown += h->txns[t].status == PSI_TXN_UNKNOWN;
    }
    uint8_t *dead = NULL;
    if (n_unknown) {
        unknown = malloc(n_unknown * sizeof *unknown);
        dead = calloc(h->n_txns, 1);
        if (!unknown || !dead) {
            free(unknown);
            free(dead);
            memset(idx, 0, sizeof *idx);
            return psi_diag_nomem(d, "settling transactions of unknown outcome");
        }
        n_unknown = 0;
        for (uint32_t t = 1; t < h->n_txns; t++)
            if (h->txns[t].status == PSI_TXN_UNKNOWN)
                unknown[n_unknown++] = t;
    }
    /* An optional transaction whose own reads have no candidate even with
     * every optional one committed can never commit: build again with it
     * absent (its writes are then no one's candidates, which may leave
     * others so). Each round leaves one more out; histories without
     * such transactions are built once. */
    psi_status st;
    for (;;) {
        uint32_t n_dead = 0;
        st = build_once(h, idx, dead, dead, &n_dead, per_read, d);
        if (st != PSI_OK || !n_dead)
            break;
        psi_index_free(idx);
        for (uint32_t i = 0; i < n_unknown; i++) {
            h->txns[unknown[i]].status = PSI_TXN_UNKNOWN;
            h->txns[unknown[i]].open_outcome = 0;
        }
    }
    free(unknown);
    free(dead);
    return st;
}

psi_status psi_index_build(psi_history *h, psi_index *idx, psi_diag *d)
{
    return build(h, idx, false, d);
}

psi_status psi_index_build_per_read(psi_history *h, psi_index *idx, psi_diag *d)
{
    return build(h, idx, true, d);
}

size_t psi_index_allow_nonrepeatable(psi_index *idx)
{
    size_t kept = 0;
    for (size_t i = 0; i < idx->n_anomalies; i++)
        if (!idx->anomalies[i].nonrepeatable)
            idx->anomalies[kept++] = idx->anomalies[i];
    size_t dropped = idx->n_anomalies - kept;
    idx->n_anomalies = kept;
    return dropped;
}

uint32_t psi_index_repeat_src(const psi_history *h, const psi_index *idx, uint32_t op)
{
    assert(idx->op_info[op] & PSI_OI_REPEAT_READ);
    const psi_op *o = &h->ops[op];
    if (o->flags & PSI_OPF_INIT)
        return PSI_SRC_INIT;
    return psi_index_writer(idx, o->key, o->value);
}

void psi_index_release_writes(psi_index *idx)
{
    free(idx->w_first);
    free(idx->w_val);
    free(idx->w_op);
    idx->w_first = NULL;
    idx->w_val = NULL;
    idx->w_op = NULL;
    idx->n_keys = 0;
    idx->n_writes = 0;
}

void psi_index_free(psi_index *idx)
{
    psi_index_release_writes(idx);
    free(idx->op_txn);
    free(idx->read_src);
    free(idx->op_info);
    free(idx->anomalies);
    free(idx->dup_prev);
    free(idx->amb);
    free(idx->amb_cand);
    free(idx->opt);
    memset(idx, 0, sizeof *idx);
}

const char *psi_anomaly_name(psi_anomaly_kind k)
{
    switch (k) {
    case PSI_ANOM_INT:
        return "internal";
    case PSI_ANOM_G1A:
        return "G1a";
    case PSI_ANOM_G1B:
        return "G1b";
    case PSI_ANOM_UNWRITTEN:
        return "unwritten read";
    case PSI_ANOM_INCOMPATIBLE_ORDER:
        return "incompatible order";
    }
    return "?";
}

const char *psi_anomaly_title(psi_anomaly_kind k)
{
    switch (k) {
    case PSI_ANOM_INT:
        return "internal inconsistency";
    case PSI_ANOM_G1A:
        return "aborted read";
    case PSI_ANOM_G1B:
        return "intermediate read";
    case PSI_ANOM_UNWRITTEN:
        return "read of a value no transaction wrote";
    case PSI_ANOM_INCOMPATIBLE_ORDER:
        return "two reads of a list that are not prefixes of one another";
    }
    return "?";
}
