/* Brute-force reference for the weak levels (see level_oracle.h): every
 * commit order of the participating transactions, each axiom checked as
 * written. Shares no code with check/ (only psi_history's fields, and the
 * SI/SER oracle for the graph-free part, itself independent). */
#include "levels/level_oracle.h"

#include "oracle/oracle.h"

#include <stdlib.h>
#include <string.h>

#define MAXT (LEVEL_ORACLE_MAX_TXNS + 1)

typedef struct lread {
    uint32_t txn, op, key, writer; /* op: index in the history (program order) */
    /* the writers it may have read from (local; 0 is the initial state):
     * a value written more than once gives a choice, enumerated */
    uint32_t n_cand, cand[MAXT];
} lread;

typedef struct lo {
    const psi_history *h;
    lo_level level;
    uint32_t n;              /* participants, local 0 = init */
    uint32_t glob[MAXT];     /* local -> history txn */
    uint8_t writes[MAXT][8]; /* local txn writes key k (keys < 8) */
    bool pre[MAXT][MAXT];    /* SO ∪ WR, then its closure in hb */
    bool so[MAXT][MAXT];
    bool wr[MAXT][MAXT];
    bool vis[MAXT][MAXT]; /* PSI: (SO ∪ WR ∪ WW_co)+ for the current co */
    lread reads[64];
    uint32_t n_reads;
    /* list-append reads: co must order the appenders of consecutive
     * elements (the version order a list shows) */
    uint32_t ww[64][2];
    uint32_t n_ww;
    uint32_t order[MAXT], pos[MAXT];
    bool placed[MAXT];
    uint64_t tried, cap;
    bool found;
} lo;

static bool premise(const lo *c, uint32_t t2, const lread *r)
{
    switch (c->level) {
    case LO_PL2:
        return false;
    case LO_RC:
        for (uint32_t i = 0; i < c->n_reads; i++)
            if (c->reads[i].txn == r->txn && c->reads[i].op < r->op && c->reads[i].writer == t2)
                return true;
        return false;
    case LO_RA:
        return c->so[t2][r->txn] || c->wr[t2][r->txn];
    case LO_CC:
        return c->pre[t2][r->txn];
    case LO_PC:
        /* t2 co* u and u →(SO ∪ WR) t */
        for (uint32_t u = 0; u < c->n; u++)
            if ((u == t2 || c->pos[t2] < c->pos[u]) && (c->so[u][r->txn] || c->wr[u][r->txn]))
                return true;
        return false;
    case LO_PSI:
        return c->vis[t2][r->txn];
    }
    return false;
}

/* PSI's visibility for the current co: SO ∪ WR, co between writers of a
 * common key, transitively closed. */
static void psi_vis(lo *c)
{
    for (uint32_t a = 0; a < c->n; a++)
        for (uint32_t b = 0; b < c->n; b++) {
            bool ww = false;
            for (uint32_t k = 0; k < 8 && !ww && a && b; k++)
                ww = c->writes[a][k] && c->writes[b][k];
            c->vis[a][b] = c->so[a][b] || c->wr[a][b] || (ww && a != b && c->pos[a] < c->pos[b]);
        }
    for (uint32_t k = 0; k < c->n; k++)
        for (uint32_t a = 0; a < c->n; a++)
            for (uint32_t b = 0; b < c->n; b++)
                c->vis[a][b] = c->vis[a][b] || (c->vis[a][k] && c->vis[k][b]);
}

static bool axioms_hold(lo *c)
{
    for (uint32_t i = 0; i < c->n_ww; i++)
        if (c->pos[c->ww[i][0]] > c->pos[c->ww[i][1]])
            return false;
    if (c->level == LO_PSI)
        psi_vis(c);
    for (uint32_t i = 0; i < c->n_reads; i++) {
        const lread *r = &c->reads[i];
        for (uint32_t t2 = 1; t2 < c->n; t2++)
            if (t2 != r->writer && c->writes[t2][r->key] && premise(c, t2, r) &&
                c->pos[t2] > c->pos[r->writer])
                return false;
    }
    return true;
}

/* Extends order[0..k) by every transaction whose SO/WR predecessors are
 * placed (co must contain SO ∪ WR). */
static void search(lo *c, uint32_t k)
{
    if (c->found || c->tried >= c->cap)
        return;
    if (k == c->n) {
        c->tried++;
        c->found = axioms_hold(c);
        return;
    }
    for (uint32_t v = 1; v < c->n && !c->found; v++) {
        if (c->placed[v])
            continue;
        bool ready = true;
        for (uint32_t u = 0; u < c->n && ready; u++)
            if ((c->so[u][v] || c->wr[u][v]) && !c->placed[u])
                ready = false;
        if (!ready)
            continue;
        c->placed[v] = true;
        c->order[k] = v;
        c->pos[v] = k;
        search(c, k + 1);
        c->placed[v] = false;
    }
}

/* Every choice of writer for every read (c->reads[i..]), and for each
 * the commit orders: WR and hb = (SO ∪ WR)+ follow the choice. */
static void enumerate(lo *c, uint32_t i)
{
    if (c->found || c->tried >= c->cap)
        return;
    if (i < c->n_reads) {
        for (uint32_t j = 0; j < c->reads[i].n_cand && !c->found && c->tried < c->cap; j++) {
            c->reads[i].writer = c->reads[i].cand[j];
            enumerate(c, i + 1);
        }
        return;
    }
    memset(c->wr, 0, sizeof c->wr);
    for (uint32_t r = 0; r < c->n_reads; r++)
        c->wr[c->reads[r].writer][c->reads[r].txn] = true;
    for (uint32_t a = 0; a < c->n; a++)
        for (uint32_t b = 0; b < c->n; b++)
            c->pre[a][b] = c->so[a][b] || c->wr[a][b];
    for (uint32_t k = 0; k < c->n; k++)
        for (uint32_t a = 0; a < c->n; a++)
            for (uint32_t b = 0; b < c->n; b++)
                c->pre[a][b] = c->pre[a][b] || (c->pre[a][k] && c->pre[k][b]);
    memset(c->placed, 0, sizeof c->placed);
    c->placed[0] = true;
    c->order[0] = 0;
    c->pos[0] = 0;
    search(c, 1);
}

/* The graph-free part for RC and PL-2, literally: in each participant,
 * a read after its own write of the key returns the last such write; any
 * other read is a read event and returns the initial value or the last
 * write of the key by another participant (not an aborted one, not an
 * intermediate write, not a value nobody wrote). */
static bool per_read_valid(const psi_history *h, const bool *in)
{
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (!in[t])
            continue;
        const psi_txn *tx = &h->txns[t];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            const psi_op *op = &h->ops[tx->first_op + j];
            if (op->kind != PSI_OP_READ)
                continue;
            const psi_op *own = NULL;
            for (uint32_t p = 0; p < j; p++) {
                const psi_op *q = &h->ops[tx->first_op + p];
                if (q->kind == PSI_OP_WRITE && q->key == op->key)
                    own = q;
            }
            if (own) {
                if (own->value != op->value || (op->flags & PSI_OPF_INIT))
                    return false;
                continue;
            }
            if ((op->flags & PSI_OPF_INIT) || op->value == 0)
                continue;
            /* another participant whose last write of the key wrote it */
            bool ok = false;
            for (uint32_t w = 1; w < h->n_txns && !ok; w++) {
                if (w == t || !in[w])
                    continue;
                const psi_txn *wx = &h->txns[w];
                const psi_op *last = NULL;
                for (uint32_t q = 0; q < wx->n_ops; q++) {
                    const psi_op *wo = &h->ops[wx->first_op + q];
                    if (wo->kind == PSI_OP_WRITE && wo->key == op->key)
                        last = wo;
                }
                ok = last && last->value == op->value;
            }
            if (!ok)
                return false;
        }
    }
    return true;
}

/* The participant that appended value v to key, or -1 when none did
 * (then -2 when an aborted transaction did). */
static int64_t appender(const psi_history *h, uint32_t key, uint64_t v)
{
    int64_t found = -1;
    for (uint32_t w = 1; w < h->n_txns; w++) {
        const psi_txn *wx = &h->txns[w];
        for (uint32_t q = 0; q < wx->n_ops; q++) {
            const psi_op *wo = &h->ops[wx->first_op + q];
            if (wo->kind == PSI_OP_WRITE && wo->key == key && wo->value == v)
                found = wx->status == PSI_TXN_COMMITTED ? (int64_t)w : -2;
        }
    }
    return found;
}

/* The graph-free part of a list-append history, literally (the SI/SER
 * oracle refuses lists). Supported: committed and aborted transactions,
 * values unique per key, at most one append per key and transaction, no
 * read after its own transaction's append of the key (else LO_TOO_BIG).
 * Every element of a list read was appended by another committed
 * transaction; the lists read of one key are prefixes of one another;
 * under the levels other than RC and PL-2 two reads of a key in one
 * transaction see one list (else a non-repeatable read). LO_ACCEPT means
 * nothing graph-free is wrong. */
static lo_verdict lists_valid(const psi_history *h, lo_level level)
{
    const uint64_t *longest[8] = {0};
    uint32_t longest_len[8] = {0};
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (tx->status == PSI_TXN_UNKNOWN)
            return LO_TOO_BIG;
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            const psi_op *op = &h->ops[tx->first_op + j];
            if (op->key >= 8)
                return LO_TOO_BIG;
            for (uint32_t p = 0; p < j; p++) {
                const psi_op *q = &h->ops[tx->first_op + p];
                if (q->key == op->key && q->kind == PSI_OP_WRITE)
                    return LO_TOO_BIG; /* an append twice, or a read after its own */
            }
            if (op->kind == PSI_OP_WRITE && (!(op->flags & PSI_OPF_APPEND) || op->value == 0))
                return LO_TOO_BIG;
            if (op->kind == PSI_OP_READ && !(op->flags & PSI_OPF_LIST))
                return LO_TOO_BIG;
        }
    }
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (tx->status != PSI_TXN_COMMITTED)
            continue;
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j;
            const psi_op *op = &h->ops[o];
            if (op->kind != PSI_OP_READ)
                continue;
            uint32_t len;
            const uint64_t *v = psi_history_list(h, o, &len);
            for (uint32_t i = 0; i < len; i++) {
                int64_t w = appender(h, op->key, v[i]);
                if (w < 0 || (uint32_t)w == t)
                    return LO_REJECT;
            }
            /* prefixes of one another: compare with the longest so far */
            uint32_t m = len < longest_len[op->key] ? len : longest_len[op->key];
            for (uint32_t i = 0; i < m; i++)
                if (v[i] != longest[op->key][i])
                    return LO_REJECT;
            if (len > longest_len[op->key]) {
                longest[op->key] = v;
                longest_len[op->key] = len;
            }
            if (level == LO_RC || level == LO_PL2)
                continue;
            for (uint32_t p = 0; p < j; p++) {
                uint32_t po = tx->first_op + p, plen;
                if (h->ops[po].key != op->key)
                    continue;
                const uint64_t *pv = psi_history_list(h, po, &plen);
                if (plen != len || (len && memcmp(pv, v, len * sizeof *v) != 0))
                    return LO_REJECT;
            }
        }
    }
    return LO_ACCEPT;
}

/* The recorded initial state, as the SI/SER oracle finds it (oracle.h):
 * the transaction first in the input, committed, only writing 0, in a
 * format whose initial value is 0. It is the initial transaction, not a
 * participant. 0 if none. */
static uint32_t recorded_init(const psi_history *h)
{
    if (h->format == PSI_FMT_EDN || h->format == PSI_FMT_COBRA)
        return 0;
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

static bool takes_part(const psi_history *h, uint32_t t, const bool *in)
{
    (void)h;
    return in[t];
}

/* One choice of outcomes: the UNKNOWN transactions with outcome[t]
 * committed, the others absent. */
static lo_verdict check_outcome(const psi_history *h, lo_level level, uint64_t cap,
                                const bool *outcome)
{
    /* graph-free anomalies and input errors: as the SI/SER oracle says,
     * or for list-append histories (which it refuses) lists_valid */
    bool recheck = false;
    if (h->n_list_reads) {
        lo_verdict lv = lists_valid(h, level);
        if (lv != LO_ACCEPT)
            return lv;
    } else {
        oracle_result base;
        oracle_hints fixed = {.outcome = outcome};
        oracle_check_hinted(h, true, &fixed, cap, &base);
        if (base.verdict == ORACLE_INVALID)
            return LO_INVALID;
        if (base.verdict == ORACLE_TOO_BIG)
            return LO_TOO_BIG;
        /* RC and PL-2 are per read: the base oracle's INT may be a
         * non-repeatable read they allow; per_read_valid decides below */
        recheck = base.verdict == ORACLE_REJECT && base.why == ORACLE_WHY_INT &&
                  (level == LO_RC || level == LO_PL2);
        if (base.verdict == ORACLE_REJECT && base.why != ORACLE_WHY_CYCLE && !recheck)
            return LO_REJECT;
    }
    if (h->n_keys > 8)
        return LO_TOO_BIG;
    /* participants: committed, and the unknown ones this choice commits */
    bool *in = calloc(h->n_txns, sizeof *in);
    if (!in)
        return LO_TOO_BIG;
    in[0] = true;
    uint32_t init = recorded_init(h);
    for (uint32_t t = 1; t < h->n_txns; t++)
        in[t] = t != init && (h->txns[t].status == PSI_TXN_COMMITTED ||
                              (h->txns[t].status == PSI_TXN_UNKNOWN && outcome[t]));
    if (recheck && !per_read_valid(h, in)) {
        free(in);
        return LO_REJECT;
    }
    lo *c = calloc(1, sizeof *c);
    if (!c) {
        free(in);
        return LO_TOO_BIG;
    }
    c->h = h;
    c->level = level;
    c->cap = cap;
    uint32_t *local = malloc(h->n_txns * sizeof *local);
    lo_verdict v = LO_TOO_BIG;
    if (!local)
        goto out;
    c->n = 0;
    for (uint32_t t = 0; t < h->n_txns; t++) {
        local[t] = UINT32_MAX;
        if (takes_part(h, t, in)) {
            if (c->n == MAXT)
                goto out;
            local[t] = c->n;
            c->glob[c->n++] = t;
        }
    }
    /* writes, SO (init before all; then each session in order) */
    for (uint32_t i = 1; i < c->n; i++) {
        const psi_txn *tx = &h->txns[c->glob[i]];
        c->so[0][i] = true;
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            const psi_op *op = &h->ops[tx->first_op + j];
            if (op->kind == PSI_OP_WRITE)
                c->writes[i][op->key] = 1;
        }
        for (uint32_t k = 1; k < c->n; k++) {
            const psi_txn *kx = &h->txns[c->glob[k]];
            if (kx->session == tx->session && kx->pos < tx->pos)
                c->so[k][i] = true;
        }
    }
    /* read events (reads not after their own txn's write of the key, each
     * on its own: RC's premise is per read) and their writers: the last
     * write of the key in a participant with that value. Under RA, CC a
     * repeat read sees its first read's writer (else the base oracle
     * rejected), so it changes nothing there. */
    for (uint32_t i = 1; i < c->n; i++) {
        const psi_txn *tx = &h->txns[c->glob[i]];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            const psi_op *op = &h->ops[tx->first_op + j];
            bool own_write = false;
            for (uint32_t p = 0; p < j; p++)
                if (h->ops[tx->first_op + p].key == op->key &&
                    h->ops[tx->first_op + p].kind == PSI_OP_WRITE)
                    own_write = true;
            if (own_write || op->kind != PSI_OP_READ)
                continue;
            /* candidates: the initial state for the initial value, and
             * every other participant whose last write of the key wrote
             * the value */
            lread rd = {.txn = i, .op = tx->first_op + j, .key = op->key};
            bool initial = (op->flags & PSI_OPF_INIT) || op->value == 0;
            if (initial)
                rd.cand[rd.n_cand++] = 0;
            for (uint32_t k = 1; k < c->n && !(op->flags & PSI_OPF_INIT); k++) {
                const psi_txn *kx = &h->txns[c->glob[k]];
                const psi_op *last = NULL;
                for (uint32_t q = 0; q < kx->n_ops; q++) {
                    const psi_op *wo = &h->ops[kx->first_op + q];
                    if (wo->kind == PSI_OP_WRITE && wo->key == op->key)
                        last = wo;
                }
                if (k != i && last && last->value == op->value)
                    rd.cand[rd.n_cand++] = k;
            }
            if (rd.n_cand == 0)
                goto out; /* the base oracle rejects these already */
            uint32_t w = rd.cand[0];
            rd.writer = w;
            if (c->n_reads == sizeof c->reads / sizeof c->reads[0])
                goto out;
            c->reads[c->n_reads++] = rd;
            uint32_t len;
            const uint64_t *lv = psi_history_list(h, tx->first_op + j, &len);
            for (uint32_t e = 0; e + 1 < len; e++) {
                int64_t a = appender(h, op->key, lv[e]), b = appender(h, op->key, lv[e + 1]);
                if (a < 0 || b < 0 || local[a] == UINT32_MAX || local[b] == UINT32_MAX ||
                    c->n_ww == sizeof c->ww / sizeof c->ww[0])
                    goto out; /* lists_valid rejected these already; or too many */
                c->ww[c->n_ww][0] = local[a];
                c->ww[c->n_ww++][1] = local[b];
            }
            /* The list is a prefix of the version order: every other
             * committed append of the key comes after its last element. */
            int64_t last = len ? appender(h, op->key, lv[len - 1]) : -1;
            for (uint32_t k = 1; last >= 0 && k < c->n; k++) {
                bool shown = false;
                for (uint32_t e = 0; e < len && !shown; e++)
                    shown = appender(h, op->key, lv[e]) == (int64_t)c->glob[k];
                if (shown || !c->writes[k][op->key] ||
                    h->txns[c->glob[k]].status != PSI_TXN_COMMITTED)
                    continue;
                if (local[last] == UINT32_MAX || c->n_ww == sizeof c->ww / sizeof c->ww[0])
                    goto out;
                c->ww[c->n_ww][0] = local[last];
                c->ww[c->n_ww++][1] = k;
            }
        }
    }
    enumerate(c, 0);
    v = c->found ? LO_ACCEPT : c->tried >= c->cap ? LO_TOO_BIG : LO_REJECT;
out:
    free(local);
    free(in);
    free(c);
    return v;
}

lo_verdict level_oracle_check(const psi_history *h, lo_level level, uint64_t cap)
{
    /* Every choice of outcomes of the unknown transactions that some read
     * could observe (the others are absent: committing them only adds
     * dependencies). */
    uint32_t open[ORACLE_MAX_OUTCOMES];
    size_t n = oracle_open_outcomes(h, open, ORACLE_MAX_OUTCOMES);
    if (n > ORACLE_MAX_OUTCOMES)
        return LO_TOO_BIG;
    bool *outcome = calloc(h->n_txns ? h->n_txns : 1, sizeof *outcome);
    if (!outcome)
        return LO_TOO_BIG;
    lo_verdict v = LO_REJECT;
    bool too_big = false;
    for (uint64_t m = 0; m < (1ull << n); m++) {
        for (size_t i = 0; i < n; i++)
            outcome[open[i]] = (m >> i) & 1u;
        lo_verdict r = check_outcome(h, level, cap, outcome);
        if (r == LO_ACCEPT || r == LO_INVALID) {
            v = r;
            break;
        }
        too_big |= r == LO_TOO_BIG;
    }
    free(outcome);
    return v == LO_REJECT && too_big ? LO_TOO_BIG : v;
}
