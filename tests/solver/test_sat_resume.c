/* Resumed solves (psi_sat_set_resume): clauses added after a SAT answer,
 * above the root, against a fresh solver given every clause so far. The
 * clauses mostly refute the model just found, as a lazy refinement does
 * (so the clause is false under the kept trail: the cases where it is
 * unit at a lower level, false with one or two literals at the top
 * level), some are satisfied by it, some are units, duplicates or
 * tautologies; assumptions in between force a root start. Every step:
 * the same SAT/UNSAT answer as the fresh solver, and every model
 * satisfies every clause. The same with the acyclicity theory, where each
 * model is also checked by a fresh solver fixing it, and edges are added
 * between resumed solves. With PSI_CHECK the solver's invariant checker
 * runs at every model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solver/acyclic.h"
#include "solver/sat.h"
#include "solver/theory.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static void rng_seed(uint64_t s)
{
    rng_state = s * 0x9E3779B97F4A7C15ull + 3;
}
static uint32_t rng(uint32_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

enum { MAXCL = 2000, MAXLEN = 10, MAXE = 200 };

/* Every clause given to the solver under test, to replay into fresh ones. */
typedef struct formula {
    int nvars, n;
    int len[MAXCL];
    int lit[MAXCL][MAXLEN];
} formula;

static void add(psi_sat *s, formula *f, const int *lits, int n)
{
    assert_true(f->n < MAXCL && n <= MAXLEN);
    memcpy(f->lit[f->n], lits, (size_t)n * sizeof *lits);
    f->len[f->n++] = n;
    assert_int_equal(psi_sat_add_clause(s, lits, (size_t)n), 0);
}

static void replay(psi_sat *s, const formula *f)
{
    for (int i = 0; i < f->n; i++)
        assert_int_equal(psi_sat_add_clause(s, f->lit[i], (size_t)f->len[i]), 0);
}

static void check_model(psi_sat *s, const formula *f, const int *as, int na)
{
    for (int i = 0; i < f->n; i++) {
        bool sat = false;
        for (int k = 0; k < f->len[i] && !sat; k++)
            sat = psi_sat_value(s, f->lit[i][k]) > 0;
        assert_true(sat);
    }
    for (int i = 0; i < na; i++)
        assert_true(psi_sat_value(s, as[i]) > 0);
}

static int rand_lit(int nvars)
{
    int v = 1 + (int)rng((uint32_t)nvars);
    return rng(2) ? v : -v;
}

/* A clause for the step after a model (model[v-1] = value of v): most
 * often false under it (a refutation of k of its literals), else with one
 * literal true, or a unit, or with a duplicate or a complementary pair. */
static int next_clause(int nvars, const int *model, int *c)
{
    uint32_t kind = rng(20);
    int n = kind < 2 ? 1 : 2 + (int)rng(6);
    for (int i = 0; i < n; i++) {
        int v = 1 + (int)rng((uint32_t)nvars);
        c[i] = model[v - 1] > 0 ? -v : v; /* false in the model */
    }
    if (kind >= 15 && kind < 18)
        c[rng((uint32_t)n)] *= -1; /* one literal true */
    else if (kind == 18 && n < MAXLEN)
        c[n] = c[0], n++; /* duplicate */
    else if (kind == 19 && n < MAXLEN)
        c[n] = -c[0], n++; /* tautology */
    return n;
}

static int fresh_solve(const formula *f, const int *as, int na)
{
    psi_sat *t = psi_sat_new();
    assert_non_null(t);
    assert_int_equal(psi_sat_reserve(t, f->nvars), 0);
    replay(t, f);
    for (int i = 0; i < na; i++)
        psi_sat_assume(t, as[i]);
    int r = psi_sat_solve(t);
    if (r == PSI_SAT_SAT)
        check_model(t, f, as, na);
    psi_sat_free(t);
    return r;
}

/* One random CNF run; counts answers in sat/unsat. */
static void run_cnf(uint64_t seed, int *nsat, int *nunsat)
{
    static formula f;
    rng_seed(seed);
    int nvars = 8 + (int)rng(60);
    f.nvars = nvars;
    f.n = 0;
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    psi_sat_set_resume(s, 1);
    assert_int_equal(psi_sat_reserve(s, nvars), 0);
    /* 3-SAT well below the threshold: many models to refute one by one */
    int base = nvars * (1 + (int)rng(3));
    for (int i = 0; i < base; i++) {
        int c[3] = {rand_lit(nvars), rand_lit(nvars), rand_lit(nvars)};
        add(s, &f, c, 3);
    }
    int model[128];
    for (int step = 0; step < 60; step++) {
        int as[3], na = rng(8) == 0 ? 1 + (int)rng(3) : 0;
        for (int i = 0; i < na; i++) {
            as[i] = rand_lit(nvars);
            assert_int_equal(psi_sat_assume(s, as[i]), 0);
        }
        int r = psi_sat_solve(s);
        assert_int_equal(r, fresh_solve(&f, as, na));
        if (r != PSI_SAT_SAT) {
            (*nunsat)++;
            if (!na)
                break; /* UNSAT for good */
            continue;
        }
        (*nsat)++;
        check_model(s, &f, as, na);
        for (int v = 1; v <= nvars; v++)
            model[v - 1] = psi_sat_value(s, v);
        for (int k = 1 + (int)rng(4); k > 0; k--) {
            int c[MAXLEN];
            int n = next_clause(nvars, model, c);
            add(s, &f, c, n);
        }
    }
    psi_sat_free(s);
}

static void test_cnf_resume_vs_fresh(void **state)
{
    (void)state;
    int nsat = 0, nunsat = 0;
    for (uint64_t seed = 1; seed <= 300; seed++)
        run_cnf(seed, &nsat, &nunsat);
    /* both answers come up often (a test that never refutes is no test) */
    print_message("cnf: %d SAT, %d UNSAT\n", nsat, nunsat);
    assert_true(nsat > 3000);
    assert_true(nunsat > 250);
}

/* A random graph over the first variables: known and labelled edges. */
typedef struct graph {
    int nodes, ne, mode;
    int from[MAXE], to[MAXE], kind[MAXE], la[MAXE], lb[MAXE];
} graph;

static void random_edge(graph *g, int nvars)
{
    assert_true(g->ne < MAXE);
    int i = g->ne++;
    g->from[i] = (int)rng((uint32_t)g->nodes);
    g->to[i] = (int)rng((uint32_t)g->nodes);
    g->kind[i] = rng(3) == 0 ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
    uint32_t lab = rng(8);
    g->la[i] = lab == 0 ? 0 : rand_lit(nvars);
    g->lb[i] = lab < 6 ? 0 : rand_lit(nvars);
}

static psi_acyc *load_graph(psi_sat *s, const graph *g, int e0, psi_acyc *a)
{
    if (!a) {
        a = psi_acyc_new(s, (uint32_t)g->nodes, (psi_acyc_mode)g->mode);
        assert_non_null(a);
    }
    for (int i = e0; i < g->ne; i++)
        assert_int_equal(psi_acyc_add_edge(a, (uint32_t)g->from[i], (uint32_t)g->to[i],
                                           (psi_edge_kind)g->kind[i], g->la[i], g->lb[i]),
                         i);
    return a;
}

/* A fresh solver with the graph and clauses (and the units in fix). */
static int fresh_graph_solve(const graph *g, const formula *f, const int *fix, int nfix)
{
    psi_sat *t = psi_sat_new();
    assert_non_null(t);
    assert_int_equal(psi_sat_reserve(t, f->nvars), 0);
    psi_acyc *a = load_graph(t, g, 0, NULL);
    replay(t, f);
    for (int i = 0; i < nfix; i++)
        assert_int_equal(psi_sat_add_clause(t, &fix[i], 1), 0);
    int r = psi_sat_solve(t);
    if (r == PSI_SAT_SAT)
        check_model(t, f, fix, nfix);
    psi_acyc_free(a);
    psi_sat_free(t);
    return r;
}

static void run_graph(uint64_t seed, int *nsat, int *nunsat)
{
    static formula f;
    static graph g;
    rng_seed(seed);
    int nvars = 6 + (int)rng(40);
    f.nvars = nvars;
    f.n = 0;
    g.nodes = 3 + (int)rng(20);
    g.ne = 0;
    g.mode = (int)rng(2);
    for (int i = nvars + (int)rng((uint32_t)nvars * 2); i > 0; i--)
        random_edge(&g, nvars);
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    psi_sat_set_resume(s, 1);
    assert_int_equal(psi_sat_reserve(s, nvars), 0);
    psi_acyc *a = load_graph(s, &g, 0, NULL);
    for (int i = (int)rng((uint32_t)nvars); i > 0; i--) {
        int c[2] = {rand_lit(nvars), rand_lit(nvars)};
        add(s, &f, c, 2);
    }
    int model[64];
    for (int step = 0; step < 40; step++) {
        int r = psi_sat_solve(s);
        assert_int_equal(r, fresh_graph_solve(&g, &f, NULL, 0));
        if (r != PSI_SAT_SAT) {
            (*nunsat)++;
            break;
        }
        (*nsat)++;
        check_model(s, &f, NULL, 0);
        for (int v = 1; v <= nvars; v++)
            model[v - 1] = v * psi_sat_value(s, v);
        /* the model is acyclic: a fresh solver fixing it agrees */
        assert_int_equal(fresh_graph_solve(&g, &f, model, nvars), PSI_SAT_SAT);
        for (int v = 1; v <= nvars; v++)
            model[v - 1] = psi_sat_value(s, v);
        if (rng(10) == 0) {
            int e0 = g.ne; /* an edge between resumed solves: from the root */
            random_edge(&g, nvars);
            load_graph(s, &g, e0, a);
        }
        for (int k = 1 + (int)rng(3); k > 0; k--) {
            int c[MAXLEN];
            int n = next_clause(nvars, model, c);
            add(s, &f, c, n);
        }
    }
    psi_acyc_free(a);
    psi_sat_free(s);
}

static void test_theory_resume_vs_fresh(void **state)
{
    (void)state;
    int nsat = 0, nunsat = 0;
    for (uint64_t seed = 1; seed <= 300; seed++)
        run_graph(seed, &nsat, &nunsat);
    print_message("theory: %d SAT, %d UNSAT\n", nsat, nunsat);
    assert_true(nsat > 700);
    assert_true(nunsat > 100);
}

/* Hand-made: the clause is unit at a lower level than the top, false with
 * two literals at the top level, and a unit true above the root. */
static void test_resume_cases(void **state)
{
    (void)state;
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    psi_sat_set_resume(s, 1);
    /* four free variables, all decided false (the initial phase) */
    assert_int_equal(psi_sat_reserve(s, 4), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    int v[5];
    for (int i = 1; i <= 4; i++)
        v[i] = psi_sat_value(s, i) > 0 ? -i : i; /* false in the model */
    /* a clause the model satisfies: the next solve decides nothing */
    psi_sat_stats st0, st1;
    psi_sat_get_stats(s, &st0);
    int sat[2] = {-v[1], v[2]};
    assert_int_equal(psi_sat_add_clause(s, sat, 2), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    psi_sat_get_stats(s, &st1);
    assert_int_equal(st1.decisions, st0.decisions);
    int c1[3] = {v[1], v[2], v[3]};
    assert_int_equal(psi_sat_add_clause(s, c1, 3), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_true(psi_sat_value(s, v[1]) > 0 || psi_sat_value(s, v[2]) > 0 ||
                psi_sat_value(s, v[3]) > 0);
    int u = psi_sat_value(s, 4) > 0 ? -4 : 4;
    assert_int_equal(psi_sat_add_clause(s, &u, 1), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_true(psi_sat_value(s, u) > 0);
    assert_int_equal(psi_sat_root_value(s, u), 1);
    int nu = -u;
    assert_int_equal(psi_sat_add_clause(s, &nu, 1), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_set_resume(s, 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_resume_cases),
        cmocka_unit_test(test_cnf_resume_vs_fresh),
        cmocka_unit_test(test_theory_resume_vs_fresh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
