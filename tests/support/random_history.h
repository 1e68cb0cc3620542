/* Random generated histories for tests that sweep seeds (tests/prune:
 * test_seed, test_reach_incremental, test_level_pc; tests/edn). A seed's
 * bits, psi_test_mix64(seed * salt), choose the generator's shape: each
 * field is lo + (bits >> shift) % span at a fixed shift, so a test that
 * gives the same shape gets the same histories for the same seeds as it
 * always did, and a test tunes its mix by the shape alone.
 *
 * Include after <cmocka.h>: psi_test_generate fails the test (naming the
 * seed) when the generator does. */
#ifndef PSI_TESTS_SUPPORT_RANDOM_HISTORY_H
#define PSI_TESTS_SUPPORT_RANDOM_HISTORY_H

#include "workload/gen.h"

#include <stdint.h>

/* SplitMix64's finalizer: a seed's bits. */
static inline uint64_t psi_test_mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ull;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* lo + (bits >> shift) % span; span 0 is lo. */
typedef struct psi_test_range {
    uint32_t lo, span;
} psi_test_range;

static inline uint32_t psi_test_pick(uint64_t bits, unsigned shift, psi_test_range r)
{
    return r.lo + (r.span ? (uint32_t)((bits >> shift) % r.span) : 0);
}

/* The shape of a test's histories. Bits used: sessions 0, transactions per
 * session 8, operations per transaction 16, keys 24-25, distribution 32,
 * store 34, faults fault_shift and 40 (which of the 15 combinations of
 * the four faults). */
typedef struct psi_test_shape {
    uint64_t salt; /* the seed's bits are psi_test_mix64(seed * salt) */
    psi_test_range sessions, txns, ops;
    /* With few_keys.span 0: keys from bit 24. Otherwise bit 24 picks few
     * keys (written in every session) or many (in a few), either from
     * bit 25. */
    psi_test_range keys, few_keys;
    /* The store: stores[(bits >> 34) % n_stores]. */
    const psi_gen_store *stores;
    uint32_t n_stores;
    /* Faults in one history of fault_one_in (0: never), chosen by bit
     * fault_shift, each applied with probability fault_prob. */
    uint32_t fault_one_in;
    unsigned fault_shift;
    double fault_prob;
} psi_test_shape;

/* Fills *o for seed under shape s (the rest as psi_gen_opts_default) and
 * returns the seed's bits, for a test's own further choices. */
static inline uint64_t psi_test_gen_opts(uint64_t seed, const psi_test_shape *s, psi_gen_opts *o)
{
    uint64_t x = psi_test_mix64(seed * s->salt);
    psi_gen_opts_default(o);
    o->seed = seed;
    o->sessions = psi_test_pick(x, 0, s->sessions);
    o->txns_per_session = psi_test_pick(x, 8, s->txns);
    o->ops_per_txn = psi_test_pick(x, 16, s->ops);
    if (!s->few_keys.span)
        o->keys = psi_test_pick(x, 24, s->keys);
    else
        o->keys = (x >> 24) % 2 ? psi_test_pick(x, 25, s->few_keys) : psi_test_pick(x, 25, s->keys);
    o->dist = (x >> 32) % 2 ? PSI_DIST_ZIPF : PSI_DIST_UNIFORM;
    if (s->n_stores)
        o->store = s->stores[(x >> 34) % s->n_stores];
    if (s->fault_one_in && (x >> s->fault_shift) % s->fault_one_in == 0) {
        o->faults = (unsigned)((x >> 40) % 15) + 1;
        o->fault_prob = s->fault_prob;
    }
    return x;
}

/* Generates o's history into *h; a generator error fails the test. */
static inline void psi_test_generate(const psi_gen_opts *o, psi_history **h)
{
    psi_diag d;
    if (psi_generate(o, h, NULL, &d) != PSI_OK)
        fail_msg("seed %llu: %s", (unsigned long long)o->seed, d.msg);
}

#endif
