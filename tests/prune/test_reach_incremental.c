/* Incremental frontiers (prune/reach.h psi_reach_cfg.buf_edges): a build
 * that reuses the rows of an earlier build over a prefix of the same known
 * edges must give exactly the rows of a fresh build. Random histories
 * under SI (doubled graph) and SER, one and two workers; the known edges
 * grow as in pruning: seeding's forced edges, then rounds of constraints
 * resolved to a random side, and a build with no new edge at all. The
 * incremental builds also keep the graph's arrays across builds
 * (psi_reach_cfg.keep), with and without edge room, and on some
 * histories extend the kept graph by the new edges (psi_reach_cfg.append),
 * which must give the fresh build's graph, row for row. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"
#include "core/polygraph.h"
#include "prune/reach.h"
#include "prune/seed.h"
#include "support/random_history.h"

#include <stdlib.h>
#include <string.h>

/* Every row of the incremental build equals the fresh build's. */
static void assert_same_rows(const psi_reach *inc, const psi_reach *fresh, uint64_t seed,
                             uint32_t step)
{
    assert_int_equal(inc->n, fresh->n);
    assert_int_equal(inc->n_sessions, fresh->n_sessions);
    for (uint32_t x = 0; x < inc->n; x++) {
        const uint32_t *a = psi_reach_row(inc, x), *b = psi_reach_row(fresh, x);
        assert_true((a == NULL) == (b == NULL));
        if (a && memcmp(a, b, inc->n_sessions * sizeof *a))
            fail_msg("seed %llu step %u: node %u's row differs from a fresh build",
                     (unsigned long long)seed, step, x);
    }
}

/* The same rows (offsets, endpoints, edge ids) of one direction. */
static void assert_same_csr(const uint64_t *off_a, const uint32_t *x_a, const uint32_t *e_a,
                            const uint64_t *off_b, const uint32_t *x_b, const uint32_t *e_b,
                            uint64_t rows)
{
    assert_true(!off_a == !off_b);
    if (!off_a)
        return;
    assert_memory_equal(off_a, off_b, (rows + 1) * sizeof *off_a);
    assert_memory_equal(x_a, x_b, off_a[rows] * sizeof *x_a);
    assert_memory_equal(e_a, e_b, off_a[rows] * sizeof *e_a);
}

/* Builds incrementally (cfg) and freshly over g's known edges and compares
 * them; returns false when the graph has a forbidden cycle. */
static bool build_and_compare(const psi_history *h, const psi_polygraph *g, bool si,
                              const psi_reach_cfg *cfg, uint64_t seed, uint32_t step,
                              uint32_t *reused)
{
    psi_diag d;
    psi_reach a, b;
    uint32_t ca, cb;
    uint64_t before = *cfg->buf_edges;
    assert_int_equal(psi_reach_build_cfg(&a, h, g, si, false, cfg, &ca, &d), PSI_OK);
    assert_int_equal(psi_reach_build_cfg(&b, h, g, si, false, NULL, &cb, &d), PSI_OK);
    assert_int_equal(ca, cb);
    bool ok = ca == UINT32_MAX;
    if (ok) {
        assert_true(*cfg->buf_edges == g->n_known);
        *reused += before != 0;
        assert_same_rows(&a, &b, seed, step);
        assert_int_equal(a.graph.n_edges, b.graph.n_edges);
        assert_int_equal(psi_graph_bytes(&a.graph), psi_graph_bytes(&b.graph));
        uint64_t rows = si ? 2 * (uint64_t)h->n_txns : h->n_txns;
        assert_same_csr(a.graph.off, a.graph.dst, a.graph.eid, b.graph.off, b.graph.dst,
                        b.graph.eid, rows);
        assert_same_csr(a.graph.in_off, a.graph.in_src, a.graph.in_eid, b.graph.in_off,
                        b.graph.in_src, b.graph.in_eid, h->n_txns);
    }
    psi_reach_free(&a);
    psi_reach_free(&b);
    return ok;
}

/* One history, one rule, one worker count: returns the builds that reused
 * earlier rows. */
static uint32_t check_one(psi_history *h, bool si, uint32_t threads, uint64_t seed)
{
    psi_diag d;
    psi_index idx;
    psi_polygraph g;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    psi_polygraph_opts po = {0};
    assert_int_equal(psi_polygraph_build(h, &idx, &po, &g, &d), PSI_OK);
    uint32_t *buf = NULL;
    size_t cap = 0;
    uint64_t done = 0;
    psi_reach_keep keep = {.edge_room = seed % 2 ? 0 : 64};
    psi_reach_cfg cfg = {.threads = threads,
                         .buf = &buf,
                         .cap = &cap,
                         .buf_edges = &done,
                         .keep = &keep,
                         .append = seed % 3 != 0};
    uint32_t reused = 0, step = 0;
    psi_reach r;
    uint32_t cyc;
    assert_int_equal(psi_reach_build_cfg(&r, h, &g, si, false, &cfg, &cyc, &d), PSI_OK);
    bool ok = cyc == UINT32_MAX && g.pending;
    if (ok)
        assert_int_equal(psi_seed_constraints(h, &g, &r, &d), PSI_OK);
    psi_reach_free(&r);
    uint64_t x = psi_test_mix64(seed);
    for (; ok && step < 6; step++) {
        ok = build_and_compare(h, &g, si, &cfg, seed, step, &reused);
        /* resolve about a third of the open constraints, each to a random
         * side (a cycle this makes ends the history's steps); step 3 adds
         * nothing */
        for (uint32_t c = 0; ok && step != 3 && c < g.n_cons; c++) {
            x = psi_test_mix64(x + c);
            if (g.cons[c].state == PSI_C_OPEN && x % 3 == 0)
                assert_int_equal(psi_polygraph_resolve(&g, c, (x >> 8) & 1u, &d), PSI_OK);
        }
    }
    psi_reach_keep_free(&keep);
    free(buf);
    psi_polygraph_free(&g);
    psi_index_free(&idx);
    return reused;
}

static const psi_gen_store SER_OR_SI[] = {PSI_STORE_SER, PSI_STORE_SI, PSI_STORE_SI};
static const psi_test_shape SHAPE = {.salt = 7919,
                                     .sessions = {2, 12},
                                     .txns = {3, 12},
                                     .ops = {1, 5},
                                     .keys = {4, 40},
                                     .stores = SER_OR_SI,
                                     .n_stores = 3};

static void test_incremental_matches_fresh(void **state)
{
    (void)state;
    uint32_t reused = 0, wide = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        psi_gen_opts o;
        uint64_t x = psi_test_gen_opts(seed, &SHAPE, &o);
        /* Every fourth history is wide enough for two workers' slices
         * (reach.c: >= 16 sessions each, >= 1024 rows). */
        bool big = seed % 4 == 0;
        if (big) {
            o.sessions = 36 + (uint32_t)(x % 8);
            o.txns_per_session = 32;
        }
        psi_history *h;
        psi_test_generate(&o, &h);
        for (int si = 0; si < 2; si++)
            for (uint32_t threads = 1; threads <= 2; threads++) {
                uint32_t n = check_one(h, si, threads, seed);
                reused += n;
                wide += big && threads == 2 ? n : 0;
            }
        psi_history_free(h);
    }
    print_message("%u incremental builds compared, %u with two slices\n", reused, wide);
    /* The test must have compared reused rows, also with two slices. */
    assert_true(reused >= 200);
    assert_true(wide >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_incremental_matches_fresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
