/* The dbcop bincode reader: model mapping (sequential ids, skipped events,
 * aborted transactions, header) and every diagnostic naming the byte
 * offset. Inputs are built in memory. */
#include "rd_util.h"

#include <sys/wait.h>

static void header(rd_bytes *b, const char *info)
{
    rd_le64(b, 7);  /* id */
    rd_le64(b, 2);  /* sessions */
    rd_le64(b, 10); /* keys */
    rd_le64(b, 2);  /* txns per session */
    rd_le64(b, 3);  /* events per txn */
    const char *s[3] = {info, "t0", "t1"};
    for (int i = 0; i < 3; i++) {
        rd_le64(b, strlen(s[i]));
        rd_put(b, s[i], strlen(s[i]));
    }
}

static void event(rd_bytes *b, int is_write, uint64_t key, uint64_t value, int ok)
{
    rd_u8(b, (unsigned)is_write);
    rd_le64(b, key);
    rd_le64(b, value);
    rd_u8(b, (unsigned)ok);
}

/* The small history used throughout; offsets of interesting bytes are noted
 * in `at` (see below). */
typedef struct sample_at {
    size_t sessions, s1_count, t1_count, t1_ev0, t1_ev1, t1_ok, t3_ok, end;
} sample_at;

static void sample(rd_bytes *b, sample_at *at)
{
    header(b, "PostgreSQL");
    at->sessions = b->n;
    rd_le64(b, 2);
    at->s1_count = b->n;
    rd_le64(b, 2); /* session 1: two transactions */
    at->t1_count = b->n;
    rd_le64(b, 3);
    at->t1_ev0 = b->n;
    event(b, 1, 1, 11, 1); /* w(1,11) */
    at->t1_ev1 = b->n;
    event(b, 0, 2, 0, 1);  /* r(2,init) */
    event(b, 1, 3, 99, 0); /* did not happen */
    at->t1_ok = b->n;
    rd_u8(b, 1);
    rd_le64(b, 1);
    event(b, 0, 1, 11, 1); /* r(1,11) */
    rd_u8(b, 1);
    rd_le64(b, 1); /* session 2: one aborted transaction */
    rd_le64(b, 2);
    event(b, 1, 1, 12, 1);
    event(b, 0, 2, 0, 1);
    at->t3_ok = b->n;
    rd_u8(b, 0);
    at->end = b->n;
}

static psi_status rd(const rd_bytes *b, size_t len, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_dbcop_buf("mem.bincode", b->p, len, 0, h, d);
}

static void test_sample(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(&b, b.n, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_DBCOP);
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->sessions[0].id, 1);
    assert_int_equal(h->sessions[1].id, 2);
    assert_int_equal(h->n_txns, 4);
    /* global sequential transaction ids in file order */
    assert_int_equal(h->txns[1].id, 1);
    assert_int_equal(h->txns[2].id, 2);
    assert_int_equal(h->txns[3].id, 3);
    assert_int_equal(h->txns[1].src, at.t1_count);
    assert_int_equal(h->txns[1].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[3].status, PSI_TXN_ABORTED);
    /* the failed event is skipped */
    assert_int_equal(h->txns[1].n_ops, 2);
    assert_int_equal(h->n_ops, 5);
    const psi_op *o = psi_txn_ops(h, 1);
    assert_int_equal(o[0].kind, PSI_OP_WRITE);
    assert_int_equal(h->keys[o[0].key], 1);
    assert_int_equal(o[0].value, 11);
    assert_int_equal(o[1].kind, PSI_OP_READ);
    assert_true(o[1].flags & PSI_OPF_INIT);
    assert_false(psi_txn_ops(h, 2)[0].flags & PSI_OPF_INIT);
    /* header kept */
    assert_int_equal(h->dbcop.id, 7);
    assert_int_equal(h->dbcop.n_sessions, 2);
    assert_int_equal(h->dbcop.n_vars, 10);
    assert_int_equal(h->dbcop.n_txns, 2);
    assert_int_equal(h->dbcop.n_evts, 3);
    assert_string_equal(h->dbcop.info, "PostgreSQL");
    assert_string_equal(h->dbcop.start, "t0");
    assert_string_equal(h->dbcop.end, "t1");
    psi_history_free(h);
    rd_free(&b);
}

static void expect_err(const rd_bytes *b, size_t len, psi_status want, size_t offset,
                       const char *what)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    char place[64];
    snprintf(place, sizeof place, "mem.bincode: byte %zu:", offset);
    rd_expect(rd(b, len, &h, &d), &d, want, place, what);
    assert_null(h);
}

/* Every proper prefix of a valid file is a truncated file, reported with an
 * offset inside the file. */
static void test_every_truncation(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    for (size_t len = 0; len < b.n; len++) {
        psi_history *h = (psi_history *)1;
        psi_diag d;
        psi_status st = rd(&b, len, &h, &d);
        if (st != PSI_ERR_SYNTAX)
            fail_msg("prefix of %zu bytes: %s: %s", len, psi_status_name(st), d.msg);
        assert_null(h);
        assert_non_null(strstr(d.msg, "mem.bincode: byte "));
        unsigned long long off = strtoull(strstr(d.msg, "byte ") + 5, NULL, 10);
        assert_true(off <= len);
        assert_true(strstr(d.msg, "truncated") || strstr(d.msg, "runs past the end"));
    }
    expect_err(&b, 0, PSI_ERR_SYNTAX, 0, "truncated file: header id expected");
    expect_err(&b, 5, PSI_ERR_SYNTAX, 0, "only 5 bytes left");
    expect_err(&b, at.t1_ok, PSI_ERR_SYNTAX, at.t1_count, "event count 3 runs past the end");
    expect_err(&b, at.end - 1, PSI_ERR_SYNTAX, at.t3_ok - 36 - 8, "event count 2 runs past");
    rd_free(&b);
}

static void test_hostile_lengths(void **state)
{
    (void)state;
    const uint64_t huge = UINT64_C(1) << 63;
    /* info string length */
    rd_bytes b = {0};
    for (int i = 0; i < 5; i++)
        rd_le64(&b, 1);
    rd_le64(&b, huge);
    rd_put(&b, "abc", 3);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 40, "info string length 9223372036854775808 runs past");
    rd_free(&b);
    /* end string length just one too long */
    header(&b, "x");
    size_t end_at = b.n - 2 - 8;
    b.n = end_at;
    rd_le64(&b, 3);
    rd_put(&b, "t1", 2);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, end_at, "end time string length 3 runs past");
    rd_free(&b);

    sample_at at;
    sample(&b, &at);
    unsigned char *p = b.p;
    unsigned char save[8];
    memcpy(save, p + at.sessions, 8);
    for (int i = 0; i < 8; i++)
        p[at.sessions + i] = 0xff;
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.sessions,
               "session count 18446744073709551615 runs past the end");
    memcpy(p + at.sessions, save, 8);
    memcpy(save, p + at.s1_count, 8);
    for (int i = 0; i < 8; i++)
        p[at.s1_count + i] = (unsigned char)(huge >> (8 * i));
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.s1_count, "transaction count 9223372036854775808");
    memcpy(p + at.s1_count, save, 8);
    p[at.t1_count] = 200;
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.t1_count, "event count 200 runs past the end");
    rd_free(&b);
}

static void test_booleans(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    b.p[at.t1_ev1] = 2;
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.t1_ev1, "is_write flag is 2; a boolean must be 0 or 1");
    b.p[at.t1_ev1] = 0;
    b.p[at.t1_ev0 + 17] = 0xff;
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.t1_ev0 + 17, "success flag is 255");
    b.p[at.t1_ev0 + 17] = 1;
    b.p[at.t3_ok] = 7;
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.t3_ok, "transaction success flag is 7");
    rd_free(&b);
}

static void test_trailing_garbage(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    rd_put(&b, "xyz", 3);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, at.end, "3 unexpected bytes after the last session");
    rd_free(&b);
}

static void test_write_of_zero(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    memset(b.p + at.t1_ev0 + 9, 0, 8); /* w(1, 0): writes the initial value again */
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(&b, b.n, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 5);
    psi_history_free(h);
    /* a failed write of 0 did not happen */
    b.p[at.t1_ev0 + 17] = 0;
    assert_int_equal(rd(&b, b.n, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 4);
    psi_history_free(h);
    rd_free(&b);
}

static void test_max_ops_and_empty_body(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    rd_expect(psi_read_dbcop_buf("mem.bincode", b.p, b.n, 4, &h, &d), &d, PSI_ERR_LIMIT,
              "more than 4 operations");
    assert_int_equal(psi_read_dbcop_buf("mem.bincode", b.p, b.n, 5, &h, &d), PSI_OK);
    psi_history_free(h);
    rd_free(&b);
    /* a header with no sessions, or sessions without transactions, is an
     * empty history: refused, with the offset of the session count */
    header(&b, "");
    size_t body_at = b.n;
    rd_le64(&b, 0);
    expect_err(&b, b.n, PSI_ERR_INPUT, body_at, "empty history");
    b.n = body_at;
    rd_le64(&b, 2);
    rd_le64(&b, 0);
    rd_le64(&b, 0);
    expect_err(&b, b.n, PSI_ERR_INPUT, body_at, "empty history");
    rd_free(&b);
}

static void test_files(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    /* no extension: binary content means dbcop */
    char *p = rd_write(dir, "history", b.p, b.n);
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(p, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_DBCOP);
    assert_int_equal(h->n_ops, 5);
    psi_history_free(h);
    /* empty file: an empty history (issue 12), not a truncated header; the
     * dbcop reader itself still says "truncated" (test_truncation) */
    char *e = rd_write(dir, "history.bincode", "", 0);
    char place[1200];
    snprintf(place, sizeof place, "%s:1:1:", e);
    rd_expect(psi_read_history(e, NULL, &h, &d), &d, PSI_ERR_INPUT, place,
              "empty history: the file is empty");
    /* missing */
    char missing[1200];
    snprintf(missing, sizeof missing, "%s/none.bincode", dir);
    rd_expect(psi_read_history(missing, NULL, &h, &d), &d, PSI_ERR_IO, missing,
              "No such file or directory");
    free(p);
    free(e);
    rd_free(&b);
    rd_rmdir(dir);
}

/* ---- streaming (formats/input.h's psi_stream) ---- */

/* A history of `n_txns` transactions per session over three sessions, with
 * an info string of info_len bytes: big enough to cross many small windows
 * (and, at 1.5 MB, the reader's own 1 MiB one). */
static void big(rd_bytes *b, size_t info_len, uint64_t n_txns)
{
    char *info = malloc(info_len + 1);
    assert_non_null(info);
    for (size_t i = 0; i < info_len; i++)
        info[i] = (char)('a' + i % 26);
    info[info_len] = '\0';
    header(b, info);
    free(info);
    rd_le64(b, 3);
    uint64_t v = 0;
    for (uint64_t s = 0; s < 3; s++) {
        rd_le64(b, n_txns);
        for (uint64_t t = 0; t < n_txns; t++) {
            rd_le64(b, 3);
            event(b, 0, (v * 7) % 13, v, 1); /* values need not make sense: only parsed */
            event(b, 1, v % 13, v + 1, (int)(t % 5 != 0));
            event(b, 1, (v + 3) % 13, v + 2, 1);
            rd_u8(b, (unsigned)(t % 11 != 0));
            v += 3;
        }
    }
}

/* Reads path through a window of `window` bytes, as psi_read_history does
 * for dbcop with its own (bigger) window. */
static psi_status rd_stream(const char *path, size_t window, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    psi_stream s;
    psi_status st = psi_stream_open(path, window, &s, d);
    if (st == PSI_OK)
        st = psi_read_dbcop_stream(&s, 0, NULL, h, d);
    else
        *h = NULL;
    psi_stream_close(&s);
    return st;
}

/* n bytes into a new pipe, its write end closed: a stream over
 * /dev/fd/<read end> has no size. The caller closes *fd. n must fit the
 * pipe's buffer (64 KiB on Linux). */
static void rd_pipe(const void *bytes, size_t n, int *fd, char *path, size_t cap)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    assert_int_equal(write(p[1], bytes, n), (ssize_t)n);
    close(p[1]);
    *fd = p[0];
    snprintf(path, cap, "/dev/fd/%d", p[0]);
}

static void assert_same_meta(const psi_history *a, const psi_history *b)
{
    rd_assert_same(a, b, true);
    assert_string_equal(a->dbcop.info, b->dbcop.info);
    assert_string_equal(a->dbcop.end, b->dbcop.end);
    for (uint32_t t = 1; t < a->n_txns; t++)
        assert_int_equal(a->txns[t].src, b->txns[t].src);
}

/* A file read through windows of 4 KiB (an info string of 10,000 bytes
 * spans three), and through the reader's own window from a regular file
 * and from a FIFO: the same history as from memory, byte offsets included. */
static void test_stream_same_history(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    rd_bytes b = {0};
    big(&b, 10000, 9000);
    assert_true(b.n > (size_t)3 << 19); /* more than 1.5 MiB */
    psi_history *ref, *h;
    psi_diag d;
    assert_int_equal(rd(&b, b.n, &ref, &d), PSI_OK);
    char *p = rd_write(dir, "big.bincode", b.p, b.n);
    if (rd_stream(p, 4096, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_same_meta(ref, h);
    psi_history_free(h);
    psi_diag_clear(&d);
    if (psi_read_history(p, NULL, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_same_meta(ref, h);
    psi_history_free(h);

    char fifo[1200];
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        FILE *f = fopen(fifo, "wb");
        if (!f)
            _exit(1);
        size_t w = fwrite(b.p, 1, b.n, f);
        _exit(fclose(f) == 0 && w == b.n ? 0 : 1);
    }
    psi_diag_clear(&d);
    psi_status st = psi_read_history(fifo, NULL, &h, &d);
    int wst;
    assert_int_equal(waitpid(pid, &wst, 0), pid);
    assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    assert_same_meta(ref, h);
    psi_history_free(h);
    psi_history_free(ref);
    unlink(fifo);
    unlink(p);
    free(p);
    rd_free(&b);
    rd_rmdir(dir);
}

/* Through a pipe the input's size is unknown, so counts are not checked
 * up front: every proper prefix must still fail as a truncation with an
 * offset inside what was read, and the checks that need no size (hostile
 * string lengths, trailing bytes, booleans) say what memory says. */
static void test_stream_pipe_errors(void **state)
{
    (void)state;
    rd_bytes b = {0};
    sample_at at;
    sample(&b, &at);
    char path[64];
    int fd;
    psi_history *h;
    psi_diag d;
    for (size_t len = 0; len <= b.n; len++) {
        rd_pipe(b.p, len, &fd, path, sizeof path);
        psi_status st = rd_stream(path, 4096, &h, &d);
        close(fd);
        if (len == b.n) {
            assert_int_equal(st, PSI_OK);
            psi_history *ref;
            psi_diag dm;
            assert_int_equal(rd(&b, b.n, &ref, &dm), PSI_OK);
            assert_same_meta(ref, h);
            psi_history_free(ref);
            psi_history_free(h);
            break;
        }
        if (st != PSI_ERR_SYNTAX)
            fail_msg("prefix of %zu bytes: %s: %s", len, psi_status_name(st), d.msg);
        assert_null(h);
        char *byte = strstr(d.msg, ": byte ");
        assert_non_null(byte);
        assert_true(strtoull(byte + 7, NULL, 10) <= len);
        assert_true(strstr(d.msg, "truncated") || strstr(d.msg, "runs past the end"));
    }
    /* the events' count runs past the end: the same words as a file's */
    rd_pipe(b.p, at.t1_ev1 + 5, &fd, path, sizeof path);
    rd_expect(rd_stream(path, 4096, &h, &d), &d, PSI_ERR_SYNTAX,
              "event count 3 runs past the end of the file (23 bytes left");
    close(fd);

    /* trailing bytes are counted to the end of the pipe */
    rd_put(&b, "xyz", 3);
    rd_pipe(b.p, b.n, &fd, path, sizeof path);
    rd_expect(rd_stream(path, 4096, &h, &d), &d, PSI_ERR_SYNTAX,
              "3 unexpected bytes after the last session");
    close(fd);
    b.n -= 3;
    b.p[at.t3_ok] = 7;
    rd_pipe(b.p, b.n, &fd, path, sizeof path);
    rd_expect(rd_stream(path, 4096, &h, &d), &d, PSI_ERR_SYNTAX, "transaction success flag is 7");
    close(fd);
    rd_free(&b);

    /* a string length of 2^63 with three bytes after it: nothing is sized
     * from it, and the message counts the bytes that came */
    for (int i = 0; i < 5; i++)
        rd_le64(&b, 1);
    rd_le64(&b, UINT64_C(1) << 63);
    rd_put(&b, "abc", 3);
    rd_pipe(b.p, b.n, &fd, path, sizeof path);
    rd_expect(rd_stream(path, 4096, &h, &d), &d, PSI_ERR_SYNTAX,
              "byte 40: info string length 9223372036854775808 runs past the end of the file (3 "
              "bytes left)");
    close(fd);
    rd_free(&b);

    /* a long string through a pipe and a small window */
    big(&b, 20000, 2);
    rd_pipe(b.p, b.n, &fd, path, sizeof path);
    assert_int_equal(rd_stream(path, 4096, &h, &d), PSI_OK);
    assert_int_equal(strlen(h->dbcop.info), 20000);
    assert_int_equal(h->n_txns, 7);
    psi_history_free(h);
    close(fd);
    rd_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample),
        cmocka_unit_test(test_every_truncation),
        cmocka_unit_test(test_hostile_lengths),
        cmocka_unit_test(test_booleans),
        cmocka_unit_test(test_trailing_garbage),
        cmocka_unit_test(test_write_of_zero),
        cmocka_unit_test(test_max_ops_and_empty_body),
        cmocka_unit_test(test_files),
        cmocka_unit_test(test_stream_same_history),
        cmocka_unit_test(test_stream_pipe_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
