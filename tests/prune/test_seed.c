/* Constraint seeding (prune/seed.h) against its definition, computed
 * naively from the same reachability: for every key, the constraints are
 * exactly the writer pairs neither of which reaches the other, and the
 * forced edges are exactly those of the Hasse diagram of "reaches" on the
 * key's writers (the initial value below all of them): WW T -> S and
 * RW R -> S for every reader R of T's write, for each S minimal among the
 * writers T reaches. Both the dense per-key block and the in-place path
 * (block limit 0) are checked, under SI (doubled graph) and SER, on random
 * histories with few keys and many sessions (keys written everywhere) and
 * with many keys (keys written in a few sessions). Reads with a choice of
 * writers: the live reader lists and the shared conditional edges
 * psi_seed_conditional adds, against the old path and the definition. */
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

/* Whether s, a writer of the key (w_op[b .. b + nw)) that t reaches, is a
 * next writer after t: no third writer of the key lies between them. */
static bool next_writer(const psi_polygraph *g, const psi_reach *r, uint32_t b, uint32_t nw,
                        uint32_t t, uint32_t s)
{
    for (uint32_t m = 0; m < nw; m++) {
        uint32_t x = g->op_txn[g->w_op[b + m]];
        if (x != s && x != t && reaches(r, t, x) && reaches(r, x, s))
            return false;
    }
    return true;
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
            bool minimal = next_writer(g, r, b, nw, t, s);
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
            assert_int_equal(psi_constraint_n_keys(&g, con), 1);
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

/* Whether any reader in cr[0..n) has its choice open. */
static bool any_open(const psi_polygraph *g, const psi_cread *cr, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (g->choice_state[cr[i].choice] == PSI_CH_OPEN)
            return true;
    return false;
}

/* The definition's shared conditional edges for key k: (write op, or
 * PSI_CSUCC_INIT, then successor, key) for every write (and the initial
 * value) with an open conditional reader, to each writer minimal among
 * those it reaches (every writer for the initial value). */
static void expect_csucc(const psi_polygraph *g, const psi_reach *r, uint32_t k, qvec *out)
{
    uint32_t b = g->w_off[k], nw = g->w_off[k + 1] - b;
    for (uint32_t w = 0; w <= nw; w++) {
        bool init = w == nw;
        uint32_t t = init ? PSI_INIT_TXN : g->op_txn[g->w_op[b + w]], n;
        const psi_cread *cr =
            init ? psi_polygraph_cinit(g, k, &n) : psi_polygraph_creaders(g, g->w_op[b + w], &n);
        if (!any_open(g, cr, n))
            continue;
        for (uint32_t j = 0; j < nw; j++) {
            uint32_t s = g->op_txn[g->w_op[b + j]];
            if (s == t || !reaches(r, t, s))
                continue;
            bool minimal = next_writer(g, r, b, nw, t, s);
            if (minimal)
                qpush(out, (quad){init ? PSI_CSUCC_INIT : g->w_op[b + w], s, k, 0});
        }
    }
}

static void csucc_quads(const psi_polygraph *g, qvec *out)
{
    for (uint64_t i = 0; i < g->n_csucc; i++)
        qpush(out, (quad){g->csucc[i].op, g->csucc[i].to, g->csucc[i].key, 0});
}

/* The live conditional readers of one list after psi_polygraph_drop_excluded
 * are the old list's non-excluded readers, in their order. */
static void assert_live(const psi_polygraph *g, const psi_cread *old, uint32_t n_old,
                        const psi_cread *now, uint32_t n_now, uint64_t seed)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_old; i++) {
        if (g->choice_state[old[i].choice] == PSI_CH_EXCLUDED)
            continue;
        if (k >= n_now || now[k].txn != old[i].txn || now[k].choice != old[i].choice)
            fail_msg("seed %llu: live reader %u differs", (unsigned long long)seed, k);
        k++;
    }
    assert_int_equal(k, n_now);
}

/* Reads with a choice of writers (issue 11): after excluding some choices
 * at random, the creader lists hold exactly the others
 * (psi_polygraph_drop_excluded), and psi_seed_conditional adds exactly
 * the shared conditional edges psi_seed_constraints adds (the old path)
 * and the definition asks for, and nothing else. Returns the number of
 * shared edges compared. */
static uint64_t check_conditional(psi_history *h, bool si, uint64_t seed)
{
    psi_diag d;
    psi_index idx;
    psi_polygraph g;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    psi_polygraph_opts po = {.no_coalescing = true};
    assert_int_equal(psi_polygraph_build(h, &idx, &po, &g, &d), PSI_OK);
    uint64_t compared = 0;
    if (!g.n_choices) {
        psi_polygraph_free(&g);
        psi_index_free(&idx);
        return 0;
    }
    /* The lists before any exclusion, flattened (ops, then keys). */
    uint32_t n_lists = g.n_cr_lists + g.n_keys;
    uint32_t *off = calloc((size_t)n_lists + 1, sizeof *off);
    assert_non_null(off);
    for (uint32_t l = 0, n; l < n_lists; l++) {
        if (l < g.n_cr_lists)
            psi_polygraph_creaders(&g, l, &n);
        else
            psi_polygraph_cinit(&g, l - g.n_cr_lists, &n);
        off[l + 1] = off[l] + n;
    }
    psi_cread *all = malloc((off[n_lists] ? off[n_lists] : 1) * sizeof *all);
    assert_non_null(all);
    for (uint32_t l = 0, n; l < n_lists; l++) {
        const psi_cread *cr = l < g.n_cr_lists ? psi_polygraph_creaders(&g, l, &n)
                                               : psi_polygraph_cinit(&g, l - g.n_cr_lists, &n);
        memcpy(all + off[l], cr, (size_t)n * sizeof *cr);
    }
    for (uint32_t c = 0; c < g.n_choices; c++) {
        uint64_t x = psi_test_mix64(seed * 7919 + c) % 8;
        g.choice_state[c] = x < 3 ? PSI_CH_EXCLUDED : x == 3 ? PSI_CH_FORCED : PSI_CH_OPEN;
    }
    psi_polygraph_drop_excluded(&g);
    for (uint32_t l = 0, n; l < n_lists; l++) {
        const psi_cread *cr = l < g.n_cr_lists ? psi_polygraph_creaders(&g, l, &n)
                                               : psi_polygraph_cinit(&g, l - g.n_cr_lists, &n);
        assert_live(&g, all + off[l], off[l + 1] - off[l], cr, n, seed);
    }
    psi_reach r;
    uint32_t cyc;
    assert_int_equal(psi_reach_build(&r, h, &g, si, &cyc, &d), PSI_OK);
    if (cyc == UINT32_MAX) {
        uint64_t known = g.n_known;
        assert_int_equal(psi_seed_conditional(h, &g, &r, &d), PSI_OK);
        assert_int_equal(g.n_known, known);
        assert_int_equal(g.n_cons, 0);
        assert_true(g.pending);
        qvec got = {0}, old = {0}, want = {0};
        csucc_quads(&g, &got);
        for (uint32_t k = 0; k < g.n_keys; k++)
            expect_csucc(&g, &r, k, &want);
        g.n_csucc = 0;
        assert_int_equal(psi_seed_constraints(h, &g, &r, &d), PSI_OK);
        csucc_quads(&g, &old);
        assert_same(&got, &old, "shared edges (seeding)", seed);
        assert_same(&got, &want, "shared edges (definition)", seed);
        compared = got.n;
        free(got.q);
        free(old.q);
        free(want.q);
    }
    psi_reach_free(&r);
    free(all);
    free(off);
    psi_polygraph_free(&g);
    psi_index_free(&idx);
    return compared;
}

static void test_conditional_matches_seeding(void **state)
{
    (void)state;
    uint64_t compared = 0;
    for (uint64_t seed = 1; seed <= 40; seed++) {
        uint64_t x = psi_test_mix64(seed * 15485863);
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.seed = seed;
        o.sessions = 2 + (uint32_t)(x % 8);
        o.txns_per_session = 3 + (uint32_t)((x >> 8) % 10);
        o.ops_per_txn = 1 + (uint32_t)((x >> 16) % 5);
        o.keys = 2 + (uint32_t)((x >> 24) % 12);
        o.value_range = 1 + (x >> 32) % 4;
        o.store = (x >> 36) % 3 == 0 ? PSI_STORE_SER : PSI_STORE_SI;
        psi_history *h;
        psi_diag d;
        if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
            fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
        for (int si = 0; si < 2; si++)
            compared += check_conditional(h, si, seed);
        psi_history_free(h);
    }
    /* The test must have compared something. */
    assert_true(compared >= 200);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_matches_definition),
        cmocka_unit_test(test_conditional_matches_seeding),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
