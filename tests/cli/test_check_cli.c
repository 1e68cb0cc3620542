/* `polysi-solve check` as a tester meets it (the program in PSI_CLI):
 * output files are opened before the check and a late write failure keeps
 * the verdict (exit 2 after it); a witness or DOT file from an earlier
 * run is removed, and the message says so, when there is nothing to
 * write; errors are JSON objects with --json; batch runs (several PATHs,
 * --recursive, -j N) print a line per history and a summary, or a JSON
 * array, in the order of the paths, with per-history limits; --progress
 * draws a status line on stderr and erases it; a bad --version-order is
 * exit 2 naming the order file's line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/psi_check_cli_XXXXXX";

static int setup(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *cli(void)
{
    const char *bin = getenv("PSI_CLI");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "PSI_CLI not set or not executable; CLI tests skipped\n");
        return NULL;
    }
    return bin;
}

/* Output of one run: exit code, stdout and stderr (whole). */
typedef struct run {
    int rc;
    char *out, *err;
} run;

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return strdup("");
    size_t cap = 4096, n = 0, k;
    char *buf = malloc(cap);
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n < 2)
            buf = realloc(buf, cap *= 2);
    }
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Runs `$PSI_CLI ARGS` in dir, stdout to `stdout_to` when given. */
static void cli_run_to(run *r, const char *args, const char *stdout_to)
{
    char out[400], err[400], cmd[8192];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >'%s' 2>'%s'", dir, cli(), args,
             stdout_to ? stdout_to : out, err);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    r->rc = WEXITSTATUS(st);
    r->out = slurp(out);
    r->err = slurp(err);
    if (stdout_to)
        unlink(out);
}

static void cli_run(run *r, const char *args)
{
    cli_run_to(r, args, NULL);
}

static void run_free(run *r)
{
    free(r->out);
    free(r->err);
}

static void put(const char *name, const char *text)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

static bool exists(const char *name)
{
    char path[400];
    struct stat sb;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return stat(path, &sb) == 0;
}

#define LOST_UPDATE "w(0,3,1,2)\nr(0,3,1,3)\nw(0,5,1,3)\nr(0,3,2,8)\nw(0,10,2,8)\n"
#define ACCEPTED    "w(1,1,1,1)\nr(1,1,2,2)\n"

static void expect(const run *r, int rc, const char *out_has, const char *err_has)
{
    if (r->rc != rc || (out_has && !strstr(r->out, out_has)) ||
        (err_has && !strstr(r->err, err_has)))
        fail_msg("exit %d (want %d), stdout '%s' (want '%s'), stderr '%s' (want '%s')", r->rc, rc,
                 r->out, out_has ? out_has : "", r->err, err_has ? err_has : "");
}

/* An unwritable --dot / --witness is found before anything is read: the
 * message names it even when the history does not exist. A write that
 * fails only at the end keeps the verdict: printed, then the error, exit 2. */
static void test_outputs_opened_first(void **state)
{
    (void)state;
    if (!cli())
        return;
    run r;
    cli_run(&r, "check --dot no/such/dir/x.dot missing.txt");
    expect(&r, 2, NULL, "no/such/dir/x.dot");
    assert_null(strstr(r.err, "missing.txt"));
    assert_string_equal(r.out, "");
    run_free(&r);
    cli_run(&r, "check --witness no/such/dir/w.txt missing.txt");
    expect(&r, 2, NULL, "no/such/dir/w.txt");
    run_free(&r);

    put("ok.txt", ACCEPTED);
    put("lu.txt", LOST_UPDATE);
    if (access("/dev/full", W_OK) == 0) {
        cli_run(&r, "check --witness /dev/full ok.txt");
        expect(&r, 2, "ACCEPT", "/dev/full");
        run_free(&r);
        cli_run(&r, "check --dot /dev/full lu.txt");
        expect(&r, 2, "REJECT", "/dev/full");
        run_free(&r);
        /* The report itself cannot be written: the verdict goes to stderr. */
        cli_run_to(&r, "check lu.txt", "/dev/full");
        expect(&r, 2, NULL, "verdict: REJECT");
        run_free(&r);
    } else {
        fprintf(stderr, "/dev/full not writable: late write failures not tested\n");
    }
    /* The files are written whole when all is well. */
    cli_run(&r, "check --witness w.txt ok.txt");
    expect(&r, 0, "ACCEPT", NULL);
    assert_true(exists("w.txt"));
    run_free(&r);
    cli_run(&r, "check --dot c.dot lu.txt");
    expect(&r, 1, "REJECT", NULL);
    assert_true(exists("c.dot"));
    run_free(&r);
}

/* A witness from an earlier run does not survive a reject (nor a DOT file
 * an accept), and the message says so; no temporary files are left. */
static void test_stale_outputs_removed(void **state)
{
    (void)state;
    if (!cli())
        return;
    put("ok.txt", ACCEPTED);
    put("lu.txt", LOST_UPDATE);
    put("stale.witness", "polysi-witness 1\n");
    put("stale.dot", "digraph {}\n");
    run r;
    cli_run(&r, "check --witness stale.witness lu.txt");
    expect(&r, 1, "REJECT", "removed stale.witness");
    assert_false(exists("stale.witness"));
    run_free(&r);
    cli_run(&r, "check --dot stale.dot ok.txt");
    expect(&r, 0, "ACCEPT", "removed stale.dot");
    assert_false(exists("stale.dot"));
    run_free(&r);
    cli_run(&r, "check --witness none.witness lu.txt");
    expect(&r, 1, "REJECT", NULL);
    assert_string_equal(r.err, "");
    run_free(&r);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls '%s' | grep -c '\\.tmp' >/dev/null", dir);
    assert_int_not_equal(system(cmd), 0);
}

/* --json errors: one object {"error": {...}} on stdout, exit 2, with the
 * file, the place and the stage. */
static void test_json_errors(void **state)
{
    (void)state;
    if (!cli())
        return;
    run r;
    cli_run(&r, "check --json missing.txt");
    expect(&r, 2, "{\"error\":{", NULL);
    assert_non_null(strstr(r.out, "\"file\":\"missing.txt\""));
    assert_non_null(strstr(r.out, "\"stage\":\"load\""));
    assert_non_null(strstr(r.out, "\"message\":\"cannot open: "));
    run_free(&r);
    put("bad.txt", "w(1,1,1,1)\nr(1,x,1,2)\n");
    cli_run(&r, "check --json --format text bad.txt");
    expect(&r, 2, "{\"error\":{", NULL);
    assert_non_null(strstr(r.out, "\"file\":\"bad.txt\",\"line\":2,\"column\":5"));
    run_free(&r);
    put("bad.bincode", "\x01\x02\x03");
    cli_run(&r, "check --json --format dbcop bad.bincode");
    expect(&r, 2, "\"offset\":", NULL);
    run_free(&r);
    cli_run(&r, "check --json --isolation weird ok.txt");
    expect(&r, 2, "\"stage\":\"usage\"", "--isolation");
    run_free(&r);
    cli_run(&r, "check --json --timeout 0.000001 bad.txt");
    if (r.rc == 2 && strstr(r.out, "time limit"))
        assert_non_null(strstr(r.out, "{\"error\":{\"message\":\"time limit of"));
    run_free(&r);
}

/* --version-order as `check` reads it (resolved for the history while it
 * is parsed): a true complete order accepts; an order naming no
 * transaction of the history, a writer twice, or a key the history does
 * not have is exit 2 naming the order file and its line, whichever way
 * the file was read; a syntax error names line and column; an order that
 * contradicts the history is a reject naming the order's line. */
static void test_version_order(void **state)
{
    (void)state;
    if (!cli())
        return;
    run r;
    /* T1 (session 1) writes key 1 := 1, T2 (session 2) := 2, T3 reads 2 */
    put("vo.txt", "w(1,1,1,1)\nw(1,2,2,2)\nr(1,2,3,3)\n");
    put("good.wit", "polysi-witness 3\nchain 1 (1,1) (2,2)\n");
    cli_run(&r, "check --version-order good.wit vo.txt");
    expect(&r, 0, "ACCEPT", NULL);
    run_free(&r);
    put("unknown.wit", "polysi-witness 3\n# T9 is not there\nchain 1 (1,1) (2,9)\n");
    cli_run(&r, "check --version-order unknown.wit vo.txt");
    expect(&r, 2, NULL, "unknown.wit:3:1: transaction (2,9) is not a committed transaction");
    run_free(&r);
    put("twice.wit", "polysi-witness 3\nchain 1 (1,1) (2,2) (1,1)\n");
    cli_run(&r, "check --version-order twice.wit vo.txt");
    expect(&r, 2, NULL, "twice.wit:2:1: the version order of key 1 contradicts itself");
    run_free(&r);
    put("key.wit", "polysi-witness 3\nchain 1 (1,1) (2,2)\nchain 7 (1,1)\n");
    cli_run(&r, "check --version-order key.wit vo.txt");
    expect(&r, 2, NULL, "key.wit:3:1: key 7 is not in the history");
    run_free(&r);
    put("syntax.wit", "polysi-witness 3\nchain 1 (1,1) (2,\n");
    cli_run(&r, "check --version-order syntax.wit vo.txt");
    expect(&r, 2, NULL, "syntax.wit:2:15:");
    run_free(&r);
    /* T2 follows T1 in their session: an order putting T2 first is a cycle */
    put("so.txt", "w(1,1,1,1)\nw(1,2,1,2)\n");
    put("swap.wit", "polysi-witness 3\n\nchain 1 (1,2) (1,1)\n");
    cli_run(&r, "check --version-order swap.wit so.txt");
    expect(&r, 1, "version-order swap.wit:3", NULL);
    run_free(&r);
    /* the polynomial levels take it too (a cycle with session order) */
    cli_run(&r, "check --isolation pl2 --version-order swap.wit so.txt");
    expect(&r, 1, "version-order swap.wit:3", NULL);
    run_free(&r);
    cli_run(&r, "check --isolation pl2 --version-order unknown.wit vo.txt");
    expect(&r, 2, NULL, "unknown.wit:3:1: transaction (2,9) is not a committed transaction");
    run_free(&r);
}

/* Several histories: a line each in the order given, a summary, and the
 * worst exit code; -j runs them at once with the same output; --json is
 * one array; --recursive finds the histories below a directory. */
static void test_batch(void **state)
{
    (void)state;
    if (!cli())
        return;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s/tree/a/b' '%s/tree/cobra'", dir, dir);
    assert_int_equal(system(cmd), 0);
    put("tree/a/ok.txt", ACCEPTED);
    put("tree/a/b/lu.txt", LOST_UPDATE);
    put("tree/a/b/README.md", "not a history\n");
    put("tree/a/bad.edn", "{:type :ok, :f :txn, :value [[:r 1 2 3]], :process 0}\n");
    put("ok.txt", ACCEPTED);
    put("lu.txt", LOST_UPDATE);
    run r1, r2;
    cli_run(&r1, "check ok.txt lu.txt");
    expect(&r1, 1, "ACCEPT  ok.txt  ", NULL);
    assert_non_null(strstr(r1.out, "REJECT  lu.txt  lost update  "));
    assert_true(strstr(r1.out, "ok.txt") < strstr(r1.out, "lu.txt"));
    assert_non_null(strstr(r1.out, "checked 2 histories in "));
    assert_non_null(strstr(r1.out, "1 accepted, 1 rejected, 0 errors (lost update 1)"));
    run_free(&r1);

    cli_run(&r1, "check --recursive tree");
    cli_run(&r2, "check --recursive -j 3 tree");
    expect(&r1, 2, "checked 3 histories", NULL);
    assert_int_equal(r2.rc, 2);
    /* The same lines, in the same (path) order, whatever -j. */
    const char *names[] = {"tree/a/b/lu.txt", "tree/a/bad.edn", "tree/a/ok.txt"};
    const char *prev1 = r1.out, *prev2 = r2.out;
    for (int i = 0; i < 3; i++) {
        const char *a = strstr(r1.out, names[i]), *b = strstr(r2.out, names[i]);
        if (!a || !b || a < prev1 || b < prev2)
            fail_msg("%s missing or out of order:\n%s\n---\n%s", names[i], r1.out, r2.out);
        prev1 = a;
        prev2 = b;
    }
    assert_non_null(strstr(r1.out, "ERROR   tree/a/bad.edn  tree/a/bad.edn:1:"));
    assert_null(strstr(r1.out, "README"));
    run_free(&r1);
    run_free(&r2);

    cli_run(&r1, "check --json -j2 ok.txt lu.txt missing.txt");
    expect(&r1, 2, "[\n  {\"path\":\"ok.txt\"", NULL);
    assert_non_null(strstr(r1.out, "\"verdict\":\"accept\""));
    assert_non_null(strstr(r1.out, "\"verdict\":\"reject\""));
    assert_non_null(strstr(r1.out,
                           "{\"path\":\"missing.txt\",\"isolation\":\"SI\",\"verdict\":\"error\","
                           "\"error\":{\"message\":\"cannot open: "));
    assert_non_null(strstr(r1.out, "\n]\n"));
    run_free(&r1);

    /* Usage: --dot and --witness take one history. */
    cli_run(&r1, "check --dot x.dot ok.txt lu.txt");
    expect(&r1, 2, NULL, "one history");
    run_free(&r1);
    cli_run(&r1, "check -j 0 ok.txt lu.txt");
    expect(&r1, 2, NULL, "-j");
    run_free(&r1);
}

/* Limits bound each history of a batch alone: one that runs out of time
 * is an error in its line, the others are checked. */
static void test_batch_limits(void **state)
{
    (void)state;
    if (!cli())
        return;
    /* A history that takes long enough: many sessions on few keys, checked
     * without pruning (about 2 s of CPU in Release, more under ASan). The
     * limit is wall time, so it must leave the tiny lu.txt a wide margin
     * on a loaded machine: 0.05 s did not at a load of 14. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' generate --sessions 20 --txns 150 --ops 12 --keys 40 --dist "
             "uniform --seed 3 slow.txt 2>/dev/null",
             dir, cli());
    assert_int_equal(system(cmd), 0);
    put("lu.txt", LOST_UPDATE);
    run r;
    cli_run(&r, "check --timeout 1 --no-pruning --isolation ser slow.txt lu.txt");
    if (strstr(r.out, "ERROR   slow.txt")) {
        expect(&r, 2, "time limit of 1 s reached", NULL);
        assert_non_null(strstr(r.out, "REJECT  lu.txt  lost update"));
    } else {
        fprintf(stderr, "slow.txt finished within 1 s; per-history limit not exercised\n");
    }
    run_free(&r);
}

/* --progress on stderr: a status line naming the stage, erased before the
 * report; nothing without it when stderr is not a terminal. */
static void test_progress(void **state)
{
    (void)state;
    if (!cli())
        return;
    char cmd[1024];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && '%s' generate --sessions 20 --txns 300 --ops 12 --keys 30 --dist "
             "uniform --seed 5 prog.txt 2>/dev/null",
             dir, cli());
    assert_int_equal(system(cmd), 0);
    run r;
    cli_run(&r, "check --isolation ser prog.txt");
    assert_string_equal(r.err, ""); /* stderr is a file here: off by default */
    run_free(&r);
    cli_run(&r, "check --progress --isolation ser prog.txt");
    if (strstr(r.err, "polysi-solve: ")) {
        assert_non_null(strstr(r.err, " s | "));
        assert_non_null(strstr(r.err, "MiB peak"));
    } else {
        fprintf(stderr, "the check took under half a second: no progress line to see\n");
    }
    assert_true(r.rc == 0 || r.rc == 1);
    run_free(&r);
}

/* --all-anomalies: every graph-free anomaly (ten and a count without it),
 * then the independent violations with a cycle, and whether more remain;
 * in JSON too. */
static void test_all_anomalies(void **state)
{
    (void)state;
    if (!cli())
        return;
    /* Twelve reads of unwritten values, and a lost update. */
    char text[2048];
    size_t used = 0;
    for (int i = 0; i < 12; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "r(%d,7,%d,%d)\n", 100 + i,
                                 10 + i, 10 + i);
    snprintf(text + used, sizeof text - used, "%s", LOST_UPDATE);
    put("many.txt", text);
    run r;
    cli_run(&r, "check many.txt");
    expect(&r, 1, "... and 2 more graph-free anomalies (--all-anomalies lists every one)", NULL);
    assert_null(strstr(r.out, "all anomalies:"));
    run_free(&r);
    cli_run(&r, "check --all-anomalies many.txt");
    expect(&r, 1,
           "all anomalies: 12 graph-free (unwritten read 12), 1 independent violation with a "
           "cycle; no more: without their transactions the history satisfies SI",
           NULL);
    assert_null(strstr(r.out, "more graph-free anomalies"));
    assert_non_null(strstr(r.out, "r(111,7)"));
    assert_non_null(strstr(r.out, "violation 1 of 1:\nanomaly: lost update on key 0"));
    run_free(&r);
    cli_run(&r, "check --json --all-anomalies=1 many.txt");
    expect(&r, 1, "\"all_anomalies\":{\"graph_free\":{\"unwritten read\":12},\"violations\":[{",
           NULL);
    assert_non_null(strstr(r.out, "\"rest\":\"accept\",\"more\":false"));
    run_free(&r);
    cli_run(&r, "check --all-anomalies=0 many.txt");
    expect(&r, 2, NULL, "at least 1");
    run_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_order),
        cmocka_unit_test(test_outputs_opened_first),
        cmocka_unit_test(test_stale_outputs_removed),
        cmocka_unit_test(test_json_errors),
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_batch_limits),
        cmocka_unit_test(test_progress),
        cmocka_unit_test(test_all_anomalies),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
