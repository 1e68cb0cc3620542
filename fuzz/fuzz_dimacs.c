/* Fuzz target: the DIMACS CNF / GNF parser (solver/dimacs.c) on arbitrary
 * bytes. A formula that parses and is small is also loaded into the solver
 * and solved under a conflict budget; a model it returns must satisfy every
 * clause and leave every constrained graph free of forbidden cycles (checked
 * here on the doubled graph, independently of the theory). */
#include "fuzz.h"
#include "fuzz_check.h"

#include "solver/acyclic.h"
#include "solver/dimacs.h"
#include "solver/sat.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VARS = 2000, MAX_LITS = 40000, MAX_NODES = 4000, MAX_EDGES = 40000 };

static void check_model_clauses(const psi_dimacs *p, const psi_sat *s)
{
    bool sat = false;
    for (size_t i = 0; i < p->nlits; i++) {
        int l = p->lits[i];
        if (l == 0) {
            FUZZ_REQUIRE(sat, "model falsifies a clause");
            sat = false;
        } else if (psi_sat_value(s, l) > 0) {
            sat = true;
        }
    }
}

/* Active edges of constrained graphs, in the doubled graph of acyclic.h:
 * node v becomes 2v (arrived by DEP) and 2v+1 (arrived by ANTI); a cycle
 * there is exactly a forbidden cycle. Iterative DFS with colours. */
static void check_model_graphs(const psi_dimacs *p, const psi_sat *s)
{
    uint64_t total = 0;
    uint64_t *offset = calloc(p->ngraphs + 1, sizeof *offset);
    FUZZ_REQUIRE(offset != NULL, "out of memory in the checker");
    for (size_t g = 0; g < p->ngraphs; g++) {
        offset[g] = total;
        if (p->graphs[g].acyclic_var)
            total += p->graphs[g].nodes;
    }
    size_t n = (size_t)total * 2;
    size_t *deg = calloc(n + 1, sizeof *deg);
    size_t m = 0;
    uint32_t(*arcs)[2] = malloc((2 * p->nedges + 1) * sizeof *arcs);
    FUZZ_REQUIRE(deg && arcs, "out of memory in the checker");
    for (size_t e = 0; e < p->nedges; e++) {
        const psi_dimacs_edge *x = &p->edges[e];
        const psi_dimacs_graph *g = &p->graphs[x->graph];
        if (!g->acyclic_var || psi_sat_value(s, x->var) <= 0)
            continue;
        uint32_t u = (uint32_t)(offset[x->graph] + x->from);
        uint32_t v = (uint32_t)(offset[x->graph] + x->to);
        if (g->si && x->anti) {
            arcs[m][0] = 2 * u, arcs[m++][1] = 2 * v + 1;
        } else {
            arcs[m][0] = 2 * u, arcs[m++][1] = 2 * v;
            arcs[m][0] = 2 * u + 1, arcs[m++][1] = 2 * v;
        }
    }
    /* Adjacency in CSR form. */
    for (size_t i = 0; i < m; i++)
        deg[arcs[i][0] + 1]++;
    for (size_t i = 0; i < n; i++)
        deg[i + 1] += deg[i];
    uint32_t *adj = malloc((m + 1) * sizeof *adj);
    size_t *fill = malloc((n + 1) * sizeof *fill);
    uint8_t *colour = calloc(n + 1, 1);
    size_t *stack = malloc((n + 1) * sizeof *stack), *it = malloc((n + 1) * sizeof *it);
    FUZZ_REQUIRE(adj && fill && colour && stack && it, "out of memory in the checker");
    memcpy(fill, deg, (n + 1) * sizeof *fill);
    for (size_t i = 0; i < m; i++)
        adj[fill[arcs[i][0]]++] = arcs[i][1];
    for (size_t root = 0; root < n; root++) {
        if (colour[root])
            continue;
        size_t top = 0;
        stack[top] = root, it[top++] = deg[root], colour[root] = 1;
        while (top) {
            size_t u = stack[top - 1];
            if (it[top - 1] == deg[u + 1]) {
                colour[u] = 2;
                top--;
                continue;
            }
            uint32_t v = adj[it[top - 1]++];
            FUZZ_REQUIRE(colour[v] != 1, "model leaves a forbidden cycle in a graph");
            if (!colour[v])
                stack[top] = v, it[top++] = deg[v], colour[v] = 1;
        }
    }
    free(offset), free(deg), free(arcs), free(adj), free(fill), free(colour), free(stack), free(it);
}

int psi_fuzz_dimacs(const uint8_t *data, size_t size)
{
    psi_dimacs p;
    memset(&p, 0, sizeof p);
    psi_dimacs_error err;
    memset(&err, 0, sizeof err);
    int rc = psi_dimacs_parse((const char *)data, size, &p, &err);
    if (rc != PSI_DIMACS_OK) {
        FUZZ_REQUIRE(memchr(err.msg, '\0', sizeof err.msg) != NULL && err.msg[0],
                     "parse error without a message");
        psi_dimacs_free(&p);
        return 0;
    }
    uint64_t nodes = 0;
    for (size_t g = 0; g < p.ngraphs; g++)
        if (p.graphs[g].acyclic_var)
            nodes += p.graphs[g].nodes;
    if (p.nvars > MAX_VARS || p.nlits > MAX_LITS || nodes > MAX_NODES || p.nedges > MAX_EDGES) {
        psi_dimacs_free(&p);
        return 0;
    }
    psi_sat *s = psi_sat_new();
    FUZZ_REQUIRE(s != NULL, "psi_sat_new failed");
    psi_acyc *g = NULL;
    rc = psi_dimacs_load(&p, s, &g, NULL, &err);
    if (rc == PSI_DIMACS_OK) {
        psi_sat_set_conflict_limit(s, 2000);
        psi_sat_set_time_limit(s, 2.0);
        int r = psi_sat_solve(s);
        FUZZ_REQUIRE(r == PSI_SAT_SAT || r == PSI_SAT_UNSAT || r == PSI_SAT_UNKNOWN,
                     "unexpected solver result");
        if (r == PSI_SAT_SAT) {
            check_model_clauses(&p, s);
            if (g)
                check_model_graphs(&p, s);
        }
    } else {
        FUZZ_REQUIRE(err.msg[0] != '\0', "load error without a message");
    }
    psi_sat_free(s);
    psi_acyc_free(g);
    psi_dimacs_free(&p);
    return 0;
}

#ifdef PSI_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return psi_fuzz_dimacs(data, size);
}
#endif
