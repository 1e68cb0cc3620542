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

/* Pigeonhole, p+1 pigeons into p holes: unsatisfiable, and from p = 7 on
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
    psi_sat_stats base = solve_php(7, NULL, 0);
    assert_true(base.reductions > 0 && base.restarts > 0);
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
#define SET_DEFAULT(name, kind, def, lo, hi, doc)                                                  \
    assert_int_equal(psi_sat_set_option(s, #name, (def)), 0);
    PSI_SAT_OPTIONS(SET_DEFAULT)
#undef SET_DEFAULT
    add_php(s, 7);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_stats same;
    psi_sat_get_stats(s, &same);
    psi_sat_free(s);
    assert_true(same.decisions == base.decisions && same.conflicts == base.conflicts &&
                same.propagations == base.propagations && same.restarts == base.restarts &&
                same.reductions == base.reductions && same.deleted == base.deleted);

    psi_sat_stats st = solve_php(7, "reduce_first", 1e12);
    assert_int_equal(st.reductions, 0);
    st = solve_php(7, "reduce_fraction", 0);
    assert_true(st.reductions > 0 && st.deleted == 0);
    st = solve_php(7, "reduce_keep_glue", 1e9);
    assert_true(st.reductions > 0 && st.deleted == 0);
    st = solve_php(7, "restart_margin", 10);
    assert_true(st.restarts != base.restarts);
    st = solve_php(7, "luby_unit", 1);
    assert_true(st.restarts != base.restarts);
    const char *names[] = {"decay_focused", "decay_stable",   "ema_fast",    "ema_slow",
                           "restart_min",   "mode_conflicts", "reduce_step", "simplify_interval"};
    const double values[] = {0.8, 0.9, 4, 64, 50, 50, 10, 1};
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_by_name),
        cmocka_unit_test(test_defaults_and_effects),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
