/* Outcome variables of optional transactions in the choice search at the
 * polynomial levels (see level_outcome.h). */
#include "check/level_outcome.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

bool psi_lc_outcome_init(cctx *c)
{
    uint32_t n = c->h->n_txns;
    c->absent = calloc(n ? n : 1, 1);
    c->out_var = calloc(n ? n : 1, sizeof *c->out_var);
    c->tstamp = calloc(n ? n : 1, sizeof *c->tstamp);
    if (!c->absent || !c->out_var || !c->tstamp)
        return false;
    for (uint32_t t = 1; t < n; t++)
        c->absent[t] = psi_index_optional(c->idx, t);
    return true;
}

/* Adds the clause of lits a (and b when nonzero). false: out of memory. */
static bool clause2(psi_sat *s, int a, int b)
{
    int cl[2] = {a, b};
    return psi_sat_add_clause(s, cl, b ? 2 : 1) == 0;
}

bool psi_lc_outcome_vars(cctx *c, psi_sat *s)
{
    const psi_history *h = c->h;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (psi_index_optional(c->idx, t))
            c->out_var[t] = ++c->n_vars;
    c->var_txn = malloc(((size_t)c->n_vars + 1) * sizeof *c->var_txn);
    if (!c->var_txn || psi_sat_reserve(s, c->n_vars) != 0)
        return false;
    for (int v = 0; v <= c->n_vars; v++)
        c->var_txn[v] = NONE;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        int o = c->out_var[t];
        if (!o)
            continue;
        c->var_txn[o] = t;
        /* committed first: the old default, and most are */
        if (psi_sat_observe(s, o) != 0 || psi_sat_set_phase(s, o) != 0)
            return false;
    }
    return true;
}

bool psi_lc_outcome_clauses(cctx *c, psi_sat *s)
{
    const psi_history *h = c->h;
    const psi_level_choices *out = c->out;
    /* choice reads: a chosen writer and its reader commit; a read with no
     * candidate left keeps its reader absent */
    for (uint32_t r = 0; r < out->n_reads; r++) {
        const psi_rf_read *rd = &out->reads[r];
        int ot = c->out_var[rd->txn];
        if (rd->how == PSI_RFC_NO_WRITER) {
            assert(ot); /* a committed reader's: the history is rejected before */
            if (!clause2(s, -ot, 0))
                return false;
            continue;
        }
        if (rd->how != PSI_RFC_OPEN)
            continue;
        for (uint32_t j = 0; j < rd->n; j++) {
            int x = c->var[rd->first + j];
            int ow = c->out_var[psi_lc_cand_txn(c, out->cand[rd->first + j])];
            if (x && ((ow && !clause2(s, -x, ow)) || (ot && !clause2(s, -x, ot))))
                return false;
        }
    }
    /* fixed reads (open ones have no writer in the view yet) */
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (!psi_lc_committed(h, t))
            continue;
        const psi_txn *tx = &h->txns[t];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t w = psi_lc_view_src_txn(c, tx->first_op + j);
            if (w == NONE || w == t || w == PSI_INIT_TXN || !c->out_var[w])
                continue;
            int ot = c->out_var[t];
            if (!clause2(s, c->out_var[w], ot ? -ot : 0))
                return false;
        }
    }
    return true;
}

void psi_lc_outcome_take(cctx *c, psi_sat *s)
{
    for (uint32_t t = 1; t < c->h->n_txns; t++)
        if (c->out_var[t])
            c->absent[t] = psi_sat_value(s, c->out_var[t]) <= 0;
}

void psi_lc_outcome_closure(cctx *c)
{
    const psi_history *h = c->h;
    for (uint32_t t = 1; t < h->n_txns; t++)
        c->absent[t] = psi_index_optional(c->idx, t);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t t = 1; t < h->n_txns; t++) {
            if (!psi_lc_committed(h, t) || c->absent[t])
                continue;
            const psi_txn *tx = &h->txns[t];
            for (uint32_t j = 0; j < tx->n_ops; j++) {
                uint32_t w = psi_lc_view_src_txn(c, tx->first_op + j);
                if (w != NONE && w != PSI_INIT_TXN && c->absent[w]) {
                    c->absent[w] = 0;
                    changed = true;
                }
            }
        }
    }
}
