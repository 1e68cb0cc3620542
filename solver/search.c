/* The CDCL search loop: propagate, learn from conflicts, restart, reduce,
 * decide (assumptions first). Restarts alternate between two modes, as in
 * modern solvers: "focused" phases restart whenever the recent glue average
 * (a fast EMA) rises above the long-run one (a slow EMA), which helps on
 * unsatisfiable instances; "stable" phases restart on a Luby schedule with a
 * large unit, which lets the search dig deep for models. */
#include "internal.h"

static uint64_t luby(uint64_t i)
{
    /* i >= 1: 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... */
    uint64_t k = 1;
    while ((((uint64_t)1 << k) - 1) < i)
        k++;
    while ((((uint64_t)1 << k) - 1) != i) {
        i -= ((uint64_t)1 << (k - 1)) - 1;
        k = 1;
        while ((((uint64_t)1 << k) - 1) < i)
            k++;
    }
    return (uint64_t)1 << (k - 1);
}

static void update_ema(psi_sat *s, uint32_t glue)
{
    double g = glue;
    if (s->ema_count++ == 0) {
        s->ema_fast = s->ema_slow = g;
        return;
    }
    s->ema_fast += (g - s->ema_fast) / (double)s->opt.ema_fast;
    s->ema_slow += (g - s->ema_slow) / (double)s->opt.ema_slow;
}

/* Restart blocking (Audemard and Simon, SAT 2012): a conflict reached with
 * a trail much longer than usual suggests the search is close to a model,
 * and a restart would throw that trail away (with a theory, every decision
 * on it costs a theory check to take again). Such a conflict postpones the
 * next restart, in both modes: the count towards it starts over, and the
 * fast glue average starts over from the slow one, as Glucose empties its
 * glue queue. Called per conflict, with the trail as the conflict found it. */
static void block_restart(psi_sat *s)
{
    double t = s->trail_n;
    if (s->st.conflicts == 1)
        s->ema_trail = t;
    s->ema_trail += (t - s->ema_trail) / (double)s->opt.ema_trail;
    if (s->opt.restart_block == 0 || s->st.conflicts < s->opt.restart_block_min ||
        t <= s->opt.restart_block * s->ema_trail)
        return;
    s->ema_fast = s->ema_slow;
    s->conflicts_since_restart = 0;
    s->st.blocked_restarts++;
}

static bool restart_due(psi_sat *s)
{
    if (s->stable)
        return s->conflicts_since_restart >= s->luby_limit;
    return s->conflicts_since_restart >= s->opt.restart_min &&
           s->ema_fast > s->opt.restart_margin * s->ema_slow;
}

/* Trail reuse: levels whose decision would be taken again right away (its
 * variable is more active than the best unassigned one) survive the
 * restart, which saves re-deciding and re-propagating them, and with a
 * theory re-running its checks. */
static uint32_t reuse_level(psi_sat *s)
{
    while (s->heap_n && s->vals[2 * s->heap[0]])
        (void)psi_heap_pop(s);
    if (!s->heap_n)
        return 0;
    double next = s->activity[s->heap[0]];
    uint32_t lvl = 0, dl = decision_level(s);
    while (lvl < dl) {
        uint32_t pos = s->trail_lim.a[lvl];
        if (pos >= s->trail_n || s->activity[lit_var(s->trail[pos])] <= next)
            break;
        lvl++;
    }
    return lvl;
}

static bool use_target(const psi_sat *s)
{
    return s->opt.target_phases == 2 || (s->opt.target_phases == 1 && s->stable);
}

/* A local search from the saved phases (walk.c), its effort a share of the
 * propagation work since the last one; it sets the saved and target phases. */
static bool walk_phases(psi_sat *s)
{
    uint64_t flips = (s->st.propagations - s->props_at_walk) * s->opt.walk_effort / 1000;
    psi_backtrack(s, 0);
    bool ok = psi_walk(s, flips, false);
    s->props_at_walk = s->st.propagations;
    return ok;
}

/* Kissat's rephasing cycle (opt.rephase_cycle): best, walk, inverted,
 * best, walk, original. The original and inverted phases throw the search
 * far from where it got stuck; the walk starts from the saved phases, and
 * every kind leaves the target phases equal to the saved ones. Only a
 * reset to the best phases starts a new best trail. */
static bool rephase_cycle(psi_sat *s)
{
    static const char kinds[] = "BWIBWO";
    char kind = kinds[(s->st.rephases - 1) % (sizeof kinds - 1)];
    uint8_t original = s->opt.initial_phase ? 0 : 1; /* phase 1 = negative */
    bool ok = true;
    if (kind == 'W') {
        if (s->opt.walk_effort)
            ok = walk_phases(s);
    } else {
        for (uint32_t v = 0; v < s->nvars; v++)
            s->phase[v] = kind == 'B' ? s->best[v] : kind == 'O' ? original : !original;
        if (kind == 'B')
            s->best_assigned = 0;
    }
    for (uint32_t v = 0; v < s->nvars; v++)
        s->target[v] = s->phase[v];
    s->target_assigned = 0;
    return ok;
}

/* Rephasing (as in CaDiCaL and Kissat): saved phases drift away from good
 * assignments once conflicts flip them; every so often they are reset to
 * the polarities of the longest conflict-free trail since the last reset,
 * so the search restarts close to its best partial model. The k-th reset
 * comes k * rephase_interval conflicts after the one before. */
static bool rephase(psi_sat *s)
{
    s->st.rephases++;
    s->rephase_at = s->st.conflicts + (s->st.rephases + 1) * s->opt.rephase_interval;
    if (s->opt.rephase_cycle)
        return rephase_cycle(s);
    for (uint32_t v = 0; v < s->nvars; v++)
        s->phase[v] = s->target[v] = s->best[v];
    s->best_assigned = s->target_assigned = 0;
    /* Every other time, a local search refines the best phases (walk.c);
     * its effort is a share of the propagation work since the last one. */
    if (!s->opt.walk_effort || !(s->st.rephases & 1u))
        return true;
    return walk_phases(s);
}

/* Mode phases by work rather than conflicts (opt.mode_ticks, CNF only):
 * stable phases find far fewer conflicts per propagation than focused
 * ones, so equal conflict budgets give stable mode much more of the time.
 * Kissat measures phases in ticks; propagations stand in for them here.
 * The first focused phase is measured in conflicts and its propagations
 * become the unit; like the conflict budget, each pair of phases gets
 * twice the unit of the pair before. */
static bool mode_switch_due(const psi_sat *s)
{
    if (s->opt.mode_ticks && !s->has_theory && s->mode_props_unit)
        return s->st.propagations >= s->mode_props_at;
    return s->st.conflicts >= s->mode_switch_at;
}

static void switch_mode(psi_sat *s)
{
    s->stable = !s->stable;
    s->var_decay = s->stable ? s->opt.decay_stable : s->opt.decay_focused;
    if (!s->stable)
        s->mode_len *= 2;
    s->mode_switch_at = s->st.conflicts + s->mode_len;
    if (s->opt.mode_ticks && !s->has_theory) {
        if (!s->mode_props_unit)
            s->mode_props_unit = s->st.propagations ? s->st.propagations : 1;
        s->mode_props_at =
            s->st.propagations + s->mode_props_unit * (s->mode_len / s->opt.mode_conflicts);
    }
    s->luby_i = 1;
    s->luby_limit = s->opt.luby_unit;
}

static void restart(psi_sat *s)
{
    s->st.restarts++;
    if (s->opt.target_reset || s->has_theory)
        s->target_assigned = 0;
    s->conflicts_since_restart = 0;
    if (s->stable)
        s->luby_limit = s->opt.luby_unit * luby(++s->luby_i);
    if (s->opt.modes == 0 && mode_switch_due(s))
        switch_mode(s);
    psi_backtrack(s, reuse_level(s));
    /* Not with a theory: the caller's phases (encode/ derives them from
     * the known graph) are worth more there than any trail's. */
    if (s->opt.rephase_interval && !s->has_theory && s->st.conflicts >= s->rephase_at &&
        (s->stable || !s->opt.rephase_stable))
        (void)rephase(s); /* a walk short of memory is merely skipped */
}

static lit_t decide(psi_sat *s)
{
    for (;;) {
        uint32_t v = psi_heap_pop(s);
        if (v == UINT32_MAX)
            return LIT_UNDEF;
        if (!s->vals[2 * v])
            return 2 * v + (use_target(s) ? s->target[v] : s->phase[v]);
    }
}

/* Vivification (vivify.c) after a reduction: it probes from the root, so
 * the search backtracks there first (as a restart would; the trail it
 * drops is decided again by the same heuristics). Returns 1 when root
 * literals must be propagated first, -1 on ENOMEM, 0 when done. */
static int vivify_at_root(psi_sat *s)
{
    /* Asked for in an earlier solve, before assumptions or a theory came. */
    if (s->has_theory || s->assumptions.n) {
        s->vivify_due = false;
        return 0;
    }
    psi_backtrack(s, 0);
    if (s->qhead < s->trail_n)
        return 1;
    s->vivify_due = false;
    return psi_vivify(s) ? 0 : -1;
}

static bool limit_hit(psi_sat *s, uint32_t *tick)
{
    if (s->conflict_limit >= 0 &&
        s->st.conflicts - s->conflicts_at_start >= (uint64_t)s->conflict_limit)
        return true;
    if ((++*tick & 255u) != 0)
        return false;
    /* Every 256 decisions: the caller's progress hook, then the clock. */
    if (s->progress)
        s->progress(s->progress_ctx, s->st.conflicts);
    return s->time_limit >= 0 && psi_sat_now() - s->start_time >= s->time_limit;
}

/* Conflict clauses from the theory may lie entirely below the current
 * level; backtrack to their highest level so analysis sees a normal
 * conflict. Returns false when the conflict holds at the root. */
static bool align_conflict(psi_sat *s, conflict c)
{
    assert(psi_all_false(s, c.lits, c.n));
    uint32_t maxl = 0;
    for (uint32_t i = 0; i < c.n; i++)
        if (s->level[lit_var(c.lits[i])] > maxl)
            maxl = s->level[lit_var(c.lits[i])];
    if (maxl == 0)
        return false;
    if (maxl < decision_level(s))
        psi_backtrack(s, maxl);
    return true;
}

/* Target phases (as in CaDiCaL's stable mode): the assignment below the
 * conflict level is conflict-free; when it is the longest seen since the
 * last restart, remember its polarities, and let stable-mode decisions
 * steer back towards it. This is what finds models of hard satisfiable
 * instances, where plain phase saving keeps drifting. */
static void update_target(psi_sat *s)
{
    uint32_t dl = decision_level(s);
    if (dl == 0)
        return;
    uint32_t n = s->trail_lim.a[dl - 1];
    if (use_target(s) && n > s->target_assigned) {
        for (uint32_t i = 0; i < n; i++)
            s->target[lit_var(s->trail[i])] = (uint8_t)(s->trail[i] & 1u);
        s->target_assigned = n;
    }
    if (s->opt.rephase_interval && !s->has_theory && n > s->best_assigned) {
        for (uint32_t i = 0; i < n; i++)
            s->best[lit_var(s->trail[i])] = (uint8_t)(s->trail[i] & 1u);
        s->best_assigned = n;
    }
}

static int learn(psi_sat *s, conflict c)
{
    uint32_t bt, glue;
    if (psi_analyze(s, c, &bt, &glue))
        return PSI_SAT_ENOMEM;
    uint32_t n = (uint32_t)s->learnt.n, dl = decision_level(s), to = bt;
    /* Chronological backtracking (Nadel and Ryvchin, SAT 2018): a long jump
     * would undo thousands of decisions that the search takes again right
     * away (and with a theory, re-run its checks for each), so beyond
     * opt.chrono levels only the conflict level is undone and the asserting
     * literal joins the trail out of order, at its real level bt. Units
     * too: they join at level 0, a root fact wherever they lie on the
     * trail (with the acyclicity theory most units say that one edge
     * closes a cycle with known edges, found thousands of levels up;
     * sending each to the root re-decided 1.96 M levels on a 10^4
     * transaction history). Simplification still sees them at the next
     * restart to the root. Not under assumptions: the final conflict
     * takes every decision-less literal above the root for one. */
    if (s->opt.chrono && dl - bt > s->opt.chrono && (n > 1 || !s->assumptions.n)) {
        to = dl - 1;
        s->st.chrono_backtracks++;
    }
    psi_backtrack(s, to);
    assert(decision_level(s) == to);
    psi_proof_add(s, s->learnt.a, n);
    s->st.learned++;
    s->st.learned_literals += n;
    if (n == 1) {
        psi_assign_at(s, s->learnt.a[0], REASON_NONE, 0);
    } else {
        uint32_t cref = psi_clause_new(s, s->learnt.a, n, true, glue);
        if (cref == REASON_NONE)
            return PSI_SAT_ENOMEM;
        psi_clause_attach(s, cref);
        psi_assign_at(s, s->learnt.a[0], cref, bt);
    }
    psi_var_decay(s);
    update_ema(s, glue);
    return 0;
}

int psi_search(psi_sat *s)
{
    uint32_t tick = 0;
    for (;;) {
        conflict c = psi_propagate(s);
        if (s->nomem)
            return PSI_SAT_ENOMEM;
        if (c.lits) {
            s->st.conflicts++;
            s->conflicts_since_restart++;
            block_restart(s);
            if (!align_conflict(s, c)) {
                s->inconsistent = true;
                return PSI_SAT_UNSAT;
            }
            update_target(s);
            if (learn(s, c))
                return PSI_SAT_ENOMEM;
            /* Conflicts can follow one another without a fixpoint between
             * them (a chronological backtrack keeps most of the trail). */
            if (s->conflict_limit >= 0 &&
                s->st.conflicts - s->conflicts_at_start >= (uint64_t)s->conflict_limit)
                return PSI_SAT_UNKNOWN;
            /* Right after learning, and at the fixpoint that follows. */
            if (PSI_CHECKING && psi_check_due(&s->check, s->nvars + s->arena_n)) {
                psi_sat_check_or_die(s, PSI_SAT_CHECK_STRUCTURE);
                s->check_fixpoint = true;
            }
            continue;
        }
        if (PSI_CHECKING && s->check_fixpoint) {
            psi_sat_check_or_die(s, PSI_SAT_CHECK_FIXPOINT);
            s->check_fixpoint = false;
        }
        if (limit_hit(s, &tick))
            return PSI_SAT_UNKNOWN;
        if (restart_due(s)) {
            restart(s);
            /* After a chronological backtrack, literals of the levels the
             * restart keeps may lie above where those levels end on the
             * trail; the backtrack moves them down and they must go
             * through propagation (and the theory) again before the next
             * decision, or a clause they now make unit is missed and
             * psi_new_level finds the queue not empty. */
            if (s->qhead < s->trail_n || (s->has_theory && s->theory_head < s->trail_n))
                continue;
        }
        if (decision_level(s) == 0 && s->st.conflicts >= s->simplify_at) {
            s->simplify_at = s->st.conflicts + s->opt.simplify_interval;
            if (!psi_simplify(s))
                return PSI_SAT_ENOMEM;
        }
        if (s->st.conflicts >= s->reduce_at) {
            s->reduce_at = s->st.conflicts + s->reduce_inc;
            s->reduce_inc += s->opt.reduce_step;
            if (!psi_reduce(s))
                return PSI_SAT_ENOMEM;
            s->vivify_due = s->opt.vivify_effort && !s->has_theory && !s->assumptions.n;
        }
        if (s->vivify_due) {
            int r = vivify_at_root(s);
            if (r == 1)
                continue; /* root literals to propagate first */
            if (r < 0)
                return PSI_SAT_ENOMEM;
        }
        lit_t next = LIT_UNDEF;
        while (decision_level(s) < s->assumptions.n) {
            lit_t a = s->assumptions.a[decision_level(s)];
            if (s->vals[a] > 0) {
                psi_new_level(s); /* already true: an empty level keeps indices aligned */
            } else if (s->vals[a] < 0) {
                if (psi_analyze_final(s, a))
                    return PSI_SAT_ENOMEM;
                return PSI_SAT_UNSAT;
            } else {
                next = a;
                break;
            }
        }
        if (next == LIT_UNDEF) {
            next = decide(s);
            if (next == LIT_UNDEF) {
                if (PSI_CHECKING) /* a model: every clause is satisfied */
                    psi_sat_check_or_die(s, PSI_SAT_CHECK_ALL);
                return PSI_SAT_SAT;
            }
            s->st.decisions++;
        }
        psi_new_level(s);
        if (s->nomem)
            return PSI_SAT_ENOMEM;
        psi_assign(s, next, REASON_NONE);
    }
}
