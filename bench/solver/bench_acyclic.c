/* Benchmark of the acyclicity theory on graphs shaped like the checker's
 * workload, built through the API exactly as encode/ will build them:
 *   - NODES transactions in SESSIONS sessions; each session is a chain of
 *     known DEP edges (session order);
 *   - FWD random known edges that respect a hidden serial order (reads-from;
 *     in SI mode one in five is a known ANTI edge);
 *   - CONS either/or constraints between two writers a < b (hidden order):
 *     selector c => {a->b DEP, reader(a)->b ANTI}, !c => {b->a DEP,
 *     reader(b)->a ANTI}; a fraction NOISE of them has its readers placed so
 *     that the hidden order is no witness, which can make instances UNSAT.
 * Usage: bench_acyclic [--ser|--si] [--prop on|off|both] [--gnf FILE]
 *                      NODES SESSIONS FWD CONS NOISE SEED
 * Prints one line per run: answer, times, conflicts, average learned clause
 * length, average theory conflict length, theory share. --gnf writes the
 * instance (SI kinds via this project's antiedge/acyclic_si extension). */
#include "solver/acyclic.h"
#include "solver/sat.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t st;
static uint32_t rnd(uint32_t n)
{
    st ^= st >> 12;
    st ^= st << 25;
    st ^= st >> 27;
    return (uint32_t)((st * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: the machine may be shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct edge {
    uint32_t from, to;
    int kind, lit;
} edge;

typedef struct inst {
    uint32_t nodes;
    int nvars;
    edge *e;
    size_t n, cap;
} inst;

static void add(inst *g, uint32_t from, uint32_t to, int kind, int lit)
{
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 1024;
        g->e = realloc(g->e, g->cap * sizeof *g->e);
        if (!g->e) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
    }
    g->e[g->n++] = (edge){from, to, kind, lit};
}

/* Known out-edges per node (CSR built on demand) for the pruning check. */
typedef struct adjl {
    uint32_t *start, *to;
} adjl;

static void build_adj(const inst *g, adjl *A)
{
    free(A->start);
    free(A->to);
    A->start = calloc(g->nodes + 1, sizeof *A->start);
    A->to = malloc((g->n ? g->n : 1) * sizeof *A->to);
    if (!A->start || !A->to)
        exit(2);
    for (size_t i = 0; i < g->n; i++)
        if (!g->e[i].lit)
            A->start[g->e[i].from + 1]++;
    for (uint32_t v = 0; v < g->nodes; v++)
        A->start[v + 1] += A->start[v];
    uint32_t *pos = malloc(g->nodes * sizeof *pos);
    memcpy(pos, A->start, g->nodes * sizeof *pos);
    for (size_t i = 0; i < g->n; i++)
        if (!g->e[i].lit)
            A->to[pos[g->e[i].from]++] = g->e[i].to;
    free(pos);
}

/* Does x reach y through known edges? All known edges go forward in the
 * hidden order, so the search never leaves [x, y]. */
static bool reaches(const adjl *A, uint32_t x, uint32_t y, uint32_t *stamp, uint32_t *stack,
                    uint32_t epoch)
{
    if (x == y)
        return true;
    if (x > y)
        return false;
    uint32_t n = 0;
    stack[n++] = x;
    stamp[x] = epoch;
    while (n) {
        uint32_t v = stack[--n];
        for (uint32_t k = A->start[v]; k < A->start[v + 1]; k++) {
            uint32_t w = A->to[k];
            if (w == y)
                return true;
            if (w < y && stamp[w] != epoch) {
                stamp[w] = epoch;
                stack[n++] = w;
            }
        }
    }
    return false;
}

/* Builds the instance and then prunes it the way prune/ does: a constraint
 * one of whose sides closes a cycle with known edges is resolved to the
 * other side, whose edges become known; what survives is what the solver
 * sees in practice. */
static void generate(inst *g, uint32_t nodes, uint32_t sessions, uint32_t fwd, uint32_t cons,
                     double noise, bool si)
{
    g->nodes = nodes;
    for (uint32_t i = 0; i + sessions < nodes; i++)
        add(g, i, i + sessions, PSI_EDGE_DEP, 0);
    for (uint32_t k = 0; k < fwd; k++) {
        uint32_t u = rnd(nodes - 1), span = 1 + rnd(3 * sessions);
        uint32_t v = u + span < nodes ? u + span : nodes - 1;
        if (v > u)
            add(g, u, v, si && rnd(5) == 0 ? PSI_EDGE_ANTI : PSI_EDGE_DEP, 0);
    }
    typedef struct con {
        uint32_t a, b, ra, rb;
    } con;
    con *cs = malloc((cons ? cons : 1) * sizeof *cs);
    uint32_t nc = 0;
    for (uint32_t k = 0; k < cons; k++) {
        uint32_t a = rnd(nodes - 2), gap = 1 + rnd(sessions);
        uint32_t b = a + gap < nodes ? a + gap : nodes - 1;
        if (b <= a)
            continue;
        bool bad = rnd(1000000) < (uint32_t)(noise * 1e6);
        uint32_t late = b + 1 + rnd(2 * sessions), late2 = b + 1 + rnd(2 * sessions);
        uint32_t ra = bad ? (late < nodes ? late : b) : (b > a + 1 ? a + 1 + rnd(b - a - 1) : b);
        uint32_t rb = late2 < nodes ? late2 : b;
        if (ra != b)
            add(g, a, ra, PSI_EDGE_DEP, 0); /* reads-from is known */
        if (rb != b)
            add(g, b, rb, PSI_EDGE_DEP, 0);
        cs[nc++] = (con){a, b, ra, rb};
    }
    adjl A = {0};
    uint32_t *stamp = calloc(nodes, sizeof *stamp), *stack = malloc(nodes * sizeof *stack);
    uint32_t epoch = 0;
    size_t resolved = 0, kept = 0, both = 0;
    /* Resolve to a fixpoint: resolved sides become known edges, which may
     * resolve more constraints in the next round. */
    for (int round = 0; round < 20; round++) {
        build_adj(g, &A);
        uint32_t left = 0;
        size_t before = resolved + both;
        for (uint32_t k = 0; k < nc; k++) {
            con c = cs[k];
            /* Side A: a->b, ra->b closes a cycle if b reaches a or ra. */
            bool a_bad = reaches(&A, c.b, c.a, stamp, stack, ++epoch) ||
                         (c.ra != c.b && reaches(&A, c.b, c.ra, stamp, stack, ++epoch));
            /* Side B: b->a, rb->a closes a cycle if a reaches b or rb. */
            bool b_bad = reaches(&A, c.a, c.b, stamp, stack, ++epoch) ||
                         (c.rb != c.b && reaches(&A, c.a, c.rb, stamp, stack, ++epoch));
            if (a_bad && b_bad) {
                both++; /* the history is rejected by pruning alone */
                add(g, c.a, c.b, PSI_EDGE_DEP, 0);
                add(g, c.b, c.a, PSI_EDGE_DEP, 0);
            } else if (b_bad) {
                resolved++;
                add(g, c.a, c.b, PSI_EDGE_DEP, 0);
                if (c.ra != c.b)
                    add(g, c.ra, c.b, PSI_EDGE_ANTI, 0);
            } else if (a_bad) {
                resolved++;
                add(g, c.b, c.a, PSI_EDGE_DEP, 0);
                if (c.rb != c.b)
                    add(g, c.rb, c.a, PSI_EDGE_ANTI, 0);
            } else {
                cs[left++] = c;
            }
        }
        nc = left;
        if (resolved + both == before)
            break;
    }
    for (uint32_t k = 0; k < nc; k++) {
        con c = cs[k];
        int lit = ++g->nvars;
        kept++;
        add(g, c.a, c.b, PSI_EDGE_DEP, lit);
        if (c.ra != c.b)
            add(g, c.ra, c.b, PSI_EDGE_ANTI, lit);
        add(g, c.b, c.a, PSI_EDGE_DEP, -lit);
        if (c.rb != c.b)
            add(g, c.rb, c.a, PSI_EDGE_ANTI, -lit);
    }
    fprintf(stderr,
            "instance: %u nodes, %zu edges, %u constraints: %zu kept, %zu resolved, %zu "
            "impossible\n",
            nodes, g->n, cons, kept, resolved, both);
    free(stamp);
    free(stack);
    free(A.start);
    free(A.to);
    free(cs);
}

static void write_gnf(const inst *g, const char *path, bool si)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    /* GNF labels every edge with its own variable: e <-> (selector literal),
     * known edges get a unit. Variables: selectors 1..nvars, edge vars after,
     * then the acyclic variable. */
    int ev = g->nvars, acyc = g->nvars + (int)g->n + 1;
    size_t clauses = 1;
    for (size_t i = 0; i < g->n; i++)
        clauses += g->e[i].lit ? 2 : 1;
    fprintf(f, "p cnf %d %zu\n%d 0\n", acyc, clauses, acyc);
    for (size_t i = 0; i < g->n; i++) {
        int v = ev + 1 + (int)i;
        if (g->e[i].lit)
            fprintf(f, "-%d %d 0\n%d %d 0\n", v, g->e[i].lit, v, -g->e[i].lit);
        else
            fprintf(f, "%d 0\n", v);
    }
    fprintf(f, "digraph %u %zu 0\n", g->nodes, g->n);
    for (size_t i = 0; i < g->n; i++)
        fprintf(f, "%s 0 %u %u %d\n", si && g->e[i].kind == PSI_EDGE_ANTI ? "antiedge" : "edge",
                g->e[i].from, g->e[i].to, ev + 1 + (int)i);
    fprintf(f, "%s 0 %d\n", si ? "acyclic_si" : "acyclic", acyc);
    fclose(f);
}

static int run(const inst *g, bool si, bool prop, const char *tag)
{
    double t0 = now();
    psi_sat *s = psi_sat_new();
    psi_acyc *a = psi_acyc_new(s, g->nodes, si ? PSI_ACYC_SI : PSI_ACYC_SER);
    if (!s || !a || psi_sat_reserve(s, g->nvars)) {
        fprintf(stderr, "out of memory\n");
        return 2;
    }
    psi_acyc_set_propagation(a, prop);
    for (size_t i = 0; i < g->n; i++)
        if (psi_acyc_add_edge(a, g->e[i].from, g->e[i].to, (psi_edge_kind)g->e[i].kind, g->e[i].lit,
                              0) < 0) {
            fprintf(stderr, "add_edge failed\n");
            return 2;
        }
    double t1 = now();
    int r = psi_sat_solve(s);
    double t2 = now();
    psi_sat_stats ss;
    psi_acyc_stats as;
    psi_sat_get_stats(s, &ss);
    psi_acyc_get_stats(a, &as);
    printf("%-6s %-3s prop=%-3s %-7s build %7.3fs solve %7.3fs conflicts %8llu decisions %9llu "
           "learned-len %6.1f cycle-len %5.1f theory-props %8llu theory %5.1f%% reorders %llu "
           "moved %llu B/edge %.1f\n",
           tag, si ? "SI" : "SER", prop ? "on" : "off",
           r == PSI_SAT_SAT     ? "SAT"
           : r == PSI_SAT_UNSAT ? "UNSAT"
                                : "UNKNOWN",
           t1 - t0, t2 - t1, (unsigned long long)ss.conflicts, (unsigned long long)ss.decisions,
           ss.learned ? (double)ss.learned_literals / (double)ss.learned : 0.0,
           as.conflicts ? (double)as.conflict_lits / (double)as.conflicts : 0.0,
           (unsigned long long)ss.theory_propagations,
           ss.solve_seconds > 0 ? 100.0 * ss.theory_seconds / ss.solve_seconds : 0.0,
           (unsigned long long)as.reorders, (unsigned long long)as.moved,
           g->n ? (double)as.bytes / (double)g->n : 0.0);
    /* Check the model: every constraint side chosen must be acyclic, which
     * the theory guarantees; here we only confirm labels are consistent. */
    if (r == PSI_SAT_SAT)
        for (size_t i = 0; i < g->n; i++)
            if (psi_acyc_edge_active(a, (uint32_t)i) !=
                (!g->e[i].lit || psi_sat_value(s, g->e[i].lit) > 0)) {
                fprintf(stderr, "model inconsistent\n");
                return 2;
            }
    psi_acyc_free(a);
    psi_sat_free(s);
    return 0;
}

int main(int argc, char **argv)
{
    bool si = true, on = true, off = true;
    const char *gnf = NULL;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] == '-'; i++) {
        if (!strcmp(argv[i], "--ser"))
            si = false;
        else if (!strcmp(argv[i], "--si"))
            si = true;
        else if (!strcmp(argv[i], "--prop") && i + 1 < argc) {
            const char *m = argv[++i];
            on = !strcmp(m, "on") || !strcmp(m, "both");
            off = !strcmp(m, "off") || !strcmp(m, "both");
        } else if (!strcmp(argv[i], "--gnf") && i + 1 < argc)
            gnf = argv[++i];
        else
            break;
    }
    if (argc - i != 6) {
        fprintf(stderr, "usage: bench_acyclic [--ser|--si] [--prop on|off|both] [--gnf FILE] "
                        "NODES SESSIONS FWD CONS NOISE SEED\n");
        return 2;
    }
    uint32_t nodes = (uint32_t)strtoul(argv[i], NULL, 10);
    uint32_t sessions = (uint32_t)strtoul(argv[i + 1], NULL, 10);
    uint32_t fwd = (uint32_t)strtoul(argv[i + 2], NULL, 10);
    uint32_t cons = (uint32_t)strtoul(argv[i + 3], NULL, 10);
    double noise = atof(argv[i + 4]);
    st = strtoull(argv[i + 5], NULL, 10) * 0x9E3779B97F4A7C15ull + 5;
    if (nodes < 4 || sessions < 1) {
        fprintf(stderr, "need NODES >= 4 and SESSIONS >= 1\n");
        return 2;
    }
    inst g = {0};
    generate(&g, nodes, sessions, fwd, cons, noise, si);
    if (gnf)
        write_gnf(&g, gnf, si);
    char tag[32];
    snprintf(tag, sizeof tag, "n=%u", nodes);
    int rc = 0;
    if (on)
        rc |= run(&g, si, true, tag);
    if (off)
        rc |= run(&g, si, false, tag);
    free(g.e);
    return rc;
}
