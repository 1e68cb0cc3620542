/* Serial orders of sub-histories under SER (see ser_order.h). */
#include "interpret/ser_order.h"

#include "core/vec.h"
#include "interpret/local.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* An external read of a committed transaction: what it returned and who
 * it may have read it from. */
typedef struct psi_serord_read {
    uint64_t value;
    uint32_t key;
    /* RD_WRITER: its one writer's transaction; RD_CHOICE: its index in
     * idx->amb; RD_INIT: the initial value only. */
    uint32_t src;
    uint8_t kind;
    bool init_ok; /* no write before it is a serial execution's answer */
} psi_serord_read;

/* A transaction's final write of a key: what other transactions see. */
typedef struct psi_serord_write {
    uint64_t value;
    uint32_t key;
} psi_serord_write;

enum { RD_INIT, RD_WRITER, RD_CHOICE };

static bool committed(const psi_history *h, uint32_t t)
{
    return t != PSI_INIT_TXN && h->txns[t].status == PSI_TXN_COMMITTED;
}

/* What the replay cannot model (ser_order.h): false then. */
static bool supported(const psi_history *h, const psi_index *idx)
{
    if (h->initial_state == PSI_INITIAL_RECORDED || idx->init_txn || idx->opt || idx->n_unknown ||
        h->n_list_reads || !idx->op_info)
        return false;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        if (h->ops[o].flags & PSI_OPF_LIST)
            return false;
        if (!(idx->op_info[o] & PSI_OI_EXTERNAL_READ) || !committed(h, idx->op_txn[o]))
            continue;
        if (idx->op_info[o] & PSI_OI_AMBIG) {
            if (psi_amb_of(idx, o) == UINT32_MAX)
                return false;
        } else if (idx->read_src[o] != PSI_SRC_INIT &&
                   (idx->read_src[o] >= PSI_SRC_INIT ||
                    !committed(h, idx->op_txn[idx->read_src[o]]))) {
            return false;
        }
    }
    return true;
}

psi_status psi_serord_init(psi_serord *so, const psi_history *h, const psi_index *idx, bool *usable,
                           psi_diag *d)
{
    memset(so, 0, sizeof *so);
    *usable = supported(h, idx);
    if (!*usable)
        return PSI_OK;
    so->h = h;
    so->idx = idx;
    uint32_t nt = h->n_txns;
    so->rd_off = calloc((size_t)nt + 1, sizeof *so->rd_off);
    so->wr_off = calloc((size_t)nt + 1, sizeof *so->wr_off);
    size_t n_rd = 0, n_wr = 0;
    for (uint32_t o = 0; o < h->n_ops; o++) {
        if (!committed(h, idx->op_txn[o]))
            continue;
        n_rd += (idx->op_info[o] & PSI_OI_EXTERNAL_READ) != 0;
        n_wr += (idx->op_info[o] & PSI_OI_FINAL_WRITE) != 0;
    }
    so->rd = malloc((n_rd ? n_rd : 1) * sizeof *so->rd);
    so->wr = malloc((n_wr ? n_wr : 1) * sizeof *so->wr);
    so->in = calloc(nt ? nt : 1, 1);
    so->rev_off = calloc((size_t)nt + 2, sizeof *so->rev_off);
    so->k_stamp = calloc(h->n_keys ? h->n_keys : 1, sizeof *so->k_stamp);
    so->k_at = malloc((h->n_keys ? h->n_keys : 1) * sizeof *so->k_at);
    so->k_val = malloc((h->n_keys ? h->n_keys : 1) * sizeof *so->k_val);
    so->k_txn = malloc((h->n_keys ? h->n_keys : 1) * sizeof *so->k_txn);
    so->t_stamp = calloc(h->n_keys ? h->n_keys : 1, sizeof *so->t_stamp);
    so->t_how = malloc(h->n_keys ? h->n_keys : 1);
    so->t_val = malloc((h->n_keys ? h->n_keys : 1) * sizeof *so->t_val);
    so->s_stamp = calloc(h->n_sessions ? h->n_sessions : 1, sizeof *so->s_stamp);
    so->s_pos = malloc((h->n_sessions ? h->n_sessions : 1) * sizeof *so->s_pos);
    if (!so->rd_off || !so->wr_off || !so->rd || !so->wr || !so->in || !so->rev_off ||
        !so->k_stamp || !so->k_at || !so->k_val || !so->k_txn || !so->t_stamp || !so->t_how ||
        !so->t_val || !so->s_stamp || !so->s_pos) {
        psi_serord_free(so);
        *usable = false;
        return psi_diag_nomem(d, "shrinking a counterexample");
    }
    n_rd = n_wr = 0;
    for (uint32_t t = 0; t < nt; t++) {
        so->rd_off[t] = (uint32_t)n_rd;
        so->wr_off[t] = (uint32_t)n_wr;
        if (!committed(h, t))
            continue;
        const psi_txn *tx = &h->txns[t];
        for (uint32_t k = 0; k < tx->n_ops; k++) {
            uint32_t o = tx->first_op + k;
            const psi_op *op = &h->ops[o];
            if (idx->op_info[o] & PSI_OI_FINAL_WRITE)
                so->wr[n_wr++] = (psi_serord_write){op->value, op->key};
            if (!(idx->op_info[o] & PSI_OI_EXTERNAL_READ))
                continue;
            psi_serord_read r = {.value = op->value, .key = op->key};
            if (idx->op_info[o] & PSI_OI_AMBIG) {
                uint32_t a = psi_amb_of(idx, o);
                const psi_amb_read *ar = &idx->amb[a];
                r.kind = RD_CHOICE;
                r.src = a;
                /* candidates are sorted with the initial value last */
                r.init_ok = idx->amb_cand[ar->first + ar->n - 1] == PSI_SRC_INIT;
            } else if (idx->read_src[o] == PSI_SRC_INIT) {
                r.kind = RD_INIT;
                r.init_ok = true;
            } else {
                r.kind = RD_WRITER;
                r.src = idx->op_txn[idx->read_src[o]];
            }
            so->rd[n_rd++] = r;
        }
    }
    so->rd_off[nt] = (uint32_t)n_rd;
    so->wr_off[nt] = (uint32_t)n_wr;
    /* Each read's writers it may have observed, by writer (CSR), and how
     * many of them the set lacks: all, while it is empty. */
    so->missing = malloc((n_rd ? n_rd : 1) * sizeof *so->missing);
    if (!so->missing)
        goto nomem;
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n_rd; i++) {
            const psi_serord_read *r = &so->rd[i];
            uint32_t nd = 0;
            if (r->kind == RD_WRITER) {
                nd = 1;
                if (pass)
                    so->rev[so->rev_off[r->src + 1]++] = (uint32_t)i;
                else
                    so->rev_off[r->src + 2]++;
            } else if (r->kind == RD_CHOICE) {
                const psi_amb_read *a = &idx->amb[r->src];
                for (uint32_t j = 0; j < a->n; j++) {
                    uint32_t c = idx->amb_cand[a->first + j];
                    if (c == PSI_SRC_INIT)
                        continue;
                    uint32_t w = idx->op_txn[c];
                    nd++;
                    if (pass)
                        so->rev[so->rev_off[w + 1]++] = (uint32_t)i;
                    else
                        so->rev_off[w + 2]++;
                }
            }
            so->missing[i] = nd;
        }
        if (pass)
            break;
        for (uint32_t t = 0; t < nt; t++)
            so->rev_off[t + 2] += so->rev_off[t + 1];
        so->rev = malloc((so->rev_off[nt + 1] ? so->rev_off[nt + 1] : 1) * sizeof *so->rev);
        if (!so->rev)
            goto nomem;
    }
    return PSI_OK;
nomem:
    psi_serord_free(so);
    *usable = false;
    return psi_diag_nomem(d, "shrinking a counterexample");
}

void psi_serord_add(psi_serord *so, uint32_t t)
{
    assert(committed(so->h, t) && !so->in[t]);
    so->in[t] = 1;
    so->n_in++;
    for (uint32_t i = so->rev_off[t]; i < so->rev_off[t + 1]; i++)
        so->missing[so->rev[i]]--;
}

void psi_serord_remove(psi_serord *so, uint32_t t)
{
    assert(so->in[t]);
    so->in[t] = 0;
    so->n_in--;
    for (uint32_t i = so->rev_off[t]; i < so->rev_off[t + 1]; i++)
        so->missing[so->rev[i]]++;
}

void psi_serord_free(psi_serord *so)
{
    free(so->rd_off);
    free(so->wr_off);
    free(so->rd);
    free(so->wr);
    free(so->in);
    free(so->rev_off);
    free(so->rev);
    free(so->missing);
    free(so->k_stamp);
    free(so->k_at);
    free(so->k_val);
    free(so->k_txn);
    free(so->t_stamp);
    free(so->t_how);
    free(so->t_val);
    free(so->s_stamp);
    free(so->s_pos);
    free(so->gap);
    memset(so, 0, sizeof *so);
}

/* A fresh stamp for the per-key and per-session state (cleared on wrap). */
static void new_replay(psi_serord *so)
{
    if (++so->k_cur == 0) {
        memset(so->k_stamp, 0, so->h->n_keys * sizeof *so->k_stamp);
        memset(so->s_stamp, 0, so->h->n_sessions * sizeof *so->s_stamp);
        so->k_cur = 1;
    }
}

/* Is read r in the sub-history over the set: is every writer it may
 * have observed in it (sub_check.c, drop_read)? */
static bool kept(const psi_serord *so, const psi_serord_read *r)
{
    return so->missing[r - so->rd] == 0;
}

/* Does the last write replayed (or the initial value) answer read r? */
static bool answered(const psi_serord *so, const psi_serord_read *r)
{
    if (so->k_stamp[r->key] != so->k_cur)
        return r->init_ok;
    return so->k_val[r->key] == r->value;
}

static void apply_writes(psi_serord *so, uint32_t t, uint32_t at)
{
    for (uint32_t i = so->wr_off[t]; i < so->wr_off[t + 1]; i++) {
        uint32_t k = so->wr[i].key;
        so->k_stamp[k] = so->k_cur;
        so->k_at[k] = at;
        so->k_txn[k] = t;
        so->k_val[k] = so->wr[i].value;
    }
}

/* Session order: t comes after the last of its session replayed. */
static bool session_next(psi_serord *so, uint32_t t)
{
    const psi_txn *tx = &so->h->txns[t];
    if (so->s_stamp[tx->session] == so->k_cur && so->s_pos[tx->session] >= tx->pos)
        return false;
    so->s_stamp[tx->session] = so->k_cur;
    so->s_pos[tx->session] = tx->pos;
    return true;
}

bool psi_serord_valid(psi_serord *so, const uint32_t *order, uint32_t n)
{
    if (so->n_in != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!so->in[order[i]])
            return false; /* not the set (or a member twice) */
    new_replay(so);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = order[i];
        if (!session_next(so, t))
            return false;
        for (uint32_t j = so->rd_off[t]; j < so->rd_off[t + 1]; j++)
            if (kept(so, &so->rd[j]) && !answered(so, &so->rd[j]))
                return false;
        apply_writes(so, t, i);
    }
    return true;
}

/* Forbids the places lo..hi (inclusive; a place g puts t before
 * order[g]) in the difference counts so->gap. */
static void forbid(psi_serord *so, uint32_t lo, uint32_t hi)
{
    if (lo > hi)
        return;
    so->gap[lo]++;
    so->gap[hi + 1]--;
}

/* Marks transaction u as a cause (insert_causes), once. */
static void cause(psi_serord_causes *cz, uint32_t u)
{
    if (cz && u != PSI_INIT_TXN && !cz->flag[u]) {
        cz->flag[u] = 1;
        cz->list[cz->n++] = u;
    }
}

/* Marks the writers read r may have observed and its reader u. */
static void cause_read(const psi_serord *so, psi_serord_causes *cz, const psi_serord_read *r,
                       uint32_t u)
{
    if (!cz)
        return;
    cause(cz, u);
    if (r->kind == RD_WRITER) {
        cause(cz, r->src);
    } else if (r->kind == RD_CHOICE) {
        const psi_amb_read *a = &so->idx->amb[r->src];
        for (uint32_t j = 0; j < a->n; j++)
            if (so->idx->amb_cand[a->first + j] != PSI_SRC_INIT)
                cause(cz, so->idx->op_txn[so->idx->amb_cand[a->first + j]]);
    }
}

/* The last write replayed of key k: its transaction, or none. */
static uint32_t last_writer(const psi_serord *so, uint32_t k)
{
    return so->k_stamp[k] == so->k_cur ? so->k_txn[k] : PSI_INIT_TXN;
}

/* t's kept reads of `key` forbid the places from..to, which follow the
 * last write of key replayed (or none), when it does not answer them. */
static void forbid_for_reads(psi_serord *so, psi_serord_causes *cz, uint32_t t, uint32_t key,
                             uint32_t from, uint32_t to)
{
    bool any = so->k_stamp[key] == so->k_cur;
    for (uint32_t j = so->rd_off[t]; j < so->rd_off[t + 1]; j++) {
        const psi_serord_read *r = &so->rd[j];
        if (r->key != key || !kept(so, r))
            continue;
        if (any ? so->k_val[key] != r->value : !r->init_ok) {
            forbid(so, from, to);
            cause_read(so, cz, r, t);
            cause(cz, last_writer(so, key));
        }
    }
}

bool psi_serord_insert_causes(psi_serord *so, const uint32_t *order, uint32_t n, uint32_t t,
                              uint32_t *out, psi_serord_causes *cz)
{
    assert(committed(so->h, t));
    if (!psi_grow((void **)&so->gap, &so->cap_gap, (size_t)n + 2, sizeof *so->gap))
        return false;
    memset(so->gap, 0, ((size_t)n + 2) * sizeof *so->gap);
    assert(so->n_in == n + 1 && so->in[t]);
    const psi_txn *tx = &so->h->txns[t];
    /* t's keys: the ones it writes (and the value others see), reads. */
    if (++so->t_cur == 0) {
        memset(so->t_stamp, 0, so->h->n_keys * sizeof *so->t_stamp);
        so->t_cur = 1;
    }
    for (uint32_t j = so->wr_off[t]; j < so->wr_off[t + 1]; j++) {
        so->t_stamp[so->wr[j].key] = so->t_cur;
        so->t_how[so->wr[j].key] = 1;
        so->t_val[so->wr[j].key] = so->wr[j].value;
    }
    for (uint32_t j = so->rd_off[t]; j < so->rd_off[t + 1]; j++) {
        uint32_t k = so->rd[j].key;
        if (so->t_stamp[k] != so->t_cur) {
            so->t_stamp[k] = so->t_cur;
            so->t_how[k] = 0;
        }
        so->t_how[k] |= 2;
    }
    bool failed = false;
    /* Places: g in lo..hi by session order (after the session's earlier
     * transactions, before its later ones). */
    uint32_t lo = 0, hi = n;
    new_replay(so);
    for (uint32_t i = 0; i < n && (!failed || cz); i++) {
        uint32_t u = order[i];
        const psi_txn *ux = &so->h->txns[u];
        if (ux->session == tx->session) {
            if (ux->pos < tx->pos)
                lo = i + 1;
            else if (hi > i)
                hi = i;
        }
        for (uint32_t j = so->rd_off[u]; j < so->rd_off[u + 1]; j++) {
            const psi_serord_read *r = &so->rd[j];
            if (!kept(so, r))
                continue;
            uint32_t k = r->key;
            bool ok = answered(so, r);
            bool writes = so->t_stamp[k] == so->t_cur && (so->t_how[k] & 1);
            if (ok && (!writes || so->t_val[k] == r->value))
                continue; /* answered wherever t goes */
            /* t put in at a place g in from..i becomes the last write
             * before u's read. */
            uint32_t from = so->k_stamp[k] == so->k_cur ? so->k_at[k] + 1 : 0;
            cause_read(so, cz, r, u);
            cause(cz, last_writer(so, k));
            if (!writes || (!ok && so->t_val[k] != r->value)) {
                failed = true; /* nothing t does answers it */
            } else if (!ok) {  /* only t can answer it: from..i */
                if (from)
                    forbid(so, 0, from - 1);
                forbid(so, i + 1, n);
            } else {
                forbid(so, from, i);
            }
        }
        /* u's writes end a segment of each key it writes: t's reads of
         * those keys placed in it saw the write before (or none). */
        for (uint32_t j = so->wr_off[u]; j < so->wr_off[u + 1]; j++) {
            uint32_t k = so->wr[j].key;
            if (so->t_stamp[k] == so->t_cur && (so->t_how[k] & 2))
                forbid_for_reads(so, cz, t, k, so->k_stamp[k] == so->k_cur ? so->k_at[k] + 1 : 0,
                                 i);
        }
        apply_writes(so, u, i);
    }
    /* The last segment of each key t reads runs to the end. */
    for (uint32_t j = so->rd_off[t]; j < so->rd_off[t + 1] && (!failed || cz); j++) {
        uint32_t k = so->rd[j].key;
        if (so->t_how[k] & 4)
            continue; /* done for an earlier read of k */
        so->t_how[k] |= 4;
        forbid_for_reads(so, cz, t, k, so->k_stamp[k] == so->k_cur ? so->k_at[k] + 1 : 0, n);
    }
    if (cz && n > 0) { /* the session's neighbours that bound the places */
        if (lo > 0)
            cause(cz, order[lo - 1]);
        if (hi < n)
            cause(cz, order[hi]);
    }
    if (failed)
        return false;
    int32_t c = 0;
    for (uint32_t g = 0; g <= n; g++) {
        c += so->gap[g];
        if (g < lo || g > hi || c)
            continue;
        memcpy(out, order, g * sizeof *out);
        out[g] = t;
        memcpy(out + g + 1, order + g, (n - g) * sizeof *out);
        return true;
    }
    return false;
}

bool psi_serord_insert(psi_serord *so, const uint32_t *order, uint32_t n, uint32_t t, uint32_t *out)
{
    return psi_serord_insert_causes(so, order, n, t, out, NULL);
}
