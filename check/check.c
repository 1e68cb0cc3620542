/* The check pipeline (see check.h). */
#include "check/check.h"

#include "encode/encode.h"

#include <stdlib.h>
#include <string.h>

typedef struct nth_edge {
    uint64_t left; /* edges still to skip */
    psi_edge edge;
} nth_edge;

static bool pick_nth(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    nth_edge *n = ctx;
    if (n->left--)
        return true;
    n->edge = (psi_edge){.from = from, .to = to, .key = key, .type = (uint8_t)type};
    return false;
}

/* Maps the theory's last conflict cycle (edge ids) to polygraph edges. */
static psi_status map_solver_cycle(const psi_encoding *enc, const psi_polygraph *g,
                                   psi_check_result *res, psi_diag *d)
{
    size_t n = 0;
    const uint32_t *ids = psi_acyc_conflict_cycle(enc->graph, &n);
    if (!n)
        return PSI_OK;
    res->solver_cycle = malloc(n * sizeof *res->solver_cycle);
    if (!res->solver_cycle)
        return psi_diag_nomem(d, "recording a cycle");
    for (size_t i = 0; i < n; i++) {
        bool known, either;
        uint32_t index;
        psi_encoding_edge_origin(enc, g, ids[i], &known, &index, &either);
        if (known) {
            res->solver_cycle[i] = g->known[index];
            continue;
        }
        /* The edge at that position of the side, as psi_constraint_for_each
         * enumerates it (the same order encode/ added them in). */
        const psi_constraint *c = &g->cons[index];
        uint64_t pos = ids[i] - enc->cons_edge[index];
        if (!either)
            pos -= psi_constraint_side_size(g, c, true);
        nth_edge ne = {.left = pos};
        psi_constraint_for_each(g, c, either, pick_nth, &ne);
        res->solver_cycle[i] = ne.edge;
    }
    res->solver_cycle_len = (uint32_t)n;
    return PSI_OK;
}

static void stage(const psi_check_opts *opts, const char *name)
{
    if (opts->on_stage)
        opts->on_stage(opts->stage_ctx, name);
}

static psi_status solve(psi_check_result *res, const psi_check_opts *opts, psi_diag *d)
{
    psi_check_stats *s = &res->stats;
    stage(opts, "encode");
    double t0 = psi_now();
    psi_encoding enc;
    psi_encode_opts eo = {.ser = opts->ser, .no_theory_propagation = opts->no_theory_propagation};
    psi_status st = psi_encode(&res->g, &eo, &enc, d);
    if (st != PSI_OK)
        return st;
    s->vars = enc.n_vars;
    s->theory_edges = enc.n_known_edges + enc.n_constraint_edges;
    double t1 = psi_now();
    s->t_encode = t1 - t0;
    if (opts->time_limit > 0)
        psi_sat_set_time_limit(enc.sat, opts->time_limit);
    stage(opts, "solve");
    int r = psi_sat_solve(enc.sat);
    s->t_solve = psi_now() - t1;
    psi_sat_stats ss;
    psi_sat_get_stats(enc.sat, &ss);
    s->decisions = ss.decisions;
    s->propagations = ss.propagations;
    s->conflicts = ss.conflicts;
    s->restarts = ss.restarts;
    s->learned = ss.learned;
    s->theory_calls = ss.theory_calls;
    s->theory_conflicts = ss.theory_conflicts;
    s->theory_propagations = ss.theory_propagations;
    s->theory_seconds = ss.theory_seconds;
    if (r == PSI_SAT_SAT) {
        res->verdict = PSI_ACCEPT;
        if (opts->keep_model) {
            res->model_either = malloc(res->g.n_cons ? res->g.n_cons : 1);
            if (!res->model_either)
                st = psi_diag_nomem(d, "keeping the model");
            for (uint32_t c = 0; c < res->g.n_cons && res->model_either; c++) {
                int v = enc.cons_var[c];
                res->model_either[c] =
                    v ? psi_sat_value(enc.sat, v) > 0 : res->g.cons[c].state == PSI_C_EITHER;
            }
        }
    } else if (r == PSI_SAT_UNSAT) {
        res->verdict = PSI_REJECT;
        res->reason = PSI_BY_SOLVER;
        st = map_solver_cycle(&enc, &res->g, res, d);
    } else if (r == PSI_SAT_UNKNOWN) {
        st = psi_diag_set(d, PSI_ERR_LIMIT,
                          "time limit of %g s reached in the solve stage; no verdict",
                          opts->time_limit);
    } else {
        st = psi_diag_nomem(d, "solving");
    }
    psi_encoding_free(&enc);
    return st;
}

psi_status psi_check(psi_history *h, const psi_check_opts *opts, psi_check_result *res, psi_diag *d)
{
    static const psi_check_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    memset(res, 0, sizeof *res);
    psi_check_stats *s = &res->stats;
    s->sessions = h->n_sessions;
    s->transactions = h->n_txns - 1;
    s->operations = h->n_ops;

    stage(opts, "validate");
    double t0 = psi_now();
    psi_status st = psi_index_build(h, &res->idx, d);
    s->t_validate = psi_now() - t0;
    if (st != PSI_OK)
        return st;
    s->committed = res->idx.n_committed;
    if (res->idx.n_anomalies) {
        res->verdict = PSI_REJECT;
        res->reason = PSI_BY_ANOMALY;
        return PSI_OK;
    }

    stage(opts, "construct");
    t0 = psi_now();
    /* Without pruning, every writer pair is a constraint, as in the paper;
     * with it, pruning generates only the pairs the known graph leaves
     * unordered. */
    psi_polygraph_opts po = {.no_coalescing = opts->no_coalescing, .all_pairs = opts->no_pruning};
    if ((st = psi_polygraph_build(h, &res->idx, &po, &res->g, d)) != PSI_OK)
        return st;
    /* Nothing after the polygraph looks values up again. */
    psi_index_release_writes(&res->idx);
    s->t_construct = psi_now() - t0;
    s->known_edges_before = res->g.n_known;
    s->constraints_before = res->g.n_writer_pairs;
    s->unknown_deps_before = res->g.n_pair_deps;

    stage(opts, "prune");
    t0 = psi_now();
    psi_prune_opts pro = {.ser = opts->ser, .disabled = opts->no_pruning};
    st = psi_prune(h, &res->g, &pro, &res->prune, d);
    s->t_prune = psi_now() - t0;
    if (st != PSI_OK)
        return st;
    s->prune_rounds = res->prune.rounds;
    s->constraints_generated = opts->no_pruning ? res->g.n_cons : res->prune.seeded;
    s->prune_bytes = res->prune.peak_bytes;
    s->known_edges_after = res->g.n_known;
    s->constraints_after = res->prune.remaining;
    s->unknown_deps_after = res->prune.remaining_unknown_deps;
    if (res->prune.outcome != PSI_PRUNE_OK) {
        res->verdict = PSI_REJECT;
        res->reason =
            res->prune.outcome == PSI_PRUNE_KNOWN_CYCLE ? PSI_BY_KNOWN_CYCLE : PSI_BY_PRUNING;
        return PSI_OK;
    }
    return solve(res, opts, d);
}

void psi_check_result_free(psi_check_result *res)
{
    psi_index_free(&res->idx);
    psi_polygraph_free(&res->g);
    psi_prune_result_free(&res->prune);
    free(res->solver_cycle);
    free(res->model_either);
    memset(res, 0, sizeof *res);
}
