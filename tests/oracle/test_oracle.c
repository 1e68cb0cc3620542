/* Unit tests of the brute-force oracle on hand-made histories whose verdicts
 * are known from the literature (Adya's anomalies, the PolySI paper's
 * examples, design.md decision 4). */
#include "oracle/oracle.h"

#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* Builds a history from a compact spec: transactions separated by ';', each
 * "SESSION[a|u]: op op ...", ops "rK=V" / "wK=V" (V = 0 reads the initial
 * value). 'a' marks an aborted, 'u' an unknown transaction. Transaction ids
 * are assigned in order. */
static psi_history *mk(const char *spec)
{
    psi_builder *b = psi_builder_new("spec", PSI_FMT_TEXT);
    assert_non_null(b);
    psi_diag d;
    psi_diag_clear(&d);
    const char *p = spec;
    uint64_t txn_id = 1;
    while (*p) {
        while (isspace((unsigned char)*p) || *p == ';')
            p++;
        if (!*p)
            break;
        char *end;
        uint64_t sess = strtoull(p, &end, 10);
        assert_true(end != p);
        p = end;
        psi_txn_status st = PSI_TXN_COMMITTED;
        if (*p == 'a')
            st = PSI_TXN_ABORTED, p++;
        else if (*p == 'u')
            st = PSI_TXN_UNKNOWN, p++;
        assert_int_equal(*p, ':');
        p++;
        assert_int_equal(psi_builder_begin(b, sess, txn_id++, 0, &d), PSI_OK);
        for (;;) {
            while (*p == ' ')
                p++;
            if (*p != 'r' && *p != 'w')
                break;
            psi_op_kind kind = *p == 'r' ? PSI_OP_READ : PSI_OP_WRITE;
            uint64_t key = strtoull(p + 1, &end, 10);
            assert_int_equal(*end, '=');
            uint64_t val = strtoull(end + 1, &end, 10);
            p = end;
            unsigned fl = (kind == PSI_OP_READ && val == 0) ? PSI_OPF_INIT : 0u;
            assert_int_equal(psi_builder_op(b, kind, key, val, fl, &d), PSI_OK);
        }
        assert_int_equal(psi_builder_end(b, st, &d), PSI_OK);
    }
    psi_history *h = NULL;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

/* Checks SI and SER verdicts of a spec. */
static void expect(const char *spec, oracle_verdict si, oracle_verdict ser)
{
    psi_history *h = mk(spec);
    oracle_result r;
    oracle_verdict v = oracle_check_ex(h, false, &r);
    if (v != si)
        fail_msg("SI of \"%s\": got %s (%s), want %s", spec, oracle_verdict_name(v),
                 oracle_reason_name(r.why), oracle_verdict_name(si));
    v = oracle_check_ex(h, true, &r);
    if (v != ser)
        fail_msg("SER of \"%s\": got %s (%s), want %s", spec, oracle_verdict_name(v),
                 oracle_reason_name(r.why), oracle_verdict_name(ser));
    psi_history_free(h);
}

static void expect_why(const char *spec, oracle_verdict v, oracle_reason why)
{
    psi_history *h = mk(spec);
    for (int ser = 0; ser < 2; ser++) {
        oracle_result r;
        oracle_verdict got = oracle_check_ex(h, ser, &r);
        if (got != v || r.why != why)
            fail_msg("%s of \"%s\": got %s (%s), want %s (%s)", ser ? "SER" : "SI", spec,
                     oracle_verdict_name(got), oracle_reason_name(r.why), oracle_verdict_name(v),
                     oracle_reason_name(why));
    }
    psi_history_free(h);
}

#define A ORACLE_ACCEPT
#define R ORACLE_REJECT

static void test_empty_and_serial(void **state)
{
    (void)state;
    expect("", A, A);
    expect("1:", A, A);
    expect("1: w1=1 w2=1; 1: r1=1 w1=2; 2: r1=2 r2=1", A, A);
    expect("1: r1=0 w1=1; 2: r1=1 w1=2; 3: r1=2 w1=3", A, A);
    expect("1: w1=1 r1=1 w1=2 r1=2", A, A);
    /* reading an older version is fine: the reader goes first */
    expect("1: w1=1; 2: r1=0", A, A);
}

static void test_lost_update(void **state)
{
    (void)state;
    expect("1: r1=0 w1=1; 2: r1=0 w1=2", R, R);
    /* lost update on a non-initial version */
    expect("1: w1=5; 2: r1=5 w1=6; 3: r1=5 w1=7", R, R);
    /* a blind overwrite is not a lost update */
    expect("1: r1=0 w1=1; 2: w1=2", A, A);
}

static void test_write_skew(void **state)
{
    (void)state;
    expect("1: r1=0 r2=0 w1=1; 2: r1=0 r2=0 w2=2", A, R);
}

static void test_long_fork(void **state)
{
    (void)state;
    expect("1: w1=1; 2: w2=1; 3: r1=1 r2=0; 4: r2=1 r1=0", R, R);
    /* same readers agreeing on the order are fine */
    expect("1: w1=1; 2: w2=1; 3: r1=1 r2=0; 4: r2=1 r1=1", A, A);
}

static void test_causality(void **state)
{
    (void)state;
    /* T3 sees T2, which saw T1, yet misses T1's write */
    expect("1: w1=1; 2: r1=1 w2=1; 3: r2=1 r1=0", R, R);
    /* fractured read: sees half of T1 */
    expect("1: w1=1 w2=1; 2: r1=1 r2=0", R, R);
    /* monotonic reads within a session */
    expect("1: w1=1; 1: w1=2; 2: r1=2; 2: r1=1", R, R);
}

static void test_init_after_own_write(void **state)
{
    (void)state;
    /* design.md decision 4: T0 precedes every session's first txn */
    expect("1: w1=1; 1: r1=0", R, R);
    /* another session may still read the initial value */
    expect("1: w1=1; 2: r1=0", A, A);
}

static void test_graph_free(void **state)
{
    (void)state;
    expect_why("1a: w1=1; 2: r1=1", R, ORACLE_WHY_ABORTED_READ);
    expect_why("1: w1=1 w1=2; 2: r1=1", R, ORACLE_WHY_INTERMEDIATE_READ);
    expect_why("1: w1=1 r1=2; 2: w1=2", R, ORACLE_WHY_INT);
    expect_why("1: r1=0 r1=1; 2: w1=1", R, ORACLE_WHY_INT);
    expect_why("1: w1=1 w1=2 r1=1", R, ORACLE_WHY_INT);
    expect_why("1: r1=7", R, ORACLE_WHY_NO_WRITER);
    expect_why("1: r1=1 w1=1", R, ORACLE_WHY_FUTURE_READ);
    /* a repeated value's read needs one valid writer */
    expect_why("1a: w1=1; 2: w1=1 w1=2; 3: r1=1", R, ORACLE_WHY_INTERMEDIATE_READ);
    expect("1a: w1=1; 2: w1=1; 3: r1=1", A, A);
    /* aborted transactions' own reads do not matter */
    expect("1a: r1=5 w1=1 r1=9; 2: r1=0", A, A);
}

static void test_repeated_values(void **state)
{
    (void)state;
    expect("1: w1=1; 2: w1=1", A, A);
    /* a lost update whose two overwrites write the same value */
    expect("1: r1=0 w1=5; 2: r1=0 w1=5", R, R);
    expect("1: r1=0 w1=5; 2: r1=0 w1=5; 3: r1=5", R, R);
    /* only the later writer (same session) explains both reads */
    expect("1: w1=5; 1: w1=5 w2=7; 2: r1=5 r2=7", A, A);
    /* reading y's initial value, x must come from the earlier writer */
    expect("1: w1=5; 3: w1=5 w2=7; 2: r1=5 r2=0", A, A);
    expect("1: w1=5; 1: w1=5 w2=7; 2: r1=5 r2=0", A, A);
    expect("1: w1=5 w2=7; 2: r1=5 r2=0", R, R);
    /* a read of 0 written explicitly: the writer or the initial value */
    expect("1: w1=1; 2: w1=0; 3: r1=1 r1=1; 3: r1=0", A, A);
    expect("1: w1=1; 1: r1=0", R, R);
    expect("1: w1=1; 2: r1=1 w1=0; 1: r1=0", A, A);
}

static void test_recorded_initial_state(void **state)
{
    (void)state;
    /* session 0's first transaction starts first and only writes 0: it is
     * the initial state, so a write skew stays one */
    expect("0: w1=0 w2=0; 1: r1=0 r2=0 w1=1; 2: r1=0 r2=0 w2=2", A, R);
    expect("0: w1=0; 1: r1=0 w1=1; 2: r1=0 w1=2", R, R);
    /* floating, the writer of 0 could run between them and hide it */
    expect("5: w1=0 w2=0; 1: r1=0 r2=0 w1=1; 2: r1=0 r2=0 w2=2", A, A);
}

static void test_unknown(void **state)
{
    (void)state;
    /* an unknown txn nobody reads takes no part */
    expect("1u: r1=0 w1=1; 2: r1=0 w1=2", A, A);
    /* read by a committed txn: it takes part, and loses an update */
    expect("1u: r1=0 w1=1; 2: r1=0 w1=2; 3: r1=1", R, R);
    /* transitively: 3 reads 2u which reads 1u */
    expect("1u: r3=0 w3=1 w1=1; 4: r3=0 w3=2; 2u: r1=1 w2=1; 3: r2=1", R, R);
    expect("1u: r3=0 w3=1 w1=1; 4: r3=0 w3=2; 2u: r1=1 w2=1", A, A);
    /* an aborted txn is never revived by a reader */
    expect_why("1a: w1=1; 2u: r1=1 w2=1; 3: r2=1", R, ORACLE_WHY_ABORTED_READ);
}

static void test_too_big(void **state)
{
    (void)state;
    /* 10 blind writers of one key: 10! > 2e6 orders */
    psi_history *h = mk("1: w1=1; 2: w1=2; 3: w1=3; 4: w1=4; 5: w1=5; 6: w1=6; 7: w1=7;"
                        "8: w1=8; 9: w1=9; 10: w1=10");
    assert_int_equal(oracle_check(h, false), ORACLE_TOO_BIG);
    psi_history_free(h);
    /* 8 writers over two keys stay within bounds and are accepted */
    expect("1: w1=1; 2: w1=2; 3: w1=3; 4: w1=4; 5: w2=5; 6: w2=6; 7: w2=7; 8: w2=8", A, A);
}

static void test_rmw_and_ser_only(void **state)
{
    (void)state;
    /* read-only anomaly (Fekete et al.): SI allows it, SER does not */
    expect("1: r1=0 r2=0 w2=1; 2: r1=0 w1=1; 3: r1=1 r2=0", A, R);
    /* G-single: T2 reads x new, y old; T1 wrote both */
    expect("1: w1=1 w2=1; 2: r2=0 r1=1", R, R);
}

static void test_session_order_details(void **state)
{
    (void)state;
    /* SO skips an aborted txn in the middle: T0 still precedes the session */
    expect("1: w1=1; 1a: w1=2; 1: r1=0", R, R);
    /* a txn that reads x and writes x sits after its source in x's order */
    expect("1: w1=1; 2: r1=1 w1=2; 3: r1=2; 3: r1=1", R, R);
    expect("1: w1=1; 2: r1=1 w1=2; 3: r1=1; 3: r1=2", A, A);
    /* internal reads see the txn's own latest write of that key only */
    expect("1: w1=1 w2=5 r1=1 r2=5", A, A);
    /* SER-only cycle of three: each txn reads one key's initial value and
     * writes the next key (a three-way write skew) */
    expect("1: r1=0 w2=1; 2: r2=0 w3=1; 3: r3=0 w1=1", A, R);
    /* an unknown reader does not make its source take part */
    expect("1u: r1=0 w1=1; 2: r1=0 w1=2; 3u: r1=1", A, A);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_and_serial),
        cmocka_unit_test(test_lost_update),
        cmocka_unit_test(test_write_skew),
        cmocka_unit_test(test_long_fork),
        cmocka_unit_test(test_causality),
        cmocka_unit_test(test_init_after_own_write),
        cmocka_unit_test(test_graph_free),
        cmocka_unit_test(test_repeated_values),
        cmocka_unit_test(test_recorded_initial_state),
        cmocka_unit_test(test_unknown),
        cmocka_unit_test(test_too_big),
        cmocka_unit_test(test_rmw_and_ser_only),
        cmocka_unit_test(test_session_order_details),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
