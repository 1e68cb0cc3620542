/* Bad input (issue 11): a read whose (key, value) 10^5 transactions wrote
 * has 10^5 candidate writers. The check must stay linear in them (no
 * per-pair structure, no hang) and pruning must remove the candidates the
 * known graph rules out before the solver sees them:
 *   - no other information: every candidate stays possible (accept);
 *   - the reader also sees a unique write of writer k: the candidates
 *     overwritten by a writer before k are excluded;
 *   - the reader sees a unique write of the last writer, which overwrote
 *     the value: every candidate is excluded (reject, with a cycle).
 * Writers are one session's transactions 1..N (each writes key 1 = 1,
 * writer k also key 2 = 7); the reader is alone in session 2. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"

#include <stdio.h>

#define N_WRITERS 100000u

typedef enum scenario {
    FREE = 0,     /* the reader reads key 1 = 1 only */
    SEES_K = 1,   /* ... and key 2 = 7, written by writer K */
    SEES_LAST = 2 /* ... and key 2 = 7, written by the last writer, which writes key 1 = 2 */
} scenario;

#define K (N_WRITERS / 2)

static psi_history *build(scenario sc)
{
    psi_diag d;
    psi_builder *b = psi_builder_new("many-candidates", PSI_FMT_TEXT);
    assert_non_null(b);
    uint64_t line = 0;
    for (uint32_t i = 1; i <= N_WRITERS; i++) {
        bool last = i == N_WRITERS;
        assert_int_equal(psi_builder_begin(b, 1, i, ++line, &d), PSI_OK);
        assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 1, sc == SEES_LAST && last ? 2 : 1, 0, &d),
                         PSI_OK);
        if ((sc == SEES_K && i == K) || (sc == SEES_LAST && last))
            assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 2, 7, 0, &d), PSI_OK);
        assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    }
    assert_int_equal(psi_builder_begin(b, 2, N_WRITERS + 1, ++line, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 1, 0, &d), PSI_OK);
    if (sc != FREE)
        assert_int_equal(psi_builder_op(b, PSI_OP_READ, 2, 7, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

static void run(scenario sc, bool ser)
{
    psi_history *h = build(sc);
    psi_check_opts o = {.ser = ser};
    psi_check_result r;
    psi_diag d;
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    /* One read with a choice; its candidates are the writers of 1 = 1. */
    assert_int_equal(r.idx.n_amb, 1);
    uint32_t n = r.idx.amb[0].n;
    assert_int_equal(n, sc == SEES_LAST ? N_WRITERS - 1 : N_WRITERS);
    uint32_t excluded = 0, open = 0;
    for (uint32_t j = 0; j < n; j++) {
        uint8_t cs = r.g.choice_state[r.idx.amb[0].first + j];
        excluded += cs == PSI_CH_EXCLUDED;
        open += cs == PSI_CH_OPEN;
    }
    /* Linear, not quadratic: a few edges per transaction and candidate. */
    assert_true(r.stats.known_edges_after < 4u * N_WRITERS);
    assert_true(r.g.n_cond < 2u * N_WRITERS);
    switch (sc) {
    case FREE:
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(excluded, 0);
        break;
    case SEES_K:
        /* Writers 1..K-1 are overwritten by a writer the reader sees. */
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(excluded, K - 1);
        assert_int_equal(open, N_WRITERS - K + 1);
        break;
    case SEES_LAST:
        /* All but one excluded by pruning (a read keeps its last one for
         * the solver, which refutes it with a cycle). */
        assert_int_equal(r.verdict, PSI_REJECT);
        assert_true(excluded >= N_WRITERS - 2);
        break;
    }
    psi_check_result_free(&r);
    psi_history_free(h);
}

static void test_unconstrained(void **state)
{
    (void)state;
    run(FREE, false);
    run(FREE, true);
}

static void test_sees_writer_k(void **state)
{
    (void)state;
    run(SEES_K, false);
    run(SEES_K, true);
}

static void test_sees_last_writer(void **state)
{
    (void)state;
    run(SEES_LAST, false);
    run(SEES_LAST, true);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unconstrained),
        cmocka_unit_test(test_sees_writer_k),
        cmocka_unit_test(test_sees_last_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
