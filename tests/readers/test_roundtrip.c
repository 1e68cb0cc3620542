/* Writers and round trips.
 *
 * What "preserved" means, exactly:
 *  - text -> text: the same history, ids included (same sessions with their
 *    ids, same transactions with their ids, order and status, same ops).
 *  - text -> dbcop -> text: dbcop stores no ids, so the dbcop reader numbers
 *    sessions 1..N and transactions 1..T in file order. The history keeps
 *    its structure (session i has the same transactions in the same order,
 *    each with the same operations: kind, external key, value, initial-read
 *    flag, and the same status), checked op by op; and the text written
 *    from it is the canonical text of that structure, checked byte for
 *    byte against the expected canonical form. Canonical text is a fixed
 *    point: canonical -> dbcop -> text gives the identical bytes.
 *  - dbcop -> dbcop: byte-identical when every event succeeded (events
 *    with success 0 are dropped on reading), header included.
 * Also: what each writer refuses (a history a check took aborted
 * operations out of included), and I/O errors (ENOSPC via /dev/full).
 * The one case on a corpus file runs as its own CTest test (argument
 * `corpus`, test readers_roundtrip_corpus), skipped when the corpus is
 * absent. */
#include "rd_util.h"

#include "core/history.h"
#include "core/index.h"
#include "support/corpus.h"

#include <errno.h>

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

static char *tmp_path(const char *name)
{
    size_t n = strlen(g_dir) + strlen(name) + 2;
    char *p = malloc(n);
    assert_non_null(p);
    snprintf(p, n, "%s/%s", g_dir, name);
    return p;
}

static psi_history *read_text(const char *text)
{
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_read_text_buf("mem.txt", text, strlen(text), 0, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

static psi_history *read_path(const char *path)
{
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_read_history(path, NULL, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

static void write_ok(psi_status (*wr)(const psi_history *, const char *, psi_diag *),
                     const psi_history *h, const char *path)
{
    psi_diag d;
    psi_diag_clear(&d);
    if (wr(h, path, &d) != PSI_OK)
        fail_msg("%s", d.msg);
}

static char *slurp_text(const char *path)
{
    size_t n;
    return (char *)rd_slurp(path, &n);
}

/* Interleaved lines, unordered ids, sessions out of order, initial reads. */
static const char *const k_text = "w(10,1,9,500)\n"
                                  "r(11,0,4,70)\n"
                                  "w(11,3,9,500)\n"
                                  "r(10,1,4,70)\n"
                                  "w(10,2,4,71)\n"
                                  "r(10,2,9,3)\n";

/* The same history as dbcop numbers it: sessions 4 -> 1, 9 -> 2; txns 70,
 * 71 -> 1, 2; 500, 3 -> 3, 4. */
static const char *const k_canonical = "r(11,0,1,1)\n"
                                       "r(10,1,1,1)\n"
                                       "w(10,2,1,2)\n"
                                       "w(10,1,2,3)\n"
                                       "w(11,3,2,3)\n"
                                       "r(10,2,2,4)\n";

/* Leftover temporary files (name.tmp<pid>.<n>) in the test directory. */
static int count_tmp_files(void)
{
    int n = 0;
    DIR *dh = opendir(g_dir);
    assert_non_null(dh);
    struct dirent *e;
    while ((e = readdir(dh)) != NULL)
        n += strstr(e->d_name, ".tmp") != NULL;
    closedir(dh);
    return n;
}

static void test_text_to_text(void **state)
{
    (void)state;
    psi_history *h1 = read_text(k_text);
    char *p = tmp_path("a.txt");
    write_ok(psi_write_text, h1, p);
    psi_history *h2 = read_path(p);
    rd_assert_same(h1, h2, true);
    /* written through a temporary file, renamed: nothing left over, and
     * the mode is what the umask gives a new file */
    assert_int_equal(count_tmp_files(), 0);
    mode_t mask = umask(0);
    umask(mask);
    struct stat sb;
    assert_int_equal(stat(p, &sb), 0);
    assert_int_equal(sb.st_mode & 0777, 0666 & ~mask);
    psi_history_free(h1);
    psi_history_free(h2);
    free(p);
}

static void test_text_dbcop_text(void **state)
{
    (void)state;
    psi_history *h1 = read_text(k_text);
    char *pd = tmp_path("b.bincode"), *pt = tmp_path("b.txt"), *pd2 = tmp_path("b2.bincode");
    write_ok(psi_write_dbcop, h1, pd);
    psi_history *h2 = read_path(pd);
    assert_int_equal(h2->format, PSI_FMT_DBCOP);
    rd_assert_same(h1, h2, false);
    /* made-up header */
    assert_string_equal(h2->dbcop.info, "polysi-solve");
    assert_int_equal(h2->dbcop.n_sessions, 2);
    assert_int_equal(h2->dbcop.n_vars, 2);
    assert_int_equal(h2->dbcop.n_txns, 2);
    assert_int_equal(h2->dbcop.n_evts, 2);

    write_ok(psi_write_text, h2, pt);
    char *t2 = slurp_text(pt);
    assert_string_equal(t2, k_canonical);

    /* canonical text is a fixed point, and the dbcop bytes are too */
    psi_history *h3 = read_text(t2);
    rd_assert_same(h2, h3, true);
    write_ok(psi_write_dbcop, h3, pd2);
    size_t n1, n2;
    unsigned char *d1 = rd_slurp(pd, &n1), *d2 = rd_slurp(pd2, &n2);
    /* h1 and h3 were read from text: both dbcop files carry a made-up
     * header computed from the (identical) structure */
    psi_history *h4 = read_path(pd2);
    rd_assert_same(h2, h4, true);
    assert_string_equal(h4->dbcop.info, "polysi-solve");
    assert_int_equal(n1, n2);
    assert_memory_equal(d1, d2, n1);

    free(d1);
    free(d2);
    free(t2);
    psi_history_free(h1);
    psi_history_free(h2);
    psi_history_free(h3);
    psi_history_free(h4);
    free(pd);
    free(pt);
    free(pd2);
}

/* Builds a history by hand (for things readers never produce). */
static psi_history *build(unsigned flags, uint64_t wvalue, psi_txn_status status)
{
    psi_diag d;
    psi_builder *b = psi_builder_new("built", PSI_FMT_EDN);
    assert_non_null(b);
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 5, wvalue, flags, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 2, 2, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 5, 0, PSI_OPF_INIT, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, status, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

static void test_refusals(void **state)
{
    (void)state;
    char *p = tmp_path("refused.txt");
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h = build(0, 0, PSI_TXN_COMMITTED);
    rd_expect(psi_write_text(h, p, &d), &d, PSI_ERR_INPUT, p, "writes value 0 to key 5");
    rd_expect(psi_write_dbcop(h, p, &d), &d, PSI_ERR_INPUT, p, "writes value 0 to key 5");
    psi_history_free(h);
    h = build(PSI_OPF_APPEND, 3, PSI_TXN_COMMITTED);
    rd_expect(psi_write_text(h, p, &d), &d, PSI_ERR_INPUT, "list-append operation on key 5");
    rd_expect(psi_write_dbcop(h, p, &d), &d, PSI_ERR_INPUT, "list-append operation on key 5");
    psi_history_free(h);
    h = build(0, 3, PSI_TXN_ABORTED);
    rd_expect(psi_write_text(h, p, &d), &d, PSI_ERR_INPUT, "transaction 2 (session 2) is aborted");
    /* dbcop can say "aborted" */
    write_ok(psi_write_dbcop, h, p);
    psi_history *h2 = read_path(p);
    rd_assert_same(h, h2, false);
    assert_int_equal(h2->txns[2].status, PSI_TXN_ABORTED);
    psi_history_free(h2);
    psi_history_free(h);
    h = build(0, 3, PSI_TXN_UNKNOWN);
    rd_expect(psi_write_text(h, p, &d), &d, PSI_ERR_INPUT, "is of unknown outcome");
    rd_expect(psi_write_dbcop(h, p, &d), &d, PSI_ERR_INPUT, "is of unknown outcome");
    psi_history_free(h);
    /* a refused write leaves the previous file untouched and no temp files */
    assert_int_equal(count_tmp_files(), 0);
    h2 = read_path(p);
    assert_int_equal(h2->txns[2].status, PSI_TXN_ABORTED);
    psi_history_free(h2);
    free(p);
}

/* After psi_index_drop_aborted (what `check` does once validation has
 * seen the aborted attempts), the history is no longer its input: every
 * writer refuses it rather than write aborted transactions emptied. The
 * same history is written as read before the drop. */
static void test_refuses_dropped(void **state)
{
    (void)state;
    psi_history *h = read_text("w(1,5,1,1)\nw(1,6,1,-1)\nr(1,5,2,2)\n");
    char *p = tmp_path("dropped.bincode");
    write_ok(psi_write_dbcop, h, p);
    write_ok(psi_write_text, h, p);
    write_ok(psi_write_edn, h, p);
    psi_index idx;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    uint64_t dropped = 0;
    assert_int_equal(psi_index_drop_aborted(h, &idx, &dropped, &d), PSI_OK);
    assert_int_equal(dropped, 1);
    const char *why = "1 operation of aborted transactions was dropped";
    rd_expect(psi_write_text(h, p, &d), &d, PSI_ERR_INPUT, p, why);
    rd_expect(psi_write_dbcop(h, p, &d), &d, PSI_ERR_INPUT, p, why);
    rd_expect(psi_write_edn(h, p, &d), &d, PSI_ERR_INPUT, p, why);
    rd_expect(psi_write_json(h, p, &d), &d, PSI_ERR_INPUT, p, why);
    assert_int_equal(count_tmp_files(), 0);
    /* the file written before the drop is still the one there */
    psi_history *h2 = read_path(p);
    assert_int_equal(h2->n_ops, 3);
    psi_history_free(h2);
    psi_index_free(&idx);
    psi_history_free(h);
    free(p);
}

static void test_io_errors(void **state)
{
    (void)state;
    psi_history *h = read_text(k_text);
    psi_diag d;
    psi_diag_clear(&d);
    rd_expect(psi_write_text(h, "/nonexistent-dir/x.txt", &d), &d, PSI_ERR_IO,
              "/nonexistent-dir/x.txt", "No such file or directory");
    rd_expect(psi_write_dbcop(h, g_dir, &d), &d, PSI_ERR_IO, g_dir, "Is a directory");
    if (access("/dev/full", W_OK) == 0) {
        rd_expect(psi_write_text(h, "/dev/full", &d), &d, PSI_ERR_IO, "/dev/full",
                  strerror(ENOSPC));
        rd_expect(psi_write_dbcop(h, "/dev/full", &d), &d, PSI_ERR_IO, "/dev/full",
                  strerror(ENOSPC));
    }
    if (access("/dev/null", W_OK) == 0) {
        write_ok(psi_write_text, h, "/dev/null");
        write_ok(psi_write_dbcop, h, "/dev/null");
    }
    psi_history_free(h);
}

/* A real dbcop file (every event succeeded) is written back byte for byte. */
static void test_corpus_dbcop_bytes(void **state)
{
    (void)state;
    char src[1024];
    snprintf(src, sizeof src, "%s/polysi-artifact/fig7/5_100_15_10000_0.5_uniform/history.bincode",
             psi_corpus());
    if (access(src, R_OK) != 0)
        fail_msg("corpus file %s is missing", src);
    psi_history *h = read_path(src);
    char *p = tmp_path("copy.bincode");
    write_ok(psi_write_dbcop, h, p);
    size_t n1, n2;
    unsigned char *a = rd_slurp(src, &n1), *b = rd_slurp(p, &n2);
    assert_int_equal(n1, n2);
    assert_memory_equal(a, b, n1);
    /* and through text: same structure, canonical ids */
    char *pt = tmp_path("copy.txt");
    write_ok(psi_write_text, h, pt);
    psi_history *ht = read_path(pt);
    rd_assert_same(h, ht, true);
    free(a);
    free(b);
    free(p);
    free(pt);
    psi_history_free(h);
    psi_history_free(ht);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "corpus") == 0) {
        psi_corpus_or_skip("dbcop round trip of a corpus history");
        const struct CMUnitTest corpus_tests[] = {
            cmocka_unit_test(test_corpus_dbcop_bytes),
        };
        return cmocka_run_group_tests(corpus_tests, setup, teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_to_text), cmocka_unit_test(test_text_dbcop_text),
        cmocka_unit_test(test_refusals),     cmocka_unit_test(test_refuses_dropped),
        cmocka_unit_test(test_io_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
