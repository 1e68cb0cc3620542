/* Small random list-append histories (EDN's semantics) for tests that
 * sweep seeds (tests/levels: the lattice and RC/PL-2's list reads;
 * tests/order: list reads in the polygraph-free pass). Sessions run whole
 * transactions one after another against one list per key; a read returns
 * a random prefix of its key's list (often all of it, sometimes a stale
 * one, now and then its last two elements swapped), so two reads of a key
 * in one transaction may see different lists, later or earlier. One
 * append per key and transaction, no read after its own append (what the
 * brute-force oracles support); some transactions abort (their appends
 * are never seen).
 *
 * Include after <cmocka.h>: a builder failure fails the test, naming the
 * seed. The caller owns the returned history (psi_history_free). */
#ifndef PSI_TESTS_SUPPORT_LIST_HISTORY_H
#define PSI_TESTS_SUPPORT_LIST_HISTORY_H

#include "core/history.h"
#include "support/random_history.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* One SplitMix64 step: the state advances by the golden-ratio increment
 * before the finalizer (the sequence test_levels always drew). */
static inline uint64_t psi_test_list_next(uint64_t r)
{
    return psi_test_mix64(r + 0x9e3779b97f4a7c15ull);
}

static inline psi_history *psi_test_list_history(uint64_t seed)
{
    uint64_t r = psi_test_list_next(seed ^ 0x11575ull);
    uint32_t sessions = 2 + (uint32_t)(r % 2), per = 1 + (uint32_t)((r >> 8) % 3),
             keys = 1 + (uint32_t)((r >> 16) % 2);
    uint64_t list[2][16];
    uint32_t len[2] = {0, 0}, next[2] = {1, 1}, done[3] = {0, 0, 0};
    psi_builder *b = psi_builder_new("list", PSI_FMT_EDN);
    assert_non_null(b);
    psi_diag d;
    for (uint32_t t = 0; t < sessions * per; t++) {
        uint32_t s;
        do {
            r = psi_test_list_next(r);
            s = (uint32_t)(r % sessions);
        } while (done[s] == per);
        done[s]++;
        assert_int_equal(psi_builder_begin(b, s, t + 1, 0, &d), PSI_OK);
        r = psi_test_list_next(r);
        bool abort = r % 10 == 0;
        uint32_t n_ops = 1 + (uint32_t)((r >> 8) % 4);
        bool appended[2] = {false, false};
        uint64_t pend[2];
        for (uint32_t i = 0; i < n_ops; i++) {
            r = psi_test_list_next(r);
            uint32_t k = (uint32_t)(r % keys);
            if (appended[k])
                continue;
            if ((r >> 8) % 3 == 0) {
                pend[k] = next[k]++;
                appended[k] = true;
                assert_int_equal(
                    psi_builder_op(b, PSI_OP_WRITE, k + 1, pend[k], PSI_OPF_APPEND, &d), PSI_OK);
                continue;
            }
            uint32_t n = len[k];
            if ((r >> 16) % 2)
                n = (uint32_t)((r >> 24) % (len[k] + 1));
            uint64_t v[16];
            memcpy(v, list[k], n * sizeof *v);
            if (n >= 2 && (r >> 40) % 12 == 0) {
                uint64_t x = v[n - 1];
                v[n - 1] = v[n - 2];
                v[n - 2] = x;
            }
            assert_int_equal(psi_builder_list_read(b, k + 1, v, n, &d), PSI_OK);
        }
        for (uint32_t k = 0; k < 2 && !abort; k++)
            if (appended[k] && len[k] < 16)
                list[k][len[k]++] = pend[k];
        assert_int_equal(psi_builder_end(b, abort ? PSI_TXN_ABORTED : PSI_TXN_COMMITTED, &d),
                         PSI_OK);
    }
    psi_history *h = NULL;
    if (psi_builder_finish(b, &h, &d) != PSI_OK)
        fail_msg("list history %llu: %s", (unsigned long long)seed, d.msg);
    return h;
}

#endif
