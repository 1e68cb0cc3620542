/* Relay nodes for conditional readers' RW edges (encode/route.h): on
 * generated histories whose values repeat (every writer pair a
 * constraint, so conditional readers meet many open sides), the routed
 * and the direct encodings give the same answer under SI and SER; a
 * model's choice edges and a conflict's cycle come back between
 * transactions only, the cycle a closed walk with joined RW edges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"
#include "core/polygraph.h"
#include "encode/encode.h"
#include "workload/gen.h"

#include <stdlib.h>

static void check_cycle(const psi_encoding *enc, const psi_polygraph *g)
{
    psi_edge *cyc;
    uint32_t n;
    psi_diag d;
    assert_int_equal(psi_encoding_conflict_cycle(enc, g, &cyc, &n, &d), PSI_OK);
    for (uint32_t i = 0; i < n; i++) {
        assert_true(cyc[i].from < g->n_nodes && cyc[i].to < g->n_nodes);
        assert_int_equal(cyc[i].to, cyc[(i + 1) % n].from);
    }
    free(cyc);
}

static void check_model(const psi_encoding *enc, const psi_polygraph *g)
{
    psi_edge *e;
    uint64_t n;
    psi_diag d;
    assert_int_equal(psi_encoding_model_choice_edges(enc, &e, &n, &d), PSI_OK);
    for (uint64_t i = 0; i < n; i++) {
        assert_true(e[i].from < g->n_nodes && e[i].to < g->n_nodes);
        assert_true(e[i].from != e[i].to);
    }
    free(e);
}

static void test_routed_same_answer(void **state)
{
    (void)state;
    uint32_t routed = 0, unsat = 0, sat = 0;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.seed = seed;
        o.sessions = 2 + (uint32_t)(seed % 3);
        o.txns_per_session = 2 + (uint32_t)(seed / 3 % 3);
        o.ops_per_txn = 2 + (uint32_t)(seed / 9 % 3);
        o.keys = 1 + (uint32_t)(seed / 27 % 3);
        o.value_range = 1 + seed / 81 % 3;
        o.store = seed % 2 ? PSI_STORE_RANDOM : PSI_STORE_SI;
        o.retry_aborted = true;
        psi_history *h;
        psi_diag d;
        assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_OK);
        psi_index idx;
        psi_polygraph g;
        assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
        psi_polygraph_opts po = {.all_pairs = true};
        assert_int_equal(psi_polygraph_build(h, &idx, &po, &g, &d), PSI_OK);
        for (int ser = 0; ser < 2; ser++) {
            int res[2];
            for (int direct = 0; direct < 2; direct++) {
                psi_encoding enc;
                psi_encode_opts eo = {.ser = ser, .no_routing = direct};
                assert_int_equal(psi_encode(&g, &eo, &enc, &d), PSI_OK);
                routed += !direct && enc.n_relay;
                res[direct] = psi_sat_solve(enc.sat);
                if (!direct && res[direct] == PSI_SAT_UNSAT)
                    check_cycle(&enc, &g);
                if (!direct && res[direct] == PSI_SAT_SAT)
                    check_model(&enc, &g);
                psi_encoding_free(&enc);
            }
            assert_int_equal(res[0], res[1]);
            sat += res[0] == PSI_SAT_SAT;
            unsat += res[0] == PSI_SAT_UNSAT;
        }
        psi_polygraph_free(&g);
        psi_index_free(&idx);
        psi_history_free(h);
    }
    printf("routed encodings %u, sat %u, unsat %u\n", routed, sat, unsat);
    assert_true(routed > 100 && sat > 50 && unsat > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_routed_same_answer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
