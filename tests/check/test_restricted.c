/* The restricted problem tried first (check/restricted.h): its accept is
 * the history's, so the witness it emits must verify against the whole
 * history (the verifier knows nothing of the restriction); a window too
 * narrow to have a model must leave the verdict to the usual path; and
 * the verdict never differs from the usual path's. Generated histories
 * with values 1..4, where every read has a choice of writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "check/restricted.h"
#include "interpret/witness.h"
#include "interpret/witness_check.h"
#include "workload/gen.h"

#include <stdio.h>
#include <stdlib.h>

static psi_history *generate(uint64_t seed, uint32_t sessions, uint32_t txns, uint64_t values)
{
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.seed = seed;
    o.sessions = sessions;
    o.txns_per_session = txns;
    o.ops_per_txn = 8;
    o.keys = 100;
    o.value_range = values;
    o.store = PSI_STORE_SI;
    psi_history *h;
    psi_gen_report rep;
    psi_diag d;
    assert_int_equal(psi_generate(&o, &h, &rep, &d), PSI_OK);
    return h;
}

/* The witness of an accepted check, written and verified against h. */
static bool witness_verifies(psi_history *h, psi_check_result *r, bool ser, char *why)
{
    psi_witness w;
    psi_diag d;
    assert_int_equal(psi_witness_build(h, r, ser, &w, &d), PSI_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_true(psi_witness_write(&w, h->source, f, "w", &d) == PSI_OK);
    fclose(f);
    psi_witness_free(&w);
    psi_wverdict v;
    char *reason = NULL;
    psi_status st = psi_witness_verify(h, "w", buf, len, ser, &v, &reason, &d);
    snprintf(why, 512, "%.500s", st != PSI_OK ? d.msg : reason ? reason : "");
    free(reason);
    free(buf);
    return st == PSI_OK && v == PSI_WITNESS_VALID;
}

/* The usual path's verdict. */
static psi_verdict usual(psi_history *h, bool ser)
{
    psi_check_opts o = {.ser = ser, .restricted = PSI_RESTRICTED_OFF};
    psi_check_result r;
    psi_diag d;
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    assert_false(r.stats.restricted_ran);
    psi_verdict v = r.verdict;
    psi_check_result_free(&r);
    return v;
}

static void test_restricted_witness_verifies(void **state)
{
    (void)state;
    uint32_t accepted = 0, runs = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        psi_history *h = generate(seed, 4 + seed % 5, 40 + 10 * (seed % 4), 2 + seed % 3);
        for (int ser = 0; ser < 2; ser++) {
            /* window 0: the default; the others narrower */
            uint32_t windows[] = {0, 10};
            for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
                psi_check_opts o = {.ser = ser,
                                    .keep_model = true,
                                    .restricted = PSI_RESTRICTED_ON,
                                    .restricted_window = windows[i]};
                psi_check_result r;
                psi_diag d;
                assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
                assert_true(r.stats.restricted_ran);
                assert_int_equal(r.verdict, usual(h, ser));
                if (r.stats.restricted_outcome == PSI_RESTRICTED_ACCEPT) {
                    char why[512];
                    if (!witness_verifies(h, &r, ser, why))
                        fail_msg("seed %llu (%s, window %u): the restricted accept's witness "
                                 "is refused: %s",
                                 (unsigned long long)seed, ser ? "SER" : "SI", windows[i], why);
                    accepted++;
                }
                runs++;
                psi_check_result_free(&r);
            }
        }
        psi_history_free(h);
    }
    printf("  %u runs, %u decided by the restricted problem\n", runs, accepted);
    /* SI stores' histories are SI: the default window decides most */
    assert_true(accepted >= 3);
}

/* A window of one transaction assumes nearly the sessions' round-robin
 * order: on an SI history with values 1..2 that has no model, so the
 * usual path must accept after it. */
static void test_narrow_window_proves_nothing(void **state)
{
    (void)state;
    uint32_t fell_back = 0;
    for (uint64_t seed = 1; seed <= 8; seed++) {
        psi_history *h = generate(seed, 6, 60, 2);
        psi_check_opts o = {.restricted = PSI_RESTRICTED_ON, .restricted_window = 1};
        psi_check_result r;
        psi_diag d;
        assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(usual(h, false), PSI_ACCEPT);
        if (r.stats.restricted_outcome != PSI_RESTRICTED_ACCEPT) {
            fell_back++;
            /* the usual path's figures: it built the polygraph itself */
            assert_true(r.stats.constraints_before > 0);
            assert_null(r.cut_idx.amb);
        }
        psi_check_result_free(&r);
        psi_history_free(h);
    }
    assert_true(fell_back > 0);
}

/* The restriction only removes candidates: every kept one is one of the
 * read's, and a read left with one becomes an ordinary read of it. */
static void test_cut_keeps_a_subset(void **state)
{
    (void)state;
    psi_history *h = generate(3, 6, 60, 3);
    psi_index idx, cut;
    psi_diag d;
    uint32_t init;
    psi_init_opts io = {0};
    assert_int_equal(psi_index_mark_initial(h, &io, &init, &d), PSI_OK);
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_true(psi_restricted_applies(h, &idx));
    double *est = malloc(h->n_txns * 4 * sizeof *est);
    assert_non_null(est);
    double *unc = est + h->n_txns, *lo = unc + h->n_txns, *hi = lo + h->n_txns;
    assert_int_equal(psi_restricted_estimate(h, &idx, 8, est, unc, &d), PSI_OK);
    for (uint32_t s = 0; s < h->n_sessions; s++)
        for (uint32_t i = 1; i < h->sessions[s].n_txns; i++)
            assert_true(est[h->sessions[s].first_txn + i - 1] < est[h->sessions[s].first_txn + i]);
    /* Spans: each holds its estimate's w / 2 + unc either side, and both
     * ends increase along sessions (what the skeleton's soundness for the
     * kept candidates rests on, restricted.h). */
    psi_restricted_spans(h, est, unc, 20, lo, hi);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        assert_true(unc[t] >= 0);
        assert_true(lo[t] <= est[t] - 10 - unc[t] + 1e-6 && hi[t] >= est[t] + 10 + unc[t] - 1e-6);
    }
    for (uint32_t s = 0; s < h->n_sessions; s++)
        for (uint32_t i = 1; i < h->sessions[s].n_txns; i++) {
            uint32_t t = h->sessions[s].first_txn + i;
            assert_true(lo[t - 1] <= lo[t] && hi[t - 1] <= hi[t]);
        }
    psi_restricted_spans(h, est, NULL, 20, lo, hi);
    psi_restricted_cut c;
    assert_int_equal(psi_restricted_index(h, &idx, lo, hi, &cut, &c, &d), PSI_OK);
    assert_true(c.choices_after < c.choices_before);
    assert_int_equal(c.reads_before, idx.n_amb);
    assert_int_equal(c.reads_after, cut.n_amb);
    uint32_t k = 0;
    for (uint32_t a = 0; a < idx.n_amb; a++) {
        const psi_amb_read *r = &idx.amb[a];
        const uint32_t *full = idx.amb_cand + r->first;
        if (k < cut.n_amb && cut.amb[k].op == r->op) {
            const psi_amb_read *q = &cut.amb[k++];
            assert_true(q->n >= 2 && q->n <= r->n);
            for (uint32_t j = 0, f = 0; j < q->n; j++, f++) {
                while (f < r->n && full[f] != cut.amb_cand[q->first + j])
                    f++;
                assert_true(f < r->n); /* a subsequence of the read's */
            }
        } else {
            uint32_t src = cut.read_src[r->op];
            bool found = false;
            for (uint32_t j = 0; j < r->n; j++)
                found |= full[j] == src;
            assert_true(found);
            assert_false(cut.op_info[r->op] & PSI_OI_AMBIG);
        }
    }
    assert_int_equal(k, cut.n_amb);
    free(est);
    psi_index_free(&cut);
    psi_index_free(&idx);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_restricted_witness_verifies),
        cmocka_unit_test(test_narrow_window_proves_nothing),
        cmocka_unit_test(test_cut_keeps_a_subset),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
