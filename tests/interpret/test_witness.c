/* Witnesses: written from the model on accept, re-checked by the
 * independent verifier; tampered witnesses are refused; hostile bytes never
 * crash the parser; and on random small histories the verifier agrees with
 * the brute-force oracle over every version order (a valid witness exists
 * iff the oracle accepts), and the checker's own witnesses verify. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "interpret/witness.h"
#include "interpret/witness_check.h"
#include "oracle/oracle.h"
#include "support/spec.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *witness_text(psi_history *h, bool ser, size_t *len)
{
    psi_check_result r;
    psi_diag d;
    psi_check_opts o = {.ser = ser, .keep_model = true};
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    if (r.verdict != PSI_ACCEPT) {
        psi_check_result_free(&r);
        return NULL;
    }
    psi_witness w;
    assert_int_equal(psi_witness_build(h, &r, ser, &w, &d), PSI_OK);
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_true(psi_witness_write(&w, h->source, f, "w", &d) == PSI_OK);
    fclose(f);
    psi_witness_free(&w);
    psi_check_result_free(&r);
    return buf;
}

static int verify(psi_history *h, const char *text, size_t len, bool ser, char *why)
{
    psi_wverdict v;
    psi_diag d;
    char *reason = NULL;
    psi_status st = psi_witness_verify(h, "w", text, len, ser, &v, &reason, &d);
    if (st != PSI_OK) {
        snprintf(why, 512, "%.500s", d.msg);
        return 2;
    }
    snprintf(why, 512, "%.500s", reason ? reason : "");
    free(reason);
    return v == PSI_WITNESS_VALID ? 0 : 1;
}

static const char *accepted[] = {
    "1:1:c w1=1; 1:2:c r1=1 w1=2; 2:3:c r1=2",
    "1:1:c w1=1; 2:2:c w1=2; 3:3:c w1=3",
    "1:1:c w1=1; 2:2:c w1=2; 3:3:c w1=3; 4:4:c r1=1; 4:5:c r1=2; 4:6:c r1=3",
    "1:1:c r1=_ r2=_ w1=1; 2:2:c r1=_ r2=_ w2=2",
    "1:1:c w1=1 w2=1; 2:2:c w1=2 w2=2; 3:3:c r1=2 r2=2; 4:4:c r1=1 r2=1",
};

static void test_accepted_witnesses_verify(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof accepted / sizeof accepted[0]; i++) {
        for (int ser = 0; ser < 2; ser++) {
            psi_history *h = spec_history(accepted[i]);
            size_t len;
            char *w = witness_text(h, ser, &len), why[512];
            if (!w) {
                psi_history_free(h);
                continue;
            }
            if (verify(h, w, len, ser, why) != 0)
                fail_msg("%s: %s\n%s", accepted[i], why, w);
            free(w);
            psi_history_free(h);
        }
    }
}

static void test_tampered_witnesses_refused(void **state)
{
    (void)state;
    psi_history *h = spec_history("1:1:c w1=1; 2:2:c w1=2; 3:3:c w2=5; 4:4:c r1=1; 4:5:c r1=2");
    char why[512];
    const char *good = "polysi-witness 1\nkey 1 (1,1) (2,2)\nkey 2 (3,3)\n";
    assert_int_equal(verify(h, good, strlen(good), false, why), 0);
    const char *bad[][2] = {
        {"polysi-witness 1\nkey 1 (2,2) (1,1)\nkey 2 (3,3)\n", "cycle"},
        {"polysi-witness 1\nkey 1 (1,1)\nkey 2 (3,3)\n", "misses (2,2)"},
        {"polysi-witness 1\nkey 1 (1,1) (2,2)\n", "key 2: no version order"},
        {"polysi-witness 1\nkey 1 (1,1) (2,2) (1,1)\nkey 2 (3,3)\n", "listed twice"},
        {"polysi-witness 1\nkey 1 (1,1) (2,2)\nkey 2 (3,3)\nkey 1 (1,1) (2,2)\n",
         "already ordered on line 2"},
        {"polysi-witness 1\nkey 1 (1,1) (9,9)\nkey 2 (3,3)\n", "(9,9) is not in the history"},
        {"polysi-witness 1\nkey 1 (1,1) (2,2) (3,3)\nkey 2 (3,3)\n", "does not write key 1"},
        {"polysi-witness 1\nkey 1 (1,1) (2,2)\nkey 2 (3,3)\nkey 7 (3,3)\n", "key 7 does not occur"},
        {"polysi-witness 3\nkey 1 (1,1) (2,2)\nkey 2 (3,3)\nchain 1 (1,1)\n",
         "line 4: a chain line is an ordering hint"},
        {"polysi-witness 1\nkey 1 (1,1) (2,2)\nkey 2 (3,3)\norder (1,1) (2,2) (3,3) (4,4)\n",
         "misses (4,5)"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = verify(h, bad[i][0], strlen(bad[i][0]), false, why);
        if (rc != 1 || !strstr(why, bad[i][1]))
            fail_msg("case %zu: rc %d, '%s' (want refusal with '%s')", i, rc, why, bad[i][1]);
    }
    /* SER: the order must put every dependency forward. */
    const char *ord = "polysi-witness 1\nkey 1 (1,1) (2,2)\nkey 2 (3,3)\n"
                      "order (1,1) (3,3) (4,5) (2,2) (4,4)\n";
    assert_int_equal(verify(h, ord, strlen(ord), true, why), 1);
    assert_non_null(strstr(why, "line 4"));
    const char *malformed[] = {"",
                               "key 1 (1,1)\n",
                               "polysi-witness 6\n", /* 5: a writer per read event */
                               "polysi-witness 1\nkey x (1,1)\n",
                               "polysi-witness 1\nkey 1 (1,1\n",
                               "polysi-witness 1\nkey 1 (1,99999999999999999999)\n",
                               "polysi-witness 1\nfrobnicate\n"};
    for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++)
        assert_int_equal(verify(h, malformed[i], strlen(malformed[i]), false, why), 2);
    psi_history_free(h);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t rnd(uint32_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* Mutations of a valid witness: any verdict is fine, a crash or a leak is
 * not (the sanitizers watch). */
static void test_hostile_witness_bytes(void **state)
{
    (void)state;
    psi_history *h = spec_history(accepted[2]);
    size_t len;
    char *w = witness_text(h, true, &len), why[512];
    assert_non_null(w);
    static const char alphabet[] = "()0123456789, \n\t#keyorderisolationser\0\xff-";
    for (int iter = 0; iter < 5000; iter++) {
        size_t n = len + 8;
        char *m = malloc(n);
        memcpy(m, w, len);
        size_t ml = len;
        for (uint32_t k = 1 + rnd(4); k > 0; k--) {
            uint32_t op = rnd(3), at = ml ? rnd((uint32_t)ml) : 0;
            char c = alphabet[rnd(sizeof alphabet - 1)];
            if (op == 0 && ml)
                m[at] = c;
            else if (op == 1 && ml)
                memmove(m + at, m + at + 1, ml - at - 1), ml--;
            else if (ml < n)
                memmove(m + at + 1, m + at, ml - at), m[at] = c, ml++;
        }
        if (rnd(8) == 0)
            ml = rnd((uint32_t)ml + 1); /* truncate */
        int rc = verify(h, m, ml, rnd(2), why);
        assert_true(rc >= 0 && rc <= 2);
        free(m);
    }
    free(w);
    psi_history_free(h);
}

/* A random small history (as in test_interpret.c). */
static void random_spec(char *buf, size_t n)
{
    uint32_t sessions = 2 + rnd(3), keys = 2 + rnd(2), next = 1, id = 1;
    uint32_t vals[3][32], nv[3] = {0, 0, 0};
    size_t used = 0;
    for (uint32_t s = 1; s <= sessions; s++) {
        uint32_t txns = 1 + rnd(3);
        for (uint32_t t = 0; t < txns; t++) {
            used += (size_t)snprintf(buf + used, n - used, "%s%u:%u:c", used ? "; " : "", s, id++);
            uint32_t ops = 1 + rnd(3);
            uint8_t seen[3] = {0, 0, 0};
            for (uint32_t o = 0; o < ops; o++) {
                uint32_t k = rnd(keys);
                if (seen[k])
                    continue;
                seen[k] = 1;
                if (rnd(2) && nv[k] < 32) {
                    vals[k][nv[k]++] = next;
                    used += (size_t)snprintf(buf + used, n - used, " w%u=%u", k, next++);
                } else if (!nv[k] || !rnd(4)) {
                    used += (size_t)snprintf(buf + used, n - used, " r%u=_", k);
                } else {
                    used +=
                        (size_t)snprintf(buf + used, n - used, " r%u=%u", k, vals[k][rnd(nv[k])]);
                }
            }
        }
    }
}

/* Writers (transaction indices) of dense key k, in transaction order. */
static uint32_t key_writers(const psi_history *h, uint32_t k, uint32_t *out)
{
    uint32_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++) {
            const psi_op *o = &h->ops[h->txns[t].first_op + i];
            if (o->kind == PSI_OP_WRITE && o->key == k) {
                out[n++] = t;
                break;
            }
        }
    return n;
}

static bool next_perm(uint32_t *a, uint32_t n)
{
    if (n < 2)
        return false;
    uint32_t i = n - 1;
    while (i > 0 && a[i - 1] >= a[i])
        i--;
    if (i == 0)
        return false;
    uint32_t j = n - 1;
    while (a[j] <= a[i - 1])
        j--;
    uint32_t t = a[i - 1];
    a[i - 1] = a[j];
    a[j] = t;
    for (uint32_t l = i, r = n - 1; l < r; l++, r--)
        t = a[l], a[l] = a[r], a[r] = t;
    return true;
}

/* The verifier against the brute-force oracle: a history satisfies the
 * level iff some complete version order is a valid witness. Every version
 * order of every key is tried, so both soundness (a valid witness implies
 * the oracle accepts) and completeness are checked. */
static void test_verifier_matches_oracle(void **state)
{
    (void)state;
    uint32_t histories = 0, n_accepted = 0;
    for (int iter = 0; iter < 400; iter++) {
        char spec[2048];
        random_spec(spec, sizeof spec);
        psi_history *h = spec_history(spec);
        assert_non_null(h);
        uint32_t nk = h->n_keys, w[3][16], nw[3];
        for (uint32_t k = 0; k < nk; k++)
            nw[k] = key_writers(h, k, w[k]);
        for (int ser = 0; ser < 2; ser++) {
            oracle_result orr;
            oracle_verdict ov = oracle_check_ex(h, ser, &orr);
            if (ov != ORACLE_ACCEPT && ov != ORACLE_REJECT)
                continue;
            uint32_t perm[3][16];
            for (uint32_t k = 0; k < nk; k++)
                for (uint32_t i = 0; i < nw[k]; i++)
                    perm[k][i] = i;
            bool any_valid = false;
            uint32_t tried = 0;
            for (bool more = true; more && tried < 5000; tried++) {
                char text[4096], why[512];
                size_t used = (size_t)snprintf(text, sizeof text, "polysi-witness 1\n");
                for (uint32_t k = 0; k < nk; k++) {
                    used += (size_t)snprintf(text + used, sizeof text - used, "key %llu",
                                             (unsigned long long)h->keys[k]);
                    for (uint32_t i = 0; i < nw[k]; i++) {
                        const psi_txn *tx = &h->txns[w[k][perm[k][i]]];
                        used += (size_t)snprintf(text + used, sizeof text - used, " (%llu,%llu)",
                                                 (unsigned long long)h->sessions[tx->session].id,
                                                 (unsigned long long)tx->id);
                    }
                    used += (size_t)snprintf(text + used, sizeof text - used, "\n");
                }
                int rc = verify(h, text, used, ser, why);
                assert_true(rc == 0 || rc == 1);
                if (rc == 0) {
                    any_valid = true;
                    if (ov != ORACLE_ACCEPT)
                        fail_msg("%s (%s): the oracle rejects, yet this witness verifies:\n%s",
                                 spec, ser ? "SER" : "SI", text);
                    break;
                }
                /* next combination of per-key permutations */
                more = false;
                for (uint32_t k = 0; k < nk && !more; k++) {
                    if (next_perm(perm[k], nw[k]))
                        more = true;
                    else
                        for (uint32_t i = 0; i < nw[k]; i++)
                            perm[k][i] = i;
                }
            }
            if (ov == ORACLE_ACCEPT && !any_valid && tried < 5000)
                fail_msg("%s (%s): the oracle accepts, but no version order verifies", spec,
                         ser ? "SER" : "SI");
            /* The checker's own witness, with and without pruning. */
            for (int np = 0; np < 2 && ov == ORACLE_ACCEPT; np++) {
                psi_check_result r;
                psi_diag d;
                psi_check_opts o = {.ser = ser, .no_pruning = np, .keep_model = true};
                assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
                assert_int_equal(r.verdict, PSI_ACCEPT);
                psi_witness wt;
                assert_int_equal(psi_witness_build(h, &r, ser, &wt, &d), PSI_OK);
                char *buf = NULL, why[512];
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                assert_true(psi_witness_write(&wt, h->source, f, "w", &d) == PSI_OK);
                fclose(f);
                if (verify(h, buf, len, ser, why) != 0)
                    fail_msg("%s (%s, pruning %s): the checker's witness is refused: %s\n%s", spec,
                             ser ? "SER" : "SI", np ? "off" : "on", why, buf);
                free(buf);
                psi_witness_free(&wt);
                psi_check_result_free(&r);
            }
            histories++;
            n_accepted += ov == ORACLE_ACCEPT;
        }
        psi_history_free(h);
    }
    printf("  %u history/level pairs, %u accepted by the oracle, verifier agrees on all\n",
           histories, n_accepted);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_witnesses_verify),
        cmocka_unit_test(test_tampered_witnesses_refused),
        cmocka_unit_test(test_hostile_witness_bytes),
        cmocka_unit_test(test_verifier_matches_oracle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
