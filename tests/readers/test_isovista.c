/* IsoVista's text histories: PolySI's r(...)/w(...) lines where TXN -1
 * marks an aborted write (formats/read_text.c). Each -1 write becomes its
 * own aborted transaction; a read of its value is G1a, reported by the CLI
 * at the reading line:column; hostile variants (-2, -1 on a read, huge
 * ids) are errors at their column. The CLI cases run the program found in
 * PSI_CLI and skip loudly without it. */
#include "rd_util.h"

#include "formats/locate.h"

#include <sys/wait.h>

static psi_status rd(const char *text, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_text_buf("mem.txt", text, strlen(text), 0, h, d);
}

static void expect_error(const char *text, psi_status want, const char *place, const char *what)
{
    psi_history *h = NULL;
    psi_diag d;
    psi_status st = rd(text, &h, &d);
    assert_null(h);
    rd_expect(st, &d, want, place, what);
}

/* The aborted transactions of h, in order; returns how many. */
static uint32_t aborted_txns(const psi_history *h, uint32_t *out, uint32_t cap)
{
    uint32_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].status == PSI_TXN_ABORTED) {
            assert_true(n < cap);
            out[n++] = t;
        }
    return n;
}

/* Each -1 write is its own aborted transaction with one write, in its
 * line's session, src = its line, id = the next free id above the largest;
 * the committed transaction around it stays one contiguous transaction. */
static void test_aborted_writes_direct(void **state)
{
    (void)state;
    const char *text = "w(1,5,7,2)\n"
                       "w(2,6,7,-1)\n" /* inside txn 2's lines */
                       "r(1,5,7,2)\n"
                       "w(1,9,8,-1)\n"
                       "r(2,6,8,4)\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 5);
    assert_int_equal(rd_count_status(h, PSI_TXN_COMMITTED), 2);
    uint32_t ab[4];
    assert_int_equal(aborted_txns(h, ab, 4), 2);
    const psi_txn *a0 = &h->txns[ab[0]], *a1 = &h->txns[ab[1]];
    assert_int_equal(a0->n_ops, 1);
    assert_int_equal(a0->src, 2);
    assert_int_equal(a0->id, 5); /* largest TXN is 4 */
    assert_int_equal(h->sessions[a0->session].id, 7);
    const psi_op *w = psi_txn_ops(h, ab[0]);
    assert_int_equal(w->kind, PSI_OP_WRITE);
    assert_int_equal(h->keys[w->key], 2);
    assert_int_equal(w->value, 6);
    assert_int_equal(a1->src, 4);
    assert_int_equal(a1->id, 6);
    assert_int_equal(h->sessions[a1->session].id, 8);
    /* txn 2 kept both its lines around the -1 line */
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].id == 2)
            assert_int_equal(h->txns[t].n_ops, 2);
    psi_history_free(h);
}

/* The same in grouping mode (a TXN id comes back), and id allocation
 * wrapping around when UINT64_MAX is taken. */
static void test_aborted_writes_grouped(void **state)
{
    (void)state;
    const char *text = "w(1,5,3,18446744073709551615)\n"
                       "w(2,6,3,0)\n"
                       "w(3,7,3,-1)\n"
                       "r(1,5,3,18446744073709551615)\n"
                       "w(4,8,3,-1)\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 5);
    uint32_t ab[4];
    assert_int_equal(aborted_txns(h, ab, 4), 2);
    assert_int_equal(h->txns[ab[0]].id, 1); /* 0 and UINT64_MAX are taken */
    assert_int_equal(h->txns[ab[0]].src, 3);
    assert_int_equal(h->txns[ab[1]].id, 2);
    assert_int_equal(h->txns[ab[1]].src, 5);
    psi_history_free(h);
}

/* Sparse and huge session ids are interned densely; reports keep them. */
static void test_sparse_sessions(void **state)
{
    (void)state;
    const char *text = "w(1,1,18446744073709551615,1)\n"
                       "w(1,2,1000000000000,2)\n"
                       "w(1,3,18446744073709551615,-1)\n"
                       "r(1,2,0,3)\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_sessions, 3);
    assert_int_equal(h->sessions[0].id, 0);
    assert_int_equal(h->sessions[1].id, 1000000000000ull);
    assert_int_equal(h->sessions[2].id, UINT64_MAX);
    psi_history_free(h);
}

/* A file of aborted writes only is a (trivially valid) history. */
static void test_only_aborted(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd("w(1,1,0,-1)\nw(1,2,0,-1)\n", &h, &d), PSI_OK);
    assert_int_equal(rd_count_status(h, PSI_TXN_ABORTED), 2);
    assert_int_equal(h->txns[1].id, 0);
    assert_int_equal(h->txns[2].id, 1);
    psi_history_free(h);
}

static void test_hostile(void **state)
{
    (void)state;
    expect_error("w(1,1,1,1)\nw(1,2,1,-2)\n", PSI_ERR_SYNTAX, "mem.txt:2:9:", "negative TXN -2");
    expect_error("w(1,2,1, -10)\n", PSI_ERR_SYNTAX, "mem.txt:1:10:", "negative TXN -10");
    expect_error("w(1,2,1,-)\n", PSI_ERR_SYNTAX, "mem.txt:1:9:", "negative TXN -");
    expect_error("w(1,2,1,-1844674407370955161600000)\n", PSI_ERR_SYNTAX,
                 "mem.txt:1:9:", "negative TXN -18446744073709551616...");
    expect_error("w(1,1,1,1)\nr(1,1,2,-1)\n", PSI_ERR_INPUT, "mem.txt:2:9:", "TXN -1 on a read");
    expect_error("w(1,2,1,-1 1)\n", PSI_ERR_SYNTAX, "mem.txt:1:12:", "')' after TXN");
    expect_error("w(1,2,-1,-1)\n", PSI_ERR_SYNTAX, "mem.txt:1:7:", "SESSION");
    expect_error("w(1,2,1,-1)\nw(1,2,1,99999999999999999999)\n", PSI_ERR_SYNTAX,
                 "mem.txt:2:9:", "TXN does not fit in 64 bits");
}

/* ---- through the CLI ---- */

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

/* Writes text to g_dir/name, runs `$PSI_CLI CMD PATH`; returns the exit
 * code, the output (stdout and stderr) in out and the path in *path. */
static int run_cli(const char *cmd, const char *name, const char *text, char *out, size_t cap,
                   char **path)
{
    const char *cli = getenv("PSI_CLI");
    if (!cli || access(cli, X_OK) != 0) {
        fprintf(stderr, "PSI_CLI not set or not runnable; CLI tests skipped\n");
        skip();
    }
    *path = rd_write(g_dir, name, text, strlen(text));
    char line[4096];
    snprintf(line, sizeof line, "'%s' %s '%s' 2>&1", cli, cmd, *path);
    FILE *p = popen(line, "r");
    assert_non_null(p);
    size_t n = fread(out, 1, cap - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    assert_true(WIFEXITED(rc));
    return WEXITSTATUS(rc);
}

static void expect_in(const char *out, const char *path, const char *suffix)
{
    char want[1200];
    snprintf(want, sizeof want, "%s%s", path, suffix);
    if (!strstr(out, want))
        fail_msg("output lacks \"%s\": %s", want, out);
}

/* A committed read of an aborted write: exit 1, G1a at the read's place. */
static void test_cli_g1a(void **state)
{
    (void)state;
    const char *text = "# IsoVista-style history\n"
                       "w(1,10,4,1)\n"
                       "w(2,20,9,-1)\n"
                       "  r(2,20,4,2)\n"
                       "r(1,10,4,2)\n";
    char out[8192], *path;
    int code = run_cli("check", "g1a.txt", text, out, sizeof out, &path);
    if (code != 1)
        fail_msg("exit %d, expected 1: %s", code, out);
    if (!strstr(out, "G1a"))
        fail_msg("output lacks G1a: %s", out);
    expect_in(out, path, ":4:3");
    free(path);
}

/* An aborted write nobody reads changes nothing: accepted. */
static void test_cli_unread_aborted(void **state)
{
    (void)state;
    const char *text = "w(1,10,4,1)\n"
                       "w(2,20,9,-1)\n"
                       "r(2,0,4,2)\n"
                       "r(1,10,4,2)\n";
    char out[8192], *path;
    int code = run_cli("check", "unread.txt", text, out, sizeof out, &path);
    if (code != 0)
        fail_msg("exit %d, expected 0: %s", code, out);
    free(path);
}

/* locate.c finds an aborted write at its own -1 line, and a read of it. */
static void test_locate_aborted(void **state)
{
    (void)state;
    const char *text = "w(1,10,4,1)\n"
                       "w(2,20,4,2)\n"
                       "\tw(2,30,4,-1)\n"
                       "w(2,31,4,-1)\n"
                       "r(2,31,4,2)\n";
    char *path = rd_write(g_dir, "locate.txt", text, strlen(text));
    psi_history *h;
    psi_diag d;
    assert_int_equal(psi_read_history(path, NULL, &h, &d), PSI_OK);
    uint32_t ab[4];
    assert_int_equal(aborted_txns(h, ab, 4), 2);
    uint32_t ops[3] = {h->txns[ab[0]].first_op, h->txns[ab[1]].first_op, 0};
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].id == 2)
            ops[2] = h->txns[t].first_op + 1;
    psi_place pl[3];
    assert_int_equal(psi_locate_ops(h, ops, 3, pl, &d), PSI_OK);
    static const uint64_t want[3][2] = {{3, 2}, {4, 1}, {5, 1}};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pl[i].where, PSI_AT_LINE);
        assert_true(pl[i].exact);
        assert_int_equal(pl[i].line, want[i][0]);
        assert_int_equal(pl[i].col, want[i][1]);
    }
    psi_places_free(pl, 3);
    psi_history_free(h);
    free(path);
}

static void test_cli_hostile(void **state)
{
    (void)state;
    static const struct {
        const char *cmd, *name, *text, *place, *what;
    } cases[] = {
        {"stats", "minus2.txt", "w(1,10,4,1)\nw(2,20,9,-2)\n", ":2:10:", "negative TXN -2"},
        {"stats", "readm1.txt", "w(1,10,4,1)\nr(1,10,4,-1)\n", ":2:10:", "TXN -1 on a read"},
        {"stats", "hugetxn.txt", "w(1,10,4,-1)\nw(1,11,4,18446744073709551616)\n",
         ":2:10:", "TXN does not fit in 64 bits"},
        {"stats", "hugesess.txt", "w(1,10,18446744073709551616,-1)\n",
         ":1:8:", "SESSION does not fit in 64 bits"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char out[8192], *path;
        int code = run_cli(cases[i].cmd, cases[i].name, cases[i].text, out, sizeof out, &path);
        if (code != 2 || !strstr(out, cases[i].what))
            fail_msg("%s: exit %d (expected 2 and \"%s\"): %s", cases[i].name, code, cases[i].what,
                     out);
        expect_in(out, path, cases[i].place);
        free(path);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_aborted_writes_direct),
        cmocka_unit_test(test_aborted_writes_grouped),
        cmocka_unit_test(test_sparse_sessions),
        cmocka_unit_test(test_only_aborted),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_locate_aborted),
        cmocka_unit_test(test_cli_g1a),
        cmocka_unit_test(test_cli_unread_aborted),
        cmocka_unit_test(test_cli_hostile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
