/* Learned-clause database maintenance.
 *
 * psi_reduce keeps clauses of glue <= 2 forever and deletes the worse half
 * of the rest, worst meaning highest glue, then longest (glucose's policy;
 * both numbers are options, options.h). With opt.reduce_tier2_glue, clauses
 * of glue up to it that an analysis used since the last reduction are kept
 * too (a middle tier, as in Kissat).
 * Sparing recently used clauses as well, CaDiCaL-style, was measured and
 * kept far too many long clauses on random colouring instances (5x slower),
 * so it is not done. psi_simplify removes
 * clauses satisfied at the root once new root units exist. Both finish by
 * collecting garbage, which rebuilds the watch lists. */
#include "internal.h"

#include <stdlib.h>

typedef struct cand {
    uint64_t key;
    uint32_t cref;
} cand;

static int by_key_desc(const void *a, const void *b)
{
    uint64_t x = ((const cand *)a)->key, y = ((const cand *)b)->key;
    return x < y ? 1 : x > y ? -1 : 0;
}

bool psi_reduce(psi_sat *s)
{
    s->st.reductions++;
    size_t n = s->learnts.n;
    cand *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
        return true; /* reduction is an optimisation: skip it */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cref = s->learnts.a[i];
        uint32_t fl = cl_flags(s, cref);
        uint32_t glue = fl >> CL_GLUE_SHIFT;
        if (fl & CL_DELETED)
            continue;
        if (glue <= s->opt.reduce_keep_glue || psi_clause_locked(s, cref))
            continue;
        /* Tier 2: mid-glue clauses live on while analyses keep using them. */
        s->arena[cref + 1] = fl & ~CL_USED;
        if (glue <= s->opt.reduce_tier2_glue && (fl & CL_USED))
            continue;
        c[m++] = (cand){((uint64_t)glue << 32) | cl_size(s, cref), cref};
    }
    qsort(c, m, sizeof *c, by_key_desc);
    /* Exact for m < 2^53: with the default 0.5 this is m / 2. */
    size_t drop = (size_t)((double)m * s->opt.reduce_fraction);
    for (size_t i = 0; i < drop; i++)
        psi_clause_delete(s, c[i].cref);
    s->st.deleted += drop;
    free(c);
    return psi_clause_collect(s);
}

/* Only at decision level 0 (root values are then all there is). */
bool psi_simplify(psi_sat *s)
{
    assert(decision_level(s) == 0);
    if (s->trail_n == s->simplified_root)
        return true;
    s->simplified_root = s->trail_n;
    u32vec *lists[2] = {&s->originals, &s->learnts};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n; i++) {
            uint32_t cref = lists[k]->a[i];
            if (!(cl_flags(s, cref) & CL_DELETED) && psi_clause_satisfied(s, cref) &&
                !psi_clause_locked(s, cref))
                psi_clause_delete(s, cref);
        }
    return psi_clause_collect(s);
}
