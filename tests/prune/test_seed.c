/* Constraint seeding (prune/seed.h) against its definition, computed
 * naively from the same reachability: for every key, the constraints are
 * exactly the writer pairs neither of which reaches the other, and the
 * forced edges are exactly those of the Hasse diagram of "reaches" on the
 * key's writers (the initial value below all of them): WW T -> S and
 * RW R -> S for every reader R of T's write, for each S minimal among the
 * writers T reaches. Both the dense per-key block and the in-place path
 * (block limit 0) are checked, under SI (doubled graph) and SER, on random
 * histories with few keys and many sessions (keys written everywhere) and
 * with many keys (keys written in a few sessions). */
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

/* An edge or a pair as four numbers, for sorting and comparing. */
typedef struct quad {
    uint32_t a, b, c, d;
} quad;

static int quad_cmp(const void *pa, const void *pb)
{
    const quad *x = pa, *y = pb;
    return memcmp(x, y, sizeof *x) < 0 ? -1 : memcmp(x, y, sizeof *x) > 0;
}

typedef struct qvec {
    quad *q;
    size_t n, cap;
} qvec;

static void qpush(qvec *v, quad q)
{
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 64;
        v->q = realloc(v->q, v->cap * sizeof *v->q);
        assert_non_null(v->q);
    }
    memset(&v->q[v->n], 0, sizeof *v->q);
    v->q[v->n++] = q;
}

/* Does writer transaction t (PSI_INIT_TXN: the initial value) come before
 * transaction s in the known graph's reachability? */
static bool reaches(const psi_reach *r, uint32_t t, uint32_t s)
{
    return t == PSI_INIT_TXN || psi_reach_to(r, psi_reach_node(r, t, 0), s);
}

/* The definition's forced edges and pairs for key k. */
static void expect_key(const psi_polygraph *g, const psi_reach *r, uint32_t k, qvec *edges,
                       qvec *pairs)
{
    uint32_t b = g->w_off[k], e = g->w_off[k + 1];
    uint32_t nw = e - b;
    for (uint32_t i = 0; i < nw; i++)
        for (uint32_t j = i + 1; j < nw; j++) {
            uint32_t t = g->op_txn[g->w_op[b + i]], s = g->op_txn[g->w_op[b + j]];
            if (!reaches(r, t, s) && !reaches(r, s, t))
                qpush(pairs, (quad){t, s, k, 0});
        }
    /* w == nw stands for the initial value. */
    for (uint32_t w = 0; w <= nw; w++) {
        bool init = w == nw;
        uint32_t t = init ? PSI_INIT_TXN : g->op_txn[g->w_op[b + w]];
        uint32_t n_rd;
        const uint32_t *rd =
            init ? g->i_txn + g->i_off[k] : psi_polygraph_readers(g, g->w_op[b + w], &n_rd);
        if (init)
            n_rd = g->i_off[k + 1] - g->i_off[k];
        if (init && n_rd == 0)
            continue; /* seeding adds nothing for an unread initial value */
        for (uint32_t j = 0; j < nw; j++) {
            uint32_t s = g->op_txn[g->w_op[b + j]];
            if (s == t || !reaches(r, t, s))
                continue;
            bool minimal = true;
            for (uint32_t m = 0; m < nw && minimal; m++) {
                uint32_t x = g->op_txn[g->w_op[b + m]];
                if (x != s && x != t && reaches(r, t, x) && reaches(r, x, s))
                    minimal = false;
            }
            if (!minimal)
                continue;
            if (!init)
                qpush(edges, (quad){t, s, k, PSI_EDGE_WW});
            for (uint32_t q = 0; q < n_rd; q++)
                if (rd[q] != s)
                    qpush(edges, (quad){rd[q], s, k, PSI_EDGE_RW});
        }
    }
}

static void sort_q(qvec *v)
{
    if (v->n)
        qsort(v->q, v->n, sizeof *v->q, quad_cmp);
}

static void assert_same(qvec *got, qvec *want, const char *what, uint64_t seed)
{
    sort_q(got);
    sort_q(want);
    if (got->n != want->n)
        fail_msg("seed %llu: %zu %s seeded, %zu by the definition", (unsigned long long)seed,
                 got->n, what, want->n);
    for (size_t i = 0; i < got->n; i++)
        if (quad_cmp(&got->q[i], &want->q[i]))
            fail_msg("seed %llu: %s %zu differs: (%u %u %u %u) seeded, (%u %u %u %u) expected",
                     (unsigned long long)seed, what, i, got->q[i].a, got->q[i].b, got->q[i].c,
                     got->q[i].d, want->q[i].a, want->q[i].b, want->q[i].c, want->q[i].d);
}

/* One history, one rule, one block limit: returns false when the known
 * graph has a forbidden cycle (nothing to seed). */
static bool check_one(psi_history *h, bool si, size_t block, uint64_t seed)
{
    psi_diag d;
    psi_index idx;
    psi_polygraph g;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    psi_polygraph_opts po = {.no_coalescing = true};
    assert_int_equal(psi_polygraph_build(h, &idx, &po, &g, &d), PSI_OK);
    assert_true(g.pending);
    psi_reach r;
    uint32_t cyc;
    assert_int_equal(psi_reach_build(&r, h, &g, si, &cyc, &d), PSI_OK);
    bool ok = cyc == UINT32_MAX;
    if (ok) {
        uint64_t before = g.n_known;
        assert_int_equal(psi_seed_constraints_cfg(h, &g, &r, block, &d), PSI_OK);
        qvec got = {0}, want = {0}, gp = {0}, wp = {0};
        for (uint64_t i = before; i < g.n_known; i++) {
            const psi_edge *e = &g.known[i];
            assert_true(e->origin == PSI_FROM_SEEDING || e->origin == PSI_FROM_SEEDING_INIT);
            qpush(&got, (quad){e->from, e->to, e->key, e->type});
        }
        for (uint32_t c = 0; c < g.n_cons; c++) {
            const psi_constraint *con = &g.cons[c];
            assert_int_equal(con->n_keys, 1);
            uint32_t t = con->t, s = con->s;
            qpush(&gp, (quad){t, s, g.ckeys[con->first].key, 0});
        }
        for (uint32_t k = 0; k < g.n_keys; k++)
            expect_key(&g, &r, k, &want, &wp);
        assert_same(&got, &want, "forced edges", seed);
        assert_same(&gp, &wp, "pairs", seed);
        free(got.q);
        free(want.q);
        free(gp.q);
        free(wp.q);
    }
    psi_reach_free(&r);
    psi_polygraph_free(&g);
    psi_index_free(&idx);
    return ok;
}

/* Few keys: written in every session; many: in a few. */
static const psi_gen_store SER_OR_SI[] = {PSI_STORE_SER, PSI_STORE_SI, PSI_STORE_SI};
static const psi_test_shape SHAPE = {.salt = 104729,
                                     .sessions = {2, 12},
                                     .txns = {3, 12},
                                     .ops = {1, 5},
                                     .keys = {20, 40},
                                     .few_keys = {2, 4},
                                     .stores = SER_OR_SI,
                                     .n_stores = 3,
                                     .fault_one_in = 4,
                                     .fault_shift = 36,
                                     .fault_prob = 0.05};

static void test_seed_matches_definition(void **state)
{
    (void)state;
    uint32_t checked = 0, wide = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        psi_gen_opts o;
        psi_test_gen_opts(seed, &SHAPE, &o);
        psi_history *h;
        psi_test_generate(&o, &h);
        for (int si = 0; si < 2; si++)
            for (size_t block = 0; block < 2; block++)
                if (check_one(h, si, block ? PSI_SEED_BLOCK_CELLS : 0, seed)) {
                    checked++;
                    wide += o.keys < 10;
                }
        psi_history_free(h);
    }
    /* The test must have compared something on both kinds of history. */
    assert_true(checked >= 150);
    assert_true(wide >= 40);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_matches_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
