/* Validation and per-operation facts (see index.h).
 *
 * Passes: (1) op -> txn; (2) the write map (key, value) -> write op, which
 * refuses a value written twice; (3) per transaction, group its ops by key
 * in program order to find external reads and final writes; (4) settle
 * transactions of unknown outcome from the reads that observe them;
 * (5) resolve every external read of a committed transaction and record the
 * graph-free anomalies, including INT inside transactions; (6) compare the
 * list-append reads of each key (incompatible orders). */
#include "core/index.h"

#include "core/vec.h"

#include <Judy.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct index_ctx {
    psi_history *h;
    psi_index *idx;
    Pvoid_t *writes; /* [n_keys] JudyL: value -> write op + 1 */
    uint32_t *order; /* scratch: a txn's op offsets sorted by (key, position) */
    size_t cap_order;
    size_t cap_anomalies;
    psi_diag *d;
} index_ctx;

static psi_status add_anomaly(index_ctx *c, psi_anomaly a)
{
    psi_index *idx = c->idx;
    if (!psi_grow((void **)&idx->anomalies, &c->cap_anomalies, idx->n_anomalies + 1,
                  sizeof *idx->anomalies))
        return psi_diag_nomem(c->d, "recording anomalies");
    idx->anomalies[idx->n_anomalies++] = a;
    return PSI_OK;
}

static psi_status build_write_map(index_ctx *c)
{
    psi_history *h = c->h;
    c->writes = calloc(h->n_keys ? h->n_keys : 1, sizeof *c->writes);
    if (!c->writes)
        return psi_diag_nomem(c->d, "indexing writes");
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            uint32_t o = tx->first_op + i;
            const psi_op *op = &h->ops[o];
            if (op->kind != PSI_OP_WRITE)
                continue;
            Word_t *slot;
            JLI(slot, c->writes[op->key], (Word_t)op->value);
            if (slot == PJERR)
                return psi_diag_nomem(c->d, "indexing writes");
            if (*slot != 0) {
                uint32_t prev_op = (uint32_t)(*slot - 1);
                const psi_txn *p = &h->txns[c->idx->op_txn[prev_op]];
                const psi_session *ps = &h->sessions[p->session];
                const psi_session *ts = &h->sessions[tx->session];
                return psi_diag_set(
                    c->d, PSI_ERR_INPUT,
                    "%s: value %llu is written twice to key %llu: by transaction (%llu,%llu) "
                    "(at %llu, operation %u) and by transaction (%llu,%llu) (at %llu, "
                    "operation %u); values written to a key must be unique",
                    h->source, (unsigned long long)op->value, (unsigned long long)h->keys[op->key],
                    (unsigned long long)ps->id, (unsigned long long)p->id,
                    (unsigned long long)p->src, prev_op - p->first_op + 1,
                    (unsigned long long)ts->id, (unsigned long long)tx->id,
                    (unsigned long long)tx->src, i + 1);
            }
            *slot = (Word_t)o + 1;
        }
    }
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
        return add_anomaly(c, a);
    }
    uint32_t w = lookup_writer(c, op);
    if (w == PSI_SRC_NONE) {
        a.kind = PSI_ANOM_UNWRITTEN;
        a.other_txn = a.other_op = PSI_SRC_NONE;
        return add_anomaly(c, a);
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
    return add_anomaly(c, a);
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
            if (repeat && !(op->flags & PSI_OPF_LIST)) {
                st = resolve_repeat(c, t, tx->first_op + i, tx->first_op + cur);
                if (st != PSI_OK)
                    return st;
            } else {
                st = add_anomaly(c, (psi_anomaly){.kind = PSI_ANOM_INT,
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
    Word_t *slot;
    JLG(slot, c->writes[op->key], (Word_t)op->value);
    return slot ? (uint32_t)(*slot - 1) : PSI_SRC_NONE;
}

uint32_t psi_index_writer(const psi_index *idx, uint32_t key, uint64_t value)
{
    if (key >= idx->n_keys)
        return PSI_SRC_NONE;
    Word_t *slot;
    JLG(slot, idx->writes[key], (Word_t)value);
    return slot ? (uint32_t)(*slot - 1) : PSI_SRC_NONE;
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
        psi_status st = add_anomaly(c, a);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

/* Pass 4: committed reads promote the unknown transactions they observe. */
static psi_status settle_unknown(index_ctx *c)
{
    psi_history *h = c->h;
    uint32_t *stack = malloc((size_t)h->n_txns * sizeof *stack);
    if (!stack)
        return psi_diag_nomem(c->d, "settling transactions of unknown outcome");
    size_t sp = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].status == PSI_TXN_COMMITTED)
            stack[sp++] = t;
    while (sp) {
        uint32_t t = stack[--sp];
        const psi_txn *tx = &h->txns[t];
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            uint32_t o = tx->first_op + i;
            const psi_op *op = &h->ops[o];
            /* repeat reads are read events too (RC, PL-2): they settle
             * the writers they observe like first reads */
            if (!(c->idx->op_info[o] & (PSI_OI_EXTERNAL_READ | PSI_OI_REPEAT_READ)) ||
                (op->flags & PSI_OPF_INIT))
                continue;
            uint32_t w = lookup_writer(c, op);
            if (w == PSI_SRC_NONE)
                continue;
            uint32_t wt = c->idx->op_txn[w];
            if (h->txns[wt].status == PSI_TXN_UNKNOWN) {
                h->txns[wt].status = PSI_TXN_COMMITTED;
                c->idx->n_promoted++;
                stack[sp++] = wt; /* each txn is pushed at most once */
            }
        }
    }
    free(stack);
    return PSI_OK;
}

/* Pass 5: resolve external reads of committed transactions. */
static psi_status resolve_reads(index_ctx *c, uint32_t t)
{
    psi_history *h = c->h;
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        c->idx->op_info[o] |= PSI_OI_LIVE;
        const psi_op *op = &h->ops[o];
        if (!(c->idx->op_info[o] & PSI_OI_EXTERNAL_READ))
            continue;
        if (op->flags & PSI_OPF_LIST) {
            psi_status st = check_list(c, t, o);
            if (st != PSI_OK)
                return st;
        }
        if (op->flags & PSI_OPF_INIT) {
            c->idx->read_src[o] = PSI_SRC_INIT;
            continue;
        }
        uint32_t w = lookup_writer(c, op);
        psi_anomaly a = {.txn = t, .op = o, .other_txn = PSI_SRC_NONE, .other_op = PSI_SRC_NONE};
        if (w == PSI_SRC_NONE) {
            a.kind = PSI_ANOM_UNWRITTEN;
        } else {
            uint32_t wt = c->idx->op_txn[w];
            a.other_txn = wt;
            a.other_op = w;
            if (wt == t)
                a.kind = PSI_ANOM_INT; /* observed its own later write */
            else if (h->txns[wt].status != PSI_TXN_COMMITTED)
                a.kind = PSI_ANOM_G1A;
            else if (!(c->idx->op_info[w] & PSI_OI_FINAL_WRITE))
                a.kind = PSI_ANOM_G1B;
            else {
                c->idx->read_src[o] = w;
                continue;
            }
        }
        psi_status st = add_anomaly(c, a);
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
        if ((info & PSI_OI_LIVE) && (info & PSI_OI_EXTERNAL_READ))
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
                st = add_anomaly(c, (psi_anomaly){.kind = PSI_ANOM_INCOMPATIBLE_ORDER,
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

psi_status psi_index_build(psi_history *h, psi_index *idx, psi_diag *d)
{
    memset(idx, 0, sizeof *idx);
    index_ctx c = {.h = h, .idx = idx, .d = d};
    size_t n = h->n_ops ? h->n_ops : 1;
    idx->op_txn = malloc(n * sizeof *idx->op_txn);
    idx->read_src = malloc(n * sizeof *idx->read_src);
    idx->op_info = calloc(n, sizeof *idx->op_info);
    psi_status st = PSI_OK;
    if (!idx->op_txn || !idx->read_src || !idx->op_info) {
        st = psi_diag_nomem(d, "indexing operations");
        goto out;
    }
    for (uint32_t t = 1; t < h->n_txns; t++)
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++)
            idx->op_txn[h->txns[t].first_op + i] = t;
    for (uint32_t o = 0; o < h->n_ops; o++)
        idx->read_src[o] = PSI_SRC_NONE;

    if ((st = build_write_map(&c)) != PSI_OK)
        goto out;
    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK; t++)
        st = scan_txn(&c, t, false);
    if (st == PSI_OK)
        st = settle_unknown(&c);
    for (uint32_t t = 1; t < h->n_txns && st == PSI_OK; t++) {
        switch (h->txns[t].status) {
        case PSI_TXN_COMMITTED:
            idx->n_committed++;
            st = scan_txn(&c, t, true);
            if (st == PSI_OK)
                st = resolve_reads(&c, t);
            break;
        case PSI_TXN_ABORTED:
            idx->n_aborted++;
            break;
        default:
            idx->n_unknown++;
            break;
        }
    }

    if (st == PSI_OK && h->n_list_reads)
        st = check_list_orders(&c);

out:
    /* The write map stays with the index (psi_index_writer). */
    idx->writes = c.writes;
    idx->n_keys = c.writes ? h->n_keys : 0;
    free(c.order);
    if (st != PSI_OK)
        psi_index_free(idx);
    return st;
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
    if (idx->writes) {
        for (uint32_t k = 0; k < idx->n_keys; k++) {
            JudyLFreeArray(&idx->writes[k], PJE0); /* not JLFA: clang -Wsign-compare */
        }
        free(idx->writes);
    }
    idx->writes = NULL;
    idx->n_keys = 0;
}

void psi_index_free(psi_index *idx)
{
    psi_index_release_writes(idx);
    free(idx->op_txn);
    free(idx->read_src);
    free(idx->op_info);
    free(idx->anomalies);
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
