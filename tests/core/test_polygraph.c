/* The polygraph's ownership API and the sub-history builder: known edges
 * say where they come from, pruning's additions go through
 * add_known/resolve/shrink, list-append WW edges are found by their range,
 * and a sub-history's flat polygraph lists exactly the edges and labels
 * the counterexample search relies on, in its documented order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"
#include "core/polygraph.h"
#include "support/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct built {
    psi_history *h;
    psi_index idx;
    psi_polygraph g;
} built;

static void build(built *b, psi_history *h, bool all_pairs)
{
    psi_diag d;
    assert_non_null(h);
    b->h = h;
    assert_int_equal(psi_index_build(h, &b->idx, &d), PSI_OK);
    psi_polygraph_opts po = {.all_pairs = all_pairs};
    assert_int_equal(psi_polygraph_build(h, &b->idx, &po, &b->g, &d), PSI_OK);
}

static void unbuild(built *b)
{
    psi_polygraph_free(&b->g);
    psi_index_free(&b->idx);
    psi_history_free(b->h);
}

static bool same_edge(const psi_edge *e, uint32_t from, uint32_t to, psi_edge_type type)
{
    return e->from == from && e->to == to && e->type == type;
}

typedef struct collect {
    psi_edge e[16];
    uint32_t n;
} collect;

static bool collect_edge(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    collect *c = ctx;
    assert_true(c->n < 16);
    c->e[c->n++] = (psi_edge){.from = from, .to = to, .key = key, .type = (uint8_t)type};
    return true;
}

static void test_origins_and_pruning_api(void **state)
{
    (void)state;
    built b;
    /* Lost update: txns 1, 2 (session 1) and 3 (session 2) all write key 0. */
    build(&b, spec_history("1:1:c w0=1; 1:2:c r0=1 w0=2; 2:3:c r0=1 w0=3"), true);
    psi_polygraph *g = &b.g;
    uint64_t built_edges = g->n_known;
    for (uint64_t i = 0; i < built_edges; i++)
        assert_int_equal(g->known[i].origin, PSI_FROM_HISTORY);
    assert_int_equal(built_edges, g->n_so + g->n_wr + g->n_init_edges + g->n_list_ww);

    psi_diag d;
    uint64_t forced = g->n_forced_edges, init = g->n_init_edges;
    assert_int_equal(psi_polygraph_add_known(g, 1, 3, PSI_EDGE_WW, 0, PSI_FROM_SEEDING, &d),
                     PSI_OK);
    assert_int_equal(psi_polygraph_add_known(g, 2, 3, PSI_EDGE_RW, 0, PSI_FROM_SEEDING_INIT, &d),
                     PSI_OK);
    assert_int_equal(g->n_forced_edges, forced + 1);
    assert_int_equal(g->n_init_edges, init + 1);
    assert_int_equal(g->known[built_edges].origin, PSI_FROM_SEEDING);
    assert_int_equal(g->known[built_edges + 1].origin, PSI_FROM_SEEDING_INIT);

    /* Resolving appends exactly the chosen side's edges, as pruning's. */
    assert_true(g->n_cons > 0);
    collect side = {0};
    psi_constraint_for_each(g, &g->cons[0], false, collect_edge, &side);
    uint64_t before = g->n_known;
    assert_int_equal(psi_polygraph_resolve(g, 0, false, &d), PSI_OK);
    assert_int_equal(g->cons[0].state, PSI_C_OR);
    assert_int_equal(g->n_known, before + side.n);
    for (uint32_t i = 0; i < side.n; i++) {
        const psi_edge *e = &g->known[before + i];
        assert_true(same_edge(e, side.e[i].from, side.e[i].to, (psi_edge_type)side.e[i].type));
        assert_int_equal(e->key, side.e[i].key);
        assert_int_equal(e->origin, PSI_FROM_PRUNING);
    }
    psi_polygraph_shrink(g);
    assert_int_equal(g->cap_known, g->n_known);
    unbuild(&b);
}

/* The list-append WW edges are the range the polygraph records. */
static void test_list_ww_range(void **state)
{
    (void)state;
    psi_diag d;
    psi_builder *pb = psi_builder_new("lists", PSI_FMT_EDN);
    assert_non_null(pb);
    uint64_t vals[] = {1, 2, 3};
    for (uint64_t t = 1; t <= 3; t++) {
        assert_int_equal(psi_builder_begin(pb, t, t, t, &d), PSI_OK);
        assert_int_equal(psi_builder_op(pb, PSI_OP_WRITE, 7, t, PSI_OPF_APPEND, &d), PSI_OK);
        assert_int_equal(psi_builder_end(pb, PSI_TXN_COMMITTED, &d), PSI_OK);
    }
    assert_int_equal(psi_builder_begin(pb, 4, 4, 4, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(pb, 7, vals, 3, &d), PSI_OK);
    assert_int_equal(psi_builder_end(pb, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(pb, &h, &d), PSI_OK);
    built b;
    build(&b, h, false);
    assert_int_equal(b.g.n_list_ww, 2);
    for (uint64_t i = 0; i < b.g.n_list_ww; i++) {
        const psi_edge *e = &b.g.known[b.g.list_ww_first + i];
        assert_int_equal(e->type, PSI_EDGE_WW);
        assert_int_equal(e->origin, PSI_FROM_HISTORY);
        assert_int_equal(e->to, e->from + 1); /* txns 1 -> 2 -> 3 */
    }
    unbuild(&b);
}

typedef struct want {
    uint32_t from, to; /* local nodes */
    psi_edge_type type;
    int32_t cons;
    uint8_t side;
} want;

static void expect_edges(const psi_sub_polygraph *S, const want *w, uint32_t n)
{
    assert_int_equal(S->n_e, n);
    for (uint32_t i = 0; i < n; i++) {
        const psi_sub_edge *e = &S->e[i];
        assert_true(same_edge(&e->e, w[i].from, w[i].to, w[i].type));
        assert_int_equal(e->cons, w[i].cons);
        assert_int_equal(e->on, 1);
        assert_int_equal(e->e.origin, w[i].cons < 0 ? PSI_FROM_HISTORY : PSI_FROM_CONSTRAINT);
        if (w[i].cons >= 0)
            assert_int_equal(e->side, w[i].side);
    }
}

static void test_sub_polygraph(void **state)
{
    (void)state;
    built b;
    build(&b, spec_history("1:1:c w0=1; 1:2:c r0=1 w0=2; 2:3:c r0=1 w0=3"), false);
    uint32_t *local = malloc(b.h->n_txns * sizeof *local);
    assert_non_null(local);
    memset(local, 0xff, b.h->n_txns * sizeof *local);
    psi_diag d;
    psi_sub_polygraph S;

    /* Everything: SO; WR; the initial transaction's WW edges; then the
     * pairs (1,2), (1,3), (2,3), each side by side. */
    uint32_t all[] = {0, 1, 2, 3};
    assert_int_equal(psi_sub_polygraph_build(b.h, &b.idx, &b.g, all, 4, 100, local, &S, &d),
                     PSI_OK);
    const want w_all[] = {
        {0, 1, PSI_EDGE_SO, -1, 0}, {1, 2, PSI_EDGE_SO, -1, 0}, {0, 3, PSI_EDGE_SO, -1, 0},
        {1, 2, PSI_EDGE_WR, -1, 0}, {1, 3, PSI_EDGE_WR, -1, 0}, {0, 1, PSI_EDGE_WW, -1, 0},
        {0, 2, PSI_EDGE_WW, -1, 0}, {0, 3, PSI_EDGE_WW, -1, 0}, {1, 2, PSI_EDGE_WW, 0, 0},
        {3, 2, PSI_EDGE_RW, 0, 0},  {2, 1, PSI_EDGE_WW, 0, 1},  {1, 3, PSI_EDGE_WW, 1, 0},
        {2, 3, PSI_EDGE_RW, 1, 0},  {3, 1, PSI_EDGE_WW, 1, 1},  {2, 3, PSI_EDGE_WW, 2, 0},
        {3, 2, PSI_EDGE_WW, 2, 1},
    };
    expect_edges(&S, w_all, sizeof w_all / sizeof *w_all);
    assert_int_equal(S.n_c, 3);
    assert_int_equal(S.c[1].t, 1);
    assert_int_equal(S.c[1].s, 3);
    for (uint32_t t = 0; t < b.h->n_txns; t++)
        assert_int_equal(local[t], UINT32_MAX);
    psi_sub_polygraph_free(&S);

    /* Without the initial transaction and txn 2: no SO at all (each is
     * first of its session), WR 1 -> 3, one pair. */
    uint32_t some[] = {1, 3};
    assert_int_equal(psi_sub_polygraph_build(b.h, &b.idx, &b.g, some, 2, 100, local, &S, &d),
                     PSI_OK);
    const want w_some[] = {
        {0, 1, PSI_EDGE_WR, -1, 0},
        {0, 1, PSI_EDGE_WW, 0, 0},
        {1, 0, PSI_EDGE_WW, 0, 1},
    };
    expect_edges(&S, w_some, sizeof w_some / sizeof *w_some);
    assert_int_equal(S.node_txn[1], 3);
    psi_sub_polygraph_free(&S);

    /* Too many writer pairs is a limit, not a result. */
    assert_int_equal(psi_sub_polygraph_build(b.h, &b.idx, &b.g, all, 4, 2, local, &S, &d),
                     PSI_ERR_LIMIT);
    assert_null(S.e);
    for (uint32_t t = 0; t < b.h->n_txns; t++)
        assert_int_equal(local[t], UINT32_MAX);
    free(local);
    unbuild(&b);
}

/* set_constraints orders the writer pairs by (T, S), ties (the keys of
 * one pair) in the order given, one constraint per (T, S) with its keys
 * contiguous; without coalescing it keeps the order given, one constraint
 * per pair. Checked against a stable insertion sort on shuffles of every
 * writer pair of a history where each of 9 transactions writes 4 keys, so
 * that each writer's pairs come in several unsorted runs. */
static void test_set_constraints_order(void **state)
{
    (void)state;
    char spec[512] = "";
    for (unsigned t = 1; t <= 9; t++) {
        char one[64];
        snprintf(one, sizeof one, "%s%u:%u:c w0=%u w1=%u w2=%u w3=%u", t > 1 ? "; " : "", t % 3 + 1,
                 t, t, t, t, t);
        strcat(spec, one);
    }
    built b;
    build(&b, spec_history(spec), false);
    psi_polygraph *g = &b.g;
    assert_true(g->pending);
    psi_pair all[4 * 36];
    uint32_t m = 0;
    for (uint32_t k = 0; k < g->n_keys; k++)
        for (uint32_t x = g->w_off[k]; x < g->w_off[k + 1]; x++)
            for (uint32_t y = x + 1; y < g->w_off[k + 1]; y++) {
                assert_true(m < 4 * 36);
                uint32_t ox = g->w_op[x], oy = g->w_op[y];
                all[m++] = (psi_pair){.t = b.idx.op_txn[ox],
                                      .s = b.idx.op_txn[oy],
                                      .k = {.key = k, .op_t = ox, .op_s = oy}};
            }
    assert_int_equal(m, 4 * 36);
    uint64_t rng = 12345;
    psi_diag d;
    for (int round = 0; round < 40; round++) {
        bool coalesce = round % 4 != 3;
        for (uint32_t i = m - 1; i > 0; i--) {
            rng = rng * 6364136223846793005u + 1442695040888963407u;
            uint32_t j = (uint32_t)((rng >> 33) % (i + 1));
            psi_pair tmp = all[i];
            all[i] = all[j];
            all[j] = tmp;
        }
        psi_pair ref[4 * 36];
        memcpy(ref, all, sizeof ref);
        for (uint32_t i = 1; i < m && coalesce; i++)
            for (uint32_t j = i; j > 0; j--) {
                psi_pair *p = &ref[j - 1], *q = &ref[j];
                if (p->t < q->t || (p->t == q->t && p->s <= q->s))
                    break;
                psi_pair tmp = *p;
                *p = *q;
                *q = tmp;
            }
        psi_pair *recs = malloc(sizeof all);
        assert_non_null(recs);
        memcpy(recs, all, sizeof all);
        g->coalesce = coalesce;
        assert_int_equal(psi_polygraph_set_constraints(g, recs, m, &d), PSI_OK);
        assert_int_equal(g->n_ckeys, m);
        assert_false(g->pending);
        uint32_t c = 0;
        for (uint32_t i = 0; i < m; i++) {
            assert_memory_equal(&g->ckeys[i], &ref[i].k, sizeof ref[i].k);
            bool same = coalesce && i > 0 && ref[i].t == ref[i - 1].t && ref[i].s == ref[i - 1].s;
            if (same)
                continue;
            assert_true(c < g->n_cons);
            const psi_constraint *con = &g->cons[c++];
            assert_int_equal(con->t, ref[i].t);
            assert_int_equal(con->s, ref[i].s);
            assert_int_equal(con->first, i);
            assert_int_equal(con->state, PSI_C_OPEN);
            uint32_t n = 1;
            while (coalesce && i + n < m && ref[i + n].t == con->t && ref[i + n].s == con->s)
                n++;
            assert_int_equal(psi_constraint_n_keys(g, con), n);
        }
        assert_int_equal(c, g->n_cons);
        assert_int_equal(g->n_cons, coalesce ? 36 : m);
    }
    unbuild(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_origins_and_pruning_api),
        cmocka_unit_test(test_list_ww_range),
        cmocka_unit_test(test_sub_polygraph),
        cmocka_unit_test(test_set_constraints_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
