/* Real time and the histories' own timestamps (issue 15 items 2, 3, 5): the EDN/JSON readers'
 * invoke and completion intervals, the levels strict-ser, strong-si and the strong-session ones on
 * planted histories (a stale read after a completed write: SER accepts, strict-ser rejects; SI
 * accepts, strong-si rejects), the counterexample's real-time edge, the refusal of a history
 * without real time, the frontier sweep against the naive real-time
 * relation (same transitive closure, few edges), and a differential test
 * against the brute-force oracle restricted to real time and timestamps. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "check/realtime.h"
#include "formats/read.h"
#include "interpret/all.h"
#include "interpret/explain.h"
#include "interpret/render.h"
#include "interpret/witness.h"
#include "interpret/witness_check.h"
#include "interpret/witness_level.h"
#include "oracle/oracle.h"
#include "support/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A write of :x completes (index 1) before a read of :x is invoked (index
 * 2); the read sees the initial value. */
static const char stale_edn[] =
    "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :index 0}\n"
    "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :index 1}\n"
    "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 2}\n"
    "{:type :ok, :f :txn, :value [[:r :x nil]], :process 1, :index 3}\n";
static const char stale_json[] =
    "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"w\",\"x\",1]],\"process\":0,\"index\":0}\n"
    "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"w\",\"x\",1]],\"process\":0,\"index\":1}\n"
    "{\"type\":\"invoke\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",null]],\"process\":1,\"index\":2}\n"
    "{\"type\":\"ok\",\"f\":\"txn\",\"value\":[[\"r\",\"x\",null]],\"process\":1,\"index\":3}\n";
/* The same, but the read is invoked before the write completes. */
static const char overlap_edn[] =
    "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0, :index 0}\n"
    "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1, :index 1}\n"
    "{:type :ok, :f :txn, :value [[:w :x 1]], :process 0, :index 2}\n"
    "{:type :ok, :f :txn, :value [[:r :x nil]], :process 1, :index 3}\n";
/* A read completes before an :info write is invoked, yet reads it: a
 * future read in real time (the :info write's open completion does not
 * matter, its invoke does). No :index: places in the file. */
static const char future_edn[] = "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 1}\n"
                                 "{:type :ok, :f :txn, :value [[:r :x 1]], :process 1}\n"
                                 "{:type :invoke, :f :txn, :value [[:w :x 1]], :process 0}\n"
                                 "{:type :info, :f :txn, :value [[:w :x 1]], :process 0}\n";

static psi_history *read_jepsen(const char *text, bool json)
{
    psi_history *h = NULL;
    psi_diag d;
    psi_status st = json ? psi_read_json_buf("h.json", text, strlen(text), 0, &h, &d)
                         : psi_read_edn_buf("h.edn", text, strlen(text), 0, &h, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

/* The verdict (0 accept, 1 reject) of text under level l. */
static int verdict(const char *text, bool json, psi_level l)
{
    psi_history *h = read_jepsen(text, json);
    psi_check_opts o = {.level = l, .ser = psi_level_base(l) == PSI_LEVEL_SER};
    psi_check_result r;
    psi_diag d;
    if (psi_check(h, &o, &r, &d) != PSI_OK)
        fail_msg("%s: %s", psi_level_name(l), d.msg);
    int v = r.verdict == PSI_REJECT;
    psi_check_result_free(&r);
    psi_history_free(h);
    return v;
}

static const psi_level levels[] = {
    PSI_LEVEL_SER,       PSI_LEVEL_STRICT_SER,        PSI_LEVEL_SI,
    PSI_LEVEL_STRONG_SI, PSI_LEVEL_STRONG_SESSION_SI, PSI_LEVEL_STRONG_SESSION_SER};

static void test_planted(void **state)
{
    (void)state;
    /* verdicts under levels[] */
    static const struct {
        const char *text;
        bool json;
        int want[6];
    } cases[] = {
        {stale_edn, false, {0, 1, 0, 1, 0, 0}},
        {stale_json, true, {0, 1, 0, 1, 0, 0}},
        {overlap_edn, false, {0, 0, 0, 0, 0, 0}},
        {future_edn, false, {0, 1, 0, 1, 0, 0}},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (size_t l = 0; l < 6; l++)
            if (verdict(cases[c].text, cases[c].json, levels[l]) != cases[c].want[l])
                fail_msg("case %zu under %s: want %s", c, psi_level_name(levels[l]),
                         cases[c].want[l] ? "reject" : "accept");
}

static void test_reader(void **state)
{
    (void)state;
    psi_history *h = read_jepsen(stale_edn, false);
    assert_non_null(h->rt);
    assert_true(h->rt_by_index);
    /* sessions sorted by process: txn 1 the write, txn 2 the read */
    assert_int_equal(h->rt[1].invoke, 0);
    assert_int_equal(h->rt[1].complete, 1);
    assert_int_equal(h->rt[2].invoke, 2);
    assert_true(psi_rt_precedes(h, 1, 2));
    assert_false(psi_rt_precedes(h, 2, 1));
    psi_history_free(h);
    h = read_jepsen(future_edn, false);
    assert_false(h->rt_by_index);
    assert_int_equal(h->rt[1].complete, PSI_RT_OPEN); /* process 0: the :info write */
    assert_int_equal(h->rt[1].invoke, 3);
    assert_int_equal(h->rt[2].complete, 2);
    psi_history_free(h);
    /* No :process: no real time. */
    h = read_jepsen("{:type :ok, :value [[:w 1 1]], :index 1}\n", false);
    assert_null(h->rt);
    psi_history_free(h);
}

/* strict-ser and strong-si refuse a history without real time (exit 2);
 * the strong-session levels need none. */
static void test_no_realtime(void **state)
{
    (void)state;
    const char *texts[] = {"{:type :ok, :value [[:w 1 1]]}\n{:type :ok, :value [[:r 1 1]]}\n",
                           NULL};
    for (int i = 0; i < 2; i++) {
        psi_history *h =
            texts[i] ? read_jepsen(texts[i], false) : spec_history("0:1:c w1=1; 1:2:c r1=1");
        assert_non_null(h);
        assert_null(h->rt);
        for (int s = 0; s < 2; s++) {
            psi_check_opts o = {.level = s ? PSI_LEVEL_STRONG_SI : PSI_LEVEL_STRICT_SER, .ser = !s};
            psi_check_result r;
            psi_diag d;
            assert_int_equal(psi_check(h, &o, &r, &d), PSI_ERR_INPUT);
            assert_non_null(strstr(d.msg, "carries no real time"));
            psi_check_result_free(&r);
        }
        psi_check_opts o = {.level = PSI_LEVEL_STRONG_SESSION_SER, .ser = true};
        psi_check_result r;
        psi_diag d;
        assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        psi_check_result_free(&r);
        psi_history_free(h);
    }
}

/* The counterexample names the real-time edge. */
static void test_counterexample(void **state)
{
    (void)state;
    psi_history *h = read_jepsen(stale_edn, false);
    psi_check_opts o = {.level = PSI_LEVEL_STRICT_SER, .ser = true};
    psi_check_result r;
    psi_diag d;
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_REJECT);
    psi_cex cx;
    psi_cex_opts co = {.ser = true};
    assert_int_equal(psi_cex_build(h, &r, &co, &cx, &d), PSI_OK);
    bool found = false;
    for (uint32_t i = 0; i < cx.n_edges; i++)
        found |=
            cx.edges[i].origin == PSI_CEX_REALTIME && cx.edges[i].from == 1 && cx.edges[i].to == 2;
    assert_true(found);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    psi_render_opts ro = {.ser = true, .level = PSI_LEVEL_STRICT_SER};
    assert_true(psi_render_text(h, &r, &cx, &ro, f));
    fclose(f);
    if (!strstr(text, "real time: completed at index 1 before invoked at index 2"))
        fail_msg("%s", text);
    free(text);
    psi_cex_free(&cx);
    psi_check_result_free(&r);
    psi_history_free(h);
}

/* :start-ts and :commit-ts in EDN/JSON feed the --timestamps path. */
static void test_edn_timestamps(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        bool json;
        psi_verdict v;
        psi_ts_kind kind;
    } cases[] = {
        /* two writers of :x overlapping in time: lost update */
        {"{:type :ok, :process 0, :value [[:w :x 1]], :start-ts 1, :commit-ts 5}\n"
         "{:type :ok, :process 1, :value [[:w :x 2]], :start-ts 2, :commit-ts 6}\n",
         false, PSI_REJECT, PSI_TS_CONCURRENT_WRITERS},
        /* the same, one after the other */
        {"{:type :ok, :process 0, :value [[:w :x 1]], :start-ts 1, :commit-ts 2}\n"
         "{:type :ok, :process 1, :value [[:w :x 2]], :start-ts 3, :commit-ts 6}\n",
         false, PSI_ACCEPT, PSI_TS_OK},
        /* a read that starts after a commit of :x misses it */
        {"{\"type\":\"ok\",\"process\":0,\"value\":[[\"w\",\"x\",1]],\"start-ts\":-4,"
         "\"commit-ts\":-3}\n"
         "{\"type\":\"ok\",\"process\":1,\"value\":[[\"r\",\"x\",null]],\"start-ts\":3,"
         "\"commit-ts\":4}\n",
         true, PSI_REJECT, PSI_TS_STALE_READ},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        psi_history *h = read_jepsen(cases[c].text, cases[c].json);
        assert_non_null(h->ts);
        psi_check_opts o = {0};
        psi_check_result r;
        psi_diag d;
        if (psi_check(h, &o, &r, &d) != PSI_OK)
            fail_msg("case %zu: %s", c, d.msg);
        if (r.verdict != cases[c].v || r.ts_violation.kind != cases[c].kind || !r.ts.replayed)
            fail_msg("case %zu: verdict %d kind %d replayed %d", c, r.verdict, r.ts_violation.kind,
                     r.ts.replayed);
        psi_check_result_free(&r);
        psi_history_free(h);
    }
    /* bad timestamps: exit 2 naming the place */
    static const char *bad[][2] = {
        {"{:type :ok, :process 0, :value [[:w 1 1]]}\n"
         "{:type :ok, :process 1, :value [[:w 1 2]], :start-ts 9, :commit-ts 5}\n",
         "h.edn:2:"},
        {"{:type :ok, :process 0, :value [[:w 1 1]], :start-ts 9}\n", "h.edn:1:"},
        {"{:type :ok, :process 0, :value [[:w 1 1]], :start-ts :x, :commit-ts 1}\n", "h.edn:1:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        psi_history *h = NULL;
        psi_diag d;
        assert_int_not_equal(psi_read_edn_buf("h.edn", bad[i][0], strlen(bad[i][0]), 0, &h, &d),
                             PSI_OK);
        assert_null(h);
        if (!strstr(d.msg, bad[i][1]))
            fail_msg("bad %zu: '%s'", i, d.msg);
    }
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* A random Jepsen-like history built directly: `procs` processes each
 * running up to `per` transactions one at a time, interleaved at random;
 * completions :ok, :fail or :info (open). Each transaction reads first
 * (a random written value of the key, or the initial one) then writes
 * fresh values. ts (when not NULL, [n_txns] by builder order) gets the
 * real-time interval as timestamps for about half the committed ones. */
typedef struct gen_txn {
    uint32_t proc, n_ops;
    uint32_t key[3];
    uint8_t write[3];
    uint64_t value[3];
    uint64_t inv, cmp;
    uint8_t status;
} gen_txn;

static psi_history *gen_history(uint64_t seed, uint32_t procs, uint32_t per, bool with_ts,
                                psi_hint_ts *ts, size_t *n_ts)
{
    uint64_t s = seed * 0x9E3779B97F4A7C15ull + 1;
    gen_txn tx[16];
    uint32_t n = 0, left[4], cur[4];
    uint64_t next_val = 1, clock = 0;
    for (uint32_t p = 0; p < procs; p++) {
        left[p] = 1 + (uint32_t)(rng_next(&s) % per);
        cur[p] = UINT32_MAX;
    }
    for (;;) {
        uint32_t p = (uint32_t)(rng_next(&s) % procs), tries = 0;
        while (tries < procs && cur[p] == UINT32_MAX && left[p] == 0) {
            p = (p + 1) % procs;
            tries++;
        }
        if (tries == procs)
            break;
        clock++;
        if (cur[p] == UINT32_MAX) {
            gen_txn *t = &tx[n];
            memset(t, 0, sizeof *t);
            t->proc = p;
            t->inv = clock;
            t->n_ops = 1 + (uint32_t)(rng_next(&s) % 3);
            for (uint32_t i = 0; i < t->n_ops; i++) {
                t->key[i] = (uint32_t)(rng_next(&s) % 2);
                t->write[i] = rng_next(&s) % 2;
            }
            /* reads first */
            for (uint32_t i = 0; i < t->n_ops; i++)
                for (uint32_t j = i + 1; j < t->n_ops; j++)
                    if (t->write[i] && !t->write[j]) {
                        uint8_t w = t->write[i];
                        uint32_t k = t->key[i];
                        t->write[i] = t->write[j];
                        t->key[i] = t->key[j];
                        t->write[j] = w;
                        t->key[j] = k;
                    }
            for (uint32_t i = 0; i < t->n_ops; i++)
                if (t->write[i])
                    t->value[i] = next_val++;
            cur[p] = n++;
            left[p]--;
        } else {
            gen_txn *t = &tx[cur[p]];
            uint64_t r = rng_next(&s) % 10;
            t->status = r < 8 ? PSI_TXN_COMMITTED : r < 9 ? PSI_TXN_ABORTED : PSI_TXN_UNKNOWN;
            t->cmp = t->status == PSI_TXN_UNKNOWN ? PSI_RT_OPEN : clock;
            cur[p] = UINT32_MAX;
        }
    }
    /* reads: the initial value or any written value of the key but one of
     * the reader's own */
    for (uint32_t t = 0; t < n; t++)
        for (uint32_t i = 0; i < tx[t].n_ops; i++) {
            if (tx[t].write[i])
                continue;
            uint64_t cand[48];
            uint32_t nc = 0;
            cand[nc++] = 0;
            /* mostly writers not aborted, so that not every history is
             * rejected before real time matters */
            bool any = rng_next(&s) % 8 == 0;
            for (uint32_t u = 0; u < n; u++)
                for (uint32_t j = 0; u != t && j < tx[u].n_ops; j++)
                    if (tx[u].write[j] && tx[u].key[j] == tx[t].key[i] &&
                        (any || tx[u].status != PSI_TXN_ABORTED))
                        cand[nc++] = tx[u].value[j];
            tx[t].value[i] = cand[rng_next(&s) % nc];
        }
    psi_builder *b = psi_builder_new("gen", PSI_FMT_EDN);
    psi_diag d;
    *n_ts = 0;
    for (uint32_t t = 0; t < n; t++) {
        const gen_txn *g = &tx[t];
        assert_int_equal(psi_builder_begin(b, g->proc, t + 1, t + 1, &d), PSI_OK);
        assert_int_equal(psi_builder_set_rt(b, g->inv, g->cmp, &d), PSI_OK);
        for (uint32_t i = 0; i < g->n_ops; i++)
            assert_int_equal(psi_builder_op(b, g->write[i] ? PSI_OP_WRITE : PSI_OP_READ, g->key[i],
                                            g->value[i],
                                            !g->write[i] && !g->value[i] ? PSI_OPF_INIT : 0, &d),
                             PSI_OK);
        assert_int_equal(psi_builder_end(b, (psi_txn_status)g->status, &d), PSI_OK);
        if (with_ts && g->status == PSI_TXN_COMMITTED && rng_next(&s) % 2) {
            uint64_t line = *n_ts + 1;
            ts[(*n_ts)++] =
                (psi_hint_ts){g->proc, t + 1, (int64_t)g->inv * 2, (int64_t)g->cmp * 2 + 1, line};
        }
    }
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

/* The sweep's edges have the naive relation's transitive closure, and
 * there are few of them. */
static void test_sweep(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        psi_hint_ts ts[16];
        size_t n_ts;
        psi_history *h = gen_history(seed, 4, 4, false, ts, &n_ts);
        psi_polygraph g;
        memset(&g, 0, sizeof g);
        uint64_t added;
        psi_diag d;
        assert_int_equal(psi_rt_constrain(h, &g, &added, &d), PSI_OK);
        assert_int_equal(added, g.n_known);
        assert_int_equal(added, g.n_rt_edges);
        uint32_t n = h->n_txns;
        assert_true(n <= 17);
        uint32_t reach[17] = {0};
        for (uint64_t i = 0; i < g.n_known; i++) {
            const psi_edge *e = &g.known[i];
            assert_true(psi_rt_precedes(h, e->from, e->to));
            reach[e->from] |= 1u << e->to;
        }
        for (int round = 0; round < 17; round++)
            for (uint32_t a = 0; a < n; a++)
                for (uint32_t b = 0; b < n; b++)
                    if (reach[a] >> b & 1)
                        reach[a] |= reach[b];
        uint64_t naive = 0;
        for (uint32_t a = 1; a < n; a++)
            for (uint32_t b = 1; b < n; b++) {
                bool in = h->txns[a].status == PSI_TXN_COMMITTED &&
                          h->txns[b].status == PSI_TXN_COMMITTED && psi_rt_precedes(h, a, b);
                naive += in;
                if (in != (bool)(reach[a] >> b & 1))
                    fail_msg("seed %llu: %u -> %u real time %d, reached %d",
                             (unsigned long long)seed, a, b, in, reach[a] >> b & 1);
            }
        /* 4 processes: each transaction gets edges from at most 4 */
        assert_true(added <= 4u * n);
        assert_true(added <= naive);
        psi_polygraph_free(&g);
        psi_history_free(h);
    }
}

/* The pipeline under strict-ser and strong-si (with and without some
 * timestamps) agrees with the oracle restricted to the same orders. */
static void test_oracle(void **state)
{
    (void)state;
    uint32_t counts[2][2] = {{0}}, rt_only = 0;
    for (uint64_t seed = 1; seed <= 120; seed++)
        for (int ser = 0; ser < 2; ser++)
            for (int with_ts = 0; with_ts < 2; with_ts++) {
                psi_hint_ts ts[16];
                size_t n_ts;
                psi_history *h = gen_history(seed, 3, 3, with_ts, ts, &n_ts);
                oracle_ts ots[17] = {{0}};
                for (size_t i = 0; i < n_ts; i++)
                    ots[ts[i].tid] = (oracle_ts){true, ts[i].start, ts[i].commit};
                /* ids are builder order + 1, which the history keeps per
                 * session: map back by id */
                oracle_ts by_txn[17] = {{0}};
                for (uint32_t t = 1; t < h->n_txns; t++)
                    by_txn[t] = ots[h->txns[t].id];
                oracle_hints oh = {.realtime = true, .ts = with_ts ? by_txn : NULL};
                oracle_result orr;
                oracle_verdict ov = oracle_check_hinted(h, ser, &oh, ORACLE_MAX_ORDERS, &orr);
                if (ov == ORACLE_INVALID || ov == ORACLE_TOO_BIG) {
                    psi_history_free(h);
                    continue;
                }
                psi_timestamps pts = {.name = "ts", .e = ts, .n = n_ts};
                psi_check_opts o = {.level = ser ? PSI_LEVEL_STRICT_SER : PSI_LEVEL_STRONG_SI,
                                    .ser = ser,
                                    .timestamps = with_ts && n_ts ? &pts : NULL};
                psi_check_result r;
                psi_diag d;
                if (psi_check(h, &o, &r, &d) != PSI_OK)
                    fail_msg("seed %llu %s ts %d: %s", (unsigned long long)seed,
                             ser ? "strict-ser" : "strong-si", with_ts, d.msg);
                bool rej = r.verdict == PSI_REJECT;
                if (rej != (ov == ORACLE_REJECT))
                    fail_msg("seed %llu %s ts %d: pipeline %s, oracle %s (%s)",
                             (unsigned long long)seed, ser ? "strict-ser" : "strong-si", with_ts,
                             rej ? "reject" : "accept", oracle_verdict_name(ov),
                             oracle_reason_name(orr.why));
                counts[ser][rej]++;
                /* rejects that real time alone causes: a pipeline that
                 * ignored it would fail on these */
                if (rej && !with_ts) {
                    oracle_hints none = {0};
                    rt_only += oracle_check_hinted(h, ser, &none, ORACLE_MAX_ORDERS, NULL) ==
                               ORACLE_ACCEPT;
                }
                psi_check_result_free(&r);
                psi_history_free(h);
            }
    /* both verdicts occur at both levels */
    for (int ser = 0; ser < 2; ser++) {
        print_message("%s: %u accepts, %u rejects\n", ser ? "strict-ser" : "strong-si",
                      counts[ser][0], counts[ser][1]);
        assert_true(counts[ser][0] >= 10 && counts[ser][1] >= 10);
    }
    print_message("%u rejects by real time alone\n", rt_only);
    assert_true(rt_only >= 10);
}

/* verify-witness under strict-ser and strong-si (issue 15): the witness's
 * order must respect the history's real time too. */
static psi_wverdict verify_text(psi_history *h, const char *text, psi_level l, char **why)
{
    psi_wverdict v;
    psi_diag d;
    if (psi_witness_verify_level(h, "w.txt", text, strlen(text), l, &v, why, &d) != PSI_OK)
        fail_msg("%s: %s", psi_level_name(l), d.msg);
    return v;
}

static void test_verify_witness(void **state)
{
    (void)state;
    /* The planted stale read: the only version order is valid under SI
     * and SER, refused under strong-si (a cycle through the real-time
     * edge and the key's line), and a serialization order against real
     * time is refused under strict-ser naming the order's line. */
    const char *si = "polysi-witness 4\nisolation si\nkey :x (0,1)\n";
    const char *ser = "polysi-witness 4\nisolation ser\nkey :x (0,1)\norder (1,3) (0,1)\n";
    char *why = NULL;
    psi_history *h = read_jepsen(stale_edn, false);
    assert_int_equal(verify_text(h, si, PSI_LEVEL_SI, &why), PSI_WITNESS_VALID);
    assert_int_equal(verify_text(h, si, PSI_LEVEL_STRONG_SESSION_SI, &why), PSI_WITNESS_VALID);
    assert_int_equal(verify_text(h, si, PSI_LEVEL_STRONG_SI, &why), PSI_WITNESS_REFUSED);
    assert_non_null(strstr(why, "lines 3:"));
    assert_non_null(strstr(why, "-RT->"));
    assert_non_null(strstr(why, "completed at index 1 before (1,3) was invoked at index 2"));
    free(why);
    psi_history_free(h);
    h = read_jepsen(stale_edn, false);
    assert_int_equal(verify_text(h, ser, PSI_LEVEL_SER, &why), PSI_WITNESS_VALID);
    assert_int_equal(verify_text(h, ser, PSI_LEVEL_STRICT_SER, &why), PSI_WITNESS_REFUSED);
    assert_non_null(strstr(why, "line 4: the order puts (0,1) after (1,3)"));
    assert_non_null(strstr(why, "real time"));
    free(why);
    psi_history_free(h);
    /* A history without real time: an error, as for check. */
    h = spec_history("1:1:c w1=1");
    psi_wverdict v;
    psi_diag d;
    const char *w1 = "polysi-witness 1\nkey 1 (1,1)\n";
    assert_int_equal(
        psi_witness_verify_level(h, "w", w1, strlen(w1), PSI_LEVEL_STRICT_SER, &v, &why, &d),
        PSI_ERR_INPUT);
    assert_non_null(strstr(d.msg, "no real time"));
    psi_history_free(h);
    /* Generated histories: the witness of a strict-ser/strong-si accept is
     * valid under that level; a witness of the plain level that is valid
     * under the real-time one only occurs when the check accepts. */
    unsigned valid = 0, refused = 0;
    for (uint64_t seed = 1; seed <= 60; seed++)
        for (int sr = 0; sr < 2; sr++) {
            psi_level rl = sr ? PSI_LEVEL_STRICT_SER : PSI_LEVEL_STRONG_SI;
            psi_level pl = sr ? PSI_LEVEL_SER : PSI_LEVEL_SI;
            psi_hint_ts ts[16];
            size_t n_ts;
            h = gen_history(seed, 3, 3, false, ts, &n_ts);
            psi_verdict strict = PSI_REJECT;
            for (int pass = 0; pass < 2; pass++) {
                psi_level l = pass ? pl : rl;
                psi_check_opts o = {.level = l, .ser = sr, .keep_model = true};
                psi_check_result r;
                assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
                if (!pass)
                    strict = r.verdict;
                if (r.verdict != PSI_ACCEPT) {
                    psi_check_result_free(&r);
                    continue;
                }
                psi_witness w;
                assert_int_equal(psi_witness_build(h, &r, sr, &w, &d), PSI_OK);
                psi_check_result_free(&r);
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                assert_int_equal(psi_witness_write(&w, NULL, f, "mem", &d), PSI_OK);
                fclose(f);
                psi_witness_free(&w);
                v = verify_text(h, buf, rl, &why);
                if (!pass && v != PSI_WITNESS_VALID)
                    fail_msg("seed %llu %s: the check's own witness refused: %s",
                             (unsigned long long)seed, psi_level_name(rl), why);
                if (pass && v == PSI_WITNESS_VALID && strict != PSI_ACCEPT)
                    fail_msg("seed %llu: a %s witness proves %s, which the check rejects",
                             (unsigned long long)seed, psi_level_name(pl), psi_level_name(rl));
                valid += v == PSI_WITNESS_VALID;
                refused += v == PSI_WITNESS_REFUSED;
                free(why);
                free(buf);
            }
            psi_history_free(h);
        }
    print_message("real-time witnesses: %u valid, %u refused\n", valid, refused);
    assert_true(valid >= 20 && refused >= 5);
}

/* The witness of h's accept under level l (ts: timestamps, or NULL) is
 * written at version `version`, the lowest that carries its lines, and
 * verify-witness proves the level with it. */
static void witness_version(psi_history *h, psi_level l, const psi_timestamps *ts, unsigned version)
{
    psi_check_opts o = {.level = l,
                        .ser = psi_level_base(l) == PSI_LEVEL_SER,
                        .keep_model = true,
                        .timestamps = ts};
    psi_check_result r;
    psi_diag d;
    if (psi_check(h, &o, &r, &d) != PSI_OK)
        fail_msg("%s: %s", psi_level_name(l), d.msg);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    psi_witness w;
    bool sisser = l == PSI_LEVEL_SI || l == PSI_LEVEL_SER;
    psi_status st = sisser ? psi_witness_build(h, &r, l == PSI_LEVEL_SER, &w, &d)
                           : psi_witness_build_level(h, &r, &w, &d);
    if (st != PSI_OK)
        fail_msg("%s: %s", psi_level_name(l), d.msg);
    if (w.version != version || psi_witness_min_version(&w) != version)
        fail_msg("%s: version %u (lowest %u), expected %u", psi_level_name(l), w.version,
                 psi_witness_min_version(&w), version);
    char *buf = NULL, head[32];
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(psi_witness_write(&w, NULL, f, "mem", &d), PSI_OK);
    fclose(f);
    snprintf(head, sizeof head, "\npolysi-witness %u\n", version);
    if (!strstr(buf, head))
        fail_msg("%s: no '%s' in %s", psi_level_name(l), head + 1, buf);
    /* Timestamps decided: the key lines are there (verify needs them). */
    if (ts && sisser)
        assert_non_null(strstr(buf, "\nkey "));
    char *why = NULL;
    if (verify_text(h, buf, l, &why) != PSI_WITNESS_VALID)
        fail_msg("%s: witness refused: %s\n%s", psi_level_name(l), why, buf);
    free(why);
    free(buf);
    psi_witness_free(&w);
    psi_check_result_free(&r);
}

/* Each witness version, written only when needed (issue 15): 1 plain, 2
 * with a read-from choice, 3 for the levels other than SI and SER, 4 when
 * a written line spells a key; and a witness of the timestamp replay
 * (no polygraph) with its key lines. */
static void test_witness_versions(void **state)
{
    (void)state;
    psi_history *h = spec_history("1:1:c w1=1; 2:2:c r1=1");
    witness_version(h, PSI_LEVEL_SI, NULL, 1);
    witness_version(h, PSI_LEVEL_SER, NULL, 1);
    witness_version(h, PSI_LEVEL_PC, NULL, 3);
    witness_version(h, PSI_LEVEL_PSI, NULL, 3);
    witness_version(h, PSI_LEVEL_CC, NULL, 3);
    psi_history_free(h);
    h = spec_history("1:1:c w1=1; 2:2:c w1=1; 3:3:c r1=1");
    witness_version(h, PSI_LEVEL_SI, NULL, 2);
    witness_version(h, PSI_LEVEL_SER, NULL, 2);
    witness_version(h, PSI_LEVEL_PC, NULL, 3);
    psi_history_free(h);
    static const char named[] = "{:type :ok, :process 0, :value [[:w :x 1]]}\n"
                                "{:type :ok, :process 1, :value [[:w :x 1] [:w :y 2]]}\n"
                                "{:type :ok, :process 2, :value [[:r :x 1] [:r :y 2]]}\n";
    h = read_jepsen(named, false);
    witness_version(h, PSI_LEVEL_SI, NULL, 4);
    witness_version(h, PSI_LEVEL_SER, NULL, 4);
    witness_version(h, PSI_LEVEL_PC, NULL, 4); /* the read line spells :x */
    witness_version(h, PSI_LEVEL_PSI, NULL, 4);
    psi_history_free(h);
    static const char unique[] = "{:type :ok, :process 0, :value [[:w :x 1]]}\n"
                                 "{:type :ok, :process 1, :value [[:r :x 1]]}\n";
    h = read_jepsen(unique, false);
    witness_version(h, PSI_LEVEL_SI, NULL, 4);
    witness_version(h, PSI_LEVEL_PC, NULL, 3); /* no line spells a key */
    psi_history_free(h);
    /* Complete timestamps: the replay decides, the witness is the commit
     * order per key (and SER's order line), the choice of writer the
     * version the replay showed. */
    static const char ts_edn[] =
        "{:type :ok, :process 0, :value [[:w :x 1]], :start-ts 1, :commit-ts 2}\n"
        "{:type :ok, :process 1, :value [[:w :x 1] [:w :y 2]], :start-ts 3, :commit-ts 4}\n"
        "{:type :ok, :process 2, :value [[:r :x 1] [:r :y 2]], :start-ts 5, :commit-ts 6}\n"
        "{:type :ok, :process 3, :value [[:r :x 1] [:w :x 3]], :start-ts 7, :commit-ts 8}\n";
    h = read_jepsen(ts_edn, false);
    witness_version(h, PSI_LEVEL_SI, NULL, 4);
    witness_version(h, PSI_LEVEL_SER, NULL, 4);
    psi_history_free(h);
    h = spec_history("1:1:c w1=1; 2:2:c w1=1 w2=1; 3:3:c r1=1 r2=1; 1:4:c w2=5");
    static const psi_hint_ts e[] = {
        {1, 1, 1, 2, 1}, {2, 2, 3, 4, 2}, {3, 3, 5, 6, 3}, {1, 4, 7, 8, 4}};
    psi_timestamps ts = {.name = "ts.txt", .e = e, .n = 4};
    witness_version(h, PSI_LEVEL_SI, &ts, 2);
    witness_version(h, PSI_LEVEL_SER, &ts, 2);
    psi_history_free(h);
}

/* --all-anomalies with timestamps, carried in the history (EDN) or given
 * (--timestamps): every violation the timestamps show is found, each in
 * transactions of its own, what is left satisfies SI, and the text
 * summary counts them as found from the timestamps, by name. */
static void all_with_ts(psi_history *h, const psi_timestamps *ts, uint32_t expect)
{
    psi_check_opts o = {.timestamps = ts};
    psi_check_result r;
    psi_diag d;
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_REJECT);
    assert_int_equal(r.reason, PSI_BY_TIMESTAMPS);
    psi_cex_opts xo = {0};
    psi_cex cx;
    assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
    assert_true(cx.present);
    psi_all all;
    if (psi_all_find(h, &r, &cx, &o, &xo, 16, &all, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(all.n + 1, expect);
    assert_true(all.rest_checked);
    assert_int_equal(all.rest, PSI_ACCEPT);
    /* The summary says where they come from, by name: no cycle. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    psi_render_opts ro = {.all = &all};
    assert_true(psi_render_text(h, &r, &cx, &ro, f));
    fclose(f);
    if (!strstr(text, "3 independent violations found from the timestamps (lost update 2, "
                      "stale read 1); no more") ||
        strstr(text, "with a cycle"))
        fail_msg("summary: %s", text);
    free(text);
    /* disjoint: no transaction (by name) in two violations */
    uint8_t seen[64] = {0};
    for (uint32_t i = 0; i <= all.n; i++) {
        const psi_history *hi = i ? all.items[i - 1].h : h;
        const psi_cex *c = i ? &all.items[i - 1].cx : &cx;
        const psi_check_result *ri = i ? &all.items[i - 1].res : &r;
        assert_int_equal(ri->reason, PSI_BY_TIMESTAMPS);
        assert_true(ri->ts.replayed);
        for (uint32_t k = 0; k < c->n_txns; k++) {
            uint32_t t = c->txns[k];
            if (t == PSI_INIT_TXN)
                continue;
            uint64_t id = hi->txns[t].id;
            assert_true(id < 64);
            assert_int_equal(seen[id], 0);
            seen[id] = 1;
        }
    }
    psi_all_free(&all);
    psi_cex_free(&cx);
    psi_check_result_free(&r);
}

static void test_all_anomalies_timestamps(void **state)
{
    (void)state;
    /* two lost updates and a stale read, by the history's own timestamps */
    static const char edn[] =
        "{:type :ok, :process 0, :value [[:w :x 1]], :start-ts 1, :commit-ts 5}\n"
        "{:type :ok, :process 1, :value [[:w :x 2]], :start-ts 2, :commit-ts 6}\n"
        "{:type :ok, :process 2, :value [[:w :y 1]], :start-ts 10, :commit-ts 15}\n"
        "{:type :ok, :process 3, :value [[:w :y 2]], :start-ts 11, :commit-ts 16}\n"
        "{:type :ok, :process 4, :value [[:w :z 1]], :start-ts 20, :commit-ts 21}\n"
        "{:type :ok, :process 5, :value [[:r :z nil]], :start-ts 30, :commit-ts 31}\n";
    psi_history *h = read_jepsen(edn, false);
    all_with_ts(h, NULL, 3);
    psi_history_free(h);
    /* the same with --timestamps, whose lines name transactions some of
     * which are taken out */
    h = spec_history("1:1:c w1=1; 2:2:c w1=2; 3:3:c w2=1; 4:4:c w2=2; 5:5:c w3=1; 6:6:c r3=_");
    static const psi_hint_ts e[] = {{1, 1, 1, 5, 1},   {2, 2, 2, 6, 2},   {3, 3, 10, 15, 3},
                                    {4, 4, 11, 16, 4}, {5, 5, 20, 21, 5}, {6, 6, 30, 31, 6}};
    psi_timestamps ts = {.name = "ts.txt", .e = e, .n = 6};
    all_with_ts(h, &ts, 3);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader),
        cmocka_unit_test(test_planted),
        cmocka_unit_test(test_no_realtime),
        cmocka_unit_test(test_counterexample),
        cmocka_unit_test(test_sweep),
        cmocka_unit_test(test_oracle),
        cmocka_unit_test(test_edn_timestamps),
        cmocka_unit_test(test_verify_witness),
        cmocka_unit_test(test_all_anomalies_timestamps),
        cmocka_unit_test(test_witness_versions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
