/* Verdicts on the real histories of ../shared/corpus (see its README):
 * every fig7 and fig8_9_10 history of the PolySI artifact is accepted under
 * SI, the fig8_9_10 ones under SER too; the three violations are rejected
 * under SI; the VeriStrong SER violations are rejected under SER; the 250
 * Galera histories get exactly the verdicts of expected.tsv. Every case
 * needs the corpus: the program is skipped (exit 77) without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "formats/read.h"
#include "support/corpus.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The corpus folder; main skips the whole program when it is absent. */
static const char *corpus_dir;

/* Checks one history; returns 0 accept, 1 reject, 2 error (printed). */
static int verdict(const char *path, bool ser)
{
    psi_diag d;
    psi_history *h;
    psi_read_opts ro = {0};
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK) {
        fprintf(stderr, "%s\n", d.msg);
        return 2;
    }
    psi_check_opts o = {.ser = ser};
    psi_check_result r;
    double t0 = psi_now();
    int v = 2;
    if (psi_check(h, &o, &r, &d) != PSI_OK)
        fprintf(stderr, "%s\n", d.msg);
    else
        v = r.verdict == PSI_ACCEPT ? 0 : 1;
    printf("  %-6s %s %s (%.2f s)\n",
           v == 0   ? "accept"
           : v == 1 ? "reject"
                    : "error",
           ser ? "SER" : "SI ", path, psi_now() - t0);
    /* With aborted attempts, again as the CLI checks (drop_aborted):
     * the same verdict for the same reason. */
    bool again = v != 2 && r.idx.n_aborted > 0;
    psi_reject_reason why = r.reason;
    psi_check_result_free(&r);
    if (again) {
        o.drop_aborted = true;
        if (psi_check(h, &o, &r, &d) != PSI_OK) {
            fprintf(stderr, "%s\n", d.msg);
            v = 2;
        } else if ((r.verdict == PSI_ACCEPT ? 0 : 1) != v || r.reason != why) {
            fprintf(stderr, "%s: %s after dropping %llu aborted operations\n", path,
                    r.verdict == PSI_ACCEPT ? "accept" : "reject",
                    (unsigned long long)r.stats.dropped_ops);
            v = 2;
        }
        psi_check_result_free(&r);
    }
    psi_history_free(h);
    return v;
}

/* Calls fn on the history inside every subdirectory of dir. */
static int for_each_history(const char *dir, bool ser, int want)
{
    DIR *dp = opendir(dir);
    assert_non_null(dp);
    struct dirent *de;
    int n = 0;
    while ((de = readdir(dp))) {
        if (de->d_name[0] == '.')
            continue;
        char p[4096], f[4200];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        snprintf(f, sizeof f, "%s/history.bincode", p);
        struct stat sb;
        const char *path = stat(f, &sb) == 0 ? f : p;
        int v = verdict(path, ser);
        if (v != want)
            fail_msg("%s under %s: got %d, want %d", path, ser ? "SER" : "SI", v, want);
        n++;
    }
    closedir(dp);
    return n;
}

static void test_polysi_artifact(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/polysi-artifact/fig7", c);
    assert_int_equal(for_each_history(dir, false, 0), 31);
    snprintf(dir, sizeof dir, "%s/polysi-artifact/fig8_9_10", c);
    assert_int_equal(for_each_history(dir, false, 0), 6);
    assert_int_equal(for_each_history(dir, true, 0), 6);
    static const char *violations[] = {"galera/galera.txt", "yugabyte/yugabyte.txt",
                                       "dgraph/history.bincode"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(dir, sizeof dir, "%s/polysi-artifact/violations/%s", c, violations[i]);
        assert_int_equal(verdict(dir, false), 1);
    }
}

static void test_veristrong_ser_violations(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/veristrong-artifact/ser-violations", c);
    assert_int_equal(for_each_history(dir, true, 1), 5);
}

static void test_galera_expected(void **state)
{
    (void)state;
    const char *c = corpus_dir;
    char tsv[4096];
    snprintf(tsv, sizeof tsv, "%s/veristrong-artifact/si-galera-all-writes/expected.tsv", c);
    FILE *f = fopen(tsv, "r");
    assert_non_null(f);
    char line[1024];
    int n = 0, rejects = 0;
    while (fgets(line, sizeof line, f)) {
        char rel[900], want[32];
        if (sscanf(line, "%899s %31s", rel, want) != 2)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/veristrong-artifact/si-galera-all-writes/%s", c, rel);
        int w = strcmp(want, "accept") == 0 ? 0 : 1;
        int v = verdict(path, false);
        if (v != w)
            fail_msg("%s: got %d, expected.tsv says %s", rel, v, want);
        n++;
        rejects += w;
    }
    fclose(f);
    assert_int_equal(n, 250);
    assert_int_equal(rejects, 233);
}

int main(void)
{
    corpus_dir = psi_corpus_or_skip("corpus verdicts");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_polysi_artifact),
        cmocka_unit_test(test_veristrong_ser_violations),
        cmocka_unit_test(test_galera_expected),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
