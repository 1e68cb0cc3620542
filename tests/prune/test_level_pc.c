/* PC's pruning on the reduced known graph (prune/level_pc.h) against the
 * unreduced path (psi_prune_opts.pc_unreduced) on random histories: the
 * same outcome, rounds, known edges in the same order, constraint and
 * choice states (so the solver gets the same formula); every reported
 * cycle is closed and forbidden under PC (each RW edge right after an SO
 * or WR edge). And the reach itself: on the pruned polygraph, the reduced
 * and the whole graph give every transaction the same transactions it
 * reaches, and the same answer on cycles, while the reduced one has fewer
 * edges. Histories from every generator store, with faults, unknown
 * outcomes and repeated values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"
#include "core/polygraph.h"
#include "prune/level_pc.h"
#include "prune/prune.h"
#include "prune/reach.h"
#include "support/random_history.h"
#include "support/same_graph.h"

#include <stdlib.h>
#include <string.h>

/* Every generator store, faults, repeated values, unknown outcomes. */
static const psi_gen_store STORES[] = {PSI_STORE_SI, PSI_STORE_SER, PSI_STORE_RC, PSI_STORE_RANDOM,
                                       PSI_STORE_SI};
static const psi_test_shape SHAPE = {.salt = 7919,
                                     .sessions = {2, 9},
                                     .txns = {3, 14},
                                     .ops = {1, 6},
                                     .keys = {10, 30},
                                     .few_keys = {2, 5},
                                     .stores = STORES,
                                     .n_stores = 5,
                                     .fault_one_in = 3,
                                     .fault_shift = 38,
                                     .fault_prob = 0.1};

static void gen_history(uint64_t seed, psi_history **h)
{
    psi_gen_opts o;
    uint64_t x = psi_test_gen_opts(seed, &SHAPE, &o);
    if ((x >> 44) % 5 == 0)
        o.value_range = 1 + (x >> 46) % 3;
    if ((x >> 50) % 6 == 0)
        o.unknown_ratio = 0.2;
    psi_test_generate(&o, h);
}

/* The cycle is closed and forbidden under PC. */
static void check_cycle(const psi_edge *c, uint32_t n, uint64_t seed)
{
    if (!n)
        fail_msg("seed %llu: empty cycle", (unsigned long long)seed);
    for (uint32_t i = 0; i < n; i++) {
        const psi_edge *e = &c[i], *next = &c[(i + 1) % n], *prev = &c[(i + n - 1) % n];
        if (e->to != next->from)
            fail_msg("seed %llu: cycle edge %u ends at %u, the next starts at %u",
                     (unsigned long long)seed, i, e->to, next->from);
        if (psi_edge_is_anti((psi_edge_type)e->type) && prev->type != PSI_EDGE_SO &&
            prev->type != PSI_EDGE_WR)
            fail_msg("seed %llu: cycle edge %u is RW after a %u edge", (unsigned long long)seed, i,
                     prev->type);
    }
}

typedef struct pruned {
    psi_index idx;
    psi_polygraph g;
    psi_prune_result res;
} pruned;

static void prune_pc(psi_history *h, bool unreduced, pruned *p)
{
    psi_diag d;
    assert_int_equal(psi_index_build(h, &p->idx, &d), PSI_OK);
    psi_polygraph_opts po = {0};
    assert_int_equal(psi_polygraph_build(h, &p->idx, &po, &p->g, &d), PSI_OK);
    psi_prune_opts opts = {
        .dep_only = true, .pc = true, .exact = true, .threads = 1, .pc_unreduced = unreduced};
    assert_int_equal(psi_prune(h, &p->g, &opts, &p->res, &d), PSI_OK);
}

static void pruned_free(pruned *p)
{
    psi_prune_result_free(&p->res);
    psi_polygraph_free(&p->g);
    psi_index_free(&p->idx);
}

/* The two pruning runs agree on everything the solver and the verdict
 * read. */
static void assert_same_pruning(const pruned *a, const pruned *b, uint64_t seed)
{
    const psi_prune_result *x = &a->res, *y = &b->res;
    if (x->outcome != y->outcome || x->rounds != y->rounds || x->seeded != y->seeded ||
        x->resolved != y->resolved || x->remaining != y->remaining ||
        x->remaining_unknown_deps != y->remaining_unknown_deps ||
        (x->outcome == PSI_PRUNE_BOTH_SIDES && x->constraint != y->constraint))
        fail_msg("seed %llu: reduced outcome %d rounds %u resolved %u remaining %u, unreduced "
                 "%d %u %u %u",
                 (unsigned long long)seed, x->outcome, x->rounds, x->resolved, x->remaining,
                 y->outcome, y->rounds, y->resolved, y->remaining);
    psi_test_assert_same_graph(&a->g, &b->g, seed);
    for (int i = 0; i < 2; i++)
        if (x->cycle[i])
            check_cycle(x->cycle[i], x->cycle_len[i], seed);
}

/* The reach from the reduced and from every known edge: same cycle
 * answer, and without a cycle the same transactions reached from every
 * transaction. Returns the edges the reduced view dropped. */
static uint64_t assert_same_reach(const psi_history *h, const psi_polygraph *g, uint64_t seed)
{
    psi_pc_extra xr = {0}, xf = {.full = true};
    psi_reach rr, rf;
    uint32_t cr, cf;
    psi_diag d;
    assert_int_equal(psi_pc_reach_build(&rr, &xr, h, g, NULL, &cr, &d), PSI_OK);
    assert_int_equal(psi_pc_reach_build(&rf, &xf, h, g, NULL, &cf, &d), PSI_OK);
    if ((cr == UINT32_MAX) != (cf == UINT32_MAX))
        fail_msg("seed %llu: cycle in the reduced reach %d, in the whole %d",
                 (unsigned long long)seed, cr != UINT32_MAX, cf != UINT32_MAX);
    if (cr == UINT32_MAX)
        for (uint32_t u = 0; u < h->n_txns; u++)
            for (uint32_t t = 0; t < h->n_txns; t++)
                if (psi_reach_to(&rr, u, t) != psi_reach_to(&rf, u, t))
                    fail_msg("seed %llu: %u reaches %u: reduced %d, whole %d",
                             (unsigned long long)seed, u, t, psi_reach_to(&rr, u, t),
                             psi_reach_to(&rf, u, t));
    assert_true(xr.n_base <= xf.n_base && xr.n_comp <= xf.n_comp);
    uint64_t dropped = (xf.n_base - xr.n_base) + (xf.n_comp - xr.n_comp);
    psi_reach_free(&rr);
    psi_reach_free(&rf);
    psi_pc_free(&xr);
    psi_pc_free(&xf);
    return dropped;
}

static void test_pc_pruning_reduced_same(void **state)
{
    (void)state;
    uint32_t rejects = 0, resolved = 0, with_choices = 0, reduced = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        psi_history *h;
        gen_history(seed, &h);
        pruned a, b;
        prune_pc(h, false, &a);
        prune_pc(h, true, &b);
        assert_same_pruning(&a, &b, seed);
        rejects += a.res.outcome != PSI_PRUNE_OK;
        resolved += a.res.resolved > 0;
        with_choices += a.g.n_choices > 0;
        /* the reach on the polygraph as pruning left it, and on the one
         * it started from */
        reduced += assert_same_reach(h, &a.g, seed) > 0;
        pruned_free(&a);
        pruned_free(&b);
        psi_index idx;
        psi_polygraph g;
        psi_diag d;
        psi_polygraph_opts po = {.all_pairs = true};
        assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
        assert_int_equal(psi_polygraph_build(h, &idx, &po, &g, &d), PSI_OK);
        assert_same_reach(h, &g, seed);
        psi_polygraph_free(&g);
        psi_index_free(&idx);
        psi_history_free(h);
    }
    print_message("rejects %u, constraints resolved in %u, choices in %u, edges dropped in %u\n",
                  rejects, resolved, with_choices, reduced);
    /* the histories exercise every case */
    assert_true(rejects >= 30 && rejects <= 270);
    assert_true(resolved >= 30);
    assert_true(with_choices >= 20);
    assert_true(reduced >= 150);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pc_pruning_reduced_same),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
