/* The debug checker of the CDCL core (see invariants.h for when it runs):
 * psi_sat_check_invariants re-derives, by full scans, what propagation,
 * analysis and backtracking maintain incrementally, plus the checker's
 * schedule and failure report, which the acyclicity theory shares. */
#include "invariants.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

bool psi_check_due(psi_check_sched *c, uint64_t size)
{
    c->calls++;
    if (c->calls < c->next)
        return false;
    uint64_t k = c->calls / PSI_CHECK_DENSE, scale = size / PSI_CHECK_UNIT;
    if (c->calls < PSI_CHECK_FIRST)
        scale = 1;
    c->next = c->calls + (k ? k : 1) * (scale ? scale : 1);
    return true;
}

_Noreturn void psi_check_fail(const char *who, const char *why)
{
    fprintf(stderr, "solver invariant violated (%s): %s\n", who, why);
    fflush(stderr);
    abort();
}

/* Writes the reason of a failure; always returns false for the caller. */
static bool fail(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return false;
}

/* Per-clause marks (indexed by cref) in the watch scan. */
enum { M_LIVE = 1, M_W0 = 2, M_W1 = 4 };

/* Trail, levels, trail_lim, and the reason of every assignment. */
static bool check_trail(const psi_sat *s, char *why, size_t n)
{
    if (s->trail_n > s->nvars || s->qhead > s->trail_n || s->theory_head > s->trail_n)
        return fail(why, n, "trail %u, qhead %u, theory_head %u, %u variables", s->trail_n,
                    s->qhead, s->theory_head, s->nvars);
    for (size_t k = 0; k < s->trail_lim.n; k++)
        if (s->trail_lim.a[k] > s->trail_n || (k && s->trail_lim.a[k] < s->trail_lim.a[k - 1]))
            return fail(why, n, "trail_lim[%zu] = %u is not monotone within the trail", k,
                        s->trail_lim.a[k]);
    uint32_t lvl = 0, assigned = 0;
    for (uint32_t i = 0; i < s->trail_n; i++) {
        while (lvl < s->trail_lim.n && s->trail_lim.a[lvl] <= i)
            lvl++; /* the level of position i: how many levels began at or before it */
        lit_t l = s->trail[i];
        uint32_t v = lit_var(l);
        if (v >= s->nvars || s->vals[l] != 1 || s->vals[lit_neg(l)] != -1)
            return fail(why, n, "trail[%u] = %d is not assigned true", i, lit_to_int(l));
        /* Out of order (chronological backtracking) a literal may lie below
         * the level of its trail position, never above it. */
        uint32_t lv = s->level[v];
        if (s->trail_pos[v] != i || lv > lvl)
            return fail(why, n, "trail[%u] = %d: trail_pos %u, level %u, position's level %u", i,
                        lit_to_int(l), s->trail_pos[v], lv, lvl);
        uint32_t r = s->reason[v];
        if (r == REASON_NONE) {
            /* A decision (or assumption) opens its level; the root has units. */
            if (lv && (lv != lvl || s->trail_lim.a[lvl - 1] != i))
                return fail(why, n, "%d at level %u has no reason but is not its decision",
                            lit_to_int(l), lv);
        } else if (r == REASON_THEORY || r == REASON_UNIT) {
            if (!s->has_theory)
                return fail(why, n, "%d has a theory reason without a theory", lit_to_int(l));
        } else {
            if (r >= s->arena_n || (cl_flags(s, r) & CL_DELETED) || cl_size(s, r) < 2)
                return fail(why, n, "%d has reason %u, not a live clause", lit_to_int(l), r);
            const uint32_t *c = s->arena + r + CL_HDR;
            uint32_t size = cl_size(s, r);
            if (c[0] != l && !(size == 2 && c[1] == l))
                return fail(why, n, "reason %u of %d does not imply it first", r, lit_to_int(l));
            for (uint32_t k = 0; k < size; k++) {
                uint32_t u = lit_var(c[k]);
                if (c[k] == l)
                    continue;
                if (s->vals[c[k]] >= 0 || s->trail_pos[u] >= i || s->level[u] > lv)
                    return fail(why, n, "reason %u of %d: %d is not false before it", r,
                                lit_to_int(l), lit_to_int(c[k]));
            }
        }
    }
    for (uint32_t v = 0; v < s->nvars; v++) {
        if (s->vals[2 * v] != -s->vals[2 * v + 1])
            return fail(why, n, "variable %u has inconsistent literal values", v + 1);
        assigned += s->vals[2 * v] != 0;
    }
    if (assigned != s->trail_n)
        return fail(why, n, "%u variables assigned, trail holds %u", assigned, s->trail_n);
    return true;
}

/* Clause lists, clause shape, and that every live clause is watched by
 * exactly its first two literals (binary clauses by flagged watches whose
 * blocker is the other literal), each watch's blocker lying in its clause. */
static bool check_clauses_and_watches(const psi_sat *s, uint8_t *mark, uint32_t *stamp, char *why,
                                      size_t n)
{
    const u32vec *lists[2] = {&s->originals, &s->learnts};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n; i++) {
            uint32_t cref = lists[k]->a[i];
            if (cref >= s->arena_n || (cl_flags(s, cref) & CL_DELETED) || mark[cref])
                return fail(why, n, "clause list entry %u: deleted, duplicated or outside", cref);
            if (!(cl_flags(s, cref) & CL_LEARNT) != (k == 0))
                return fail(why, n, "clause %u is in the wrong list", cref);
            uint32_t size = cl_size(s, cref);
            const uint32_t *c = s->arena + cref + CL_HDR;
            if (size < 2 || cref + CL_HDR + size > s->arena_n)
                return fail(why, n, "clause %u has size %u", cref, size);
            for (uint32_t j = 0; j < size; j++) {
                uint32_t v = lit_var(c[j]);
                if (v >= s->nvars || stamp[v] == cref + 1)
                    return fail(why, n, "clause %u: literal %u bad or repeated", cref, c[j]);
                stamp[v] = cref + 1;
            }
            mark[cref] = M_LIVE;
        }
    for (lit_t l = 0; l < 2 * s->nvars; l++) {
        const watches *ws = &s->watches[l];
        for (uint32_t i = 0; i < ws->n; i++) {
            watch w = ws->w[i];
            uint32_t cref = w.ref & ~WATCH_BIN;
            if (cref >= s->arena_n || !(mark[cref] & M_LIVE))
                return fail(why, n, "watch of %d on %u: not a live clause", lit_to_int(l), cref);
            const uint32_t *c = s->arena + cref + CL_HDR;
            uint32_t size = cl_size(s, cref), bit = c[0] == l ? M_W0 : c[1] == l ? M_W1 : 0;
            if (!bit || (mark[cref] & bit))
                return fail(why, n, "clause %u watched by %d, not once by a first-two literal",
                            cref, lit_to_int(l));
            mark[cref] |= (uint8_t)bit;
            if (!(w.ref & WATCH_BIN) != (size > 2))
                return fail(why, n, "clause %u of size %u has the wrong watch kind", cref, size);
            bool in = false;
            for (uint32_t j = 0; j < size && !in; j++)
                in = c[j] == w.blocker && (size > 2 || c[j] != l);
            if (!in)
                return fail(why, n, "watch of %d on %u: blocker %d not in the clause",
                            lit_to_int(l), cref, lit_to_int(w.blocker));
        }
    }
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n; i++)
            if (mark[lists[k]->a[i]] != (M_LIVE | M_W0 | M_W1))
                return fail(why, n, "clause %u is not watched by both first literals",
                            lists[k]->a[i]);
    return true;
}

/* The decision heap orders by activity and holds every unassigned variable;
 * no analysis marks are left over between conflicts. */
static bool check_heap(const psi_sat *s, char *why, size_t n)
{
    if (s->heap_n > s->nvars)
        return fail(why, n, "heap holds %u of %u variables", s->heap_n, s->nvars);
    for (uint32_t i = 0; i < s->heap_n; i++) {
        uint32_t v = s->heap[i];
        if (v >= s->nvars || s->heap_pos[v] != i)
            return fail(why, n, "heap[%u] = %u, its position says otherwise", i, v);
        if (i && s->activity[s->heap[(i - 1) / 2]] < s->activity[v])
            return fail(why, n, "heap order broken at position %u", i);
    }
    for (uint32_t v = 0; v < s->nvars; v++) {
        if (s->heap_pos[v] != UINT32_MAX && s->heap_pos[v] >= s->heap_n)
            return fail(why, n, "variable %u has heap position %u", v + 1, s->heap_pos[v]);
        if (!s->vals[2 * v] && s->heap_pos[v] == UINT32_MAX)
            return fail(why, n, "unassigned variable %u is not in the heap", v + 1);
        if (s->seen[v])
            return fail(why, n, "analysis mark left on variable %u", v + 1);
    }
    return true;
}

/* At a propagation fixpoint no clause is false, and none but a theory
 * lemma is unit: lemmas may be (see CL_THEORY in internal.h). */
static bool check_fixpoint(const psi_sat *s, char *why, size_t n)
{
    if (s->qhead != s->trail_n || (s->has_theory && s->theory_head != s->trail_n))
        return fail(why, n, "not a fixpoint: qhead %u, theory_head %u, trail %u", s->qhead,
                    s->theory_head, s->trail_n);
    const u32vec *lists[2] = {&s->originals, &s->learnts};
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; i < lists[k]->n; i++) {
            uint32_t cref = lists[k]->a[i], size = cl_size(s, cref), open = 0;
            const uint32_t *c = s->arena + cref + CL_HDR;
            bool sat = false;
            for (uint32_t j = 0; j < size && !sat; j++) {
                sat = s->vals[c[j]] > 0;
                open += s->vals[c[j]] == 0;
            }
            if (sat || open > 1 || (open == 1 && (cl_flags(s, cref) & CL_THEORY)))
                continue;
            return fail(why, n, "clause %u is %s after propagation", cref, open ? "unit" : "false");
        }
    return true;
}

bool psi_sat_check_invariants(const psi_sat *s, psi_sat_check_mode mode, char *why, size_t why_n)
{
    if (s->nomem)
        return true; /* after ENOMEM the solver can only be freed */
    if (!check_trail(s, why, why_n) || !check_heap(s, why, why_n))
        return false;
    bool ok = true;
    if (mode != PSI_SAT_CHECK_FIXPOINT) {
        uint8_t *mark = calloc(s->arena_n ? s->arena_n : 1, 1);
        uint32_t *stamp = calloc(s->nvars ? s->nvars : 1, sizeof *stamp);
        ok = !mark || !stamp || check_clauses_and_watches(s, mark, stamp, why, why_n);
        free(mark); /* without memory for the scratch the scan is skipped */
        free(stamp);
    }
    if (ok && mode != PSI_SAT_CHECK_STRUCTURE && !s->inconsistent)
        ok = check_fixpoint(s, why, why_n);
    return ok;
}

void psi_sat_check_or_die(const psi_sat *s, psi_sat_check_mode mode)
{
    char why[256];
    if (!psi_sat_check_invariants(s, mode, why, sizeof why))
        psi_check_fail("sat", why);
}
