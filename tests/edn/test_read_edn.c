/* The EDN reader: rw-register and list-append histories, :ok/:fail/:info
 * semantics, invoke/completion pairing, transaction ids, the EDN syntax that
 * appears in Jepsen histories, and every kind of bad input with its exact
 * place. */
#include "edn_helpers.h"

static void test_rw_register(void **state)
{
    (void)state;
    const char *text =
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 0, :time 1, :index 0}\n"
        "{:type :invoke, :f :txn, :value [[:w 2 5]], :process 1, :time 2, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 0, :time 3, :index 2}\n"
        "{:type :ok, :f :txn, :value [[:w 2 5]], :process 1, :time 4, :index 3}\n"
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:r 2 nil]], :process 0, :index 4}\n"
        "{:type :ok, :f :txn, :value [[:r 1 3] [:r 2 5]], :process 0, :index 5}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_EDN);
    assert_string_equal(h->source, "t.edn");
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->n_txns, 4); /* with the initial transaction */
    assert_int_equal(h->n_ops, 5);
    assert_int_equal(h->n_list_reads, 0);

    const psi_txn *t = edn_txn(h, 0, 0);
    assert_int_equal(t->id, 2); /* the completion's :index */
    assert_int_equal(t->src, 3);
    assert_int_equal(t->status, PSI_TXN_COMMITTED);
    assert_int_equal(t->n_ops, 2);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 0, PSI_OPF_INIT);
    edn_assert_op(h, t, 1, PSI_OP_WRITE, 1, 3, 0);
    t = edn_txn(h, 0, 1);
    assert_int_equal(t->id, 5);
    assert_int_equal(t->src, 6);
    assert_int_equal(t->pos, 1);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 3, 0);
    edn_assert_op(h, t, 1, PSI_OP_READ, 2, 5, 0);
    t = edn_txn(h, 1, 0);
    assert_int_equal(t->id, 3);
    assert_int_equal(t->src, 4);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 2, 5, 0);
    psi_history_free(h);
}

static void test_list_append(void **state)
{
    (void)state;
    const char *text =
        "{:type :invoke, :f :txn, :value [[:append 7 1] [:r 7 nil]], :process 3}\n"
        "{:type :ok, :f :txn, :value [[:append 7 1] [:r 7 [1]]], :process 3}\n"
        "{:type :invoke, :f :txn, :value [[:r 7 nil] [:r 8 nil] [:r 9 nil]], :process 4}\n"
        "{:type :ok, :f :txn, :value [[:r 7 [1 2 3]] [:r 8 []] [:r 9 nil]], :process 4}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_list_reads, 3);
    const psi_txn *t = edn_txn(h, 3, 0);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 7, 1, PSI_OPF_APPEND);
    edn_assert_op(h, t, 1, PSI_OP_READ, 7, 1, PSI_OPF_LIST);
    uint32_t n;
    const uint64_t *vals = psi_history_list(h, t->first_op + 1, &n);
    assert_int_equal(n, 1);
    assert_int_equal(vals[0], 1);

    t = edn_txn(h, 4, 0);
    edn_assert_op(h, t, 0, PSI_OP_READ, 7, 3, PSI_OPF_LIST);
    vals = psi_history_list(h, t->first_op, &n);
    assert_int_equal(n, 3);
    assert_int_equal(vals[0], 1);
    assert_int_equal(vals[1], 2);
    assert_int_equal(vals[2], 3);
    /* [] is the initial empty list; nil is an initial-value read. */
    edn_assert_op(h, t, 1, PSI_OP_READ, 8, 0, PSI_OPF_LIST | PSI_OPF_INIT);
    vals = psi_history_list(h, t->first_op + 1, &n);
    assert_int_equal(n, 0);
    edn_assert_op(h, t, 2, PSI_OP_READ, 9, 0, PSI_OPF_INIT);
    /* No :index anywhere: ids are the completions' line numbers. */
    assert_int_equal(edn_txn(h, 3, 0)->id, 2);
    assert_int_equal(edn_txn(h, 4, 0)->id, 4);
    psi_history_free(h);
}

static void test_ok_fail_info(void **state)
{
    (void)state;
    const char *text =
        /* :fail: aborted; the nil read is unknown (dropped), the write kept */
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 1]], :process 0}\n"
        "{:type :fail, :f :txn, :value [[:r 1 nil] [:w 1 1]], :process 0, :error :abort}\n"
        /* :info: unknown; every read dropped, even one with a value */
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 2] [:r 2 nil]], :process 1}\n"
        "{:type :info, :f :txn, :value [[:r 1 nil] [:w 1 2] [:r 2 7]], :process 1}\n"
        /* :fail with a read that has a value keeps it */
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 2}\n"
        "{:type :fail, :f :txn, :value [[:r 1 5] [:w 1 3]], :process 2}\n"
        /* never completed: unknown, from the invoke; reads dropped */
        "{:type :invoke, :f :txn, :value [[:w 3 9] [:r 3 nil] [:append 4 2]], :process 3}\n"
        /* :info without :value takes the invoke's micro-ops */
        "{:type :invoke, :f :txn, :value [[:w 5 1] [:r 6 nil]], :process 5}\n"
        "{:type :info, :f :txn, :process 5, :error :timeout}\n"
        /* a committed one, for contrast */
        "{:type :ok, :f :txn, :value [[:r 1 nil]], :process 6}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_sessions, 6);

    const psi_txn *t = edn_txn(h, 0, 0);
    assert_int_equal(t->status, PSI_TXN_ABORTED);
    assert_int_equal(t->n_ops, 1);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 1, 1, 0);

    t = edn_txn(h, 1, 0);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);
    assert_int_equal(t->n_ops, 1);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 1, 2, 0);

    t = edn_txn(h, 2, 0);
    assert_int_equal(t->status, PSI_TXN_ABORTED);
    assert_int_equal(t->n_ops, 2);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 5, 0);
    edn_assert_op(h, t, 1, PSI_OP_WRITE, 1, 3, 0);

    t = edn_txn(h, 3, 0);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);
    assert_int_equal(t->src, 7); /* the invoke's line */
    assert_int_equal(t->n_ops, 2);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 3, 9, 0);
    edn_assert_op(h, t, 1, PSI_OP_WRITE, 4, 2, PSI_OPF_APPEND);

    t = edn_txn(h, 5, 0);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);
    assert_int_equal(t->src, 9); /* the completion's line */
    assert_int_equal(t->n_ops, 1);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 5, 1, 0);

    t = edn_txn(h, 6, 0);
    assert_int_equal(t->status, PSI_TXN_COMMITTED);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 0, PSI_OPF_INIT);
    psi_history_free(h);
}

/* Invokes and completions of several processes interleave; each completion
 * pairs with its own process's invoke, sessions keep invoke order. */
static void test_interleaved(void **state)
{
    (void)state;
    const char *text = "{:type :invoke, :f :txn, :value [[:w 1 10]], :process 0, :index 0}\n"
                       "{:type :invoke, :f :txn, :value [[:r 1 nil]], :process 1, :index 1}\n"
                       "{:type :invoke, :f :txn, :value [[:w 2 20]], :process 2, :index 2}\n"
                       "{:type :ok, :f :txn, :value [[:r 1 10]], :process 1, :index 3}\n"
                       "{:type :info, :f :start, :process :nemesis, :index 4, :value nil}\n"
                       "{:type :invoke, :f :txn, :value [[:r 2 nil]], :process 1, :index 5}\n"
                       "{:type :ok, :f :txn, :value [[:w 2 20]], :process 2, :index 6}\n"
                       "{:type :ok, :f :txn, :value [[:w 1 10]], :process 0, :index 7}\n"
                       "{:type :ok, :f :txn, :value [[:r 2 20]], :process 1, :index 8}\n"
                       "{:type :invoke, :f :read, :value nil, :process 0, :index 9}\n"
                       "{:type :ok, :f :read, :value 3, :process 0, :index 10}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_sessions, 3);
    assert_int_equal(h->n_txns, 5);
    assert_int_equal(edn_txn(h, 0, 0)->id, 7);
    edn_assert_op(h, edn_txn(h, 0, 0), 0, PSI_OP_WRITE, 1, 10, 0);
    assert_int_equal(edn_txn(h, 1, 0)->id, 3);
    edn_assert_op(h, edn_txn(h, 1, 0), 0, PSI_OP_READ, 1, 10, 0);
    assert_int_equal(edn_txn(h, 1, 1)->id, 8);
    edn_assert_op(h, edn_txn(h, 1, 1), 0, PSI_OP_READ, 2, 20, 0);
    assert_int_equal(edn_txn(h, 2, 0)->id, 6);
    psi_history_free(h);
}

/* Histories holding only completions are accepted. */
static void test_completions_only(void **state)
{
    (void)state;
    const char *text = "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
                       "{:type :ok, :f :txn, :value [[:r 1 1]], :process 0}\n"
                       "{:type :fail, :f :txn, :value [[:w 1 2]], :process 1}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_txns, 4);
    assert_int_equal(edn_txn(h, 0, 1)->id, 2);
    assert_int_equal(edn_txn(h, 1, 0)->status, PSI_TXN_ABORTED);
    psi_history_free(h);
}

/* :index gives the ids only when every transaction has one and they are
 * unique; otherwise line numbers. */
static void test_ids(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    const char *dup = "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0, :index 4}\n"
                      "{:type :ok, :f :txn, :value [[:w 1 2]], :process 1, :index 4}\n";
    assert_int_equal(edn_read(dup, &h, &d), PSI_OK);
    assert_int_equal(edn_txn(h, 0, 0)->id, 1);
    assert_int_equal(edn_txn(h, 1, 0)->id, 2);
    psi_history_free(h);

    const char *partial = "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0, :index 40}\n"
                          "{:type :ok, :f :txn, :value [[:w 1 2]], :process 1}\n";
    assert_int_equal(edn_read(partial, &h, &d), PSI_OK);
    assert_int_equal(edn_txn(h, 0, 0)->id, 1);
    assert_int_equal(edn_txn(h, 1, 0)->id, 2);
    psi_history_free(h);

    /* An uncompleted invoke contributes its own :index. */
    const char *pending = "{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0, :index 9}\n"
                          "{:type :ok, :f :txn, :value [[:w 1 2]], :process 1, :index 11}\n";
    assert_int_equal(edn_read(pending, &h, &d), PSI_OK);
    assert_int_equal(edn_txn(h, 0, 0)->id, 9);
    assert_int_equal(edn_txn(h, 0, 0)->status, PSI_TXN_UNKNOWN);
    assert_int_equal(edn_txn(h, 1, 0)->id, 11);
    psi_history_free(h);
}

/* EDN as Jepsen writes it: comments, blank lines, commas, records, #object,
 * sets, strings with escapes, floats, namespaced keywords, huge numbers in
 * ignored fields, CRLF line ends, characters, #_ discards. */
static void test_edn_syntax(void **state)
{
    (void)state;
    const char *text =
        "; a comment line\n"
        "\n"
        "   ,,  \n"
        "#jepsen.history.Op{:index 0, :time 12, :type :invoke, :process 0, :f :txn, "
        ":value [[:w 1 1]]}\r\n"
        "{:type :info, :f :txn, :process 0, :index 1, :value [[:w 1 1]], "
        ":error #object[java.lang.Exception 0x5e1c8f \"boom \\\"quoted\\\" \\u00e9\"], "
        ":latency 1.5e3, :rate 3/4, :big 123456789012345678901234567890N, "
        ":set #{1 :a \"s\"}, :inst #inst \"2024-01-01T00:00:00Z\", :ch \\a, :nl \\newline, "
        ":flag true, :other false, :user/ns-key :some.ns/kw, :neg -5, :hex 0xFF, "
        ":inf ##Inf, :list (1 2 (3)), :nsmap #:foo{:a 1}, #_ :discarded #_ [1 2] :x 1} ; tail\n"
        "{:type :ok :f :txn :value [[:r 1 1]] :process 1 :index 2 :empty-map {} :empty-vec []}\n";
    psi_history *h;
    psi_diag d;
    psi_status st = edn_read(text, &h, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(h->n_txns, 3);
    const psi_txn *t = edn_txn(h, 0, 0);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);
    assert_int_equal(t->src, 5);
    assert_int_equal(t->id, 1);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 1, 1, 0);
    psi_history_free(h);

    /* a UTF-8 byte order mark is skipped and takes no column */
    edn_expect_error("\xef\xbb\xbf{:type :ok, :f :txn, :value [[:w 1 2.5]], :process 0}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:36: ", "found a non-integer number '2.5'");
}

/* Keys and values up to 2^64-1; hex and N suffixes are integers. */
static void test_u64_range(void **state)
{
    (void)state;
    const char *text = "{:type :ok, :f :txn, :value [[:w 18446744073709551615 "
                       "18446744073709551615N] [:w 0x10 0]], :process 18446744073709551615}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    const psi_txn *t = edn_txn(h, UINT64_MAX, 0);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, UINT64_MAX, UINT64_MAX, 0);
    edn_assert_op(h, t, 1, PSI_OP_WRITE, 16, 0, 0);
    psi_history_free(h);
}

static void test_max_ops(void **state)
{
    (void)state;
    const char *text = "{:type :ok, :f :txn, :value [[:w 1 1] [:w 2 2]], :process 0}\n"
                       "{:type :ok, :f :txn, :value [[:w 3 3] [:w 4 4]], :process 0}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(psi_read_edn_buf("t.edn", text, strlen(text), 4, &h, &d), PSI_OK);
    psi_history_free(h);
    assert_int_equal(psi_read_edn_buf("t.edn", text, strlen(text), 3, &h, &d), PSI_ERR_LIMIT);
    assert_null(h);
    assert_string_equal(d.msg, "t.edn:2:39: more than 3 operations (the configured limit)");
}

/* ---- bad input: each names the file and the exact line:column ---- */

static void test_empty(void **state)
{
    (void)state;
    edn_expect_error("", PSI_ERR_INPUT, "t.edn:1:1: ", "empty history: no EDN map");
    edn_expect_error("\n; only a comment\n\n", PSI_ERR_INPUT,
                     "t.edn:1:1: ", "empty history: no EDN map");
    edn_expect_error("{:type :info, :f :start, :process :nemesis}\n", PSI_ERR_INPUT,
                     "t.edn:1:1: ", "empty history: no transaction");
}

static void test_truncated(void **state)
{
    (void)state;
    /* the vector [:w 1 opened at column 41 is cut by the end of the input:
     * the error names the innermost value never closed */
    edn_expect_error("{:type :ok, :f :txn, :value [[:r 1 nil] [:w 1\n", PSI_ERR_SYNTAX,
                     "t.edn:1:41: ", "a vector opened here is never closed");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
                     "{:type :ok, :f :txn",
                     PSI_ERR_SYNTAX, "t.edn:2:1: ",
                     "a map opened here is never closed: the input ends inside it (missing '}')");
    /* a multi-line map cut short: named where it opens, lines later */
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
                     "  {:type :ok,\n   :f :txn,\n   :value [[:w 1 2]]\n\n",
                     PSI_ERR_SYNTAX, "t.edn:2:3: ", "a map opened here is never closed");
    edn_expect_error("{:type :ok, :error \"abc\n", PSI_ERR_SYNTAX,
                     "t.edn:1:20: ", "string never closed");
    /* a map cannot close a vector, even lines later */
    edn_expect_error("{:type :ok, :value [[:w 1 1], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:41: ", "'}' cannot close a vector opened at line 1, column 20");
    edn_expect_error("{:type :ok,\n :value [[:w 1 1]\n ,\n :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:4:12: ", "'}' cannot close a vector opened at line 2, column 9");
    edn_expect_error("{:type :ok, :value [[:w 1 1]]]}\n", PSI_ERR_SYNTAX, "t.edn:1:30: ", "'}");
    edn_expect_error("{:type :ok, :process}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:21: ", "key without a value");
    edn_expect_error("{:type :ok, :f #}\n", PSI_ERR_SYNTAX, "t.edn:1:16: ", "unsupported dispatch");
    edn_expect_error("{:type :ok, :f #tag\n", PSI_ERR_SYNTAX,
                     "t.edn:1:16: ", "value was expected after the tag");
    edn_expect_error("{:type :ok, :s \"bad \\q escape\"}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:21: ", "invalid escape");
}

static void test_not_a_number(void **state)
{
    (void)state;
    /* keys and values other than integers are names (test_edn_names.c);
     * what is neither an integer nor a name is refused with its place */
    edn_expect_error("{:type :ok, :f :txn, :value [[:r 1 [1 nil]]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:39: ", "expected a list element (an integer, keyword, string");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 nil]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:36: ",
                     "expected a value (an integer, keyword, string or symbol), "
                     "found nil");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w [1] 1]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:34: ",
                     "expected a key (an integer, keyword, string or symbol), "
                     "found a vector");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 2.5]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:36: ", "found a non-integer number '2.5'");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w \\a 2]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:34: ", "found a character");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 2]], :process -3}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:50: ", "negative :process '-3'");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 2]], :process 1, :index :a}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:60: ", "expected an integer :index");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 12ab]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:36: ", "malformed number '12ab'");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 012]], :process 0}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:36: ", "leading zeros");
}

static void test_not_a_map(void **state)
{
    (void)state;
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
                     "  [:type :ok]\n",
                     PSI_ERR_SYNTAX, "t.edn:2:3: ", "expected an operation map");
    edn_expect_error(":ok\n", PSI_ERR_SYNTAX, "t.edn:1:1: ", "found a keyword");
    /* several maps on a line are read; the second one's error is placed */
    edn_expect_error("{:type :ok, :value [], :process 0} {:type :ok, :value []}\n", PSI_ERR_INPUT,
                     "t.edn:1:36: ", "some transactions have a :process");
    edn_expect_error("{:f :txn, :process 0}\n", PSI_ERR_SYNTAX, "t.edn:1:1: ", "no :type");
    edn_expect_error("{:type :ok, :f :txn, :value []}\n{:type :ok, :f :txn, :value [], "
                     ":process 1}\n",
                     PSI_ERR_INPUT, "t.edn:2:1: ", "this transaction has a :process");
    edn_expect_error("{:type :fail, :f :txn}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:1: ", "without :process needs a :value");
    edn_expect_error("{:type :done, :f :txn, :process 1}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:8: ", "unknown :type ':done'");
    edn_expect_error("{:type :ok, :type :ok}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:13: ", "duplicate key :type");
    edn_expect_error("{:type :ok, :f :txn, :process 1}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:1: ", "needs a :value");
    edn_expect_error("{:type :ok, :f :txn, :process 1, :value {:a 1}}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:41: ", "vector of micro-ops");
    edn_expect_error("{:type :ok, :f :txn, :process 1, :value [:w 1 1]}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:42: ", "expected a micro-op");
    edn_expect_error("{:type :ok, :f :txn, :process 1, :value [[:w 1]]}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:42: ", "has 2 elements");
    edn_expect_error("{:type :ok, :f :txn, :process 1, :value [[\"w\" 1 1]]}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:43: ", "starts with :r, :w or :append");
    edn_expect_error("{:type :ok,\x01 :f :txn, :process 1, :value [[:w 1 1]]}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:12: ", "control character");
    /* columns count characters, not bytes: 'é' is two bytes, one column */
    edn_expect_error("{:s \"\xc3\xa9\", :type :ok, :f :txn, :process 1, :value [[:w 1 1.5]]}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:56: ", "found a non-integer number '1.5'");
}

static void test_unknown_micro_op(void **state)
{
    (void)state;
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
                     "{:type :ok, :f :txn, :value [[:r 1 1] [:cas 1 [1 2]]], :process 0}\n",
                     PSI_ERR_INPUT, "t.edn:2:40: ", "unsupported micro-op ':cas'");
    /* also in an uncompleted invoke, reported at the invoke's line */
    edn_expect_error("{:type :invoke, :f :txn, :value [[:inc 1 1]], :process 0}\n"
                     "{:type :ok, :f :txn, :value [[:w 1 1]], :process 1}\n",
                     PSI_ERR_INPUT, "t.edn:1:35: ", "unsupported micro-op ':inc'");
}

static void test_overflow(void **state)
{
    (void)state;
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 18446744073709551616]], :process 0}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:36: ", "does not fit 64 bits");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 99999999999999999999999 1]], :process 0}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:34: ", "integer key '99999999999999999999999'");
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 1]], :process 0x1FFFFFFFFFFFFFFFF}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:50: ", "does not fit 64 bits");
}

static void test_process_reinvokes(void **state)
{
    (void)state;
    edn_expect_error("{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0}\n"
                     "{:type :invoke, :f :txn, :value [[:w 1 2]], :process 0}\n",
                     PSI_ERR_INPUT, "t.edn:2:1: ", "invoked on line 1 has not completed");
}

static void test_deep_nesting(void **state)
{
    (void)state;
    size_t n = 100000;
    char *text = malloc(n + 64);
    assert_non_null(text);
    strcpy(text, "{:type :ok, :x ");
    size_t k = strlen(text);
    memset(text + k, '[', n);
    strcpy(text + k + n, "\n");
    /* the map is depth 0, the first '[' (column 16) depth 1: the 100th '['
     * is depth 100, column 115; likewise the 100th #_ (column 16 + 2 * 99) and
     * the 100th tag (column 16 + 3 * 99) */
    edn_expect_error(text, PSI_ERR_LIMIT, "t.edn:1:115: ", "nested more than 100 deep");
    for (size_t i = 0; i < n; i += 2)
        memcpy(text + k + i, "#_", 2);
    edn_expect_error(text, PSI_ERR_LIMIT, "t.edn:1:214: ", "nested more than 100 deep");
    for (size_t i = 0; i + 3 <= n; i += 3)
        memcpy(text + k + i, "#a ", 3);
    edn_expect_error(text, PSI_ERR_LIMIT, "t.edn:1:313: ", "nested more than 100 deep");
    free(text);
}

/* Every prefix of a valid history either reads or fails cleanly (the
 * sanitizers check for overreads and leaks). */
static void test_every_prefix(void **state)
{
    (void)state;
    const char *text =
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:append 2 3]], :process 0, :index 0}\n"
        "{:type :ok, :f :txn, :value [[:r 1 \"x\\u0041\"] [:append 2 3]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:r 2 [3]] [:w 1 4]], :process 1, :e #{#_1 \\c}}\n";
    size_t len = strlen(text);
    for (size_t i = 0; i <= len; i++) {
        char *buf = malloc(i ? i : 1);
        assert_non_null(buf);
        memcpy(buf, text, i);
        psi_history *h;
        psi_diag d;
        psi_status st = psi_read_edn_buf("p.edn", buf, i, 0, &h, &d);
        if (st == PSI_OK)
            psi_history_free(h);
        else
            assert_null(h);
        free(buf);
    }
}

/* Elle's own test histories: no :process, keyword-free here; each
 * completion is a transaction of its own session, invokes are skipped and
 * the history's note says so. Jepsen's long-fork workload: :f :read with a
 * list of micro-ops is a transaction, and so is its :fail completion
 * without :value; a register's :f :read stays skipped. */
static void test_processless_and_f_read(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read("{:type :invoke, :value [[:append 1 1]]}\n"
                              "{:type :ok, :value [[:append 1 1]]}\n"
                              "{:type :ok, :value [[:r 1 [1]] [:append 1 2]]}\n"
                              "{:type :fail, :value [[:append 2 5]]}\n",
                              &h, &d),
                     PSI_OK);
    assert_int_equal(h->n_sessions, 3);
    assert_int_equal(h->n_txns, 4);
    assert_non_null(h->note);
    assert_non_null(strstr(h->note, "each transaction is its own session"));
    assert_int_equal(edn_txn(h, 1, 0)->src, 3);
    assert_int_equal(edn_txn(h, 2, 0)->status, PSI_TXN_ABORTED);
    psi_history_free(h);

    assert_int_equal(
        edn_read("{:type :invoke, :f :read, :value [[:r 1 nil] [:r 2 nil]], :process 0}\n"
                 "{:type :invoke, :f :write, :value [[:w 1 1]], :process 1}\n"
                 "{:type :ok, :f :read, :value [[:r 1 nil] [:r 2 nil]], :process 0}\n"
                 "{:type :invoke, :f :read, :value [[:r 2 nil]], :process 0}\n"
                 "{:type :fail, :f :read, :process 0}\n"
                 "{:type :ok, :f :write, :value [[:w 1 1]], :process 1}\n"
                 "{:type :invoke, :f :read, :value nil, :process 2}\n"
                 "{:type :ok, :f :read, :value 3, :process 2}\n"
                 "{:type :fail, :f :cas, :value [1 2], :process 2}\n",
                 &h, &d),
        PSI_OK);
    assert_null(h->note);
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->n_txns, 4);
    const psi_txn *t = edn_txn(h, 0, 0);
    assert_int_equal(t->n_ops, 2);
    edn_assert_op(h, t, 1, PSI_OP_READ, 2, 0, PSI_OPF_INIT);
    assert_int_equal(edn_txn(h, 0, 1)->status, PSI_TXN_ABORTED);
    assert_int_equal(edn_txn(h, 1, 0)->n_ops, 1);
    psi_history_free(h);
}

/* Pretty-printed histories: maps spanning lines, several maps on a line,
 * comments and discards between and inside maps, commas as whitespace, a
 * string holding a newline. Transactions are attributed to the line their
 * map starts on, and errors deep in a map name their own line. */
static void test_multi_line_maps(void **state)
{
    (void)state;
    const char *text = "; a pretty-printed history\n"
                       "[{:type :invoke,\n"
                       "  :f :txn,\n"
                       "  :value [[:r 1 nil]\n"
                       "          [:w 1 1]],\n"
                       "  :process 0}\n"
                       " #_{:type :ok, :process 9, :f :txn, :value [[:w 9 9]]}\n"
                       " {:type :ok, ; the completion\n"
                       "  :f :txn, :error \"two\nlines\",\n"
                       "  :value [[:r 1 nil] [:w 1 1]],\n"
                       "  :process 0} {:type :ok, :f :txn, :value [[:r 1 1]], :process 1}\n"
                       "]\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_txns, 3);
    assert_int_equal(h->n_sessions, 2);
    const psi_txn *t = edn_txn(h, 0, 0);
    assert_int_equal(t->src, 8); /* the completion's first line */
    assert_int_equal(t->n_ops, 2);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 0, PSI_OPF_INIT);
    edn_assert_op(h, t, 1, PSI_OP_WRITE, 1, 1, 0);
    t = edn_txn(h, 1, 0);
    assert_int_equal(t->src, 12);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 1, 0);
    psi_history_free(h);

    edn_expect_error("{:type :ok,\n :f :txn,\n :value [[:r 1 nil]\n         [:cas 1 2 3]],\n"
                     " :process 0}\n",
                     PSI_ERR_INPUT, "t.edn:4:11: ", "unsupported micro-op ':cas'");
    edn_expect_error("{:type :ok,\n :value [[:w 1 1]],\n :process\n -3}\n", PSI_ERR_SYNTAX,
                     "t.edn:4:2: ", "negative :process '-3'");
}

/* The whole history as one vector, one map per line (jepsen.history's
 * printed form). */
static void test_wrapped_vector(void **state)
{
    (void)state;
    const char *text =
        "[{:type :invoke, :f :txn, :value [[:w 2 1]], :process 0, :index 0}\n"
        " {:type :invoke, :f :txn, :value [[:r 0 nil] [:w 1 1]], :process 2, :index 1}\n"
        " {:type :fail, :f :txn, :value [[:r 0 nil] [:w 1 1]], :process 2, :index 2, "
        ":error [:duplicate-key \"etcd: duplicate key\"]}\n"
        " {:type :ok, :f :txn, :value [[:w 2 1]], :process 0, :index 3}\n"
        " {:type :invoke, :f :txn, :value [[:w 3 3]], :process 4, :index 4}]\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    assert_int_equal(h->n_txns, 4);
    edn_assert_op(h, edn_txn(h, 0, 0), 0, PSI_OP_WRITE, 2, 1, 0);
    assert_int_equal(edn_txn(h, 0, 0)->id, 3);
    assert_int_equal(edn_txn(h, 2, 0)->status, PSI_TXN_ABORTED);
    assert_int_equal(edn_txn(h, 4, 0)->status, PSI_TXN_UNKNOWN);
    assert_int_equal(edn_txn(h, 4, 0)->id, 4);
    psi_history_free(h);

    /* the first line's invoke, never completed, is found again */
    const char *first = "[\n{:type :invoke, :f :txn, :value [[:w 3 3]], :process 4}\n]\n";
    assert_int_equal(edn_read(first, &h, &d), PSI_OK);
    edn_assert_op(h, edn_txn(h, 4, 0), 0, PSI_OP_WRITE, 3, 3, 0);
    psi_history_free(h);
    const char *same_line = "[{:type :invoke, :f :txn, :value [[:w 3 3]], :process 4}]";
    assert_int_equal(edn_read(same_line, &h, &d), PSI_OK);
    edn_assert_op(h, edn_txn(h, 4, 0), 0, PSI_OP_WRITE, 3, 3, 0);
    psi_history_free(h);

    edn_expect_error("[{:type :ok, :f :txn, :value [[:w 2 1]], :process 0}\n"
                     " {:type :ok, :f :txn, :value [[:w 2 2]], :process 0}  \n\n",
                     PSI_ERR_SYNTAX,
                     "t.edn:1:1: ", "the history vector opened here is never closed");
    edn_expect_error("[{:type :ok, :f :txn, :value [[:w 2 1]], :process 0}]\n"
                     "{:type :ok, :f :txn, :value [[:w 2 2]], :process 0}\n",
                     PSI_ERR_SYNTAX, "t.edn:2:1: ", "text after the ']'");
    edn_expect_error("[{:type :ok, :f :txn, :value [[:w 2 1]], :process 0}] ]\n", PSI_ERR_SYNTAX,
                     "t.edn:1:55: ",
                     "text after the ']' that closed the history vector opened "
                     "at line 1, column 1");
}

/* Random mutations of a valid history never crash, leak or return a
 * partial history; every failure names the file. */
static void test_mutations(void **state)
{
    (void)state;
    const char *text =
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:append 2 3]], :process 0, :index 0}\n"
        "{:type :invoke, :f :txn, :value [[:w 4 1]], :process 1, :index 1}\n"
        "#jepsen.history.Op{:type :ok, :f :txn, :value [[:r 1 nil] [:append 2 3]], "
        ":process 0, :index 2}\n"
        "{:type :info, :f :txn, :value nil, :process 1, :index 3, :error #object[E 0x1 \"x\"]}\n"
        "{:type :fail, :f :txn, :value [[:r 2 [3]] [:w 1 4]], :process 2, :e #{#_1 \\c}}\n";
    static const char alphabet[] = "[]{}()#_:\"\\ ,;\n0123456789-+NMxe.nil/";
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    uint64_t rng = 0x9E3779B97F4A7C15u;
    unsigned ok = 0;
    for (unsigned iter = 0; iter < 20000; iter++) {
        memcpy(buf, text, len);
        unsigned k = 1 + (unsigned)(rng % 4);
        for (unsigned j = 0; j < k; j++) {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            buf[rng % len] = alphabet[(rng >> 32) % (sizeof alphabet - 1)];
        }
        psi_history *h;
        psi_diag d;
        psi_status st = psi_read_edn_buf("m.edn", buf, len, 0, &h, &d);
        if (st == PSI_OK) {
            ok++;
            psi_history_free(h);
        } else {
            assert_null(h);
            assert_true(strncmp(d.msg, "m.edn:", 6) == 0);
        }
    }
    assert_true(ok > 0);
    free(buf);
}

/* Hostile inputs (issue 12): a 10^6-element vector, a keyword key 64 KB
 * long, integer and keyword keys mixed on one key space, invalid UTF-8 in
 * a string; each an error at its line:column, never a crash. */
static void test_hostile(void **state)
{
    (void)state;
    enum { N = 1000000, LONG_KEY = 65536 };
    const char *head = "{:type :ok, :process 0, :value [";
    size_t hl = strlen(head);
    char *text = malloc(hl + 2 * (size_t)N + 8);
    assert_non_null(text);
    memcpy(text, head, hl);
    char *q = text + hl;
    for (int i = 0; i < N; i++) {
        *q++ = '1';
        *q++ = ' ';
    }
    strcpy(q, "]}\n");
    edn_expect_error(text, PSI_ERR_SYNTAX, "t.edn:1:33: ", "expected a micro-op");
    /* the same vector in an ignored field is legal EDN */
    const char *head2 = "{:type :ok, :process 0, :value [[:w 1 1]], :x [";
    size_t h2 = strlen(head2);
    char *text2 = malloc(h2 + 2 * (size_t)N + 8);
    assert_non_null(text2);
    memcpy(text2, head2, h2);
    memcpy(text2 + h2, text + hl, 2 * (size_t)N + 4);
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text2, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 1);
    psi_history_free(h);
    free(text2);
    free(text);

    const char *pre = "{:type :ok, :process 0,\n :value [[:w 1 1] [:r :";
    size_t pl = strlen(pre);
    char *key = malloc(pl + LONG_KEY + 16);
    assert_non_null(key);
    memcpy(key, pre, pl);
    memset(key + pl, 'k', LONG_KEY);
    strcpy(key + pl + LONG_KEY, " 1]]}\n");
    /* A keyword key 64 KB long is accepted and kept whole (no limit but
     * memory: README); integer key 1 then becomes the name "1". */
    assert_int_equal(edn_read(key, &h, &d), PSI_OK);
    assert_int_equal(h->n_keys, 2);
    assert_non_null(h->key_names);
    assert_string_equal(h->key_names[0], "1");
    assert_int_equal(strlen(h->key_names[1]), LONG_KEY + 1);
    assert_memory_equal(h->key_names[1], pre + pl - 1, 1);
    for (size_t i = 1; i <= LONG_KEY; i++)
        assert_true(h->key_names[1][i] == 'k');
    assert_int_equal(h->ops[1].key, 1);
    psi_history_free(h);
    free(key);

    /* Integer and keyword keys on one key space: 1 and :1 are two keys. */
    assert_int_equal(edn_read("{:type :ok, :process 0, :value [[:w 1 1]]}\n"
                              "{:type :ok, :process 1, :value [[:r :1 1] [:r 1 1]]}\n",
                              &h, &d),
                     PSI_OK);
    assert_int_equal(h->n_keys, 2);
    char kb[24];
    assert_string_equal(psi_history_key_name(h, h->ops[0].key, kb), "1");
    assert_string_equal(psi_history_key_name(h, h->ops[1].key, kb), ":1");
    assert_int_equal(h->ops[2].key, h->ops[0].key);
    assert_null(h->value_names); /* values all integers: unchanged */
    assert_int_equal(h->ops[1].value, 1);
    psi_history_free(h);
    edn_expect_error("{:type :ok, :process 0, :value [[:w 1 1]],\n :error \"caf\xc3\xa9 \xff\"}\n",
                     PSI_ERR_SYNTAX, "t.edn:2:15: ", "invalid UTF-8 (byte 0xff) in string");
    edn_expect_error("{:type :ok, :error \"\xed\xa0\x80\"}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:21: ", "invalid UTF-8"); /* a surrogate */
    edn_expect_error("{:type :ok, :error \"\xc0\xaf\"}\n", PSI_ERR_SYNTAX,
                     "t.edn:1:21: ", "invalid UTF-8"); /* overlong '/' */
    assert_int_equal(
        edn_read("{:type :ok, :process 0, :value [[:w 1 1]], :e \"\xf0\x9f\x99\x82\"}\n", &h, &d),
        PSI_OK);
    psi_history_free(h);
}

/* Keywords, strings, symbols, booleans and negative integers as keys and
 * values, list-append values too; a read the reader drops names nothing;
 * EDN -> EDN keeps every spelling. */
/* A string has one value however it is written: escapes (\u, octal, \t)
 * and raw tabs are decoded and spelled one way, so a read written with an
 * escape finds the write written without one. A lone surrogate has no
 * character: refused at its line:column. */
static void test_string_spellings(void **state)
{
    (void)state;
    const char *text =
        "{:type :ok, :f :txn, :value [[:w \"k\" \"ab\"] [:w :t \"a\tb\"]], :process 0, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:r \"\\u006b\" \"a\\u0062\"] [:r :t \"a\\tb\"] "
        "[:r \"k\" \"a\\142\"]], :process 1, :index 2}\n";
    psi_history *h;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    const psi_op *w = h->ops + edn_txn(h, 0, 0)->first_op;
    const psi_op *r = h->ops + edn_txn(h, 1, 0)->first_op;
    assert_int_equal(h->n_keys, 2);
    assert_int_equal(r[0].key, w[0].key);
    assert_int_equal(r[0].value, w[0].value);
    assert_int_equal(r[1].value, w[1].value);
    assert_int_equal(r[2].value, w[0].value);
    char vb[24];
    assert_string_equal(psi_history_value_name(h, w[1].value, vb), "\"a\\tb\"");
    psi_history_free(h);
    edn_expect_error("{:type :ok, :f :txn, :value [[:w 1 \"a\\ud800\"]], :process 0}\n",
                     PSI_ERR_SYNTAX, "t.edn:1:38: ", "unpaired surrogate");
}

static void test_named_keys_and_values(void **state)
{
    (void)state;
    const char *text =
        "{:type :ok, :f :txn, :value [[:w :x a] [:w \"acct 1\" -5] [:append sym :e1]], "
        ":process 0, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:r :x a] [:r \"acct 1\" -5] [:r sym [:e1]] "
        "[:r :ns/k true]], :process 1, :index 2}\n"
        "{:type :info, :f :txn, :value [[:r :gone :never] [:w 7 8]], :process 2, :index 3}\n";
    psi_history *h, *back;
    psi_diag d;
    assert_int_equal(edn_read(text, &h, &d), PSI_OK);
    char kb[24], vb[24];
    const psi_txn *t = edn_txn(h, 0, 0);
    const psi_op *o = h->ops + t->first_op;
    assert_string_equal(psi_history_key_name(h, o[0].key, kb), ":x");
    assert_string_equal(psi_history_value_name(h, o[0].value, vb), "a");
    assert_string_equal(psi_history_key_name(h, o[1].key, kb), "\"acct 1\"");
    assert_string_equal(psi_history_value_name(h, o[1].value, vb), "-5");
    assert_string_equal(psi_history_key_name(h, o[2].key, kb), "sym");
    assert_true(o[2].flags & PSI_OPF_APPEND);
    t = edn_txn(h, 1, 0);
    o = h->ops + t->first_op;
    assert_int_equal(o[0].key, h->ops[edn_txn(h, 0, 0)->first_op].key);
    assert_int_equal(o[0].value, h->ops[edn_txn(h, 0, 0)->first_op].value);
    uint32_t n;
    const uint64_t *l = psi_history_list(h, t->first_op + 2, &n);
    assert_int_equal(n, 1);
    assert_string_equal(psi_history_value_name(h, l[0], vb), ":e1");
    assert_string_equal(psi_history_key_name(h, o[3].key, kb), ":ns/k");
    assert_string_equal(psi_history_value_name(h, o[3].value, vb), "true");
    /* the :info read is dropped and :gone is no key; 7 is "7" */
    assert_int_equal(h->n_keys, 5);
    for (uint32_t k = 0; k < h->n_keys; k++)
        assert_string_not_equal(h->key_names[k], ":gone");
    t = edn_txn(h, 2, 0);
    assert_int_equal(t->n_ops, 1);
    assert_string_equal(psi_history_key_name(h, h->ops[t->first_op].key, kb), "7");
    assert_string_equal(psi_history_value_name(h, h->ops[t->first_op].value, vb), "8");

    char path[64];
    edn_temp_path(path);
    assert_int_equal(psi_write_edn(h, path, &d), PSI_OK);
    size_t len;
    char *out = edn_slurp(path, &len);
    assert_non_null(strstr(out, "[:w \"acct 1\" -5]"));
    assert_non_null(strstr(out, "[:r sym [:e1]]"));
    assert_int_equal(psi_read_edn_buf(path, out, len, 0, &back, &d), PSI_OK);
    edn_assert_equivalent(h, back);
    psi_history_free(back);
    free(out);
    unlink(path);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rw_register),
        cmocka_unit_test(test_list_append),
        cmocka_unit_test(test_ok_fail_info),
        cmocka_unit_test(test_multi_line_maps),
        cmocka_unit_test(test_hostile),
        cmocka_unit_test(test_named_keys_and_values),
        cmocka_unit_test(test_string_spellings),
        cmocka_unit_test(test_processless_and_f_read),
        cmocka_unit_test(test_interleaved),
        cmocka_unit_test(test_completions_only),
        cmocka_unit_test(test_ids),
        cmocka_unit_test(test_edn_syntax),
        cmocka_unit_test(test_u64_range),
        cmocka_unit_test(test_max_ops),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_truncated),
        cmocka_unit_test(test_not_a_number),
        cmocka_unit_test(test_not_a_map),
        cmocka_unit_test(test_unknown_micro_op),
        cmocka_unit_test(test_overflow),
        cmocka_unit_test(test_process_reinvokes),
        cmocka_unit_test(test_deep_nesting),
        cmocka_unit_test(test_every_prefix),
        cmocka_unit_test(test_mutations),
        cmocka_unit_test(test_wrapped_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
