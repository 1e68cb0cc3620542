/* psi_detect_format and the dispatch of psi_read_history: directories are
 * Cobra; content decides (EDN '{'/'[', text r( w( #, NUL bytes = binary);
 * the extension decides only what content cannot (empty files, a single
 * binary .log); I/O errors name the path. */
#include "rd_util.h"

#include "formats/write.h"

#include <fcntl.h>
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

static void expect_format(const char *name, const void *bytes, size_t n, psi_format want)
{
    char *p = rd_write(g_dir, name, bytes, n);
    psi_format f = PSI_FMT_AUTO;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_detect_format(p, &f, &d), PSI_OK);
    if (f != want)
        fail_msg("%s: detected %s, expected %s", name, psi_format_name(f), psi_format_name(want));
    unlink(p);
    free(p);
}

static void test_by_content(void **state)
{
    (void)state;
    const char *edn = "{:type :ok, :f :txn, :value [[:r 1 nil]], :process 0}\n";
    expect_format("a", edn, strlen(edn), PSI_FMT_EDN);
    expect_format("a.txt", edn, strlen(edn), PSI_FMT_EDN); /* content wins */
    expect_format("a", "\n  [1 2]", 8, PSI_FMT_EDN);
    expect_format("a", "r(1,0,1,1)\n", 11, PSI_FMT_TEXT);
    expect_format("a.edn", "  w (1,1,1,1)\n", 14, PSI_FMT_TEXT);
    expect_format("a", "# comment\n", 10, PSI_FMT_TEXT);
    expect_format("a", "#comment{x}\n", 12, PSI_FMT_EDN); /* a tagged literal */
    const char *tagged = "#jepsen.history.Op{:type :ok, :f :txn, :value [], :process 0}\n";
    expect_format("a", tagged, strlen(tagged), PSI_FMT_EDN);
    expect_format("a", "#w(1,1,1,1)\n", 12, PSI_FMT_TEXT); /* a commented-out line */
    expect_format("a", "\xef\xbb\xbfr(1,0,1,1)\n", 14, PSI_FMT_TEXT);
    /* binary: dbcop, whatever the name, except a .log (one Cobra log) */
    static const unsigned char dbcop[16] = {0, 0, 0, 0, 0, 0, 0, 0, 5};
    expect_format("history.bincode", dbcop, sizeof dbcop, PSI_FMT_DBCOP);
    expect_format("h.txt", dbcop, sizeof dbcop, PSI_FMT_DBCOP);
    expect_format("noext", dbcop, sizeof dbcop, PSI_FMT_DBCOP);
    static const unsigned char cobra[9] = {'S', 0, 0, 0, 0, 0, 0, 0, 1};
    expect_format("T3.log", cobra, sizeof cobra, PSI_FMT_COBRA);
    /* a file that starts with 'r' but is not text of a known shape */
    expect_format("x.txt", "random words", 12, PSI_FMT_TEXT);
    /* without an extension, text of no known shape is text (dbcop always has
     * NUL bytes): its reader reports the typo's line:column */
    expect_format("x", "random words", 12, PSI_FMT_TEXT);
}

static void test_by_extension(void **state)
{
    (void)state;
    expect_format("e.txt", "", 0, PSI_FMT_TEXT);
    expect_format("e.edn", "", 0, PSI_FMT_EDN);
    expect_format("e.bincode", "", 0, PSI_FMT_DBCOP);
    expect_format("e.log", "", 0, PSI_FMT_COBRA);
    expect_format("e", "", 0, PSI_FMT_DBCOP);
    expect_format("b.txt", " \n\n", 3, PSI_FMT_TEXT);
}

static void test_directory_and_missing(void **state)
{
    (void)state;
    psi_format f;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_detect_format(g_dir, &f, &d), PSI_OK);
    assert_int_equal(f, PSI_FMT_COBRA);
    char missing[1200];
    snprintf(missing, sizeof missing, "%s/missing", g_dir);
    rd_expect(psi_detect_format(missing, &f, &d), &d, PSI_ERR_IO, missing,
              "No such file or directory");
    /* an empty directory and one with only an empty log */
    psi_history *h;
    rd_expect(psi_read_history(g_dir, NULL, &h, &d), &d, PSI_ERR_INPUT, g_dir,
              "no Cobra session logs");
    char *p = rd_write(g_dir, "T1.log", "", 0);
    rd_expect(psi_read_history(g_dir, NULL, &h, &d), &d, PSI_ERR_INPUT, g_dir,
              "empty history: no transaction in its 1 Cobra log");
    unlink(p);
    free(p);
}

/* A single Cobra log file, by extension or by the format option; the
 * session id comes from its name. */
static void test_single_cobra_file(void **state)
{
    (void)state;
    rd_bytes b = {0};
    rd_u8(&b, 'S');
    rd_be64(&b, 9);
    rd_u8(&b, 'W');
    rd_be64(&b, 1);
    rd_be64(&b, 2);
    rd_be64(&b, 3);
    rd_u8(&b, 'C');
    rd_be64(&b, 9);
    char *p = rd_write(g_dir, "T4.log", b.p, b.n);
    char *q = rd_write(g_dir, "session.bin", b.p, b.n);
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(p, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_COBRA);
    assert_int_equal(h->sessions[0].id, 4);
    assert_int_equal(h->txns[1].id, 9);
    psi_history_free(h);
    psi_read_opts o = {.format = PSI_FMT_COBRA};
    assert_int_equal(psi_read_history(q, &o, &h, &d), PSI_OK);
    assert_int_equal(h->sessions[0].id, 0);
    psi_history_free(h);
    /* the wrong format forced: the dbcop reader reports where it fails */
    o.format = PSI_FMT_DBCOP;
    rd_expect(psi_read_history(q, &o, &h, &d), &d, PSI_ERR_SYNTAX, "session.bin: byte ");
    unlink(p);
    unlink(q);
    free(p);
    free(q);
    rd_free(&b);
}

static void test_read_file(void **state)
{
    (void)state;
    char *p = rd_write(g_dir, "f", "abc", 3);
    char *buf;
    size_t len;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_file(p, &buf, &len, &d), PSI_OK);
    assert_int_equal(len, 3);
    assert_string_equal(buf, "abc"); /* NUL-terminated */
    free(buf);
    rd_expect(psi_read_file(g_dir, &buf, &len, &d), &d, PSI_ERR_IO, g_dir, "Is a directory");
    assert_null(buf);
    unlink(p);
    free(p);
}

/* Files whose size is not known up front: /proc files report 0, a FIFO
 * has none. The whole content must still arrive, and detection must not
 * consume what the reader needs. */
static void test_unsized_inputs(void **state)
{
    (void)state;
    char *buf;
    size_t len;
    psi_diag d;
    psi_diag_clear(&d);
    if (access("/proc/self/status", R_OK) == 0) {
        assert_int_equal(psi_read_file("/proc/self/status", &buf, &len, &d), PSI_OK);
        assert_true(len > 0);
        assert_non_null(strstr(buf, "Name:"));
        free(buf);
    }
    char fifo[1200];
    snprintf(fifo, sizeof fifo, "%s/fifo", g_dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    /* more than one detection sample and one read buffer's worth */
    enum { LINES = 20000 };
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen(fifo, "w");
        if (!f)
            _exit(1);
        for (int i = 1; i <= LINES; i++)
            fprintf(f, "w(%d,%d,1,%d)\n", i, i, i);
        _exit(fclose(f) == 0 ? 0 : 1);
    }
    psi_history *h;
    psi_status st = psi_read_history(fifo, NULL, &h, &d);
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(h->format, PSI_FMT_TEXT);
    assert_int_equal(h->n_ops, LINES);
    psi_history_free(h);
    unlink(fifo);
}

/* What detection saw, said plainly: an empty or blank file is an empty
 * history (not a dbcop header error); a text file with a typo on its first
 * line is read as text (line:column); a directory with history.bincode and
 * no T<n>.log is dbcop, with a note. */
static void test_says_what_it_saw(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    char *p = rd_write(g_dir, "empty", "", 0);
    rd_expect(psi_read_history(p, NULL, &h, &d), &d, PSI_ERR_INPUT, p,
              "empty history: the file is empty");
    unlink(p);
    free(p);
    p = rd_write(g_dir, "blank.bincode", "\xef\xbb\xbf \n\t\n", 6);
    rd_expect(psi_read_history(p, NULL, &h, &d), &d, PSI_ERR_INPUT, p,
              "empty history: the file holds only whitespace");
    unlink(p);
    free(p);
    p = rd_write(g_dir, "typo", "R(1,0,1,1)\n", 11);
    rd_expect(psi_read_history(p, NULL, &h, &d), &d, PSI_ERR_SYNTAX, "typo:1:1: ", "found 'R'");
    unlink(p);
    free(p);

    /* a dbcop run's folder */
    char sub[1200];
    snprintf(sub, sizeof sub, "%s/run", g_dir);
    assert_int_equal(mkdir(sub, 0700), 0);
    char *txt = rd_write(g_dir, "h.txt", "w(1,1,1,1)\nr(1,1,2,2)\n", 22);
    psi_history *src;
    assert_int_equal(psi_read_history(txt, NULL, &src, &d), PSI_OK);
    char bin[1300];
    snprintf(bin, sizeof bin, "%s/history.bincode", sub);
    assert_int_equal(psi_write_dbcop(src, bin, &d), PSI_OK);
    assert_int_equal(psi_read_history(sub, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_DBCOP);
    assert_non_null(h->note);
    assert_non_null(strstr(h->note, "read its history.bincode as dbcop"));
    assert_int_equal(h->n_ops, src->n_ops);
    psi_history_free(h);
    psi_read_opts o = {.format = PSI_FMT_DBCOP}; /* asked for: no note */
    assert_int_equal(psi_read_history(sub, &o, &h, &d), PSI_OK);
    assert_null(h->note);
    psi_history_free(h);
    /* a Cobra log beside it wins: the directory is Cobra's */
    char *log = rd_write(sub, "T1.log", "", 0);
    rd_expect(psi_read_history(sub, NULL, &h, &d), &d, PSI_ERR_INPUT, "Cobra log");
    unlink(log);
    free(log);
    unlink(bin);
    rd_expect(psi_read_history(sub, &o, &h, &d), &d, PSI_ERR_INPUT, sub, "needs a history.bincode");
    rmdir(sub);
    unlink(txt);
    free(txt);
    psi_history_free(src);
}

/* PATH "-" is standard input; the format comes from its bytes. */
static void test_stdin(void **state)
{
    (void)state;
    const char *edn = "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n";
    char *p = rd_write(g_dir, "in", edn, strlen(edn));
    int saved = dup(STDIN_FILENO);
    assert_true(saved >= 0);
    int fd = open(p, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_read_history("-", NULL, &h, &d);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(h->format, PSI_FMT_EDN);
    assert_int_equal(h->n_ops, 1);
    psi_history_free(h);
    /* errors name it */
    fd = open("/dev/null", O_RDONLY);
    saved = dup(STDIN_FILENO);
    assert_int_equal(dup2(fd, STDIN_FILENO), STDIN_FILENO);
    close(fd);
    st = psi_read_history("-", NULL, &h, &d);
    assert_int_equal(dup2(saved, STDIN_FILENO), STDIN_FILENO);
    close(saved);
    rd_expect(st, &d, PSI_ERR_INPUT, "<stdin>", "empty history");
    unlink(p);
    free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_content),
        cmocka_unit_test(test_by_extension),
        cmocka_unit_test(test_directory_and_missing),
        cmocka_unit_test(test_single_cobra_file),
        cmocka_unit_test(test_read_file),
        cmocka_unit_test(test_unsized_inputs),
        cmocka_unit_test(test_says_what_it_saw),
        cmocka_unit_test(test_stdin),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
