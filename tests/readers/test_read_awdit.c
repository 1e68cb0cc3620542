/* AWDIT's test format (formats/read_awdit.c): sessions and transactions
 * from the separators, the recorded initial state (a read of 0 reads a
 * recorded write of 0) and --initial-state implicit, detection, and every
 * error with its line:column. */
#include "rd_util.h"

#include "check/check.h"
#include "formats/input.h"

static psi_status awdit(const char *text, bool recorded, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_awdit_mem("a.txt", text, strlen(text), 0, recorded, NULL, h, d);
}

/* AWDIT's own long-fork test history. */
static const char LONG_FORK[] = "w 0 0\nw 1 0\n=====\nw 0 1\n-----\nr 0 1\nr 1 0\n=====\n"
                                "w 1 1\n-----\nr 1 1\nr 0 0\n";

static void test_structure_recorded(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    assert_int_equal(awdit(LONG_FORK, true, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_AWDIT);
    assert_int_equal(h->initial_state, PSI_INITIAL_RECORDED);
    assert_int_equal(h->n_sessions, 3);
    assert_int_equal(h->n_txns, 6); /* the initial one and five */
    assert_int_equal(h->n_ops, 8);
    assert_int_equal(h->sessions[1].n_txns, 2);
    const psi_txn *t = &h->txns[h->sessions[1].first_txn + 1];
    assert_int_equal(t->id, 6); /* the line of its first operation */
    assert_int_equal(t->src, 6);
    /* r 1 0: an ordinary read of the recorded write of 0, not the initial value */
    const psi_op *op = &h->ops[t->first_op + 1];
    assert_int_equal(op->kind, PSI_OP_READ);
    assert_int_equal(op->value, 0);
    assert_int_equal(op->flags, 0);
    assert_int_equal(h->ops[0].kind, PSI_OP_WRITE); /* w 0 0 is kept */
    assert_int_equal(h->ops[0].value, 0);
    psi_history_free(h);
}

static void test_implicit(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    /* the recorded writes of 0 are ambiguous when 0 is the initial value */
    rd_expect(awdit(LONG_FORK, false, &h, &d), &d, PSI_ERR_INPUT,
              "a.txt:1:5: ", "--initial-state implicit");
    assert_int_equal(awdit("w 0 1\n-----\nr 0 0\n", false, &h, &d), PSI_OK);
    assert_int_equal(h->initial_state, PSI_INITIAL_IMPLICIT);
    assert_int_equal(h->ops[1].flags, PSI_OPF_INIT);
    psi_history_free(h);
}

/* Blank lines, CRLF, tabs, repeated and longer separators, a leading
 * separator: no empty transactions or sessions. */
static void test_layout(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    assert_int_equal(awdit("-----\r\nw\t5 7\r\n\r\n------\n-----\nr 5 7 \n==========\n\n=====\n"
                           "r 5 0\n",
                           true, &h, &d),
                     PSI_OK);
    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->n_txns, 4);
    assert_int_equal(h->sessions[1].id, 2); /* sessions are numbered by separators */
    psi_history_free(h);
}

static void test_errors(void **state)
{
    (void)state;
    psi_history *h;
    psi_diag d;
    rd_expect(awdit("r 0 1\nq 1 1\n", true, &h, &d), &d, PSI_ERR_SYNTAX,
              "a.txt:2:1: ", "expected r KEY VALUE");
    rd_expect(awdit("r 0 x1\n", true, &h, &d), &d, PSI_ERR_SYNTAX,
              "a.txt:1:5: ", "expected the value");
    rd_expect(awdit("w 0\n", true, &h, &d), &d, PSI_ERR_SYNTAX,
              "a.txt:1:4: ", "expected a space and the value");
    rd_expect(awdit("r0 1\n", true, &h, &d), &d, PSI_ERR_SYNTAX,
              "a.txt:1:2: ", "expected a space and the key");
    rd_expect(awdit("w 1 2 3\n", true, &h, &d), &d, PSI_ERR_SYNTAX,
              "a.txt:1:7: ", "unexpected text after the operation");
    rd_expect(awdit("w 99999999999999999999 1\n", true, &h, &d), &d, PSI_ERR_SYNTAX,
              "a.txt:1:3: ", "does not fit 64 bits");
    rd_expect(awdit("\n=====\n-----\n", true, &h, &d), &d, PSI_ERR_INPUT,
              "a.txt:1:1: ", "empty history");
    psi_diag_clear(&d);
    assert_int_equal(psi_read_awdit_mem("a.txt", "w 1 1\nw 2 2\n", 12, 1, true, NULL, &h, &d),
                     PSI_ERR_LIMIT);
    assert_non_null(strstr(d.msg, "a.txt:2:1: "));
}

/* Detection, the format's default initial state and the override, and
 * --initial-state recorded refused for EDN. */
static void test_detect_and_option(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    char *p = rd_write(dir, "h.txt", LONG_FORK, strlen(LONG_FORK));
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(p, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_AWDIT);
    assert_int_equal(h->initial_state, PSI_INITIAL_RECORDED);
    psi_history_free(h);
    psi_read_opts o = {.initial_state = PSI_INITIAL_IMPLICIT};
    rd_expect(psi_read_history(p, &o, &h, &d), &d, PSI_ERR_INPUT, "h.txt:1:5: ");
    /* Text and dbcop may be read recorded too (test_initial_recorded.c);
     * EDN, whose initial value is nil, may not. */
    static const char EDN[] = "{:type :ok, :value [[:w 1 1]], :process 1}\n";
    char *q = rd_write(dir, "t.edn", EDN, strlen(EDN));
    o.initial_state = PSI_INITIAL_RECORDED;
    psi_status st = psi_read_history(q, &o, &h, &d);
    assert_int_equal(st, PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "supported for the text, dbcop and AWDIT formats"));
    bool ok;
    assert_int_equal(psi_initial_state_from_name("recorded", &ok), PSI_INITIAL_RECORDED);
    assert_true(ok);
    assert_int_equal(psi_initial_state_from_name("Recorded", &ok), PSI_INITIAL_DEFAULT);
    assert_false(ok);
    free(p);
    free(q);
    rd_rmdir(dir);
}

/* Reads the AWDIT text (recorded initial state) and checks it at a level;
 * the verdict, or -1 on an error, and the reason through *why. */
static int verdict_at(const char *text, psi_level level, psi_init_mode init, int *why)
{
    psi_history *h;
    psi_diag d;
    assert_int_equal(awdit(text, true, &h, &d), PSI_OK);
    psi_check_opts o = {.level = level, .ser = level == PSI_LEVEL_SER, .init = {.mode = init}};
    psi_check_result r;
    psi_status st = psi_check(h, &o, &r, &d);
    int v = st == PSI_OK ? (int)r.verdict : -1;
    *why = st == PSI_OK ? (int)r.reason : -1;
    psi_check_result_free(&r);
    psi_history_free(h);
    return v;
}

/* The recorded initial state merged into the initial transaction (--init
 * auto) keeps its writes of 0 readable: once merged they are not indexed
 * as writes, so a read of 0 must become a read of the initial value, or
 * every such read is an "unwritten read" and RC wrongly rejects. */
static void test_recorded_initial_state_checked(void **state)
{
    (void)state;
    /* Two sessions read the initial 0 of key 1 and overwrite it: a lost
     * update, which RC allows and SI forbids. */
    static const char LOST[] = "w 1 0\nw 2 0\n=====\nr 1 0\nw 1 5\n-----\nr 2 0\n=====\n"
                               "r 1 0\nw 1 6\n";
    int why;
    for (int init = PSI_INIT_AUTO; init <= PSI_INIT_NONE; init++) {
        assert_int_equal(verdict_at(LOST, PSI_LEVEL_RC, (psi_init_mode)init, &why), PSI_ACCEPT);
        assert_int_equal(verdict_at(LOST, PSI_LEVEL_CC, (psi_init_mode)init, &why), PSI_ACCEPT);
        assert_int_equal(verdict_at(LOST, PSI_LEVEL_SI, (psi_init_mode)init, &why), PSI_REJECT);
        assert_int_not_equal(why, PSI_BY_ANOMALY); /* a lost update, not an unwritten read */
        /* AWDIT's long fork: causal, not SI. */
        assert_int_equal(verdict_at(LONG_FORK, PSI_LEVEL_CC, (psi_init_mode)init, &why),
                         PSI_ACCEPT);
        assert_int_equal(verdict_at(LONG_FORK, PSI_LEVEL_SI, (psi_init_mode)init, &why),
                         PSI_REJECT);
        assert_int_not_equal(why, PSI_BY_ANOMALY);
    }
    /* A read of 0 of a key the initial state did not write stays unwritten. */
    assert_int_equal(verdict_at("w 1 0\n=====\nr 2 0\n", PSI_LEVEL_RC, PSI_INIT_AUTO, &why),
                     PSI_REJECT);
    assert_int_equal(why, PSI_BY_ANOMALY);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_structure_recorded),
        cmocka_unit_test(test_implicit),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_detect_and_option),
        cmocka_unit_test(test_recorded_initial_state_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
