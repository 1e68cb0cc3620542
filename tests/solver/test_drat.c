/* DRAT proofs: the independent checker (drat_check.c) must accept correct
 * proofs and reject wrong ones, and must verify the solver's proofs of
 * random unsatisfiable formulas and of the unsatisfiable corpus instances.
 * The corpus case runs as its own CTest test (argument `corpus`, test
 * test_drat_corpus), skipped (exit 77) when the corpus is absent. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corpus_util.h"
#include "drat_check.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char last_msg[256];

static int check_text(const char *cnf, const char *proof)
{
    return drat_check(cnf, strlen(cnf), proof, strlen(proof), last_msg, sizeof last_msg);
}

static void test_checker_itself(void **state)
{
    (void)state;
    const char *f = "p cnf 2 4\n1 2 0\n-1 2 0\n1 -2 0\n-1 -2 0\n";
    assert_int_equal(check_text(f, "2 0\n0\n"), 1);
    assert_int_equal(check_text(f, "1 0\n2 0\n0\n"), 1);
    /* Lemmas fine, but no empty clause: not a refutation. */
    assert_int_equal(check_text(f, "2 0\n"), 0);
    assert_non_null(strstr(last_msg, "does not derive"));
    /* Deleting what a lemma needs makes it fail. */
    assert_int_equal(check_text(f, "d 1 -2 0\nd -1 -2 0\n-2 0\n0\n"), 0);
    assert_non_null(strstr(last_msg, "neither"));
    const char *g = "p cnf 3 2\n1 2 0\n-1 3 0\n";
    /* -2 does not follow at all. */
    assert_int_equal(check_text(g, "-2 0\n0\n"), 0);
    assert_non_null(strstr(last_msg, "neither"));
    /* 4 1 is not RUP but RAT on the fresh pivot 4: accepted as a lemma,
     * and the formula stays satisfiable, so no refutation. */
    assert_int_equal(check_text(g, "4 1 0\n"), 0);
    assert_non_null(strstr(last_msg, "does not derive"));
    /* With the pivot not first, RAT is checked on 1: clauses with -1 are
     * (-1 3); resolvent 4 3 ... is not RUP, so the lemma is rejected. */
    assert_int_equal(check_text(g, "1 4 0\n"), 0);
    assert_non_null(strstr(last_msg, "neither"));
}

static char *proof_of(psi_sat *s, FILE **mem, char **buf, size_t *len)
{
    *mem = open_memstream(buf, len);
    assert_non_null(*mem);
    assert_int_equal(psi_sat_set_proof(s, *mem), 0);
    return *buf;
}

static uint64_t rs;
static uint32_t rng(uint32_t n)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return (uint32_t)((rs * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static void test_random_unsat_proofs(void **state)
{
    (void)state;
    int checked = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rs = seed * 0x9E3779B97F4A7C15ull;
        int nv = 10 + (int)rng(30), nc = (int)(nv * (4.6 + rng(20) / 10.0));
        char *cnf = NULL;
        size_t cl = 0;
        FILE *cf = open_memstream(&cnf, &cl);
        fprintf(cf, "p cnf %d %d\n", nv, nc);
        psi_sat *s = psi_sat_new();
        FILE *pm;
        char *pb = NULL;
        size_t pl = 0;
        proof_of(s, &pm, &pb, &pl);
        for (int i = 0; i < nc; i++) {
            int c[3];
            for (int k = 0; k < 3; k++) {
                int v = 1 + (int)rng((uint32_t)nv);
                c[k] = rng(2) ? v : -v;
                fprintf(cf, "%d ", c[k]);
            }
            fprintf(cf, "0\n");
            psi_sat_add_clause(s, c, 3);
        }
        fclose(cf);
        int r = psi_sat_solve(s);
        psi_sat_free(s);
        fclose(pm);
        if (r == PSI_SAT_UNSAT) {
            char msg[256];
            int ok = drat_check(cnf, cl, pb, pl, msg, sizeof msg);
            if (!ok)
                print_error("seed %llu: %s\n", (unsigned long long)seed, msg);
            assert_int_equal(ok, 1);
            checked++;
        }
        free(cnf);
        free(pb);
    }
    assert_true(checked > 100);
}

/* Vivification (solver/vivify.c) rewrites learned clauses: each shortened
 * clause must reach the proof before the clause it replaces is deleted,
 * and be a reverse-unit-propagation consequence at that point. Every
 * other instance also minimizes learned clauses by binary implications
 * (analyze.c), whose lemmas must check too. Random
 * 3-SAT big enough for many reductions, with reductions and vivification
 * made frequent; unsatisfiable ones get their proofs checked, satisfiable
 * ones their models, and vivification must have shortened clauses. */
static void test_vivified_proofs(void **state)
{
    (void)state;
    int checked = 0;
    uint64_t vivified = 0;
    for (uint64_t seed = 1; seed <= 24; seed++) {
        rs = seed * 0xD1B54A32D192ED03ull;
        int nv = 50 + (int)rng(30), nc = (int)(nv * 4.7);
        char *cnf = NULL;
        size_t cl = 0;
        FILE *cf = open_memstream(&cnf, &cl);
        fprintf(cf, "p cnf %d %d\n", nv, nc);
        psi_sat *s = psi_sat_new();
        assert_int_equal(psi_sat_set_option(s, "reduce_first", 40), 0);
        assert_int_equal(psi_sat_set_option(s, "reduce_step", 10), 0);
        assert_int_equal(psi_sat_set_option(s, "vivify_effort", 1000), 0);
        assert_int_equal(psi_sat_set_option(s, "vivify_glue", 1000), 0);
        assert_int_equal(psi_sat_set_option(s, "binary_minimize", seed & 1 ? 30 : 0), 0);
        FILE *pm;
        char *pb = NULL;
        size_t pl = 0;
        proof_of(s, &pm, &pb, &pl);
        int(*cls)[3] = malloc((size_t)nc * sizeof *cls);
        assert_non_null(cls);
        for (int i = 0; i < nc; i++) {
            for (int k = 0; k < 3; k++) {
                int v = 1 + (int)rng((uint32_t)nv);
                cls[i][k] = rng(2) ? v : -v;
                fprintf(cf, "%d ", cls[i][k]);
            }
            fprintf(cf, "0\n");
            psi_sat_add_clause(s, cls[i], 3);
        }
        fclose(cf);
        int r = psi_sat_solve(s);
        psi_sat_stats st;
        psi_sat_get_stats(s, &st);
        vivified += st.vivified;
        if (r == PSI_SAT_SAT)
            for (int i = 0; i < nc; i++)
                assert_true(psi_sat_value(s, cls[i][0]) > 0 || psi_sat_value(s, cls[i][1]) > 0 ||
                            psi_sat_value(s, cls[i][2]) > 0);
        psi_sat_free(s);
        fclose(pm);
        free(cls);
        if (r == PSI_SAT_UNSAT) {
            char msg[256];
            int ok = drat_check(cnf, cl, pb, pl, msg, sizeof msg);
            if (!ok)
                print_error("seed %llu: %s\n", (unsigned long long)seed, msg);
            assert_int_equal(ok, 1);
            checked++;
        }
        free(cnf);
        free(pb);
    }
    print_message("vivified proofs checked: %d, clauses shortened: %llu\n", checked,
                  (unsigned long long)vivified);
    assert_true(checked >= 12);
    assert_true(vivified > 0);
}

static void test_corpus_proofs(void **state)
{
    (void)state;
    const char *dir = cnf_dir();
    char path[4400];
    snprintf(path, sizeof path, "%s/expected.tsv", dir);
    FILE *t = fopen(path, "r");
    assert_non_null(t);
    char name[256], exp[64];
    int checked = 0;
    while (fscanf(t, "%255s %63s", name, exp) == 2) {
        /* ph11 is out of reach; tph6 takes minutes (see test_sat_corpus). */
        if (strcmp(exp, "UNSATISFIABLE") || !strcmp(name, "tph6.cnf"))
            continue;
        /* A 10 MB proof whose forward check takes over a minute under the
         * sanitizers: only when slow tests are asked for. */
        if (!strcmp(name, "prime4294967297.cnf") && !getenv("PSI_SLOW_TESTS")) {
            print_message("SKIP: %s (set PSI_SLOW_TESTS=1 to check its proof)\n", name);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, name);
        size_t cl = 0;
        char *cnf = slurp(path, &cl);
        assert_non_null(cnf);
        psi_dimacs d;
        psi_dimacs_error err;
        assert_int_equal(psi_dimacs_parse(cnf, cl, &d, &err), 0);
        psi_sat *s = psi_sat_new();
        FILE *pm;
        char *pb = NULL;
        size_t pl = 0;
        proof_of(s, &pm, &pb, &pl);
        psi_acyc *g;
        assert_int_equal(psi_dimacs_load(&d, s, &g, NULL, &err), 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
        psi_sat_free(s);
        fclose(pm);
        char msg[256];
        int ok = drat_check(cnf, cl, pb, pl, msg, sizeof msg);
        print_message("%-28s %s (%zu proof bytes)\n", name, msg, pl);
        assert_int_equal(ok, 1);
        checked++;
        free(pb);
        free(cnf);
        psi_dimacs_free(&d);
    }
    fclose(t);
    assert_true(checked >= 35);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "corpus") == 0) {
        psi_corpus_or_skip("DRAT proofs of the corpus' CNF instances");
        const struct CMUnitTest corpus_tests[] = {
            cmocka_unit_test(test_corpus_proofs),
        };
        return cmocka_run_group_tests(corpus_tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_itself),
        cmocka_unit_test(test_random_unsat_proofs),
        cmocka_unit_test(test_vivified_proofs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
