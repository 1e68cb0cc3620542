/* Naming under SER must not blame snapshot isolation: on histories that
 * satisfy SI (a fault-free simulated SI store) but not SER, the anomaly can
 * never be one SI forbids (G0, G1c, G-single, long fork, G-nonadjacent,
 * lost update); it is a G2-item (write skew with two transactions). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "interpret/explain.h"
#include "workload/gen.h"

#include <stdio.h>
#include <string.h>

static void test_si_histories_rejected_under_ser(void **state)
{
    (void)state;
    unsigned rejected = 0, skews = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.sessions = 5;
        o.txns_per_session = 20;
        o.ops_per_txn = 6;
        o.keys = 20;
        o.dist = PSI_DIST_UNIFORM;
        o.store = PSI_STORE_SI;
        o.seed = seed;
        psi_history *h;
        psi_diag d;
        assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_OK);
        psi_check_result r;
        psi_check_opts si = {0}, ser = {.ser = true};
        assert_int_equal(psi_check(h, &si, &r, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT); /* the store implements SI */
        psi_check_result_free(&r);
        assert_int_equal(psi_check(h, &ser, &r, &d), PSI_OK);
        if (r.verdict == PSI_REJECT) {
            rejected++;
            psi_cex cx;
            psi_cex_opts xo = {.ser = true};
            assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
            psi_cex_kind k = cx.kind;
            if (k == PSI_CEX_G0 || k == PSI_CEX_G1C || k == PSI_CEX_G_SINGLE ||
                k == PSI_CEX_LONG_FORK || k == PSI_CEX_G_NONADJACENT || k == PSI_CEX_LOST_UPDATE)
                fail_msg("seed %llu: an SI history rejected under SER is named '%s': %s",
                         (unsigned long long)seed, psi_cex_kind_name(k), cx.summary);
            skews += k == PSI_CEX_G2_ITEM;
            psi_cex_free(&cx);
        }
        psi_check_result_free(&r);
        psi_history_free(h);
    }
    printf("%u of 60 SI histories rejected under SER, %u named G2-item\n", rejected, skews);
    assert_true(rejected >= 10);
    assert_true(skews >= 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_si_histories_rejected_under_ser),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
