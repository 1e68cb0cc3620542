/* Solving a sub-history's polygraph (see local.h). */
#include "encode/local.h"

#include "core/vec.h"

#include "solver/acyclic.h"
#include "solver/sat.h"

#include <limits.h>

psi_status psi_encode_solve_sub(const psi_sub_polygraph *S, bool ser, bool *violation, psi_diag *d)
{
    *violation = false;
    if ((uint64_t)S->n_c + S->n_ch > (uint64_t)INT_MAX - 1)
        return psi_diag_set(d, PSI_ERR_LIMIT,
                            "%u constraints and %u read-from choices exceed the solver's variables",
                            S->n_c, S->n_ch);
    psi_sat *s = psi_sat_new();
    psi_acyc *g =
        s ? psi_acyc_new(s, S->n_nodes ? S->n_nodes : 1, ser ? PSI_ACYC_SER : PSI_ACYC_SI) : NULL;
    psi_status st = PSI_OK;
    if (!g || psi_sat_reserve(s, (int)(S->n_c + S->n_ch)) != 0)
        goto nomem;
    for (uint32_t i = 0; i < S->n_e; i++) {
        const psi_sub_edge *e = &S->e[i];
        if (!e->on)
            continue;
        /* Constraint c is variable c + 1: true for its either side;
         * read-from choice r is variable n_c + r + 1: true when taken. */
        int lit = e->cons < 0 ? 0 : (e->side ? -(e->cons + 1) : e->cons + 1);
        int rlit = e->rc ? (int)(S->n_c + e->rc) : 0;
        if (!lit)
            lit = rlit, rlit = 0;
        psi_edge_kind k = psi_edge_is_anti((psi_edge_type)e->e.type) ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
        if (psi_acyc_add_edge(g, e->e.from, e->e.to, k, lit, rlit) < 0)
            goto nomem;
    }
    /* Each read takes at least one of its candidates (taking several only
     * adds edges, so "at most one" needs no clause: a model with several
     * stays one with all but one dropped). */
    int *cl = NULL;
    size_t cap = 0;
    for (uint32_t r = 0; r < S->n_reads; r++) {
        const psi_sub_read *rd = &S->reads[r];
        if (!psi_grow((void **)&cl, &cap, rd->n ? rd->n : 1, sizeof *cl)) {
            free(cl);
            goto nomem;
        }
        for (uint32_t j = 0; j < rd->n; j++)
            cl[j] = (int)(S->n_c + rd->first + j + 1);
        if (psi_sat_add_clause(s, cl, rd->n) < 0) {
            free(cl);
            goto nomem;
        }
    }
    free(cl);
    switch (psi_sat_solve(s)) {
    case PSI_SAT_UNSAT:
        *violation = true;
        break;
    case PSI_SAT_SAT:
        break;
    default:
        goto nomem; /* no time limit is set: only memory can stop it */
    }
    goto out;
nomem:
    st = psi_diag_nomem(d, "solving a sub-history");
out:
    psi_acyc_free(g);
    psi_sat_free(s);
    return st;
}
