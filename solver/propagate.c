/* Propagation: two-watched-literal unit propagation to a fixpoint, then the
 * theory is told about the new trail literals in order. Literals the theory
 * implies are assigned with a lazy reason (REASON_THEORY) and propagation
 * resumes with unit propagation, which is much cheaper than the theory. */
#include "internal.h"

/* The level a unit clause c (c[0] implied, the rest false, c[1] == fl)
 * implies at: the highest level of the false literals. When fl lies at the
 * current level, which is the rule unless an out-of-order literal (after a
 * chronological backtrack) is being propagated, that is the current level. */
static inline uint32_t implied_level(const psi_sat *s, const lit_t *c, uint32_t size, lit_t fl)
{
    uint32_t lv = s->level[lit_var(fl)], dl = decision_level(s);
    for (uint32_t k = 2; k < size && lv < dl; k++)
        if (s->level[lit_var(c[k])] > lv)
            lv = s->level[lit_var(c[k])];
    return lv;
}

static uint32_t bcp(psi_sat *s)
{
    int8_t *vals = s->vals;
    uint32_t confl = REASON_NONE;
    uint64_t props = 0;
    while (confl == REASON_NONE && s->qhead < s->trail_n) {
        lit_t fl = lit_neg(s->trail[s->qhead++]);
        assert(vals[fl] < 0);
        props++;
        watches *ws = &s->watches[fl];
        if (ws->n == 0)
            continue; /* (ws->w may be NULL: no pointer arithmetic on it) */
        watch *i = ws->w, *j = ws->w, *end = ws->w + ws->n;
        while (i != end) {
            watch w = *i++;
            int8_t bv = vals[w.blocker];
            if (bv > 0) {
                *j++ = w;
                continue;
            }
            if (w.ref & WATCH_BIN) {
                *j++ = w;
                if (bv < 0) {
                    confl = w.ref & ~WATCH_BIN;
                    break;
                }
                /* Its level is the other literal's (chronological backtracking). */
                psi_assign_at(s, w.blocker, w.ref & ~WATCH_BIN, s->level[lit_var(fl)]);
                continue;
            }
            uint32_t cref = w.ref;
            uint32_t *c = s->arena + cref + CL_HDR;
            if (c[0] == fl) {
                c[0] = c[1];
                c[1] = fl;
            }
            assert(c[1] == fl); /* a clause is watched by its first two literals */
            lit_t first = c[0];
            watch nw = {first, cref};
            if (first != w.blocker && vals[first] > 0) {
                *j++ = nw;
                continue;
            }
            uint32_t size = s->arena[cref];
            uint32_t k = 2;
            for (; k < size; k++)
                if (vals[c[k]] >= 0)
                    break;
            if (k < size) {
                assert(c[k] != fl && c[k] != first);
                c[1] = c[k];
                c[k] = fl;
                if (!psi_watch_push(&s->watches[c[1]], nw)) {
                    s->nomem = true;
                    *j++ = w; /* keep the old watch so the lists stay sound */
                }
                continue;
            }
            *j++ = nw;
            if (vals[first] < 0) {
                confl = cref;
                break;
            }
            psi_assign_at(s, first, cref, implied_level(s, c, size, fl));
        }
        while (i != end)
            *j++ = *i++;
        ws->n = (uint32_t)(j - ws->w);
    }
    s->st.propagations += props;
    return confl;
}

static void to_internal(const psi_lits *in, u32vec *out, bool *ok)
{
    out->n = 0;
    if (!psi_u32_reserve(out, in->n + 1)) {
        *ok = false;
        return;
    }
    for (size_t i = 0; i < in->n; i++)
        out->a[out->n++] = lit_of_int(in->lits[i]);
}

/* Theory work after a BCP fixpoint. Returns a conflict, or none with
 * *again set when new literals were assigned. */
static conflict theory_round(psi_sat *s, bool *again)
{
    conflict none = {NULL, 0};
    psi_theory_out *o = &s->tout;
    while (s->theory_head < s->trail_n) {
        lit_t l = s->trail[s->theory_head++];
        if (!s->observed[lit_var(l)])
            continue;
        s->st.theory_calls++;
        o->clause.n = o->implied.n = 0;
        int r = s->theory.notify(s->theory.ctx, lit_to_int(l), s->level[lit_var(l)], o);
        if (r == PSI_THEORY_ENOMEM) {
            s->nomem = true;
            return none;
        }
        bool ok = true;
        if (r == PSI_THEORY_CONFLICT) {
            /* A notification that ends in a conflict is undone by the theory
             * (theory.h): if a chronological backtrack keeps l, the theory
             * hears of it again. */
            s->theory_head--;
            s->st.theory_conflicts++;
            to_internal(&o->clause, &s->tconfl, &ok);
            if (!ok) {
                s->nomem = true;
                return none;
            }
            return (conflict){s->tconfl.a, (uint32_t)s->tconfl.n};
        }
        for (size_t k = 0; k < o->implied.n; k++) {
            lit_t i = lit_of_int(o->implied.lits[k]);
            if (s->vals[i] > 0)
                continue;
            if (s->vals[i] < 0) {
                /* Implied but already false: its explanation is a conflict. */
                s->st.theory_explanations++;
                o->clause.n = 0;
                if (s->theory.explain(s->theory.ctx, lit_to_int(i), o) != PSI_THEORY_OK) {
                    s->nomem = true;
                    return none;
                }
                s->st.theory_conflicts++;
                to_internal(&o->clause, &s->tconfl, &ok);
                if (!ok) {
                    s->nomem = true;
                    return none;
                }
                return (conflict){s->tconfl.a, (uint32_t)s->tconfl.n};
            }
            psi_assign(s, i, REASON_THEORY);
            s->st.theory_propagations++;
            *again = true;
        }
        if (*again)
            return none;
    }
    return none;
}

/* Returns a conflict (all its literals false), or none after a fixpoint:
 * every trail literal then went through unit propagation and, with a
 * theory, was handed to it. */
conflict psi_propagate(psi_sat *s)
{
    for (;;) {
        uint32_t c = bcp(s);
        if (c != REASON_NONE) {
            assert(psi_all_false(s, cl_lits(s, c), cl_size(s, c)));
            return (conflict){cl_lits(s, c), cl_size(s, c)};
        }
        assert(s->nomem || s->qhead == s->trail_n);
        if (!s->has_theory || s->theory_head == s->trail_n || s->nomem)
            return (conflict){NULL, 0};
        double t0 = psi_sat_coarse_now();
        bool again = false;
        conflict tc = theory_round(s, &again);
        s->st.theory_seconds += psi_sat_coarse_now() - t0;
        assert(!tc.lits || psi_all_false(s, tc.lits, tc.n)); /* theory contract */
        assert(tc.lits || s->nomem || again || s->theory_head == s->trail_n);
        if (tc.lits || s->nomem || !again)
            return tc;
    }
}
