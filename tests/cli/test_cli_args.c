/* Command-line parsing: cli/args.c as a unit (both option forms, "--",
 * quiet mode reporting errors without printing them, non-negative numbers),
 * and the program (PSI_CLI): `sat` takes `--name=value` like `check` does,
 * with the same answers as `--name value`, and still words its errors and
 * picks its exit codes as it always has. cli/ is not a library: args.c is
 * compiled into this test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/args.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char dir[] = "/tmp/psi_cli_args_XXXXXX";

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

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

/* ---- args.c as a unit ---- */

/* Captures what the parser writes to stderr while it runs. */
typedef struct capture {
    int saved;
    char path[300];
} capture;

static void capture_begin(capture *c)
{
    snprintf(c->path, sizeof c->path, "%s/stderr", dir);
    fflush(stderr);
    c->saved = dup(2);
    int fd = open(c->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(c->saved >= 0 && fd >= 0);
    dup2(fd, 2);
    close(fd);
}

static void capture_end(capture *c, char *buf, size_t n)
{
    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    slurp(c->path, buf, n);
}

static void test_both_forms_and_dashdash(void **state)
{
    (void)state;
    char *argv[] = {"cmd", "--time-limit=5", "--budget", "7", "pos", "--", "--file", "--flag"};
    psi_args a;
    psi_args_init(&a, 8, argv);
    const char *arg;
    bool opt;
    double t = 0;
    uint64_t b = 0;

    assert_true(psi_args_next(&a, &arg, &opt));
    assert_true(opt);
    assert_false(psi_args_opt(&a, arg, "--time")); /* a prefix is not a match */
    assert_true(psi_args_opt(&a, arg, "--time-limit"));
    assert_string_equal(a.name, "--time-limit");
    assert_string_equal(a.value, "5");
    assert_true(psi_args_double(&a, "--time-limit", &t));
    assert_true(t == 5.0);

    assert_true(psi_args_next(&a, &arg, &opt));
    assert_true(psi_args_opt(&a, arg, "--budget"));
    assert_string_equal(a.value, "7");
    assert_true(psi_args_u64(&a, "--budget", &b));
    assert_int_equal(b, 7);

    assert_true(psi_args_next(&a, &arg, &opt));
    assert_false(opt);
    assert_false(a.escaped);
    assert_string_equal(arg, "pos");

    /* The argument after "--" is positional, even with dashes. */
    assert_true(psi_args_next(&a, &arg, &opt));
    assert_false(opt);
    assert_true(a.escaped);
    assert_string_equal(arg, "--file");

    assert_true(psi_args_next(&a, &arg, &opt));
    assert_true(opt);
    assert_false(a.escaped);
    assert_true(psi_args_flag(&a, arg, "--flag"));
    assert_false(psi_args_next(&a, &arg, &opt));
    assert_false(a.failed);
}

static void test_errors_printed_or_quiet(void **state)
{
    (void)state;
    char *argv[] = {"cmd", "--n", " -5", "--n=-0", "--n=4294967296", "--x"};
    const char *arg;
    bool opt;
    uint64_t v;
    uint32_t v32;
    char err[1024];
    capture c;

    /* Printed: one line naming the command and the option. */
    psi_args a;
    psi_args_init(&a, 6, argv);
    capture_begin(&c);
    assert_true(psi_args_next(&a, &arg, &opt) && psi_args_opt(&a, arg, "--n"));
    assert_false(psi_args_u64(&a, "--n", &v)); /* strtoull would take " -5" as 2^64-5 */
    capture_end(&c, err, sizeof err);
    assert_true(a.failed);
    assert_int_equal(a.error, PSI_ARGS_BAD_VALUE);
    assert_string_equal(err, "polysi-solve cmd: --n expects a non-negative integer, got ' -5'\n");

    /* Quiet: the same failures, recorded and not printed. */
    psi_args_init(&a, 6, argv);
    a.quiet = true;
    capture_begin(&c);
    assert_true(psi_args_next(&a, &arg, &opt) && psi_args_opt(&a, arg, "--n"));
    assert_false(psi_args_u64(&a, "--n", &v));
    assert_int_equal(a.error, PSI_ARGS_BAD_VALUE);
    assert_true(psi_args_next(&a, &arg, &opt) && psi_args_opt(&a, arg, "--n"));
    assert_false(psi_args_u64(&a, "--n", &v));
    assert_string_equal(a.value, "-0");
    assert_true(psi_args_next(&a, &arg, &opt) && psi_args_opt(&a, arg, "--n"));
    assert_true(psi_args_u64(&a, "--n", &v));
    assert_false(psi_args_u32(&a, "--n", &v32));
    assert_int_equal(a.error, PSI_ARGS_BAD_VALUE);
    assert_true(psi_args_next(&a, &arg, &opt) && psi_args_opt(&a, arg, "--x"));
    assert_int_equal(a.error, PSI_ARGS_NO_VALUE);
    assert_string_equal(a.name, "--x");
    assert_string_equal(a.value, "");
    psi_args_unknown(&a, "--what");
    assert_int_equal(a.error, PSI_ARGS_UNKNOWN);
    capture_end(&c, err, sizeof err);
    assert_true(a.failed);
    assert_string_equal(err, "");
}

/* ---- the program ---- */

typedef struct run {
    int rc;
    char out[8192], err[8192];
} run;

static const char *cli(void)
{
    const char *bin = getenv("PSI_CLI");
    if (!bin || access(bin, X_OK) != 0) {
        fprintf(stderr, "PSI_CLI not set or not executable; CLI tests skipped\n");
        return NULL;
    }
    return bin;
}

/* Runs `$PSI_CLI args` in dir (so relative names land there). */
static void cli_run(run *r, const char *args)
{
    char out[400], err[400], cmd[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(err, sizeof err, "%s/err", dir);
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >'%s' 2>'%s'", dir, cli(), args, out, err);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    r->rc = WEXITSTATUS(st);
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
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

/* Every value option of sat in both forms: same exit code, same answer. */
static void test_sat_takes_name_equals_value(void **state)
{
    (void)state;
    if (!cli())
        return;
    put("sat.cnf", "p cnf 2 2\n1 2 0\n-1 0\n");
    put("unsat.cnf", "p cnf 1 2\n1 0\n-1 0\n");
    static const char *const pairs[][3] = {
        {"--time-limit 5 sat.cnf", "--time-limit=5 sat.cnf", "s SATISFIABLE\nv -1 2 0\n"},
        {"--timeout 60 sat.cnf", "--timeout=60 sat.cnf", "s SATISFIABLE\nv -1 2 0\n"},
        {"--max-memory 100000 sat.cnf", "--max-memory=100000 sat.cnf", "s SATISFIABLE\nv -1 2 0\n"},
        /* No conflicts allowed: the solver gives up, so the value was used. */
        {"--conflict-limit 0 sat.cnf", "--conflict-limit=0 sat.cnf", "s UNKNOWN\n"},
        {"--proof p1.drat unsat.cnf", "--proof=p2.drat unsat.cnf", "s UNSATISFIABLE\n"},
        {"-- sat.cnf", "sat.cnf", "s SATISFIABLE\nv -1 2 0\n"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        run spaced, joined;
        char args[256];
        snprintf(args, sizeof args, "sat %s", pairs[i][0]);
        cli_run(&spaced, args);
        snprintf(args, sizeof args, "sat %s", pairs[i][1]);
        cli_run(&joined, args);
        if (joined.rc != spaced.rc || strcmp(joined.out, pairs[i][2]) != 0)
            fail_msg("sat %s: exit %d, stdout '%s', stderr '%s'", pairs[i][1], joined.rc,
                     joined.out, joined.err);
        assert_string_equal(spaced.out, joined.out);
        assert_string_equal(joined.err, "");
    }
    char p1[400], p2[400], t1[256], t2[256];
    snprintf(p1, sizeof p1, "%s/p1.drat", dir);
    snprintf(p2, sizeof p2, "%s/p2.drat", dir);
    slurp(p1, t1, sizeof t1);
    slurp(p2, t2, sizeof t2);
    assert_string_equal(t1, t2);
    assert_true(strlen(t1) > 0);

    /* check has always taken both forms; sat now parses the same way. */
    run r;
    cli_run(&r, "check --interpret-budget=5 --timeout=60 --max-memory=100000 nonexistent.txt");
    assert_int_equal(r.rc, 2);
    assert_null(strstr(r.err, "option"));
}

/* sat's own wording and exit codes, in either form. */
static void test_sat_keeps_its_messages(void **state)
{
    (void)state;
    if (!cli())
        return;
    put("sat.cnf", "p cnf 2 2\n1 2 0\n-1 0\n");
    static const char *const bad[][2] = {
        {"--time-limit x sat.cnf", "polysi-solve sat: bad --time-limit 'x'\n"},
        {"--time-limit=x sat.cnf", "polysi-solve sat: bad --time-limit 'x'\n"},
        {"--timeout=-1 sat.cnf", "polysi-solve sat: bad --timeout '-1'\n"},
        {"--max-memory 1.5 sat.cnf", "polysi-solve sat: bad --max-memory '1.5'\n"},
        {"--conflict-limit=9223372036854775808 sat.cnf",
         "polysi-solve sat: bad --conflict-limit '9223372036854775808'\n"},
        {"sat.cnf other.cnf", "polysi-solve sat: only one input file is allowed\n"},
    };
    run r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "sat %s", bad[i][0]);
        cli_run(&r, args);
        assert_int_equal(r.rc, 2);
        assert_string_equal(r.err, bad[i][1]);
        assert_string_equal(r.out, "");
    }
    static const char *const unknown[][2] = {
        {"sat.cnf --conflict-limit", "'--conflict-limit'"},
        {"--proof", "'--proof'"},
        {"-x sat.cnf", "'-x'"},
        {"--bogus=1 sat.cnf", "'--bogus=1'"},
        {"--stats=yes sat.cnf", "'--stats=yes'"},
    };
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        char args[256], want[256];
        snprintf(args, sizeof args, "sat %s", unknown[i][0]);
        cli_run(&r, args);
        assert_int_equal(r.rc, 2);
        snprintf(want, sizeof want,
                 "polysi-solve sat: unknown or incomplete option %s\n\nusage: polysi-solve sat ",
                 unknown[i][1]);
        if (strncmp(r.err, want, strlen(want)) != 0)
            fail_msg("sat %s: stderr '%s'", unknown[i][0], r.err);
    }
    cli_run(&r, "sat -h");
    assert_int_equal(r.rc, 0);
    assert_true(strncmp(r.out, "usage: polysi-solve sat ", 24) == 0);
    cli_run(&r, "sat");
    assert_int_equal(r.rc, 2);
    assert_true(strncmp(r.err, "usage: polysi-solve sat ", 24) == 0);
}

/* check's usage errors name what is wrong: level names in any case (JSON
 * prints "SER"), a single-dash option is an unknown option (not a second
 * PATH), --time-limit belongs to sat alone (check has --timeout), and
 * --help says what 0 means for the limits. */
static void test_check_usage(void **state)
{
    (void)state;
    if (!cli())
        return;
    put("h.txt", "w(1,1,1,1)\nr(1,1,2,2)\n");
    run r;
    static const char *const levels[] = {"SER", "Ser", "ser", "SI", "si", "Si"};
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        char args[256];
        snprintf(args, sizeof args, "check --isolation %s h.txt", levels[i]);
        cli_run(&r, args);
        if (r.rc != 0)
            fail_msg("check --isolation %s: exit %d, stderr '%s'", levels[i], r.rc, r.err);
        snprintf(args, sizeof args, "verify-witness --isolation %s h.txt h.txt", levels[i]);
        cli_run(&r, args);
        if (strstr(r.err, "--isolation"))
            fail_msg("verify-witness --isolation %s: stderr '%s'", levels[i], r.err);
    }
    cli_run(&r, "check --isolation serializable h.txt");
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, "'serializable'"));

    cli_run(&r, "check -i ser h.txt");
    assert_int_equal(r.rc, 2);
    if (!strstr(r.err, "unknown option -i"))
        fail_msg("check -i ser: stderr '%s'", r.err);
    cli_run(&r, "check -h");
    assert_int_equal(r.rc, 0);
    assert_true(strncmp(r.out, "usage: polysi-solve check", 25) == 0);

    /* One meaning per flag: --time-limit is sat's (an UNKNOWN answer). */
    cli_run(&r, "check --time-limit 5 h.txt");
    assert_int_equal(r.rc, 2);
    if (!strstr(r.err, "--timeout"))
        fail_msg("check --time-limit: stderr '%s'", r.err);
    cli_run(&r, "check --help");
    assert_int_equal(r.rc, 0);
    assert_null(strstr(r.out, "--time-limit"));
    assert_non_null(strstr(r.out, "--timeout S"));
    const char *to = strstr(r.out, "--timeout S"), *mm = strstr(r.out, "--max-memory MB");
    assert_non_null(mm);
    assert_non_null(strstr(to, "0: no limit"));
    assert_non_null(strstr(mm, "0: no limit"));
    cli_run(&r, "sat --help");
    assert_non_null(strstr(r.out, "0: no limit"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_forms_and_dashdash),
        cmocka_unit_test(test_errors_printed_or_quiet),
        cmocka_unit_test(test_sat_takes_name_equals_value),
        cmocka_unit_test(test_sat_keeps_its_messages),
        cmocka_unit_test(test_check_usage),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
