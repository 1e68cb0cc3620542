/* The Jepsen JSON reader (formats/json_scan.c + read_edn.c): every JSON
 * construct of a history, the same history read from EDN and from JSON
 * giving identical histories (so the EDN reader's semantics, pinned down
 * in test_read_edn.c, carry over), the JSON writer's round trip, format
 * detection, and every kind of bad or hostile input with its exact
 * line:column. */
#include "edn_helpers.h"

#include "core/history.h"

static psi_status json_read(const char *text, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_json_buf("t.json", text, strlen(text), 0, h, d);
}

static void json_expect_error(const char *text, psi_status st, const char *prefix, const char *part)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    psi_status got = json_read(text, &h, &d);
    if (got != st || strncmp(d.msg, prefix, strlen(prefix)) != 0 || (part && !strstr(d.msg, part)))
        print_error("input: %.200s\nexpected %s \"%s...%s...\"\ngot      %s \"%s\"\n", text,
                    psi_status_name(st), prefix, part ? part : "", psi_status_name(got), d.msg);
    assert_int_equal(got, st);
    assert_true(strncmp(d.msg, prefix, strlen(prefix)) == 0);
    if (part)
        assert_non_null(strstr(d.msg, part));
    assert_null(h);
}

/* Reads the same history written in EDN and in JSON, line for line, and
 * asserts the two are identical (sources of transactions included). */
static void assert_same_as_edn(const char *edn, const char *json)
{
    psi_history *a, *b;
    psi_diag d;
    if (edn_read(edn, &a, &d) != PSI_OK)
        fail_msg("EDN: %s", d.msg);
    if (json_read(json, &b, &d) != PSI_OK)
        fail_msg("JSON: %s", d.msg);
    assert_int_equal(a->format, PSI_FMT_EDN);
    assert_int_equal(b->format, PSI_FMT_JSON);
    edn_assert_same(a, b, true);
    assert_true((a->note == NULL) == (b->note == NULL));
    psi_history_free(a);
    psi_history_free(b);
}

/* Invoke/completion pairing, :ok/:fail/:info, nil reads, ids from :index,
 * the invoke's value used for a completion without one, a process that
 * never completes, nemesis ops and non-transaction ops skipped. */
static void test_same_as_edn_register(void **state)
{
    (void)state;
    const char *edn =
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 0, :index 0}\n"
        "{:type :invoke, :f :txn, :value [[:w 2 5]], :process 1, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:r 1 nil] [:w 1 3]], :process 0, :index 2}\n"
        "{:type :fail, :f :txn, :value nil, :process 1, :index 3}\n"
        "{:type :info, :f :start, :process :nemesis, :index 4}\n"
        "{:type :invoke, :f :txn, :value [[:r 1 nil] [:w 2 7]], :process 0, :index 5}\n"
        "{:type :info, :f :txn, :value [[:r 1 3] [:w 2 7]], :process 0, :index 6}\n"
        "{:type :invoke, :f :read, :value nil, :process 3, :index 7}\n"
        "{:type :ok, :f :read, :value 4, :process 3, :index 8}\n"
        "{:type :invoke, :f :txn, :value [[:r 2 nil]], :process 1, :index 9}\n"
        "{:type :fail, :f :txn, :value [[:r 2 nil] [:r 1 3]], :process 1, :index 10}\n"
        "{:type :ok, :f :txn, :value [[:r 2 0]], :process 4, :index 11}\n"
        "{:type :invoke, :f :txn, :value [[:w 9 9]], :process 5, :index 12}\n";
    const char *json =
        "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",1,null],[\"w\",1,3]],\"process\":0,"
        "\"index\":0}\n"
        "{\"type\": \"invoke\", \"f\": \"txn\", \"value\": [[\"w\", 2, 5]], \"process\": 1, "
        "\"index\": 1}\n"
        "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",1,null],[\"w\",1,3]],\"process\":0,"
        "\"index\":2}\n"
        "{\"type\":\"fail\",\"f\":\"txn\",\"value\":null,\"process\":1,\"index\":3}\n"
        "{\"type\":\"info\",\"f\":\"start\",\"process\":\"nemesis\",\"index\":4}\n"
        "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",1,null],[\"w\",2,7]],\"process\":0,"
        "\"index\":5}\n"
        "{\"type\":\"info\",\"f\":\"txn\",\"value\":[[\"r\",1,3],[\"w\",2,7]],\"process\":0,"
        "\"index\":6}\n"
        "{\"type\":\"invoke\",\"f\":\"read\",\"value\":null,\"process\":3,\"index\":7}\n"
        "{\"type\":\"ok\",\"f\":\"read\",\"value\":4,\"process\":3,\"index\":8}\n"
        "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",2,null]],\"process\":1,\"index\":9}\n"
        "{\"type\":\"fail\",\"f\":\"txn\",\"value\":[[\"r\",2,null],[\"r\",1,3]],\"process\":1,"
        "\"index\":10}\n"
        "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",2,0]],\"process\":4,\"index\":11}\n"
        "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"w\",9,9]],\"process\":5,\"index\":12}\n";
    assert_same_as_edn(edn, json);
}

/* List-append micro-ops and reads, other fields of every JSON type
 * (ignored), escapes and UTF-8 in ignored strings, the observed mark. */
static void test_same_as_edn_list_append(void **state)
{
    (void)state;
    const char *edn =
        "{:type :invoke, :f :txn, :value [[:append 7 1] [:r 7 nil]], :process 3}\n"
        "{:type :ok, :f :txn, :value [[:append 7 1] [:r 7 [1]]], :process 3, :time 1.5e3}\n"
        "{:type :ok, :f :txn, :value [[:r 7 [1 2 3]] [:r 8 []] [:r 9 nil]], :process 4}\n"
        "{:type :fail, :f :txn, :value [[:r 8 nil] [:append 8 4]], :process 5, :polysi/reads "
        ":observed}\n";
    const char *json =
        "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"append\",7,1],[\"r\",7,null]],"
        "\"process\":3,\"x\":{\"a\":[true,false,null,-0.5e-3,\"\\u00e9\\\"\\\\\\/\\b\\f\\n\\r\\t\"]"
        "}}\n"
        "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"append\",7,1],[\"r\",7,[1]]],\"process\":3,"
        "\"time\":1.5e3}\n"
        "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",7,[1,2,3]],[\"r\",8,[]],[\"r\",9,null]],"
        "\"process\":4,\"note\":\"caf\xc3\xa9 \xf0\x9f\x98\x80 \\ud83d\\ude00\"}\n"
        "{\"type\":\"fail\",\"f\":\"txn\",\"value\":[[\"r\",8,null],[\"append\",8,4]],\"process\":"
        "5,\"polysi/reads\":\"observed\"}\n";
    assert_same_as_edn(edn, json);
}

/* One array around the whole history, pretty-printed over several lines,
 * operations without :process (each its own session), and a UTF-8 byte
 * order mark. */
static void test_same_as_edn_array_pretty(void **state)
{
    (void)state;
    const char *edn = "[{:type :ok,\n"
                      "  :value [[:w 1 2]]}\n"
                      " {:type :ok,\n"
                      "  :value [[:r 1 2]]}\n"
                      "]\n";
    const char *json = "\xef\xbb\xbf[{\"type\": \"ok\",\n"
                       "  \"value\": [[\"w\", 1, 2]]},\n"
                       " {\"type\": \"ok\",\n"
                       "  \"value\": [[\"r\", 1, 2]]}\r\n"
                       "]\n";
    assert_same_as_edn(edn, json);
    assert_same_as_edn("[{:type :ok, :value [[:w 1 2]]}]", "[{\"type\":\"ok\",\"value\":[[\"w\","
                                                           "1,2]]}]");
}

/* Integers: the largest u64, hex-free JSON numbers, -0. */
/* Map keys and names written with escapes are the names they decode to:
 * "typ\u0065" is "type", "\u006fk" is "ok", "\/" is "/"; an escape that
 * decodes to something else is not taken for the name. */
static void test_escaped_names(void **state)
{
    (void)state;
    const char *edn = "{:type :ok, :f :txn, :value [[:w 1 3] [:r 2 nil]], :process 0}\n"
                      "{:type :ok, :f :txn, :value [[:r 1 3]], :process 1}\n";
    const char *json =
        "{\"typ\\u0065\":\"\\u006fk\",\"\\u0066\":\"t\\u0078n\",\"valu\\u0065\":"
        "[[\"\\u0077\",1,3],[\"r\",2,null]],\"pro\\u0063ess\":0}\n"
        "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"\\u0072\",1,3]],\"\\u0070rocess\":1}\n";
    assert_same_as_edn(edn, json);
    /* "typ\u0065s" decodes to "types", not "type": the op has no type */
    json_expect_error("{\"typ\\u0065s\":\"ok\",\"f\":\"txn\",\"value\":[],\"process\":0}\n",
                      PSI_ERR_SYNTAX, "t.json:1:1: ", "the map has no :type");
    /* "ok\u0000" is not "ok" */
    json_expect_error("{\"type\":\"ok\\u0000\",\"f\":\"txn\",\"value\":[],\"process\":0}\n",
                      PSI_ERR_SYNTAX, "t.json:1:9: ", "unknown :type");
}

static void test_numbers(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    assert_int_equal(
        json_read("{\"type\":\"ok\",\"value\":[[\"w\",18446744073709551615,-0],[\"r\",0,1]]}", &h,
                  &d),
        PSI_OK);
    const psi_txn *t = &h->txns[1];
    edn_assert_op(h, t, 0, PSI_OP_WRITE, UINT64_MAX, 0, 0);
    edn_assert_op(h, t, 1, PSI_OP_READ, 0, 1, 0);
    psi_history_free(h);
}

/* Keys and values other than integers: strings (spelled canonically, so
 * "x" and "\u0078" are one key), negative integers, booleans; written
 * back as they were. */
static void test_names(void **state)
{
    (void)state;
    const char *json =
        "{\"type\":\"ok\",\"value\":[[\"w\",\"x\",\"a\\/b\"],[\"w\",-3,true]],\"process\":0}\n"
        "{\"type\":\"ok\",\"value\":[[\"r\",\"\\u0078\",\"a/b\"],[\"r\",-3,true],"
        "[\"r\",\"\\u00e9\\n\\ud83d\\ude00\",null]],\"process\":1}\n";
    psi_history *h, *b;
    psi_diag d;
    if (json_read(json, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(h->n_keys, 3);
    char buf[24];
    assert_string_equal(psi_history_key_name(h, h->ops[0].key, buf), "\"x\"");
    assert_int_equal(h->ops[0].key, h->ops[2].key);
    assert_string_equal(psi_history_value_name(h, h->ops[0].value, buf), "\"a/b\"");
    assert_int_equal(h->ops[0].value, h->ops[2].value);
    assert_string_equal(psi_history_key_name(h, h->ops[1].key, buf), "-3");
    assert_string_equal(psi_history_value_name(h, h->ops[3].value, buf), "true");
    assert_string_equal(psi_history_key_name(h, h->ops[4].key, buf),
                        "\"\xc3\xa9\\n\xf0\x9f\x98\x80\"");
    char path[64];
    edn_temp_path(path);
    psi_diag_clear(&d);
    assert_int_equal(psi_write_json(h, path, &d), PSI_OK);
    size_t len;
    char *text = edn_slurp(path, &len);
    psi_diag_clear(&d);
    if (psi_read_json_buf("w.json", text, len, 0, &b, &d) != PSI_OK)
        fail_msg("%s\n%s", d.msg, text);
    edn_assert_equivalent(h, b);
    for (uint32_t k = 0; k < h->n_keys; k++)
        assert_string_equal(h->key_names[k], b->key_names[k]);
    psi_history_free(b);
    free(text);
    /* Through EDN too: the canonical spelling is an EDN string. */
    psi_diag_clear(&d);
    assert_int_equal(psi_write_edn(h, path, &d), PSI_OK);
    text = edn_slurp(path, &len);
    psi_diag_clear(&d);
    if (psi_read_edn_buf("w.edn", text, len, 0, &b, &d) != PSI_OK)
        fail_msg("%s\n%s", d.msg, text);
    for (uint32_t k = 0; k < h->n_keys; k++)
        assert_string_equal(h->key_names[k], b->key_names[k]);
    psi_history_free(b);
    free(text);
    psi_history_free(h);
    /* A keyword has no JSON spelling: refused, and no file is left. */
    psi_diag_clear(&d);
    assert_int_equal(edn_read("{:type :ok, :value [[:w :k 1]], :process 0}\n", &h, &d), PSI_OK);
    unlink(path);
    psi_diag_clear(&d);
    assert_int_equal(psi_write_json(h, path, &d), PSI_ERR_INPUT);
    assert_non_null(strstr(d.msg, "cannot write as json"));
    assert_non_null(strstr(d.msg, ":k"));
    assert_int_not_equal(access(path, F_OK), 0);
    psi_history_free(h);
}

/* What psi_write_json writes reads back as the same history. */
static void test_writer_round_trip(void **state)
{
    (void)state;
    const char *edn = "{:type :ok, :value [[:r 1 nil] [:w 1 3] [:w 2 0]], :process 0, :index 4}\n"
                      "{:type :fail, :value [[:r 1 nil] [:w 1 5]], :process 1, :index 5, "
                      ":polysi/reads :observed}\n"
                      "{:type :info, :value [[:r 1 3] [:w 2 6]], :process 1, :index 6, "
                      ":polysi/reads :observed}\n"
                      "{:type :ok, :value [[:append 9 1] [:r 9 [1]] [:r 8 []]], :process 2, "
                      ":index 7}\n"
                      "{:type :ok, :value [], :process 2, :index 8}\n";
    psi_history *a, *b;
    psi_diag d;
    assert_int_equal(edn_read(edn, &a, &d), PSI_OK);
    char path[64];
    edn_temp_path(path);
    psi_diag_clear(&d);
    assert_int_equal(psi_write_json(a, path, &d), PSI_OK);
    size_t len;
    char *text = edn_slurp(path, &len);
    unlink(path);
    assert_non_null(strstr(text, "\"polysi/reads\":\"observed\""));
    psi_diag_clear(&d);
    if (psi_read_json_buf("w.json", text, len, 0, &b, &d) != PSI_OK)
        fail_msg("%s\n%s", d.msg, text);
    edn_assert_equivalent(a, b);
    free(text);
    psi_history_free(a);
    psi_history_free(b);
}

/* Content and name detection: JSON by its first key, EDN otherwise. */
static void test_detect(void **state)
{
    (void)state;
    static const struct {
        const char *text, *suffix;
        psi_format want;
    } cases[] = {
        {"{\"type\":\"ok\"}\n", "", PSI_FMT_JSON},
        {"  [ \n {  \"type\":\"ok\"}]\n", "", PSI_FMT_JSON},
        {"{:type :ok}\n", "", PSI_FMT_EDN},
        {"[{:type :ok}]\n", "", PSI_FMT_EDN},
        {"[]\n", ".json", PSI_FMT_EDN}, /* content first: '[' alone is EDN's */
        {"nonsense\n", ".json", PSI_FMT_JSON},
        {"nonsense\n", ".jsonl", PSI_FMT_JSON},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[80];
        snprintf(path, sizeof path, "/tmp/psi-json-detect-%d-%zu%s", (int)getpid(), i,
                 cases[i].suffix);
        FILE *f = fopen(path, "wb");
        assert_non_null(f);
        fputs(cases[i].text, f);
        fclose(f);
        psi_format fmt;
        psi_diag d;
        psi_diag_clear(&d);
        assert_int_equal(psi_detect_format(path, &fmt, &d), PSI_OK);
        unlink(path);
        if (fmt != cases[i].want)
            fail_msg("case %zu: %s", i, psi_format_name(fmt));
    }
    assert_int_equal(psi_format_from_name("json"), PSI_FMT_JSON);
    assert_string_equal(psi_format_name(PSI_FMT_JSON), "json");
}

/* Syntax errors, each at its line:column. */
static void test_syntax_errors(void **state)
{
    (void)state;
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1,2]]\n\n{\"type\":\"ok\"}\n",
                      PSI_ERR_SYNTAX, "t.json:3:1:", "expected ',' or '}'");
    json_expect_error("{\"type\":\"ok\",\n \"value\":[[\"w\",1,2]],\n", PSI_ERR_SYNTAX,
                      "t.json:1:1:", "never closed");
    json_expect_error("[{\"type\":\"ok\",\"value\":[[\"w\",1,2]]},\n", PSI_ERR_SYNTAX,
                      "t.json:1:1:", "history array opened here is never closed");
    json_expect_error("[{\"type\":\"ok\",\"value\":[[\"w\",1,2]]},\n]", PSI_ERR_SYNTAX,
                      "t.json:2:1:", "no trailing commas");
    json_expect_error("[{\"type\":\"ok\",\"value\":[[\"w\",1,2]]}\n {\"type\":\"ok\"}]",
                      PSI_ERR_SYNTAX, "t.json:2:2:", "expected ',' or ']' between");
    json_expect_error("[{\"type\":\"ok\",\"value\":[[\"w\",1,2]]}]\n{}", PSI_ERR_SYNTAX,
                      "t.json:2:1:", "text after the ']'");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1,2],]}", PSI_ERR_SYNTAX,
                      "t.json:1:33:", "no trailing commas");
    json_expect_error("{\"type\":\"ok\",}", PSI_ERR_SYNTAX, "t.json:1:14:", "no trailing commas");
    json_expect_error("{type:\"ok\"}", PSI_ERR_SYNTAX, "t.json:1:2:", "expected a key");
    json_expect_error("{\"type\" \"ok\"}", PSI_ERR_SYNTAX, "t.json:1:9:", "expected ':'");
    json_expect_error("{\"type\":\"ok\", \"value\": [[\"w\", 1, tru]]}", PSI_ERR_SYNTAX,
                      "t.json:1:34:", "expected a JSON value");
    json_expect_error("{\"type\":'ok'}", PSI_ERR_SYNTAX, "t.json:1:9:", "found '''");
    json_expect_error("1\n", PSI_ERR_SYNTAX, "t.json:1:1:", "expected an operation object");
    json_expect_error("{\"type\":\"ok\",\"value\":[]} // c\n", PSI_ERR_SYNTAX,
                      "t.json:1:26:", "expected a JSON value");
    /* Numbers. */
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",01,2]]}", PSI_ERR_SYNTAX,
                      "t.json:1:28:", "leading zeros");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1.,2]]}", PSI_ERR_SYNTAX,
                      "t.json:1:28:", "decimal point");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1e,2]]}", PSI_ERR_SYNTAX,
                      "t.json:1:28:", "exponent");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",-,2]]}", PSI_ERR_SYNTAX,
                      "t.json:1:28:", "digit must follow");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",+1,2]]}", PSI_ERR_SYNTAX,
                      "t.json:1:28:", "expected a JSON value");
    json_expect_error("{\"type\":\"ok\",\n\"value\":[[\"w\",18446744073709551616,2]]}",
                      PSI_ERR_SYNTAX, "t.json:2:15:", "does not fit 64 bits");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1,-2.5]]}", PSI_ERR_SYNTAX,
                      "t.json:1:30:", "found a non-integer number");
    /* -2 is a value like "x" (issue 12: spelled, test_read_edn.c); null is none */
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1,null]]}", PSI_ERR_SYNTAX,
                      "t.json:1:30:", "found nil");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1,2.5]]}", PSI_ERR_SYNTAX,
                      "t.json:1:30:", "found a non-integer number");
}

static void test_string_errors(void **state)
{
    (void)state;
    json_expect_error("{\"type\":\"ok\",\"x\":\"a\\qb\"}", PSI_ERR_SYNTAX,
                      "t.json:1:20:", "invalid escape '\\q'");
    json_expect_error("{\"type\":\"ok\",\"x\":\"\\u12G4\"}", PSI_ERR_SYNTAX,
                      "t.json:1:19:", "four hex digits");
    json_expect_error("{\"type\":\"ok\",\"x\":\"\\udc00\"}", PSI_ERR_SYNTAX,
                      "t.json:1:19:", "low surrogate");
    json_expect_error("{\"type\":\"ok\",\"x\":\"\\ud800x\"}", PSI_ERR_SYNTAX,
                      "t.json:1:19:", "high surrogate");
    /* Invalid UTF-8: a stray continuation byte, an overlong form, a
     * surrogate, a truncated sequence; the column counts characters. */
    json_expect_error("{\"type\":\"ok\",\"x\":\"\xc3\xa9\x80\"}", PSI_ERR_SYNTAX,
                      "t.json:1:20:", "invalid UTF-8 (byte 0x80)");
    json_expect_error("{\"type\":\"ok\",\"x\":\"\xc0\xaf\"}", PSI_ERR_SYNTAX,
                      "t.json:1:19:", "invalid UTF-8");
    json_expect_error("{\"type\":\"ok\",\"x\":\"\xed\xa0\x80\"}", PSI_ERR_SYNTAX,
                      "t.json:1:19:", "invalid UTF-8");
    json_expect_error("{\"type\":\"ok\",\"x\":\"\xe2\x82\"}", PSI_ERR_SYNTAX,
                      "t.json:1:19:", "invalid UTF-8");
    /* A string not closed on its line: the raw newline is the error. */
    json_expect_error("{\"type\":\"ok\",\"x\":\"abc\n\"}", PSI_ERR_SYNTAX,
                      "t.json:1:22:", "control character (byte 0x0a)");
    json_expect_error("{\"type\":\"ok\",\"x\":\"abc", PSI_ERR_SYNTAX,
                      "t.json:1:18:", "string never closed");
    json_expect_error("{\"type\":\"ok\",\"x\":\"a\tb\"}", PSI_ERR_SYNTAX,
                      "t.json:1:20:", "control character (byte 0x09)");
}

/* Operation-level errors name the JSON value at fault. */
static void test_op_errors(void **state)
{
    (void)state;
    json_expect_error("{\"f\":\"txn\"}", PSI_ERR_SYNTAX, "t.json:1:1:", "no :type");
    json_expect_error("{\"type\":\"done\"}", PSI_ERR_SYNTAX, "t.json:1:9:", "unknown :type");
    json_expect_error("{\"type\":\"ok\",\"type\":\"ok\"}", PSI_ERR_SYNTAX,
                      "t.json:1:14:", "duplicate key");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"cas\",1,2]]}", PSI_ERR_INPUT,
                      "t.json:1:24:", "unsupported micro-op");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1]]}", PSI_ERR_SYNTAX,
                      "t.json:1:23:", "has 2 elements");
    json_expect_error("{\"type\":\"ok\",\"value\":[[1,1,2]]}", PSI_ERR_SYNTAX,
                      "t.json:1:24:", "starts with :r");
    json_expect_error("{\"type\":\"ok\",\"value\":{\"w\":1}}", PSI_ERR_SYNTAX,
                      "t.json:1:22:", "vector of micro-ops");
    json_expect_error("{\"type\":\"ok\",\"value\":[[\"w\",1,2]],\"process\":true}", PSI_ERR_SYNTAX,
                      "t.json:1:44:", "must be an integer");
    json_expect_error("", PSI_ERR_INPUT, "t.json:1:1:", "empty history");
    json_expect_error("[]", PSI_ERR_INPUT, "t.json:1:1:", "empty history");
    json_expect_error("{\"type\":\"info\",\"f\":\"start\",\"process\":\"nemesis\"}", PSI_ERR_INPUT,
                      "t.json:1:1:", "empty history");
}

/* Hostile inputs: huge, deep or long, each refused (or read) with a place
 * and without a crash. */
static void test_hostile(void **state)
{
    (void)state;
    /* Nesting far past the bound: refused where it becomes too deep. */
    enum { DEEP = 100000 };
    char *deep = malloc(DEEP + 64);
    assert_non_null(deep);
    strcpy(deep, "{\"type\":\"ok\",\"x\":");
    size_t n = strlen(deep);
    memset(deep + n, '[', DEEP);
    deep[n + DEEP] = '\0';
    json_expect_error(deep, PSI_ERR_LIMIT, "t.json:1:117:", "nested more than 100 deep");
    free(deep);

    /* A 10^6-element array as :value: an error at its first element. */
    enum { MANY = 1000000 };
    char *big = malloc(2 * MANY + 64);
    assert_non_null(big);
    strcpy(big, "{\"type\":\"ok\",\n\"value\":[");
    n = strlen(big);
    for (size_t i = 0; i < MANY; i++) {
        big[n++] = '1';
        big[n++] = i + 1 < MANY ? ',' : ']';
    }
    strcpy(big + n, "}\n");
    json_expect_error(big, PSI_ERR_SYNTAX, "t.json:2:10:", "expected a micro-op");
    /* The same array never closed: named at its '['. */
    big[n - 1] = ',';
    big[n] = '\0';
    json_expect_error(big, PSI_ERR_SYNTAX, "t.json:2:9:", "an array opened here is never closed");
    free(big);

    /* A 64 KB key: ignored (not a field the reader uses); as the micro-op
     * function, refused with its place. */
    enum { LONG = 65536 };
    char *lk = malloc(LONG + 128);
    assert_non_null(lk);
    strcpy(lk, "{\"");
    memset(lk + 2, 'k', LONG);
    strcpy(lk + 2 + LONG, "\":1,\"type\":\"ok\",\"value\":[[\"w\",1,2]]}");
    psi_history *h;
    psi_diag d;
    assert_int_equal(json_read(lk, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 1);
    psi_history_free(h);
    strcpy(lk, "{\"type\":\"ok\",\"value\":[[\"");
    n = strlen(lk);
    memset(lk + n, 'r', LONG);
    strcpy(lk + n + LONG, "\",1,2]]}");
    json_expect_error(lk, PSI_ERR_INPUT, "t.json:1:24:", "unsupported micro-op");
    /* Never closed: named at its opening quote. */
    lk[n + LONG] = '\0';
    json_expect_error(lk, PSI_ERR_SYNTAX, "t.json:1:24:", "string never closed");
    free(lk);

    /* A NUL byte inside and outside strings. */
    static const char nul[] = "{\"type\":\"ok\",\"x\":\"a\0b\"}";
    h = (psi_history *)1;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_json_buf("t.json", nul, sizeof nul - 1, 0, &h, &d), PSI_ERR_SYNTAX);
    assert_non_null(strstr(d.msg, "t.json:1:20:"));
    assert_null(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_as_edn_register),
        cmocka_unit_test(test_same_as_edn_list_append),
        cmocka_unit_test(test_same_as_edn_array_pretty),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_escaped_names),
        cmocka_unit_test(test_writer_round_trip),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_string_errors),
        cmocka_unit_test(test_op_errors),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
