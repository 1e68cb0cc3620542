/* The solver's tuning options (solver/options.h): every option in the table
 * can be read and set by name within its range and nowhere else; setting
 * the defaults explicitly changes nothing; other values take effect and keep
 * the answers right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solver/options.h"
#include "solver/sat.h"

#include <stdbool.h>
#include <stdlib.h>

/* Pigeonhole, p+1 pigeons into p holes: unsatisfiable, and from p = 8 on
 * hard enough for restarts, mode switches and reductions. */
static void add_php(psi_sat *s, int p)
{
    int pig = p + 1;
    for (int i = 0; i < pig; i++) {
        int c[32];
        for (int j = 0; j < p; j++)
            c[j] = i * p + j + 1;
        assert_int_equal(psi_sat_add_clause(s, c, (size_t)p), 0);
    }
    for (int j = 0; j < p; j++)
        for (int a = 0; a < pig; a++)
            for (int b = a + 1; b < pig; b++) {
                int c[2] = {-(a * p + j + 1), -(b * p + j + 1)};
                assert_int_equal(psi_sat_add_clause(s, c, 2), 0);
            }
}

/* Every option: its default is what get reports, both ends of its range are
 * accepted, values outside (and fractions for whole-number options) are
 * not, and a rejected value leaves the option as it was. */
static void test_table_by_name(void **state)
{
    (void)state;
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    double v;
    int count = 0;
#define CHECK_OPTION(name, kind, def, lo, hi, doc)                                                 \
    do {                                                                                           \
        bool whole = (PSI_SAT_OPT_TYPE_##kind)0.5 == 0; /* INT, not REAL */                        \
        assert_int_equal(psi_sat_get_option(s, #name, &v), 0);                                     \
        assert_true(v == (double)(def));                                                           \
        assert_int_equal(psi_sat_set_option(s, #name, (lo)), 0);                                   \
        assert_int_equal(psi_sat_set_option(s, #name, (hi)), 0);                                   \
        assert_int_equal(psi_sat_set_option(s, #name, (lo)-1), PSI_SAT_EINVAL);                    \
        assert_int_equal(psi_sat_set_option(s, #name, (hi) + 1), PSI_SAT_EINVAL);                  \
        if (whole)                                                                                 \
            assert_int_equal(psi_sat_set_option(s, #name, (lo) + 0.5), PSI_SAT_EINVAL);            \
        assert_int_equal(psi_sat_get_option(s, #name, &v), 0);                                     \
        assert_true(v == (double)(hi));                                                            \
        assert_int_equal(psi_sat_set_option(s, #name, (def)), 0);                                  \
        count++;                                                                                   \
    } while (0);
    PSI_SAT_OPTIONS(CHECK_OPTION)
#undef CHECK_OPTION
    assert_true(count >= 10);
    assert_int_equal(psi_sat_set_option(s, "no_such_option", 1), PSI_SAT_EINVAL);
    assert_int_equal(psi_sat_set_option(s, NULL, 1), PSI_SAT_EINVAL);
    assert_int_equal(psi_sat_get_option(s, "no_such_option", &v), PSI_SAT_EINVAL);
    /* Once solving began the schedules are running: options are fixed. */
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_int_equal(psi_sat_set_option(s, "luby_unit", 100), PSI_SAT_EINVAL);
    assert_int_equal(psi_sat_get_option(s, "luby_unit", &v), 0);
    assert_true(v == 512);
    psi_sat_free(s);
}

static psi_sat_stats solve_php(int p, const char *name, double value)
{
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    if (name)
        assert_int_equal(psi_sat_set_option(s, name, value), 0);
    add_php(s, p);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_stats st;
    psi_sat_get_stats(s, &st);
    psi_sat_free(s);
    return st;
}

/* The defaults set explicitly give the very same search (the defaults are
 * the constants they replaced); other values change it and stay correct. */
static void test_defaults_and_effects(void **state)
{
    (void)state;
    psi_sat_stats base = solve_php(8, NULL, 0);
    assert_true(base.reductions > 0 && base.restarts > 0);
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
#define SET_DEFAULT(name, kind, def, lo, hi, doc)                                                  \
    assert_int_equal(psi_sat_set_option(s, #name, (def)), 0);
    PSI_SAT_OPTIONS(SET_DEFAULT)
#undef SET_DEFAULT
    add_php(s, 8);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_stats same;
    psi_sat_get_stats(s, &same);
    psi_sat_free(s);
    assert_true(same.decisions == base.decisions && same.conflicts == base.conflicts &&
                same.propagations == base.propagations && same.restarts == base.restarts &&
                same.reductions == base.reductions && same.deleted == base.deleted);

    psi_sat_stats st = solve_php(8, "reduce_first", 1e12);
    assert_int_equal(st.reductions, 0);
    st = solve_php(8, "reduce_fraction", 0);
    assert_true(st.reductions > 0 && st.deleted == 0);
    st = solve_php(8, "reduce_keep_glue", 1e9);
    assert_true(st.reductions > 0 && st.deleted == 0);
    st = solve_php(8, "restart_margin", 10);
    assert_true(st.restarts != base.restarts);
    st = solve_php(8, "luby_unit", 1);
    assert_true(st.restarts != base.restarts);
    const char *names[] = {"decay_focused",
                           "decay_stable",
                           "ema_fast",
                           "ema_slow",
                           "restart_min",
                           "mode_conflicts",
                           "reduce_step",
                           "simplify_interval",
                           "reduce_tier2_glue",
                           "glue_update",
                           "bump_reasons",
                           "modes",
                           "modes",
                           "target_phases",
                           "target_phases",
                           "rephase_interval",
                           "walk_effort",
                           "rephase_stable",
                           "rephase_cycle",
                           "target_reset",
                           "mode_ticks",
                           "binary_minimize",
                           "vivify_effort"};
    const double values[] = {0.8, 0.9, 4, 64, 50, 50, 10, 1, 6, 0,  0,   1,
                             2,   0,   2, 50, 0,  1,  1,  0, 1, 10, 1000};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        (void)solve_php(6, names[i], values[i]);

    /* A new variable is first decided with initial_phase: the clause
     * (1 v 2) is satisfied by deciding 1 false then propagating 2, or by
     * deciding 1 true. */
    for (int phase = 0; phase < 2; phase++) {
        s = psi_sat_new();
        assert_int_equal(psi_sat_set_option(s, "initial_phase", phase), 0);
        int c[2] = {1, 2};
        assert_int_equal(psi_sat_add_clause(s, c, 2), 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        assert_int_equal(psi_sat_value(s, 1), phase ? 1 : -1);
        assert_int_equal(psi_sat_value(s, 2), 1);
        psi_sat_free(s);
    }
}

/* The phase heuristics (rephasing, local search, target phases in both
 * modes) and the clause tiers steer the search only: on planted random
 * 3-SAT (clauses drawn at random, kept when a hidden assignment satisfies
 * them, so every instance is satisfiable) every setting must find a model
 * of every clause, and the walk must leave the formula's answer alone on
 * an unsatisfiable one (pigeonhole). */
static void test_phase_heuristics_keep_answers(void **state)
{
    (void)state;
    const char *sets[][2] = {
        {"rephase_interval", "walk_effort"},  {"target_phases", "rephase_interval"},
        {"reduce_tier2_glue", "glue_update"}, {"rephase_cycle", "rephase_interval"},
        {"mode_ticks", "target_reset"},       {"binary_minimize", "vivify_effort"}};
    const double vals[][2] = {{20, 1000}, {2, 20}, {8, 1}, {1, 10}, {1, 0}, {30, 1000}};
    enum { SETS = sizeof sets / sizeof *sets };
    uint64_t x = 88172645463325252ull, walks = 0;
    for (int round = 0; round < 3 * SETS; round++) {
        psi_sat *s = psi_sat_new();
        assert_non_null(s);
        const int k = round % SETS;
        /* Round by round, rephasing in both modes and in stable mode only. */
        assert_int_equal(psi_sat_set_option(s, "rephase_stable", (round / SETS) & 1), 0);
        assert_int_equal(psi_sat_set_option(s, sets[k][0], vals[k][0]), 0);
        assert_int_equal(psi_sat_set_option(s, sets[k][1], vals[k][1]), 0);
        assert_int_equal(psi_sat_set_option(s, "bump_reasons", round & 1), 0);
        enum { V = 200, C = 840 };
        bool hidden[V + 1];
        for (int v = 1; v <= V; v++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            hidden[v] = x & 1u;
        }
        static int cls[C][3];
        for (int c = 0; c < C;) {
            bool sat = false;
            for (int j = 0; j < 3; j++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                int v = (int)(x % V) + 1;
                cls[c][j] = (x >> 20) & 1u ? v : -v;
                sat |= (cls[c][j] > 0) == hidden[v];
            }
            if (sat) {
                assert_int_equal(psi_sat_add_clause(s, cls[c], 3), 0);
                c++;
            }
        }
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        psi_sat_stats st;
        psi_sat_get_stats(s, &st);
        walks += st.walks;
        for (int c = 0; c < C; c++)
            assert_true(psi_sat_value(s, cls[c][0]) > 0 || psi_sat_value(s, cls[c][1]) > 0 ||
                        psi_sat_value(s, cls[c][2]) > 0);
        psi_sat_free(s);
    }
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    assert_int_equal(psi_sat_set_option(s, "rephase_interval", 10), 0);
    assert_int_equal(psi_sat_set_option(s, "walk_effort", 1000), 0);
    assert_int_equal(psi_sat_set_option(s, "rephase_stable", 0), 0); /* php6 ends in focused mode */
    add_php(s, 6);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_stats st;
    psi_sat_get_stats(s, &st);
    assert_true(st.walks > 0 && st.rephases >= st.walks);
    psi_sat_free(s);
    print_message("walks on the satisfiable instances: %llu\n", (unsigned long long)walks);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_by_name),
        cmocka_unit_test(test_defaults_and_effects),
        cmocka_unit_test(test_phase_heuristics_keep_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
