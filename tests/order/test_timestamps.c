/* Start and commit timestamps (issue 15, check --timestamps): the reader
 * (malformed lines, START > COMMIT, duplicates named by line), the
 * complete replay (Chronos: SI, and SER from commit order) on planted
 * cases, partial timestamps as known edges, and on generated histories
 * with the store's true timestamps (complete and in part): they never turn
 * an accept into a reject on a fault-free run, and never accept what the
 * hint-free check rejects. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "interpret/explain.h"
#include "interpret/hint_file.h"
#include "support/spec.h"
#include "workload/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_reader(void **state)
{
    (void)state;
    psi_ts_file f;
    psi_diag d;
    const char *ok = "# c\n(1,2) 5 9\n\n  (3,4) -7 -7 \n";
    assert_int_equal(psi_ts_file_parse("t", ok, strlen(ok), &f, &d), PSI_OK);
    assert_int_equal(f.ts.n, 2);
    assert_int_equal(f.e[1].sid, 3);
    assert_int_equal(f.e[1].start, -7);
    assert_int_equal(f.e[1].line, 4);
    psi_ts_file_free(&f);
    static const char *bad[][2] = {
        {"(1,2) 9 5\n", "t:1:9: the transaction commits (5) before it starts (9)"},
        {"(1,2) 1 2\n(1,2) 3 4\n", "t:2:1: (1,2) already has timestamps (line 1)"},
        {"(1,2) x 2\n", "t:1:7: expected the start timestamp"},
        {"(1,2) 1\n", "t:1:8: expected the commit timestamp"},
        {"(1,2) 1 2 3\n", "t:1:11: unexpected text"},
        {"1,2 1 2\n", "t:1:1: expected a transaction"},
        {"(1,2) 99999999999999999999 1\n", "t:1:7: expected the start timestamp"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (psi_ts_file_parse("t", bad[i][0], strlen(bad[i][0]), &f, &d) != PSI_ERR_SYNTAX ||
            !strstr(d.msg, bad[i][1]))
            fail_msg("case %zu: '%s' (want '%s')", i, d.msg, bad[i][1]);
    }
}

/* Checks spec with timestamp text; fills r (the caller frees r and h). */
static psi_status check_ts(const char *spec, const char *ts, bool ser, psi_check_result *r,
                           psi_history **hp, psi_diag *d)
{
    psi_history *h = spec_history(spec);
    assert_non_null(h);
    psi_ts_file f;
    assert_int_equal(psi_ts_file_parse("ts.txt", ts, strlen(ts), &f, d), PSI_OK);
    psi_check_opts o = {.ser = ser, .timestamps = &f.ts};
    psi_status st = psi_check(h, &o, r, d);
    psi_ts_file_free(&f);
    *hp = h;
    return st;
}

static void expect(const char *spec, const char *ts, bool ser, psi_verdict v, psi_ts_kind kind,
                   bool replayed)
{
    psi_check_result r;
    psi_history *h;
    psi_diag d;
    if (check_ts(spec, ts, ser, &r, &h, &d) != PSI_OK)
        fail_msg("%s: %s", spec, d.msg);
    if (r.verdict != v || r.ts_violation.kind != kind || r.ts.replayed != replayed)
        fail_msg("%s with %s under %s: verdict %d kind %d replayed %d", spec, ts,
                 ser ? "ser" : "si", r.verdict, r.ts_violation.kind, r.ts.replayed);
    if (r.reason == PSI_BY_TIMESTAMPS) {
        psi_cex cx;
        psi_cex_opts xo = {.ser = ser};
        assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
        assert_true(cx.present && cx.by_timestamps);
        assert_non_null(strstr(cx.summary, "ts.txt:"));
        psi_cex_free(&cx);
    }
    psi_check_result_free(&r);
    psi_history_free(h);
}

static void test_planted(void **state)
{
    (void)state;
    /* Two overlapping writers of a key: SI rejects (lost update); the
     * same two one after the other are fine; SER takes commit order. */
    const char *two = "1:1:c w1=1; 2:2:c w1=2";
    expect(two, "(1,1) 1 5\n(2,2) 3 8\n", false, PSI_REJECT, PSI_TS_CONCURRENT_WRITERS, true);
    expect(two, "(1,1) 1 5\n(2,2) 6 8\n", false, PSI_ACCEPT, PSI_TS_OK, true);
    expect(two, "(1,1) 1 5\n(2,2) 3 8\n", true, PSI_ACCEPT, PSI_TS_OK, true);
    /* A stale read after a completed write: SI and SER reject. */
    const char *stale = "1:1:c w1=1; 2:2:c r1=_";
    expect(stale, "(1,1) 1 2\n(2,2) 5 6\n", false, PSI_REJECT, PSI_TS_STALE_READ, true);
    expect(stale, "(1,1) 1 2\n(2,2) 5 6\n", true, PSI_REJECT, PSI_TS_STALE_READ, true);
    /* Concurrent: the read may miss it. */
    expect(stale, "(1,1) 1 5\n(2,2) 3 6\n", false, PSI_ACCEPT, PSI_TS_OK, true);
    /* A read of a version committed after the reader started. */
    const char *future = "1:1:c w1=1; 2:2:c r1=1";
    expect(future, "(1,1) 1 5\n(2,2) 3 6\n", false, PSI_REJECT, PSI_TS_FUTURE_READ, true);
    expect(future, "(1,1) 1 5\n(2,2) 6 7\n", false, PSI_ACCEPT, PSI_TS_OK, true);
    /* Session order against time. */
    const char *sess = "1:1:c w1=1; 1:2:c w2=1";
    expect(sess, "(1,1) 1 5\n(1,2) 3 6\n", false, PSI_REJECT, PSI_TS_SESSION_ORDER, true);
    /* Partial: (3,3) has none, so the polygraph decides, with the
     * timestamps' edges: the stale read is a cycle through them. */
    const char *part = "1:1:c w1=1; 2:2:c r1=_; 3:3:c w2=1";
    expect(part, "(1,1) 1 2\n(2,2) 5 6\n", false, PSI_REJECT, PSI_TS_OK, false);
    expect(part, "(1,1) 1 5\n(2,2) 3 6\n", false, PSI_ACCEPT, PSI_TS_OK, false);
    expect(part, "(1,1) 1 5\n(2,2) 3 4\n", false, PSI_ACCEPT, PSI_TS_OK, false);
    /* Partial, directly: overlapping writers among the timestamped. */
    expect("1:1:c w1=1; 2:2:c w1=2; 3:3:c r1=2", "(1,1) 1 5\n(2,2) 3 8\n", false, PSI_REJECT,
           PSI_TS_CONCURRENT_WRITERS, false);
}

/* The partial stale read's counterexample names the timestamps' edge. */
static void test_partial_cycle_names_line(void **state)
{
    (void)state;
    psi_check_result r;
    psi_history *h;
    psi_diag d;
    assert_int_equal(
        check_ts("1:1:c w1=1; 2:2:c r1=_; 3:3:c w2=1", "(1,1) 1 2\n(2,2) 5 6\n", false, &r, &h, &d),
        PSI_OK);
    assert_int_equal(r.verdict, PSI_REJECT);
    psi_cex cx;
    psi_cex_opts xo = {0};
    assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
    /* A cycle through the timestamps' edge, or (shrunk to the two
     * timestamped transactions) the stale read itself, naming the line. */
    bool named =
        cx.by_timestamps && cx.kind == PSI_CEX_STALE_READ && strstr(cx.summary, "ts.txt:2");
    for (uint32_t i = 0; i < cx.n_edges; i++)
        named |= cx.edges[i].origin == PSI_CEX_TIMESTAMPS && cx.edges[i].hint_line == 2;
    assert_true(named);
    assert_string_equal(cx.ts_file, "ts.txt");
    psi_cex_free(&cx);
    psi_check_result_free(&r);
    psi_history_free(h);
    /* Unknown transactions are bad input, naming the line. */
    assert_int_equal(check_ts("1:1:c w1=1", "\n(1,1) 1 2\n(5,5) 1 2\n", false, &r, &h, &d),
                     PSI_ERR_INPUT);
    assert_non_null(strstr(d.msg, "ts.txt:3:"));
    psi_check_result_free(&r);
    psi_history_free(h);
    assert_int_equal(check_ts("1:1:a w1=1", "(1,1) 1 2\n", false, &r, &h, &d), PSI_ERR_INPUT);
    psi_check_result_free(&r);
    psi_history_free(h);
}

typedef struct ts_buf {
    psi_hint_ts *e;
    size_t n, cap;
} ts_buf;

static void collect(void *ctx, uint64_t s, uint64_t id, int64_t start, int64_t commit)
{
    ts_buf *b = ctx;
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->e = realloc(b->e, b->cap * sizeof *b->e);
        assert_non_null(b->e);
    }
    b->e[b->n] = (psi_hint_ts){s, id, start, commit, b->n + 1};
    b->n++;
}

static psi_verdict verdict_of(psi_history *h, bool ser, const psi_timestamps *ts)
{
    psi_check_opts o = {.ser = ser, .timestamps = ts};
    psi_check_result r;
    psi_diag d;
    if (psi_check(h, &o, &r, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    psi_verdict v = r.verdict;
    psi_check_result_free(&r);
    return v;
}

static void test_generated(void **state)
{
    (void)state;
    unsigned faulty_rejects = 0, n = 0;
    for (uint64_t seed = 1; seed <= 80; seed++) {
        psi_gen_opts go;
        psi_gen_opts_default(&go);
        go.seed = seed;
        go.sessions = 2 + seed % 4;
        go.txns_per_session = 3 + seed % 6;
        go.ops_per_txn = 1 + seed % 4;
        go.keys = 2 + seed % 5;
        go.store = seed % 2 ? PSI_STORE_SI : PSI_STORE_SER;
        bool faulty = seed % 3 == 0;
        if (faulty) {
            go.faults = PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE) | PSI_FAULT_BIT(PSI_FAULT_STALE_READ);
            go.fault_prob = 0.3;
        }
        ts_buf b = {0};
        go.on_timestamps = collect;
        go.timestamps_ctx = &b;
        psi_history *h;
        psi_diag d;
        assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
        psi_timestamps all = {.name = "gen.ts", .e = b.e, .n = b.n};
        /* Every other entry: partial. */
        psi_hint_ts *half = malloc((b.n + 1) * sizeof *half);
        assert_non_null(half);
        size_t nh = 0;
        for (size_t i = 0; i < b.n; i += 2)
            half[nh++] = b.e[i];
        psi_timestamps part = {.name = "gen.ts", .e = half, .n = nh};
        for (int ser = 0; ser < 2; ser++) {
            psi_verdict plain = verdict_of(h, ser, NULL);
            psi_verdict full = verdict_of(h, ser, &all);
            psi_verdict some = verdict_of(h, ser, &part);
            /* The SER store's timestamps make a serializable run, the SI
             * store's an SI run; without faults they pass. */
            if (!faulty && (!ser || go.store == PSI_STORE_SER)) {
                if (full != PSI_ACCEPT || some != PSI_ACCEPT)
                    fail_msg("seed %llu %s: true timestamps rejected (full %d, partial %d)",
                             (unsigned long long)seed, ser ? "ser" : "si", full, some);
            }
            if (plain == PSI_REJECT && (full != PSI_REJECT || some != PSI_REJECT))
                fail_msg("seed %llu %s: timestamps accepted a violation", (unsigned long long)seed,
                         ser ? "ser" : "si");
            if (full == PSI_ACCEPT && plain != PSI_ACCEPT)
                fail_msg("seed %llu %s: the replay accepts what the check rejects",
                         (unsigned long long)seed, ser ? "ser" : "si");
            faulty_rejects += faulty && full == PSI_REJECT;
            n++;
        }
        free(half);
        free(b.e);
        psi_history_free(h);
    }
    assert_true(faulty_rejects > 0);
    print_message("timestamps: %u checks, %u rejects of faulty runs\n", n, faulty_rejects);
}

/* A version order and timestamps that disagree: bad input, both named. */
static void test_files_disagree(void **state)
{
    (void)state;
    psi_history *h = spec_history("1:1:c w1=1; 2:2:c w1=2");
    assert_non_null(h);
    psi_ts_file f;
    psi_hint_file vo;
    psi_diag d;
    const char *ts = "(1,1) 1 2\n(2,2) 3 4\n", *order = "polysi-witness 3\nchain 1 (2,2) (1,1)\n";
    assert_int_equal(psi_ts_file_parse("ts.txt", ts, strlen(ts), &f, &d), PSI_OK);
    assert_int_equal(psi_hint_file_parse("vo.txt", order, strlen(order), &vo, &d), PSI_OK);
    psi_check_opts o = {.timestamps = &f.ts, .version_order = &vo.vo};
    psi_check_result r;
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_ERR_INPUT);
    assert_non_null(strstr(d.msg, "vo.txt:2:"));
    assert_non_null(strstr(d.msg, "ts.txt:1"));
    psi_check_result_free(&r);
    psi_hint_file_free(&vo);
    psi_ts_file_free(&f);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_planted),
        cmocka_unit_test(test_partial_cycle_names_line),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_files_disagree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
