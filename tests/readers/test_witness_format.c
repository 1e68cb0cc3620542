/* The witness text format (formats/witness.c) on its own, without a
 * history: what a good witness parses to (keys, transactions and the lines
 * they are on), every syntax error with its exact line:column message, the
 * writer's exact text, and a write followed by a parse giving the same
 * witness back. Checking a witness against a history is
 * tests/interpret/test_witness.c. */
#include "rd_util.h"

#include "formats/witness.h"

static psi_status parse(const char *text, size_t len, psi_witness *w, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_witness_parse("w", text, len, w, d);
}

static void assert_txn(const psi_witness *w, size_t i, uint64_t sid, uint64_t tid, uint64_t line)
{
    assert_true(i < w->n_tx);
    assert_int_equal(w->tx[i].sid, sid);
    assert_int_equal(w->tx[i].tid, tid);
    assert_int_equal(w->tx[i].line, line);
}

static void test_good_witness(void **state)
{
    (void)state;
    const char *text = "# written by hand\n"
                       "\n"
                       "  polysi-witness   1  \r\n"
                       "isolation\tser\n"
                       "key 7 (1,2) (2,8)\t(1,3)\n"
                       "   # a comment between lines\n"
                       "key 18446744073709551615\n"
                       "order (1,2) (2,8) (1,3)\n"
                       "key 9 (3,4)";
    psi_witness w;
    psi_diag d;
    assert_int_equal(parse(text, strlen(text), &w, &d), PSI_OK);
    assert_true(w.has_isolation);
    assert_true(w.ser);
    assert_int_equal(w.n_keys, 3);
    assert_int_equal(w.keys[0].key, 7);
    assert_int_equal(w.keys[0].line, 5);
    assert_int_equal(w.keys[0].first, 0);
    assert_int_equal(w.keys[0].n, 3);
    assert_txn(&w, 0, 1, 2, 5);
    assert_txn(&w, 1, 2, 8, 5);
    assert_txn(&w, 2, 1, 3, 5);
    assert_int_equal(w.keys[1].key, UINT64_MAX);
    assert_int_equal(w.keys[1].line, 7);
    assert_int_equal(w.keys[1].n, 0);
    assert_true(w.has_order);
    assert_int_equal(w.order.line, 8);
    assert_int_equal(w.order.first, 3);
    assert_int_equal(w.order.n, 3);
    assert_txn(&w, 4, 2, 8, 8);
    assert_int_equal(w.keys[2].key, 9);
    assert_int_equal(w.keys[2].line, 9); /* the last line has no '\n' */
    assert_txn(&w, 6, 3, 4, 9);
    assert_int_equal(w.n_tx, 7);
    assert_int_equal(w.second_order_line, 0);
    psi_witness_free(&w);
}

/* Version 4 spells keys: strings are spelled again the readers' one way,
 * integers in decimal, the rest as is; versions 1-3 carry no spelling. */
static void test_spelled_keys(void **state)
{
    (void)state;
    const char *text = "polysi-witness 4\n"
                       "key :x (1,2)\n"
                       "key \"a\\u0062 \\\"c\\\"\t\\/\\ud83d\\ude00\" (1,3)\n"
                       "key 007 (2,1)\n"
                       "chain sym (1,2)\n"
                       "read (1,3) \"q\" init\n"
                       "read (1,3) -4 (1,2)\n";
    psi_witness w;
    psi_diag d;
    assert_int_equal(parse(text, strlen(text), &w, &d), PSI_OK);
    assert_int_equal(w.version, 4);
    assert_int_equal(w.n_keys, 3);
    assert_string_equal(w.keys[0].key_name, ":x");
    assert_string_equal(w.keys[1].key_name, "\"ab \\\"c\\\"\\t/\xf0\x9f\x98\x80\"");
    assert_string_equal(w.keys[2].key_name, "7");
    assert_int_equal(w.keys[2].line, 4);
    assert_txn(&w, 2, 2, 1, 4);
    assert_int_equal(w.n_chains, 1);
    assert_string_equal(w.chains[0].key_name, "sym");
    assert_int_equal(w.n_reads, 2);
    assert_string_equal(w.reads[0].key_name, "\"q\"");
    assert_true(w.reads[0].init);
    assert_string_equal(w.reads[1].key_name, "-4");
    assert_int_equal(w.reads[1].writer.tid, 2);
    psi_witness_free(&w);
    /* version 3: integers, no spelling */
    const char *v3 = "polysi-witness 3\nkey 7 (1,1)\n";
    assert_int_equal(parse(v3, strlen(v3), &w, &d), PSI_OK);
    assert_null(w.keys[0].key_name);
    assert_int_equal(w.keys[0].key, 7);
    psi_witness_free(&w);
}

/* What the parser leaves to the checker: no isolation line, a key ordered
 * twice, a second order line (recorded, the first one kept). */
static void test_well_formed_but_dubious(void **state)
{
    (void)state;
    const char *text = "polysi-witness 1\n"
                       "order (1,1)\n"
                       "key 1 (1,1)\n"
                       "key 1 (1,1)\n"
                       "order (2,2) (3,3)\n"
                       "order\n";
    psi_witness w;
    psi_diag d;
    assert_int_equal(parse(text, strlen(text), &w, &d), PSI_OK);
    assert_false(w.has_isolation);
    assert_false(w.ser);
    assert_int_equal(w.n_keys, 2);
    assert_true(w.has_order);
    assert_int_equal(w.order.line, 2);
    assert_int_equal(w.order.n, 1);
    assert_int_equal(w.second_order_line, 5);
    psi_witness_free(&w);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *msg;
    } cases[] = {
        {"", "w: not a witness (no 'polysi-witness 1' line)"},
        {"# only a comment\n\n", "w: not a witness (no 'polysi-witness 1' line)"},
        {"key 1 (1,1)\n", "w:1:1: expected the header 'polysi-witness 1'"},
        {"polysi-witnessx 1\n", "w:1:1: expected the header 'polysi-witness 1'"},
        {"\n  polysi-witness 6\n", "w:2:19: unsupported witness version (expected 1 to 5)"},
        {"polysi-witness\n", "w:1:15: unsupported witness version (expected 1 to 5)"},
        {"polysi-witness 99999999999999999999\n",
         "w:1:16: unsupported witness version (expected 1 to 5)"},
        /* version 4: keys by spelling */
        {"polysi-witness 3\nkey :x (1,1)\n", "w:2:5: expected a key (an unsigned integer)"},
        {"polysi-witness 4\nkey \"ab (1,1)\n", "w:2:5: unterminated string key"},
        {"polysi-witness 4\nkey \"ab\\\" (1,1)\n", "w:2:5: unterminated string key"},
        {"polysi-witness 4\nkey \"a\\q\" (1,1)\n",
         "w:2:7: bad escape in a string key (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)"},
        {"polysi-witness 4\nkey \"a\"b (1,1)\n", "w:2:8: expected a blank after the key"},
        {"polysi-witness 4\nkey \"\\ud800\" (1,1)\n",
         "w:2:6: bad \\u escape in a string key (four hex digits, surrogates paired)"},
        {"polysi-witness 4\nchain \"\\u12g4\" (1,1)\n",
         "w:2:8: bad \\u escape in a string key (four hex digits, surrogates paired)"},
        {"polysi-witness 4\nkey (1,1)\n", "w:2:5: expected a key before the transactions"},
        {"polysi-witness 4\nkey\n", "w:2:4: expected a key"},
        {"polysi-witness 4\nread (1,1) (2,2) init\n",
         "w:2:12: expected a key before the transactions"},
        {"polysi-witness 4\nread (1,1) :k (2,2\n",
         "w:2:15: expected the writer written (SESSION,ID), or init"},
        {"polysi-witness 4\nkey :k (1,1) x\n",
         "w:2:14: expected a transaction written (SESSION,ID)"},
        /* version 3 (weak levels' commit orders): any level word */
        {"polysi-witness 2\nisolation rc\n", "w:2:11: expected 'si' or 'ser'"},
        {"polysi-witness 3\nisolation r-c\n",
         "w:2:11: expected a level: si, ser, pl2, rc, ra, cc, pc or psi"},
        {"polysi-witness 1\nread (1,1) 2 (3,3)\n", "w:2:1: expected 'key', 'order' or 'isolation'"},
        {"polysi-witness 2\nread (1,1) 2 (3,3\n",
         "w:2:14: expected the writer written (SESSION,ID), or init"},
        {"polysi-witness 2\nread (1,1) x init\n", "w:2:12: expected a key (an unsigned integer)"},
        {"polysi-witness 2\nread 1 2 init\n", "w:2:6: expected the reader written (SESSION,ID)"},
        {"polysi-witness 2\nread (1,1) 2 init x\n", "w:2:19: unexpected text after the writer"},
        /* several writers, one per read event: version 5 only */
        {"polysi-witness 4\nread (1,1) 2 (3,3) (4,4)\n",
         "w:2:20: unexpected text after the writer"},
        {"polysi-witness 5\nread (1,1) 2 (3,3) x\n",
         "w:2:20: expected another writer written (SESSION,ID), or init"},
        {"polysi-witness 5\nread (1,1) 2 init (3,3\n",
         "w:2:19: expected another writer written (SESSION,ID), or init"},
        {"polysi-witness 2\ninit (1,1) (2,2)\n",
         "w:2:12: unexpected text after the initial transaction"},
        {"polysi-witness 2\nfrob\n",
         "w:2:1: expected 'key', 'order', 'isolation', 'init' or 'read'"},
        {"polysi-witness 1 x\n", "w:1:18: unexpected text after the header"},
        {"polysi-witness 1\nisolation rc\n", "w:2:11: expected 'si' or 'ser'"},
        {"polysi-witness 1\nisolation sis\n", "w:2:11: expected 'si' or 'ser'"},
        {"polysi-witness 1\nisolation si x\n", "w:2:14: unexpected text after the isolation level"},
        {"polysi-witness 1\nisolation si\n isolation ser\n", "w:3:1: isolation given twice"},
        {"polysi-witness 1\nkey x (1,1)\n", "w:2:5: expected a key (an unsigned integer)"},
        {"polysi-witness 1\nkey 1x (1,1)\n", "w:2:5: expected a key (an unsigned integer)"},
        {"polysi-witness 1\nkey\n", "w:2:4: expected a key (an unsigned integer)"},
        {"polysi-witness 1\nkey 1 (1,1\n", "w:2:7: expected a transaction written (SESSION,ID)"},
        {"polysi-witness 1\nkey 1 (1 1)\n", "w:2:7: expected a transaction written (SESSION,ID)"},
        {"polysi-witness 1\nkey 1 1,1)\n", "w:2:7: expected a transaction written (SESSION,ID)"},
        {"polysi-witness 1\nkey 1 (1,99999999999999999999)\n",
         "w:2:7: expected a transaction written (SESSION,ID)"},
        {"polysi-witness 1\nkey 1 (1,1)(2,2)\n", "w:2:12: expected a blank after a transaction"},
        {"polysi-witness 1\norder (1,1) (2,-2)\n",
         "w:2:13: expected a transaction written (SESSION,ID)"},
        {"polysi-witness 1\nfrobnicate\n", "w:2:1: expected 'key', 'order' or 'isolation'"},
        {"polysi-witness 1\n\tkeys 1\n", "w:2:2: expected 'key', 'order' or 'isolation'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        psi_witness w;
        psi_diag d;
        psi_status st = parse(cases[i].text, strlen(cases[i].text), &w, &d);
        if (st != PSI_ERR_SYNTAX || strcmp(d.msg, cases[i].msg) != 0)
            fail_msg("case %zu: status %s, '%s' (want '%s')", i, psi_status_name(st), d.msg,
                     cases[i].msg);
        /* Nothing is left to free after an error. */
        assert_null(w.tx);
        assert_null(w.keys);
        assert_int_equal(w.n_keys, 0);
    }
    /* A NUL byte, wherever it is, names its own column. */
    static const char nul[] = "polysi-witness 1\nkey 1 \0(1,1)\n";
    psi_witness w;
    psi_diag d;
    assert_int_equal(parse(nul, sizeof nul - 1, &w, &d), PSI_ERR_SYNTAX);
    assert_string_equal(d.msg, "w:2:7: NUL byte in the witness");
}

/* The writer's exact text, and a parse of it giving the witness back. */
static void test_write_then_parse(void **state)
{
    (void)state;
    psi_witness_txn tx[] = {{.sid = 1, .tid = 2}, {.sid = 2, .tid = 8}, {.sid = 3, .tid = 4},
                            {.sid = 2, .tid = 8}, {.sid = 1, .tid = 2}, {.sid = 3, .tid = 4}};
    psi_witness_line keys[] = {{.key = 5, .first = 0, .n = 2}, {.key = 0, .first = 2, .n = 1}};
    psi_witness w = {.has_isolation = true,
                     .ser = true,
                     .tx = tx,
                     .n_tx = 6,
                     .keys = keys,
                     .n_keys = 2,
                     .has_order = true,
                     .order = {.first = 3, .n = 3}};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_witness_write(&w, "h.edn", f, "out", &d), PSI_OK);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(text, "# polysi-solve witness for h.edn: the version order of every key, "
                              "first\n"
                              "# installed first (the initial value precedes them all), and a "
                              "serialization order.\n"
                              "# Re-check with: polysi-solve verify-witness --isolation ser "
                              "HISTORY THIS-FILE\n"
                              "polysi-witness 1\n"
                              "isolation ser\n"
                              "key 5 (1,2) (2,8)\n"
                              "key 0 (3,4)\n"
                              "order (2,8) (1,2) (3,4)\n");
    psi_witness back;
    assert_int_equal(parse(text, len, &back, &d), PSI_OK);
    assert_true(back.has_isolation && back.ser && back.has_order);
    assert_int_equal(back.n_keys, 2);
    assert_int_equal(back.n_tx, 6);
    for (size_t i = 0; i < 2; i++) {
        assert_int_equal(back.keys[i].key, keys[i].key);
        assert_int_equal(back.keys[i].first, keys[i].first);
        assert_int_equal(back.keys[i].n, keys[i].n);
        assert_int_equal(back.keys[i].line, 6 + i);
    }
    assert_int_equal(back.order.first, 3);
    assert_int_equal(back.order.n, 3);
    assert_int_equal(back.order.line, 8);
    for (size_t i = 0; i < 6; i++) {
        assert_int_equal(back.tx[i].sid, tx[i].sid);
        assert_int_equal(back.tx[i].tid, tx[i].tid);
    }
    psi_witness_free(&back);
    free(text);

    /* SI, no history name: no order line, no --isolation in the hint. */
    w.ser = w.has_order = false;
    w.n_keys = 1;
    f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(psi_witness_write(&w, NULL, f, "out", &d), PSI_OK);
    assert_int_equal(fclose(f), 0);
    assert_string_equal(text, "# polysi-solve witness for a history: the version order of every "
                              "key, first\n"
                              "# installed first (the initial value precedes them all).\n"
                              "# Re-check with: polysi-solve verify-witness HISTORY THIS-FILE\n"
                              "polysi-witness 1\n"
                              "isolation si\n"
                              "key 5 (1,2) (2,8)\n");
    free(text);
}

/* Spelled keys make version 4, and read back as themselves; a spelling
 * that would not read back is refused rather than written. */
static void test_write_spelled(void **state)
{
    (void)state;
    psi_witness_txn tx[] = {{.sid = 1, .tid = 2}, {.sid = 2, .tid = 8}};
    char k0[] = ":x", k1[] = "\"acct \\\"y\\\"\"", r0[] = "7";
    psi_witness_line keys[] = {{.key = 0, .first = 0, .n = 1, .key_name = k0},
                               {.key = 1, .first = 1, .n = 1, .key_name = k1}};
    psi_witness_read reads[] = {
        {.reader = {.sid = 2, .tid = 8}, .key = 2, .key_name = r0, .writer = {.sid = 1, .tid = 2}}};
    psi_witness w = {.has_isolation = true,
                     .tx = tx,
                     .n_tx = 2,
                     .keys = keys,
                     .n_keys = 2,
                     .reads = reads,
                     .n_reads = 1};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_witness_write(&w, NULL, f, "out", &d), PSI_OK);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(text, "\npolysi-witness 4\n"
                                 "isolation si\n"
                                 "key :x (1,2)\n"
                                 "key \"acct \\\"y\\\"\" (2,8)\n"
                                 "read (2,8) 7 (1,2)\n"));
    psi_witness back;
    assert_int_equal(parse(text, len, &back, &d), PSI_OK);
    assert_string_equal(back.keys[0].key_name, k0);
    assert_string_equal(back.keys[1].key_name, k1);
    assert_string_equal(back.reads[0].key_name, r0);
    psi_witness_free(&back);
    free(text);
    static const char *bad[] = {"a b", "", "\"open", "\"a\" b", "(x", "\"a\\u0078\""};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char copy[32];
        snprintf(copy, sizeof copy, "%s", bad[i]);
        keys[0].key_name = copy;
        f = open_memstream(&text, &len);
        assert_non_null(f);
        psi_diag_clear(&d);
        assert_int_equal(psi_witness_write(&w, NULL, f, "out", &d), PSI_ERR_INPUT);
        assert_int_equal(fclose(f), 0);
        assert_non_null(strstr(d.msg, "cannot be spelled in a witness"));
        assert_int_equal(len, 0); /* nothing written */
        free(text);
    }
}

/* Version 5: a read line names one writer per read event of its key by
 * its reader (RC's and PL-2's repeat reads); written on one line, read
 * back as one psi_witness_read per event, each with its key's spelling. */
static void test_read_events(void **state)
{
    (void)state;
    psi_witness_read reads[] = {
        {.reader = {.sid = 2, .tid = 8}, .key = 3, .writer = {.sid = 1, .tid = 2}},
        {.reader = {.sid = 2, .tid = 8}, .key = 3, .init = true, .event = 1},
        {.reader = {.sid = 2, .tid = 8}, .key = 3, .writer = {.sid = 1, .tid = 4}, .event = 2},
        {.reader = {.sid = 2, .tid = 9}, .key = 3, .writer = {.sid = 1, .tid = 4}},
    };
    psi_witness w = {.has_isolation = true, .reads = reads, .n_reads = 4};
    snprintf(w.level, sizeof w.level, "rc");
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_witness_min_version(&w), 5);
    assert_int_equal(psi_witness_write(&w, NULL, f, "out", &d), PSI_OK);
    assert_int_equal(fclose(f), 0);
    assert_non_null(strstr(text, "\npolysi-witness 5\n"
                                 "isolation rc\n"
                                 "read (2,8) 3 (1,2) init (1,4)\n"
                                 "read (2,9) 3 (1,4)\n"));
    psi_witness back;
    assert_int_equal(parse(text, len, &back, &d), PSI_OK);
    assert_int_equal(back.version, 5);
    assert_int_equal(back.n_reads, 4);
    for (size_t i = 0; i < 4; i++) {
        assert_int_equal(back.reads[i].event, reads[i].event);
        assert_int_equal(back.reads[i].reader.tid, reads[i].reader.tid);
        assert_int_equal(back.reads[i].init, reads[i].init);
        assert_int_equal(back.reads[i].writer.tid, reads[i].writer.tid);
        assert_int_equal(back.reads[i].line, i < 3 ? 6 : 7);
        assert_string_equal(back.reads[i].key_name, "3"); /* spelled, as in version 4 */
    }
    psi_witness_free(&back);
    free(text);
    /* one event per line: version 3 as before */
    w.n_reads = 1;
    assert_int_equal(psi_witness_min_version(&w), 3);
}

static void test_write_error(void **state)
{
    (void)state;
    psi_witness w = {.has_isolation = true};
    FILE *f = fopen("/dev/null", "r"); /* every write fails */
    assert_non_null(f);
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_witness_write(&w, "h", f, "out.witness", &d), PSI_ERR_IO);
    assert_string_equal(d.msg, "out.witness: cannot write the witness");
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_witness),  cmocka_unit_test(test_well_formed_but_dubious),
        cmocka_unit_test(test_syntax_errors), cmocka_unit_test(test_write_then_parse),
        cmocka_unit_test(test_read_events),   cmocka_unit_test(test_write_error),
        cmocka_unit_test(test_spelled_keys),  cmocka_unit_test(test_write_spelled),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
