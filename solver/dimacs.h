/* Reading DIMACS CNF and MonoSAT's GNF acyclicity subset (psi_dimacs_*).
 *
 * Accepted input: `c` comment lines, one `p cnf VARS CLAUSES` header, then
 * clauses (integers, each clause ended by 0, free line layout) and, for GNF:
 *     digraph [TYPE] NODES EDGES GRAPHID     TYPE: int, long, float, double
 *     edge GRAPHID FROM TO VAR [WEIGHT]      VAR >= 1, one edge per VAR
 *     acyclic GRAPHID VAR                    VAR <=> graph acyclic
 * plus two extensions of this project, for snapshot isolation:
 *     antiedge GRAPHID FROM TO VAR           an ANTI-kind edge
 *     acyclic_si GRAPHID VAR                 VAR <=> no cycle without two
 *                                            consecutive anti edges
 * Only *required* acyclicity is supported: each acyclic VAR must be fixed
 * true by a unit clause `VAR 0`; anything else is rejected with a message,
 * because a free VAR would need the theory to enforce cyclicity too.
 *
 * The parser works on a memory buffer, never crashes on hostile input, and
 * reports the first error with line and column. Ownership: psi_dimacs_parse
 * fills a caller-provided psi_dimacs whose arrays it allocates; release them
 * with psi_dimacs_free (also after a failed parse). */
#ifndef PSI_SOLVER_DIMACS_H
#define PSI_SOLVER_DIMACS_H

#include "acyclic.h"
#include "sat.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum { PSI_DIMACS_OK = 0, PSI_DIMACS_ESYNTAX = 1, PSI_DIMACS_ENOMEM = 2, PSI_DIMACS_EIO = 3 };

typedef struct psi_dimacs_error {
    uint64_t line, col; /* 1-based; 0 when not tied to a place */
    char msg[200];
} psi_dimacs_error;

typedef struct psi_dimacs_edge {
    uint32_t graph; /* index into graphs */
    uint32_t from, to;
    int var;
    uint8_t anti;
} psi_dimacs_edge;

typedef struct psi_dimacs_graph {
    int64_t id;
    uint32_t nodes;
    int acyclic_var; /* 0: no acyclic constraint */
    uint8_t si;
} psi_dimacs_graph;

typedef struct psi_dimacs {
    int nvars;
    size_t nclauses;
    int *lits; /* all clauses, each terminated by 0 */
    size_t nlits, lits_cap;
    psi_dimacs_graph *graphs;
    size_t ngraphs, graphs_cap;
    psi_dimacs_edge *edges;
    size_t nedges, edges_cap;
} psi_dimacs;

int psi_dimacs_parse(const char *buf, size_t len, psi_dimacs *out, psi_dimacs_error *err);

/* Reads all of f (a file or stdin) and parses it. */
int psi_dimacs_parse_file(FILE *f, psi_dimacs *out, psi_dimacs_error *err);

void psi_dimacs_free(psi_dimacs *d);

/* Loads d into s: clauses, and, if some graph carries an acyclic
 * constraint, one acyclicity theory over the disjoint union of those
 * graphs (SI mode if any is acyclic_si; plain edges are DEP). *acyc gets
 * the theory or NULL; the caller frees it with psi_acyc_free. Edge e of
 * d->edges becomes theory edge edge_ids[e] (caller array of d->nedges
 * entries, may be NULL); edges of unconstrained graphs get -1. */
int psi_dimacs_load(const psi_dimacs *d, psi_sat *s, psi_acyc **acyc, int64_t *edge_ids,
                    psi_dimacs_error *err);

#endif
