/* Vivification of learned clauses (Piette, Hamadi and Saïs, ECAI 2008; as
 * Kissat and CaDiCaL run it on their learned tiers): for a clause C, assume
 * the negations of its literals one at a time at new decision levels and
 * propagate. Let D be the literals assumed so far. If a conflict follows,
 * D alone is implied; if a later literal of C is already true, D plus that
 * literal is; a literal already false is implied false by D and is left
 * out. In the first two cases only the assumptions the conflict or the
 * true literal rests on (found by walking reasons back) need to stay. Each case yields a clause D'
 * made of C's literals that unit propagation derives from the current clauses (C included: a
 * reverse unit propagation step, so the proof line is checkable), and D' subsumes C, so D' replaces
 * C. Learned clauses from conflict analysis carry many such redundant literals, and shorter clauses
 * propagate earlier.
 *
 * Runs at the root, without a theory or assumptions (search.c schedules it
 * after reductions, opt.vivify_effort), within a budget of propagations.
 * Probing must not disturb the search: the saved phases are restored, and
 * the propagations it spends are not counted in the search's statistics
 * (mode_ticks measures mode phases in them). */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* Scratch of one round; owned here, freed before psi_vivify returns. */
typedef struct vivify_ctx {
    uint32_t *count; /* per literal: occurrences in candidate clauses */
    uint32_t *cands; /* crefs to try */
    size_t n_cands;
    lit_t *lits; /* the clause under test, sorted */
    lit_t *keep; /* the literals of D' */
    struct lit_key {
        uint32_t count;
        lit_t lit;
    } * sort; /* sort keys of the clause under test */
} vivify_ctx;

typedef struct lit_key lit_key;

static int by_count_desc(const void *a, const void *b)
{
    const lit_key *x = a, *y = b;
    if (x->count != y->count)
        return x->count < y->count ? 1 : -1;
    return x->lit < y->lit ? -1 : x->lit > y->lit;
}

typedef struct cand_key {
    uint64_t key;
    uint32_t cref;
} cand_key;

static int by_key_asc(const void *a, const void *b)
{
    const cand_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->cref < y->cref ? -1 : x->cref > y->cref;
}

/* Candidates: live learned clauses longer than two literals, of glue up to
 * opt.vivify_glue, not vivified before, lowest glue first, then shortest
 * (the clauses reductions keep longest). Counts their literals. */
static bool collect(psi_sat *s, vivify_ctx *x)
{
    size_t n = s->learnts.n;
    cand_key *k = malloc((n ? n : 1) * sizeof *k);
    x->cands = malloc((n ? n : 1) * sizeof *x->cands);
    x->count = calloc(2 * (size_t)s->nvars + 1, sizeof *x->count);
    if (!k || !x->cands || !x->count) {
        free(k);
        return false;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t cref = s->learnts.a[i], fl = cl_flags(s, cref);
        uint32_t glue = fl >> CL_GLUE_SHIFT, size = cl_size(s, cref);
        if ((fl & (CL_DELETED | CL_VIVIFIED | CL_THEORY)) || size <= 2 ||
            glue > s->opt.vivify_glue || psi_clause_satisfied(s, cref))
            continue;
        k[m++] = (cand_key){((uint64_t)glue << 32) | size, cref};
        const uint32_t *c = cl_lits(s, cref);
        for (uint32_t j = 0; j < size; j++)
            x->count[c[j]]++;
    }
    qsort(k, m, sizeof *k, by_key_asc);
    for (size_t i = 0; i < m; i++)
        x->cands[i] = k[i].cref;
    x->n_cands = m;
    free(k);
    return true;
}

/* The assumptions the seed literals' values rest on, as literals of C
 * (each assumption is a negated literal of C), into x->keep from index
 * from: marks the seeds, then walks the trail down, replacing each marked
 * implied literal by its reason's other literals. Clears its marks. */
static uint32_t involved(psi_sat *s, vivify_ctx *x, const lit_t *seed, uint32_t n_seed,
                         uint32_t from)
{
    uint32_t pending = 0, m = from;
    for (uint32_t i = 0; i < n_seed; i++) {
        uint32_t v = lit_var(seed[i]);
        if (s->level[v] && !s->seen[v]) {
            s->seen[v] = 1;
            pending++;
        }
    }
    for (uint32_t i = s->trail_n; pending && i-- > s->trail_lim.a[0];) {
        lit_t p = s->trail[i];
        uint32_t v = lit_var(p), r = s->reason[v];
        if (!s->seen[v])
            continue;
        s->seen[v] = 0;
        pending--;
        if (r == REASON_NONE) {
            x->keep[m++] = lit_neg(p);
            continue;
        }
        assert(r < REASON_UNIT); /* no theory here */
        const uint32_t *c = cl_lits(s, r);
        for (uint32_t j = 0; j < cl_size(s, r); j++) {
            uint32_t u = lit_var(c[j]);
            if (u != v && s->level[u] && !s->seen[u]) {
                s->seen[u] = 1;
                pending++;
            }
        }
    }
    assert(!pending);
    return m;
}

/* Tries one clause; returns the length of D' (in x->keep), or 0 when C
 * cannot be shortened. Leaves the solver at the root. */
static uint32_t try_clause(psi_sat *s, vivify_ctx *x, uint32_t cref)
{
    uint32_t n = cl_size(s, cref), m = 0;
    lit_key *lk = x->sort;
    const uint32_t *c = cl_lits(s, cref);
    for (uint32_t i = 0; i < n; i++)
        lk[i] = (lit_key){x->count[c[i]], c[i]};
    /* Literals shared with many candidates first (as Kissat): their
     * decisions recur, and a dropped literal there shortens others too. */
    qsort(lk, n, sizeof *lk, by_count_desc);
    for (uint32_t i = 0; i < n; i++)
        x->lits[i] = lk[i].lit;
    for (uint32_t i = 0; i < n; i++) {
        lit_t l = x->lits[i];
        if (s->vals[l] < 0)
            continue; /* implied false by the assumptions before it */
        if (s->vals[l] > 0) {
            /* Implied true: only the assumptions it rests on stay. */
            m = involved(s, x, &l, 1, 0);
            x->keep[m++] = l;
            break;
        }
        x->keep[m++] = l;
        psi_new_level(s);
        if (s->nomem)
            break;
        psi_assign(s, lit_neg(l), REASON_NONE);
        conflict k = psi_propagate(s);
        if (k.lits) {
            /* A conflict: only the assumptions it rests on stay. */
            m = involved(s, x, k.lits, k.n, 0);
            break;
        }
    }
    psi_backtrack(s, 0);
    assert(s->qhead == s->trail_n);
    return m < n ? m : 0;
}

/* Replaces C by its first m literals in x->keep: D' is added (and goes to
 * the proof) before C is deleted. Units are left alone (they would need a
 * root propagation here); D' has two literals or more, none assigned. */
static bool replace(psi_sat *s, uint32_t cref, const lit_t *keep, uint32_t m)
{
    uint32_t glue = cl_flags(s, cref) >> CL_GLUE_SHIFT;
    if (glue > m - 1)
        glue = m - 1;
    uint32_t d = psi_clause_new(s, keep, m, true, glue);
    if (d == REASON_NONE)
        return false;
    s->arena[d + 1] |= CL_VIVIFIED;
    psi_proof_add(s, keep, m);
    psi_clause_attach(s, d);
    psi_clause_delete(s, cref);
    return !s->nomem;
}

bool psi_vivify(psi_sat *s)
{
    assert(decision_level(s) == 0 && s->qhead == s->trail_n);
    assert(!s->has_theory && !s->assumptions.n);
    uint64_t props = s->st.propagations;
    uint64_t budget = (props - s->props_at_vivify) * s->opt.vivify_effort / 1000;
    vivify_ctx x = {0};
    uint8_t *saved = malloc(s->nvars ? s->nvars : 1);
    bool ok = saved && collect(s, &x);
    uint32_t maxlen = 0;
    for (size_t i = 0; ok && i < x.n_cands; i++)
        if (cl_size(s, x.cands[i]) > maxlen)
            maxlen = cl_size(s, x.cands[i]);
    if (ok) {
        x.lits = malloc(((size_t)maxlen + 1) * sizeof *x.lits);
        x.keep = malloc(((size_t)maxlen + 1) * sizeof *x.keep);
        x.sort = malloc(((size_t)maxlen + 1) * sizeof *x.sort);
        ok = x.lits && x.keep && x.sort;
    }
    if (ok) {
        memcpy(saved, s->phase, s->nvars);
        for (size_t i = 0; i < x.n_cands && !s->nomem; i++) {
            if (s->st.propagations - props >= budget)
                break;
            uint32_t cref = x.cands[i];
            /* An earlier replacement may have moved the arena, never the
             * offsets; the clause may be satisfied by a root unit now. */
            if (psi_clause_satisfied(s, cref))
                continue;
            s->st.vivify_tried++;
            uint32_t m = try_clause(s, &x, cref);
            if (m < 2) {
                s->arena[cref + 1] |= CL_VIVIFIED;
                continue;
            }
            s->st.vivify_removed += cl_size(s, cref) - m;
            s->st.vivified++;
            if (!replace(s, cref, x.keep, m))
                break;
        }
        memcpy(s->phase, saved, s->nvars);
    }
    /* Probing is not search: its propagations stay out of the count. */
    s->st.vivify_propagations += s->st.propagations - props;
    s->st.propagations = props;
    s->props_at_vivify = props;
    free(saved);
    free(x.count);
    free(x.cands);
    free(x.lits);
    free(x.keep);
    free(x.sort);
    if (s->nomem)
        return false;
    return psi_clause_collect(s);
}
