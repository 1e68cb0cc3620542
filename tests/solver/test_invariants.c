/* The debug checker (solver/invariants.h) catches what it is meant to: a
 * white-box test that builds small solver and theory states through the
 * internal API, checks that they pass, then breaks one invariant at a time
 * (restoring it afterwards) and expects the checker to name the damage.
 * The check functions are compiled in every build, so this runs with or
 * without PSI_CHECK. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solver/acyclic_internal.h"
#include "solver/internal.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool sat_ok(const psi_sat *s, bool fixpoint)
{
    char why[256] = "";
    psi_sat_check_mode mode = fixpoint ? PSI_SAT_CHECK_ALL : PSI_SAT_CHECK_STRUCTURE;
    bool ok = psi_sat_check_invariants(s, mode, why, sizeof why);
    if (!ok)
        printf("  checker: %s\n", why); /* shows what each corruption trips */
    return ok;
}

/* Adds the clause of the nonzero literals among a, b, c. */
static void add(psi_sat *s, int a, int b, int c)
{
    int lits[3] = {a, b, c};
    assert_int_equal(psi_sat_add_clause(s, lits, !b ? 1 : !c ? 2 : 3), 0);
}

/* Level 1 decides 1 and propagates 2 and 3; level 2 decides 4 and
 * propagates 5 through the ternary clause. */
static psi_sat *two_levels(void)
{
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    add(s, -1, 2, 0);
    add(s, -2, 3, 0);
    add(s, -3, -4, 5);
    add(s, 1, 6, 7);
    add(s, -6, -7, 8);
    psi_new_level(s);
    psi_assign(s, lit_of_int(1), REASON_NONE);
    assert_null(psi_propagate(s).lits);
    psi_new_level(s);
    psi_assign(s, lit_of_int(4), REASON_NONE);
    assert_null(psi_propagate(s).lits);
    assert_int_equal(s->trail_n, 5);
    return s;
}

static void test_sat_checker(void **state)
{
    (void)state;
    psi_sat *s = two_levels();
    assert_true(sat_ok(s, true));

    uint32_t v3 = 2, v5 = 4;
    s->level[v3] = 2; /* a level that does not match trail_lim */
    assert_false(sat_ok(s, false));
    s->level[v3] = 1;

    uint32_t lim0 = s->trail_lim.a[0];
    s->trail_lim.a[0] = s->trail_lim.a[1] + 1; /* trail_lim not monotone */
    assert_false(sat_ok(s, false));
    s->trail_lim.a[0] = lim0;

    /* The reason of 5 no longer implies it first (and its watches break). */
    uint32_t *c = cl_lits(s, s->reason[v5]);
    uint32_t t = c[0];
    c[0] = c[2];
    c[2] = t;
    assert_false(sat_ok(s, false));
    c[2] = c[0];
    c[0] = t;
    assert_true(sat_ok(s, true));

    /* A watch lost, then a watch duplicated. */
    watches *ws = &s->watches[lit_of_int(-6)];
    assert_true(ws->n > 0);
    ws->n--;
    assert_false(sat_ok(s, false));
    ws->n++;
    watch w = ws->w[0];
    assert_true(psi_watch_push(ws, w));
    assert_false(sat_ok(s, false));
    ws->n--;

    /* A left-over analysis mark, a broken heap. */
    s->seen[6] = 1;
    assert_false(sat_ok(s, false));
    s->seen[6] = 0;
    assert_true(s->heap_n >= 2);
    double a = s->activity[s->heap[1]];
    s->activity[s->heap[1]] = s->activity[s->heap[0]] + 1;
    assert_false(sat_ok(s, false));
    s->activity[s->heap[1]] = a;
    assert_true(sat_ok(s, true));

    /* A clause that became unit without being propagated: the structure is
     * sound, the fixpoint is not. */
    lit_t unit[2] = {lit_of_int(9), lit_of_int(-5)};
    assert_int_equal(psi_sat_reserve(s, 9), 0);
    uint32_t cref = psi_clause_new(s, unit, 2, false, 0);
    psi_clause_attach(s, cref);
    assert_true(sat_ok(s, false));
    assert_false(sat_ok(s, true));
    char why[256];
    assert_false(psi_sat_check_invariants(s, PSI_SAT_CHECK_FIXPOINT, why, sizeof why));
    /* As a theory lemma it may be unit: its implication was only late. */
    s->arena[cref + 1] |= CL_THEORY;
    assert_true(sat_ok(s, true));
    psi_sat_free(s);
}

static bool acyc_ok(const psi_acyc *g)
{
    char why[256] = "";
    bool ok = psi_acyc_check_invariants(g, why, sizeof why);
    if (!ok)
        printf("  checker: %s\n", why);
    return ok;
}

static void test_acyclic_checker(void **state)
{
    (void)state;
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    psi_acyc *g = psi_acyc_new(s, 4, PSI_ACYC_SER);
    assert_non_null(g);
    /* Known 3->0; 0->1 iff 1, 1->2 iff 2, 2->3 iff 3, and 1 and 2 hold. */
    assert_true(psi_acyc_add_edge(g, 3, 0, PSI_EDGE_DEP, 0, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 0, 1, PSI_EDGE_DEP, 1, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 1, 2, PSI_EDGE_DEP, 2, 0) >= 0);
    assert_true(psi_acyc_add_edge(g, 2, 3, PSI_EDGE_DEP, 3, 0) >= 0);
    add(s, 1, 0, 0);
    add(s, 2, 0, 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_int_equal(psi_sat_value(s, 3), -1);
    /* Back at the root: 3->0, 0->1 and 1->2 active. */
    assert_true(g->ordered && g->act_n == 2);
    assert_true(acyc_ok(g));

    uint64_t t = g->ord[0]; /* an order against an active edge */
    g->ord[0] = g->ord[2];
    g->ord[2] = t;
    assert_false(acyc_ok(g));
    g->ord[2] = g->ord[0];
    g->ord[0] = t;
    assert_true(acyc_ok(g));

    g->out[1].n--; /* an edge in its in-list only */
    assert_false(acyc_ok(g));
    g->out[1].n++;

    act_entry first = g->act[0]; /* activations out of LIFO order */
    g->act[0] = g->act[1];
    g->act[1] = first;
    assert_false(acyc_ok(g));
    g->act[1] = g->act[0];
    g->act[0] = first;

    g->ue[3].cnt = 1; /* a label count that the values do not support */
    assert_false(acyc_ok(g));
    g->ue[3].cnt = 0;

    g->ue[1].active = 0; /* labels all true, yet the edge is off */
    assert_false(acyc_ok(g));
    g->ue[1].active = 1;
    assert_true(acyc_ok(g));

    psi_sat_free(s);
    psi_acyc_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sat_checker),
        cmocka_unit_test(test_acyclic_checker),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
