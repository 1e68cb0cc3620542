/* The acyclicity theory's order maintenance (solver/acyclic_order.c), white
 * box: psi_acyc_restore_order must report a cycle exactly when y reaches x
 * over the active edges, and otherwise leave a valid order list (labels
 * increasing, every active edge forward) with x before y; it moves one side
 * only; and when labels run out of room a relabel makes room without
 * breaking the list. The invariant checker (acyclic_invariants.c) verifies
 * the list after every call. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solver/acyclic_internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool acyc_ok(const psi_acyc *g)
{
    char why[256] = "";
    bool ok = psi_acyc_check_invariants(g, why, sizeof why);
    if (!ok)
        printf("  checker: %s\n", why);
    return ok;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

/* Does y reach x over the active (here: known) edges? Plain DFS. */
static bool reaches(const psi_acyc *g, uint32_t y, uint32_t x)
{
    uint8_t *seen = calloc(g->N, 1);
    uint32_t *stack = malloc(g->N * sizeof *stack), n = 0;
    assert_non_null(seen);
    assert_non_null(stack);
    bool found = false;
    stack[n++] = y;
    seen[y] = 1;
    while (n && !found) {
        uint32_t v = stack[--n];
        found = v == x;
        for (uint32_t i = 0; i < g->out[v].n; i++) {
            uint32_t w = g->out[v].a[i].node;
            if (!seen[w]) {
                seen[w] = 1;
                stack[n++] = w;
            }
        }
    }
    free(seen);
    free(stack);
    return found;
}

static psi_acyc *setup(psi_sat **s, uint32_t n)
{
    *s = psi_sat_new();
    assert_non_null(*s);
    psi_acyc *g = psi_acyc_new(*s, n, PSI_ACYC_SER);
    assert_non_null(g);
    return g;
}

/* Random known DAGs, random pairs against the order: the answer agrees with
 * a DFS, and after a reorder x precedes y in a valid list. */
static void test_random_pairs(void **state)
{
    (void)state;
    uint64_t cycles = 0, reorders = 0;
    for (int round = 0; round < 20; round++) {
        psi_sat *s;
        uint32_t n = 20 + rnd(60);
        psi_acyc *g = setup(&s, n);
        uint32_t *hidden = malloc(n * sizeof *hidden);
        assert_non_null(hidden);
        for (uint32_t i = 0; i < n; i++)
            hidden[i] = i;
        for (uint32_t i = n; i > 1; i--) {
            uint32_t j = rnd(i), t = hidden[i - 1];
            hidden[i - 1] = hidden[j];
            hidden[j] = t;
        }
        uint32_t m = n + rnd(2 * n);
        for (uint32_t k = 0; k < m; k++) {
            uint32_t a = rnd(n), b = rnd(n);
            if (a == b)
                continue;
            if (a > b) {
                uint32_t t = a;
                a = b;
                b = t;
            }
            assert_true(psi_acyc_add_edge(g, hidden[a], hidden[b], PSI_EDGE_DEP, 0, 0) >= 0);
        }
        assert_true(psi_acyc_static_setup(g));
        assert_false(g->static_cycle);
        assert_true(acyc_ok(g));
        for (int k = 0; k < 300; k++) {
            uint32_t x = rnd(n), y = rnd(n);
            if (x == y || g->ord[x] < g->ord[y])
                continue;
            bool cyc = reaches(g, y, x);
            new_epoch(g);
            int r = psi_acyc_restore_order(g, x, y);
            assert_int_equal(r, cyc ? 1 : 0);
            if (!cyc)
                assert_true(g->ord[x] < g->ord[y]);
            assert_true(acyc_ok(g));
            cycles += cyc;
            reorders += !cyc;
        }
        free(hidden);
        psi_acyc_free(g);
        psi_sat_free(s);
    }
    /* Both outcomes were exercised. */
    assert_true(cycles > 0 && reorders > 0);
}

/* When the forward side is the larger, the backward side moves: y's
 * descendants keep their labels and x's ancestors go right before y. */
static void test_backward_side_moves(void **state)
{
    (void)state;
    psi_sat *s;
    psi_acyc *g = setup(&s, 7);
    /* Kahn by depth: 0 1 2 3 4 6 5. y = 1 reaches 2, 3 and 4, all before
     * x = 5; x's only ancestor after y is 6. */
    assert_true(psi_acyc_add_edge(g, 1, 2, PSI_EDGE_DEP, 0, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 1, 3, PSI_EDGE_DEP, 0, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 1, 4, PSI_EDGE_DEP, 0, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 0, 6, PSI_EDGE_DEP, 0, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 6, 5, PSI_EDGE_DEP, 0, 0) >= 0);
    assert_true(psi_acyc_static_setup(g));
    uint32_t x = 5, y = 1;
    assert_true(g->ord[y] < g->ord[4] && g->ord[4] < g->ord[6] && g->ord[6] < g->ord[x]);
    uint64_t before[7];
    memcpy(before, g->ord, sizeof before);
    new_epoch(g);
    assert_int_equal(psi_acyc_restore_order(g, x, y), 0);
    assert_true(acyc_ok(g));
    assert_true(g->ord[x] < g->ord[y]);
    assert_int_equal(g->oprev[y], x); /* right before y */
    assert_int_equal(g->oprev[x], 6); /* after its ancestor, as before */
    for (uint32_t v = 0; v < 5; v++)
        assert_true(g->ord[v] == before[v]); /* only 5 and 6 moved */
    psi_acyc_free(g);
    psi_sat_free(s);
}

/* Moving a node to the same place over and over halves the gap each time
 * until a relabel must make room; the list stays valid throughout. */
static void test_relabel(void **state)
{
    (void)state;
    psi_sat *s;
    psi_acyc *g = setup(&s, 5);
    assert_true(psi_acyc_static_setup(g));
    for (int k = 0; k < 400; k++) {
        /* The first node moves right after the second: into the same gap
         * (between the second and third) each time. */
        uint32_t y = g->ohead, x = g->onext[y];
        new_epoch(g);
        assert_int_equal(psi_acyc_restore_order(g, x, y), 0);
        assert_true(g->ord[x] < g->ord[y]);
        assert_true(acyc_ok(g));
    }
    assert_true(g->st.relabels > 0);
    /* And to the end of the list (the gap before the upper end). */
    uint64_t r0 = g->st.relabels;
    for (int k = 0; k < 400; k++) {
        uint32_t y = g->ohead, x = y;
        while (g->onext[x] != PSI_ACYC_NONE)
            x = g->onext[x];
        new_epoch(g);
        assert_int_equal(psi_acyc_restore_order(g, x, y), 0);
        assert_true(acyc_ok(g));
    }
    assert_true(g->st.relabels > r0);
    psi_acyc_free(g);
    psi_sat_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_pairs),
        cmocka_unit_test(test_backward_side_moves),
        cmocka_unit_test(test_relabel),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
