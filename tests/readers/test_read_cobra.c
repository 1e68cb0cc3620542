/* The Cobra log reader: one T<n>.log per session in a directory, records
 * S/W/R/C with big-endian fields. Model mapping (session ids from names,
 * write ids as values, initial-value markers, unknown outcome of unfinished
 * transactions) and every diagnostic with file and byte offset. */
#include "rd_util.h"

#define INIT_MARK    0xbebeebeeull
#define MISSING_MARK 0xdeadbeefull

static void rec_s(rd_bytes *b, uint64_t txn)
{
    rd_u8(b, 'S');
    rd_be64(b, txn);
}

static void rec_c(rd_bytes *b, uint64_t txn)
{
    rd_u8(b, 'C');
    rd_be64(b, txn);
}

static void rec_w(rd_bytes *b, uint64_t wid, uint64_t key, uint64_t value)
{
    rd_u8(b, 'W');
    rd_be64(b, wid);
    rd_be64(b, key);
    rd_be64(b, value);
}

static void rec_r(rd_bytes *b, uint64_t wtxn, uint64_t wid, uint64_t key, uint64_t value)
{
    rd_u8(b, 'R');
    rd_be64(b, wtxn);
    rd_be64(b, wid);
    rd_be64(b, key);
    rd_be64(b, value);
}

/* Session 1: txn 100 writes, txn 101 reads it and an initial value, txn 102
 * starts and never commits (cut by txn 103's S), txn 103 is left open at
 * the end of the log. */
static void session1_log(rd_bytes *b)
{
    rec_s(b, 100);
    rec_w(b, 5000, 0xfeedface12345678ull, 777);
    rec_c(b, 100);
    rec_s(b, 101);
    rec_r(b, 100, 5000, 0xfeedface12345678ull, 777);
    rec_r(b, INIT_MARK, INIT_MARK, 42, 0);
    rec_c(b, 101);
    rec_s(b, 102);
    rec_w(b, 5001, 42, 1);
    rec_s(b, 103);
    rec_r(b, MISSING_MARK, MISSING_MARK, 43, 0);
}

/* Session 2: one committed transaction reading txn 102's write. */
static void session2_log(rd_bytes *b)
{
    rec_s(b, 200);
    rec_r(b, 102, 5001, 42, 1);
    rec_w(b, 6000, 42, 2);
    rec_c(b, 200);
}

static void test_directory(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    rd_bytes a = {0}, b = {0};
    session1_log(&a);
    session2_log(&b);
    char *paths[5];
    paths[0] = rd_write(dir, "T2.log", b.p, b.n);
    paths[1] = rd_write(dir, "T1.log", a.p, a.n);
    paths[2] = rd_write(dir, "T1.log.debug", "junk", 4);
    paths[3] = rd_write(dir, "T3.error", "junk", 4);
    paths[4] = rd_write(dir, "Tx.log", "junk", 4);

    psi_format f;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_detect_format(dir, &f, &d), PSI_OK);
    assert_int_equal(f, PSI_FMT_COBRA);

    psi_history *h;
    assert_int_equal(psi_read_history(dir, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_COBRA);
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->sessions[0].id, 1);
    assert_int_equal(h->sessions[0].n_txns, 4);
    assert_int_equal(h->sessions[1].id, 2);
    assert_int_equal(h->n_txns, 6);
    assert_int_equal(h->n_ops, 7);
    assert_int_equal(h->txns[1].id, 100);
    assert_int_equal(h->txns[1].src, 0);
    assert_int_equal(h->txns[1].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[2].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[3].id, 102);
    assert_int_equal(h->txns[3].status, PSI_TXN_UNKNOWN);
    assert_int_equal(h->txns[4].id, 103);
    assert_int_equal(h->txns[4].status, PSI_TXN_UNKNOWN);
    assert_int_equal(h->txns[5].id, 200);
    /* values are write ids, for writes and reads */
    const psi_op *w = psi_txn_ops(h, 1);
    assert_int_equal(w->kind, PSI_OP_WRITE);
    assert_int_equal(w->value, 5000);
    assert_int_equal(h->keys[w->key], 0xfeedface12345678ull);
    const psi_op *r = psi_txn_ops(h, 2);
    assert_int_equal(r[0].kind, PSI_OP_READ);
    assert_int_equal(r[0].value, 5000);
    assert_int_equal(r[0].flags, 0);
    assert_true(r[1].flags & PSI_OPF_INIT);
    assert_int_equal(r[1].value, 0);
    assert_true(psi_txn_ops(h, 4)[0].flags & PSI_OPF_INIT); /* 0xdeadbeef */
    assert_int_equal(psi_txn_ops(h, 5)[0].value, 5001);
    psi_history_free(h);

    /* max_ops counts across logs */
    psi_read_opts o = {.format = PSI_FMT_COBRA, .max_ops = 6};
    rd_expect(psi_read_history(dir, &o, &h, &d), &d, PSI_ERR_LIMIT, "T2.log: byte ",
              "more than 6 operations");

    for (int i = 0; i < 5; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
    rd_free(&a);
    rd_free(&b);
    rd_rmdir(dir);
}

static psi_status rd(const rd_bytes *b, size_t len, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_cobra_buf("logs/T7.log", b->p, len, 0, h, d);
}

static void expect_err(const rd_bytes *b, size_t len, psi_status want, size_t offset,
                       const char *what)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    char place[64];
    snprintf(place, sizeof place, "logs/T7.log: byte %zu:", offset);
    rd_expect(rd(b, len, &h, &d), &d, want, place, what);
    assert_null(h);
}

static void test_buffer_session_from_name(void **state)
{
    (void)state;
    rd_bytes b = {0};
    session2_log(&b);
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(&b, b.n, &h, &d), PSI_OK);
    assert_int_equal(h->n_sessions, 1);
    assert_int_equal(h->sessions[0].id, 7);
    psi_history_free(h);
    /* another name: session 0 */
    assert_int_equal(psi_read_cobra_buf("x.bin", b.p, b.n, 0, &h, &d), PSI_OK);
    assert_int_equal(h->sessions[0].id, 0);
    psi_history_free(h);
    rd_free(&b);
}

static void test_truncation(void **state)
{
    (void)state;
    rd_bytes b = {0};
    session1_log(&b);
    /* Cut anywhere inside a record: error at that record's tag. Cut between
     * records: a valid (shorter) history. */
    size_t starts[32], n_starts = 0, off = 0;
    while (off < b.n) {
        starts[n_starts++] = off;
        char t = (char)b.p[off];
        off += 1 + (t == 'W' ? 24 : t == 'R' ? 32 : 8);
    }
    size_t k = 0;
    for (size_t len = 1; len < b.n; len++) {
        while (k + 1 < n_starts && starts[k + 1] <= len)
            k++;
        psi_history *h;
        psi_diag d;
        psi_status st = rd(&b, len, &h, &d);
        if (len == starts[k]) {
            if (st != PSI_OK)
                fail_msg("cut at record boundary %zu: %s", len, d.msg);
            psi_history_free(h);
        } else {
            char what[32];
            snprintf(what, sizeof what, "truncated file: %c record", b.p[starts[k]]);
            expect_err(&b, len, PSI_ERR_SYNTAX, starts[k], what);
        }
    }
    rd_free(&b);
}

static void test_bad_records(void **state)
{
    (void)state;
    rd_bytes b = {0};
    /* unknown tag, printable and not */
    rec_s(&b, 1);
    rd_u8(&b, 'X');
    rd_be64(&b, 0);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 9, "unknown record tag 'X'; expected S, W, R or C");
    b.p[9] = 0;
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 9, "unknown record tag byte 0x00");
    rd_free(&b);

    /* records before any S */
    rec_w(&b, 1, 2, 3);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 0, "W record outside a transaction");
    rd_free(&b);
    rec_c(&b, 1);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 0, "C record outside a transaction");
    rd_free(&b);
    /* a read after the commit */
    rec_s(&b, 1);
    rec_c(&b, 1);
    rec_r(&b, INIT_MARK, INIT_MARK, 1, 0);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 18, "R record outside a transaction");
    rd_free(&b);
    /* commit of another transaction */
    rec_s(&b, 1);
    rec_w(&b, 10, 2, 3);
    rec_c(&b, 2);
    expect_err(&b, b.n, PSI_ERR_SYNTAX, 34,
               "C record commits transaction 2, but the open transaction is 1 (S at byte 0)");
    rd_free(&b);
    /* a write using a reserved id */
    rec_s(&b, 1);
    rec_w(&b, INIT_MARK, 2, 3);
    expect_err(&b, b.n, PSI_ERR_INPUT, 10, "write to key 2 has write id 0xbebeebee");
    rd_free(&b);
    /* empty log: an empty history, refused */
    expect_err(&b, 0, PSI_ERR_INPUT, 0, "empty history");
}

static void test_directory_errors(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    /* no T*.log at all */
    char *junk = rd_write(dir, "T1.log.debug", "x", 1);
    rd_expect(psi_read_history(dir, NULL, &h, &d), &d, PSI_ERR_INPUT, dir,
              "no Cobra session logs in this directory");
    /* a repeated transaction id across logs: names the file and offset */
    rd_bytes a = {0}, b = {0};
    rec_s(&a, 5);
    rec_c(&a, 5);
    rec_s(&b, 6);
    rec_c(&b, 6);
    rec_s(&b, 5);
    rec_c(&b, 5);
    char *p1 = rd_write(dir, "T1.log", a.p, a.n);
    char *p2 = rd_write(dir, "T2.log", b.p, b.n);
    char place[1200];
    snprintf(place, sizeof place, "%s: byte 18:", p2);
    char first[1200];
    snprintf(first, sizeof first, "already used by the transaction that starts at %s: byte 0;", p1);
    rd_expect(psi_read_history(dir, NULL, &h, &d), &d, PSI_ERR_INPUT, place, "transaction id 5",
              first);
    /* two names for one session */
    char *p3 = rd_write(dir, "T01.log", a.p, a.n);
    rd_expect(psi_read_history(dir, NULL, &h, &d), &d, PSI_ERR_INPUT,
              "T01.log and T1.log both name session 1");
    unlink(p3);
    /* a bad record in the second log names that log */
    b.p[18] = '?';
    free(p2);
    p2 = rd_write(dir, "T2.log", b.p, b.n);
    snprintf(place, sizeof place, "%s: byte 18:", p2);
    rd_expect(psi_read_history(dir, NULL, &h, &d), &d, PSI_ERR_SYNTAX, place,
              "unknown record tag '?'");
    /* missing directory */
    char missing[1200];
    snprintf(missing, sizeof missing, "%s/gone", dir);
    rd_expect(psi_read_cobra_dir(missing, 0, &h, &d), &d, PSI_ERR_IO, missing,
              "No such file or directory");
    free(junk);
    free(p1);
    free(p2);
    free(p3);
    rd_free(&a);
    rd_free(&b);
    rd_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_directory),        cmocka_unit_test(test_buffer_session_from_name),
        cmocka_unit_test(test_truncation),       cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_directory_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
