/* encode/'s results: theory edge ids map back to the polygraph edges they
 * were added for (psi_encoding_edge, psi_encoding_conflict_cycle), and the
 * local solve interpret/ uses (psi_encode_solve_sub) decides small
 * sub-histories like the whole check does, with edges switched off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"
#include "core/polygraph.h"
#include "encode/encode.h"
#include "encode/local.h"
#include "support/spec.h"

#include <stdlib.h>
#include <string.h>

typedef struct built {
    psi_history *h;
    psi_index idx;
    psi_polygraph g;
} built;

static void build(built *b, const char *spec)
{
    psi_diag d;
    b->h = spec_history(spec);
    assert_non_null(b->h);
    assert_int_equal(psi_index_build(b->h, &b->idx, &d), PSI_OK);
    psi_polygraph_opts po = {.all_pairs = true};
    assert_int_equal(psi_polygraph_build(b->h, &b->idx, &po, &b->g, &d), PSI_OK);
}

static void unbuild(built *b)
{
    psi_polygraph_free(&b->g);
    psi_index_free(&b->idx);
    psi_history_free(b->h);
}

typedef struct expect_ids {
    const psi_encoding *enc;
    const psi_polygraph *g;
    uint64_t next;
} expect_ids;

static bool expect_next(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    expect_ids *x = ctx;
    psi_edge e = psi_encoding_edge(x->enc, x->g, x->next++);
    assert_int_equal(e.from, from);
    assert_int_equal(e.to, to);
    assert_int_equal(e.type, type);
    assert_int_equal(e.key, key);
    assert_int_equal(e.origin, PSI_FROM_CONSTRAINT);
    return true;
}

/* Every theory edge id: the known edges, then each open constraint's
 * either side and or side, as documented in encode.h. */
static void test_edge_map(void **state)
{
    (void)state;
    built b;
    build(&b, "1:1:c w0=1 w1=1; 1:2:c r0=1 w0=2 w1=2; 2:3:c r0=1 r1=1 w0=3 w1=3; 3:4:c r1=_");
    psi_encoding enc;
    psi_diag d;
    psi_encode_opts eo = {0};
    assert_int_equal(psi_encode(&b.g, &eo, &enc, &d), PSI_OK);
    /* the known edges the theory got (encode/reduce.h), in known order */
    assert_true(enc.n_known_edges <= b.g.n_known);
    for (uint64_t i = 0; i < enc.n_known_edges; i++) {
        psi_edge e = psi_encoding_edge(&enc, &b.g, i);
        uint64_t k = enc.known_id ? enc.known_id[i] : i;
        assert_true(i == 0 || !enc.known_id || enc.known_id[i - 1] < k);
        assert_memory_equal(&e, &b.g.known[k], sizeof e);
    }
    expect_ids x = {.enc = &enc, .g = &b.g, .next = enc.n_known_edges};
    for (uint32_t c = 0; c < b.g.n_cons; c++) {
        if (b.g.cons[c].state != PSI_C_OPEN)
            continue;
        psi_constraint_for_each(&b.g, &b.g.cons[c], true, expect_next, &x);
        psi_constraint_for_each(&b.g, &b.g.cons[c], false, expect_next, &x);
    }
    assert_int_equal(x.next, enc.n_known_edges + enc.n_constraint_edges);
    psi_encoding_free(&enc);
    unbuild(&b);
}

/* A refuted history's conflict cycle comes back as chained edges. */
static void test_conflict_cycle(void **state)
{
    (void)state;
    built b;
    build(&b, "1:1:c w0=1; 1:2:c r0=1 w0=2; 2:3:c r0=1 w0=3");
    psi_encoding enc;
    psi_diag d;
    psi_encode_opts eo = {0};
    assert_int_equal(psi_encode(&b.g, &eo, &enc, &d), PSI_OK);
    assert_int_equal(psi_sat_solve(enc.sat), PSI_SAT_UNSAT);
    psi_edge *cyc;
    uint32_t n;
    assert_int_equal(psi_encoding_conflict_cycle(&enc, &b.g, &cyc, &n, &d), PSI_OK);
    assert_true(n > 0);
    for (uint32_t i = 0; i < n; i++)
        assert_int_equal(cyc[i].to, cyc[(i + 1) % n].from);
    free(cyc);
    psi_encoding_free(&enc);
    unbuild(&b);
}

/* Aborted attempts get no theory node (encode.h, node_map): the theory
 * numbers only the transactions some edge touches, in order, and its
 * answers (verdict, conflict cycle as polygraph edges) are unchanged. */
static void test_node_map(void **state)
{
    (void)state;
    /* Lost update among nine aborted attempts (one reads a write of
     * another aborted one; aborted reads take no part). */
    const char *lost = "1:1:c w0=1; 1:10:a w0=10; 1:11:a w0=11; 1:2:c r0=1 w0=2; "
                       "2:12:a r0=10 w0=12; 2:13:a w1=13; 2:14:a w1=14; 2:15:a w0=15; "
                       "2:16:a w1=16; 2:17:a w0=17; 2:3:c r0=1 w0=3";
    const char *skew = "1:1:c r1=_ r2=_ w1=1; 1:10:a w1=10; 1:11:a w2=11; 1:12:a w1=12; "
                       "2:13:a w2=13; 2:14:a w1=14; 2:15:a w2=15; 2:2:c r1=_ r2=_ w2=2";
    for (int i = 0; i < 4; i++) {
        bool ser = i % 2, refuted = i < 2 || ser;
        built b;
        build(&b, i < 2 ? lost : skew);
        psi_encoding enc;
        psi_diag d;
        psi_encode_opts eo = {.ser = ser};
        assert_int_equal(psi_encode(&b.g, &eo, &enc, &d), PSI_OK);
        assert_non_null(enc.node_map);
        /* the initial transaction and the committed ones, in order */
        uint32_t k = 0;
        for (uint32_t t = 0; t < b.h->n_txns; t++) {
            bool part = t == 0 || b.h->txns[t].status == PSI_TXN_COMMITTED;
            assert_int_equal(enc.node_map[t], part ? k++ : UINT32_MAX);
        }
        assert_int_equal(enc.n_theory_nodes, k);
        assert_int_equal(k, 4 - (i >= 2));
        assert_int_equal(psi_sat_solve(enc.sat), refuted ? PSI_SAT_UNSAT : PSI_SAT_SAT);
        if (refuted) {
            psi_edge *cyc;
            uint32_t n;
            assert_int_equal(psi_encoding_conflict_cycle(&enc, &b.g, &cyc, &n, &d), PSI_OK);
            assert_true(n > 0);
            for (uint32_t j = 0; j < n; j++) {
                assert_int_equal(cyc[j].to, cyc[(j + 1) % n].from);
                assert_int_equal(b.h->txns[cyc[j].from].status, PSI_TXN_COMMITTED);
            }
            free(cyc);
        }
        psi_encoding_free(&enc);
        unbuild(&b);
    }
}

static bool solve_sub(const char *spec, bool ser, int off_edge)
{
    built b;
    build(&b, spec);
    uint32_t n = b.h->n_txns, *txns = malloc(n * sizeof *txns), *local = malloc(n * sizeof *local);
    assert_non_null(txns);
    assert_non_null(local);
    for (uint32_t t = 0; t < n; t++)
        txns[t] = t, local[t] = UINT32_MAX;
    psi_sub_polygraph S;
    psi_diag d;
    assert_int_equal(psi_sub_polygraph_build(b.h, &b.idx, &b.g, txns, n, 100, local, &S, &d),
                     PSI_OK);
    if (off_edge >= 0)
        S.e[off_edge].on = 0;
    bool violation;
    assert_int_equal(psi_encode_solve_sub(&S, ser, &violation, &d), PSI_OK);
    psi_sub_polygraph_free(&S);
    free(txns);
    free(local);
    unbuild(&b);
    return violation;
}

static void test_solve_sub(void **state)
{
    (void)state;
    const char *lost = "1:1:c w0=1; 1:2:c r0=1 w0=2; 2:3:c r0=1 w0=3";
    const char *skew = "1:1:c r1=_ r2=_ w1=1; 2:2:c r1=_ r2=_ w2=2";
    assert_true(solve_sub(lost, false, -1));
    assert_true(solve_sub(lost, true, -1));
    assert_false(solve_sub(skew, false, -1));
    assert_true(solve_sub(skew, true, -1));
    /* Lost update without the WR edge 1 -> 3 (edge 4: after three SO and
     * WR 1 -> 2) is no violation any more. */
    assert_false(solve_sub(lost, false, 4));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edge_map),
        cmocka_unit_test(test_conflict_cycle),
        cmocka_unit_test(test_node_map),
        cmocka_unit_test(test_solve_sub),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
