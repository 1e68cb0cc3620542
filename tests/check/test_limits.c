/* --timeout and --max-memory on check and sat: when a limit is hit the process
 * exits 2 with a message naming the limit and the stage, and prints no
 * verdict; generous limits change nothing. Runs the real CLI (PSI_CLI). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "cli/args.h"
#include "cli/limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct run {
    int rc;
    char out[8192], err[8192];
} run;

static void slurp(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
}

static void cli(run *r, const char *args)
{
    const char *bin = getenv("PSI_CLI");
    assert_non_null(bin);
    char out[] = "/tmp/psi_limits_outXXXXXX", err[] = "/tmp/psi_limits_errXXXXXX";
    int fo = mkstemp(out), fe = mkstemp(err);
    assert_true(fo >= 0 && fe >= 0);
    close(fo);
    close(fe);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s >'%s' 2>'%s'", bin, args, out, err);
    int st = system(cmd);
    assert_true(WIFEXITED(st));
    r->rc = WEXITSTATUS(st);
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
    unlink(out);
    unlink(err);
}

/* A history big enough that checking it takes a while: generated once. */
static char g_hist[64] = "/tmp/psi_limits_histXXXXXX";

static int setup(void **state)
{
    (void)state;
    int fd = mkstemp(g_hist);
    if (fd < 0)
        return -1;
    close(fd);
    run r;
    char args[512];
    snprintf(args, sizeof args,
             "generate --sessions 10 --txns 200 --ops 10 --keys 200 --format dbcop --seed 3 '%s'",
             g_hist);
    cli(&r, args);
    return r.rc == 0 ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    unlink(g_hist);
    return 0;
}

static void test_timeout_names_stage_and_prints_no_verdict(void **state)
{
    (void)state;
    run r;
    char args[512];
    snprintf(args, sizeof args, "check --timeout 0.000001 '%s'", g_hist);
    cli(&r, args);
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, "time limit of 1e-06 s reached in the "));
    assert_non_null(strstr(r.err, " stage; no verdict"));
    assert_null(strstr(r.out, "ACCEPT"));
    assert_null(strstr(r.out, "REJECT"));
}

static void test_memory_limit_names_stage_and_prints_no_verdict(void **state)
{
    (void)state;
    run r;
    char args[512];
    snprintf(args, sizeof args, "check --json --max-memory 1 '%s'", g_hist);
    cli(&r, args);
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, "memory limit of 1 MB reached in the "));
    /* With --json the error is a JSON object on stdout; never a verdict. */
    assert_true(
        strncmp(r.out, "{\"error\":{\"message\":\"memory limit of 1 MB reached in the ", 57) == 0);
    assert_null(strstr(r.out, "\"verdict\":"));
}

/* Options as `check` reads them into l. */
static void parse_limits(psi_limits *l, char *line)
{
    char cmd[] = "check";
    char *argv[8] = {cmd};
    int argc = 1;
    for (char *t = strtok(line, " "); t && argc < 8; t = strtok(NULL, " "))
        argv[argc++] = t;
    psi_args a;
    psi_args_init(&a, argc, argv);
    a.quiet = true;
    const char *arg;
    bool opt;
    memset(l, 0, sizeof *l);
    while (psi_args_next(&a, &arg, &opt))
        assert_true(opt && psi_limits_option(&a, arg, l));
    assert_false(a.failed);
}

/* Without --max-memory the watchdog still runs, bounded by 90 % of the
 * machine's memory (or its cgroup's), so a run that outgrows the machine
 * ends with the limit's message, not the kernel's kill; --max-memory 0
 * (and no timeout) runs no watchdog at all. */
static void test_default_memory_limit(void **state)
{
    (void)state;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    assert_true(pages > 0 && page > 0);
    uint64_t most = (uint64_t)pages * (uint64_t)page / 10 * 9 / (1024u * 1024u);
    uint64_t def = psi_limits_default_mb();
    assert_true(def > 0 && def <= most);

    psi_limits l;
    char none[] = "", zero[] = "--max-memory 0", some[] = "--max-memory=512";
    parse_limits(&l, none);
    assert_false(l.max_mb_given);
    bool failed = true;
    psi_watchdog *w = psi_limits_start(&l, &failed);
    assert_false(failed);
    assert_non_null(w); /* the default limit is armed */
    psi_limits_stop(w);

    parse_limits(&l, zero);
    assert_true(l.max_mb_given);
    assert_int_equal(l.max_mb, 0);
    assert_null(psi_limits_start(&l, &failed)); /* no limit at all */
    assert_false(failed);

    parse_limits(&l, some);
    assert_true(l.max_mb_given);
    assert_int_equal(l.max_mb, 512);

    /* and the CLI decides with no memory limit */
    run r;
    char args[512];
    snprintf(args, sizeof args, "check --json --interpret-budget 0 --max-memory 0 '%s'", g_hist);
    cli(&r, args);
    assert_true(r.rc == 0 || r.rc == 1);
    assert_non_null(strstr(r.out, "\"verdict\":"));
}

static void test_generous_limits_change_nothing(void **state)
{
    (void)state;
    run plain, limited;
    char args[512];
    snprintf(args, sizeof args, "check --json --interpret-budget 0 '%s'", g_hist);
    cli(&plain, args);
    snprintf(args, sizeof args,
             "check --json --interpret-budget 0 --timeout 3600 --max-memory 1000000 '%s'", g_hist);
    cli(&limited, args);
    assert_true(plain.rc == 0 || plain.rc == 1);
    assert_int_equal(limited.rc, plain.rc);
    assert_non_null(
        strstr(limited.out, plain.rc == 0 ? "\"verdict\":\"accept\"" : "\"verdict\":\"reject\""));
}

/* Pigeonhole with 11 pigeons and 10 holes: unsatisfiable and far beyond a
 * fraction of a second for CDCL, so the timeout must fire while solving.
 * --no-symmetry: the pure-CNF command breaks the holes' symmetry by
 * default, which solves pigeonhole at once. */
static void test_sat_timeout(void **state)
{
    (void)state;
    char cnf[] = "/tmp/psi_limits_cnfXXXXXX";
    int fd = mkstemp(cnf);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    int P = 11, H = 10;
    fprintf(f, "p cnf %d %d\n", P * H, P + H * P * (P - 1) / 2);
    for (int p = 0; p < P; p++) {
        for (int h = 0; h < H; h++)
            fprintf(f, "%d ", p * H + h + 1);
        fprintf(f, "0\n");
    }
    for (int h = 0; h < H; h++)
        for (int p = 0; p < P; p++)
            for (int q = p + 1; q < P; q++)
                fprintf(f, "-%d -%d 0\n", p * H + h + 1, q * H + h + 1);
    fclose(f);
    run r;
    char args[512];
    snprintf(args, sizeof args, "sat --no-symmetry --timeout 0.3 '%s'", cnf);
    cli(&r, args);
    unlink(cnf);
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, "time limit of 0.3 s reached in the solve stage"));
    assert_null(strstr(r.out, "s UNSATISFIABLE"));
    assert_null(strstr(r.out, "s UNKNOWN"));
}

static void test_bad_limit_values(void **state)
{
    (void)state;
    run r;
    cli(&r, "check --timeout soon x.txt");
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, "--timeout"));
    cli(&r, "check --max-memory -5 x.txt");
    assert_int_equal(r.rc, 2);
    assert_non_null(strstr(r.err, "--max-memory"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_timeout_names_stage_and_prints_no_verdict),
        cmocka_unit_test(test_memory_limit_names_stage_and_prints_no_verdict),
        cmocka_unit_test(test_default_memory_limit),
        cmocka_unit_test(test_generous_limits_change_nothing),
        cmocka_unit_test(test_sat_timeout),
        cmocka_unit_test(test_bad_limit_values),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
