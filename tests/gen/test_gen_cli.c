/* `polysi-solve generate`: options reach the generator, every output
 * format reads back with the requested shape, and bad usage exits 2. The
 * command's source is compiled into this test (cli/ is not a library). */
#include "check/check.h"
#include "cli/commands.h"
#include "formats/read.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/psi-gen-cli-XXXXXX");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Runs `generate` with a NULL-terminated argument list. */
static int run(const char *first, ...)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"generate";
    va_list ap;
    va_start(ap, first);
    for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
        argv[argc++] = (char *)a;
    va_end(ap);
    argv[argc] = NULL;
    return psi_cmd_generate(argc, argv);
}

static psi_history *load(const char *path)
{
    psi_read_opts ro = {0};
    psi_history *h = NULL;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK)
        fail_msg("reading %s: %s", path, d.msg);
    return h;
}

static void test_formats(void **state)
{
    (void)state;
    const char *fmts[] = {"text", "dbcop", "edn", "json"};
    for (int i = 0; i < 4; i++) {
        char out[300];
        snprintf(out, sizeof out, "%s/h.%s", dir, fmts[i]);
        assert_int_equal(run("--sessions", "3", "--txns", "4", "--ops", "5", "--keys", "7",
                             "--dist", "uniform", "--seed", "9", "--format", fmts[i], out, NULL),
                         0);
        psi_history *h = load(out);
        assert_int_equal(h->n_sessions, 3);
        uint32_t committed = 0;
        /* (EDN drops initial-value reads of aborted transactions) */
        for (uint32_t t = 1; t < h->n_txns; t++) {
            if (h->txns[t].status != PSI_TXN_COMMITTED)
                continue;
            assert_int_equal(h->txns[t].n_ops, 5);
            committed++;
        }
        /* retries by default: each session commits its 4 */
        assert_int_equal(committed, 12);
        assert_true(h->n_keys <= 7);
        psi_history_free(h);
    }
}

static void test_options(void **state)
{
    (void)state;
    char out[300];
    snprintf(out, sizeof out, "%s/f.edn", dir);
    assert_int_equal(run("--sessions=2", "--txns=3", "--ops=2", "--keys=2", "--mix", "rmw",
                         "--isolation", "ser", "--faults", "lost-update,session-skip",
                         "--fault-prob", "0.5", "--no-retry", "--format", "edn", out, NULL),
                     0);
    psi_history *h = load(out);
    assert_int_equal(h->n_txns, 1 + 2 * 3);
    psi_history_free(h);
    assert_int_equal(run("--isolation", "random", "--abort-ratio", "0.3", "--long-txn-ratio", "0.5",
                         "--long-ops", "9", "--dist", "hotspot", "--format", "dbcop", out, NULL),
                     0);
    assert_int_equal(run("--help", NULL), 0);
}

/* Runs generate with its stderr (the summary) captured into buf. */
static int run_summary(char *buf, size_t n, const char *const *args)
{
    char path[300];
    snprintf(path, sizeof path, "%s/summary", dir);
    fflush(stderr);
    int saved = dup(2);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    dup2(fileno(f), 2);
    char *argv[64];
    int argc = 0;
    argv[argc++] = (char *)"generate";
    for (; *args && argc < 63; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    int rc = psi_cmd_generate(argc, argv);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fclose(f);
    f = fopen(path, "r");
    size_t k = fread(buf, 1, n - 1, f);
    buf[k] = '\0';
    fclose(f);
    return rc;
}

/* The summary adds up: recorded transactions by status sum to the total,
 * and match the file; the store's attempts are said apart, with how many
 * aborted and whether the format recorded them. */
static void test_summary_adds_up(void **state)
{
    (void)state;
    char out[300], buf[4096];
    snprintf(out, sizeof out, "%s/s.edn", dir);
    const char *a1[] = {"--unknown-ratio", "0.3", "--keys", "300", "--format", "edn", out, NULL};
    assert_int_equal(run_summary(buf, sizeof buf, a1), 0);
    unsigned long long t, c, ab, u, att, ac, aa;
    if (sscanf(buf, "generated %llu transactions (%llu committed, %llu aborted, %llu of unknown",
               &t, &c, &ab, &u) != 4)
        fail_msg("summary: %s", buf);
    assert_int_equal(c + ab + u, t);
    assert_true(u > 0 && ab > 0);
    const char *line2 = strstr(buf, "the store ran ");
    assert_non_null(line2);
    assert_int_equal(sscanf(line2,
                            "the store ran %llu transaction attempts: %llu committed, %llu "
                            "aborted",
                            &att, &ac, &aa),
                     3);
    assert_int_equal(ac + aa, att);
    assert_int_equal(att, t); /* EDN records every attempt */
    psi_history *h = load(out);
    unsigned long long n[3] = {0, 0, 0};
    for (uint32_t i = 1; i < h->n_txns; i++)
        n[h->txns[i].status]++;
    assert_int_equal(n[PSI_TXN_COMMITTED], c);
    assert_int_equal(n[PSI_TXN_ABORTED], ab);
    /* (an :info transaction nobody observed is dropped by the reader) */
    assert_true(n[PSI_TXN_UNKNOWN] <= u);
    psi_history_free(h);

    /* Text drops aborted attempts, and says so. */
    snprintf(out, sizeof out, "%s/s.txt", dir);
    const char *a2[] = {"--keys", "300", out, NULL};
    assert_int_equal(run_summary(buf, sizeof buf, a2), 0);
    assert_int_equal(sscanf(buf, "generated %llu transactions (%llu committed, %llu aborted, %llu",
                            &t, &c, &ab, &u),
                     4);
    assert_int_equal(ab, 0);
    assert_int_equal(c, t);
    assert_non_null(strstr(buf, "and retried; the text format cannot record aborted"));
}

/* --abort-ratio applies to the SI and SER stores too: the client rolls
 * back that fraction of its transactions. */
static void test_abort_ratio_si_store(void **state)
{
    (void)state;
    char out[300], buf[4096];
    snprintf(out, sizeof out, "%s/a.dbcop", dir);
    for (int ser = 0; ser < 2; ser++) {
        /* Uniform over many keys: next to no write conflicts. */
        const char *a[] = {"--keys",      "1000000",          "--dist",        "uniform",
                           "--isolation", ser ? "ser" : "si", "--abort-ratio", "0.3",
                           "--no-retry",  "--format",         "dbcop",         out,
                           NULL};
        assert_int_equal(run_summary(buf, sizeof buf, a), 0);
        unsigned long long t, c, ab;
        assert_int_equal(
            sscanf(buf, "generated %llu transactions (%llu committed, %llu aborted", &t, &c, &ab),
            3);
        assert_int_equal(t, 2000);
        if (ab < 450 || ab > 750)
            fail_msg("%s store, --abort-ratio 0.3: %llu of %llu aborted", ser ? "SER" : "SI", ab,
                     t);
        assert_non_null(strstr(buf, "--abort-ratio"));
    }
}

/* --format json (issue 15): Jepsen JSON Lines that check reads as JSON,
 * with the store's real time, so a correct SI store is accepted under
 * strong-si and a correct SER store under strict-ser, aborted attempts
 * recorded. */
static void test_json_real_time(void **state)
{
    (void)state;
    char out[300];
    snprintf(out, sizeof out, "%s/rt.json", dir);
    for (int ser = 0; ser < 2; ser++) {
        assert_int_equal(run("--sessions", "4", "--txns", "30", "--ops", "4", "--keys", "8",
                             "--abort-ratio", "0.1", "--isolation", ser ? "ser" : "si", "--seed",
                             "5", "--format", "json", out, NULL),
                         0);
        psi_history *h = load(out);
        assert_int_equal(h->format, PSI_FMT_JSON);
        assert_non_null(h->rt);
        uint32_t committed = 0, aborted = 0;
        for (uint32_t t = 1; t < h->n_txns; t++) {
            committed += h->txns[t].status == PSI_TXN_COMMITTED;
            aborted += h->txns[t].status == PSI_TXN_ABORTED;
        }
        assert_int_equal(committed, 120);
        assert_true(aborted > 0);
        psi_check_opts co = {.level = ser ? PSI_LEVEL_STRICT_SER : PSI_LEVEL_STRONG_SI,
                             .threads = 1};
        psi_check_result r;
        psi_diag d;
        psi_diag_clear(&d);
        if (psi_check(h, &co, &r, &d) != PSI_OK)
            fail_msg("check: %s", d.msg);
        if (r.verdict != PSI_ACCEPT)
            fail_msg("the %s store's JSON history is rejected under %s", ser ? "SER" : "SI",
                     psi_level_name(co.level));
        psi_check_result_free(&r);
        psi_history_free(h);
    }
}

static void test_bad_usage(void **state)
{
    (void)state;
    char out[300];
    snprintf(out, sizeof out, "%s/x.txt", dir);
    assert_int_equal(run(NULL), 2);
    assert_int_equal(run("--dist", "normal", out, NULL), 2);
    assert_int_equal(run("--mix", "tpcc", out, NULL), 2);
    assert_int_equal(run("--faults", "dirty-read", out, NULL), 2);
    assert_int_equal(run("--isolation", "rc", out, NULL), 2);
    assert_int_equal(run("--format", "cobra", out, NULL), 2);
    assert_int_equal(run("--sessions", "0", out, NULL), 2);
    assert_int_equal(run("--reads", "2", out, NULL), 2);
    assert_int_equal(run("--bogus", out, NULL), 2);
    /* The value distribution options need --value-range; ratios in [0, 1]. */
    assert_int_equal(run("--value-zipf", "0.5", out, NULL), 2);
    assert_int_equal(run("--value-repeat-ratio", "0.5", out, NULL), 2);
    assert_int_equal(run("--value-range", "8", "--value-repeat-ratio", "1.5", out, NULL), 2);
    assert_int_equal(run("--value-range", "8", "--value-zipf", "-1", out, NULL), 2);
    assert_int_equal(run("--value-range", "2000000", "--value-zipf", "1", out, NULL), 2);
    assert_int_equal(run(out, out, NULL), 2);
    assert_int_equal(access(out, F_OK), -1);
}

/* Checks h under SI with the default --init auto; returns the verdict
 * (1 reject) and the recognised initial transaction in *init. */
static int check_si(psi_history *h, uint32_t *init)
{
    psi_check_opts co = {.level = PSI_LEVEL_SI, .threads = 1};
    psi_check_result r;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_check(h, &co, &r, &d) != PSI_OK)
        fail_msg("check: %s", d.msg);
    int v = r.verdict == PSI_REJECT;
    *init = r.idx.init_txn;
    psi_check_result_free(&r);
    return v;
}

/* --value-range N: written values lie in 1..N and repeat (reads then have
 * a choice of writers); --explicit-init: the history starts with one
 * committed transaction writing 0 to every key, which the check takes for
 * the initial state; the SI store's history is accepted, and --faults
 * still produce violations the check finds. */
static void test_value_range_explicit_init(void **state)
{
    (void)state;
    char out[300];
    snprintf(out, sizeof out, "%s/v.dbcop", dir);
    assert_int_equal(run("--sessions", "4", "--txns", "25", "--ops", "6", "--keys", "8", "--dist",
                         "uniform", "--value-range", "3", "--explicit-init", "--seed", "11",
                         "--format", "dbcop", out, NULL),
                     0);
    psi_history *h = load(out);
    uint32_t zeros = 0, init = 0, repeats = 0;
    uint32_t seen[8][4] = {{0}};
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        bool all_zero = tx->n_ops > 0;
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            const psi_op *op = &h->ops[tx->first_op + i];
            all_zero = all_zero && op->kind == PSI_OP_WRITE && op->value == 0;
        }
        if (all_zero) {
            zeros++;
            init = t;
            assert_int_equal(tx->status, PSI_TXN_COMMITTED);
            assert_int_equal(tx->n_ops, 8); /* every key, once */
            continue;
        }
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            const psi_op *op = &h->ops[tx->first_op + i];
            if (op->kind != PSI_OP_WRITE)
                continue;
            if (op->value < 1 || op->value > 3)
                fail_msg("written value %llu outside 1..3", (unsigned long long)op->value);
            if (tx->status == PSI_TXN_COMMITTED && seen[op->key][op->value]++)
                repeats++;
        }
    }
    assert_int_equal(zeros, 1);
    assert_int_equal(init, 1); /* first in the file */
    assert_true(repeats > 10);
    uint32_t got;
    assert_int_equal(check_si(h, &got), 0);
    assert_int_equal(got, init);
    psi_history_free(h);

    /* The same with lost updates planted: every seed is rejected. */
    for (int seed = 1; seed <= 4; seed++) {
        char sd[16];
        snprintf(sd, sizeof sd, "%d", seed);
        assert_int_equal(run("--sessions", "4", "--txns", "25", "--ops", "6", "--keys", "8",
                             "--dist", "uniform", "--value-range", "3", "--explicit-init",
                             "--faults", "lost-update", "--fault-prob", "1", "--seed", sd,
                             "--format", "dbcop", out, NULL),
                         0);
        h = load(out);
        assert_int_equal(check_si(h, &got), 1);
        assert_int_equal(got, 1);
        psi_history_free(h);
    }
}

/* VeriStrong's value model from the command line: zipfian values over
 * 1..N for half of the writes, unique ones above N for the rest; the SI
 * store's history is accepted with reads that have a choice of writers,
 * and lost updates are still found. */
static void test_value_zipf_repeat_ratio(void **state)
{
    (void)state;
    char out[300];
    snprintf(out, sizeof out, "%s/z.txt", dir);
    for (int seed = 1; seed <= 3; seed++) {
        char sd[16];
        snprintf(sd, sizeof sd, "%d", seed);
        for (int faulty = 0; faulty <= 1; faulty++) {
            assert_int_equal(run("--sessions", "4", "--txns", "25", "--ops", "6", "--keys", "8",
                                 "--dist", "uniform", "--value-range", "4", "--value-zipf", "0.75",
                                 "--value-repeat-ratio", "0.5", "--faults",
                                 faulty ? "lost-update" : "none", "--fault-prob", "1", "--seed", sd,
                                 out, NULL),
                             0);
            psi_history *h = load(out);
            uint32_t in_range = 0, above = 0, init;
            for (uint32_t i = 0; i < h->n_ops; i++)
                if (h->ops[i].kind == PSI_OP_WRITE) {
                    assert_true(h->ops[i].value != 0);
                    in_range += h->ops[i].value <= 4;
                    above += h->ops[i].value > 4;
                }
            assert_true(in_range > 10 && above > 10);
            assert_int_equal(check_si(h, &init), faulty);
            psi_history_free(h);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_formats),
        cmocka_unit_test(test_json_real_time),
        cmocka_unit_test(test_options),
        cmocka_unit_test(test_bad_usage),
        cmocka_unit_test(test_summary_adds_up),
        cmocka_unit_test(test_abort_ratio_si_store),
        cmocka_unit_test(test_value_range_explicit_init),
        cmocka_unit_test(test_value_zipf_repeat_ratio),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
