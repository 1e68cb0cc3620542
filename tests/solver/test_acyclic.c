/* The acyclicity theory against brute force. Random small graphs with known
 * edges, one- and two-literal labels, DEP/ANTI kinds, SI and SER modes,
 * theory propagation on and off, clauses over the labels, edges and clauses
 * added between solves, and assumptions. The oracle enumerates assignments
 * and decides cycles its own way: transitive closure of the active edges
 * (SER) or of DEP ∪ DEP;ANTI (SI), never the doubled graph the theory uses.
 * Every model is checked against all clauses and for acyclicity; every
 * reported cycle is checked to be a closed walk that is forbidden. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "solver/acyclic.h"
#include "solver/sat.h"
#include "solver/theory.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng_state;
static void rng_seed(uint64_t s)
{
    rng_state = s * 0x9E3779B97F4A7C15ull + 7;
}
static uint32_t rng(uint32_t n)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return (uint32_t)((rng_state * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

enum { MAXN = 40, MAXE = 160, MAXC = 80 };

typedef struct inst {
    int nodes, nvars, mode;
    int ne, nc;
    int from[MAXE], to[MAXE], kind[MAXE], la[MAXE], lb[MAXE];
    int clen[MAXC], cl[MAXC][3];
} inst;

static int rand_lit(int nvars)
{
    int v = 1 + (int)rng((uint32_t)nvars);
    return rng(2) ? v : -v;
}

static void random_inst(inst *g, int nodes, int nvars, int ne, int nc)
{
    g->nodes = nodes;
    g->nvars = nvars;
    g->mode = (int)rng(2);
    g->ne = ne;
    g->nc = nc;
    for (int i = 0; i < ne; i++) {
        g->from[i] = (int)rng((uint32_t)nodes);
        g->to[i] = rng(8) ? (int)rng((uint32_t)nodes) : g->from[i];
        g->kind[i] = (int)rng(2);
        uint32_t t = rng(8);
        g->la[i] = t < 2 ? 0 : rand_lit(nvars);
        g->lb[i] = t >= 6 ? rand_lit(nvars) : 0;
    }
    for (int i = 0; i < nc; i++) {
        g->clen[i] = 1 + (int)rng(3);
        for (int k = 0; k < g->clen[i]; k++)
            g->cl[i][k] = rand_lit(nvars);
    }
}

/* Value of lit under assignment bits a (bit v-1 = variable v). */
static bool lv(uint64_t a, int lit)
{
    int v = lit > 0 ? lit : -lit;
    bool b = (a >> (v - 1)) & 1u;
    return lit > 0 ? b : !b;
}

/* Oracle cycle check over the given active edges. */
static bool forbidden_cycle(const inst *g, const bool *active)
{
    static bool dep[MAXN][MAXN], anti[MAXN][MAXN], r[MAXN][MAXN];
    int n = g->nodes;
    memset(dep, 0, sizeof dep);
    memset(anti, 0, sizeof anti);
    memset(r, 0, sizeof r);
    for (int i = 0; i < g->ne; i++) {
        if (!active[i])
            continue;
        if (g->mode == PSI_ACYC_SER || g->kind[i] == PSI_EDGE_DEP)
            dep[g->from[i]][g->to[i]] = true;
        else
            anti[g->from[i]][g->to[i]] = true;
    }
    /* SER: r = dep. SI: r = dep ∪ dep;anti. */
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++) {
            r[a][b] = dep[a][b];
            for (int c = 0; c < n && !r[a][b]; c++)
                r[a][b] = dep[a][c] && anti[c][b];
        }
    for (int k = 0; k < n; k++)
        for (int a = 0; a < n; a++)
            if (r[a][k])
                for (int b = 0; b < n; b++)
                    r[a][b] |= r[k][b];
    for (int a = 0; a < n; a++)
        if (r[a][a])
            return true;
    return false;
}

static bool edge_on(const inst *g, int i, uint64_t a)
{
    return (!g->la[i] || lv(a, g->la[i])) && (!g->lb[i] || lv(a, g->lb[i]));
}

/* Brute force over edges [0, ne) and clauses [0, nc) with unit assumptions. */
static bool brute(const inst *g, int ne, int nc, const int *as, int na)
{
    inst h = *g;
    h.ne = ne;
    bool active[MAXE];
    for (uint64_t a = 0; a < (1ull << g->nvars); a++) {
        bool ok = true;
        for (int i = 0; i < na && ok; i++)
            ok = lv(a, as[i]);
        for (int i = 0; i < nc && ok; i++) {
            bool c = false;
            for (int k = 0; k < g->clen[i]; k++)
                c |= lv(a, g->cl[i][k]);
            ok = c;
        }
        if (!ok)
            continue;
        for (int i = 0; i < ne; i++)
            active[i] = edge_on(g, i, a);
        if (!forbidden_cycle(&h, active))
            return true;
    }
    return false;
}

/* A reported cycle must be a closed walk of the given edges whose labels
 * are all true under the current model/conflict, and forbidden by mode. */
static void check_cycle_shape(const inst *g, const uint32_t *cyc, size_t n, int ne)
{
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(cyc[i] < (uint32_t)ne);
        uint32_t nx = cyc[(i + 1) % n];
        assert_int_equal(g->to[cyc[i]], g->from[nx]);
        if (g->mode == PSI_ACYC_SI)
            assert_false(g->kind[cyc[i]] == PSI_EDGE_ANTI && g->kind[nx] == PSI_EDGE_ANTI && n > 1);
    }
    if (g->mode == PSI_ACYC_SI && n == 1)
        assert_int_equal(g->kind[cyc[0]], PSI_EDGE_DEP);
}

static void check_model(psi_sat *s, psi_acyc *a, const inst *g, int ne, int nc, const int *as,
                        int na)
{
    uint64_t m = 0;
    for (int v = 1; v <= g->nvars; v++) {
        int x = psi_sat_value(s, v);
        assert_true(x == 1 || x == -1);
        if (x > 0)
            m |= 1ull << (v - 1);
    }
    for (int i = 0; i < nc; i++) {
        bool c = false;
        for (int k = 0; k < g->clen[i]; k++)
            c |= lv(m, g->cl[i][k]);
        assert_true(c);
    }
    for (int i = 0; i < na; i++)
        assert_true(lv(m, as[i]));
    inst h = *g;
    h.ne = ne;
    bool active[MAXE];
    for (int i = 0; i < ne; i++) {
        active[i] = edge_on(g, i, m);
        assert_int_equal(psi_acyc_edge_active(a, (uint32_t)i), active[i]);
    }
    assert_false(forbidden_cycle(&h, active));
}

static psi_acyc *load(psi_sat *s, const inst *g, int e0, int e1, int c0, int c1, psi_acyc *a,
                      bool prop)
{
    if (!a) {
        a = psi_acyc_new(s, (uint32_t)g->nodes, (psi_acyc_mode)g->mode);
        assert_non_null(a);
        psi_acyc_set_propagation(a, prop);
        psi_sat_reserve(s, g->nvars);
    }
    for (int i = e0; i < e1; i++)
        assert_int_equal(psi_acyc_add_edge(a, (uint32_t)g->from[i], (uint32_t)g->to[i],
                                           (psi_edge_kind)g->kind[i], g->la[i], g->lb[i]),
                         i);
    for (int i = c0; i < c1; i++)
        assert_int_equal(psi_sat_add_clause(s, g->cl[i], (size_t)g->clen[i]), 0);
    return a;
}

static void run_random(uint64_t seed0, int count, bool prop, int *nsat, int *nunsat)
{
    inst g;
    for (uint64_t seed = seed0; seed < seed0 + (uint64_t)count; seed++) {
        rng_seed(seed);
        int nodes = 1 + (int)rng(5), nvars = 1 + (int)rng(8);
        random_inst(&g, nodes, nvars, (int)rng(11), (int)rng((uint32_t)nvars + 2));
        psi_sat *s = psi_sat_new();
        assert_non_null(s);
        /* Stage 1: some edges and clauses; stage 2: the rest, then
         * assumptions. */
        int e1 = g.ne ? (int)rng((uint32_t)g.ne + 1) : 0, c1 = (int)rng((uint32_t)g.nc + 1);
        psi_acyc *a = load(s, &g, 0, e1, 0, c1, NULL, prop);
        int r = psi_sat_solve(s);
        bool exp = brute(&g, e1, c1, NULL, 0);
        assert_int_equal(r, exp ? PSI_SAT_SAT : PSI_SAT_UNSAT);
        if (r == PSI_SAT_SAT)
            check_model(s, a, &g, e1, c1, NULL, 0);
        load(s, &g, e1, g.ne, c1, g.nc, a, prop);
        for (int rep = 0; rep < 3; rep++) {
            int as[4], na = rep == 0 ? 0 : (int)rng(4);
            for (int i = 0; i < na; i++) {
                as[i] = rand_lit(nvars);
                psi_sat_assume(s, as[i]);
            }
            r = psi_sat_solve(s);
            exp = brute(&g, g.ne, g.nc, as, na);
            assert_int_equal(r, exp ? PSI_SAT_SAT : PSI_SAT_UNSAT);
            if (r == PSI_SAT_SAT) {
                check_model(s, a, &g, g.ne, g.nc, as, na);
                (*nsat)++;
            } else {
                size_t nc;
                const int *core = psi_sat_final_conflict(s, &nc);
                int sub[4];
                for (size_t i = 0; i < nc; i++)
                    sub[i] = core[i];
                assert_false(brute(&g, g.ne, g.nc, sub, (int)nc));
                size_t n;
                const uint32_t *cyc = psi_acyc_conflict_cycle(a, &n);
                if (n)
                    check_cycle_shape(&g, cyc, n, g.ne);
                (*nunsat)++;
            }
        }
        /* The known edges alone: the standalone query agrees with the oracle. */
        bool known[MAXE];
        for (int i = 0; i < g.ne; i++)
            known[i] = !g.la[i] && !g.lb[i];
        const uint32_t *kc;
        size_t kn;
        int kr = psi_acyc_known_cycle(a, &kc, &kn);
        assert_int_equal(kr, forbidden_cycle(&g, known) ? 1 : 0);
        if (kr) {
            check_cycle_shape(&g, kc, kn, g.ne);
            for (size_t i = 0; i < kn; i++)
                assert_true(known[kc[i]]);
        }
        psi_acyc_free(a);
        psi_sat_free(s);
    }
}

static void test_random_small_with_propagation(void **state)
{
    (void)state;
    int sat = 0, unsat = 0;
    run_random(1, 2500, true, &sat, &unsat);
    assert_true(sat > 1000 && unsat > 1000);
}

static void test_random_small_without_propagation(void **state)
{
    (void)state;
    int sat = 0, unsat = 0;
    run_random(1, 2500, false, &sat, &unsat);
    assert_true(sat > 1000 && unsat > 1000);
}

/* RELAY edges (acyclic.h): random graphs plus hub nodes, each with ANTI
 * edges in from transaction nodes and RELAY edges out to them, against
 * the oracle on the graph where every (in, out) pair of a hub is one
 * composed ANTI edge labelled by both edges' labels (self pairs included:
 * the oracle, like SI, lets an ANTI self-loop close no cycle, and SER
 * counts it). Half the runs without theory propagation. */
static void test_relay_hubs(void **state)
{
    (void)state;
    int n_sat = 0, n_unsat = 0;
    for (uint64_t seed = 1; seed <= 1500; seed++) {
        rng_seed(seed + 77777);
        inst g, h;
        int nodes = 1 + (int)rng(5), nvars = 1 + (int)rng(8);
        random_inst(&g, nodes, nvars, (int)rng(9), (int)rng((uint32_t)nvars + 2));
        h = g;
        int hubs = 1 + (int)rng(2);
        psi_sat *s = psi_sat_new();
        psi_acyc *a = psi_acyc_new(s, (uint32_t)(nodes + hubs), (psi_acyc_mode)g.mode);
        assert_non_null(a);
        psi_acyc_set_propagation(a, seed % 2 == 0);
        psi_sat_reserve(s, nvars);
        load(s, &g, 0, g.ne, 0, g.nc, a, seed % 2 == 0);
        for (int k = 0; k < hubs; k++) {
            int hub = nodes + k, nin = 1 + (int)rng(3), nout = 1 + (int)rng(3);
            int in_from[3], in_lit[3], out_to[3], out_lit[3];
            for (int i = 0; i < nin; i++) {
                in_from[i] = (int)rng((uint32_t)nodes);
                in_lit[i] = rng(4) ? rand_lit(nvars) : 0;
                assert_true(psi_acyc_add_edge(a, (uint32_t)in_from[i], (uint32_t)hub, PSI_EDGE_ANTI,
                                              in_lit[i], 0) >= 0);
            }
            for (int o = 0; o < nout; o++) {
                out_to[o] = (int)rng((uint32_t)nodes);
                out_lit[o] = rng(4) ? rand_lit(nvars) : 0;
                assert_true(psi_acyc_add_edge(a, (uint32_t)hub, (uint32_t)out_to[o], PSI_EDGE_RELAY,
                                              out_lit[o], 0) >= 0);
            }
            for (int i = 0; i < nin; i++)
                for (int o = 0; o < nout; o++) {
                    assert_true(h.ne < MAXE);
                    h.from[h.ne] = in_from[i];
                    h.to[h.ne] = out_to[o];
                    h.kind[h.ne] = PSI_EDGE_ANTI;
                    h.la[h.ne] = in_lit[i];
                    h.lb[h.ne] = out_lit[o];
                    h.ne++;
                }
        }
        int r = psi_sat_solve(s);
        bool exp = brute(&h, h.ne, h.nc, NULL, 0);
        assert_int_equal(r, exp ? PSI_SAT_SAT : PSI_SAT_UNSAT);
        if (r == PSI_SAT_SAT) {
            uint64_t m = 0;
            for (int v = 1; v <= nvars; v++)
                if (psi_sat_value(s, v) > 0)
                    m |= 1ull << (v - 1);
            bool active[MAXE];
            for (int i = 0; i < h.ne; i++)
                active[i] = edge_on(&h, i, m);
            assert_false(forbidden_cycle(&h, active));
            n_sat++;
        } else {
            n_unsat++;
        }
        psi_acyc_free(a);
        psi_sat_free(s);
    }
    assert_true(n_sat > 300 && n_unsat > 300);
}

/* Hand-made SI/SER semantics cases. */
static int solve_edges(psi_acyc_mode mode, int n, const int (*e)[3], int ne)
{
    psi_sat *s = psi_sat_new();
    psi_acyc *a = psi_acyc_new(s, (uint32_t)n, mode);
    for (int i = 0; i < ne; i++)
        psi_acyc_add_edge(a, (uint32_t)e[i][0], (uint32_t)e[i][1], (psi_edge_kind)e[i][2], 0, 0);
    int r = psi_sat_solve(s);
    if (r == PSI_SAT_UNSAT) {
        size_t k;
        const uint32_t *c = psi_acyc_conflict_cycle(a, &k);
        assert_true(k > 0);
        const uint32_t *kc;
        size_t kn;
        assert_int_equal(psi_acyc_known_cycle(a, &kc, &kn), 1);
        assert_int_equal(kn, k);
        (void)c;
    }
    psi_acyc_free(a);
    psi_sat_free(s);
    return r;
}

static void test_si_semantics(void **state)
{
    (void)state;
    const int D = PSI_EDGE_DEP, A = PSI_EDGE_ANTI;
    const int two_anti[][3] = {{0, 1, A}, {1, 0, A}};
    const int dep_anti[][3] = {{0, 1, D}, {1, 0, A}};
    const int lost_update[][3] = {{0, 1, D}, {1, 2, A}, {2, 0, A}}; /* consecutive ANTI */
    const int long_cycle[][3] = {{0, 1, A}, {1, 2, D}, {2, 3, A}, {3, 0, D}};
    const int anti_self[][3] = {{0, 0, A}};
    const int dep_self[][3] = {{0, 0, D}};
    assert_int_equal(solve_edges(PSI_ACYC_SI, 2, two_anti, 2), PSI_SAT_SAT);
    assert_int_equal(solve_edges(PSI_ACYC_SER, 2, two_anti, 2), PSI_SAT_UNSAT);
    assert_int_equal(solve_edges(PSI_ACYC_SI, 2, dep_anti, 2), PSI_SAT_UNSAT);
    assert_int_equal(solve_edges(PSI_ACYC_SI, 3, lost_update, 3), PSI_SAT_SAT);
    assert_int_equal(solve_edges(PSI_ACYC_SI, 4, long_cycle, 4), PSI_SAT_UNSAT);
    assert_int_equal(solve_edges(PSI_ACYC_SI, 1, anti_self, 1), PSI_SAT_SAT);
    assert_int_equal(solve_edges(PSI_ACYC_SER, 1, anti_self, 1), PSI_SAT_UNSAT);
    assert_int_equal(solve_edges(PSI_ACYC_SI, 1, dep_self, 1), PSI_SAT_UNSAT);
}

/* Either/or constraints over a chain, like encode/ produces: the conflict
 * clause of a cycle names only labelled edges, and the shortest such cycle
 * is found even when a longer one exists. */
static void test_short_conflict(void **state)
{
    (void)state;
    psi_sat *s = psi_sat_new();
    psi_acyc *a = psi_acyc_new(s, 10, PSI_ACYC_SER);
    /* Known chain 0->1->...->9. */
    for (uint32_t i = 0; i + 1 < 10; i++)
        psi_acyc_add_edge(a, i, i + 1, PSI_EDGE_DEP, 0, 0);
    /* Back edges: 9->0 labelled x1 (cycle of one labelled edge), and
     * 9->5 x2, 5->0 x3 (two labelled edges). */
    int64_t e1 = psi_acyc_add_edge(a, 9, 0, PSI_EDGE_DEP, 1, 0);
    psi_acyc_add_edge(a, 9, 5, PSI_EDGE_DEP, 2, 0);
    psi_acyc_add_edge(a, 4, 0, PSI_EDGE_DEP, 3, 0);
    psi_acyc_set_propagation(a, false);
    psi_sat_assume(s, 1);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    assert_true(psi_sat_failed(s, 1));
    size_t n;
    const uint32_t *c = psi_acyc_conflict_cycle(a, &n);
    assert_int_equal(n, 10);
    assert_int_equal(c[0], (uint32_t)e1);
    /* x2 and x3 together: cycle 9->5->...? 5 reaches 9 via the chain, so
     * 9->5 alone closes a cycle; x3 (4->0) closes 0..4->0 alone. */
    int c23[2] = {2, 3};
    psi_sat_add_clause(s, c23, 2);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
    psi_acyc_stats st;
    psi_acyc_get_stats(a, &st);
    assert_true(st.conflicts > 0);
    assert_true(st.conflict_lits <= st.conflicts); /* one label per cycle */
    psi_acyc_free(a);
    psi_sat_free(s);
}

/* Larger random graphs: propagation on and off must agree; every model is
 * verified with the oracle's cycle check. */
static void test_larger_random_agree(void **state)
{
    (void)state;
    inst g;
    int sat = 0, unsat = 0;
    for (uint64_t seed = 0; seed < 150; seed++) {
        rng_seed(seed + 5000);
        int nodes = 8 + (int)rng(25), nvars = 10 + (int)rng(30);
        random_inst(&g, nodes, nvars, 20 + (int)rng(100), (int)rng(40));
        /* Mostly forward known edges, so the instance is not trivially cyclic. */
        for (int i = 0; i < g.ne; i++) {
            if (g.la[i] || g.lb[i])
                continue;
            if (g.from[i] == g.to[i])
                g.to[i] = (g.from[i] + 1) % nodes;
            if (g.from[i] > g.to[i]) {
                int t = g.from[i];
                g.from[i] = g.to[i];
                g.to[i] = t;
            }
        }
        for (int i = 0; i < g.nc; i++)
            if (g.clen[i] == 1) {
                g.clen[i] = 2;
                g.cl[i][1] = rand_lit(nvars);
            }
        int res[2];
        for (int p = 0; p < 2; p++) {
            psi_sat *s = psi_sat_new();
            psi_acyc *a = load(s, &g, 0, g.ne, 0, g.nc, NULL, p == 1);
            res[p] = psi_sat_solve(s);
            if (res[p] == PSI_SAT_SAT) {
                uint64_t dummy = 0;
                (void)dummy;
                bool active[MAXE];
                for (int i = 0; i < g.ne; i++) {
                    active[i] = (!g.la[i] || psi_sat_value(s, g.la[i]) > 0) &&
                                (!g.lb[i] || psi_sat_value(s, g.lb[i]) > 0);
                    assert_int_equal(psi_acyc_edge_active(a, (uint32_t)i), active[i]);
                }
                assert_false(forbidden_cycle(&g, active));
                for (int i = 0; i < g.nc; i++) {
                    bool c = false;
                    for (int k = 0; k < g.clen[i]; k++)
                        c |= psi_sat_value(s, g.cl[i][k]) > 0;
                    assert_true(c);
                }
            }
            psi_acyc_free(a);
            psi_sat_free(s);
        }
        assert_int_equal(res[0], res[1]);
        if (res[0] == PSI_SAT_SAT)
            sat++;
        else
            unsat++;
    }
    print_message("larger random: %d sat, %d unsat\n", sat, unsat);
    assert_true(sat > 10 && unsat > 10);
}

/* Phase hints: known edges 0->1->3 give depths 0, 1, 2 and leave 2 at
 * depth 0, so the known graph's order is 0, 2, 1, 3. Variable 1 labels
 * 2->1 (agrees with it), its negation 1->2 (disagrees); both sides are
 * acyclic, so only the hint makes the first model choose 1 true: the
 * solver's own first phase is false (initial_phase 0). Without the hint
 * the same instance gives 1 false, which the second half checks. */
static void test_phase_hints(void **state)
{
    (void)state;
    for (int hint = 1; hint >= 0; hint--) {
        psi_sat *s = psi_sat_new();
        psi_acyc *g = psi_acyc_new(s, 4, PSI_ACYC_SER);
        assert_non_null(g);
        assert_true(psi_acyc_add_edge(g, 0, 1, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(g, 1, 3, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(g, 2, 1, PSI_EDGE_DEP, 1, 0) >= 0);
        assert_true(psi_acyc_add_edge(g, 1, 2, PSI_EDGE_DEP, -1, 0) >= 0);
        if (hint)
            assert_int_equal(psi_acyc_suggest_phases(g), 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        assert_int_equal(psi_sat_value(s, 1), hint ? 1 : -1);
        psi_sat_free(s);
        psi_acyc_free(g);
    }
    /* The plain API: a free variable takes the suggested polarity. */
    psi_sat *s = psi_sat_new();
    int c[] = {1, 2};
    assert_int_equal(psi_sat_add_clause(s, c, 2), 0);
    assert_int_equal(psi_sat_set_phase(s, 3), 0);
    assert_int_equal(psi_sat_set_phase(s, 0), PSI_SAT_EINVAL);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_int_equal(psi_sat_value(s, 3), 1);
    psi_sat_free(s);
}

/* Order hints (psi_acyc_set_order_hint): the graph of test_phase_hints,
 * whose known edges give the order 0, 2, 1, 3 by depth. Keys 0, 1, 9, 2
 * put 2 last (0, 1, 3, 2): then 1->2 agrees with the order and the hinted
 * phase of variable 1 turns false. Keys that contradict the known edges
 * (0 after everything) still give a topological order: 1 and 3 wait for
 * 0 (order 2, 0, 1, 3: variable 1 true), and the first model comes
 * without a conflict (PSI_CHECK builds check the order's invariants).
 * SI: the key of a user node orders both copies. After the order is made
 * a hint is refused. */
static void test_order_hint(void **state)
{
    (void)state;
    const uint32_t keys[3][4] = {{0, 1, 9, 2}, {9, 0, 0, 0}, {0, 1, 9, 2}};
    for (int k = 0; k < 3; k++) {
        psi_sat *s = psi_sat_new();
        psi_acyc *g = psi_acyc_new(s, 4, k == 2 ? PSI_ACYC_SI : PSI_ACYC_SER);
        assert_non_null(g);
        assert_true(psi_acyc_add_edge(g, 0, 1, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(g, 1, 3, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(g, 2, 1, PSI_EDGE_DEP, 1, 0) >= 0);
        assert_true(psi_acyc_add_edge(g, 1, 2, PSI_EDGE_DEP, -1, 0) >= 0);
        assert_int_equal(psi_acyc_set_order_hint(g, keys[k]), 0);
        assert_int_equal(psi_acyc_suggest_phases(g), 0);
        assert_int_equal(psi_acyc_set_order_hint(g, keys[k]), PSI_SAT_EINVAL);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        /* keys[1]: 2 first, then 0, which 1 and 3 wait for: 2, 0, 1, 3 */
        assert_int_equal(psi_sat_value(s, 1), k == 1 ? 1 : -1);
        psi_sat_stats st;
        psi_sat_get_stats(s, &st);
        assert_int_equal(st.conflicts, 0);
        psi_sat_free(s);
        psi_acyc_free(g);
    }
}

/* PSI mode (acyclic.h): the oracle forbids a DEP cycle and an active
 * ANTI edge x->y, x != y, whose head reaches its tail over active DEP
 * edges (an ANTI self-loop is no such cycle), by its own closure. With
 * eager checks (the default) the theory finds every such cycle as its
 * last edge goes in, so no model may have one; without, it checks only
 * ANTI activations and the test refines as check/level_psi.c does: a
 * clause against each violation found in a model, until a model has
 * none. The final answer must be the oracle's; every model has no DEP
 * cycle; every cycle the theory reports is a closed walk of DEP edges and
 * at most one ANTI edge (none alone). Half the runs resume from the kept
 * trail (sat.h), as check/ does. */
static bool psi_reach(const inst *g, const bool *active, int from, int to, int *par)
{
    int queue[MAXN], head = 0, tail = 0;
    bool seen[MAXN] = {false};
    queue[tail++] = from;
    seen[from] = true;
    while (head < tail) {
        int v = queue[head++];
        for (int i = 0; i < g->ne; i++) {
            if (!active[i] || g->kind[i] != PSI_EDGE_DEP || g->from[i] != v || seen[g->to[i]])
                continue;
            seen[g->to[i]] = true;
            par[g->to[i]] = i;
            queue[tail++] = g->to[i];
        }
    }
    return seen[to];
}

/* The first violation of PSI among the active edges: *anti the ANTI edge
 * (or -1 for a DEP cycle), path the DEP edges back; false when none. */
static bool psi_violation(const inst *g, const bool *active, int *anti, int *path, int *len)
{
    int par[MAXN];
    for (int i = 0; i < g->ne; i++) {
        if (!active[i] || g->from[i] == g->to[i] || g->kind[i] != PSI_EDGE_ANTI)
            continue;
        if (!psi_reach(g, active, g->to[i], g->from[i], par))
            continue;
        *anti = i;
        *len = 0;
        for (int v = g->from[i]; v != g->to[i]; v = g->from[par[v]])
            path[(*len)++] = par[v];
        return true;
    }
    for (int i = 0; i < g->ne; i++) {
        if (!active[i] || g->kind[i] != PSI_EDGE_DEP)
            continue;
        if (g->from[i] != g->to[i] && !psi_reach(g, active, g->to[i], g->from[i], par))
            continue;
        *anti = -1;
        *len = 0;
        path[(*len)++] = i;
        for (int v = g->from[i]; v != g->to[i]; v = g->from[par[v]])
            path[(*len)++] = par[v];
        return true;
    }
    return false;
}

static bool psi_brute(const inst *g)
{
    bool active[MAXE];
    int anti, path[MAXE], len;
    for (uint64_t a = 0; a < (1ull << g->nvars); a++) {
        bool ok = true;
        for (int i = 0; i < g->nc && ok; i++) {
            bool c = false;
            for (int k = 0; k < g->clen[i]; k++)
                c |= lv(a, g->cl[i][k]);
            ok = c;
        }
        for (int i = 0; i < g->ne && ok; i++)
            active[i] = edge_on(g, i, a);
        if (ok && !psi_violation(g, active, &anti, path, &len))
            return true;
    }
    return false;
}

static void psi_cycle_shape(const inst *g, const uint32_t *cyc, size_t n)
{
    int anti = 0;
    assert_true(n > 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(cyc[i] < (uint32_t)g->ne);
        assert_int_equal(g->to[cyc[i]], g->from[cyc[(i + 1) % n]]);
        anti += g->kind[cyc[i]] == PSI_EDGE_ANTI;
    }
    assert_true(anti == 0 || (anti == 1 && n > 1));
}

/* Solves g's instance in a (PSI mode), refining as check/level_psi.c
 * does; with eager checks no model may need it. Returns the answer. */
static int psi_solve_refined(psi_sat *s, psi_acyc *a, const inst *g, bool eager, int *refined)
{
    int r;
    for (;;) {
        r = psi_sat_solve(s);
        if (r != PSI_SAT_SAT)
            return r;
        uint64_t m = 0;
        for (int v = 1; v <= g->nvars; v++)
            if (psi_sat_value(s, v) > 0)
                m |= 1ull << (v - 1);
        bool active[MAXE];
        for (int i = 0; i < g->ne; i++) {
            active[i] = edge_on(g, i, m);
            assert_int_equal(psi_acyc_edge_active(a, (uint32_t)i), active[i]);
        }
        int anti, path[MAXE], len, cl[2 * MAXE + 2], n = 0;
        if (!psi_violation(g, active, &anti, path, &len))
            return r;
        assert_false(eager);    /* eager checks leave none */
        assert_true(anti >= 0); /* the theory keeps DEP acyclic */
        path[len++] = anti;
        for (int i = 0; i < len; i++) {
            if (g->la[path[i]])
                cl[n++] = -g->la[path[i]];
            if (g->lb[path[i]])
                cl[n++] = -g->lb[path[i]];
        }
        (*refined)++;
        if (!n)
            return PSI_SAT_UNSAT; /* known edges alone */
        assert_int_equal(psi_sat_add_clause(s, cl, (size_t)n), 0);
    }
}

static void test_psi_mode(void **state)
{
    (void)state;
    int n_sat = 0, n_unsat = 0, refined = 0;
    uint64_t theory_psi = 0, theory_dep = 0;
    for (uint64_t seed = 1; seed <= 3000; seed++) {
        rng_seed(seed + 424242);
        inst g;
        int nodes = 2 + (int)rng(6), nvars = 1 + (int)rng(10);
        random_inst(&g, nodes, nvars, (int)rng(40), (int)rng((uint32_t)nvars + 1));
        g.mode = PSI_ACYC_PSI;
        psi_sat *s = psi_sat_new();
        assert_non_null(s);
        psi_acyc *a = load(s, &g, 0, g.ne, 0, g.nc, NULL, rng(2));
        if (rng(2))
            psi_sat_set_resume(s, 1);
        bool eager = rng(2);
        psi_acyc_set_psi_eager(a, eager);
        int r = psi_solve_refined(s, a, &g, eager, &refined);
        assert_int_equal(r, psi_brute(&g) ? PSI_SAT_SAT : PSI_SAT_UNSAT);
        size_t n;
        const uint32_t *cyc = psi_acyc_conflict_cycle(a, &n);
        if (n)
            psi_cycle_shape(&g, cyc, n);
        psi_acyc_stats st;
        psi_acyc_get_stats(a, &st);
        theory_psi += st.psi_conflicts;
        theory_dep += st.psi_dep_conflicts;
        assert_true(eager || !st.psi_dep_conflicts);
        r == PSI_SAT_SAT ? n_sat++ : n_unsat++;
        psi_acyc_free(a);
        psi_sat_free(s);
    }
    print_message("psi mode: %d sat, %d unsat, %d refinements, %llu theory conflicts of one "
                  "ANTI edge, %llu of them found at a DEP activation\n",
                  n_sat, n_unsat, refined, (unsigned long long)theory_psi,
                  (unsigned long long)theory_dep);
    assert_true(n_sat > 600 && n_unsat > 600 && refined > 40 && theory_dep > 40);
}

/* PSI mode on graphs too big for the brute force (up to 40 nodes, 20
 * variables): known DEP edges follow a hidden order, labelled ones go
 * either way, ANTI edges anywhere, so the order sees reorders that move
 * many nodes and ANTI edges that turn backwards and forwards (the
 * checker, on in the test build, re-verifies the list of backward ANTI
 * edges after each backtrack). The eager theory's models must have no
 * violation, and its answers must be those of the theory checking only
 * ANTI activations plus the refinement, which test_psi_mode holds to the
 * oracle; edges and clauses come in two stages, solved after each. */
static void test_psi_eager_larger(void **state)
{
    (void)state;
    int n_sat = 0, n_unsat = 0, refined = 0;
    uint64_t theory_dep = 0, searches = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        rng_seed(seed + 777);
        inst g;
        int nodes = 8 + (int)rng(MAXN - 7), nvars = 4 + (int)rng(17);
        int pos[MAXN];
        for (int v = 0; v < nodes; v++)
            pos[v] = v;
        for (int v = nodes - 1; v > 0; v--) {
            int w = (int)rng((uint32_t)v + 1), t = pos[v];
            pos[v] = pos[w];
            pos[w] = t;
        }
        g.nodes = nodes;
        g.nvars = nvars;
        g.mode = PSI_ACYC_PSI;
        g.ne = 20 + (int)rng(MAXE - 19);
        g.nc = (int)rng((uint32_t)nvars / 2 + 1);
        for (int i = 0; i < g.ne; i++) {
            int u = (int)rng((uint32_t)nodes), v = (int)rng((uint32_t)nodes);
            uint32_t t = rng(8);
            g.kind[i] = t < 3 ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
            g.la[i] = t < 5 && t > 0 ? rand_lit(nvars) : 0;
            g.lb[i] = t == 4 ? rand_lit(nvars) : 0;
            if (g.kind[i] == PSI_EDGE_DEP && !g.la[i] && pos[u] > pos[v]) {
                int w = u; /* known DEP edges follow the hidden order */
                u = v;
                v = w;
            }
            if (g.kind[i] == PSI_EDGE_DEP && u == v)
                v = (u + 1) % nodes;
            if (g.kind[i] == PSI_EDGE_DEP && !g.la[i] && pos[u] > pos[v])
                g.la[i] = rand_lit(nvars);
            g.from[i] = u;
            g.to[i] = v;
        }
        for (int i = 0; i < g.nc; i++) {
            g.clen[i] = 1 + (int)rng(3);
            for (int k = 0; k < g.clen[i]; k++)
                g.cl[i][k] = rand_lit(nvars);
        }
        int e1 = (int)rng((uint32_t)g.ne + 1), c1 = (int)rng((uint32_t)g.nc + 1);
        bool resume = rng(2);
        int ans[2][2];
        for (int eager = 0; eager < 2; eager++) {
            psi_sat *s = psi_sat_new();
            assert_non_null(s);
            if (resume)
                psi_sat_set_resume(s, 1);
            inst part = g;
            part.ne = e1;
            part.nc = c1;
            psi_acyc *a = load(s, &g, 0, e1, 0, c1, NULL, seed % 3 != 0);
            psi_acyc_set_psi_eager(a, eager);
            ans[eager][0] = psi_solve_refined(s, a, &part, eager, &refined);
            /* (a refinement's clauses are consequences: they stay) */
            load(s, &g, e1, g.ne, c1, g.nc, a, false);
            ans[eager][1] = psi_solve_refined(s, a, &g, eager, &refined);
            size_t n;
            const uint32_t *cyc = psi_acyc_conflict_cycle(a, &n);
            if (n)
                psi_cycle_shape(&g, cyc, n);
            psi_acyc_stats st;
            psi_acyc_get_stats(a, &st);
            theory_dep += st.psi_dep_conflicts;
            searches += st.psi_dep_searches;
            psi_acyc_free(a);
            psi_sat_free(s);
        }
        assert_int_equal(ans[0][0], ans[1][0]);
        assert_int_equal(ans[0][1], ans[1][1]);
        ans[1][1] == PSI_SAT_SAT ? n_sat++ : n_unsat++;
    }
    print_message("psi eager, larger: %d sat, %d unsat, %d refinements without, %llu DEP "
                  "searches, %llu conflicts found by them\n",
                  n_sat, n_unsat, refined, (unsigned long long)searches,
                  (unsigned long long)theory_dep);
    assert_true(n_sat > 50 && n_unsat > 50 && theory_dep > 100);
}

static void test_bad_input(void **state)
{
    (void)state;
    psi_sat *s = psi_sat_new();
    psi_acyc *a = psi_acyc_new(s, 3, PSI_ACYC_SI);
    assert_int_equal(psi_acyc_add_edge(a, 3, 0, PSI_EDGE_DEP, 0, 0), PSI_SAT_EINVAL);
    assert_int_equal(psi_acyc_add_edge(a, 0, 0, (psi_edge_kind)7, 0, 0), PSI_SAT_EINVAL);
    assert_int_equal(psi_acyc_add_edge(a, 0, 1, PSI_EDGE_DEP, INT32_MIN, 0), PSI_SAT_EINVAL);
    /* PSI mode has no relay edges (a solver of its own: a graph attaches
     * itself to its solver) */
    psi_sat *ps = psi_sat_new();
    psi_acyc *p = psi_acyc_new(ps, 3, PSI_ACYC_PSI);
    assert_int_equal(psi_acyc_add_edge(p, 0, 1, PSI_EDGE_RELAY, 0, 0), PSI_SAT_EINVAL);
    psi_acyc_free(p);
    psi_sat_free(ps);
    /* Contradictory labels: the edge can never be active. */
    assert_int_equal(psi_acyc_add_edge(a, 0, 0, PSI_EDGE_DEP, 1, -1), 0);
    assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
    assert_false(psi_acyc_edge_active(a, 0));
    assert_false(psi_acyc_edge_active(a, 99));
    psi_acyc_free(a);
    psi_sat_free(s);
}

/* Activation slots (acyclic_internal.h slot_base): known edges added
 * before any labelled edge have none; a known edge added after a labelled
 * one, or after the static setup (activated by the search's prepare), has
 * one. Under SI (two internal edges per DEP edge) and SER, each kind is
 * added and must still take part in cycles and backtracking: the chain
 * 0 -> 1 -> 2 (first known), 2 -> 3 labelled x1, 3 -> 4 known (after a
 * labelled edge), then after a solve 4 -> 0 known (after the setup), which
 * makes x1 close a cycle; and a known cycle closed after the setup of a
 * graph with no labelled edge. */
static void test_slots_of_late_known_edges(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        psi_sat *s = psi_sat_new();
        psi_acyc *a = psi_acyc_new(s, 6, mode ? PSI_ACYC_SI : PSI_ACYC_SER);
        assert_non_null(a);
        assert_true(psi_acyc_add_edge(a, 0, 1, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 1, 2, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 2, 3, PSI_EDGE_DEP, 1, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 3, 4, PSI_EDGE_DEP, 0, 0) >= 0);
        /* x2 labels an edge out of 5 only: a second variable to decide */
        assert_true(psi_acyc_add_edge(a, 5, 0, PSI_EDGE_DEP, 2, 0) >= 0);
        int x1 = 1;
        assert_int_equal(psi_sat_add_clause(s, &x1, 1), 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        assert_true(psi_acyc_edge_active(a, 2));
        /* after the setup: 4 -> 0 closes 0 -> 1 -> 2 -> 3 -> 4 -> 0 with x1 */
        assert_true(psi_acyc_add_edge(a, 4, 0, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
        psi_acyc_free(a);
        psi_sat_free(s);

        /* the same without the unit: the solver must turn x1 off */
        s = psi_sat_new();
        a = psi_acyc_new(s, 6, mode ? PSI_ACYC_SI : PSI_ACYC_SER);
        assert_true(psi_acyc_add_edge(a, 0, 1, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 1, 2, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 2, 3, PSI_EDGE_DEP, 1, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 3, 4, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 5, 0, PSI_EDGE_DEP, 2, 0) >= 0);
        psi_sat_set_phase(s, 1);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        assert_true(psi_acyc_add_edge(a, 4, 0, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        assert_true(psi_sat_value(s, 1) < 0);
        assert_false(psi_acyc_edge_active(a, 2));
        assert_true(psi_acyc_edge_active(a, 5));
        psi_acyc_free(a);
        psi_sat_free(s);

        /* no labelled edge at all before the setup: the first slot goes to
         * a known edge added after it, which closes a known cycle */
        s = psi_sat_new();
        a = psi_acyc_new(s, 3, mode ? PSI_ACYC_SI : PSI_ACYC_SER);
        assert_true(psi_acyc_add_edge(a, 0, 1, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_true(psi_acyc_add_edge(a, 1, 2, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_SAT);
        assert_true(psi_acyc_add_edge(a, 2, 0, PSI_EDGE_DEP, 0, 0) >= 0);
        assert_int_equal(psi_sat_solve(s), PSI_SAT_UNSAT);
        psi_acyc_free(a);
        psi_sat_free(s);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_si_semantics),
        cmocka_unit_test(test_relay_hubs),
        cmocka_unit_test(test_psi_mode),
        cmocka_unit_test(test_psi_eager_larger),
        cmocka_unit_test(test_short_conflict),
        cmocka_unit_test(test_slots_of_late_known_edges),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_phase_hints),
        cmocka_unit_test(test_order_hint),
        cmocka_unit_test(test_random_small_with_propagation),
        cmocka_unit_test(test_random_small_without_propagation),
        cmocka_unit_test(test_larger_random_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
