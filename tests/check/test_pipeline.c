/* The whole check (validate, polygraph, prune, encode, solve) on classic
 * anomalies with known answers, under SI and SER, with every combination of
 * pruning, coalescing and theory propagation; the oracle must agree too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "oracle/oracle.h"
#include "support/spec.h"

#include <stdio.h>
#include <string.h>

typedef struct expect {
    const char *name;
    const char *spec;
    psi_verdict si, ser;
} expect;

static const expect cases[] = {
    {"serial", "1:1:c w1=1; 1:2:c r1=1 w1=2; 2:3:c r1=2", PSI_ACCEPT, PSI_ACCEPT},
    {"blind writes", "1:1:c w1=1; 2:2:c w1=2; 3:3:c w1=3", PSI_ACCEPT, PSI_ACCEPT},
    {"lost update", "1:1:c w0=1; 1:2:c r0=1 w0=2; 2:3:c r0=1 w0=3", PSI_REJECT, PSI_REJECT},
    {"write skew", "1:1:c r1=_ r2=_ w1=1; 2:2:c r1=_ r2=_ w2=2", PSI_ACCEPT, PSI_REJECT},
    {"long fork", "1:1:c w1=1; 2:2:c w2=1; 3:3:c r1=1 r2=_; 4:4:c r1=_ r2=1", PSI_REJECT,
     PSI_REJECT},
    {"session misses own write", "1:1:c w1=1; 1:2:c r1=_", PSI_REJECT, PSI_REJECT},
    {"causality violation", "1:1:c w1=1; 2:2:c r1=1 w2=1; 3:3:c r2=1 r1=_", PSI_REJECT, PSI_REJECT},
    {"intermediate read", "1:1:c w1=1 w1=2; 2:2:c r1=1", PSI_REJECT, PSI_REJECT},
    {"aborted read", "1:1:a w1=1; 2:2:c r1=1", PSI_REJECT, PSI_REJECT},
    {"unknown outcome observed", "1:1:u w1=1; 2:2:c r1=1", PSI_ACCEPT, PSI_ACCEPT},
    {"unknown outcome unobserved", "1:1:u w1=1; 2:2:c r1=_", PSI_ACCEPT, PSI_ACCEPT},
    {"int violation", "1:1:c w1=1 r1=2; 2:2:c w1=2", PSI_REJECT, PSI_REJECT},
    {"read-only anomaly (Fekete)", "1:1:c r1=_ r2=_ w2=1; 2:2:c r1=_ w1=1; 3:3:c r1=1 r2=_",
     PSI_ACCEPT, PSI_REJECT},
    {"version order via readers",
     "1:1:c w1=1; 2:2:c w1=2; 3:3:c w1=3; 4:4:c r1=1; 4:5:c r1=2; 4:6:c r1=3", PSI_ACCEPT,
     PSI_ACCEPT},
    {"stale read after seeing newer", "1:1:c w1=1; 2:2:c w1=2; 4:4:c r1=1; 4:5:c r1=2; 4:6:c r1=1",
     PSI_REJECT, PSI_REJECT},
    {"fractured reads", "1:1:c w1=1 w2=1; 2:2:c w1=2 w2=2; 3:3:c r1=2 r2=1; 4:4:c r1=1 r2=2",
     PSI_REJECT, PSI_REJECT},
    /* Repeated values (issue 11): reads with a choice of writers. */
    {"lost update writing one value twice", "1:1:c r1=_ w1=5; 2:2:c r1=_ w1=5", PSI_REJECT,
     PSI_REJECT},
    {"lost update writing one value twice, read", "1:1:c r1=_ w1=5; 2:2:c r1=_ w1=5; 3:3:c r1=5",
     PSI_REJECT, PSI_REJECT},
    {"only the later writer explains the other read",
     "1:1:c w1=5; 1:2:c w1=5 w2=7; 2:3:c r1=5 r2=7", PSI_ACCEPT, PSI_ACCEPT},
    {"only the earlier writer explains the other read",
     "1:1:c w1=5; 3:2:c w1=5 w2=7; 2:3:c r1=5 r2=_", PSI_ACCEPT, PSI_ACCEPT},
    {"no writer explains both reads", "3:2:c w1=5 w2=7; 3:4:c w1=5; 2:3:c r1=5 r2=_", PSI_REJECT,
     PSI_REJECT},
    {"a read of 0 written again", "1:1:c w1=3; 1:2:c w1=0; 2:3:c r1=3; 2:4:c r1=_", PSI_ACCEPT,
     PSI_ACCEPT},
    {"recorded initial state, then a lost update", "0:100:c w1=0; 1:1:c r1=_ w1=1; 2:2:c r1=_ w1=2",
     PSI_REJECT, PSI_REJECT},
    {"recorded initial state, then a write skew",
     "0:100:c w1=0 w2=0; 1:1:c r1=_ r2=_ w1=1; 2:2:c r1=_ r2=_ w2=2", PSI_ACCEPT, PSI_REJECT},
};

static psi_verdict run(const expect *e, bool ser, unsigned flags, psi_reject_reason *why)
{
    psi_history *h = spec_history(e->spec);
    assert_non_null(h);
    psi_check_opts o = {.ser = ser,
                        .no_pruning = flags & 1,
                        .no_coalescing = flags & 2,
                        .no_theory_propagation = flags & 4};
    psi_check_result r;
    psi_diag d;
    psi_status st = psi_check(h, &o, &r, &d);
    if (st != PSI_OK)
        fail_msg("%s: %s", e->name, d.msg);
    psi_verdict v = r.verdict;
    *why = r.reason;
    if (v == PSI_REJECT && (r.reason == PSI_BY_KNOWN_CYCLE || r.reason == PSI_BY_PRUNING))
        assert_true(r.prune.cycle_len[0] > 0); /* a cycle is always kept */
    psi_check_result_free(&r);
    psi_history_free(h);
    return v;
}

static void test_classics(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const expect *e = &cases[i];
        for (int ser = 0; ser < 2; ser++) {
            psi_verdict want = ser ? e->ser : e->si;
            psi_history *h = spec_history(e->spec);
            assert_non_null(h);
            oracle_result orr;
            oracle_check_ex(h, ser, &orr);
            psi_history_free(h);
            oracle_verdict ow = want == PSI_ACCEPT ? ORACLE_ACCEPT : ORACLE_REJECT;
            if (orr.verdict != ow)
                fail_msg("%s (%s): the oracle says %d, the case says %d", e->name,
                         ser ? "SER" : "SI", orr.verdict, ow);
            for (unsigned flags = 0; flags < 8; flags++) {
                psi_reject_reason why;
                psi_verdict got = run(e, ser, flags, &why);
                if (got != want)
                    fail_msg("%s (%s, flags %u): got %s, want %s", e->name, ser ? "SER" : "SI",
                             flags, got == PSI_ACCEPT ? "accept" : "reject",
                             want == PSI_ACCEPT ? "accept" : "reject");
                /* Without pruning, constraint contradictions reach the solver. */
                if ((flags & 1) && got == PSI_REJECT)
                    assert_true(why != PSI_BY_PRUNING);
            }
        }
    }
}

static void test_stats_count_the_stages(void **state)
{
    (void)state;
    psi_history *h = spec_history("1:1:c w1=1 w2=1; 2:2:c w1=2; 3:3:c r1=1; 3:4:c w2=2");
    assert_non_null(h);
    psi_check_result r;
    psi_diag d;
    psi_check_opts o = {0};
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    assert_int_equal(r.stats.sessions, 3);
    assert_int_equal(r.stats.transactions, 4);
    assert_int_equal(r.stats.committed, 4);
    /* Writer pairs: (1,2) on key 1 and (1,4) on key 2. */
    assert_int_equal(r.stats.constraints_before, 2);
    assert_true(r.stats.known_edges_before >= 4); /* SO from init to 3 sessions + SO + WR */
    assert_true(r.stats.constraints_after <= r.stats.constraints_before);
    assert_true(r.stats.known_edges_after >= r.stats.known_edges_before);
    assert_true(r.stats.prune_rounds >= 1);
    psi_check_result_free(&r);
    psi_history_free(h);
}

static void test_no_coalescing_keeps_one_constraint_per_key(void **state)
{
    (void)state;
    const char *spec = "1:1:c w1=1 w2=1 w3=1; 2:2:c w1=2 w2=2 w3=2";
    for (int nc = 0; nc < 2; nc++) {
        psi_history *h = spec_history(spec);
        psi_check_result r;
        psi_diag d;
        psi_check_opts o = {.no_coalescing = nc};
        assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(r.stats.constraints_generated, nc ? 3 : 1);
        assert_int_equal(r.stats.constraints_before, 3); /* writer pairs, per key */
        psi_check_result_free(&r);
        psi_history_free(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classics),
        cmocka_unit_test(test_stats_count_the_stages),
        cmocka_unit_test(test_no_coalescing_keeps_one_constraint_per_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
