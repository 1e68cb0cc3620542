/* The public face of the solver: life cycle, variables, clauses,
 * assumptions, solving, models, limits, statistics, theory attachment.
 * Everything here runs at decision level 0, except clauses added while the
 * last model's trail is kept (psi_sat_set_resume); the search itself is
 * search.c. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

psi_sat *psi_sat_new(void)
{
    psi_sat *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->var_inc = 1.0;
    s->conflict_limit = -1;
    s->time_limit = -1;
    psi_options_init(s);
    return s;
}

void psi_sat_free(psi_sat *s)
{
    if (!s)
        return;
    psi_proof_flush(s);
    free(s->proof_buf);
    for (uint32_t l = 0; l < 2 * s->cap_vars; l++)
        free(s->watches[l].w);
    void *ptrs[] = {s->target,
                    s->best,
                    s->vals,
                    s->level,
                    s->reason,
                    s->trail_pos,
                    s->phase,
                    s->seen,
                    s->observed,
                    s->activity,
                    s->watches,
                    s->heap,
                    s->heap_pos,
                    s->trail,
                    s->trail_lim.a,
                    s->arena,
                    s->originals.a,
                    s->learnts.a,
                    s->learnt.a,
                    s->to_clear.a,
                    s->stack.a,
                    s->tconfl.a,
                    s->lvl_stamp,
                    s->assumptions.a,
                    s->final_conflict.lits,
                    s->failed,
                    s->model,
                    s->tout.clause.lits,
                    s->tout.implied.lits,
                    s->late.a,
                    s->scratch.lits};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        free(ptrs[i]);
    free(s);
}

static bool resize(void **p, size_t n, size_t elem, size_t old)
{
    void *q = realloc(*p, n * elem);
    if (!q)
        return false;
    memset((char *)q + old * elem, 0, (n - old) * elem);
    *p = q;
    return true;
}

/* Grows per-variable arrays to hold at least n variables. */
static bool grow_vars(psi_sat *s, uint32_t n)
{
    if (n <= s->cap_vars)
        return true;
    uint32_t cap = s->cap_vars ? s->cap_vars : 64;
    while (cap < n)
        cap = cap > UINT32_MAX / 4 ? n : cap * 2;
    size_t o = s->cap_vars;
    if (!resize((void **)&s->vals, 2 * (size_t)cap, 1, 2 * o) ||
        !resize((void **)&s->level, cap, sizeof *s->level, o) ||
        !resize((void **)&s->reason, cap, sizeof *s->reason, o) ||
        !resize((void **)&s->trail_pos, cap, sizeof *s->trail_pos, o) ||
        !resize((void **)&s->phase, cap, 1, o) || !resize((void **)&s->target, cap, 1, o) ||
        !resize((void **)&s->best, cap, 1, o) || !resize((void **)&s->seen, cap, 1, o) ||
        !resize((void **)&s->observed, cap, 1, o) ||
        !resize((void **)&s->activity, cap, sizeof *s->activity, o) ||
        !resize((void **)&s->watches, 2 * (size_t)cap, sizeof *s->watches, 2 * o) ||
        !resize((void **)&s->heap, cap, sizeof *s->heap, o) ||
        !resize((void **)&s->heap_pos, cap, sizeof *s->heap_pos, o) ||
        !resize((void **)&s->trail, cap, sizeof *s->trail, o) ||
        !resize((void **)&s->lvl_stamp, (size_t)cap + 1, sizeof *s->lvl_stamp, o ? o + 1 : 0) ||
        !resize((void **)&s->failed, 2 * (size_t)cap, 1, 2 * o) ||
        !resize((void **)&s->model, cap, 1, o))
        return false;
    s->cap_vars = cap;
    s->lvl_stamp_cap = cap + 1;
    return true;
}

int psi_sat_reserve(psi_sat *s, int n)
{
    if (n < 0 || n >= INT32_MAX / 2)
        return PSI_SAT_EINVAL;
    if ((uint32_t)n <= s->nvars)
        return 0;
    if (!grow_vars(s, (uint32_t)n)) {
        s->nomem = true;
        return PSI_SAT_ENOMEM;
    }
    for (uint32_t v = s->nvars; v < (uint32_t)n; v++) {
        s->reason[v] = REASON_NONE;
        s->phase[v] = s->opt.initial_phase ? 0 : 1; /* phase 1 = negative */
        s->target[v] = s->best[v] = s->phase[v];
        s->heap_pos[v] = UINT32_MAX;
        (void)psi_heap_insert(s, v);
    }
    s->nvars = (uint32_t)n;
    return 0;
}

int psi_sat_nvars(const psi_sat *s)
{
    return (int)s->nvars;
}

int psi_sat_set_phase(psi_sat *s, int lit)
{
    if (lit == 0 || lit == INT32_MIN || lit >= INT32_MAX / 2 || lit <= -(INT32_MAX / 2))
        return PSI_SAT_EINVAL;
    int rc = psi_sat_reserve(s, lit < 0 ? -lit : lit);
    if (rc)
        return rc;
    uint32_t v = (uint32_t)(lit < 0 ? -lit : lit) - 1;
    s->phase[v] = s->target[v] = s->best[v] = lit < 0; /* phase 1 = negative */
    return 0;
}

int psi_sat_set_priorities(psi_sat *s, const double *prio, size_t n)
{
    if (s->started || n >= INT32_MAX / 2)
        return PSI_SAT_EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!(prio[i] >= 0 && prio[i] < 1))
            return PSI_SAT_EINVAL;
    int rc = psi_sat_reserve(s, (int)n);
    if (rc)
        return rc;
    for (size_t i = 0; i < n; i++)
        s->activity[i] = prio[i];
    /* Rebuild the heap in one go (it has room for every variable). */
    for (uint32_t i = 0; i < s->heap_n; i++)
        s->heap_pos[s->heap[i]] = UINT32_MAX;
    s->heap_n = 0;
    for (uint32_t v = 0; v < s->nvars; v++)
        if (!s->vals[2 * v])
            (void)psi_heap_insert(s, v);
    return 0;
}

static int check_lit(psi_sat *s, int lit)
{
    if (lit == 0 || lit == INT32_MIN || lit >= INT32_MAX / 2 || lit <= -(INT32_MAX / 2))
        return PSI_SAT_EINVAL;
    int v = lit < 0 ? -lit : lit;
    return psi_sat_reserve(s, v);
}

static void root(psi_sat *s)
{
    psi_backtrack(s, 0);
}

void psi_sat_set_resume(psi_sat *s, int on)
{
    s->resume = on != 0;
    if (!s->resume)
        root(s);
}

void psi_sat_root(psi_sat *s)
{
    root(s);
}

/* Watch preference for a clause added above the root: true literals first
 * (the lowest level first: it stays true longest), then unassigned ones,
 * then false ones by decreasing level (the last to become unassigned). */
static uint64_t watch_score(const psi_sat *s, lit_t l)
{
    uint32_t lv = s->level[lit_var(l)];
    if (s->vals[l] > 0)
        return (uint64_t)3 << 32 | (UINT32_MAX - lv);
    return s->vals[l] == 0 ? (uint64_t)2 << 32 : lv;
}

/* Moves the best watch of c[from..m) to c[from]. */
static void best_first(const psi_sat *s, lit_t *c, uint32_t from, uint32_t m)
{
    uint32_t b = from;
    for (uint32_t i = from + 1; i < m; i++)
        if (watch_score(s, c[i]) > watch_score(s, c[b]))
            b = i;
    lit_t t = c[from];
    c[from] = c[b];
    c[b] = t;
}

/* Adds the clause c[0..m) (no root-assigned literal, m >= 1) while the
 * trail of the last model is kept (psi_sat_set_resume). The search resumes
 * from a state every clause could have been learned in: the clause is
 * watched by its best two literals, and where it is unit or false the
 * trail goes back only as far as that takes, and its implied literal joins
 * at its real level, out of order as after a chronological backtrack
 * (assign.c). Watch invariant kept: a false watch has the other watch true
 * at a level no higher than its own, or the clause is the reason of it. */
static int add_above_root(psi_sat *s, lit_t *c, uint32_t m)
{
    best_first(s, c, 0, m);
    if (m == 1) {
        /* a unit belongs to the root, wherever it lies on the trail */
        if (s->vals[c[0]])
            psi_backtrack(s, s->level[lit_var(c[0])] - 1);
        psi_assign_at(s, c[0], REASON_NONE, 0);
        return 0;
    }
    best_first(s, c, 1, m);
    lit_t a = c[0], b = c[1];
    uint32_t la = s->level[lit_var(a)], lb = s->level[lit_var(b)];
    bool imply = false;
    if (s->vals[b] < 0) {
        /* every literal but a is false, the highest at level lb >= 1 */
        assert(lb >= 1);
        if (s->vals[a] != 0 && la > lb) {
            /* a true above its reason, or the clause false: a's level goes */
            psi_backtrack(s, la - 1);
            assert(s->vals[a] == 0 && s->vals[b] < 0);
        } else if (s->vals[a] < 0) {
            /* two false literals at the top level: both become unassigned */
            assert(la == lb);
            psi_backtrack(s, la - 1);
            assert(s->vals[a] == 0 && s->vals[b] == 0);
        }
        imply = s->vals[a] == 0 && s->vals[b] < 0;
    }
    uint32_t cref = psi_clause_new(s, c, m, false, 0);
    if (cref == REASON_NONE)
        return PSI_SAT_ENOMEM;
    psi_clause_attach(s, cref);
    if (imply)
        psi_assign_at(s, a, cref, lb);
    return s->nomem ? PSI_SAT_ENOMEM : 0;
}

int psi_sat_add_clause(psi_sat *s, const int *lits, size_t n)
{
    if (s->nomem)
        return PSI_SAT_ENOMEM;
    if (n >= UINT32_MAX / 2)
        return PSI_SAT_EINVAL;
    for (size_t i = 0; i < n; i++) {
        int rc = check_lit(s, lits[i]);
        if (rc)
            return rc;
    }
    if (s->sym_added)
        return PSI_SAT_EINVAL; /* symmetry breaking made the solver one-shot */
    if (!s->resume)
        root(s);
    s->has_model = false;
    s->st.clauses++;
    if (s->inconsistent)
        return 0;
    s->learnt.n = 0;
    if (!psi_u32_reserve(&s->learnt, n + 1))
        return s->nomem = true, PSI_SAT_ENOMEM;
    /* Drop root-false and duplicate literals; skip root-satisfied and
     * tautological clauses (above the root, only level 0 counts as root).
     * seen[] marks 1 = positive present, 2 = negative present. */
    bool changed = false, skip = false;
    uint32_t m = 0;
    for (size_t i = 0; i < n && !skip; i++) {
        lit_t l = lit_of_int(lits[i]);
        uint32_t v = lit_var(l);
        uint8_t mark = (l & 1u) ? 2 : 1;
        int8_t val = s->level[v] == 0 ? s->vals[l] : 0;
        if (val > 0 || (s->seen[v] & (3 - mark)))
            skip = true;
        else if (val < 0 || (s->seen[v] & mark))
            changed = true;
        else {
            s->seen[v] |= mark;
            s->learnt.a[m++] = l;
        }
    }
    for (uint32_t i = 0; i < m; i++)
        s->seen[lit_var(s->learnt.a[i])] = 0;
    if (skip)
        return 0;
    if (changed)
        psi_proof_add(s, s->learnt.a, m);
    if (m == 0) {
        s->inconsistent = true;
        return 0;
    }
    if (decision_level(s) > 0)
        return add_above_root(s, s->learnt.a, m);
    if (m == 1) {
        psi_assign(s, s->learnt.a[0], REASON_NONE);
        return 0;
    }
    uint32_t cref = psi_clause_new(s, s->learnt.a, m, false, 0);
    if (cref == REASON_NONE)
        return PSI_SAT_ENOMEM;
    psi_clause_attach(s, cref);
    return s->nomem ? PSI_SAT_ENOMEM : 0;
}

int psi_sat_assume(psi_sat *s, int lit)
{
    if (s->sym_added)
        return PSI_SAT_EINVAL; /* symmetry breaking made the solver one-shot */
    int rc = check_lit(s, lit);
    if (rc)
        return rc;
    if (!psi_u32_push(&s->assumptions, lit_of_int(lit)))
        return s->nomem = true, PSI_SAT_ENOMEM;
    return 0;
}

/* Applies a theory answer received at the root (prepare or a late
 * notification). Returns false on ENOMEM. */
static bool root_theory_result(psi_sat *s, int rc)
{
    if (rc == PSI_THEORY_ENOMEM)
        return !(s->nomem = true);
    if (rc == PSI_THEORY_CONFLICT) {
        s->st.theory_conflicts++;
        s->inconsistent = true; /* all its literals are false at the root */
        return true;
    }
    for (size_t k = 0; k < s->tout.implied.n; k++) {
        lit_t l = lit_of_int(s->tout.implied.lits[k]);
        if (s->vals[l] < 0)
            s->inconsistent = true;
        else if (!s->vals[l])
            psi_assign(s, l, REASON_NONE);
    }
    return true;
}

static int theory_start(psi_sat *s)
{
    psi_theory_out *o = &s->tout;
    if (s->theory.prepare) {
        o->clause.n = o->implied.n = 0;
        if (!root_theory_result(s, s->theory.prepare(s->theory.ctx, o)))
            return PSI_SAT_ENOMEM;
    }
    for (size_t i = 0; i < s->late.n && !s->inconsistent; i++) {
        o->clause.n = o->implied.n = 0;
        s->st.theory_calls++;
        int rc = s->theory.notify(s->theory.ctx, lit_to_int(s->late.a[i]), 0, o);
        if (!root_theory_result(s, rc))
            return PSI_SAT_ENOMEM;
    }
    s->late.n = 0;
    return 0;
}

int psi_sat_solve(psi_sat *s)
{
    s->start_time = psi_sat_now();
    double cpu0 = psi_sat_cpu_now();
    s->theory_wall = 0;
    s->started = true;
    s->has_model = false;
    for (size_t i = 0; i < s->final_conflict.n; i++)
        s->failed[lit_of_int(s->final_conflict.lits[i])] = 0;
    s->final_conflict.n = 0;
    int res;
    if (s->nomem) {
        res = PSI_SAT_ENOMEM;
        goto done;
    }
    /* Resume from the last model's trail (psi_sat_set_resume) when only
     * clauses came since; assumptions and late notifications need the
     * root, as does the theory's prepare. */
    bool resume = s->resume && decision_level(s) > 0 && !s->assumptions.n && !s->late.n;
    if (!resume)
        root(s);
    /* Only the first solve: later ones may have clauses the symmetries
     * were not verified against. */
    bool first = !s->sym_tried;
    s->sym_tried = true;
    if (first && s->opt.symmetry && !s->has_theory && !s->proof && !s->assumptions.n &&
        !s->inconsistent) {
        uint64_t before = s->st.clauses;
        res = psi_symmetry_break(s);
        s->sym_added = s->st.clauses != before;
        if (res)
            goto done;
    }
    s->conflicts_at_start = s->st.conflicts;
    if (!s->inconsistent && s->has_theory && !resume) {
        double t0 = psi_sat_now();
        res = theory_start(s);
        s->theory_wall += psi_sat_now() - t0;
        if (res)
            goto done;
    }
    res = s->inconsistent ? PSI_SAT_UNSAT : psi_search(s);
    if (res == PSI_SAT_SAT) {
        for (uint32_t v = 0; v < s->nvars; v++)
            s->model[v] = s->vals[2 * v] > 0 ? 1 : -1;
        s->has_model = true;
    } else if (res == PSI_SAT_UNSAT) {
        if (s->inconsistent) {
            s->final_conflict.n = 0;
            psi_proof_add(s, NULL, 0);
        }
        for (size_t i = 0; i < s->final_conflict.n; i++)
            s->failed[lit_of_int(s->final_conflict.lits[i])] = 1;
    }
    if (res != PSI_SAT_SAT || !s->resume || s->assumptions.n)
        root(s);
done:
    s->assumptions.n = 0;
    psi_proof_flush(s);
    /* CPU time, and the theory's share of it: the theory is timed on the
     * coarse wall clock (a CPU clock read costs a system call, too much per
     * notification), and the wall time's share is carried over to the CPU
     * time, as a busy machine stretches both parts alike. */
    double wall = psi_sat_now() - s->start_time, cpu = psi_sat_cpu_now() - cpu0;
    double theory = wall > 0 ? s->theory_wall * (cpu / wall) : 0;
    s->st.solve_seconds += cpu;
    s->st.theory_seconds += theory < cpu ? theory : cpu;
    return res;
}

int psi_sat_value(const psi_sat *s, int lit)
{
    if (!s->has_model || lit == 0 || lit == INT32_MIN)
        return 0;
    uint32_t v = (uint32_t)(lit < 0 ? -lit : lit) - 1;
    if (v >= s->nvars)
        return 0;
    return lit > 0 ? s->model[v] : -s->model[v];
}

int psi_sat_root_value(const psi_sat *s, int lit)
{
    if (lit == 0 || lit == INT32_MIN)
        return 0;
    uint32_t v = (uint32_t)(lit < 0 ? -lit : lit) - 1;
    if (v >= s->nvars)
        return 0;
    lit_t l = lit_of_int(lit);
    if (!s->vals[l] || s->level[v] != 0)
        return 0;
    return s->vals[l];
}

int psi_sat_current_value(const psi_sat *s, int lit)
{
    if (lit == 0 || lit == INT32_MIN)
        return 0;
    uint32_t v = (uint32_t)(lit < 0 ? -lit : lit) - 1;
    if (v >= s->nvars)
        return 0;
    return s->vals[lit_of_int(lit)];
}

int psi_sat_failed(const psi_sat *s, int lit)
{
    if (lit == 0 || lit == INT32_MIN)
        return 0;
    uint32_t v = (uint32_t)(lit < 0 ? -lit : lit) - 1;
    if (v >= s->nvars)
        return 0;
    return s->failed[lit_of_int(lit)];
}

const int *psi_sat_final_conflict(const psi_sat *s, size_t *n)
{
    *n = s->final_conflict.n;
    return s->final_conflict.lits;
}

void psi_sat_set_conflict_limit(psi_sat *s, int64_t conflicts)
{
    s->conflict_limit = conflicts < 0 ? -1 : conflicts;
}

void psi_sat_set_progress(psi_sat *s, void (*fn)(void *ctx, uint64_t conflicts), void *ctx)
{
    s->progress = fn;
    s->progress_ctx = ctx;
}

void psi_sat_set_time_limit(psi_sat *s, double seconds)
{
    s->time_limit = seconds < 0 ? -1 : seconds;
}

int psi_sat_set_proof(psi_sat *s, FILE *f)
{
    if (s->has_theory || s->st.clauses)
        return PSI_SAT_EINVAL;
    s->proof = f;
    return 0;
}

void psi_sat_get_stats(const psi_sat *s, psi_sat_stats *out)
{
    *out = s->st;
    out->vars = s->nvars;
}

void psi_sat_set_theory(psi_sat *s, const psi_theory *t)
{
    root(s);
    if (t)
        s->proof = NULL; /* theory lemmas would make the proof unverifiable */
    s->has_theory = t != NULL;
    if (t)
        s->theory = *t;
    s->theory_head = s->trail_n; /* earlier root literals arrive via observe */
}

int psi_sat_observe(psi_sat *s, int var)
{
    if (var <= 0)
        return PSI_SAT_EINVAL;
    int rc = psi_sat_reserve(s, var);
    if (rc)
        return rc;
    root(s); /* late notifications are made at the root (theory_start) */
    uint32_t v = (uint32_t)var - 1;
    if (s->observed[v])
        return 0;
    s->observed[v] = 1;
    if (s->vals[2 * v] && s->trail_pos[v] < s->theory_head) {
        lit_t l = s->vals[2 * v] > 0 ? 2 * v : 2 * v + 1;
        if (!psi_u32_push(&s->late, l))
            return s->nomem = true, PSI_SAT_ENOMEM;
    }
    return 0;
}
