/* Clause storage: one flat arena of uint32_t words.
 *
 * A clause at offset c occupies CL_HDR + size words: arena[c] = size,
 * arena[c+1] = flags | glue << CL_GLUE_SHIFT, then the literals. Literals 0
 * and 1 are the watched ones; for a clause that is the reason of an
 * assignment, literal 0 is the implied one (binary clauses excepted: their
 * reason literal may sit in either slot, which analysis tolerates).
 * Deleted clauses stay in place until psi_clause_collect compacts the arena
 * and rebuilds every watch list, which keeps propagation free of "is this
 * clause deleted?" checks. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

uint32_t psi_clause_new(psi_sat *s, const lit_t *lits, uint32_t n, bool learnt, uint32_t glue)
{
    size_t need = s->arena_n + CL_HDR + n;
    if (need > CREF_MAX) {
        s->nomem = true;
        return REASON_NONE;
    }
    if (need > s->arena_cap) {
        size_t nc = s->arena_cap ? s->arena_cap : 1024;
        while (nc < need)
            nc *= 2;
        if (nc > (size_t)CREF_MAX + 1)
            nc = (size_t)CREF_MAX + 1;
        uint32_t *a = realloc(s->arena, nc * sizeof *a);
        if (!a) {
            s->nomem = true;
            return REASON_NONE;
        }
        s->arena = a;
        s->arena_cap = nc;
    }
    u32vec *list = learnt ? &s->learnts : &s->originals;
    if (!psi_u32_push(list, (uint32_t)s->arena_n)) {
        s->nomem = true;
        return REASON_NONE;
    }
    uint32_t cref = (uint32_t)s->arena_n;
    if (glue > 0xffffffu >> 0)
        glue = 0xffffffu;
    s->arena[cref] = n;
    s->arena[cref + 1] = (learnt ? CL_LEARNT : 0u) | (glue << CL_GLUE_SHIFT);
    memcpy(s->arena + cref + CL_HDR, lits, n * sizeof *lits);
    s->arena_n = need;
    return cref;
}

void psi_clause_attach(psi_sat *s, uint32_t cref)
{
    uint32_t *c = cl_lits(s, cref);
    assert(cl_size(s, cref) >= 2 && c[0] != c[1] && !(cl_flags(s, cref) & CL_DELETED));
    uint32_t bin = cl_size(s, cref) == 2 ? WATCH_BIN : 0u;
    if (!psi_watch_push(&s->watches[c[0]], (watch){c[1], cref | bin}) ||
        !psi_watch_push(&s->watches[c[1]], (watch){c[0], cref | bin}))
        s->nomem = true;
}

void psi_clause_delete(psi_sat *s, uint32_t cref)
{
    if (cl_flags(s, cref) & CL_DELETED)
        return;
    psi_proof_delete(s, cl_lits(s, cref), cl_size(s, cref));
    s->arena[cref + 1] |= CL_DELETED;
    s->arena_wasted += CL_HDR + cl_size(s, cref);
}

bool psi_clause_locked(const psi_sat *s, uint32_t cref)
{
    const uint32_t *c = s->arena + cref + CL_HDR;
    for (int i = 0; i < 2; i++) {
        uint32_t v = lit_var(c[i]);
        if (s->vals[c[i]] > 0 && s->reason[v] == cref)
            return true;
        if (cl_size(s, cref) > 2)
            break;
    }
    return false;
}

/* Does a literal of the clause hold (at the root: satisfied for good)? */
bool psi_clause_satisfied(const psi_sat *s, uint32_t cref)
{
    const uint32_t *c = s->arena + cref + CL_HDR;
    for (uint32_t i = 0; i < s->arena[cref]; i++)
        if (s->vals[c[i]] > 0)
            return true;
    return false;
}

static void drop_deleted(psi_sat *s, u32vec *list)
{
    size_t j = 0;
    for (size_t i = 0; i < list->n; i++)
        if (!(cl_flags(s, list->a[i]) & CL_DELETED))
            list->a[j++] = list->a[i];
    list->n = j;
}

/* Copies live clauses into a fresh arena, leaving a forwarding address in
 * word 1 of each old clause, then fixes reasons and clause lists. */
static bool compact(psi_sat *s)
{
    size_t live = s->arena_n - s->arena_wasted;
    size_t cap = live + live / 2 + 1024;
    uint32_t *na = malloc(cap * sizeof *na);
    if (!na)
        return false;
    size_t n = 0;
    for (size_t c = 0; c < s->arena_n;) {
        uint32_t size = s->arena[c];
        size_t words = CL_HDR + size;
        if (!(s->arena[c + 1] & CL_DELETED)) {
            memcpy(na + n, s->arena + c, words * sizeof *na);
            s->arena[c + 1] = (uint32_t)n;
            n += words;
        } else {
            s->arena[c + 1] = REASON_NONE;
        }
        c += words;
    }
    for (uint32_t i = 0; i < s->trail_n; i++) {
        uint32_t v = lit_var(s->trail[i]);
        uint32_t r = s->reason[v];
        if (r < REASON_UNIT) {
            uint32_t to = s->arena[r + 1];
            assert(to != REASON_NONE); /* a locked clause is never deleted */
            s->reason[v] = to;
        }
    }
    u32vec *lists[2] = {&s->originals, &s->learnts};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n; i++)
            lists[k]->a[i] = s->arena[lists[k]->a[i] + 1];
    free(s->arena);
    s->arena = na;
    s->arena_cap = cap;
    s->arena_n = n;
    s->arena_wasted = 0;
    return true;
}

/* Removes deleted clauses from the lists, compacts the arena when at least
 * a quarter is garbage, and rebuilds all watch lists. False on ENOMEM. */
bool psi_clause_collect(psi_sat *s)
{
    drop_deleted(s, &s->originals);
    drop_deleted(s, &s->learnts);
    if (s->arena_wasted > s->arena_n / 4)
        (void)compact(s); /* on failure the garbage just stays */
    for (uint32_t l = 0; l < 2 * s->nvars; l++)
        s->watches[l].n = 0;
    u32vec *lists[2] = {&s->originals, &s->learnts};
    /* Binary watches first: they are the cheapest to visit. */
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < 2; k++)
            for (size_t i = 0; i < lists[k]->n; i++)
                if ((cl_size(s, lists[k]->a[i]) == 2) == (pass == 0))
                    psi_clause_attach(s, lists[k]->a[i]);
    return !s->nomem;
}
