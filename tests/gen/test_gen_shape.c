/* The generator makes what it is asked for: shape (sessions, transactions,
 * operations, read ratio), operation mixes, key distributions, long
 * transactions, statuses, unique non-zero values, determinism per seed, and
 * option checking. */
#include "workload/gen.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static psi_history *gen(const psi_gen_opts *o, psi_gen_report *rep)
{
    psi_history *h = NULL;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_generate(o, &h, rep, &d) != PSI_OK)
        fail_msg("generate: %s", d.msg);
    return h;
}

typedef struct kv {
    uint64_t key, value;
} kv;

static int cmp_kv(const void *a, const void *b)
{
    const kv *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

/* Written values are non-zero and unique per key; a read returns 0 exactly
 * when it is flagged as reading the initial value, and otherwise a value
 * somebody wrote to that key. */
static void check_values(const psi_history *h)
{
    kv *w = malloc((h->n_ops + 1) * sizeof *w);
    assert_non_null(w);
    size_t n = 0;
    for (uint32_t i = 0; i < h->n_ops; i++)
        if (h->ops[i].kind == PSI_OP_WRITE) {
            assert_true(h->ops[i].value != 0);
            w[n++] = (kv){h->ops[i].key, h->ops[i].value};
        }
    qsort(w, n, sizeof *w, cmp_kv);
    for (size_t i = 1; i < n; i++)
        assert_false(w[i].key == w[i - 1].key && w[i].value == w[i - 1].value);
    for (uint32_t i = 0; i < h->n_ops; i++) {
        const psi_op *op = &h->ops[i];
        if (op->kind != PSI_OP_READ)
            continue;
        assert_int_equal(op->value == 0, (op->flags & PSI_OPF_INIT) != 0);
        kv probe = {op->key, op->value};
        if (op->value)
            assert_non_null(bsearch(&probe, w, n, sizeof *w, cmp_kv));
    }
    free(w);
}

static double read_fraction(const psi_history *h)
{
    uint64_t r = 0;
    for (uint32_t i = 0; i < h->n_ops; i++)
        r += h->ops[i].kind == PSI_OP_READ;
    return h->n_ops ? (double)r / h->n_ops : 0;
}

static void test_shape(void **state)
{
    (void)state;
    for (int store = PSI_STORE_SI; store <= PSI_STORE_RANDOM; store++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.sessions = 5;
        o.txns_per_session = 40;
        o.ops_per_txn = 7;
        o.keys = 50;
        o.read_ratio = 0.3;
        o.store = (psi_gen_store)store;
        o.retry_aborted = false; /* every attempt counts */
        psi_gen_report rep;
        psi_history *h = gen(&o, &rep);
        assert_int_equal(h->n_sessions, 5);
        assert_int_equal(h->n_txns, 1 + 5 * 40);
        for (uint32_t s = 0; s < h->n_sessions; s++)
            assert_int_equal(h->sessions[s].n_txns, 40);
        for (uint32_t t = 1; t < h->n_txns; t++)
            assert_int_equal(h->txns[t].n_ops, 7);
        assert_int_equal(h->n_ops, 5 * 40 * 7);
        assert_true(h->n_keys <= 50);
        double rf = read_fraction(h);
        assert_true(rf > 0.27 && rf < 0.33);
        assert_int_equal(rep.txns, 200);
        assert_int_equal(rep.ops, h->n_ops);
        assert_int_equal(rep.reads + rep.writes, rep.ops);
        assert_int_equal(rep.committed + rep.aborted, 200);
        uint64_t aborted = 0;
        for (uint32_t t = 1; t < h->n_txns; t++)
            aborted += h->txns[t].status == PSI_TXN_ABORTED;
        assert_int_equal(aborted, rep.aborted);
        check_values(h);
        psi_history_free(h);
    }
}

static void test_drop_aborted(void **state)
{
    (void)state;
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.sessions = 8;
    o.txns_per_session = 30;
    o.keys = 20; /* contention: some aborts */
    o.keep_aborted = false;
    psi_gen_report rep;
    psi_history *h = gen(&o, &rep);
    assert_true(rep.attempts_aborted > 0);
    assert_int_equal(rep.not_recorded, rep.attempts_aborted);
    assert_int_equal(rep.aborted, 0);
    assert_int_equal(h->n_txns - 1, rep.committed);
    assert_int_equal(rep.txns, rep.committed);
    for (uint32_t t = 1; t < h->n_txns; t++)
        assert_int_equal(h->txns[t].status, PSI_TXN_COMMITTED);
    check_values(h);
    psi_history_free(h);
}

/* With retries (the default) every session commits exactly its quota;
 * aborted attempts come on top. */
static void test_retry(void **state)
{
    (void)state;
    for (int store = PSI_STORE_SI; store <= PSI_STORE_SER; store++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.store = (psi_gen_store)store;
        o.txns_per_session = 50;
        o.keys = 200;
        psi_gen_report rep;
        psi_history *h = gen(&o, &rep);
        assert_true(rep.aborted > 0);
        assert_int_equal(rep.committed, 20 * 50);
        assert_int_equal(rep.txns, rep.committed + rep.aborted);
        assert_int_equal(h->n_txns - 1, rep.txns);
        for (uint32_t s = 0; s < h->n_sessions; s++) {
            uint32_t c = 0;
            const psi_session *se = &h->sessions[s];
            for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++)
                c += h->txns[t].status == PSI_TXN_COMMITTED;
            assert_int_equal(c, 50);
        }
        check_values(h);
        psi_history_free(h);
    }
}

static bool same_history(const psi_history *a, const psi_history *b)
{
    if (a->n_txns != b->n_txns || a->n_ops != b->n_ops || a->n_keys != b->n_keys)
        return false;
    for (uint32_t t = 0; t < a->n_txns; t++)
        if (a->txns[t].id != b->txns[t].id || a->txns[t].status != b->txns[t].status ||
            a->txns[t].n_ops != b->txns[t].n_ops)
            return false;
    for (uint32_t i = 0; i < a->n_ops; i++)
        if (a->ops[i].key != b->ops[i].key || a->ops[i].value != b->ops[i].value ||
            a->ops[i].kind != b->ops[i].kind || a->ops[i].flags != b->ops[i].flags)
            return false;
    return memcmp(a->keys, b->keys, a->n_keys * sizeof *a->keys) == 0;
}

static void test_determinism(void **state)
{
    (void)state;
    for (int store = PSI_STORE_SI; store <= PSI_STORE_RANDOM; store++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.txns_per_session = 20;
        o.store = (psi_gen_store)store;
        o.faults = (1u << PSI_FAULT_COUNT) - 1;
        o.seed = 42;
        psi_gen_report r1, r2;
        psi_history *a = gen(&o, &r1), *b = gen(&o, &r2);
        assert_true(same_history(a, b));
        assert_memory_equal(&r1, &r2, sizeof r1);
        o.seed = 43;
        psi_history *c = gen(&o, NULL);
        assert_false(same_history(a, c));
        psi_history_free(a);
        psi_history_free(b);
        psi_history_free(c);
    }
}

static void test_mixes(void **state)
{
    (void)state;
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.txns_per_session = 100;
    o.ops_per_txn = 8;
    o.keys = 1000;

    /* read-modify-write: 25% reads, 25% writes, 50% RMW pairs */
    o.mix = PSI_MIX_RMW;
    psi_history *h = gen(&o, NULL);
    double rf = read_fraction(h);
    assert_true(rf > 0.45 && rf < 0.55);
    uint64_t pairs = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_op *op = h->ops + h->txns[t].first_op;
        for (uint32_t i = 0; i + 1 < h->txns[t].n_ops; i++)
            pairs += op[i].kind == PSI_OP_READ && op[i + 1].kind == PSI_OP_WRITE &&
                     op[i].key == op[i + 1].key;
    }
    assert_true(pairs > h->n_ops / 5);
    psi_history_free(h);

    /* heavy write: 10% reads, 10% RMWs (2 ops), 80% writes */
    o.mix = PSI_MIX_HEAVY_WRITE;
    h = gen(&o, NULL);
    rf = read_fraction(h);
    assert_true(rf > 0.14 && rf < 0.23);
    psi_history_free(h);

    /* BlindW: read-only or write-only transactions in fixed proportions */
    const psi_gen_mix bw[] = {PSI_MIX_BLINDW_RH, PSI_MIX_BLINDW_RW, PSI_MIX_BLINDW_WH};
    const double want[] = {0.9, 0.5, 0.1};
    for (int m = 0; m < 3; m++) {
        o.mix = bw[m];
        h = gen(&o, NULL);
        uint64_t ro = 0;
        for (uint32_t t = 1; t < h->n_txns; t++) {
            const psi_op *op = h->ops + h->txns[t].first_op;
            uint32_t reads = 0;
            for (uint32_t i = 0; i < h->txns[t].n_ops; i++)
                reads += op[i].kind == PSI_OP_READ;
            assert_true(reads == 0 || reads == h->txns[t].n_ops);
            ro += reads > 0;
        }
        double f = (double)ro / (h->n_txns - 1);
        assert_true(f > want[m] - 0.05 && f < want[m] + 0.05);
        psi_history_free(h);
    }
}

/* Operations per external key. */
static uint64_t *key_counts(const psi_history *h, uint32_t keys)
{
    uint64_t *c = calloc(keys, sizeof *c);
    assert_non_null(c);
    for (uint32_t i = 0; i < h->n_ops; i++) {
        uint64_t k = h->keys[h->ops[i].key];
        assert_true(k < keys);
        c[k]++;
    }
    return c;
}

static void test_distributions(void **state)
{
    (void)state;
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.keys = 1000;
    o.txns_per_session = 50;

    o.dist = PSI_DIST_HOTSPOT;
    psi_history *h = gen(&o, NULL);
    uint64_t *c = key_counts(h, o.keys), hot = 0;
    for (uint32_t k = 0; k < 200; k++)
        hot += c[k];
    double f = (double)hot / h->n_ops;
    assert_true(f > 0.77 && f < 0.83);
    free(c);
    psi_history_free(h);

    /* The default exponent is the PolySI generator's 0.5: key 0 takes
     * 1/sum(r^-0.5) = 1.6% of 1000 keys' operations, sqrt(10) times key
     * 9's; YCSB's 0.99 makes it 13%, 9.8 times. */
    o.dist = PSI_DIST_ZIPF;
    h = gen(&o, NULL);
    c = key_counts(h, o.keys);
    assert_true(c[0] > 2 * c[9] && c[0] < 5 * c[9]);
    assert_true(c[0] > (uint64_t)h->n_ops / 100 && c[0] < (uint64_t)h->n_ops / 40);
    free(c);
    psi_history_free(h);
    o.zipf_theta = 0.99;
    h = gen(&o, NULL);
    c = key_counts(h, o.keys);
    assert_true(c[0] > 6 * c[9]);
    assert_true(c[0] > (uint64_t)h->n_ops / 20);
    free(c);
    psi_history_free(h);

    o.dist = PSI_DIST_UNIFORM;
    h = gen(&o, NULL);
    c = key_counts(h, o.keys);
    uint64_t first100 = 0;
    for (uint32_t k = 0; k < 100; k++)
        first100 += c[k];
    f = (double)first100 / h->n_ops;
    assert_true(f > 0.08 && f < 0.12);
    free(c);
    psi_history_free(h);
}

static void test_long_txns(void **state)
{
    (void)state;
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.ops_per_txn = 5;
    o.long_txn_ratio = 0.25;
    o.long_ops = 40;
    o.txns_per_session = 50;
    psi_history *h = gen(&o, NULL);
    uint64_t longs = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        assert_true(h->txns[t].n_ops == 5 || h->txns[t].n_ops == 40);
        longs += h->txns[t].n_ops == 40;
    }
    double f = (double)longs / (h->n_txns - 1);
    assert_true(f > 0.21 && f < 0.29);
    check_values(h);
    psi_history_free(h);
}

static void test_statuses(void **state)
{
    (void)state;
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.store = PSI_STORE_RANDOM;
    o.abort_ratio = 0.2;
    o.unknown_ratio = 0.1;
    psi_gen_report rep;
    psi_history *h = gen(&o, &rep);
    uint64_t n[3] = {0};
    for (uint32_t t = 1; t < h->n_txns; t++)
        n[h->txns[t].status]++;
    assert_int_equal(n[PSI_TXN_ABORTED], rep.aborted);
    assert_int_equal(n[PSI_TXN_UNKNOWN], rep.unknown);
    assert_true(rep.aborted > 340 && rep.aborted < 460);
    check_values(h);
    psi_history_free(h);

    /* store modes record some outcomes as unknown too */
    o.store = PSI_STORE_SER;
    o.keys = 100;
    h = gen(&o, &rep);
    assert_true(rep.unknown > 0 && rep.aborted > 0);
    check_values(h);
    psi_history_free(h);
}

static void test_edge_shapes(void **state)
{
    (void)state;
    const uint32_t shapes[][4] = {/* sessions, txns, ops, keys */
                                  {1, 3, 0, 1},
                                  {1, 1, 1, 1},
                                  {4, 5, 3, 1},
                                  {3, 0, 4, 2}};
    for (size_t i = 0; i < sizeof shapes / sizeof shapes[0]; i++)
        for (int store = PSI_STORE_SI; store <= PSI_STORE_RANDOM; store++) {
            psi_gen_opts o;
            psi_gen_opts_default(&o);
            o.sessions = shapes[i][0];
            o.txns_per_session = shapes[i][1];
            o.ops_per_txn = shapes[i][2];
            o.keys = shapes[i][3];
            o.store = (psi_gen_store)store;
            o.faults = (1u << PSI_FAULT_COUNT) - 1;
            psi_gen_report rep;
            psi_history *h = gen(&o, &rep);
            assert_int_equal(rep.committed, (uint64_t)o.sessions * o.txns_per_session);
            assert_int_equal(h->n_ops, rep.ops);
            check_values(h);
            psi_history_free(h);
        }
}

/* FNV-1a over every recorded transaction and operation, in file order. */
static uint64_t fingerprint(const psi_history *h)
{
    uint64_t f = 0xcbf29ce484222325ull;
    uint64_t words[4];
    for (uint32_t t = 0; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        words[0] = tx->session, words[1] = tx->pos, words[2] = tx->status, words[3] = tx->n_ops;
        for (size_t w = 0; w < 4; w++)
            for (int k = 0; k < 64; k += 8)
                f = (f ^ ((words[w] >> k) & 0xff)) * 0x100000001b3ull;
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            const psi_op *op = &h->ops[tx->first_op + i];
            words[0] = op->kind, words[1] = op->key, words[2] = op->value, words[3] = op->flags;
            for (size_t w = 0; w < 4; w++)
                for (int k = 0; k < 64; k += 8)
                    f = (f ^ ((words[w] >> k) & 0xff)) * 0x100000001b3ull;
        }
    }
    return f;
}

/* Adding the value distribution options (value_zipf, value_unique_ratio)
 * left every history the existing options make as it was: fingerprints
 * taken before they existed (bee5a11), unique and repeated values, SI,
 * SER and random stores. */
static void test_golden(void **state)
{
    (void)state;
    static const struct {
        psi_gen_store store;
        uint64_t range, seed, want;
    } g[] = {
        {PSI_STORE_SI, 0, 5, 0x3b769f159183213dull},
        {PSI_STORE_SI, 4, 5, 0xe97c127f51c5af19ull},
        {PSI_STORE_SER, 16, 6, 0x4247d5ed97ff66ebull},
        {PSI_STORE_RANDOM, 3, 7, 0x0f133df4655d37a1ull},
        {PSI_STORE_SER, 256, 8, 0x30936c770d74137cull},
        {PSI_STORE_SI, 1, 9, 0xb0268ef92bc9be97ull},
    };
    for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.sessions = 6, o.txns_per_session = 40, o.ops_per_txn = 8, o.keys = 50;
        o.store = g[i].store, o.value_range = g[i].range, o.seed = g[i].seed;
        psi_history *h = gen(&o, NULL);
        uint64_t f = fingerprint(h);
        if (f != g[i].want)
            fail_msg("case %zu: fingerprint 0x%016llxull", i, (unsigned long long)f);
        psi_history_free(h);
    }
}

/* --value-zipf / --value-repeat-ratio (VeriStrong's duplicate-value
 * workloads): a value_unique_ratio share of the writes keeps a unique
 * value above the range, the others draw v in 1..N with weight 1/v^S; the
 * store does the same as without the options (same operations, keys,
 * statuses, and a read sees the same version). */
static void test_value_distribution(void **state)
{
    (void)state;
    enum { N = 10 };
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.sessions = 10, o.txns_per_session = 200, o.ops_per_txn = 10, o.keys = 1000;
    o.dist = PSI_DIST_UNIFORM, o.read_ratio = 0.2, o.seed = 3;
    o.value_range = N, o.value_zipf = 0.75, o.value_unique_ratio = 0.5;
    psi_history *h = gen(&o, NULL);
    psi_gen_opts plain = o;
    plain.value_range = 0, plain.value_zipf = 0, plain.value_unique_ratio = 0;
    psi_history *u = gen(&plain, NULL);
    assert_int_equal(h->n_txns, u->n_txns);
    assert_int_equal(h->n_ops, u->n_ops);
    uint64_t drawn[N + 1] = {0}, unique = 0, writes = 0;
    kv *above = malloc((h->n_ops + 1) * sizeof *above);
    assert_non_null(above);
    size_t n_above = 0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        assert_int_equal(h->txns[t].status, u->txns[t].status);
    for (uint32_t i = 0; i < h->n_ops; i++) {
        const psi_op *a = &h->ops[i], *b = &u->ops[i];
        assert_int_equal(a->kind, b->kind);
        assert_int_equal(a->key, b->key);
        assert_int_equal(a->flags, b->flags);
        /* Without the options the value is the version itself. */
        if (a->value > N)
            assert_int_equal(a->value, N + b->value);
        assert_int_equal(a->value == 0, b->value == 0);
        if (a->kind != PSI_OP_WRITE)
            continue;
        writes++;
        if (a->value > N) {
            unique++;
            above[n_above++] = (kv){a->key, a->value};
        } else {
            assert_true(a->value >= 1);
            drawn[a->value]++;
        }
    }
    /* Unique per key above the range. */
    qsort(above, n_above, sizeof *above, cmp_kv);
    for (size_t i = 1; i < n_above; i++)
        assert_false(above[i].key == above[i - 1].key && above[i].value == above[i - 1].value);
    free(above);
    assert_true(writes > 10000);
    double share = (double)unique / (double)writes;
    if (share < 0.47 || share > 0.53)
        fail_msg("unique share %.3f, want 0.5", share);
    /* Chi-square of the drawn values against weights 1/v^0.75 (9 degrees
     * of freedom: 99.99 % below 33.7); a uniform draw scores over 1000. */
    double wsum = 0, chi = 0;
    for (int v = 1; v <= N; v++)
        wsum += pow(v, -0.75);
    for (int v = 1; v <= N; v++) {
        double e = (double)(writes - unique) * pow(v, -0.75) / wsum;
        chi += ((double)drawn[v] - e) * ((double)drawn[v] - e) / e;
    }
    if (chi > 33.7)
        fail_msg("drawn values are not zipfian: chi-square %.1f", chi);
    psi_history_free(h);
    psi_history_free(u);

    /* Every write unique (repeat ratio 0): the values are unique per key. */
    o.value_unique_ratio = 1;
    h = gen(&o, NULL);
    check_values(h);
    psi_history_free(h);

    /* The options need a range; ratios lie in [0, 1]; the zipf table is
     * bounded. */
    psi_diag d;
    o.value_range = 0;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_USAGE);
    o.value_range = N, o.value_unique_ratio = -1;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_USAGE);
    o.value_unique_ratio = 0, o.value_range = (1u << 20) + 1;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_LIMIT);
}

static void test_bad_options(void **state)
{
    (void)state;
    psi_gen_opts o;
    psi_history *h;
    psi_diag d;
    psi_gen_opts_default(&o);
    o.sessions = 0;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_USAGE);
    assert_null(h);
    psi_gen_opts_default(&o);
    o.read_ratio = 1.5;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_USAGE);
    psi_gen_opts_default(&o);
    o.keys = 0;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_USAGE);
    psi_gen_opts_default(&o);
    o.sessions = 100000;
    o.txns_per_session = 100000;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_ERR_LIMIT);
}

static void test_names(void **state)
{
    (void)state;
    psi_gen_mix m;
    for (int i = PSI_MIX_POLYSI; i <= PSI_MIX_HEAVY_WRITE; i++) {
        assert_true(psi_gen_mix_parse(psi_gen_mix_name((psi_gen_mix)i), &m));
        assert_int_equal(m, i);
    }
    psi_gen_dist dd;
    assert_true(psi_gen_dist_parse("hotspot", &dd) && dd == PSI_DIST_HOTSPOT);
    assert_true(psi_gen_dist_parse("zipfian", &dd) && dd == PSI_DIST_ZIPF);
    assert_false(psi_gen_dist_parse("normal", &dd));
    psi_gen_store s;
    assert_true(psi_gen_store_parse("ser", &s) && s == PSI_STORE_SER);
    assert_false(psi_gen_store_parse("rc", &s));
    unsigned mask;
    assert_true(psi_gen_faults_parse("lost-update,long-fork", &mask));
    assert_int_equal(mask,
                     PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE) | PSI_FAULT_BIT(PSI_FAULT_LONG_FORK));
    assert_true(psi_gen_faults_parse("none", &mask) && mask == 0);
    assert_false(psi_gen_faults_parse("lost-update,", &mask));
    assert_false(psi_gen_faults_parse("bogus", &mask));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_drop_aborted),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_mixes),
        cmocka_unit_test(test_distributions),
        cmocka_unit_test(test_long_txns),
        cmocka_unit_test(test_statuses),
        cmocka_unit_test(test_bad_options),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_retry),
        cmocka_unit_test(test_edge_shapes),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_value_distribution),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
