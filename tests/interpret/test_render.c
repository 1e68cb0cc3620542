/* The renderers (interpret/render_*.c) as a library: they write the text,
 * JSON and DOT reports of a check and the shape of a history to the FILE*
 * they are given, say when that FILE failed, and the program (PSI_CLI)
 * prints exactly what they write: `check` and `stats` only choose which
 * renderer and where. Timing figures are masked before comparing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/input.h"
#include "formats/read.h"
#include "interpret/explain.h"
#include "interpret/render.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Session 1 writes x=1; (1,2) and (2,3) both read it and both overwrite
 * it: a lost update under SI (examples/lost-update.txt). */
static const char lost_update[] = "w(0,1,1,1)\nr(0,1,1,2)\nw(0,2,1,2)\nr(0,1,2,3)\nw(0,3,2,3)\n";
static const char serial[] = "w(0,1,1,1)\nr(0,1,2,2)\n";

static char dir[] = "/tmp/psi_render_XXXXXX";

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

/* Writes text to DIR/name and puts that path in path[0..n). */
static void put(const char *name, const char *text, char *path, size_t n)
{
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* A finished check with its counterexample, as cli/cmd_check.c builds it. */
typedef struct checked {
    psi_history *h;
    psi_check_result res;
    psi_cex cx;
    psi_render_opts o;
} checked;

static void check_file(checked *c, const char *path, bool ser, uint64_t budget)
{
    psi_read_opts ro = {0};
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_read_history(path, &ro, &c->h, &d) != PSI_OK)
        fail_msg("read %s: %s", path, d.msg);
    psi_check_opts co = {.ser = ser};
    if (psi_check(c->h, &co, &c->res, &d) != PSI_OK)
        fail_msg("check %s: %s", path, d.msg);
    memset(&c->cx, 0, sizeof c->cx);
    psi_cex_opts xo = {.ser = ser, .budget = budget};
    if (budget && psi_cex_build(c->h, &c->res, &xo, &c->cx, &d) != PSI_OK)
        fail_msg("cex %s: %s", path, d.msg);
    c->o = (psi_render_opts){.ser = ser, .path = path};
}

static void checked_free(checked *c)
{
    psi_cex_free(&c->cx);
    psi_check_result_free(&c->res);
    psi_history_free(c->h);
}

enum { TEXT, JSON, DOT };

/* Renders into a malloc'd string (the caller frees it). */
static char *render(const checked *c, int what)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    bool ok = what == TEXT   ? psi_render_text(c->h, &c->res, &c->cx, &c->o, f)
              : what == JSON ? psi_render_json(c->h, &c->res, &c->cx, &c->o, f)
                             : psi_render_dot(c->h, &c->cx, &c->o, f);
    assert_true(ok);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* Masks, in place, what changes from run to run: "0.123 s" in text, and
 * the values of timing and memory fields in JSON, each becomes one '#'. */
static void mask_timings(char *s)
{
    static const char *const keys[] = {"\"load\":",
                                       "\"validate\":",
                                       "\"construct\":",
                                       "\"prune\":",
                                       "\"encode\":",
                                       "\"solve\":",
                                       "\"theory_seconds\":",
                                       "\"interpret_seconds\":",
                                       "\"peak_memory_bytes\":",
                                       "\"peak_bytes\":",
                                       "\"resident_bytes\":",
                                       "\"peak_bytes_per_op\":",
                                       "\"seconds\":"};
    const char *numeral = "0123456789.e+-";
    char *w = s;
    for (const char *r = s; *r;) {
        size_t skip = 0;
        for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !skip; k++) {
            size_t n = strlen(keys[k]);
            if (strncmp(r, keys[k], n) == 0 && strspn(r + n, numeral)) {
                memmove(w, r, n);
                w += n;
                r += n;
                skip = strspn(r, numeral);
            }
        }
        size_t digits = strspn(r, "0123456789");
        if (!skip && digits && r[digits] == '.' && strspn(r + digits + 1, "0123456789") == 3 &&
            strncmp(r + digits + 4, " s", 2) == 0)
            skip = digits + 4;
        if (skip) {
            *w++ = '#';
            r += skip;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
}

/* Runs the program with args; returns its exit code, stdout in *out. */
static int run_cli(const char *args, char **out)
{
    const char *cli = getenv("PSI_CLI");
    if (!cli || access(cli, X_OK) != 0)
        return -1;
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s' %s", cli, args);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t cap = 1 << 16, n = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0)
        n += got;
    buf[n] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_reports_of_a_lost_update(void **state)
{
    (void)state;
    char path[512];
    put("lost.txt", lost_update, path, sizeof path);
    checked c;
    check_file(&c, path, false, PSI_INTERPRET_BUDGET_DEFAULT);
    assert_int_equal(c.res.verdict, PSI_REJECT);
    assert_true(c.cx.present);

    char *text = render(&c, TEXT);
    const char *head = "REJECT: the history violates SI: ";
    assert_memory_equal(text, head, strlen(head));
    assert_non_null(strstr(text, "\nanomaly: lost update on key 0"));
    assert_non_null(strstr(text, "  forbidden cycles:\n"));
    assert_null(strstr(text, "stats:")); /* only with o.stats */
    free(text);

    char *json = render(&c, JSON);
    assert_true(strncmp(json, "{\"path\":\"", 9) == 0);
    assert_non_null(strstr(json, "\"isolation\":\"SI\",\"verdict\":\"reject\""));
    assert_non_null(strstr(json, "\"counterexample\":{\"anomaly\":\"lost update\""));
    assert_string_equal(json + strlen(json) - 2, "}\n");
    free(json);

    char *dot = render(&c, DOT);
    assert_true(strncmp(dot, "digraph counterexample {", 24) == 0);
    assert_non_null(strstr(dot, "SI violation: lost update"));
    assert_non_null(strstr(dot, "subgraph cluster_legend"));
    assert_string_equal(dot + strlen(dot) - 2, "}\n");
    free(dot);

    c.o.stats = true;
    text = render(&c, TEXT);
    assert_non_null(strstr(text, "\nstats:\n  time (s)      load "));
    assert_non_null(strstr(text, "\n  interpret     "));
    free(text);
    checked_free(&c);
}

/* Keys and values other than integers (EDN keywords, strings, symbols) are
 * named as spelled in every report; JSON gives a named key as a string. */
static void test_reports_name_keys_by_spelling(void **state)
{
    (void)state;
    char path[512];
    put("lost.edn",
        "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x :a]], :process 0, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x nil] [:w :x \"b b\"]], :process 1, :index 2}\n",
        path, sizeof path);
    checked c;
    check_file(&c, path, false, PSI_INTERPRET_BUDGET_DEFAULT);
    assert_int_equal(c.res.verdict, PSI_REJECT);
    assert_true(c.cx.present);
    char *text = render(&c, TEXT);
    assert_non_null(strstr(text, "\nanomaly: lost update on key :x: (0,1) and (1,2) both read"));
    assert_non_null(strstr(text, "r(:x,init) w(:x,:a)"));
    assert_non_null(strstr(text, "r(:x,init) w(:x,\"b b\")"));
    assert_non_null(strstr(text, "-RW(:x)->"));
    free(text);
    char *json = render(&c, JSON);
    assert_non_null(strstr(json, "\"summary\":\"lost update on key :x:"));
    assert_non_null(strstr(json, "\"key\":\":x\""));
    assert_non_null(strstr(json, "w(:x,\\\"b b\\\")")); /* escaped in a JSON string */
    free(json);
    char *dot = render(&c, DOT);
    assert_non_null(strstr(dot, ":x"));
    free(dot);
    checked_free(&c);

    /* G-single (read skew) on keys :x and "acct y", symbol values. */
    put("skew.edn",
        "{:type :ok, :f :txn, :value [[:w :x a1] [:w \"acct y\" b1]], :process 0, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x a1] [:r \"acct y\" nil]], :process 1, :index 2}\n",
        path, sizeof path);
    check_file(&c, path, false, PSI_INTERPRET_BUDGET_DEFAULT);
    assert_int_equal(c.res.verdict, PSI_REJECT);
    assert_true(c.cx.present);
    text = render(&c, TEXT);
    assert_non_null(strstr(text, "G-single"));
    assert_non_null(strstr(text, "reads key \"acct y\" but misses the write of (0,1)"));
    assert_non_null(strstr(text, "r(:x,a1) r(\"acct y\",init)"));
    assert_non_null(strstr(text, "-WR(:x)->"));
    free(text);
    json = render(&c, JSON);
    assert_non_null(strstr(json, "\"anomaly\":\"G-single\""));
    assert_non_null(strstr(json, "\"key\":\"\\\"acct y\\\"\""));
    assert_non_null(strstr(json, "\"key\":\":x\""));
    free(json);
    checked_free(&c);
}

static void test_accept_and_no_interpretation(void **state)
{
    (void)state;
    char path[512];
    put("serial.txt", serial, path, sizeof path);
    checked c;
    check_file(&c, path, true, PSI_INTERPRET_BUDGET_DEFAULT);
    assert_int_equal(c.res.verdict, PSI_ACCEPT);
    char *text = render(&c, TEXT);
    assert_string_equal(text, "ACCEPT: the history satisfies SER\n");
    free(text);
    char *json = render(&c, JSON);
    assert_non_null(strstr(json, "\"verdict\":\"accept\",\"reason\":\"none\",\"anomalies\":[],"
                                 "\"cycles\":[],\"counterexample\":null,"));
    free(json);
    checked_free(&c);

    /* --interpret-budget 0: the raw cycle pruning found, no counterexample. */
    put("lost0.txt", lost_update, path, sizeof path);
    check_file(&c, path, false, 0);
    text = render(&c, TEXT);
    assert_null(strstr(text, "anomaly:"));
    assert_non_null(strstr(text, "  cycle if the first writer goes first:\n    "));
    free(text);
    json = render(&c, JSON);
    assert_non_null(strstr(json, "\"cycles\":[[{\"from\":"));
    assert_non_null(strstr(json, "\"counterexample\":null"));
    free(json);
    checked_free(&c);
}

/* The restricted problem's figures (--restricted on) in both reports: the
 * text's "restricted" line and JSON's stats.restricted object, with the
 * same counts; a check without it has neither. Two writers of x=1 give
 * the read a choice, which the restricted path needs to run at all. */
static void test_restricted_stats_in_both_reports(void **state)
{
    (void)state;
    char path[512];
    put("twice.txt", "w(0,1,1,1)\nw(0,1,2,2)\nr(0,1,1,3)\n", path, sizeof path);
    checked c;
    psi_read_opts ro = {0};
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(path, &ro, &c.h, &d), PSI_OK);
    psi_check_opts co = {.restricted = PSI_RESTRICTED_ON};
    assert_int_equal(psi_check(c.h, &co, &c.res, &d), PSI_OK);
    assert_int_equal(c.res.verdict, PSI_ACCEPT);
    assert_true(c.res.stats.restricted_ran);
    assert_int_equal(c.res.stats.restricted_outcome, PSI_RESTRICTED_ACCEPT);
    memset(&c.cx, 0, sizeof c.cx);
    c.o = (psi_render_opts){.path = path, .stats = true};

    const psi_restricted_stats *rs = &c.res.stats.restricted;
    char want[512];
    char *text = render(&c, TEXT);
    snprintf(want, sizeof want,
             "\n  restricted    accept after %u windows (last %u): %llu of %llu choices kept, "
             "%u of %u reads still a choice, ",
             rs->attempts, rs->window, (unsigned long long)rs->choices_after,
             (unsigned long long)rs->choices_before, rs->reads_after, rs->reads_before);
    assert_non_null(strstr(text, want));
    free(text);
    char *json = render(&c, JSON);
    snprintf(want, sizeof want,
             "\"restricted\":{\"outcome\":\"accept\",\"windows\":%u,\"last_window\":%u,"
             "\"choices_before\":%llu,\"choices_kept\":%llu,\"reads_with_choice_before\":%u,"
             "\"reads_with_choice_kept\":%u,\"estimate_edges\":%llu,",
             rs->attempts, rs->window, (unsigned long long)rs->choices_before,
             (unsigned long long)rs->choices_after, rs->reads_before, rs->reads_after,
             (unsigned long long)rs->skeleton_edges);
    if (!strstr(json, want))
        fail_msg("no %s in %s", want, json);
    assert_true(rs->choices_before >= 2); /* the read's two writers */
    assert_null(strstr(json, "\"lazy\":"));
    free(json);
    checked_free(&c);

    /* The usual path alone: neither line nor object. */
    check_file(&c, path, false, PSI_INTERPRET_BUDGET_DEFAULT);
    c.o.stats = true;
    text = render(&c, TEXT);
    assert_non_null(strstr(text, "\nstats:\n"));
    assert_null(strstr(text, "restricted"));
    free(text);
    json = render(&c, JSON);
    assert_null(strstr(json, "\"restricted\":"));
    free(json);
    checked_free(&c);
}

static void test_history_shape(void **state)
{
    (void)state;
    char path[512], want[1024];
    put("shape.txt", lost_update, path, sizeof path);
    psi_read_opts ro = {0};
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(path, &ro, &h, &d), PSI_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_true(psi_render_history_text(h, path, f));
    assert_int_equal(fclose(f), 0);
    snprintf(want, sizeof want,
             "history       %s (text)\nsessions      2\n"
             "transactions  3 (committed 3, aborted 0, unknown 0)\n"
             "operations    5 (reads 2, writes 3)\nkeys          1\n"
             "read-only     0\nwrite-only    1\nread-write    2\n",
             path);
    assert_string_equal(buf, want);
    free(buf);
    f = open_memstream(&buf, &len);
    assert_true(psi_render_history_json(h, path, f));
    assert_int_equal(fclose(f), 0);
    snprintf(want, sizeof want,
             "{\"path\":\"%s\",\"format\":\"text\",\"sessions\":2,\"transactions\":3,"
             "\"committed\":3,\"aborted\":0,\"unknown\":0,\"operations\":5,\"reads\":2,"
             "\"writes\":3,\"keys\":1,\"read_only\":0,\"write_only\":1,\"read_write\":2,"
             "\"empty\":0}\n",
             path);
    assert_string_equal(buf, want);
    free(buf);
    psi_history_free(h);
}

/* A stream that cannot be written: every renderer says so. */
static void test_write_errors_are_reported(void **state)
{
    (void)state;
    char path[512];
    put("err.txt", lost_update, path, sizeof path);
    checked c;
    check_file(&c, path, false, PSI_INTERPRET_BUDGET_DEFAULT);
    FILE *f = fopen("/dev/null", "r");
    assert_non_null(f);
    assert_false(psi_render_text(c.h, &c.res, &c.cx, &c.o, f));
    clearerr(f);
    assert_false(psi_render_json(c.h, &c.res, &c.cx, &c.o, f));
    clearerr(f);
    assert_false(psi_render_dot(c.h, &c.cx, &c.o, f));
    clearerr(f);
    assert_false(psi_render_history_text(c.h, path, f));
    clearerr(f);
    assert_false(psi_render_history_json(c.h, path, f));
    fclose(f);
    checked_free(&c);
}

/* `check` and `stats` print exactly what the renderers write. */
static void test_cli_prints_what_the_renderers_write(void **state)
{
    (void)state;
    char path[512], dotpath[600], args[2048], *out;
    put("cli.txt", lost_update, path, sizeof path);
    snprintf(dotpath, sizeof dotpath, "%s/cli.dot", dir);
    snprintf(args, sizeof args, "check --dot '%s' '%s'", dotpath, path);
    int rc = run_cli(args, &out);
    if (rc == -1) {
        fprintf(stderr, "PSI_CLI not set or not executable; CLI comparison skipped\n");
        return;
    }
    assert_int_equal(rc, 1);
    checked c;
    check_file(&c, path, false, PSI_INTERPRET_BUDGET_DEFAULT);
    char *text = render(&c, TEXT);
    mask_timings(out);
    mask_timings(text);
    assert_string_equal(out, text);
    free(out);
    free(text);

    char *dot = render(&c, DOT), *file = NULL;
    size_t len;
    psi_diag d;
    assert_int_equal(psi_read_file(dotpath, &file, &len, &d), PSI_OK);
    assert_string_equal(file, dot);
    free(file);
    free(dot);

    snprintf(args, sizeof args, "check --json '%s'", path);
    assert_int_equal(run_cli(args, &out), 1);
    char *json = render(&c, JSON);
    mask_timings(out);
    mask_timings(json);
    assert_string_equal(out, json);
    free(out);
    free(json);

    snprintf(args, sizeof args, "stats --json '%s'", path);
    assert_int_equal(run_cli(args, &out), 0);
    char *buf = NULL;
    FILE *f = open_memstream(&buf, &len);
    assert_true(psi_render_history_json(c.h, path, f));
    assert_int_equal(fclose(f), 0);
    assert_string_equal(out, buf);
    free(out);
    free(buf);
    checked_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reports_of_a_lost_update),
        cmocka_unit_test(test_reports_name_keys_by_spelling),
        cmocka_unit_test(test_accept_and_no_interpretation),
        cmocka_unit_test(test_restricted_stats_in_both_reports),
        cmocka_unit_test(test_history_shape),
        cmocka_unit_test(test_write_errors_are_reported),
        cmocka_unit_test(test_cli_prints_what_the_renderers_write),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
