/* The DIMACS/GNF reader: valid files, every error with its line and column,
 * hostile input (huge numbers, negative counts, truncation, random bytes and
 * mutations, which must never crash: the sanitizers watch), GNF loading and
 * solving, and the CLI's exit codes and messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solver/acyclic.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int parse(const char *text, psi_dimacs *d, psi_dimacs_error *e)
{
    return psi_dimacs_parse(text, strlen(text), d, e);
}

static void test_valid_cnf(void **state)
{
    (void)state;
    psi_dimacs d;
    psi_dimacs_error e;
    const char *t = "c hello\nc\np cnf 3 2\n1 -2\n 3 0 -1\n\n2 0\n";
    assert_int_equal(parse(t, &d, &e), 0);
    assert_int_equal(d.nvars, 3);
    assert_int_equal(d.nclauses, 2);
    int want[] = {1, -2, 3, 0, -1, 2, 0};
    assert_int_equal(d.nlits, 7);
    assert_memory_equal(d.lits, want, sizeof want);
    psi_dimacs_free(&d);
    /* No trailing newline, CRLF line ends, empty clause. */
    assert_int_equal(parse("p cnf 1 2\r\n1 0\r\n0", &d, &e), 0);
    assert_int_equal(d.nclauses, 2);
    psi_dimacs_free(&d);
}

static void expect_error(const char *text, uint64_t line, uint64_t col, const char *needle)
{
    psi_dimacs d;
    psi_dimacs_error e;
    int rc = parse(text, &d, &e);
    if (rc != PSI_DIMACS_ESYNTAX || e.line != line || e.col != col || !strstr(e.msg, needle))
        print_error("input %s: rc %d at %llu:%llu: %s\n", text, rc, (unsigned long long)e.line,
                    (unsigned long long)e.col, e.msg);
    assert_int_equal(rc, PSI_DIMACS_ESYNTAX);
    assert_int_equal(e.line, line);
    assert_int_equal(e.col, col);
    assert_non_null(strstr(e.msg, needle));
    psi_dimacs_free(&d);
}

static void test_errors_name_line_and_column(void **state)
{
    (void)state;
    expect_error("1 2 0\n", 1, 1, "before the 'p cnf' header");
    expect_error("p cnf 2 1\n1 3 0\n", 2, 3, "exceeds");
    expect_error("p cnf 2 1\n1 2\n", 3, 1, "not terminated");
    expect_error("p cnf 2 2\n1 2 0\n", 3, 1, "announces 2 clauses");
    expect_error("p cnf 2 1\n1 0\n2 0\n", 3, 3, "more clauses");
    expect_error("p cnf -2 1\n", 1, 7, "must not be negative");
    expect_error("p cnf 99999999999999999999 1\n", 1, 7, "too large");
    expect_error("p cnf 2 1\n1 x 0\n", 2, 3, "not terminated by 0 before 'x'");
    expect_error("p cnf 2 1\nx 0\n", 2, 1, "unknown keyword 'x'");
    expect_error("p cnf 2 1\n1 2a 0\n", 2, 4, "unexpected character 'a'");
    expect_error("p dnf 2 1\n", 1, 6, "expected 'p cnf");
    expect_error("p cnf 2 1\np cnf 2 1\n", 2, 1, "second 'p' header");
    expect_error("p cnf 1 1\n1 0 @\n", 2, 5, "unexpected character '@'");
    expect_error("p cnf 1 1\n-", 2, 2, "expected literal");
    /* GNF. */
    expect_error("p cnf 2 1\n1 0\nedge 0 0 1 2\n", 3, 7, "undeclared graph");
    expect_error("p cnf 2 1\n1 0\ndigraph 2 1 0\nedge 0 0 2 2\n", 4, 11, "out of range");
    expect_error("p cnf 2 1\n1 0\ndigraph 2 1 0\nedge 0 0 1 0\n", 4, 13, "at least 1");
    expect_error("p cnf 2 1\n1 0\ndigraph 2 1 0\nedge 0 0 1 2 3 x\n", 4, 16, "unexpected text");
    expect_error("p cnf 2 1\n1 0\ndigraph 2 1 0\ndigraph 3 1 0\n", 4, 14, "declared twice");
    expect_error("p cnf 2 1\n1 0\ndigraph bogus 2 1 0\n", 3, 14, "weight type");
    expect_error("p cnf 2 1\n1 0\ndigraph 2 1 0\nacyclic 0 2\n", 4, 11, "not fixed true");
    expect_error("p cnf 2 2\n1 0\n2 0\ndigraph 2 1 0\nedge 0 0 1 1\nedge 0 1 0 1\nacyclic 0 2\n", 0,
                 0, "labels two edges");
    expect_error("p cnf 2 1\n1\ndigraph 2 1 0\n", 3, 1, "not terminated by 0 before 'digraph'");
}

static void test_hostile_input_never_crashes(void **state)
{
    (void)state;
    const char *seeds[] = {
        "p cnf 3 2\n1 -2 0\n3 0\n",
        ("p cnf 4 1\n4 0\ndigraph int 3 3 7\nedge 7 0 1 1\nedge 7 1 2 2\nantiedge 7 2 0 3\n"
         "acyclic_si 7 4\n"),
        "p cnf 2147483647 9223372036854775807\n",
        "p cnf 5 1\n-2147483648 0\n",
        "p cnf 1 1\n1 0\ndigraph 67108864 0 1\n",
    };
    uint64_t r = 42;
    char buf[512];
    for (int iter = 0; iter < 20000; iter++) {
        const char *seed = seeds[iter % 5];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        int muts = 1 + (int)(r % 4);
        for (int m = 0; m < muts; m++) {
            r ^= r << 13;
            r ^= r >> 7;
            r ^= r << 17;
            size_t pos = (size_t)(r % (n ? n : 1));
            switch ((r >> 20) % 4) {
            case 0: /* truncate */
                n = pos;
                break;
            case 1: /* random byte */
                buf[pos] = (char)(r >> 32);
                break;
            case 2: /* digit storm */
                buf[pos] = (char)('0' + (r >> 40) % 10);
                break;
            default: /* duplicate a chunk */
                if (n + 20 < sizeof buf) {
                    memmove(buf + pos + 10, buf + pos, n - pos);
                    n += 10;
                }
            }
        }
        psi_dimacs d;
        psi_dimacs_error e;
        int rc = psi_dimacs_parse(buf, n, &d, &e);
        assert_true(rc == 0 || rc == PSI_DIMACS_ESYNTAX || rc == PSI_DIMACS_ENOMEM);
        if (rc == 0 && d.nvars < 1000 && d.nedges < 100) {
            /* Whatever parses must also load and solve. */
            psi_sat *s = psi_sat_new();
            psi_acyc *g = NULL;
            if (psi_dimacs_load(&d, s, &g, NULL, &e) == 0) {
                psi_sat_set_conflict_limit(s, 1000);
                int res = psi_sat_solve(s);
                assert_true(res == PSI_SAT_SAT || res == PSI_SAT_UNSAT || res == PSI_SAT_UNKNOWN);
            }
            psi_sat_free(s);
            psi_acyc_free(g);
        }
        psi_dimacs_free(&d);
    }
    /* A buffer of pure noise. */
    for (int i = 0; i < (int)sizeof buf; i++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        buf[i] = (char)r;
    }
    psi_dimacs d;
    psi_dimacs_error e;
    assert_int_equal(psi_dimacs_parse(buf, sizeof buf, &d, &e), PSI_DIMACS_ESYNTAX);
    psi_dimacs_free(&d);
    assert_int_equal(psi_dimacs_parse(buf, 0, &d, &e), PSI_DIMACS_ESYNTAX);
    psi_dimacs_free(&d);
}

static int solve_text(const char *text, bool prop)
{
    psi_dimacs d;
    psi_dimacs_error e;
    assert_int_equal(parse(text, &d, &e), 0);
    psi_sat *s = psi_sat_new();
    psi_acyc *g;
    int64_t ids[16];
    assert_true(d.nedges <= 16);
    assert_int_equal(psi_dimacs_load(&d, s, &g, ids, &e), 0);
    if (g)
        psi_acyc_set_propagation(g, prop);
    int r = psi_sat_solve(s);
    if (r == PSI_SAT_SAT && g)
        for (size_t i = 0; i < d.nedges; i++)
            if (ids[i] >= 0)
                assert_int_equal(psi_acyc_edge_active(g, (uint32_t)ids[i]),
                                 psi_sat_value(s, d.edges[i].var) > 0);
    psi_sat_free(s);
    psi_acyc_free(g);
    psi_dimacs_free(&d);
    return r;
}

static void test_gnf_semantics(void **state)
{
    (void)state;
    for (int p = 0; p < 2; p++) {
        /* Triangle whose three edges are all forced: cyclic, UNSAT. */
        assert_int_equal(solve_text("p cnf 4 4\n1 0\n2 0\n3 0\n4 0\ndigraph 3 3 0\n"
                                    "edge 0 0 1 1\nedge 0 1 2 2\nedge 0 2 0 3\nacyclic 0 4\n",
                                    p),
                         PSI_SAT_UNSAT);
        /* One edge free: the solver switches it off. */
        assert_int_equal(solve_text("p cnf 4 3\n1 0\n2 0\n4 0\ndigraph int 3 3 0\n"
                                    "edge 0 0 1 1\nedge 0 1 2 2\nedge 0 2 0 3 5\nacyclic 0 4\n",
                                    p),
                         PSI_SAT_SAT);
        /* Graph without an acyclic constraint imposes nothing. */
        assert_int_equal(solve_text("p cnf 3 3\n1 0\n2 0\n3 0\ndigraph 2 2 5\n"
                                    "edge 5 0 1 1\nedge 5 1 0 2\n",
                                    p),
                         PSI_SAT_SAT);
        /* SI extension: two consecutive anti edges are allowed, a cycle
         * with a dep edge next to each anti edge is not. */
        assert_int_equal(solve_text("p cnf 3 3\n1 0\n2 0\n3 0\ndigraph 2 2 0\n"
                                    "antiedge 0 0 1 1\nantiedge 0 1 0 2\nacyclic_si 0 3\n",
                                    p),
                         PSI_SAT_SAT);
        assert_int_equal(solve_text("p cnf 3 3\n1 0\n2 0\n3 0\ndigraph 2 2 0\n"
                                    "edge 0 0 1 1\nantiedge 0 1 0 2\nacyclic_si 0 3\n",
                                    p),
                         PSI_SAT_UNSAT);
        /* Two graphs: each must be acyclic on its own; their union would
         * not matter. */
        assert_int_equal(solve_text("p cnf 6 4\n5 0\n6 0\n1 2 0\n3 4 0\ndigraph 2 2 0\n"
                                    "digraph 2 2 1\nedge 0 0 1 1\nedge 0 1 0 2\nedge 1 0 1 3\n"
                                    "edge 1 1 0 4\nacyclic 0 5\nacyclic 1 6\n",
                                    p),
                         PSI_SAT_SAT);
    }
}

static int run(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli(void **state)
{
    (void)state;
    const char *cli = getenv("PSI_CLI");
    if (!cli || access(cli, X_OK)) {
        printf("SKIP: PSI_CLI not available; CLI tests skipped\n");
        return;
    }
    char dir[] = "/tmp/psi_sat_cli_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char f[256], cmd[1024];
    snprintf(f, sizeof f, "%s/bad.cnf", dir);
    FILE *o = fopen(f, "w");
    fputs("p cnf 2 1\n1 3 0\n", o);
    fclose(o);
    snprintf(cmd, sizeof cmd, "'%s' sat '%s' 2>'%s/err' >/dev/null", cli, f, dir);
    assert_int_equal(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "grep -q '^%s:2:3: literal exceeds' '%s/err'", f, dir);
    assert_int_equal(run(cmd), 0);
    /* stdin, unsatisfiable. */
    snprintf(cmd, sizeof cmd,
             "printf 'p cnf 1 2\\n1 0\\n-1 0\\n' | '%s' sat - | grep -q '^s UNSAT'", cli);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "printf 'p cnf 1 2\\n1 0\\n-1 0\\n' | '%s' sat - >/dev/null", cli);
    assert_int_equal(run(cmd), 20);
    /* Satisfiable GNF with the theory, stats on and propagation off. */
    snprintf(
        cmd, sizeof cmd,
        "printf 'p cnf 3 1\\n3 0\\ndigraph 2 2 0\\nedge 0 0 1 1\\nedge 0 1 0 2\\nacyclic 0 3\\n'"
        " | '%s' sat --stats --no-theory-propagation - > '%s/out'",
        cli, dir);
    assert_int_equal(run(cmd), 10);
    snprintf(cmd, sizeof cmd, "grep -q '^c theory calls' '%s/out' && grep -q '^v .* 0$' '%s/out'",
             dir, dir);
    assert_int_equal(run(cmd), 0);
    /* Proof output, usage errors, help. */
    snprintf(cmd, sizeof cmd,
             "printf 'p cnf 1 2\\n1 0\\n-1 0\\n' | '%s' sat --proof '%s/p.drat' - >/dev/null", cli,
             dir);
    assert_int_equal(run(cmd), 20);
    snprintf(cmd, sizeof cmd, "grep -q '^0$' '%s/p.drat'", dir);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' sat --bogus x 2>/dev/null", cli);
    assert_int_equal(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "'%s' sat --help | grep -q 'usage: polysi-solve sat'", cli);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    run(cmd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_cnf),
        cmocka_unit_test(test_errors_name_line_and_column),
        cmocka_unit_test(test_hostile_input_never_crashes),
        cmocka_unit_test(test_gnf_semantics),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
