/* Conflict analysis: first-UIP learning, recursive minimization (a literal
 * is dropped when its reasons lead only to literals already in the clause),
 * glue computation, and the final conflict over assumptions. Theory reasons
 * are requested here, lazily, and stored as learned clauses so they can act
 * as ordinary reasons (and be reduced like any learned clause later). */
#include "internal.h"

static lit_t true_lit(const psi_sat *s, uint32_t v)
{
    return s->vals[2 * v] > 0 ? 2 * v : 2 * v + 1;
}

/* Returns the reason cref of v, REASON_NONE for decisions, REASON_UNIT when
 * the theory explained it with a unit clause; asks the theory if needed.
 * On ENOMEM sets s->nomem and returns REASON_NONE. */
uint32_t psi_reason_of(psi_sat *s, uint32_t v)
{
    uint32_t r = s->reason[v];
    if (r != REASON_THEORY)
        return r;
    lit_t p = true_lit(s, v);
    psi_theory_out *o = &s->tout;
    o->clause.n = 0;
    s->st.theory_explanations++;
    double t0 = psi_sat_coarse_now();
    int rc = s->theory.explain(s->theory.ctx, lit_to_int(p), o);
    s->theory_wall += psi_sat_coarse_now() - t0;
    if (rc != PSI_THEORY_OK || !psi_u32_reserve(&s->tconfl, o->clause.n + 1)) {
        s->nomem = true;
        return REASON_NONE;
    }
    /* Reorder: implied literal first, then the false one of highest level. */
    uint32_t *c = s->tconfl.a, n = 0;
    c[n++] = p;
    for (size_t i = 0; i < o->clause.n; i++) {
        lit_t q = lit_of_int(o->clause.lits[i]);
        if (q == p)
            continue;
        /* theory contract: q false and assigned before p */
        assert(s->vals[q] < 0 && s->trail_pos[lit_var(q)] < s->trail_pos[v]);
        c[n++] = q;
        if (n > 2 && s->level[lit_var(q)] > s->level[lit_var(c[1])]) {
            c[n - 1] = c[1];
            c[1] = q;
        }
    }
    if (n == 1) {
        s->reason[v] = REASON_UNIT;
        return REASON_UNIT;
    }
    uint32_t cref = psi_clause_new(s, c, n, true, n);
    if (cref == REASON_NONE)
        return REASON_NONE;
    s->arena[cref + 1] |= CL_THEORY;
    psi_clause_attach(s, cref);
    s->reason[v] = cref;
    return cref;
}

static uint32_t compute_glue(psi_sat *s, const lit_t *c, uint32_t n)
{
    if (++s->stamp == 0) {
        for (uint32_t i = 0; i < s->lvl_stamp_cap; i++)
            s->lvl_stamp[i] = 0;
        s->stamp = 1;
    }
    uint32_t glue = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t lv = s->level[lit_var(c[i])];
        if (lv < s->lvl_stamp_cap && s->lvl_stamp[lv] != s->stamp) {
            s->lvl_stamp[lv] = s->stamp;
            glue++;
        }
    }
    return glue;
}

static uint32_t abstract_level(const psi_sat *s, uint32_t v)
{
    return 1u << (s->level[v] & 31u);
}

/* Is literal l (in the learned clause) implied by the other literals? */
static bool redundant(psi_sat *s, lit_t l, uint32_t levels)
{
    size_t top = s->to_clear.n;
    s->stack.n = 0;
    if (!psi_u32_push(&s->stack, lit_var(l)))
        return false;
    while (s->stack.n) {
        uint32_t v = s->stack.a[--s->stack.n];
        uint32_t r = psi_reason_of(s, v);
        if (r == REASON_UNIT)
            continue;
        if (r == REASON_NONE)
            goto fail; /* only possible on ENOMEM */
        uint32_t n = cl_size(s, r);
        for (uint32_t k = 0; k < n; k++) {
            lit_t q = cl_lits(s, r)[k];
            uint32_t u = lit_var(q);
            if (u == v || s->seen[u] || !s->level[u])
                continue;
            uint32_t ru = s->reason[u];
            if (ru == REASON_NONE || !(abstract_level(s, u) & levels))
                goto fail;
            s->seen[u] = 1;
            if (!psi_u32_push(&s->stack, u) || !psi_u32_push(&s->to_clear, u))
                goto fail;
        }
    }
    return true;
fail:
    for (size_t i = top; i < s->to_clear.n; i++)
        s->seen[s->to_clear.a[i]] = 0;
    s->to_clear.n = top;
    return false;
}

/* Clause order for shrinking: level descending, then trail position
 * descending, so each level's block is contiguous and starts with the
 * literal assigned last. */
static bool shrink_before(const psi_sat *s, lit_t a, lit_t b)
{
    uint32_t la = s->level[lit_var(a)], lb = s->level[lit_var(b)];
    if (la != lb)
        return la > lb;
    return s->trail_pos[lit_var(a)] > s->trail_pos[lit_var(b)];
}

static void shrink_sift(const psi_sat *s, lit_t *a, size_t i, size_t n)
{
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && shrink_before(s, a[c], a[c + 1]))
            c++;
        if (!shrink_before(s, a[i], a[c]))
            return;
        lit_t t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

/* Heap sort in place (no scratch memory, O(n log n) on long clauses). */
static void shrink_sort(const psi_sat *s, lit_t *a, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        shrink_sift(s, a, i, n);
    for (size_t k = n; k-- > 1;) {
        lit_t t = a[0];
        a[0] = a[k];
        a[k] = t;
        shrink_sift(s, a, 0, k);
    }
}

/* Marks v with m (seen bits), remembering it for the final clear. */
static bool mark(psi_sat *s, uint32_t v, uint8_t m)
{
    if (!s->seen[v] && !psi_u32_push(&s->to_clear, v))
        return false;
    s->seen[v] |= m;
    return true;
}

#define SEEN_BLOCK 2u /* seen[] bit: reached while shrinking the current block */

/* Shrinks the block c[0..n) of learned literals of one level L (n >= 2) to
 * its block UIP: walking the trail down from the block's last literal,
 * level-L literals are resolved with their reasons until one open literal
 * is left, whose negation then replaces the block. This fails when a
 * reason brings in a literal of a lower level that is neither in the
 * clause nor implied by it (seen[], or redundant() proves it). Marks of
 * lower levels are trusted only because blocks go by decreasing level: a
 * var of level L' < L marked seen is implied by clause literals of levels
 * at most L', none of which this block replaces. Level-L literals marked
 * seen by minimization are not trusted (they may hang on the very block
 * being replaced), they are resolved like the rest. Returns the UIP's
 * false literal, LIT_UNDEF when the block stays, and sets s->nomem on
 * ENOMEM. */
static lit_t shrink_block(psi_sat *s, const lit_t *c, uint32_t n, uint32_t levels)
{
    uint32_t lv = s->level[lit_var(c[0])], open = n;
    for (uint32_t i = 0; i < n; i++)
        if (!mark(s, lit_var(c[i]), SEEN_BLOCK))
            goto nomem;
    for (uint32_t idx = s->trail_pos[lit_var(c[0])] + 1;;) {
        uint32_t v;
        do
            v = lit_var(s->trail[--idx]);
        while (!(s->seen[v] & SEEN_BLOCK) || s->level[v] != lv);
        if (--open == 0)
            return lit_neg(s->trail[idx]);
        uint32_t r = s->reason[v];
        if (r >= REASON_UNIT) /* a decision has no level-L literal before it */
            return LIT_UNDEF;
        const lit_t *rl = cl_lits(s, r);
        for (uint32_t k = 0, m = cl_size(s, r); k < m; k++) {
            uint32_t u = lit_var(rl[k]), lu = s->level[u];
            if (u == v || !lu)
                continue;
            assert(lu <= lv); /* a reason's literals are no higher than what it implies */
            if (lu == lv) {
                if (!(s->seen[u] & SEEN_BLOCK)) {
                    if (!mark(s, u, SEEN_BLOCK))
                        goto nomem;
                    open++;
                }
                continue;
            }
            if (s->seen[u])
                continue;
            if (s->reason[u] == REASON_NONE || !redundant(s, rl[k], levels))
                return LIT_UNDEF;
            if (!mark(s, u, 1))
                goto nomem;
        }
    }
nomem:
    s->nomem = true;
    return LIT_UNDEF;
}

/* Shrinking (Fleury and Biere, "Efficient All-UIP Learned Clause
 * Minimization", SAT 2021): after minimization, each level's block of two
 * or more literals is replaced by that level's block UIP when one exists
 * whose cone in the implication graph reaches only the clause and what
 * it implies. The clause keeps its levels (glue unchanged) and stays
 * asserting; it is implied by unit propagation over the reasons (RUP), so
 * proofs stay checkable. Runs on learnt[1..] (learnt[0] is the conflict
 * level's UIP). Not with a theory (see psi_analyze). */
static void shrink(psi_sat *s, uint32_t levels)
{
    lit_t *c = s->learnt.a + 1;
    size_t n = s->learnt.n - 1, j = 0;
    shrink_sort(s, c, n);
    for (size_t i = 0; i < n;) {
        size_t e = i + 1;
        while (e < n && s->level[lit_var(c[e])] == s->level[lit_var(c[i])])
            e++;
        lit_t u = e - i > 1 ? shrink_block(s, c + i, (uint32_t)(e - i), levels) : LIT_UNDEF;
        if (s->nomem)
            return;
        if (u != LIT_UNDEF) {
            s->seen[lit_var(u)] |= 1; /* in the clause now (marked, so in to_clear) */
            c[j++] = u;
            s->st.shrunk_literals += e - i - 1;
        } else {
            while (i < e)
                c[j++] = c[i++];
        }
        i = e;
    }
    s->learnt.n = j + 1;
}

#ifndef NDEBUG
/* The learned clause is asserting (first UIP): all false, learnt[0] the only
 * literal at the conflict level dl, learnt[1] at the highest level of the
 * rest, which is the backjump level bt. */
static bool learnt_asserting(const psi_sat *s, uint32_t dl, uint32_t bt)
{
    const lit_t *c = s->learnt.a;
    if (!s->learnt.n || !psi_all_false(s, c, (uint32_t)s->learnt.n) ||
        s->level[lit_var(c[0])] != dl)
        return false;
    for (size_t i = 1; i < s->learnt.n; i++)
        if (s->level[lit_var(c[i])] >= dl || s->level[lit_var(c[i])] > bt)
            return false;
    return s->learnt.n == 1 ? bt == 0 : s->level[lit_var(c[1])] == bt;
}
#endif

/* A learned clause took part in an analysis: it is marked used, which
 * spares it at the next reduction in tier 2 (reduce.c), and with
 * opt.glue_update (and no theory) its glue is recomputed from the current
 * levels and kept if lower: a clause that keeps being useful at lower glue than it was
 * learned with moves to a better tier (Audemard and Simon, glucose). */
static void touch(psi_sat *s, uint32_t cref)
{
    uint32_t fl = cl_flags(s, cref);
    if (!(fl & CL_LEARNT))
        return;
    fl |= CL_USED;
    uint32_t glue = fl >> CL_GLUE_SHIFT;
    if (s->opt.glue_update && !s->has_theory && glue > s->opt.reduce_keep_glue) {
        uint32_t g = compute_glue(s, cl_lits(s, cref), cl_size(s, cref));
        if (g < glue)
            fl = (fl & ((1u << CL_GLUE_SHIFT) - 1)) | (g << CL_GLUE_SHIFT);
    }
    s->arena[cref + 1] = fl;
}

/* The conflict's clause, when it lives in the arena (a theory conflict is
 * a scratch buffer until learned). */
static uint32_t conflict_cref(const psi_sat *s, conflict c)
{
    if (!s->arena || c.lits < s->arena + CL_HDR || c.lits >= s->arena + s->arena_n)
        return REASON_NONE; /* (no arena yet: no pointer arithmetic on NULL) */
    return (uint32_t)(c.lits - s->arena - CL_HDR);
}

/* Reason-side bumping (as in Kissat, after Liang et al., SAT 2016): the
 * variables in the reasons of the learned clause's literals are bumped too,
 * which steers decisions to the variables the conflict's cause hangs on.
 * Only stored reasons are used (no theory explanation is asked for), and
 * only for short clauses, where it pays. Marks go to to_clear. */
static bool bump_reasons(psi_sat *s)
{
    if (s->learnt.n > 64)
        return true;
    for (size_t i = 0; i < s->learnt.n; i++) {
        uint32_t r = s->reason[lit_var(s->learnt.a[i])];
        if (r >= REASON_UNIT)
            continue;
        const lit_t *c = cl_lits(s, r);
        for (uint32_t k = 0, n = cl_size(s, r); k < n; k++) {
            uint32_t u = lit_var(c[k]);
            if (s->seen[u] || !s->level[u])
                continue;
            s->seen[u] = 1;
            psi_var_bump(s, u);
            if (!psi_u32_push(&s->to_clear, u))
                return false;
        }
    }
    return true;
}

#define SEEN_CLAUSE 4u /* seen[] bit: in the learned clause (binary minimization) */

/* Binary-implication minimization (Glucose's binResMinimize): a binary
 * clause (a | i) with a the asserting literal and -i in the learned clause
 * resolves -i away (self-subsuming resolution), since -a already implies i.
 * Only for short, low-glue clauses, as Glucose, since it walks a's binary
 * watches. The clause's variables are all in to_clear (analysis marked
 * them), so the extra seen bit is cleared with the rest. */
static void binary_minimize(psi_sat *s)
{
    lit_t a = s->learnt.a[0];
    for (size_t i = 1; i < s->learnt.n; i++)
        s->seen[lit_var(s->learnt.a[i])] |= SEEN_CLAUSE;
    const watches *ws = &s->watches[a];
    uint32_t hits = 0;
    for (uint32_t k = 0; k < ws->n; k++) {
        watch w = ws->w[k];
        lit_t i = w.blocker;
        if (!(w.ref & WATCH_BIN) || s->vals[i] <= 0 || !(s->seen[lit_var(i)] & SEEN_CLAUSE) ||
            (cl_flags(s, w.ref & ~WATCH_BIN) & CL_DELETED))
            continue;
        s->seen[lit_var(i)] &= (uint8_t)~SEEN_CLAUSE;
        hits++;
    }
    if (!hits)
        return;
    size_t j = 1;
    for (size_t i = 1; i < s->learnt.n; i++)
        if (s->seen[lit_var(s->learnt.a[i])] & SEEN_CLAUSE)
            s->learnt.a[j++] = s->learnt.a[i];
    assert(s->learnt.n - j == hits);
    s->st.minimized_literals += hits;
    s->learnt.n = j;
}

/* Learns a clause from conflict c (all literals false, at least one at the
 * current level) into s->learnt, asserting literal first and the literal of
 * the backjump level second. Returns 0 or PSI_SAT_ENOMEM. */
int psi_analyze(psi_sat *s, conflict c, uint32_t *bt_level, uint32_t *glue)
{
    uint32_t dl = decision_level(s);
    assert(dl > 0 && c.n > 0 && psi_all_false(s, c.lits, c.n));
    s->learnt.n = 0;
    s->to_clear.n = 0;
    if (!psi_u32_push(&s->learnt, LIT_UNDEF))
        return PSI_SAT_ENOMEM;
    const uint32_t *lits = c.lits;
    uint32_t n = c.n;
    uint32_t ccref = conflict_cref(s, c);
    if (ccref != REASON_NONE)
        touch(s, ccref);
    uint32_t path = 0, idx = s->trail_n;
    lit_t p = LIT_UNDEF;
    for (;;) {
        for (uint32_t k = 0; k < n; k++) {
            lit_t q = lits[k];
            uint32_t v = lit_var(q);
            if ((p != LIT_UNDEF && v == lit_var(p)) || s->seen[v] || !s->level[v])
                continue;
            s->seen[v] = 1;
            psi_var_bump(s, v);
            if (!psi_u32_push(&s->to_clear, v))
                return PSI_SAT_ENOMEM;
            if (s->level[v] >= dl)
                path++;
            else if (!psi_u32_push(&s->learnt, q))
                return PSI_SAT_ENOMEM;
        }
        assert(path > 0); /* the conflict has a literal at the current level */
        /* Seen literals of lower levels may follow on an out-of-order trail. */
        do
            p = s->trail[--idx];
        while (!s->seen[lit_var(p)] || s->level[lit_var(p)] != dl);
        assert(idx >= s->trail_lim.a[dl - 1] && s->level[lit_var(p)] == dl);
        s->seen[lit_var(p)] = 0;
        if (--path == 0)
            break;
        uint32_t r = psi_reason_of(s, lit_var(p));
        if (s->nomem)
            return PSI_SAT_ENOMEM;
        assert(r != REASON_NONE); /* only the decision has none, and it is the UIP */
        if (r == REASON_UNIT) {
            n = 0;
            continue;
        }
        touch(s, r);
        lits = cl_lits(s, r);
        n = cl_size(s, r);
        /* A reason implies its first literal (a binary one either). */
        assert(lits[0] == p || (n == 2 && lits[1] == p));
    }
    s->learnt.a[0] = lit_neg(p);

    /* Minimization. */
    uint32_t levels = 0;
    for (size_t i = 1; i < s->learnt.n; i++)
        levels |= abstract_level(s, lit_var(s->learnt.a[i]));
    size_t j = 1;
    for (size_t i = 1; i < s->learnt.n; i++) {
        lit_t q = s->learnt.a[i];
        if (s->reason[lit_var(q)] == REASON_NONE || !redundant(s, q, levels))
            s->learnt.a[j++] = q;
    }
    s->st.minimized_literals += s->learnt.n - j;
    s->learnt.n = j;
    /* Not with a theory: its clauses (glue about 2) have little to shrink,
     * and the checker's search stays as measured (bench_acyclic). */
    if (s->opt.shrink && !s->has_theory && s->learnt.n > 2) {
        shrink(s, levels);
        if (s->nomem)
            goto clear;
    }
    if (s->opt.binary_minimize && !s->has_theory && s->learnt.n > 1 &&
        s->learnt.n <= s->opt.binary_minimize)
        binary_minimize(s);
    /* Neither with a theory: its instances (glue about 2) were measured
     * no faster with reason bumping, and the search there stays as tuned. */
    if (s->opt.bump_reasons && !s->has_theory && !s->nomem && !bump_reasons(s))
        return PSI_SAT_ENOMEM;
clear:
    for (size_t i = 0; i < s->to_clear.n; i++)
        s->seen[s->to_clear.a[i]] = 0;
    if (s->nomem)
        return PSI_SAT_ENOMEM;

    /* Backjump level: the highest level below the current one. */
    *bt_level = 0;
    if (s->learnt.n > 1) {
        size_t best = 1;
        for (size_t i = 2; i < s->learnt.n; i++)
            if (s->level[lit_var(s->learnt.a[i])] > s->level[lit_var(s->learnt.a[best])])
                best = i;
        lit_t t = s->learnt.a[1];
        s->learnt.a[1] = s->learnt.a[best];
        s->learnt.a[best] = t;
        *bt_level = s->level[lit_var(s->learnt.a[1])];
    }
    assert(learnt_asserting(s, dl, *bt_level));
    *glue = compute_glue(s, s->learnt.a, (uint32_t)s->learnt.n);
    return 0;
}

/* The assumption a is false: collects the assumptions that force it. */
int psi_analyze_final(psi_sat *s, lit_t a)
{
    assert(s->vals[a] < 0);
    s->final_conflict.n = 0;
    if (!psi_lits_push(&s->final_conflict, lit_to_int(a)))
        return PSI_SAT_ENOMEM;
    if (decision_level(s) == 0)
        return 0;
    s->seen[lit_var(a)] = 1;
    for (uint32_t i = s->trail_n; i-- > s->trail_lim.a[0];) {
        lit_t t = s->trail[i];
        uint32_t x = lit_var(t);
        if (!s->seen[x])
            continue;
        s->seen[x] = 0;
        uint32_t r = psi_reason_of(s, x);
        if (s->nomem)
            return PSI_SAT_ENOMEM;
        if (r == REASON_NONE) {
            if (!psi_lits_push(&s->final_conflict, lit_to_int(t)))
                return PSI_SAT_ENOMEM;
        } else if (r != REASON_UNIT) {
            for (uint32_t k = 0; k < cl_size(s, r); k++) {
                uint32_t u = lit_var(cl_lits(s, r)[k]);
                if (u != x && s->level[u])
                    s->seen[u] = 1;
            }
        }
    }
    s->seen[lit_var(a)] = 0;
    return 0;
}
