/* Differential test: the whole pipeline against the independent brute-force
 * oracle on at least 20,000 random small histories per run, produced by the
 * simulated store under SI and SER, with injected faults (lost updates,
 * stale reads, long forks, sessions missing their own writes), and by
 * unconstrained random reads; each checked under SI and SER with pruning
 * on/off and coalescing on/off (theory propagation alternating). Any
 * disagreement fails with the seed and the history; such seeds are kept in
 * regressions[] below so they are checked on every run.
 *
 * PSI_DIFF_COUNT (environment) overrides the number of histories. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "check/lazy_rf.h"
#include "core/index.h"
#include "formats/write.h"
#include "interpret/describe.h"
#include "levels/level_oracle.h"
#include "oracle/oracle.h"
#include "workload/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { ORDER_CAP = 100000, UNKNOWN_VALUES = 1200 };

/* Seeds that once disagreed; each is run before the random ones.
 * 1634: pruning made a resolved constraint's RW edge from a forced
 * reader to itself a known self-loop (SER reject of a serializable
 * history with repeated values). */
static const uint64_t regressions[] = {0, 1634};

typedef struct tally {
    uint64_t checked, skipped, accept[2], reject[2];
    uint64_t probed; /* histories whose SI check ran pruning's probe (forced by the seed) */
    uint64_t repeated, explicit_init, ambiguous; /* histories with repeated values, an init
                                                    transaction, a read with a choice */
    uint64_t by_store[3];
    uint64_t faulty;
    uint64_t dropped;       /* histories whose aborted operations a check dropped */
    uint64_t lazy[3];       /* the lazy check's outcomes (psi_lazy_outcome), SI and SER runs */
    uint64_t restricted[2]; /* restricted problem first: [1] decided, [0] usual path after */
} tally;

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* A small random configuration, derived from the seed alone. */
static void config_for(uint64_t seed, psi_gen_opts *o)
{
    psi_gen_opts_default(o);
    uint64_t r = mix64(seed);
    o->seed = seed;
    o->sessions = 2 + (uint32_t)(r % 3);
    r /= 3;
    o->txns_per_session = 1 + (uint32_t)(r % 4);
    r /= 4;
    o->ops_per_txn = 1 + (uint32_t)(r % 4);
    r /= 4;
    o->keys = 1 + (uint32_t)(r % 3);
    r /= 3;
    o->read_ratio = (double)(r % 5) / 5.0 + 0.1;
    r /= 5;
    o->dist = PSI_DIST_UNIFORM;
    o->mix = (r % 4 == 0) ? PSI_MIX_RMW : PSI_MIX_POLYSI;
    r /= 4;
    switch (r % 8) {
    case 0:
    case 1:
        o->store = PSI_STORE_SI;
        break;
    case 2:
        o->store = PSI_STORE_SER;
        break;
    case 3:
    case 4:
    case 5:
        o->store = r % 2 ? PSI_STORE_SI : PSI_STORE_SER;
        o->faults = (unsigned)(mix64(seed ^ 0x5eed) % 15) + 1; /* a non-empty subset */
        o->fault_prob = 0.3;
        break;
    default:
        o->store = PSI_STORE_RANDOM;
        o->abort_ratio = (r / 8) % 2 ? 0.1 : 0.0;
        break;
    }
    r /= 8;
    o->unknown_ratio = (r % 6 == 0) ? 0.15 : 0.0;
    /* Half the histories retry aborted transactions (every session then
     * commits all its transactions), half keep the store's aborts as they
     * fell: both shapes occur in real test harnesses. */
    o->retry_aborted = (r / 6) % 2 == 0;
    /* A quarter of the histories write values from 1..1-3, so they repeat
     * (hyper-polygraph: reads with a choice of writers); half of those,
     * and a sixth of the rest, start with a recorded initial state.
     * Unknown outcomes stay with unique values: with a choice, which
     * unknown writer took part is approximated (core/index.h). */
    uint64_t q = mix64(seed ^ 0xd0b1eull);
    if (q % 4 == 0) {
        o->value_range = 1 + (q / 4) % 3;
        o->unknown_ratio = 0.0;
        o->explicit_init = (q / 9) % 2 == 0;
        /* A third of those as VeriStrong's workloads: zipfian values, and
         * only half the writes repeat, so unique and ambiguous reads mix. */
        if ((q / 54) % 3 == 0) {
            o->value_zipf = 1.0;
            o->value_unique_ratio = 0.5;
        }
    } else {
        o->explicit_init = (q / 9) % 6 == 0;
    }
}

static void dump(const psi_history *h)
{
    for (uint32_t t = 1; t < h->n_txns; t++) {
        char name[64];
        psi_fmt_txn(h, t, name, sizeof name);
        const psi_txn *tx = &h->txns[t];
        fprintf(stderr, "  %s %s:", name,
                tx->status == PSI_TXN_COMMITTED ? "c"
                : tx->status == PSI_TXN_ABORTED ? "a"
                                                : "u");
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            char op[128];
            psi_fmt_op(h, tx->first_op + i, op, sizeof op);
            fprintf(stderr, " %s", op);
        }
        fprintf(stderr, "\n");
    }
}

/* Returns false (after printing) on a disagreement. */
static bool check_seed(uint64_t seed, tally *t)
{
    psi_gen_opts o;
    config_for(seed, &o);
    psi_history *h;
    psi_gen_report rep;
    psi_diag d;
    if (psi_generate(&o, &h, &rep, &d) != PSI_OK) {
        fprintf(stderr, "seed %llu: generator failed: %s\n", (unsigned long long)seed, d.msg);
        return false;
    }
    /* The oracle enumerates version orders: cap the space so one run stays
     * well inside CI's budget (histories above the cap are skipped and do
     * not count towards the 20,000). */
    oracle_result want[2];
    oracle_check_limit(h, false, ORDER_CAP, &want[0]);
    oracle_check_limit(h, true, ORDER_CAP, &want[1]);
    if (want[0].verdict == ORACLE_TOO_BIG || want[1].verdict == ORACLE_TOO_BIG ||
        want[0].verdict == ORACLE_INVALID || want[1].verdict == ORACLE_INVALID) {
        t->skipped++;
        psi_history_free(h);
        return true;
    }
    bool ok = true;
    /* The fifth run of SI drops the aborted transactions' operations
     * (check.h, drop_aborted) when it finds no anomaly: it and every SER
     * run after it check what is left, against the oracle's verdicts on
     * the whole history. */
    for (int ser = 0; ser < 2 && ok; ser++) {
        for (unsigned flags = 0; flags < 5 && ok; flags++) {
            /* Pruning's probe of conditional edges (prune.h) runs only
             * from 2^20 read-from choices: half the seeds force it, so
             * its exclusions meet the oracle too. */
            psi_check_opts co = {.ser = ser,
                                 .no_pruning = flags & 1,
                                 .no_coalescing = flags & 2,
                                 .no_theory_propagation = (seed + flags) & 1,
                                 .prune_probe_choices = (seed >> 1) & 1,
                                 .drop_aborted = flags == 4,
                                 /* the lazy check first (lazy_rf.h) */
                                 .lazy_pairs = flags == 2 ? 1 : 0,
                                 /* the restricted problem first, in a
                                  * narrow window that often has no
                                  * model (restricted.h) */
                                 .restricted = flags == 4 ? PSI_RESTRICTED_ON : 0,
                                 .restricted_window = (uint32_t)(1 + seed % 4)};
            psi_check_result r;
            if (psi_check(h, &co, &r, &d) != PSI_OK) {
                fprintf(stderr, "seed %llu: check failed: %s\n", (unsigned long long)seed, d.msg);
                ok = false;
                break;
            }
            /* The lazy check's own verdicts, its reject included (the
             * pipeline takes only its accept). */
            if (flags == 0 && psi_lazy_applies(h, &r.idx)) {
                psi_lazy_opts lo = {.ser = ser};
                psi_lazy_outcome lz;
                psi_lazy_stats ls;
                if (psi_lazy_check(h, &r.idx, &lo, &lz, &ls, &d) != PSI_OK) {
                    fprintf(stderr, "seed %llu: lazy check failed: %s\n", (unsigned long long)seed,
                            d.msg);
                    ok = false;
                } else if (lz != PSI_LAZY_GAVE_UP &&
                           (lz == PSI_LAZY_ACCEPT) != (want[ser].verdict == ORACLE_ACCEPT)) {
                    fprintf(stderr, "DISAGREEMENT seed %llu (%s, lazy check): %s, oracle %s\n",
                            (unsigned long long)seed, ser ? "SER" : "SI",
                            lz == PSI_LAZY_ACCEPT ? "accepts" : "rejects",
                            want[ser].verdict == ORACLE_ACCEPT ? "accepts" : "rejects");
                    dump(h);
                    ok = false;
                }
                t->lazy[lz]++;
            }
            if (ser == 0 && flags == 0) {
                t->ambiguous += r.idx.n_amb > 0;
                t->probed += r.prune.probes > 0;
            }
            t->dropped += r.stats.dropped_ops > 0;
            if (r.stats.restricted_ran)
                t->restricted[r.stats.restricted_outcome == PSI_RESTRICTED_ACCEPT]++;
            bool got_accept = r.verdict == PSI_ACCEPT;
            bool want_accept = want[ser].verdict == ORACLE_ACCEPT;
            if (got_accept != want_accept) {
                fprintf(stderr,
                        "DISAGREEMENT seed %llu (%s, pruning %s, coalescing %s%s): pipeline "
                        "%s (reason %d), oracle %s (%s); store %s, faults 0x%x\n",
                        (unsigned long long)seed, ser ? "SER" : "SI", flags & 1 ? "off" : "on",
                        flags & 2 ? "off" : "on",
                        h->n_dropped_ops ? ", aborted operations dropped" : "",
                        got_accept ? "accepts" : "rejects", r.reason,
                        want_accept ? "accepts" : "rejects", oracle_reason_name(want[ser].why),
                        psi_gen_store_name(o.store), o.faults);
                dump(h);
                ok = false;
            }
            psi_check_result_free(&r);
        }
        if (want[ser].verdict == ORACLE_ACCEPT)
            t->accept[ser]++;
        else
            t->reject[ser]++;
    }
    /* A fault that provably breaks SI must be caught (with repeated
     * values another read-from may explain it: see workload/gen.h). */
    for (int f = 0; f < PSI_FAULT_COUNT && ok && !o.value_range; f++)
        if (rep.violations[f] && want[0].verdict != ORACLE_REJECT) {
            fprintf(stderr, "seed %llu: fault %s fired but the oracle accepts\n",
                    (unsigned long long)seed, psi_fault_name((psi_fault)f));
            ok = false;
        }
    t->checked++;
    t->repeated += o.value_range != 0;
    t->explicit_init += o.explicit_init;
    t->by_store[o.store]++;
    t->faulty += o.faults != 0;
    psi_history_free(h);
    return ok;
}

static void test_regressions(void **state)
{
    (void)state;
    tally t = {0};
    for (size_t i = 0; i < sizeof regressions / sizeof regressions[0]; i++)
        assert_true(check_seed(regressions[i], &t));
}

static void test_random_histories(void **state)
{
    (void)state;
    uint64_t want = 20000;
    const char *env = getenv("PSI_DIFF_COUNT");
    if (env)
        want = strtoull(env, NULL, 10);
    tally t = {0};
    uint64_t seed = 1;
    while (t.checked < want) {
        if (!check_seed(seed, &t))
            fail_msg("pipeline and oracle disagree on seed %llu (see above); add it to "
                     "regressions[]",
                     (unsigned long long)seed);
        seed++;
    }
    printf("differential: %llu histories checked (%llu skipped as too big), SI %llu accept / "
           "%llu reject, SER %llu accept / %llu reject; stores SI %llu, SER %llu, random %llu; "
           "%llu with faults; %llu with repeated values (%llu with a read that has a choice of "
           "writers), %llu with a recorded initial state\n",
           (unsigned long long)t.checked, (unsigned long long)t.skipped,
           (unsigned long long)t.accept[0], (unsigned long long)t.reject[0],
           (unsigned long long)t.accept[1], (unsigned long long)t.reject[1],
           (unsigned long long)t.by_store[0], (unsigned long long)t.by_store[1],
           (unsigned long long)t.by_store[2], (unsigned long long)t.faulty,
           (unsigned long long)t.repeated, (unsigned long long)t.ambiguous,
           (unsigned long long)t.explicit_init);
    /* The mix must exercise both verdicts under both levels, and choices. */
    assert_true(t.accept[0] > want / 20 && t.reject[0] > want / 20);
    assert_true(t.ambiguous > want / 20 && t.explicit_init > want / 20);
    printf("pruning's probe of conditional edges ran on %llu histories\n",
           (unsigned long long)t.probed);
    assert_true(t.probed > want / 50);
    assert_true(t.accept[1] > want / 20 && t.reject[1] > want / 20);
    printf("differential: %llu histories checked again without their aborted operations\n",
           (unsigned long long)t.dropped);
    assert_true(t.dropped > want / 20);
    printf("lazy check: %llu accept, %llu reject, %llu gave up\n",
           (unsigned long long)t.lazy[PSI_LAZY_ACCEPT], (unsigned long long)t.lazy[PSI_LAZY_REJECT],
           (unsigned long long)t.lazy[PSI_LAZY_GAVE_UP]);
    assert_true(t.lazy[PSI_LAZY_ACCEPT] > want / 50 && t.lazy[PSI_LAZY_REJECT] > want / 50);
    printf("restricted first: %llu decided by it, %llu by the usual path after it\n",
           (unsigned long long)t.restricted[1], (unsigned long long)t.restricted[0]);
    assert_true(t.restricted[1] > want / 50 && t.restricted[0] > want / 50);
}

/* Medium histories (3-6 sessions of 4-12 transactions) are beyond the oracle, but the paper's
 * polygraph (every writer pair a constraint, no pruning: --no-pruning) is the reference for the
 * sparse constraint generation and the pruning rounds: verdicts must agree under SI and SER, with
 * and without coalescing. */
static void test_pruning_matches_full_polygraph(void **state)
{
    (void)state;
    uint64_t n = 150, rejects[2] = {0, 0};
    for (uint64_t seed = 1; seed <= n; seed++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        uint64_t r = mix64(seed * 7919);
        o.seed = seed;
        o.sessions = 3 + (uint32_t)(r % 4);
        o.txns_per_session = 4 + (uint32_t)((r >> 8) % 9);
        o.ops_per_txn = 2 + (uint32_t)((r >> 16) % 4);
        o.keys = 3 + (uint32_t)((r >> 24) % 8);
        o.dist = (r >> 32) % 2 ? PSI_DIST_ZIPF : PSI_DIST_UNIFORM;
        o.mix = (r >> 33) % 3 == 0 ? PSI_MIX_RMW : PSI_MIX_POLYSI;
        o.store = (r >> 35) % 3 == 0 ? PSI_STORE_SER : PSI_STORE_SI;
        if ((r >> 37) % 2) {
            o.faults = (unsigned)((r >> 40) % 15) + 1;
            o.fault_prob = 0.05;
        }
        if ((r >> 44) % 5 == 0) { /* repeated values, sometimes a recorded init */
            o.value_range = 4 + (r >> 46) % 5;
            o.explicit_init = (r >> 48) % 2;
        }
        psi_history *h;
        psi_diag d;
        if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
            fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
        for (int ser = 0; ser < 2; ser++) {
            psi_verdict ref = PSI_ACCEPT;
            for (unsigned flags = 0; flags < 4; flags++) {
                psi_check_opts co = {
                    .ser = ser, .no_pruning = !(flags & 1), .no_coalescing = flags & 2};
                psi_check_result res;
                if (psi_check(h, &co, &res, &d) != PSI_OK)
                    fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
                if (flags == 0)
                    ref = res.verdict;
                else if (res.verdict != ref)
                    fail_msg("seed %llu (%s): pruning %s, coalescing %s gives %s, the full "
                             "polygraph without pruning gives %s",
                             (unsigned long long)seed, ser ? "SER" : "SI", flags & 1 ? "on" : "off",
                             flags & 2 ? "off" : "on",
                             res.verdict == PSI_ACCEPT ? "accept" : "reject",
                             ref == PSI_ACCEPT ? "accept" : "reject");
                psi_check_result_free(&res);
            }
            rejects[ser] += ref == PSI_REJECT;
        }
        psi_history_free(h);
    }
    printf("modes agree on %llu medium histories (rejected: SI %llu, SER %llu)\n",
           (unsigned long long)n, (unsigned long long)rejects[0], (unsigned long long)rejects[1]);
    assert_true(rejects[0] > n / 20 && rejects[0] < n - n / 20);
}

/* Repeated values and unknown outcomes together (issue 11): every history
 * writes values from 1..1-3, so reads have a choice of writers, and a
 * fifth to two fifths of its transactions are recorded with unknown
 * outcome, their own reads kept (what EDN's `:polysi/reads :observed`
 * gives): such a writer among a read's candidates is optional, its
 * outcome a choice (core/index.h). SI and SER are checked with pruning on
 * and off against the SI/SER oracle, which tries every outcome; PL-2, RC,
 * RA, CC, PC and PSI against the level oracle (tests/levels), PC and PSI
 * with pruning on and off too (last stop's CI crash was a PSI frontier on
 * such a history: tests/fuzz_regress/edn/psi-absent-optional-frontier.edn).
 * UNKNOWN_VALUES histories per run (PSI_DIFF_UNKNOWN overrides). */
static void unknown_config(uint64_t seed, psi_gen_opts *o)
{
    /* Smaller than config_for's (optional writers multiply the oracles'
     * work by their outcomes: config_for's shapes cost 5x the CPU), with
     * values that repeat and unknown outcomes always. */
    psi_gen_opts_default(o);
    uint64_t r = mix64(seed ^ 0x0b5e7edull);
    o->seed = seed;
    o->sessions = 2 + (uint32_t)(r % 3);
    r /= 3;
    o->txns_per_session = 1 + (uint32_t)(r % 3);
    r /= 3;
    o->ops_per_txn = 1 + (uint32_t)(r % 3);
    r /= 3;
    o->keys = 1 + (uint32_t)(r % 2);
    r /= 2;
    o->read_ratio = (double)(r % 4) / 5.0 + 0.2;
    r /= 4;
    o->dist = PSI_DIST_UNIFORM;
    o->mix = r % 3 == 0 ? PSI_MIX_RMW : PSI_MIX_POLYSI;
    r /= 3;
    uint64_t st = r % 6;
    r /= 6;
    o->store = st < 2 ? PSI_STORE_SI : st == 2 ? PSI_STORE_SER : PSI_STORE_RANDOM;
    if (st == 3 || st == 4) {
        o->store = r % 2 ? PSI_STORE_SI : PSI_STORE_SER;
        o->faults = (unsigned)(mix64(seed ^ 0xfa17) % 15) + 1;
        o->fault_prob = 0.3;
    }
    o->value_range = 1 + r % 3;
    r /= 3;
    o->unknown_ratio = 0.2 + 0.1 * (double)(r % 3);
    r /= 3;
    o->explicit_init = r % 4 == 0;
    r /= 4;
    o->retry_aborted = r % 2 == 0;
}

static bool unknown_seed(uint64_t seed, uint64_t *checked, uint64_t *open, uint64_t *dropped,
                         uint64_t rejects[8])
{
    static const psi_level lev[8] = {PSI_LEVEL_SI, PSI_LEVEL_SER, PSI_LEVEL_PL2, PSI_LEVEL_RC,
                                     PSI_LEVEL_RA, PSI_LEVEL_CC,  PSI_LEVEL_PC,  PSI_LEVEL_PSI};
    static const lo_level olev[6] = {LO_PL2, LO_RC, LO_RA, LO_CC, LO_PC, LO_PSI};
    psi_gen_opts o;
    unknown_config(seed, &o);
    psi_history *h;
    psi_diag d;
    if (psi_generate(&o, &h, NULL, &d) != PSI_OK) {
        fprintf(stderr, "seed %llu: generator failed: %s\n", (unsigned long long)seed, d.msg);
        return false;
    }
    /* PSI_DIFF_DUMP=FILE: each history is written there (EDN) before it
     * is checked, so a crash leaves the history that caused it. */
    if (getenv("PSI_DIFF_DUMP")) {
        psi_write_edn(h, getenv("PSI_DIFF_DUMP"), &d);
        dump(h);
    }
    /* PL-2 to CC run on every history (they used to wait for
     * PSI_DIFF_WEAK=1 while seed 292 tripped an assert under RA, since
     * fixed). test_levels' differentials do not cover what these shapes
     * do: unknown outcomes in every history together with values from
     * 1..1 to 1..3, recorded initial states and sessions that give up
     * after an abort; they cost about 1 s of CPU under ASan. */
    bool want[8] = {false}, skip = false;
    for (int i = 0; i < 8 && !skip; i++) {
        if (i < 2) {
            oracle_result orr;
            oracle_check_limit(h, i == 1, ORDER_CAP, &orr);
            skip = orr.verdict == ORACLE_TOO_BIG || orr.verdict == ORACLE_INVALID;
            want[i] = orr.verdict == ORACLE_REJECT;
        } else {
            lo_verdict v = level_oracle_check(h, olev[i - 2], ORDER_CAP);
            skip = v == LO_TOO_BIG || v == LO_INVALID;
            want[i] = v == LO_REJECT;
        }
    }
    bool ok = true;
    for (int i = 0; i < 8 && ok && !skip; i++) {
        /* The weak levels PL-2 to CC do not prune (check/level.h). */
        bool prunes = i < 2 || i >= 6;
        for (int np = 0; np < (prunes ? 2 : 1) && ok; np++) {
            /* The first SI check drops the aborted transactions'
             * operations when it finds no anomaly (check.h): every level
             * after it checks what is left, against the oracles' verdicts
             * on the whole history. */
            psi_check_opts co = {.level = lev[i],
                                 .ser = i == 1,
                                 .no_pruning = np,
                                 .prune_probe_choices = (seed >> 1) & 1,
                                 .drop_aborted = i == 0 && !np};
            psi_check_result r;
            if (psi_check(h, &co, &r, &d) != PSI_OK) {
                fprintf(stderr, "seed %llu: check under %s failed: %s\n", (unsigned long long)seed,
                        psi_level_name(lev[i]), d.msg);
                ok = false;
                break;
            }
            if (i == 0 && np == 0) {
                *open += r.idx.n_opt > 0 && r.idx.n_amb > 0;
                *dropped += r.stats.dropped_ops > 0;
            }
            bool got = r.verdict == PSI_REJECT;
            if (got != want[i]) {
                fprintf(stderr,
                        "DISAGREEMENT seed %llu (%s, pruning %s%s): pipeline %s, oracle %s; "
                        "store %s, faults 0x%x\n",
                        (unsigned long long)seed, psi_level_name(lev[i]), np ? "off" : "on",
                        h->n_dropped_ops ? ", aborted operations dropped" : "",
                        got ? "rejects" : "accepts", want[i] ? "rejects" : "accepts",
                        psi_gen_store_name(o.store), o.faults);
                dump(h);
                ok = false;
            }
            if (np == 0)
                rejects[i] += got;
            psi_check_result_free(&r);
        }
    }
    *checked += !skip;
    psi_history_free(h);
    return ok;
}

static void test_repeated_values_unknown_outcomes(void **state)
{
    (void)state;
    uint64_t want = UNKNOWN_VALUES, checked = 0, open = 0, dropped = 0, rejects[8] = {0};
    const char *env = getenv("PSI_DIFF_UNKNOWN");
    if (env)
        want = strtoull(env, NULL, 10);
    for (uint64_t seed = 1; checked < want; seed++)
        if (!unknown_seed(seed, &checked, &open, &dropped, rejects))
            fail_msg("pipeline and oracle disagree on seed %llu (see above)",
                     (unsigned long long)seed);
    printf("repeated values with unknown outcomes: %llu histories (%llu with an optional writer "
           "among a read's candidates); rejected: SI %llu, SER %llu, PL-2 %llu, RC %llu, RA "
           "%llu, CC %llu, PC %llu, PSI %llu\n",
           (unsigned long long)checked, (unsigned long long)open, (unsigned long long)rejects[0],
           (unsigned long long)rejects[1], (unsigned long long)rejects[2],
           (unsigned long long)rejects[3], (unsigned long long)rejects[4],
           (unsigned long long)rejects[5], (unsigned long long)rejects[6],
           (unsigned long long)rejects[7]);
    printf("repeated values with unknown outcomes: %llu histories checked on without their "
           "aborted operations\n",
           (unsigned long long)dropped);
    /* The mix must have optional writers and both verdicts. */
    assert_true(open > want / 10);
    assert_true(dropped > want / 20);
    assert_true(rejects[0] > want / 20 && rejects[0] < want - want / 20);
    assert_true(rejects[6] > want / 20 && rejects[7] > want / 20);
    /* and the weak levels both verdicts, RA and CC more rejects than RC
     * (non-repeatable reads) */
    for (int i = 2; i < 6; i++)
        assert_true(rejects[i] > want / 40 && rejects[i] < want - want / 20);
    assert_true(rejects[4] > rejects[3] && rejects[5] >= rejects[4]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_regressions),
        cmocka_unit_test(test_pruning_matches_full_polygraph),
        cmocka_unit_test(test_random_histories),
        cmocka_unit_test(test_repeated_values_unknown_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
