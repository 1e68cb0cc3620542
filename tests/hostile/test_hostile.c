/* Hostile and huge input, the fast cases (README, "Hostile and huge
 * input"): numbers at and beyond the 64-bit limits in every format, keys
 * and ids at 0 and 2^64-1 carried through to a verdict, dbcop counts and
 * lengths that promise more than the file holds, a session of 10^6
 * transactions and a transaction of 10^5 operations; and the "no partial
 * understanding" rules: unknown EDN micro-ops and non-integer processes,
 * Cobra records after a missing commit, repeated transaction ids in text
 * files. Inputs are built in memory. */
#include "readers/rd_util.h"

#include "check/check.h"

#define U64MAX 18446744073709551615ull

static psi_verdict verdict(psi_history *h, bool ser)
{
    psi_check_opts co = {.ser = ser};
    psi_check_result r;
    psi_diag d;
    psi_status st = psi_check(h, &co, &r, &d);
    if (st != PSI_OK)
        fail_msg("check failed: %s", d.msg);
    psi_verdict v = r.verdict;
    psi_check_result_free(&r);
    return v;
}

static psi_history *text_ok(const char *text)
{
    psi_history *h = NULL;
    psi_diag d;
    psi_status st = psi_read_text_buf("x.txt", text, strlen(text), 0, &h, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

static void text_err(const char *text, psi_status want, const char *place, const char *what)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    rd_expect(psi_read_text_buf("x.txt", text, strlen(text), 0, &h, &d), &d, want, place, what);
    assert_null(h);
}

static psi_history *edn_ok(const char *text)
{
    psi_history *h = NULL;
    psi_diag d;
    psi_status st = psi_read_edn_buf("x.edn", text, strlen(text), 0, &h, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

static void edn_err(const char *text, psi_status want, const char *place, const char *what)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    rd_expect(psi_read_edn_buf("x.edn", text, strlen(text), 0, &h, &d), &d, want, place, what);
    assert_null(h);
}

/* ---- numbers at the limits ---- */

static void test_text_extremes(void **state)
{
    (void)state;
    /* 2^64-1 and 0 as key, value, session and transaction id. */
    psi_history *h = text_ok("w(18446744073709551615,18446744073709551615,18446744073709551615,"
                             "18446744073709551615)\n"
                             "r(18446744073709551615,18446744073709551615,0,0)\n"
                             "r(0,0,0,0)\nw(0,18446744073709551615,0,0)\n");
    assert_int_equal(h->n_sessions, 2);
    assert_true(h->sessions[0].id == 0 && h->sessions[1].id == U64MAX);
    const psi_txn *t0 = &h->txns[h->sessions[0].first_txn];
    const psi_txn *t1 = &h->txns[h->sessions[1].first_txn];
    assert_true(t0->id == 0 && t1->id == U64MAX);
    const psi_op *w = psi_txn_ops(h, h->sessions[1].first_txn);
    assert_true(h->keys[w->key] == U64MAX && w->value == U64MAX);
    assert_int_equal(verdict(h, false), PSI_ACCEPT);
    assert_int_equal(verdict(h, true), PSI_ACCEPT);
    psi_history_free(h);

    /* One past 2^64-1 in each field, and far past it. */
    text_err("w(18446744073709551616,1,0,1)\n", PSI_ERR_SYNTAX, "x.txt:1:3:", "KEY does not fit");
    text_err("w(1,18446744073709551616,0,1)\n", PSI_ERR_SYNTAX, "x.txt:1:5:", "VALUE does not fit");
    text_err("w(1,1,18446744073709551616,1)\n", PSI_ERR_SYNTAX,
             "x.txt:1:7:", "SESSION does not fit");
    text_err("w(1,1,0,99999999999999999999999999999999999999999)\n", PSI_ERR_SYNTAX,
             "x.txt:1:9:", "TXN does not fit");
    text_err("r(1,184467440737095516150,0,1)\n", PSI_ERR_SYNTAX, "x.txt:1:5:", "does not fit");
    text_err("w(-1,1,0,1)\n", PSI_ERR_SYNTAX, "x.txt:1:3:", "non-negative");
}

static void test_edn_extremes(void **state)
{
    (void)state;
    psi_history *h =
        edn_ok("{:type :ok, :process 18446744073709551615, :index 18446744073709551615, "
               ":value [[:w 18446744073709551615 18446744073709551615]]}\n"
               "{:type :ok, :process 0, :index 0, :value [[:r 18446744073709551615 "
               "0xFFFFFFFFFFFFFFFF] [:r 0 nil] [:w 0 18446744073709551615N]]}\n");
    assert_int_equal(h->n_sessions, 2);
    assert_true(h->sessions[1].id == U64MAX);
    assert_true(h->txns[h->sessions[1].first_txn].id == U64MAX);
    assert_true(h->txns[h->sessions[0].first_txn].id == 0);
    assert_int_equal(verdict(h, true), PSI_ACCEPT);
    psi_history_free(h);

    edn_err("{:type :ok, :process 0, :value [[:w 1 18446744073709551616]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:39:", "does not fit 64 bits");
    edn_err("{:type :ok, :process 0, :value [[:w 1 0x10000000000000000]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:39:", "does not fit 64 bits");
    edn_err("{:type :ok, :process 0, :value [[:w 18446744073709551616N 1]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:37:", "does not fit 64 bits");
    edn_err("{:type :ok, :process 99999999999999999999999, :value [[:w 1 1]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:22:", "does not fit 64 bits");
    edn_err("{:type :ok, :process 0, :value [[:r 1 [1 18446744073709551616]]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:", "does not fit 64 bits");
    /* A huge number in a field the reader does not use is legal EDN. */
    h = edn_ok("{:type :ok, :process 0, :value [[:w 1 1]], :time 99999999999999999999999}\n");
    psi_history_free(h);
}

static void dbcop_header(rd_bytes *b, uint64_t info_len)
{
    for (int i = 0; i < 5; i++)
        rd_le64(b, 1);
    rd_le64(b, info_len);
    if (info_len < 64)
        rd_put(b, "PostgreSQL", info_len < 10 ? info_len : 10);
    for (int i = 0; i < 2; i++)
        rd_le64(b, 0);
}

static psi_status dbcop(const rd_bytes *b, psi_history **h, psi_diag *d)
{
    *h = (psi_history *)1;
    return psi_read_dbcop_buf("x.bincode", b->p, b->n, 0, h, d);
}

static void test_dbcop_extremes(void **state)
{
    (void)state;
    rd_bytes b = {0};
    psi_history *h;
    psi_diag d;
    /* Key and value 2^64-1 (and key 0) survive and check. */
    dbcop_header(&b, 10);
    rd_le64(&b, 1); /* one session */
    rd_le64(&b, 2); /* two transactions */
    rd_le64(&b, 2);
    rd_u8(&b, 1), rd_le64(&b, U64MAX), rd_le64(&b, U64MAX), rd_u8(&b, 1);
    rd_u8(&b, 1), rd_le64(&b, 0), rd_le64(&b, U64MAX), rd_u8(&b, 1);
    rd_u8(&b, 1);
    rd_le64(&b, 1);
    rd_u8(&b, 0), rd_le64(&b, U64MAX), rd_le64(&b, U64MAX), rd_u8(&b, 1);
    rd_u8(&b, 1);
    assert_int_equal(dbcop(&b, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 3);
    assert_true(h->keys[h->ops[0].key] == U64MAX && h->ops[0].value == U64MAX);
    assert_int_equal(verdict(h, true), PSI_ACCEPT);
    psi_history_free(h);
    rd_free(&b);

    /* Counts and lengths that promise more than the file holds fail at the
     * place, without allocating what they promise. */
    dbcop_header(&b, U64MAX);
    rd_expect(dbcop(&b, &h, &d), &d, PSI_ERR_SYNTAX, "x.bincode: byte 40");
    assert_null(h);
    rd_free(&b);
    uint64_t huge[] = {U64MAX, 1ull << 62, 1ull << 32};
    for (size_t i = 0; i < 3; i++) {
        dbcop_header(&b, 10);
        rd_le64(&b, huge[i]); /* sessions */
        rd_le64(&b, 1);
        rd_le64(&b, 0);
        rd_u8(&b, 1);
        rd_expect(dbcop(&b, &h, &d), &d, PSI_ERR_SYNTAX, "x.bincode: byte ");
        assert_null(h);
        rd_free(&b);
        dbcop_header(&b, 10);
        rd_le64(&b, 1);
        rd_le64(&b, huge[i]); /* transactions */
        rd_le64(&b, 0);
        rd_u8(&b, 1);
        rd_expect(dbcop(&b, &h, &d), &d, PSI_ERR_SYNTAX, "x.bincode: byte ");
        assert_null(h);
        rd_free(&b);
        dbcop_header(&b, 10);
        rd_le64(&b, 1);
        rd_le64(&b, 1);
        rd_le64(&b, huge[i]); /* events */
        rd_u8(&b, 1), rd_le64(&b, 1), rd_le64(&b, 1), rd_u8(&b, 1);
        rd_expect(dbcop(&b, &h, &d), &d, PSI_ERR_SYNTAX, "x.bincode: byte ");
        assert_null(h);
        rd_free(&b);
    }
}

static void cobra_rec(rd_bytes *b, char tag, int n, const uint64_t *f)
{
    rd_u8(b, (unsigned char)tag);
    for (int i = 0; i < n; i++)
        rd_be64(b, f[i]);
}

static psi_status cobra(const rd_bytes *b, psi_history **h, psi_diag *d)
{
    *h = (psi_history *)1;
    return psi_read_cobra_buf("T3.log", b->p, b->n, 0, h, d);
}

static void test_cobra_extremes(void **state)
{
    (void)state;
    rd_bytes b = {0};
    psi_history *h;
    psi_diag d;
    /* Transaction, write ids, keys and values at 2^64-1 (and 1). */
    cobra_rec(&b, 'S', 1, (uint64_t[]){U64MAX});
    cobra_rec(&b, 'W', 3, (uint64_t[]){U64MAX, U64MAX, U64MAX});
    cobra_rec(&b, 'C', 1, (uint64_t[]){U64MAX});
    cobra_rec(&b, 'S', 1, (uint64_t[]){1});
    cobra_rec(&b, 'R', 4, (uint64_t[]){U64MAX, U64MAX, U64MAX, U64MAX});
    cobra_rec(&b, 'C', 1, (uint64_t[]){1});
    assert_int_equal(cobra(&b, &h, &d), PSI_OK);
    assert_true(h->txns[1].id == U64MAX && h->ops[0].value == U64MAX);
    assert_true(h->keys[h->ops[0].key] == U64MAX);
    assert_int_equal(verdict(h, true), PSI_ACCEPT);
    psi_history_free(h);
    rd_free(&b);
}

/* ---- big sessions and transactions ---- */

/* One session of n transactions, each reading its key's previous value
 * and writing a new one (1000 keys): serializable. */
static void test_session_of_a_million(void **state)
{
    (void)state;
    enum { N = 1000000, KEYS = 1000 };
    rd_bytes b = {0};
    char line[128];
    uint64_t last[KEYS] = {0};
    for (uint64_t t = 1; t <= N; t++) {
        uint64_t k = t % KEYS;
        int n = snprintf(line, sizeof line, "r(%llu,%llu,7,%llu)\nw(%llu,%llu,7,%llu)\n",
                         (unsigned long long)k, (unsigned long long)last[k], (unsigned long long)t,
                         (unsigned long long)k, (unsigned long long)t, (unsigned long long)t);
        rd_put(&b, line, (size_t)n);
        last[k] = t;
    }
    psi_history *h = NULL;
    psi_diag d;
    double t0 = psi_now();
    assert_int_equal(psi_read_text_buf("big.txt", (char *)b.p, b.n, 0, &h, &d), PSI_OK);
    double t1 = psi_now();
    assert_int_equal(h->n_sessions, 1);
    assert_int_equal(h->sessions[0].n_txns, N);
    assert_int_equal(h->n_ops, 2 * N);
    assert_int_equal(verdict(h, true), PSI_ACCEPT);
    printf("hostile: 10^6-transaction session: read %.2f s, SER check %.2f s\n", t1 - t0,
           psi_now() - t1);
    psi_history_free(h);
    rd_free(&b);
}

/* A transaction of 10^5 operations (writes, then reads of its own
 * writes), and a second session reading all of them. */
static void test_transaction_of_100k_ops(void **state)
{
    (void)state;
    enum { N = 100000 };
    rd_bytes b = {0};
    char line[96];
    for (int pass = 0; pass < 3; pass++)
        for (unsigned k = 0; k < N / 2; k++) {
            int n = pass == 0   ? snprintf(line, sizeof line, "w(%u,%u,0,1)\n", k, k + 1)
                    : pass == 1 ? snprintf(line, sizeof line, "r(%u,%u,0,1)\n", k, k + 1)
                                : snprintf(line, sizeof line, "r(%u,%u,1,2)\n", k, k + 1);
            rd_put(&b, line, (size_t)n);
        }
    psi_history *h = NULL;
    psi_diag d;
    assert_int_equal(psi_read_text_buf("big.txt", (char *)b.p, b.n, 0, &h, &d), PSI_OK);
    assert_int_equal(h->txns[1].n_ops, N);
    assert_int_equal(verdict(h, false), PSI_ACCEPT);
    assert_int_equal(verdict(h, true), PSI_ACCEPT);
    psi_history_free(h);
    rd_free(&b);
    /* The same transaction with its last read disagreeing with its own
     * write: an INT anomaly, found among the 10^5. */
    for (int pass = 0; pass < 2; pass++)
        for (unsigned k = 0; k < N / 2; k++) {
            unsigned v = pass == 1 && k == N / 2 - 1 ? k : k + 1;
            int n = snprintf(line, sizeof line, "%c(%u,%u,0,1)\n", pass ? 'r' : 'w', k, v);
            rd_put(&b, line, (size_t)n);
        }
    assert_int_equal(psi_read_text_buf("big.txt", (char *)b.p, b.n, 0, &h, &d), PSI_OK);
    psi_check_opts co = {0};
    psi_check_result r;
    assert_int_equal(psi_check(h, &co, &r, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_REJECT);
    assert_int_equal(r.reason, PSI_BY_ANOMALY);
    assert_int_equal(r.idx.n_anomalies, 1);
    assert_int_equal(r.idx.anomalies[0].kind, PSI_ANOM_INT);
    psi_check_result_free(&r);
    psi_history_free(h);
    rd_free(&b);
}

/* ---- no partial understanding ---- */

static void test_edn_unknown(void **state)
{
    (void)state;
    static const char *const bad_ops[] = {
        "[:cas 1 [1 2]]", "[:inc 1 1]",  "[:r 1]",   "[:w 1 1 1]",
        "[:append 1]",    "[\"w\" 1 1]", "[:W 1 1]", "[:read 1 1]",
    };
    for (size_t i = 0; i < sizeof bad_ops / sizeof bad_ops[0]; i++) {
        char line[256];
        snprintf(line, sizeof line, "{:type :ok, :process 0, :value [[:w 9 9] %s]}\n", bad_ops[i]);
        psi_history *h = (psi_history *)1;
        psi_diag d;
        psi_status st = psi_read_edn_buf("x.edn", line, strlen(line), 0, &h, &d);
        if (st == PSI_OK)
            fail_msg("micro-op %s was accepted", bad_ops[i]);
        assert_null(h);
        assert_non_null(strstr(d.msg, "x.edn:1:"));
    }
    /* A transaction whose :process is neither a session nor a name. */
    edn_err("{:type :ok, :process 0, :value [[:w 1 1]]}\n"
            "{:type :ok, :process 1.5, :value [[:r 1 1]]}\n",
            PSI_ERR_SYNTAX, "x.edn:2:22:", ":process must be an integer");
    edn_err("{:type :ok, :process nil, :value [[:r 1 1]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:22:", ":process must be an integer");
    edn_err("{:type :ok, :process [1], :value [[:r 1 1]]}\n", PSI_ERR_SYNTAX,
            "x.edn:1:22:", ":process must be an integer");
    /* Named processes and non-:txn ops are skipped, as documented. */
    psi_history *h = edn_ok("{:type :ok, :process 0, :value [[:w 1 1]]}\n"
                            "{:type :info, :process :nemesis, :f :start, :value nil}\n"
                            "{:type :ok, :process 0, :f :read, :value 3}\n");
    assert_int_equal(h->n_txns, 2);
    psi_history_free(h);
}

static void test_cobra_missing_commit(void **state)
{
    (void)state;
    rd_bytes b = {0};
    psi_history *h;
    psi_diag d;
    /* Transaction 1 has no commit record; transaction 2 reads its write:
     * it is kept (unknown outcome), then settled as committed. Transaction
     * 3 has no commit either and nobody reads it: it stays unknown. */
    cobra_rec(&b, 'S', 1, (uint64_t[]){1});
    cobra_rec(&b, 'W', 3, (uint64_t[]){11, 5, 50});
    cobra_rec(&b, 'S', 1, (uint64_t[]){2});
    cobra_rec(&b, 'R', 4, (uint64_t[]){1, 11, 5, 50});
    cobra_rec(&b, 'C', 1, (uint64_t[]){2});
    cobra_rec(&b, 'S', 1, (uint64_t[]){3});
    cobra_rec(&b, 'W', 3, (uint64_t[]){12, 5, 51});
    assert_int_equal(cobra(&b, &h, &d), PSI_OK);
    assert_int_equal(h->n_txns, 4);
    assert_int_equal(h->n_ops, 3);
    assert_int_equal(h->txns[1].status, PSI_TXN_UNKNOWN);
    assert_int_equal(h->txns[2].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[3].status, PSI_TXN_UNKNOWN);
    psi_check_opts co = {0};
    psi_check_result r;
    assert_int_equal(psi_check(h, &co, &r, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    assert_int_equal(r.idx.n_promoted, 1);
    assert_int_equal(h->txns[1].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[3].status, PSI_TXN_UNKNOWN);
    psi_check_result_free(&r);
    psi_history_free(h);
    /* A commit arriving after the next transaction started is refused. */
    cobra_rec(&b, 'C', 1, (uint64_t[]){1});
    rd_expect(cobra(&b, &h, &d), &d, PSI_ERR_SYNTAX, "T3.log: byte ",
              "C record commits transaction 1, but the open transaction is 3");
    assert_null(h);
    rd_free(&b);
    /* Records after a commit, outside any transaction, are refused. */
    cobra_rec(&b, 'S', 1, (uint64_t[]){1});
    cobra_rec(&b, 'C', 1, (uint64_t[]){1});
    cobra_rec(&b, 'W', 3, (uint64_t[]){11, 5, 50});
    rd_expect(cobra(&b, &h, &d), &d, PSI_ERR_SYNTAX, "T3.log: byte 18",
              "W record outside a transaction");
    rd_free(&b);
}

static void test_text_repeated_ids(void **state)
{
    (void)state;
    /* The same transaction id in two sessions: refused, both places named. */
    text_err("w(1,1,0,1)\nw(2,1,1,1)\n", PSI_ERR_INPUT, "x.txt:2:", "line 1");
    /* In one session, lines of one id form one transaction even with other
     * lines between them (PolySI's rule; formats.md), ordered by first
     * appearance: nothing is dropped. */
    psi_history *h = text_ok("w(1,1,0,1)\nw(2,1,0,2)\nw(3,1,0,1)\n");
    assert_int_equal(h->n_txns, 3);
    assert_int_equal(h->txns[1].id, 1);
    assert_int_equal(h->txns[1].n_ops, 2);
    assert_int_equal(h->txns[2].id, 2);
    assert_int_equal(h->n_ops, 3);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_extremes),        cmocka_unit_test(test_edn_extremes),
        cmocka_unit_test(test_dbcop_extremes),       cmocka_unit_test(test_cobra_extremes),
        cmocka_unit_test(test_session_of_a_million), cmocka_unit_test(test_transaction_of_100k_ops),
        cmocka_unit_test(test_edn_unknown),          cmocka_unit_test(test_cobra_missing_commit),
        cmocka_unit_test(test_text_repeated_ids),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
