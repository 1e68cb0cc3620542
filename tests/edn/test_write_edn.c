/* The EDN writer: exact output for a small history, round trips
 * edn -> history -> edn -> history (every array equal), reads of :info
 * transactions and nil reads of :fail ones kept by the :polysi/reads mark,
 * and I/O errors. */
#include "edn_helpers.h"

/* A history covering what the writer must express: sessions with sparse ids
 * given out of order, committed/aborted/unknown transactions, initial-value,
 * plain and list reads (empty and not), writes, appends, 64-bit extremes. */
static psi_history *build_sample(void)
{
    psi_builder *b = psi_builder_new("sample", PSI_FMT_EDN);
    psi_diag d;
    assert_non_null(b);
    const uint64_t l1[] = {1, 2}, l0[] = {0};
    assert_int_equal(psi_builder_begin(b, 7, 100, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 0, PSI_OPF_INIT, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 1, 11, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 5, 1, PSI_OPF_APPEND, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);

    assert_int_equal(psi_builder_begin(b, 3, 5, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 11, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 5, l1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 6, NULL, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 5, 2, PSI_OPF_APPEND, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);

    assert_int_equal(psi_builder_begin(b, 7, 0, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 11, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 1, 12, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_ABORTED, &d), PSI_OK);

    assert_int_equal(psi_builder_begin(b, UINT64_MAX, UINT64_MAX, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, UINT64_MAX, UINT64_MAX, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 0, 0, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_UNKNOWN, &d), PSI_OK);

    assert_int_equal(psi_builder_begin(b, 3, 6, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 5, l1, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 0, l0, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);

    assert_int_equal(psi_builder_begin(b, 3, 7, 0, &d), PSI_OK); /* no ops */
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);

    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

static psi_history *write_and_read(const psi_history *h, char **text)
{
    char path[64];
    edn_temp_path(path);
    psi_diag d;
    psi_status st = psi_write_edn(h, path, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    size_t len;
    char *buf = edn_slurp(path, &len);
    unlink(path);
    psi_history *back;
    st = psi_read_edn_buf("back.edn", buf, len, 0, &back, &d);
    if (st != PSI_OK)
        fail_msg("%s\n%s", d.msg, buf);
    if (text)
        *text = buf;
    else
        free(buf);
    return back;
}

static void test_exact_output(void **state)
{
    (void)state;
    psi_history *h = build_sample();
    char path[64];
    edn_temp_path(path);
    psi_diag d;
    assert_int_equal(psi_write_edn(h, path, &d), PSI_OK);
    size_t len;
    char *text = edn_slurp(path, &len);
    unlink(path);
    /* no real time: completions only (an invoke would make some up) */
    const char *want =
        "{:type :ok, :f :txn, :value [[:r 1 11] [:r 5 [1]] [:r 6 []] [:append 5 2]], "
        ":process 3, :index 5}\n"
        "{:type :ok, :f :txn, :value [[:r 5 [1 2]] [:r 0 [0]]], :process 3, :index 6}\n"
        "{:type :ok, :f :txn, :value [], :process 3, :index 7}\n"
        "{:type :ok, :f :txn, :value [[:r 1 nil] [:w 1 11] [:append 5 1]], :process 7, "
        ":index 100}\n"
        "{:type :fail, :f :txn, :value [[:r 1 11] [:w 1 12]], :process 7, :index 0}\n"
        "{:type :info, :f :txn, :value [[:w 18446744073709551615 18446744073709551615] "
        "[:w 0 0]], :process 18446744073709551615, :index 18446744073709551615}\n";
    assert_string_equal(text, want);
    free(text);
    psi_history_free(h);
}

/* With real time, invokes in real-time order where they are known (an
 * :info completion right after its invoke, or after its session's last
 * line without one), and timestamps on the completion. */
static void test_exact_output_realtime(void **state)
{
    (void)state;
    psi_builder *b = psi_builder_new("rt", PSI_FMT_EDN);
    psi_diag d;
    assert_non_null(b);
    /* session 1: (1,1) over [1, 4], (1,2) invoked at 6, open; session 2:
     * (2,3) over [2, 3], then (2,4) completed at 5 without an invoke */
    assert_int_equal(psi_builder_begin(b, 1, 1, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_set_rt(b, 1, 4, &d), PSI_OK);
    assert_int_equal(psi_builder_set_ts(b, -3, 7, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 1, 1, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 1, 2, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_set_rt(b, 6, PSI_RT_OPEN, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 1, 2, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_UNKNOWN, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 2, 3, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_set_rt(b, 2, 3, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 0, PSI_OPF_INIT, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 2, 4, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_set_rt(b, 0, 5, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 1, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    char path[64];
    edn_temp_path(path);
    assert_int_equal(psi_write_edn(h, path, &d), PSI_OK);
    size_t len;
    char *text = edn_slurp(path, &len);
    unlink(path);
    const char *want =
        "{:type :invoke, :f :txn, :value [[:w 1 1]], :process 1}\n"
        "{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 2}\n"
        "{:type :ok, :f :txn, :value [[:r 1 nil]], :process 2, :index 3}\n"
        "{:type :ok, :f :txn, :value [[:w 1 1]], :process 1, :index 1, :start-ts -3, "
        ":commit-ts 7}\n"
        "{:type :ok, :f :txn, :value [[:r 1 1]], :process 2, :index 4}\n"
        "{:type :invoke, :f :txn, :value [[:w 1 2]], :process 1}\n"
        "{:type :info, :f :txn, :value [[:w 1 2]], :process 1, :index 2}\n";
    assert_string_equal(text, want);
    free(text);
    psi_history_free(h);
}

/* history -> edn -> history says the same thing (the arrays' order follows
 * the order transactions were given in); edn -> history -> edn -> history
 * gives the same file and every array equal, src included. */
static void test_round_trip(void **state)
{
    (void)state;
    psi_history *h0 = build_sample();
    char *t1, *t2;
    psi_history *h1 = write_and_read(h0, &t1);
    edn_assert_equivalent(h0, h1);
    assert_int_equal(h1->txns[1].src, 1); /* completion lines, no invokes */
    assert_int_equal(h1->txns[2].src, 2);
    psi_history *h2 = write_and_read(h1, &t2);
    edn_assert_same(h1, h2, true);
    assert_string_equal(t1, t2);
    free(t1);
    free(t2);
    psi_history_free(h0);
    psi_history_free(h1);
    psi_history_free(h2);
}

/* A Jepsen-style history (interleaved, nemesis, :info) read, written, read. */
static void test_round_trip_from_edn(void **state)
{
    (void)state;
    const char *text =
        "{:type :invoke, :f :txn, :value [[:append 1 1] [:r 2 nil]], :process 0, :index 0}\n"
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 3 1]], :process 1, :index 1}\n"
        "{:type :info, :f :kill, :process :nemesis, :index 2}\n"
        "{:type :ok, :f :txn, :value [[:r 1 [1]] [:w 3 1]], :process 1, :index 3}\n"
        "{:type :info, :f :txn, :value [[:append 1 1] [:r 2 nil]], :process 0, :index 4}\n"
        "{:type :invoke, :f :txn, :value [[:append 2 5] [:r 3 nil]], :process 5, :index 5}\n"
        "{:type :fail, :f :txn, :value [[:append 2 5] [:r 3 1]], :process 5, :index 6}\n"
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:r 3 nil]], :process 1, :index 7}\n"
        "{:type :ok, :f :txn, :value [[:r 1 nil] [:r 3 1]], :process 1, :index 8}\n";
    psi_history *h0, *h1, *h2;
    psi_diag d;
    assert_int_equal(edn_read(text, &h0, &d), PSI_OK);
    h1 = write_and_read(h0, NULL);
    edn_assert_equivalent(h0, h1);
    h2 = write_and_read(h1, NULL);
    edn_assert_same(h1, h2, true);
    psi_history_free(h0);
    psi_history_free(h1);
    psi_history_free(h2);
}

/* Reads of unknown transactions and initial-value reads of aborted ones,
 * which the reader drops from Jepsen's own completions (their values are
 * "not known"), survive a round trip: the writer marks those completions
 * :polysi/reads :observed. Without the mark both were lost. */
static void test_aborted_and_unknown_reads_kept(void **state)
{
    (void)state;
    psi_builder *b = psi_builder_new("kept", PSI_FMT_TEXT);
    psi_diag d;
    assert_int_equal(psi_builder_begin(b, 1, 1, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 4, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 1, 5, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 3, 0, PSI_OPF_INIT, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_UNKNOWN, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 1, 2, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 2, 0, PSI_OPF_INIT, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 5, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_ABORTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 1, 3, 0, &d), PSI_OK); /* no mark needed */
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 1, 5, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_ABORTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    char *text;
    psi_history *back = write_and_read(h, &text);
    edn_assert_equivalent(h, back);
    const psi_txn *t = edn_txn(back, 1, 0);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);
    assert_int_equal(t->n_ops, 3);
    edn_assert_op(back, t, 0, PSI_OP_READ, 1, 4, 0);
    edn_assert_op(back, t, 2, PSI_OP_READ, 3, 0, PSI_OPF_INIT);
    t = edn_txn(back, 1, 1);
    assert_int_equal(t->status, PSI_TXN_ABORTED);
    assert_int_equal(t->n_ops, 2);
    edn_assert_op(back, t, 0, PSI_OP_READ, 2, 0, PSI_OPF_INIT);
    edn_assert_op(back, t, 1, PSI_OP_READ, 1, 5, 0);
    /* The mark only where it is needed. */
    assert_non_null(strstr(text, ":type :info, :f :txn, :value [[:r 1 4] [:w 1 5] [:r 3 nil]], "
                                 ":process 1, :index 1, :polysi/reads :observed}"));
    assert_non_null(strstr(text, ":index 2, :polysi/reads :observed}"));
    assert_non_null(strstr(text, ":index 3}"));
    free(text);
    psi_history_free(back);
    psi_history_free(h);
}

/* The mark's value is checked, and it is the completion's: an :invoke's
 * nil reads stay "not known" when the completion has no :value. */
static void test_observed_mark_read(void **state)
{
    (void)state;
    edn_expect_error("{:type :fail, :f :txn, :value [[:r 1 nil]], :process 0, :polysi/reads 1}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:71:", ":polysi/reads must be :observed");
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read("{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 2]], :process 0}\n"
                              "{:type :fail, :f :txn, :process 0, :polysi/reads :observed}\n",
                              &h, &d),
                     PSI_OK);
    assert_int_equal(h->txns[1].n_ops, 1);
    psi_history_free(h);
}

static void test_io_errors(void **state)
{
    (void)state;
    psi_history *h = build_sample();
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_write_edn(h, "/nonexistent-dir-psi/x.edn", &d), PSI_ERR_IO);
    assert_non_null(strstr(d.msg, "/nonexistent-dir-psi/x.edn"));
    assert_int_equal(psi_write_edn(h, "/tmp", &d), PSI_ERR_IO);
    assert_non_null(strstr(d.msg, "/tmp"));
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_output),
        cmocka_unit_test(test_exact_output_realtime),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_round_trip_from_edn),
        cmocka_unit_test(test_aborted_and_unknown_reads_kept),
        cmocka_unit_test(test_observed_mark_read),
        cmocka_unit_test(test_io_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
