/* Fuzz target: end-to-end verdicts against the brute-force oracle.
 *
 * The input describes a small history in a compact form (below); it is
 * built through the core builder, decided by the oracle
 * (tests/oracle/oracle.c) and by psi_check under SI and SER with pruning,
 * coalescing and theory propagation switched by the input. Any
 * disagreement, or an error on a history the oracle finds valid, aborts.
 *
 * Input: byte 0 holds the switches (bit 0 no pruning, bit 1 no coalescing,
 * bit 2 no theory propagation) and the mode (bit 3).
 *  - Mode 1 (generated): bytes 1-4 seed the workload generator with a tiny
 *    configuration (as the differential test); the history it produces is
 *    then mutated by the rest of the input, three bytes per mutation (kind,
 *    a, b): change what a read saw, turn a read into a write or back,
 *    change a transaction's outcome or session, swap two transactions,
 *    change an operation's key, copy another write's value (a duplicate,
 *    which must be refused), delete or insert an operation.
 *  - Mode 0 (direct): per transaction one header byte (bits 0-1 session,
 *    2-3 outcome: 0/1 committed, 2 aborted, 3 unknown; 4-5 operations - 1)
 *    then one byte per operation (bit 0 write, bits 1-2 key, bits 3-7 for a
 *    read which value: 0 the initial one, else one of the key's writes, or
 *    one nobody wrote). Writes get fresh values. */
#include "fuzz.h"
#include "fuzz_check.h"

#include "check/check.h"
#include "oracle/oracle.h"
#include "workload/gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TXNS = 16, MAX_TXN_OPS = 6, MAX_KEYS = 4, MAX_SESSIONS = 4 };
#define NOBODY_WROTE 1000000u /* a value no write in this model reaches */
/* Version-order choices the oracle may try: keeps one input well under a
 * second; bigger histories are skipped. */
#define ORACLE_ORDERS 20000u

typedef struct vop {
    uint8_t kind, key;
    uint64_t value;
} vop;

typedef struct vtxn {
    uint8_t session, status, n;
    vop ops[MAX_TXN_OPS];
} vtxn;

typedef struct vhist {
    vtxn t[MAX_TXNS];
    uint32_t n;
} vhist;

static uint8_t status_of(unsigned bits)
{
    return bits < 2 ? PSI_TXN_COMMITTED : bits == 2 ? PSI_TXN_ABORTED : PSI_TXN_UNKNOWN;
}

/* The values written to key k, in model order, into vals; returns the count. */
static uint32_t writes_of(const vhist *v, uint8_t k, uint64_t *vals)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < v->n; i++)
        for (uint32_t j = 0; j < v->t[i].n; j++)
            if (v->t[i].ops[j].kind == PSI_OP_WRITE && v->t[i].ops[j].key == k)
                vals[c++] = v->t[i].ops[j].value;
    return c;
}

static uint64_t fresh_value(const vhist *v, uint8_t k)
{
    uint64_t vals[MAX_TXNS * MAX_TXN_OPS], m = 0;
    uint32_t c = writes_of(v, k, vals);
    for (uint32_t i = 0; i < c; i++)
        if (vals[i] > m)
            m = vals[i];
    return m + 1;
}

/* Read value number `choice` of key k: the initial value, a write, or none. */
static uint64_t read_choice(const vhist *v, uint8_t k, unsigned choice)
{
    uint64_t vals[MAX_TXNS * MAX_TXN_OPS];
    uint32_t c = writes_of(v, k, vals);
    choice %= c + 2;
    if (choice == 0)
        return 0;
    return choice <= c ? vals[choice - 1] : NOBODY_WROTE;
}

static void decode_direct(const uint8_t *p, size_t n, vhist *v)
{
    size_t i = 0;
    uint32_t counts[MAX_KEYS] = {0};
    /* First pass: the model's transactions, writes numbered per key. */
    while (i < n && v->n < MAX_TXNS) {
        uint8_t h = p[i++];
        vtxn *t = &v->t[v->n++];
        t->session = h & 3;
        t->status = status_of((h >> 2) & 3);
        t->n = 0;
        unsigned want = 1 + ((h >> 4) & 3);
        while (t->n < want && i < n) {
            uint8_t b = p[i++];
            vop *o = &t->ops[t->n++];
            o->kind = b & 1;
            o->key = (b >> 1) & 3;
            o->value = b >> 3;
            if (o->kind == PSI_OP_WRITE)
                o->value = ++counts[o->key];
        }
        if (t->n == 0)
            v->n--;
    }
    /* Second pass: reads pick among every write of their key. */
    for (uint32_t a = 0; a < v->n; a++)
        for (uint32_t j = 0; j < v->t[a].n; j++) {
            vop *o = &v->t[a].ops[j];
            if (o->kind == PSI_OP_READ) {
                unsigned c = (unsigned)o->value % (counts[o->key] + 2);
                o->value = c == 0 ? 0 : c <= counts[o->key] ? c : NOBODY_WROTE;
            }
        }
}

/* Model of a generated history (first MAX_TXNS transactions in session
 * order, first MAX_TXN_OPS operations of each). False if generation failed. */
static bool decode_generated(uint64_t seed, vhist *v)
{
    psi_gen_opts o;
    psi_fuzz_gen_config(seed, &o);
    psi_history *h;
    psi_diag d;
    if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
        return false;
    for (uint32_t t = 1; t < h->n_txns && v->n < MAX_TXNS; t++) {
        const psi_txn *x = &h->txns[t];
        if (x->n_ops == 0 || h->sessions[x->session].id >= MAX_SESSIONS || h->n_keys > MAX_KEYS)
            continue;
        vtxn *m = &v->t[v->n++];
        m->session = (uint8_t)h->sessions[x->session].id;
        m->status = x->status;
        m->n = 0;
        for (uint32_t i = 0; i < x->n_ops && m->n < MAX_TXN_OPS; i++) {
            const psi_op *op = &h->ops[x->first_op + i];
            m->ops[m->n++] = (vop){.kind = op->kind, .key = (uint8_t)op->key, .value = op->value};
        }
    }
    psi_history_free(h);
    return true;
}

static vop *nth_op(vhist *v, unsigned a, vtxn **owner)
{
    uint32_t total = 0;
    for (uint32_t i = 0; i < v->n; i++)
        total += v->t[i].n;
    if (total == 0)
        return NULL;
    a %= total;
    for (uint32_t i = 0; i < v->n; i++) {
        if (a < v->t[i].n) {
            if (owner)
                *owner = &v->t[i];
            return &v->t[i].ops[a];
        }
        a -= v->t[i].n;
    }
    return NULL;
}

static void mutate(vhist *v, uint8_t kind, uint8_t a, uint8_t b)
{
    if (v->n == 0)
        return;
    vtxn *t = NULL;
    vop *o = nth_op(v, a, &t);
    vtxn *ta = &v->t[a % v->n], *tb = &v->t[b % v->n];
    switch (kind % 9) {
    case 0: /* what a read saw */
        if (o && o->kind == PSI_OP_READ)
            o->value = read_choice(v, o->key, b);
        break;
    case 1: /* read <-> write */
        if (!o)
            break;
        if (o->kind == PSI_OP_READ) {
            o->kind = PSI_OP_WRITE;
            o->value = fresh_value(v, o->key);
        } else {
            o->kind = PSI_OP_READ;
            o->value = read_choice(v, o->key, b);
        }
        break;
    case 2:
        ta->status = status_of(b & 3);
        break;
    case 3:
        ta->session = b % MAX_SESSIONS;
        break;
    case 4: {
        vtxn tmp = *ta;
        *ta = *tb;
        *tb = tmp;
        break;
    }
    case 5: /* another key */
        if (!o)
            break;
        o->key = b % MAX_KEYS;
        o->value = o->kind == PSI_OP_WRITE ? fresh_value(v, o->key) : read_choice(v, o->key, b);
        break;
    case 6: /* a write repeating another write's value: invalid input */
        if (o && o->kind == PSI_OP_WRITE) {
            uint64_t w = read_choice(v, o->key, b);
            if (w != 0 && w != NOBODY_WROTE)
                o->value = w;
        }
        break;
    case 7: /* delete an operation */
        if (o && t->n > 1) {
            size_t i = (size_t)(o - t->ops);
            memmove(o, o + 1, (t->n - i - 1) * sizeof *o);
            t->n--;
        }
        break;
    case 8: /* insert a read */
        if (ta->n < MAX_TXN_OPS) {
            uint8_t k = b % MAX_KEYS;
            unsigned at = (unsigned)(b >> 2) % (ta->n + 1u);
            memmove(&ta->ops[at + 1], &ta->ops[at], (ta->n - at) * sizeof ta->ops[0]);
            ta->ops[at] = (vop){.kind = PSI_OP_READ, .key = k, .value = read_choice(v, k, b >> 4)};
            ta->n++;
        }
        break;
    }
}

static psi_history *build(const vhist *v)
{
    psi_builder *b = psi_builder_new("fuzz", PSI_FMT_TEXT);
    FUZZ_REQUIRE(b != NULL, "builder");
    psi_diag d;
    for (uint32_t i = 0; i < v->n; i++) {
        const vtxn *t = &v->t[i];
        FUZZ_REQUIRE(psi_builder_begin(b, t->session, i + 1, i, &d) == PSI_OK, d.msg);
        for (uint32_t j = 0; j < t->n; j++) {
            const vop *o = &t->ops[j];
            unsigned flags = o->kind == PSI_OP_READ && o->value == 0 ? PSI_OPF_INIT : 0u;
            FUZZ_REQUIRE(psi_builder_op(b, o->kind, o->key, o->value, flags, &d) == PSI_OK, d.msg);
        }
        FUZZ_REQUIRE(psi_builder_end(b, t->status, &d) == PSI_OK, d.msg);
    }
    psi_history *h = NULL;
    if (psi_builder_finish(b, &h, &d) != PSI_OK)
        return NULL; /* an empty history */
    return h;
}

static void dump(const vhist *v)
{
    for (uint32_t i = 0; i < v->n; i++) {
        const vtxn *t = &v->t[i];
        fprintf(stderr, "  txn %u session %u %s:", i + 1, t->session,
                t->status == PSI_TXN_COMMITTED ? "committed"
                : t->status == PSI_TXN_ABORTED ? "aborted"
                                               : "unknown");
        for (uint32_t j = 0; j < t->n; j++)
            fprintf(stderr, " %c(%u,%llu)", t->ops[j].kind == PSI_OP_WRITE ? 'w' : 'r',
                    t->ops[j].key, (unsigned long long)t->ops[j].value);
        fprintf(stderr, "\n");
    }
}

int psi_fuzz_verdict(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    static vhist v;
    memset(&v, 0, sizeof v);
    uint8_t sw = data[0];
    if (sw & 8) {
        if (size < 5)
            return 0;
        uint64_t seed = (uint64_t)data[1] | (uint64_t)data[2] << 8 | (uint64_t)data[3] << 16 |
                        (uint64_t)data[4] << 24;
        if (!decode_generated(seed, &v))
            return 0;
        for (size_t i = 5; i + 3 <= size && i < 5 + 3 * 32; i += 3)
            mutate(&v, data[i], data[i + 1], data[i + 2]);
    } else {
        decode_direct(data + 1, size - 1, &v);
    }
    psi_history *h = build(&v);
    if (!h)
        return 0;
    oracle_result want[2];
    oracle_check_limit(h, false, ORACLE_ORDERS, &want[0]);
    oracle_check_limit(h, true, ORACLE_ORDERS, &want[1]);
    if (want[0].verdict == ORACLE_TOO_BIG || want[1].verdict == ORACLE_TOO_BIG) {
        psi_history_free(h);
        return 0;
    }
    for (int ser = 0; ser < 2; ser++) {
        psi_check_opts co = {.ser = ser,
                             .no_pruning = sw & 1,
                             .no_coalescing = (sw >> 1) & 1,
                             .no_theory_propagation = (sw >> 2) & 1};
        psi_check_result r;
        psi_diag d;
        psi_status st = psi_check(h, &co, &r, &d);
        bool bad;
        if (want[ser].verdict == ORACLE_INVALID) {
            bad = st == PSI_OK;
        } else {
            bad = st != PSI_OK || (r.verdict == PSI_ACCEPT) != (want[ser].verdict == ORACLE_ACCEPT);
        }
        if (bad) {
            fprintf(stderr,
                    "DISAGREEMENT (%s, pruning %s, coalescing %s, theory propagation %s): "
                    "pipeline %s, oracle %s (%s)\n",
                    ser ? "SER" : "SI", sw & 1 ? "off" : "on", sw & 2 ? "off" : "on",
                    sw & 4 ? "off" : "on",
                    st != PSI_OK              ? d.msg
                    : r.verdict == PSI_ACCEPT ? "accepts"
                                              : "rejects",
                    oracle_verdict_name(want[ser].verdict), oracle_reason_name(want[ser].why));
            dump(&v);
            abort();
        }
        psi_check_result_free(&r); /* also after an error */
    }
    psi_history_free(h);
    return 0;
}

size_t psi_fuzz_verdict_seed(uint64_t seed, uint8_t *buf, size_t cap)
{
    if (cap < 5)
        return 0;
    buf[0] = (uint8_t)(8 | (seed & 7));
    for (int i = 0; i < 4; i++)
        buf[1 + i] = (uint8_t)(seed >> (8 * i));
    return 5;
}

#ifdef PSI_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return psi_fuzz_verdict(data, size);
}
#endif
