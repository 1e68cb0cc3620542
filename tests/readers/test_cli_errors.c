/* Reader errors as a user meets them: `polysi-solve stats BAD` exits with 2
 * (the CLI's error category) and prints the reader's message, which names
 * the file and the place. Runs the program found in PSI_CLI. */
#include "rd_util.h"

#include <sys/wait.h>

static char *g_dir;

static int setup(void **state)
{
    (void)state;
    g_dir = rd_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rd_rmdir(g_dir);
    return 0;
}

/* Runs `$PSI_CLI stats PATH`, returns the exit code, output in out. */
static int run_stats(const char *path, char *out, size_t cap)
{
    const char *cli = getenv("PSI_CLI");
    if (!cli || access(cli, X_OK) != 0) {
        fprintf(stderr, "PSI_CLI not set or not runnable; CLI tests skipped\n");
        skip();
    }
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' stats '%s' 2>&1", cli, path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    assert_true(WIFEXITED(rc));
    return WEXITSTATUS(rc);
}

static void expect_exit2(const char *name, const void *bytes, size_t n, const char *place,
                         const char *what)
{
    char *path = n == (size_t)-1 ? NULL : rd_write(g_dir, name, bytes, n);
    char missing[1200];
    if (!path) {
        snprintf(missing, sizeof missing, "%s/%s", g_dir, name);
    }
    char out[4096];
    int code = run_stats(path ? path : missing, out, sizeof out);
    if (code != 2)
        fail_msg("%s: exit %d, expected 2: %s", name, code, out);
    char want[1400];
    snprintf(want, sizeof want, "%s/%s%s", g_dir, name, place);
    if (!strstr(out, want) || !strstr(out, what))
        fail_msg("%s: output lacks \"%s\" / \"%s\": %s", name, want, what, out);
    if (path) {
        unlink(path);
        free(path);
    }
}

static void test_text(void **state)
{
    (void)state;
    const char *bad = "w(1,1,1,1)\nr(1,x,1,1)\n";
    expect_exit2("bad.txt", bad, strlen(bad), ":2:5:", "expected a non-negative decimal VALUE");
    expect_exit2("empty.txt", "", 0, ":1:1:", "empty history");
    expect_exit2("missing.txt", NULL, (size_t)-1, ": cannot open", "No such file");
}

static void test_dbcop(void **state)
{
    (void)state;
    rd_bytes b = {0};
    for (int i = 0; i < 5; i++)
        rd_le64(&b, 0);
    rd_le64(&b, UINT64_C(1) << 62);
    expect_exit2("long.bincode", b.p, b.n, ": byte 40:", "runs past the end of the file");
    expect_exit2("empty.bincode", "", 0, ":1:1:", "empty history: the file is empty");
    rd_free(&b);
}

static void test_cobra(void **state)
{
    (void)state;
    const unsigned char bad[] = {'S', 0, 0, 0, 0, 0, 0, 0, 1, 'Z'};
    expect_exit2("T1.log", bad, sizeof bad, ": byte 9:", "unknown record tag 'Z'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_dbcop),
        cmocka_unit_test(test_cobra),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
