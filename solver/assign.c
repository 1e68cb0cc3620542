/* The trail: assigning literals, opening decision levels, backtracking.
 * Backtracking saves phases, returns variables to the decision heap and
 * tells the theory, so theory state always shrinks in step with the trail. */
#include "internal.h"

/* Decisions come only at a propagation fixpoint, after the last level. */
void psi_new_level(psi_sat *s)
{
    assert(s->qhead == s->trail_n);
    assert(!s->has_theory || s->theory_head == s->trail_n);
    assert(!s->trail_lim.n || s->trail_lim.a[s->trail_lim.n - 1] <= s->trail_n);
    if (!psi_u32_push(&s->trail_lim, s->trail_n))
        s->nomem = true;
}

void psi_backtrack(psi_sat *s, uint32_t level)
{
    if (decision_level(s) <= level)
        return;
    uint32_t keep = s->trail_lim.a[level];
    assert(keep <= s->trail_n);
    /* Literals above keep whose level is at most level stay (out of order
     * after a chronological backtrack): they move down, in trail order.
     * Those the theory had heard of come first among them, because the
     * theory hears of the trail in order; it keeps them too (its backtrack
     * drops only what lies above level). */
    uint32_t j = keep, told = s->theory_head;
    for (uint32_t i = keep; i < s->trail_n; i++) {
        lit_t l = s->trail[i];
        uint32_t v = lit_var(l);
        assert(s->vals[l] > 0 && s->trail_pos[v] == i);
        if (s->level[v] <= level) {
            s->trail_pos[v] = j;
            s->trail[j++] = l;
            continue;
        }
        if (i < s->theory_head)
            told--;
        s->vals[l] = 0;
        s->vals[lit_neg(l)] = 0;
        s->phase[v] = (uint8_t)(l & 1u);
        if (s->heap_pos[v] == UINT32_MAX)
            (void)psi_heap_insert(s, v); /* capacity is reserved per variable */
    }
    assert(told >= keep || s->theory_head < keep);
    s->trail_n = j;
    /* Kept literals are propagated again: a clause they falsified may have
     * lost its true literal and be unit now (a missed implication). */
    if (s->qhead > keep)
        s->qhead = keep;
    s->theory_head = s->theory_head > keep ? told : s->theory_head;
    assert(s->theory_head <= s->trail_n);
    s->trail_lim.n = level;
    if (s->has_theory)
        s->theory.backtrack(s->theory.ctx, level);
}
