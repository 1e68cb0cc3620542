/* The polysi-solve program (PSI_CLI) on the corpus (PSI_CORPUS): the three
 * production violations are explained and named (galera: lost update on
 * key 0; yugabyte and dgraph: causality violations), JSON carries the
 * counterexample, DOT output renders with `dot -Tsvg`, the witness of every
 * accepted corpus history verifies (SI; SER too for fig8_9_10), and
 * tampered witnesses are refused; and, without the corpus, the classic
 * histories (long fork, write skew) are named. The corpus cases run as
 * their own CTest test (argument `corpus`, test test_interpret_cli_corpus),
 * skipped (exit 77) when the corpus is absent. Tests print why they skip
 * when the program or Graphviz is missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/corpus.h"

static char tmpdir[256];

static const char *cli(void)
{
    const char *c = getenv("PSI_CLI");
    if (!c || access(c, X_OK) != 0) {
        fprintf(stderr, "PSI_CLI not set or not executable; CLI tests skipped\n");
        return NULL;
    }
    return c;
}

/* Set by main for the corpus cases. */
static const char *corpus_dir;

/* Runs cmd through the shell; returns its exit code and (if out) its stdout. */
static int run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
        n += got;
        if (cap - n < 2) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    buf[n] = '\0';
    int st = pclose(p);
    if (out)
        *out = buf;
    else
        free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_reject(const char *path, const char *opts, const char *const *want, size_t n)
{
    char cmd[2048], *out;
    snprintf(cmd, sizeof cmd, "'%s' check %s '%s'", cli(), opts, path);
    int rc = run(cmd, &out);
    if (rc != 1)
        fail_msg("%s: exit %d, want 1\n%s", cmd, rc, out);
    for (size_t i = 0; i < n; i++)
        if (!strstr(out, want[i]))
            fail_msg("%s: output lacks '%s'\n%s", cmd, want[i], out);
    free(out);
}

static void test_production_violations(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    if (!cli())
        skip();
    char p[1024];
    snprintf(p, sizeof p, "%s/polysi-artifact/violations/galera/galera.txt", c);
    const char *galera[] = {("anomaly: lost update on key 0: (1,2) writes value 4; (1,3) and (2,8) "
                             "both read it and both overwrite key 0"),
                            "minimal: no dependency can be removed", "(1,2) -WR(0)-> (1,3)",
                            "(1,2) -WR(0)-> (2,8)"};
    expect_reject(p, "", galera, 4);
    const char *galera_json[] = {"\"anomaly\":\"lost update\"", "\"minimal\":true",
                                 "\"origin\":\"certain\"", "\"origin\":\"decided\""};
    expect_reject(p, "--json", galera_json, 4);
    const char *galera_elle[] = {"\"elle\":\"lost-update\""};
    expect_reject(p, "--json --isolation ser", galera_elle, 1);
    /* The same name under SI and SER (the PolySI paper calls them causality
     * violations; Elle, G-single). */
    const char *causal[] = {"anomaly: G-single (a causality violation): "};
    const char *causal_json[] = {"\"anomaly\":\"G-single\",\"elle\":\"G-single\""};
    const char *files[] = {"yugabyte/yugabyte.txt", "dgraph/history.bincode"};
    for (int i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/polysi-artifact/violations/%s", c, files[i]);
        expect_reject(p, "", causal, 1);
        expect_reject(p, "--isolation ser", causal, 1);
        expect_reject(p, "--json --isolation SER", causal_json, 1);
    }
}

/* A reject stays a reject (exit 1) whatever --interpret-budget allows, and
 * the report says what the budget did not allow. */
static void test_small_budgets(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    if (!cli())
        skip();
    static const char *const files[][2] = {
        {"polysi-artifact/violations/dgraph/history.bincode", "si"},
        {"polysi-artifact/fig7/20_100_15_1000_0.5_uniform/history.bincode", "ser"},
    };
    for (size_t i = 0; i < 2; i++)
        for (unsigned budget = 1; budget <= 15; budget++) {
            char cmd[2048], *out;
            snprintf(cmd, sizeof cmd,
                     "'%s' check --isolation %s --interpret-budget %u '%s/%s' 2>&1", cli(),
                     files[i][1], budget, c, files[i][0]);
            int rc = run(cmd, &out);
            if (rc != 1 || !strstr(out, "REJECT") || !strstr(out, "budget"))
                fail_msg("%s: exit %d (want 1, naming the budget)\n%.2000s", cmd, rc, out);
            free(out);
        }
}

/* verify-witness prints a refused cycle whole, however long, and runs of
 * session order compressed: a G1c through 120 one-transaction sessions
 * (each reads what the previous wrote; the first reads the last's write),
 * and a cycle through 150 transactions of one session. */
static void test_witness_refusal_whole(void **state)
{
    (void)state;
    if (!cli())
        skip();
    enum { N = 120, M = 150 };
    char h[512], w[512], cmd[2048], *out;
    snprintf(h, sizeof h, "%s/chain.txt", tmpdir);
    snprintf(w, sizeof w, "%s/chain.witness", tmpdir);
    FILE *f = fopen(h, "w"), *g = fopen(w, "w");
    assert_non_null(f);
    assert_non_null(g);
    fprintf(g, "polysi-witness 1\n");
    for (int i = 0; i <= N; i++) {
        /* (i,i+1) reads key i (the previous one's write; (0,1) reads key 0,
         * which the last writes below) and writes key i+1 */
        fprintf(f, "r(%d,1,%d,%d)\nw(%d,1,%d,%d)\n", i, i, i + 1, i + 1, i, i + 1);
        fprintf(g, "key %d (%d,%d)\n", i + 1, i, i + 1);
    }
    /* ... and the last writes key 0, which the first read. */
    fprintf(f, "w(0,1,%d,%d)\n", N, N + 1);
    fprintf(g, "key 0 (%d,%d)\n", N, N + 1);
    fclose(f);
    fclose(g);
    snprintf(cmd, sizeof cmd, "'%s' verify-witness '%s' '%s'", cli(), h, w);
    assert_int_equal(run(cmd, &out), 1);
    /* Every transaction is named, and the cycle closes on its first one. */
    char name[64];
    for (int i = 0; i <= N; i++) {
        snprintf(name, sizeof name, "(%d,%d) -WR(", i, i + 1);
        if (!strstr(out, name))
            fail_msg("refusal lacks '%s' (%zu bytes):\n%s", name, strlen(out), out);
    }
    const char *end = out + strlen(out);
    while (end > out && end[-1] == '\n')
        end--;
    assert_true(end - out > 2000); /* was cut at about 1,200 bytes */
    assert_true(end[-1] == ')');
    free(out);

    /* Session 1: (1,1) .. (1,M) write keys of their own; (1,1) reads key
     * 3 from (2,M+1), and (1,M) reads key 2's initial value, which
     * (2,M+1) overwrites: (1,1) -SO*(M-1)-> (1,M) -RW(2)-> (2,M+1)
     * -WR(3)-> (1,1), a single anti-dependency. */
    f = fopen(h, "w");
    g = fopen(w, "w");
    fprintf(g, "polysi-witness 1\n");
    fprintf(f, "r(3,1,1,1)\n");
    for (int i = 1; i <= M; i++) {
        fprintf(f, "w(%d,1,1,%d)\n", 100 + i, i);
        fprintf(g, "key %d (1,%d)\n", 100 + i, i);
    }
    fprintf(f, "r(2,0,1,%d)\n", M);
    fprintf(f, "w(2,1,2,%d)\nw(3,1,2,%d)\n", M + 1, M + 1);
    fprintf(g, "key 2 (2,%d)\nkey 3 (2,%d)\n", M + 1, M + 1);
    fclose(f);
    fclose(g);
    assert_int_equal(run(cmd, &out), 1);
    char want[128];
    snprintf(want, sizeof want, "(1,1) -SO*%d-> (1,%d) -RW(2)-> (2,%d) -WR(3)-> (1,1)", M - 1, M,
             M + 1);
    if (!strstr(out, want))
        fail_msg("refusal lacks '%s':\n%s", want, out);
    free(out);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Wording of the text report: an INT read of the transaction's own later
 * write says "later" (not "earlier"); a graph-free anomaly has no empty
 * dependencies header; counts agree in number ("1 local solver call") and
 * name what was counted (whole-check re-checks under PSI);
 * the theory's time never exceeds the solve stage that contains it. */
static void test_report_wording(void **state)
{
    (void)state;
    if (!cli())
        skip();
    char p[512], cmd[1024], *out;
    snprintf(p, sizeof p, "%s/int.txt", tmpdir);
    write_file(p, "r(1,1,1,1)\nw(1,1,1,1)\n");
    const char *intw[] = {"writes only later", "operation 2 w(1,1)"};
    expect_reject(p, "", intw, 2);
    snprintf(cmd, sizeof cmd, "'%s' check '%s'", cli(), p);
    assert_int_equal(run(cmd, &out), 1);
    assert_null(strstr(out, "earlier"));
    assert_null(strstr(out, "  dependencies (certain"));
    free(out);

    snprintf(p, sizeof p, "%s/lu.txt", tmpdir);
    write_file(p, "w(0,3,1,2)\nw(0,4,1,2)\nr(0,4,1,3)\nw(0,5,1,3)\nr(0,4,2,8)\nw(0,10,2,8)\n");
    snprintf(cmd, sizeof cmd, "'%s' check --stats --interpret-budget 1 '%s'", cli(), p);
    assert_int_equal(run(cmd, &out), 1);
    if (!strstr(out, " 1 local solver call, ") || strstr(out, "1 local solver calls"))
        fail_msg("%s:\n%s", cmd, out);
    free(out);
    /* PSI shrinks by re-running the whole check on sub-histories: the
     * report counts those, in both places, and no local solver calls. */
    snprintf(cmd, sizeof cmd, "'%s' check --stats --isolation psi '%s'", cli(), p);
    assert_int_equal(run(cmd, &out), 1);
    if (!strstr(out, " whole-check re-checks, ") || !strstr(out, "whole-check re-checks\n") ||
        strstr(out, "local solver call"))
        fail_msg("%s:\n%s", cmd, out);
    free(out);

    /* Theory time within the solve stage, on histories the solver works on. */
    for (int seed = 1; seed <= 3; seed++) {
        snprintf(p, sizeof p, "%s/g%d.txt", tmpdir, seed);
        snprintf(cmd, sizeof cmd,
                 "'%s' generate --sessions 10 --txns 60 --ops 8 --keys 60 --dist uniform --seed %d "
                 "'%s' 2>/dev/null",
                 cli(), seed, p);
        assert_int_equal(run(cmd, NULL), 0);
        snprintf(cmd, sizeof cmd, "'%s' check --json '%s'", cli(), p);
        assert_int_equal(run(cmd, &out), 0);
        const char *sv = strstr(out, "\"solve\":"), *th = strstr(out, "\"theory_seconds\":");
        assert_non_null(sv);
        assert_non_null(th);
        double solve = atof(sv + 8), theory = atof(th + 17);
        if (theory > solve)
            fail_msg("theory %g s > solve %g s:\n%s", theory, solve, out);
        free(out);
    }
}

static void test_classic_histories(void **state)
{
    (void)state;
    if (!cli())
        skip();
    char p[512], cmd[1024];
    /* Fig. 2's long fork. */
    snprintf(p, sizeof p, "%s/longfork.txt", tmpdir);
    write_file(p, "w(1,1,1,1)\nw(2,1,2,2)\nr(1,1,3,3)\nr(2,0,3,3)\nr(1,0,4,4)\nr(2,1,4,4)\n");
    const char *lf[] = {"anomaly: long fork"};
    expect_reject(p, "", lf, 1);
    expect_reject(p, "--isolation ser", lf, 1);
    /* Write skew: accepted under SI, rejected and named under SER. */
    snprintf(p, sizeof p, "%s/writeskew.txt", tmpdir);
    write_file(p, "r(1,0,1,1)\nr(2,0,1,1)\nw(1,1,1,1)\nr(1,0,2,2)\nr(2,0,2,2)\nw(2,2,2,2)\n");
    snprintf(cmd, sizeof cmd, "'%s' check '%s'", cli(), p);
    assert_int_equal(run(cmd, NULL), 0);
    const char *ws[] = {"anomaly: G2-item (write skew)"};
    expect_reject(p, "--isolation ser", ws, 1);
    /* A cycle without anti-dependencies is G1c, under SI and SER alike. */
    snprintf(p, sizeof p, "%s/g1c.txt", tmpdir);
    write_file(p, "w(1,1,1,1)\nr(2,1,1,1)\nw(2,1,2,2)\nr(1,1,2,2)\n");
    const char *g1c[] = {"anomaly: G1c (circular information flow)"};
    expect_reject(p, "", g1c, 1);
    expect_reject(p, "--isolation ser", g1c, 1);
}

/* A graph-free anomaly names its read's place in the input: FILE:LINE:COL
 * for text formats, FILE: byte OFFSET for binary ones (the session's log
 * for Cobra), in text and JSON. */
static void test_anomaly_places(void **state)
{
    (void)state;
    if (!cli())
        skip();
    char p[512], q[600], cmd[2048];
    snprintf(p, sizeof p, "%s/loc.txt", tmpdir);
    write_file(p, "w(1,1,1,1)\n  w(2,5,1,1)\nr(1,1,2,2)\n\n# c\n  r(1,9,2,2)\n");
    char want[700];
    /* r(1,9) is a read event of its own (no own write before it): it
     * reads a value nobody wrote */
    snprintf(want, sizeof want,
             "unwritten read (read of a value no transaction wrote): "
             "transaction (2,2), operation 2 r(1,9) at %s:6:3",
             p);
    const char *t1[] = {want};
    expect_reject(p, "", t1, 1);
    const char *t1j[] = {"\"line\":6,\"column\":3,\"exact\":true"};
    expect_reject(p, "--json", t1j, 1);
    /* dbcop (converted): the event's byte offset. */
    snprintf(q, sizeof q, "%s/loc.bincode", tmpdir);
    snprintf(cmd, sizeof cmd, "'%s' convert --to dbcop '%s' '%s'", cli(), p, q);
    assert_int_equal(run(cmd, NULL), 0);
    snprintf(want, sizeof want, "operation 2 r(1,9) at %s: byte ", q);
    const char *t2[] = {want};
    expect_reject(q, "", t2, 1);
    /* EDN: the micro-op's line and column. */
    snprintf(p, sizeof p, "%s/loc.edn", tmpdir);
    write_file(p, "{:type :ok, :f :txn, :value [[:append 1 1]], :process 0}\n"
                  "{:type :ok, :f :txn, :value [[:r 2 nil] [:r 1 [7]]], :process 1}\n");
    snprintf(want, sizeof want, "r(1,[7]) at %s:2:41", p);
    const char *t3[] = {want};
    expect_reject(p, "", t3, 1);
    /* Cobra: T1.log, S 1, W(5, key 7), C 1, S 2, R(1, 99, key 7), C 2: the
     * read names write 99, which nobody wrote; it is at byte 52. */
    snprintf(p, sizeof p, "%s/cobra", tmpdir);
    mkdir(p, 0755);
    snprintf(q, sizeof q, "%s/T1.log", p);
    FILE *f = fopen(q, "wb");
    assert_non_null(f);
    unsigned char rec[64];
    const uint64_t s1[] = {1}, w1[] = {5, 7, 1}, r2[] = {1, 99, 7, 0}, s2[] = {2};
    struct {
        char tag;
        const uint64_t *v;
        int n;
    } recs[] = {{'S', s1, 1}, {'W', w1, 3}, {'C', s1, 1}, {'S', s2, 1}, {'R', r2, 4}, {'C', s2, 1}};
    for (size_t i = 0; i < sizeof recs / sizeof recs[0]; i++) {
        rec[0] = (unsigned char)recs[i].tag;
        for (int k = 0; k < recs[i].n; k++)
            for (int b = 0; b < 8; b++)
                rec[1 + 8 * k + b] = (unsigned char)(recs[i].v[k] >> (56 - 8 * b));
        fwrite(rec, 1, 1 + 8 * (size_t)recs[i].n, f);
    }
    fclose(f);
    snprintf(want, sizeof want, "at %s: byte 52", q);
    const char *t4[] = {"unwritten read", want};
    expect_reject(p, "", t4, 2);
}

/* List-append histories (EDN): two appends after reading the same prefix
 * are a lost update, as for registers; a G0 of appends shows the reads
 * that order them; reads whose lists are not prefixes of one another are
 * an incompatible order (the second history was accepted before). */
static void test_list_append_names(void **state)
{
    (void)state;
    if (!cli())
        skip();
    char p[512];
    snprintf(p, sizeof p, "%s/lu.edn", tmpdir);
    write_file(p, "{:type :ok, :f :txn, :value [[:append 1 1]], :process 0}\n"
                  "{:type :ok, :f :txn, :value [[:r 1 [1]] [:append 1 2]], :process 1}\n"
                  "{:type :ok, :f :txn, :value [[:r 1 [1]] [:append 1 3]], :process 2}\n"
                  "{:type :ok, :f :txn, :value [[:r 1 [1 2 3]]], :process 3}\n");
    const char *lu[] = {"anomaly: lost update on key 1: (1,2) and (2,3) both read r(1,[1]) and "
                        "both append to key 1"};
    expect_reject(p, "", lu, 1);
    expect_reject(p, "--isolation ser", lu, 1);
    snprintf(p, sizeof p, "%s/g0.edn", tmpdir);
    write_file(p, "{:type :ok, :f :txn, :value [[:append 1 1] [:append 2 1]], :process 0}\n"
                  "{:type :ok, :f :txn, :value [[:append 1 2] [:append 2 2]], :process 1}\n"
                  "{:type :ok, :f :txn, :value [[:r 1 [1 2]]], :process 2}\n"
                  "{:type :ok, :f :txn, :value [[:r 2 [2 1]]], :process 3}\n");
    const char *g0[] = {"anomaly: G0 (write cycle)", "4 transactions",
                        "(2,3)        session 2, position 1: r(1,[1 2])",
                        "certain: r(1,[1 2]) in (2,3) shows the order",
                        "certain: r(2,[2 1]) in (3,4) shows the order"};
    expect_reject(p, "", g0, 5);
    const char *g0json[] = {
        "\"shown_by\":{\"transaction\":\"(2,3)\",\"operation\":\"r(1,[1 2])\"}"};
    expect_reject(p, "--json", g0json, 1);
    snprintf(p, sizeof p, "%s/io.edn", tmpdir);
    write_file(p, "{:type :ok, :f :txn, :value [[:append 1 1]], :process 0}\n"
                  "{:type :ok, :f :txn, :value [[:append 1 2]], :process 1}\n"
                  "{:type :ok, :f :txn, :value [[:append 1 3]], :process 4}\n"
                  "{:type :ok, :f :txn, :value [[:r 1 [1 2]]], :process 2}\n"
                  "{:type :ok, :f :txn, :value [[:r 1 [1 3]]], :process 3}\n");
    const char *io[] = {"anomaly: incompatible order: r(1,[1 3]) in (3,5) and r(1,[1 2]) in (2,4) "
                        "disagree at element 2"};
    expect_reject(p, "", io, 1);
    const char *iojson[] = {"\"kind\":\"incompatible order\",\"elle\":\"incompatible-order\""};
    expect_reject(p, "--json", iojson, 1);
}

/* Witnesses of repeated values in EDN whose lines interleave the processes
 * (issue 11): the history's operations are then not in its transactions'
 * (session) order, and verify-witness once looked reads with a choice of
 * writers up assuming they were, refusing the checker's own read lines
 * ("(1,2) cannot be what (0,4) read from key x (not a committed writer of
 * that value it may have read)"; fixed in core/index.c by keeping idx->amb
 * in operation order, 767e007). Each history is accepted at every level
 * and its witness verifies: two processes writing x 1 and a later
 * transaction of the first reading it; repeat reads; a read after an own
 * write (INT); an own earlier write of the value; two keys. */
static void test_witness_repeated_values_edn(void **state)
{
    (void)state;
    if (!cli())
        skip();
    static const char *const hist[] = {
        "{:type :ok, :f :txn, :value [[:w :x 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1]], :process 0}\n",
        "{:type :ok, :f :txn, :value [[:w :x 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1] [:r :x 1] [:w :x 1]], :process 2}\n"
        "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1] [:r :x 1]], :process 0}\n",
        "{:type :ok, :f :txn, :value [[:w :x 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1] [:w :x 1] [:r :x 1]], :process 2}\n"
        "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1] [:w :x 2] [:r :x 2]], :process 0}\n",
        "{:type :ok, :f :txn, :value [[:w 0 1] [:r 0 1] [:r 2 nil]], :process 1, :index 10}\n"
        "{:type :ok, :f :txn, :value [[:r 0 1] [:w 0 1] [:r 0 1]], :process 2, :index 14}\n"
        "{:type :ok, :f :txn, :value [[:w 2 1] [:r 0 1] [:w 0 1]], :process 0, :index 18}\n",
        "{:type :ok, :f :txn, :value [[:w :x 1] [:w :y 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1] [:r :y 1]], :process 2}\n"
        "{:type :ok, :f :txn, :value [[:w :x 1] [:w :y 1]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:r :x 1] [:r :y 1]], :process 0}\n",
    };
    static const char *const levels[] = {"si", "ser", "pl2", "rc", "ra", "cc", "pc", "psi"};
    char p[512], w[512], cmd[2048];
    snprintf(w, sizeof w, "%s/rv.witness", tmpdir);
    for (size_t i = 0; i < sizeof hist / sizeof hist[0]; i++) {
        snprintf(p, sizeof p, "%s/rv%zu.edn", tmpdir, i);
        write_file(p, hist[i]);
        for (size_t l = 0; l < sizeof levels / sizeof levels[0]; l++) {
            char *out;
            snprintf(cmd, sizeof cmd, "'%s' check --isolation %s --witness '%s' '%s'", cli(),
                     levels[l], w, p);
            int rc = run(cmd, &out);
            if (rc != 0)
                fail_msg("%s: exit %d, want 0\n%s", cmd, rc, out);
            free(out);
            snprintf(cmd, sizeof cmd, "'%s' verify-witness --isolation %s '%s' '%s'", cli(),
                     levels[l], p, w);
            rc = run(cmd, &out);
            if (rc != 0 || !strstr(out, "VALID"))
                fail_msg("%s: exit %d, want 0 (VALID)\n%s", cmd, rc, out);
            free(out);
        }
    }
}

/* Reads of a value several transactions wrote (issue 11): the
 * counterexample says which writer each involved read was resolved to and
 * why — every candidate excluded by its own cycle, or one decided. */
static void test_read_from_resolution(void **state)
{
    (void)state;
    if (!cli())
        skip();
    char p[512];
    snprintf(p, sizeof p, "%s/rf_none.txt", tmpdir);
    write_file(p, "w(1,5,3,2)\nw(2,7,3,2)\nw(1,5,3,4)\nr(1,5,2,3)\nr(2,0,2,3)\n");
    const char *none[] = {
        "(2,3)'s r(1,5): from none: every writer of it closes a forbidden cycle",
        "(3,2)        excluded (the cycle \"if (2,3)'s r(1,5) reads from (3,2)\" below)",
        "(3,4)        excluded (the cycle \"if (2,3)'s r(1,5) reads from (3,4)\" below)",
        /* one entry: the parentheses tell clang the split is meant */
        ("if (2,3)'s r(1,5) reads from (3,4):\n      (3,4) -WR(1)-> (2,3) -RW(2)-> (3,2) -SO-> "
         "(3,4)")};
    expect_reject(p, "", none, 4);
    const char *none_json[] = {"\"read_from\":{\"writer\":null,\"how\":\"excluded\","
                               "\"candidates\":[\"(3,2)\",\"(3,4)\"],\"excluded\":[{"
                               "\"writer\":\"(3,2)\",\"cycle\":0},{\"writer\":\"(3,4)\","
                               "\"cycle\":1}]}"};
    expect_reject(p, "--json", none_json, 1);
    snprintf(p, sizeof p, "%s/rf_decided.txt", tmpdir);
    write_file(p, "w(0,5,1,1)\nw(0,5,1,2)\nw(1,7,1,5)\nr(0,5,2,3)\nr(1,7,2,3)\nw(0,8,2,3)\n"
                  "r(0,5,3,4)\nr(1,7,3,4)\nw(0,9,3,4)\n");
    const char *decided[] = {"anomaly: lost update on key 0", "(2,3)'s r(0,5): from (1,2), decided",
                             "(3,4)'s r(0,5): from (1,2), decided"};
    expect_reject(p, "", decided, 3);
    const char *decided_json[] = {"\"read_from\":{\"writer\":\"(1,2)\",\"how\":\"decided\","
                                  "\"candidates\":[\"(1,1)\",\"(1,2)\"]"};
    expect_reject(p, "--json", decided_json, 1);
}

static void test_dot_renders(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    if (!cli())
        skip();
    if (run("command -v dot >/dev/null 2>&1", NULL) != 0) {
        fprintf(stderr, "Graphviz 'dot' not found (apt-get install graphviz); DOT rendering "
                        "test skipped\n");
        skip();
    }
    const char *files[] = {"polysi-artifact/violations/galera/galera.txt",
                           "polysi-artifact/violations/yugabyte/yugabyte.txt",
                           "polysi-artifact/violations/dgraph/history.bincode"};
    for (size_t i = 0; i < 3; i++) {
        char cmd[2048], dot[512], *out;
        snprintf(dot, sizeof dot, "%s/cex%zu.dot", tmpdir, i);
        snprintf(cmd, sizeof cmd, "'%s' check --dot '%s' '%s/%s' >/dev/null", cli(), dot, c,
                 files[i]);
        assert_int_equal(run(cmd, NULL), 1);
        snprintf(cmd, sizeof cmd, "dot -Tsvg '%s' 2>&1", dot);
        int rc = run(cmd, &out);
        if (rc != 0 || !strstr(out, "<svg"))
            fail_msg("dot -Tsvg %s failed (%d): %.400s", dot, rc, out);
        assert_non_null(strstr(out, "legend"));
        free(out);
    }
}

/* check --witness then verify-witness; returns the verifier's exit code. */
static int witness_round_trip(const char *history, bool ser, const char *wpath)
{
    char cmd[8192], *out;
    /* Checked, not just bounded: a truncated command would run something else. */
    if ((size_t)snprintf(cmd, sizeof cmd, "'%s' check %s --witness '%s' '%s'", cli(),
                         ser ? "--isolation ser" : "", wpath, history) >= sizeof cmd)
        fail_msg("command line too long for %s", history);
    int rc = run(cmd, &out);
    if (rc != 0)
        fail_msg("%s: exit %d (want accept)\n%s", cmd, rc, out);
    free(out);
    if ((size_t)snprintf(cmd, sizeof cmd, "'%s' verify-witness %s '%s' '%s'", cli(),
                         ser ? "--isolation ser" : "", history, wpath) >= sizeof cmd)
        fail_msg("command line too long for %s", history);
    rc = run(cmd, &out);
    if (rc != 0)
        fprintf(stderr, "%s: %s", cmd, out);
    free(out);
    return rc;
}

static void test_corpus_witnesses(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    if (!cli())
        skip();
    char dir[1024], path[2048], w[512];
    snprintf(w, sizeof w, "%s/witness.txt", tmpdir);
    unsigned n = 0;
    /* fig7: SI. */
    snprintf(dir, sizeof dir, "%s/polysi-artifact/fig7", c);
    DIR *d = opendir(dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        snprintf(path, sizeof path, "%s/%s/history.bincode", dir, e->d_name);
        assert_int_equal(witness_round_trip(path, false, w), 0);
        n++;
    }
    closedir(d);
    /* fig8_9_10: SI and SER. */
    static const char *f8[] = {"25_400_8_10000_0.95_uniform/history.bincode",
                               "25_400_8_10000_0.5_uniform/history.bincode",
                               "25_400_8_10000_0.3_uniform/history.bincode",
                               "rubis-10000",
                               "tpcc-10000",
                               "twitter-10000"};
    for (size_t i = 0; i < 6; i++) {
        snprintf(path, sizeof path, "%s/polysi-artifact/fig8_9_10/%s", c, f8[i]);
        assert_int_equal(witness_round_trip(path, false, w), 0);
        assert_int_equal(witness_round_trip(path, true, w), 0);
        n += 2;
    }
    /* The galera histories that satisfy SI (expected.tsv). */
    snprintf(path, sizeof path, "%s/veristrong-artifact/si-galera-all-writes/expected.tsv", c);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[1024];
    while (fgets(line, sizeof line, f)) {
        char rel[900], verdict[32];
        if (sscanf(line, "%899s %31s", rel, verdict) != 2 || strcmp(verdict, "accept") != 0)
            continue;
        snprintf(path, sizeof path, "%s/veristrong-artifact/si-galera-all-writes/%s", c, rel);
        assert_int_equal(witness_round_trip(path, false, w), 0);
        n++;
    }
    fclose(f);
    printf("  %u corpus witnesses verified\n", n);
}

/* Edits the witness file: op 0 swaps the first two versions of the first
 * key line with two, 1 drops a version from it, 2 drops the whole line. */
static void tamper(const char *in, const char *out, int op)
{
    FILE *f = fopen(in, "r"), *g = fopen(out, "w");
    assert_non_null(f);
    assert_non_null(g);
    char line[1 << 16];
    bool done = false;
    while (fgets(line, sizeof line, f)) {
        char *sp1, *sp2, *sp3;
        if (!done && strncmp(line, "key ", 4) == 0 && (sp1 = strchr(line + 4, ' ')) &&
            (sp2 = strchr(sp1 + 1, ' '))) {
            done = true;
            if (op == 2)
                continue;
            if (op == 1) {
                *sp2 = '\0'; /* keep the key and its first version only */
                fprintf(g, "%s\n", line);
                continue;
            }
            sp3 = strpbrk(sp2 + 1, " \n");
            char a[128], b[128];
            snprintf(a, sizeof a, "%.*s", (int)(sp2 - sp1 - 1), sp1 + 1);
            snprintf(b, sizeof b, "%.*s", (int)(sp3 - sp2 - 1), sp2 + 1);
            *sp1 = '\0';
            fprintf(g, "%s %s %s%s", line, b, a, sp3);
            continue;
        }
        fputs(line, g);
    }
    fclose(f);
    fclose(g);
    assert_true(done);
}

static void test_tampered_witnesses(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    if (!cli())
        skip();
    char h[1024], w[512], t[512], cmd[2048], *out;
    snprintf(h, sizeof h, "%s/polysi-artifact/fig8_9_10/25_400_8_10000_0.3_uniform/history.bincode",
             c);
    snprintf(w, sizeof w, "%s/good.txt", tmpdir);
    snprintf(t, sizeof t, "%s/bad.txt", tmpdir);
    assert_int_equal(witness_round_trip(h, false, w), 0);
    static const char *why[] = {"forbidden cycle", "misses", "no version order given"};
    for (int op = 0; op < 3; op++) {
        tamper(w, t, op);
        snprintf(cmd, sizeof cmd, "'%s' verify-witness '%s' '%s'", cli(), h, t);
        int rc = run(cmd, &out);
        if (rc != 1 || !strstr(out, why[op]))
            fail_msg("tamper %d: exit %d, want 1 with '%s'\n%s", op, rc, why[op], out);
        free(out);
    }
    write_file(t, "polysi-witness 1\nkey 1 (1,\n");
    snprintf(cmd, sizeof cmd, "'%s' verify-witness '%s' '%s' 2>&1", cli(), h, t);
    assert_int_equal(run(cmd, &out), 2);
    assert_non_null(strstr(out, ":2:"));
    free(out);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/psi-interp-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "corpus") == 0) {
        corpus_dir = psi_corpus_or_skip("polysi-solve on corpus histories");
        const struct CMUnitTest corpus_tests[] = {
            cmocka_unit_test(test_production_violations), cmocka_unit_test(test_small_budgets),
            cmocka_unit_test(test_dot_renders),           cmocka_unit_test(test_corpus_witnesses),
            cmocka_unit_test(test_tampered_witnesses),
        };
        return cmocka_run_group_tests(corpus_tests, setup, teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_classic_histories),
        cmocka_unit_test(test_witness_refusal_whole),
        cmocka_unit_test(test_report_wording),
        cmocka_unit_test(test_list_append_names),
        cmocka_unit_test(test_anomaly_places),
        cmocka_unit_test(test_read_from_resolution),
        cmocka_unit_test(test_witness_repeated_values_edn),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
