/* SI first for the polynomial levels with choice reads (level_lattice.h). */
#include "check/level_lattice.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Seconds of solving SI may take before the search is tried instead: SI
 * decides the repeated-value histories in well under this (bench/levels),
 * and a history it cannot is hard for the search too, which then starts
 * no later than this. */
#define SI_BUDGET 30.0

void psi_level_choices_take(psi_level_choices *c, const uint32_t *hint)
{
    for (uint32_t r = 0; r < c->n_reads; r++) {
        psi_rf_read *rd = &c->reads[r];
        uint32_t j = 0;
        while (j < rd->n && c->cand[rd->first + j] != hint[rd->op])
            j++;
        /* SI's writer is one of the read's candidates, if SI has one: a
         * transaction SI's index left absent has none (its reads stay
         * open, and the transaction absent: level_outcome.h) */
        assert(j < rd->n || hint[rd->op] == PSI_SRC_NONE);
        if (j == rd->n)
            continue; /* open: the search settles it */
        for (uint32_t i = 0; i < rd->n; i++)
            if (i != j && !c->excluded[rd->first + i]) {
                c->excluded[rd->first + i] = 1;
                c->n_excluded++;
            }
        rd->chosen = j;
        rd->left = 1;
        rd->how = PSI_RFC_LATTICE;
    }
}

/* The read-from of SI's accepting model as a writer per read op of h
 * ([n_ops], PSI_SRC_NONE where none): an external read's writer (its
 * model choice when it had one), and for a repeat read the writer of its
 * transaction's first read of the key, which it repeats under SI (one
 * snapshot, no write of its own in between). */
static uint32_t *si_read_from(const psi_history *h, const psi_check_result *si)
{
    const psi_index *idx = &si->idx;
    uint32_t *hint = malloc((h->n_ops ? h->n_ops : 1) * sizeof *hint);
    if (!hint)
        return NULL;
    for (uint32_t o = 0; o < h->n_ops; o++)
        hint[o] = (idx->op_info[o] & PSI_OI_EXTERNAL_READ) ? idx->read_src[o] : PSI_SRC_NONE;
    for (uint32_t a = 0; a < idx->n_amb; a++)
        hint[idx->amb[a].op] = idx->amb_cand[idx->amb[a].first + si->model_choice[a]];
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j;
            if (!(idx->op_info[o] & PSI_OI_REPEAT_READ))
                continue;
            for (uint32_t i = 0; i < j; i++) {
                uint32_t p = tx->first_op + i;
                if (h->ops[p].key == h->ops[o].key && (idx->op_info[p] & PSI_OI_EXTERNAL_READ)) {
                    hint[o] = hint[p];
                    break;
                }
            }
        }
    }
    return hint;
}

/* SI's check of h; on accept with a model, *hint gets its read-from
 * (NULL otherwise: SI rejected, stopped at a limit, or decided without a
 * model). Only running out of memory is an error. */
static psi_status si_first(psi_history *h, const psi_check_opts *opts, uint32_t **hint, psi_diag *d)
{
    psi_check_opts so = *opts;
    so.level = PSI_LEVEL_SI;
    so.ser = false;
    so.keep_model = true;
    so.search_choices = true; /* SI has no choice search: no recursion either way */
    so.on_stage = NULL;
    so.version_order = NULL;
    so.timestamps = NULL;
    /* h goes on with the level's index, which names every operation */
    so.drop_aborted = false;
    so.time_limit =
        opts->time_limit > 0 && opts->time_limit < SI_BUDGET ? opts->time_limit : SI_BUDGET;
    psi_check_result si;
    psi_diag sd;
    /* SI's index may settle unknown outcomes otherwise than the level's
     * (RC and PL-2 allow a non-repeatable read in an optional
     * transaction, SI does not: core/index.h), and the level's index
     * lives on: the statuses are put back as the level's build left them */
    uint8_t *saved = malloc(h->n_txns ? 2 * (size_t)h->n_txns : 1);
    if (!saved)
        return psi_diag_nomem(d, "checking SI first");
    for (uint32_t t = 0; t < h->n_txns; t++) {
        saved[2 * (size_t)t] = h->txns[t].status;
        saved[2 * (size_t)t + 1] = h->txns[t].open_outcome;
    }
    psi_status st = psi_check(h, &so, &si, &sd);
    for (uint32_t t = 0; t < h->n_txns; t++) {
        h->txns[t].status = saved[2 * (size_t)t];
        h->txns[t].open_outcome = saved[2 * (size_t)t + 1];
    }
    free(saved);
    *hint = NULL;
    if (st == PSI_OK && si.verdict == PSI_ACCEPT && (si.model_choice || !si.idx.n_amb)) {
        if (!(*hint = si_read_from(h, &si)))
            st = psi_diag_nomem(d, "taking SI's read-from");
    } else if (st == PSI_ERR_NOMEM) {
        *d = sd;
    } else {
        st = PSI_OK; /* no accept to take: the search decides */
    }
    psi_check_result_free(&si);
    return st;
}

psi_status psi_level_check_lattice(psi_history *h, const psi_check_opts *opts,
                                   psi_check_result *res, psi_diag *d)
{
    const psi_level level = res->level_checked;
    assert(psi_level_is_polynomial(level));
    uint32_t *hint = NULL;
    psi_status st = PSI_OK;
    if (!opts->search_choices && (st = si_first(h, opts, &hint, d)) != PSI_OK)
        return st;
    if (hint) {
        st = psi_level_check_choices(h, &res->idx, level, hint, &res->level, &res->rf, d);
        free(hint);
        if (st != PSI_OK || res->level.accept)
            return st;
        /* SI's read-from and commit order, on the optional transactions
         * SI's read-from needs (the others absent), satisfy every weaker
         * level's axioms: a refusal here is a bug in one of the two
         * checks. With optional transactions the assert is left out: a
         * transaction SI's index found dead may commit at RC and PL-2
         * (index.h), where the search may still find a use for it. Either
         * way the search below decides. */
        assert(res->idx.n_opt || !"the level refuses SI's accepting read-from");
        psi_level_result_free(&res->level);
        psi_level_choices_free(&res->rf);
    }
    return psi_level_check_choices(h, &res->idx, level, NULL, &res->level, &res->rf, d);
}
