/* Two runs that must leave the same polygraph (tests/prune/test_level_pc:
 * PC's reduced and unreduced pruning; tests/check/test_prune_threads: one
 * worker and several): the same known edges in the same order (ends, key,
 * type, origin), the same constraint states and read-from choice states,
 * and the same number of conditional edges, so that the solver gets the
 * same formula. Include after <cmocka.h>. */
#ifndef PSI_TESTS_SUPPORT_SAME_GRAPH_H
#define PSI_TESTS_SUPPORT_SAME_GRAPH_H

#include "core/polygraph.h"

#include <stdint.h>

static inline void psi_test_assert_same_graph(const psi_polygraph *a, const psi_polygraph *b,
                                              uint64_t seed)
{
    if (a->n_known != b->n_known)
        fail_msg("seed %llu: %llu known edges, the other run %llu", (unsigned long long)seed,
                 (unsigned long long)a->n_known, (unsigned long long)b->n_known);
    for (uint64_t i = 0; i < a->n_known; i++) {
        const psi_edge *e = &a->known[i], *f = &b->known[i];
        if (e->from != f->from || e->to != f->to || e->key != f->key || e->type != f->type ||
            e->origin != f->origin)
            fail_msg("seed %llu: known edge %llu differs", (unsigned long long)seed,
                     (unsigned long long)i);
    }
    assert_int_equal(a->n_cons, b->n_cons);
    for (uint32_t c = 0; c < a->n_cons; c++)
        if (a->cons[c].state != b->cons[c].state)
            fail_msg("seed %llu: constraint %u is %d, in the other run %d",
                     (unsigned long long)seed, c, a->cons[c].state, b->cons[c].state);
    assert_int_equal(a->n_choices, b->n_choices);
    if (a->n_choices)
        assert_memory_equal(a->choice_state, b->choice_state, a->n_choices);
    assert_int_equal(a->n_cond, b->n_cond);
}

#endif
