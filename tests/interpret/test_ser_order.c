/* Serial orders of sub-histories replayed without the pipeline
 * (interpret/ser_order.h), against the pipeline's own verdicts on the same
 * sub-histories (interpret/sub_check.h): shrinking a counterexample takes
 * a replayed order as the proof that a sub-history is accepted, so the
 * replay must never accept what the pipeline rejects, and must accept
 * every model the pipeline finds (or the shrink learns nothing).
 * Random subsets of generated SI-store histories with repeated values,
 * checked under SER:
 *  - an accepted subset's model is a serial order by the replay; a member
 *    taken out of it goes back in (its old place works), and two members
 *    of one session swapped are refused;
 *  - a rejected subset: for members whose absence the pipeline accepts,
 *    the model without them takes them back nowhere.
 * And the cores' solver (encode/local.h, psi_sub_cores), which shrinking
 * asks before the pipeline, on nested and random subsets of one
 * sub-polygraph: the same verdict as the pipeline; an accept's order is
 * a serial order by the replay, and a violation's core is a violation by
 * the pipeline. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "encode/local.h"
#include "interpret/local.h"
#include "interpret/ser_order.h"
#include "interpret/sub_check.h"
#include "workload/gen.h"

#include <stdlib.h>
#include <string.h>

static psi_history *gen_ser(uint32_t txns, uint64_t value_range, uint64_t seed, psi_check_result *r)
{
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.sessions = 10;
    o.txns_per_session = txns;
    o.ops_per_txn = 6;
    o.keys = 200;
    o.dist = PSI_DIST_ZIPF;
    o.value_range = value_range;
    o.keep_aborted = false;
    o.seed = seed;
    psi_history *h;
    psi_diag d;
    if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
        fail_msg("generate: %s", d.msg);
    psi_check_opts co = {.ser = true};
    assert_int_equal(psi_check(h, &co, r, &d), PSI_OK);
    return h;
}

static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

/* The pipeline on txns[0..n) (sorted): 1 rejected, 0 accepted with its
 * model in order[0..*no), -1 accepted without one. */
static int run(psi_subcheck *sc, const uint32_t *txns, uint32_t n, uint32_t *order, uint32_t *no)
{
    psi_subrun r = {0};
    psi_diag d;
    bool violation = false;
    sc->keep_model = true;
    if (psi_subcheck_run(sc, txns, n, &violation, &r, &d) != PSI_OK)
        fail_msg("re-check: %s", d.msg);
    int ret = violation ? 1 : psi_subrun_ser_order(&r, order, no, &d) == PSI_OK ? 0 : -1;
    psi_subrun_free(&r);
    return ret;
}

static void set_to(psi_serord *so, const psi_history *h, const uint8_t *in)
{
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (in[t] && !so->in[t])
            psi_serord_add(so, t);
        else if (!in[t] && so->in[t])
            psi_serord_remove(so, t);
    }
}

/* A generated SER history with its check, its replay and its re-checks
 * over sub-histories: what both tests below start from. */
typedef struct fixture {
    psi_check_result r;
    psi_history *h;
    psi_serord so;
    psi_subcheck sc;
} fixture;

static void fixture_open(fixture *f, uint32_t txns, uint64_t values, uint64_t seed)
{
    f->h = gen_ser(txns, values, seed, &f->r);
    psi_diag d;
    bool usable = false;
    assert_int_equal(psi_serord_init(&f->so, f->h, &f->r.idx, &usable, &d), PSI_OK);
    assert_true(usable);
    assert_int_equal(psi_subcheck_init(&f->sc, f->h, &f->r, NULL, &d), PSI_OK);
}

/* Empties the replay's set (its free asserts nothing is in) and frees. */
static void fixture_close(fixture *f, uint8_t *in)
{
    memset(in, 0, f->h->n_txns);
    set_to(&f->so, f->h, in);
    psi_subcheck_free(&f->sc);
    psi_serord_free(&f->so);
    psi_check_result_free(&f->r);
    psi_history_free(f->h);
}

static void test_ser_order_agrees_with_pipeline(void **state)
{
    (void)state;
    uint64_t rnd = 42;
    uint32_t accepts = 0, rejects = 0, refused = 0;
    for (uint64_t seed = 1; seed <= 2; seed++) {
        fixture f;
        fixture_open(&f, 60, seed == 2 ? 2 : 4, seed);
        psi_history *h = f.h;
        psi_serord *so = &f.so;
        psi_subcheck *sc = &f.sc;
        uint32_t nt = h->n_txns;
        uint32_t *txns = malloc(nt * sizeof *txns), *order = malloc(nt * sizeof *order);
        uint32_t *less = malloc(nt * sizeof *less), *out = malloc((nt + 1) * sizeof *out);
        uint8_t *in = calloc(nt, 1);
        assert_true(txns && order && less && out && in);
        for (int k = 0; k < 25; k++) {
            /* a subset of a third to all of the transactions */
            uint32_t keep = 3 + (uint32_t)(next(&rnd) % 3), n = 0;
            for (uint32_t t = 1; t < nt; t++) {
                in[t] = keep >= 5 || next(&rnd) % 5 < keep;
                if (in[t])
                    txns[n++] = t;
            }
            uint32_t no = 0;
            int v = run(sc, txns, n, order, &no);
            set_to(so, h, in);
            if (v == 0) {
                accepts++;
                assert_int_equal(no, n);
                assert_true(psi_serord_valid(so, order, no));
                /* a member out and back in: its old place works */
                uint32_t at = (uint32_t)(next(&rnd) % no), u = order[at];
                memcpy(less, order, at * sizeof *less);
                memcpy(less + at, order + at + 1, (no - at - 1) * sizeof *less);
                assert_true(psi_serord_insert(so, less, no - 1, u, out));
                assert_true(psi_serord_valid(so, out, no));
                /* two of a session swapped break session order */
                for (uint32_t i = 0; i + 1 < no; i++)
                    for (uint32_t j = i + 1; j < no; j++)
                        if (h->txns[order[i]].session == h->txns[order[j]].session) {
                            memcpy(out, order, no * sizeof *out);
                            out[i] = order[j];
                            out[j] = order[i];
                            assert_false(psi_serord_valid(so, out, no));
                            refused++;
                            i = j = no; /* one pair is enough */
                        }
                continue;
            }
            if (v != 1)
                continue;
            rejects++;
            /* members whose absence is accepted come back nowhere */
            for (int tries = 0; tries < 4; tries++) {
                uint32_t drop = (uint32_t)(next(&rnd) % n), m = 0;
                for (uint32_t i = 0; i < n; i++)
                    if (i != drop)
                        less[m++] = txns[i];
                if (run(sc, less, m, order, &no) != 0)
                    continue;
                assert_int_equal(no, m);
                set_to(so, h, in); /* the whole rejected subset */
                if (psi_serord_insert(so, order, no, txns[drop], out))
                    fail_msg("seed %llu: a rejected subset of %u has a serial order",
                             (unsigned long long)seed, n);
            }
        }
        fixture_close(&f, in);
        free(txns);
        free(order);
        free(less);
        free(out);
        free(in);
    }
    print_message("%u accepted subsets, %u rejected, %u session swaps refused\n", accepts, rejects,
                  refused);
    /* both sides were exercised */
    assert_true(accepts >= 5 && rejects >= 5 && refused >= 5);
}

static void test_sub_cores_agree_with_pipeline(void **state)
{
    (void)state;
    uint64_t rnd = 7;
    uint32_t accepts = 0, rejects = 0, smaller = 0;
    for (uint64_t seed = 1; seed <= 3; seed++) {
        fixture f;
        fixture_open(&f, 30, seed == 2 ? 2 : 4, seed);
        psi_history *h = f.h;
        psi_serord *so = &f.so;
        psi_subcheck *sc = &f.sc;
        psi_diag d;
        uint32_t nt = h->n_txns;
        uint32_t *txns = malloc(nt * sizeof *txns), *order = malloc(nt * sizeof *order);
        uint32_t *local = malloc(nt * sizeof *local), *ord = malloc(nt * sizeof *ord);
        uint8_t *in = calloc(nt, 1), *core = calloc(nt, 1);
        assert_true(txns && order && local && ord && in && core);
        /* the sub-polygraph of every transaction; nodes are transactions */
        for (uint32_t t = 0; t < nt; t++)
            txns[t] = t, local[t] = UINT32_MAX;
        psi_sub_polygraph S;
        assert_int_equal(
            psi_sub_polygraph_build(h, &f.r.idx, &f.r.g, txns, nt, 1u << 22, local, &S, &d),
            PSI_OK);
        psi_sub_cores *x = NULL;
        assert_int_equal(psi_sub_cores_new(&S, h, -1, &x, &d), PSI_OK);
        for (uint32_t t = 0; t < nt; t++)
            in[t] = 1;
        for (int k = 0; k < 30; k++) {
            /* nested: every third subset drops a few of the last one's
             * members; the others are fresh random subsets */
            for (uint32_t t = 1; t < nt; t++)
                in[t] = k % 3 ? in[t] && next(&rnd) % 16 != 0 : next(&rnd) % 6 != 0;
            uint32_t n = 0;
            for (uint32_t t = 1; t < nt; t++)
                if (in[t])
                    txns[n++] = t;
            in[PSI_INIT_TXN] = 1;
            bool decided = false, violation = false;
            uint32_t no = 0, nord = 0;
            memset(core, 0, nt);
            assert_int_equal(psi_sub_cores_solve(x, in, &decided, &violation, core, ord, &nord, &d),
                             PSI_OK);
            assert_true(decided);
            int v = run(sc, txns, n, order, &no);
            assert_int_equal(violation, v == 1);
            if (!violation) {
                accepts++;
                uint32_t m = 0;
                for (uint32_t i = 0; i < nord; i++)
                    if (ord[i] != PSI_INIT_TXN)
                        order[m++] = ord[i];
                assert_int_equal(m, n);
                set_to(so, h, in);
                assert_true(psi_serord_valid(so, order, m));
                continue;
            }
            rejects++;
            uint32_t nc = 0;
            for (uint32_t t = 1; t < nt; t++) {
                assert_true(!core[t] || in[t]);
                if (core[t])
                    txns[nc++] = t;
            }
            smaller += nc < n;
            if (run(sc, txns, nc, order, &no) != 1)
                fail_msg("seed %llu: a core of %u (of %u) is no violation",
                         (unsigned long long)seed, nc, n);
        }
        psi_sub_cores_free(x);
        psi_sub_polygraph_free(&S);
        fixture_close(&f, in);
        free(txns);
        free(order);
        free(local);
        free(ord);
        free(in);
        free(core);
    }
    print_message("cores: %u accepted subsets, %u rejected (%u cores smaller)\n", accepts, rejects,
                  smaller);
    assert_true(accepts >= 5 && rejects >= 5 && smaller >= 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ser_order_agrees_with_pipeline),
        cmocka_unit_test(test_sub_cores_agree_with_pipeline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
