/* Two CNF techniques of issue 17 item 5: shrinking of learned clauses
 * (analyze.c, opt.shrink) and static symmetry breaking of pigeonhole-like
 * matrices (symmetry.c, opt.symmetry). Answers must match what is known
 * (counting arguments, brute force over small graphs, the other setting;
 * colourings also with a clique's colours fixed),
 * every model must satisfy the original clauses, the symmetry step must
 * stay away from formulas whose swaps do not all hold, and a solver that
 * broke symmetries refuses clauses and assumptions afterwards. With the
 * argument `corpus`: the pigeonhole files of ../shared/corpus/cnf,
 * including tph6 and ph11, which no CDCL search without it finishes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corpus_util.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <stdbool.h>

/* A formula as a flat list of 0-terminated clauses. */
typedef struct cnf {
    int *lits;
    size_t n, cap;
    int nvars;
} cnf;

static void push(cnf *f, int lit)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 1024;
        f->lits = realloc(f->lits, f->cap * sizeof *f->lits);
        assert_non_null(f->lits);
    }
    f->lits[f->n++] = lit;
}

static uint64_t rnd(uint64_t *st)
{
    *st ^= *st << 13;
    *st ^= *st >> 7;
    *st ^= *st << 17;
    return *st;
}

/* Loads f (each clause's literals rotated by a random amount, so sorted
 * order is not what the solver sees) with the given options. */
static psi_sat *load(const cnf *f, int shrink, int symmetry, uint64_t *st)
{
    psi_sat *s = psi_sat_new();
    assert_non_null(s);
    assert_int_equal(psi_sat_set_option(s, "shrink", shrink), 0);
    assert_int_equal(psi_sat_set_option(s, "symmetry", symmetry), 0);
    assert_int_equal(psi_sat_reserve(s, f->nvars), 0);
    int buf[64];
    size_t start = 0;
    for (size_t i = 0; i < f->n; i++) {
        if (f->lits[i])
            continue;
        size_t len = i - start, rot = len ? rnd(st) % len : 0;
        assert_true(len <= 64);
        for (size_t k = 0; k < len; k++)
            buf[k] = f->lits[start + (k + rot) % len];
        assert_int_equal(psi_sat_add_clause(s, buf, len), 0);
        start = i + 1;
    }
    return s;
}

static void check_model(const psi_sat *s, const cnf *f)
{
    bool sat = false;
    for (size_t i = 0; i < f->n; i++) {
        if (!f->lits[i]) {
            assert_true(sat);
            sat = false;
        } else if (psi_sat_value(s, f->lits[i]) > 0) {
            sat = true;
        }
    }
}

/* p pigeons, h holes, at most k pigeons per hole (all (k+1)-subsets
 * excluded), every pigeon in some hole; var (j * p + i + 1) = pigeon i in
 * hole j. Satisfiable iff p <= k * h. */
static cnf pigeons(int p, int h, int k)
{
    cnf f = {.nvars = p * h};
    for (int j = 0; j < h; j++) {
        int t[3];
        if (k == 1)
            for (t[0] = 0; t[0] < p; t[0]++)
                for (t[1] = t[0] + 1; t[1] < p; t[1]++) {
                    push(&f, -(j * p + t[0] + 1));
                    push(&f, -(j * p + t[1] + 1));
                    push(&f, 0);
                }
        else
            for (t[0] = 0; t[0] < p; t[0]++)
                for (t[1] = t[0] + 1; t[1] < p; t[1]++)
                    for (t[2] = t[1] + 1; t[2] < p; t[2]++) {
                        for (int a = 0; a < 3; a++)
                            push(&f, -(j * p + t[a] + 1));
                        push(&f, 0);
                    }
    }
    for (int i = 0; i < p; i++) {
        for (int j = 0; j < h; j++)
            push(&f, j * p + i + 1);
        push(&f, 0);
    }
    return f;
}

/* Solves f with symmetry breaking; returns the answer and the number of
 * swaps broken. */
static int solve_sym(const cnf *f, uint64_t *st, uint64_t *broken)
{
    psi_sat *s = load(f, 1, 1, st);
    int r = psi_sat_solve(s);
    if (r == PSI_SAT_SAT)
        check_model(s, f);
    psi_sat_stats ss;
    psi_sat_get_stats(s, &ss);
    *broken = ss.symmetries;
    psi_sat_free(s);
    return r;
}

/* Pigeonhole grid: answers by counting, broken swaps counted. */
static void test_pigeon_grid(void **state)
{
    (void)state;
    uint64_t st = 7;
    for (int p = 2; p <= 9; p++)
        for (int h = 1; h <= 4; h++)
            for (int k = 1; k <= 2; k++) {
                if (k >= p)
                    continue; /* no exclusion clauses at all */
                cnf f = pigeons(p, h, k);
                uint64_t broken;
                int r = solve_sym(&f, &st, &broken);
                assert_int_equal(r, p <= k * h ? PSI_SAT_SAT : PSI_SAT_UNSAT);
                /* (p - 1) row swaps and (h - 1) column swaps all hold;
                 * one hole has unit rows, which are no clauses. */
                assert_int_equal(broken, h > 1 ? (uint64_t)(p - 1 + h - 1) : 0);
                free(f.lits);
            }
}

/* One extra clause that only some pigeons' swaps respect: nothing may be
 * broken (the swaps must all hold), and the answer must still be right. */
static void test_near_symmetry(void **state)
{
    (void)state;
    uint64_t st = 11;
    for (int p = 3; p <= 7; p++) {
        cnf f = pigeons(p, p - 1, 1);
        push(&f, -1); /* pigeon 0 not in hole 0 */
        push(&f, 0);
        uint64_t broken;
        assert_int_equal(solve_sym(&f, &st, &broken), PSI_SAT_UNSAT);
        assert_int_equal(broken, 0);
        free(f.lits);
        cnf g = pigeons(p, p, 1); /* satisfiable: pigeon 0 can go elsewhere */
        push(&g, -1);
        push(&g, 0);
        assert_int_equal(solve_sym(&g, &st, &broken), PSI_SAT_SAT);
        assert_int_equal(broken, 0);
        free(g.lits);
    }
}

/* k-colouring of a graph on n vertices given by its adjacency bits; var
 * (v * k + c + 1) = vertex v has colour c. */
static cnf colouring(int n, int k, const uint8_t *adj)
{
    cnf f = {.nvars = n * k};
    for (int v = 0; v < n; v++) {
        for (int c = 0; c < k; c++)
            push(&f, v * k + c + 1);
        push(&f, 0);
        for (int c = 0; c < k; c++)
            for (int d = c + 1; d < k; d++) {
                push(&f, -(v * k + c + 1));
                push(&f, -(v * k + d + 1));
                push(&f, 0);
            }
    }
    for (int u = 0; u < n; u++)
        for (int v = u + 1; v < n; v++)
            if (adj[u * n + v])
                for (int c = 0; c < k; c++) {
                    push(&f, -(u * k + c + 1));
                    push(&f, -(v * k + c + 1));
                    push(&f, 0);
                }
    return f;
}

static bool has_edge(int n, const uint8_t *adj)
{
    for (int u = 0; u < n * n; u++)
        if (adj[u])
            return true;
    return false;
}

static bool all_edges(int n, const uint8_t *adj)
{
    for (int u = 0; u < n; u++)
        for (int v = 0; v < n; v++)
            if (u != v && !adj[u * n + v])
                return false;
    return true;
}

/* Is the graph k-colourable? Brute force over colourings (n <= 8). */
static bool colourable(int n, int k, const uint8_t *adj, int *col, int v)
{
    if (v == n)
        return true;
    for (int c = 0; c < k; c++) {
        bool ok = true;
        for (int u = 0; u < v && ok; u++)
            ok = !(adj[u * n + v] && col[u] == c);
        if (ok && (col[v] = c, colourable(n, k, adj, col, v + 1)))
            return true;
    }
    return false;
}

/* Complete graphs (rows and columns symmetric: lex-leader) and random
 * graphs (columns only: a clique's colours fixed, at least two vertices
 * when the graph has an edge and k >= 2), against brute force, both
 * shrink settings. */
static void test_colourings(void **state)
{
    (void)state;
    uint64_t st = 3;
    uint8_t adj[64];
    int col[8];
    for (int round = 0; round < 300; round++) {
        int n = 2 + (int)(rnd(&st) % 7), k = 2 + (int)(rnd(&st) % 3);
        bool complete = round % 10 == 0;
        unsigned dens = 20 + (unsigned)(rnd(&st) % 70);
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                adj[u * n + v] = u < v && (complete || rnd(&st) % 100 < dens);
        for (int u = 0; u < n; u++)
            for (int v = 0; v < u; v++)
                adj[u * n + v] = adj[v * n + u];
        bool want = colourable(n, k, adj, col, 0);
        cnf f = colouring(n, k, adj);
        for (int shrink = 0; shrink <= 1; shrink++) {
            psi_sat *s = load(&f, shrink, 1, &st);
            int r = psi_sat_solve(s);
            assert_int_equal(r, want ? PSI_SAT_SAT : PSI_SAT_UNSAT);
            if (r == PSI_SAT_SAT)
                check_model(s, &f);
            psi_sat_stats ss;
            psi_sat_get_stats(s, &ss);
            if (complete)
                assert_int_equal(ss.symmetries, (uint64_t)(n - 1 + k - 1));
            else if (has_edge(n, adj)) /* (complete by chance: lex-leader, more) */
                assert_in_range(ss.symmetries, 2, all_edges(n, adj) ? n + k : k);
            psi_sat_free(s);
        }
        free(f.lits);
    }
}

/* Random k-colourings near the threshold, too big for brute force (20-40
 * vertices): fixing a clique's colours (symmetry.c) must give the answer
 * of the plain search, on satisfiable and unsatisfiable ones alike; a
 * clause that one column swap breaks (vertex 0 not colour 0) must stop
 * it; turning symmetry_clique off must too. */
static void test_colour_cliques(void **state)
{
    (void)state;
    uint64_t st = 23;
    static uint8_t adj[40 * 40];
    int sat = 0, unsat = 0;
    for (int round = 0; round < 240; round++) {
        int n = 20 + (int)(rnd(&st) % 21), k = 3 + (int)(rnd(&st) % 2);
        /* Average degree 3-6 for 3 colours and 5.2-8.2 for 4: both
         * answers occur (graphs this small stay colourable at higher
         * degrees than the asymptotic thresholds 4.7 and 8.4). */
        unsigned pct = (unsigned)((k == 3 ? 300 : 520) + rnd(&st) % 300) / (unsigned)(n - 1);
        for (int u = 0; u < n; u++)
            for (int v = 0; v < n; v++)
                adj[u * n + v] = u < v && rnd(&st) % 100 < pct;
        for (int u = 0; u < n; u++)
            for (int v = 0; v < u; v++)
                adj[u * n + v] = adj[v * n + u];
        cnf f = colouring(n, k, adj);
        int variant = round % 3; /* 0 plain, 1 a broken column swap, 2 option off */
        if (variant == 1) {
            push(&f, -1);
            push(&f, 0);
        }
        psi_sat *ref = load(&f, 1, 0, &st);
        int want = psi_sat_solve(ref);
        psi_sat_free(ref);
        psi_sat *s = load(&f, 1, 1, &st);
        if (variant == 2)
            assert_int_equal(psi_sat_set_option(s, "symmetry_clique", 0), 0);
        int r = psi_sat_solve(s);
        assert_int_equal(r, want);
        if (r == PSI_SAT_SAT)
            check_model(s, &f);
        psi_sat_stats ss;
        psi_sat_get_stats(s, &ss);
        if (variant == 0 && has_edge(n, adj))
            assert_true(ss.symmetries >= 2 && ss.symmetries <= (uint64_t)k);
        else if (variant)
            assert_int_equal(ss.symmetries, 0);
        sat += r == PSI_SAT_SAT;
        unsat += r == PSI_SAT_UNSAT;
        psi_sat_free(s);
        free(f.lits);
    }
    print_message("colour cliques: %d satisfiable, %d unsatisfiable\n", sat, unsat);
    assert_true(sat >= 40 && unsat >= 40);
}

/* After breaking symmetries the solver is one-shot; without any it is not. */
static void test_one_shot(void **state)
{
    (void)state;
    uint64_t st = 5;
    cnf f = pigeons(4, 4, 1);
    psi_sat *s = load(&f, 1, 1, &st);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    int c[1] = {1};
    assert_int_equal(psi_sat_add_clause(s, c, 1), PSI_SAT_EINVAL);
    assert_int_equal(psi_sat_assume(s, 1), PSI_SAT_EINVAL);
    psi_sat_free(s);
    s = load(&f, 1, 0, &st); /* option off: incremental as ever */
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_int_equal(psi_sat_add_clause(s, c, 1), 0);
    assert_int_equal(psi_sat_assume(s, -1), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_sat_free(s);
    free(f.lits);
}

/* Shrinking on random 3-SAT near the threshold: answers and models agree
 * with shrinking off, and it removes literals on the harder ones. */
static void test_shrink_random(void **state)
{
    (void)state;
    uint64_t st = 17, shrunk = 0;
    for (int round = 0; round < 40; round++) {
        int n = 40 + (int)(rnd(&st) % 40), m = n * 426 / 100;
        cnf f = {.nvars = n};
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < 3; j++) {
                int v = 1 + (int)(rnd(&st) % (uint64_t)n);
                push(&f, rnd(&st) & 1 ? v : -v);
            }
            push(&f, 0);
        }
        int ans[2];
        for (int shrink = 0; shrink <= 1; shrink++) {
            psi_sat *s = load(&f, shrink, 0, &st);
            ans[shrink] = psi_sat_solve(s);
            if (ans[shrink] == PSI_SAT_SAT)
                check_model(s, &f);
            psi_sat_stats ss;
            psi_sat_get_stats(s, &ss);
            if (shrink)
                shrunk += ss.shrunk_literals;
            else
                assert_int_equal(ss.shrunk_literals, 0);
            psi_sat_free(s);
        }
        assert_int_equal(ans[0], ans[1]);
        free(f.lits);
    }
    assert_true(shrunk > 0);
}

/* The corpus' pigeonhole files with symmetry breaking: tph6 (13 pigeons,
 * 6 holes, at most two each) and ph11 take CDCL alone minutes; here they
 * must fall in a few hundred conflicts, with the answers of expected.tsv
 * (all unsatisfiable). */
static void test_corpus_pigeons(void **state)
{
    (void)state;
    const char *files[] = {"ph2.cnf", "ph3.cnf",  "ph4.cnf", "ph5.cnf",
                           "ph6.cnf", "ph11.cnf", "tph6.cnf"};
    char path[4400];
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", cnf_dir(), files[i]);
        size_t len = 0;
        char *buf = slurp(path, &len);
        assert_non_null(buf);
        psi_dimacs d;
        psi_dimacs_error err;
        assert_int_equal(psi_dimacs_parse(buf, len, &d, &err), 0);
        psi_sat *s = psi_sat_new();
        assert_int_equal(psi_sat_set_option(s, "symmetry", 1), 0);
        psi_acyc *g;
        assert_int_equal(psi_dimacs_load(&d, s, &g, NULL, &err), 0);
        psi_sat_set_conflict_limit(s, 1000);
        int r = psi_sat_solve(s);
        psi_sat_stats ss;
        psi_sat_get_stats(s, &ss);
        print_message("%s: %s, %llu conflicts, %llu swaps broken\n", files[i],
                      r == PSI_SAT_UNSAT ? "UNSAT" : "not UNSAT", (unsigned long long)ss.conflicts,
                      (unsigned long long)ss.symmetries);
        assert_int_equal(r, PSI_SAT_UNSAT);
        assert_true(ss.symmetries > 0);
        psi_sat_free(s);
        psi_dimacs_free(&d);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "corpus")) {
        psi_corpus_or_skip("symmetry breaking on the corpus' pigeonhole files");
        const struct CMUnitTest corpus[] = {cmocka_unit_test(test_corpus_pigeons)};
        return cmocka_run_group_tests(corpus, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pigeon_grid), cmocka_unit_test(test_near_symmetry),
        cmocka_unit_test(test_colourings),  cmocka_unit_test(test_colour_cliques),
        cmocka_unit_test(test_one_shot),    cmocka_unit_test(test_shrink_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
