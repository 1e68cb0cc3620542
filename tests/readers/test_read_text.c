/* The PolySI text reader: model mapping (ids, grouping, order, initial
 * reads) and every diagnostic naming file:line:column. All inputs are built
 * in memory or in temporary files. Every failing status is an error the CLI
 * reports with exit 2; the tests check the exact status. */
#include "rd_util.h"

static psi_status rd(const char *text, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_text_buf("mem.txt", text, strlen(text), 0, h, d);
}

static const psi_txn *txn_by_id(const psi_history *h, uint64_t id)
{
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->txns[t].id == id)
            return &h->txns[t];
    fail_msg("no transaction %llu", (unsigned long long)id);
    return NULL;
}

static void test_lost_update_example(void **state)
{
    (void)state;
    const char *text = "w(0,1,1,1)\n"
                       "w(0,2,1,1)\n"
                       "w(0,3,1,2)\n"
                       "w(0,4,1,2)\n"
                       "r(0,4,1,3)\n"
                       "w(0,5,1,3)\n"
                       "r(0,4,2,8)\n"
                       "w(0,10,2,8)\n"
                       "r(7,0,2,9)\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(text, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_TEXT);
    assert_string_equal(h->source, "mem.txt");
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->sessions[0].id, 1);
    assert_int_equal(h->sessions[0].n_txns, 3);
    assert_int_equal(h->sessions[1].id, 2);
    assert_int_equal(h->sessions[1].n_txns, 2);
    assert_int_equal(h->n_txns, 6);
    assert_int_equal(h->n_ops, 9);
    assert_int_equal(rd_count_kind(h, PSI_OP_WRITE), 6);
    assert_int_equal(rd_count_status(h, PSI_TXN_COMMITTED), 5);
    /* session 1: txns 1, 2, 3 in order; txn 1 writes 1 then 2 */
    assert_int_equal(h->txns[1].id, 1);
    assert_int_equal(h->txns[1].src, 1);
    assert_int_equal(h->txns[2].id, 2);
    assert_int_equal(h->txns[3].id, 3);
    assert_int_equal(h->txns[3].src, 5);
    const psi_op *o = psi_txn_ops(h, 1);
    assert_int_equal(h->txns[1].n_ops, 2);
    assert_int_equal(o[0].value, 1);
    assert_int_equal(o[1].value, 2);
    assert_int_equal(o[0].kind, PSI_OP_WRITE);
    /* r(7,0,...) is a read of the initial value */
    const psi_txn *t9 = txn_by_id(h, 9);
    const psi_op *r = h->ops + t9->first_op;
    assert_int_equal(r->kind, PSI_OP_READ);
    assert_true(r->flags & PSI_OPF_INIT);
    assert_int_equal(h->keys[r->key], 7);
    /* a read of a non-zero value is not an initial read */
    const psi_txn *t8 = txn_by_id(h, 8);
    assert_false(h->ops[t8->first_op].flags & PSI_OPF_INIT);
    assert_int_equal(h->ops[t8->first_op].value, 4);
    psi_history_free(h);
}

/* Lines of one TXN form one transaction even when interleaved; a session's
 * transactions are ordered by first appearance, not by id. */
static void test_interleaved_grouping(void **state)
{
    (void)state;
    const char *text = "w(1,1,5,30)\n"
                       "w(2,1,5,10)\n"
                       "r(1,1,5,30)\n"
                       "w(3,1,6,20)\n"
                       "w(3,2,5,10)\n"
                       "r(2,1,5,30)\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->sessions[0].id, 5);
    assert_int_equal(h->sessions[0].n_txns, 2);
    const psi_txn *a = &h->txns[h->sessions[0].first_txn];
    const psi_txn *b = a + 1;
    assert_int_equal(a->id, 30);
    assert_int_equal(a->pos, 0);
    assert_int_equal(a->n_ops, 3);
    assert_int_equal(b->id, 10);
    assert_int_equal(b->pos, 1);
    assert_int_equal(b->n_ops, 2);
    const psi_op *ao = h->ops + a->first_op;
    assert_int_equal(h->keys[ao[0].key], 1);
    assert_int_equal(ao[0].kind, PSI_OP_WRITE);
    assert_int_equal(h->keys[ao[1].key], 1);
    assert_int_equal(ao[1].kind, PSI_OP_READ);
    assert_int_equal(h->keys[ao[2].key], 2);
    const psi_op *bo = h->ops + b->first_op;
    assert_int_equal(h->keys[bo[0].key], 2);
    assert_int_equal(h->keys[bo[1].key], 3);
    assert_int_equal(bo[1].value, 2);
    assert_int_equal(h->sessions[1].id, 6);
    psi_history_free(h);
}

static void test_spaces_comments_crlf(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "\n"
                       "   \t\n"
                       "  w( 1 , 2 ,\t3 , 4 )  # trailing comment\r\n"
                       "r(1,2,3,4)\r\n"
                       "  # indented comment\n"
                       "r(18446744073709551615,2,3,4)"; /* no final newline, max u64 */
    psi_history *h;
    psi_diag d;
    assert_int_equal(rd(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 3);
    assert_int_equal(h->n_txns, 2);
    assert_int_equal(h->txns[1].src, 4);
    assert_int_equal(h->keys[h->ops[2].key], UINT64_MAX);
    psi_history_free(h);
    /* a UTF-8 byte order mark is skipped */
    assert_int_equal(rd("\xef\xbb\xbfw(1,2,3,4)\n", &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 1);
    psi_history_free(h);
}

static void expect_text_error_n(const char *text, size_t len, psi_status want, const char *place,
                                const char *what)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_read_text_buf("mem.txt", text, len, 0, &h, &d);
    rd_expect(st, &d, want, place, what);
    assert_null(h);
}

static void expect_text_error(const char *text, psi_status want, const char *place,
                              const char *what)
{
    expect_text_error_n(text, strlen(text), want, place, what);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    expect_text_error("w(1,1,1,1)\nx(1,1,1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:2:1:", "expected an operation r(...) or w(...)");
    expect_text_error("w(1,1,1,1)\nR(1,1,1,1)\n", PSI_ERR_SYNTAX, "mem.txt:2:1:", "found 'R'");
    expect_text_error("r(1,a,1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:5:", "expected a non-negative decimal VALUE, found 'a'");
    expect_text_error("r(1,1,-1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:7:", "decimal SESSION, found '-'");
    expect_text_error("r(1,1,1,)\n", PSI_ERR_SYNTAX, "mem.txt:1:9:", "TXN, found ')'");
    expect_text_error("r 1,1,1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:3:", "expected '(' after 'r', found '1'");
    expect_text_error("w(1;1,1,1)\n", PSI_ERR_SYNTAX, "mem.txt:1:4:", "expected ','");
    expect_text_error("w(1,1,1,1\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:10:", "expected ')' after TXN, found end of line");
    expect_text_error("w(1,1,1,1)x\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:11:", "expected end of line after the operation, found 'x'");
    expect_text_error("w(1,1,1,1) r(1,1,1,1)\n", PSI_ERR_SYNTAX, "mem.txt:1:12:", "found 'r'");
    /* truncated file: ends in the middle of an operation */
    expect_text_error("w(1,1,1,1)\nr(1,1", PSI_ERR_SYNTAX,
                      "mem.txt:2:6:", "expected ',', found end of file");
    /* a NUL byte is a bad character, shown by its code */
    expect_text_error_n("w(1,1,\0001,1)\n", 12, PSI_ERR_SYNTAX, "mem.txt:1:7:", "found byte 0x00");
    expect_text_error("w(1,1,1,1)\n\x01", PSI_ERR_SYNTAX, "mem.txt:2:1:", "found byte 0x01");
    /* a lone CR is not a line end */
    expect_text_error("w(1,1,1,1)\rw(1,2,1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:11:", "found end of line");
}

static void test_number_overflow(void **state)
{
    (void)state;
    expect_text_error("r(18446744073709551616,1,1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:1:3:", "KEY does not fit in 64 bits");
    expect_text_error("w(1,1,1,1)\nr(1, 99999999999999999999999,1,1)\n", PSI_ERR_SYNTAX,
                      "mem.txt:2:6:", "VALUE does not fit in 64 bits");
}

static void test_input_errors(void **state)
{
    (void)state;
    /* one TXN id under two sessions: both lines are named */
    expect_text_error("w(1,1,1,7)\nw(2,1,1,8)\n\nr(1,1,2,7)\n", PSI_ERR_INPUT, "mem.txt:4:7:",
                      "transaction 7 is in session 2 here but in session 1 at line 1");
    /* ... also on consecutive lines */
    expect_text_error("w(1,1,1,7)\nr(1,1,2,7)\n", PSI_ERR_INPUT, "mem.txt:2:7:",
                      "transaction 7 is in session 2 here but in session 1 at line 1");
}

static void test_empty(void **state)
{
    (void)state;
    expect_text_error("", PSI_ERR_INPUT, "mem.txt:1:1:", "empty history");
    expect_text_error("# only a comment\n\n", PSI_ERR_INPUT, "mem.txt:1:1:", "empty history");
}

static void test_max_ops(void **state)
{
    (void)state;
    const char *text = "w(1,1,1,1)\nw(2,1,1,1)\nw(3,1,1,2)\n";
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_read_text_buf("mem.txt", text, strlen(text), 2, &h, &d);
    rd_expect(st, &d, PSI_ERR_LIMIT, "mem.txt:3:1:", "more than 2 operations");
    assert_null(h);
    assert_int_equal(psi_read_text_buf("mem.txt", text, strlen(text), 3, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 3);
    psi_history_free(h);
    /* the same when transactions interleave */
    const char *inter = "w(1,1,1,1)\nw(3,1,1,2)\nw(2,1,1,1)\n";
    st = psi_read_text_buf("mem.txt", inter, strlen(inter), 2, &h, &d);
    rd_expect(st, &d, PSI_ERR_LIMIT, "mem.txt:3:1:", "more than 2 operations");
}

/* Through psi_read_history: detection, the file name in messages, I/O errors. */
static void test_files(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    const char *good = "# hist\nw(1,5,0,0)\nr(1,5,1,1)\n";
    char *p = rd_write(dir, "h.txt", good, strlen(good));
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(p, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_TEXT);
    assert_string_equal(h->source, p);
    assert_int_equal(h->n_ops, 2);
    psi_history_free(h);

    /* a bad file: the message names its path */
    const char *bad = "w(1,5,0,0)\nr(1,5,1,z)\n";
    char *q = rd_write(dir, "bad.txt", bad, strlen(bad));
    char place[1200];
    snprintf(place, sizeof place, "%s:2:9:", q);
    rd_expect(psi_read_history(q, NULL, &h, &d), &d, PSI_ERR_SYNTAX, place, "TXN");

    /* empty .txt file */
    char *e = rd_write(dir, "empty.txt", "", 0);
    snprintf(place, sizeof place, "%s:1:1:", e);
    rd_expect(psi_read_history(e, NULL, &h, &d), &d, PSI_ERR_INPUT, place, "empty history");

    /* missing file: I/O error naming the path and the reason */
    char missing[1200];
    snprintf(missing, sizeof missing, "%s/nope.txt", dir);
    rd_expect(psi_read_history(missing, NULL, &h, &d), &d, PSI_ERR_IO, missing,
              "No such file or directory");
    psi_read_opts o = {.format = PSI_FMT_TEXT};
    rd_expect(psi_read_history(missing, &o, &h, &d), &d, PSI_ERR_IO, missing,
              "No such file or directory");

    free(p);
    free(q);
    free(e);
    rd_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lost_update_example),
        cmocka_unit_test(test_interleaved_grouping),
        cmocka_unit_test(test_spaces_comments_crlf),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_number_overflow),
        cmocka_unit_test(test_input_errors),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_max_ops),
        cmocka_unit_test(test_files),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
