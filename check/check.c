/* The check pipeline (see check.h). */
#include "check/check.h"

#include "check/complete_pass.h"
#include "check/known_only.h"
#include "check/lazy_rf.h"
#include "check/level_lattice.h"
#include "check/level_psi.h"
#include "check/realtime.h"
#include "check/restricted.h"
#include "core/memuse.h"
#include "encode/encode.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* PSI_CHECK builds run PSI's per-model refinement after the eager
 * theory's models too, and assert that it finds nothing: the check of the
 * theory's completeness that release builds rely on (solve below). */
#ifdef PSI_CHECK
#define REFINE_EAGER true
#else
#define REFINE_EAGER false
#endif

/* "...; refused under --isolation rc": the message names the level. */
static void append_level(psi_diag *d, psi_level l)
{
    if (!d)
        return;
    size_t n = strlen(d->msg);
    snprintf(d->msg + n, sizeof d->msg - n, " (refused under isolation level %s)",
             psi_level_name(l));
}

static void stage(const psi_check_opts *opts, const char *name)
{
    if (opts->on_stage)
        opts->on_stage(opts->stage_ctx, name);
}

const char *psi_mem_stage_name(psi_mem_stage s)
{
    static const char *const names[PSI_MEM_STAGES] = {"load",  "validate", "construct",
                                                      "prune", "encode",   "solve"};
    return s < PSI_MEM_STAGES ? names[s] : "?";
}

const char *psi_lazy_outcome_name(psi_lazy_outcome o)
{
    static const char *const names[] = {"accept", "unsatisfiable", "gave up"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

const char *psi_restricted_outcome_name(psi_restricted_outcome o)
{
    static const char *const names[] = {"accept", "no model", "gave up", "too wide"};
    return (unsigned)o < sizeof names / sizeof names[0] ? names[o] : "?";
}

/* The memory figures of stage m, taken as it ends. */
static void mem_after(psi_check_stats *s, psi_mem_stage m)
{
    s->mem_now[m] = psi_mem_resident();
    /* The kernel updates the peak lazily; the resident set now is a lower
     * bound of it. */
    uint64_t peak = psi_mem_peak();
    s->mem_peak[m] = peak > s->mem_now[m] ? peak : s->mem_now[m];
}

/* The solver's progress hook, as a "solve" event. */
static void solve_progress(void *ctx, uint64_t conflicts)
{
    const psi_check_opts *opts = ctx;
    psi_progress_report(&opts->progress, "solve", 0, 0, conflicts);
}

/* Encodes and solves res->g. conflicts >= 0 bounds the solver (the
 * restricted problem's budget): reaching it sets *gave_up and leaves the
 * verdict unset, which is no error; < 0: no bound (gave_up may be NULL). */
static psi_status solve(const psi_history *h, psi_check_result *res, const psi_check_opts *opts,
                        int64_t conflicts, bool *gave_up, psi_diag *d)
{
    psi_check_stats *s = &res->stats;
    stage(opts, "encode");
    double t0 = psi_cpu_now();
    psi_encoding enc;
    psi_level l = psi_level_base(res->level_checked);
    psi_encode_opts eo = {.ser = l == PSI_LEVEL_SER,
                          .pc = l == PSI_LEVEL_PC,
                          .psi = l == PSI_LEVEL_PSI,
                          .no_theory_propagation = opts->no_theory_propagation,
                          .pc_kept = res->prune.pc_kept,
                          .n_pc_kept = res->prune.n_pc_kept,
                          .pc_kept_of = res->prune.pc_kept_of,
                          .psi_rw_drop = res->prune.psi_rw_drop,
                          .psi_rw_drop_of = res->prune.psi_rw_drop_of,
                          /* only the restricted problem's search is bounded */
                          .stable_only = conflicts >= 0};
    psi_status st = psi_encode(&res->g, &eo, &enc, d);
    if (st != PSI_OK)
        return st;
    s->vars = enc.n_vars;
    s->theory_edges = enc.n_known_edges + enc.n_constraint_edges;
    double t1 = psi_cpu_now();
    s->t_encode = t1 - t0;
    mem_after(s, PSI_MEM_ENCODE);
    if (opts->time_limit > 0)
        psi_sat_set_time_limit(enc.sat, opts->time_limit);
    if (conflicts >= 0)
        psi_sat_set_conflict_limit(enc.sat, conflicts);
    if (opts->progress.fn)
        psi_sat_set_progress(enc.sat, solve_progress, (void *)opts);
    stage(opts, "solve");
    /* PSI's refinement adds clauses after each model: resume from its
     * trail instead of re-deciding every selector (sat.h) */
    if (eo.psi) {
        psi_sat_set_resume(enc.sat, 1);
        if (opts->psi_refine_only)
            psi_acyc_set_psi_eager(enc.graph, false);
    }
    int r = psi_sat_solve(enc.sat);
    /* PSI: refine until a model has no forbidden cycle (level_psi.h).
     * With the theory eager (the default) its SAT answers have none
     * (acyclic.h: every one-RW cycle is a conflict when its last edge goes
     * in), so the model is a PSI model as it stands and the per-model pass
     * over all theory edges (GeneralWH: ~68k, about 1 % of the check)
     * would find nothing; PSI_CHECK builds still run it and assert that. */
    bool refine = REFINE_EAGER || opts->psi_refine_only;
    while (r == PSI_SAT_SAT && eo.psi) {
        uint32_t added = 0;
        psi_edge *cyc = NULL;
        uint32_t cyc_len = 0;
        if (!refine) {
            s->psi_models++;
            break;
        }
        if ((st = psi_psi_refine(h, &enc, &added, &cyc, &cyc_len, d)) != PSI_OK) {
            psi_encoding_free(&enc);
            return st;
        }
        /* the eager theory leaves the refinement nothing (acyclic.h) */
        assert(opts->psi_refine_only || (!added && !cyc));
        if (cyc) {
            res->solver_cycle = cyc;
            res->solver_cycle_len = cyc_len;
            r = PSI_SAT_UNSAT;
            break;
        }
        s->psi_models++;
        s->psi_clauses += added;
        if (!added)
            break;
        r = psi_sat_solve(enc.sat);
    }
    s->t_solve = psi_cpu_now() - t1;
    mem_after(s, PSI_MEM_SOLVE);
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
    /* The solver's estimate of the theory's CPU time (sat.h), in the same
     * clock as the stage; an estimate may exceed the stage it is part of,
     * which it never really does. */
    s->theory_seconds = ss.theory_seconds < s->t_solve ? ss.theory_seconds : s->t_solve;
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
            const psi_index *idx = &res->idx;
            if (st == PSI_OK && idx->n_amb) {
                res->model_choice = malloc(idx->n_amb * sizeof *res->model_choice);
                if (!res->model_choice)
                    st = psi_diag_nomem(d, "keeping the model");
                for (uint32_t a = 0; a < idx->n_amb && res->model_choice; a++) {
                    /* The first candidate the model (or pruning) took. */
                    uint32_t j = 0;
                    const uint8_t *cs = res->g.choice_state + idx->amb[a].first;
                    while (
                        j + 1 < idx->amb[a].n && cs[j] != PSI_CH_FORCED &&
                        (cs[j] == PSI_CH_EXCLUDED ||
                         psi_sat_value(enc.sat, psi_encoding_choice_var(
                                                    &enc, (uint32_t)(idx->amb[a].first + j))) <= 0))
                        j++;
                    res->model_choice[a] = j;
                }
                if (res->model_choice)
                    st = psi_encoding_model_choice_edges(&enc, &res->model_choice_edges,
                                                         &res->n_model_choice_edges, d);
            }
        }
    } else if (r == PSI_SAT_UNSAT) {
        res->verdict = PSI_REJECT;
        res->reason = PSI_BY_SOLVER;
        if (!res->solver_cycle)
            st = psi_encoding_conflict_cycle(&enc, &res->g, &res->solver_cycle,
                                             &res->solver_cycle_len, d);
    } else if (r == PSI_SAT_UNKNOWN && conflicts >= 0) {
        *gave_up = true;
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

/* Pruning's outcome (psi_prune, or psi_known_only) into the statistics;
 * a forbidden cycle it found is the verdict: true then. */
static bool pruned_reject(psi_check_result *res, const psi_check_opts *opts)
{
    psi_check_stats *s = &res->stats;
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
        return true;
    }
    return false;
}

/* A version order and timestamps must agree: a writer's version comes
 * after another's iff it commits later (SI's first committer wins; SER's
 * commit order is the serial order). Two files that disagree are bad
 * input, named by both lines. */
static psi_status hints_agree(const psi_hints *hs, const psi_ts_info *ts, psi_diag *d)
{
    for (uint64_t i = 0; i < hs->n; i++) {
        const psi_hint_edge *e = &hs->e[i];
        if (e->from == PSI_INIT_TXN || !ts->line[e->from] || !ts->line[e->to] ||
            ts->commit[e->from] < ts->commit[e->to])
            continue;
        return psi_diag_line(d, PSI_ERR_INPUT, hs->file, e->line, 1,
                             "the version order disagrees with %s:%llu and %s:%llu: the later "
                             "version commits first",
                             ts->file, (unsigned long long)ts->line[e->to], ts->file,
                             (unsigned long long)ts->line[e->from]);
    }
    return PSI_OK;
}

/* The history's own timestamps (EDN/JSON :start-ts, :commit-ts) in the
 * form --timestamps gives them, for its committed transactions: lines are
 * the transactions' lines in the history. *e is the caller's to free;
 * out->n == 0 when there are none. */
static psi_status own_timestamps(const psi_history *h, psi_timestamps *out, psi_hint_ts **e,
                                 psi_diag *d)
{
    *out = (psi_timestamps){.name = h->source};
    *e = NULL;
    if (!h->ts)
        return PSI_OK;
    size_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        n += h->ts[t].has && h->txns[t].status == PSI_TXN_COMMITTED;
    if (!n)
        return PSI_OK;
    if (!(*e = malloc(n * sizeof **e)))
        return psi_diag_nomem(d, "reading the history's timestamps");
    n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->ts[t].has && h->txns[t].status == PSI_TXN_COMMITTED)
            (*e)[n++] = (psi_hint_ts){.sid = h->sessions[h->txns[t].session].id,
                                      .tid = h->txns[t].id,
                                      .start = h->ts[t].start,
                                      .commit = h->ts[t].commit,
                                      .line = h->txns[t].src};
    out->e = *e;
    out->n = n;
    return PSI_OK;
}

/* The prune stage of res->g at level lv (the usual path's and each
 * restricted attempt's), timed and with its memory recorded. */
static psi_status prune_stage(const psi_history *h, psi_check_result *res,
                              const psi_check_opts *opts, psi_level lv, psi_diag *d)
{
    stage(opts, "prune");
    double t0 = psi_cpu_now();
    psi_prune_opts pro = {.ser = lv == PSI_LEVEL_SER,
                          .dep_only = lv == PSI_LEVEL_PC || lv == PSI_LEVEL_PSI,
                          .psi = lv == PSI_LEVEL_PSI,
                          .pc = lv == PSI_LEVEL_PC,
                          .disabled = opts->no_pruning,
                          .exact = opts->exact_pruning,
                          .threads = opts->threads,
                          .stop_cells = opts->prune_stop_cells,
                          .probe_choices = opts->prune_probe_choices,
                          .stop_open = opts->prune_stop_open,
                          .progress = &opts->progress};
    psi_status st = psi_prune(h, &res->g, &pro, &res->prune, d);
    res->stats.t_prune = psi_cpu_now() - t0;
    mem_after(&res->stats, PSI_MEM_PRUNE);
    return st;
}

/* Read-from candidates from which the restricted problem is tried first
 * by default (SI): about where seeding keeps most writer pairs and the
 * usual path runs out of memory (bench/README, "s30, i17x": 10^5 transactions
 * with values 1..4 have 36.2 M, values 1..16 9.4 M). */
#define RESTRICTED_CHOICES (UINT64_C(1) << 24)
/* Writer pairs an attempt may leave open for seeding (an upper bound,
 * psi_restricted_open_pairs): past it the window is too wide to pay. */
#define RESTRICTED_MAX_PAIRS (UINT64_C(1) << 23)
/* The solver's conflicts per attempt, in stable mode (encode.h,
 * stable_only): 10^5 transactions with values 1..4 at W = 600 need 19,679
 * (2.5 s of search; bench/README, s30, i17s). */
#define RESTRICTED_CONFLICTS (1u << 16)
/* Rounds of the estimate (restricted.h): 10k values 1..4, rank error mean
 * / p90 / max 113 / 255 / 497 from positions, 53 / 112 / 332 after 64
 * rounds; 100k: 403 / 832 / 1,952, 61 / 125 / 584 (bench/README). */
#define RESTRICTED_ROUNDS 64
/* Each transaction's span grows by this many times its uncertainty
 * (psi_restricted_estimate's unc): with 0.5, 100k values 1..4 SI has a
 * model of the restriction at W = 600 (pruning rejects 300), where one
 * window for all needs 1,000; 10k values 1..4 still has one at 600
 * (bench/README, s30, i17z). */
#define RESTRICTED_UNC 0.5
/* Attempts: the window, then twice it. */
#define RESTRICTED_ATTEMPTS 2

/* The default window: a few times the estimate's error, which grows
 * with the history (above: p99 177 at 10^4 transactions, 229 at 10^5);
 * 10k values 1..4 has a model from 600 on. */
static double restricted_window(const psi_history *h, const psi_check_opts *opts)
{
    if (opts->restricted_window)
        return opts->restricted_window;
    return 6.0 * sqrt((double)h->n_txns);
}

/* Whether the restricted problem is tried first (check.h restricted):
 * SI or SER exactly with read-from choices, nothing ordered already. */
static bool restricted_wanted(const psi_history *h, const psi_check_result *res,
                              const psi_check_opts *opts, bool ordered)
{
    if (opts->restricted == PSI_RESTRICTED_OFF || ordered || opts->version_order ||
        opts->no_pruning ||
        (res->level_checked != PSI_LEVEL_SI && res->level_checked != PSI_LEVEL_SER) ||
        !psi_restricted_applies(h, &res->idx))
        return false;
    /* By default SI only: SER's pruning rejects the SI-store histories it
     * is measured on by itself (100k values 1..4: 36 s), and the attempts
     * only added their 15 s to that (bench/README, s30) */
    return opts->restricted == PSI_RESTRICTED_ON ||
           (res->level_checked == PSI_LEVEL_SI && res->idx.n_amb_cand >= RESTRICTED_CHOICES);
}

/* The accepted restricted check rr into res: its polygraph, pruning and
 * model, with the model's choices in the history's own numbering. */
static psi_status take_restricted(psi_check_result *res, psi_check_result *rr, psi_diag *d)
{
    psi_status st = PSI_OK;
    if (rr->model_choice)
        st = psi_restricted_choices_back(&res->idx, &rr->idx, rr->model_choice, &res->model_choice,
                                         d);
    if (st != PSI_OK)
        return st;
    psi_restricted_stats keep = res->stats.restricted;
    res->stats = rr->stats;
    res->stats.restricted = keep;
    res->stats.restricted_outcome = PSI_RESTRICTED_ACCEPT;
    res->g = rr->g;
    res->cut_idx = rr->idx;
    res->prune = rr->prune;
    res->model_either = rr->model_either;
    res->model_choice_edges = rr->model_choice_edges;
    res->n_model_choice_edges = rr->n_model_choice_edges;
    res->verdict = PSI_ACCEPT;
    res->reason = PSI_BY_NOTHING;
    memset(&rr->g, 0, sizeof rr->g);
    memset(&rr->idx, 0, sizeof rr->idx);
    memset(&rr->prune, 0, sizeof rr->prune);
    rr->model_either = NULL;
    rr->model_choice_edges = NULL;
    return PSI_OK;
}

/* One attempt at window w: the restricted index, the polygraph with the
 * estimate's edges, pruning and a budgeted solve, in a result of its own
 * (res->idx stays the history's). *accepted when it has a model. */
static psi_status restricted_attempt(const psi_history *h, psi_check_result *res,
                                     const psi_check_opts *opts, const double *lo, const double *hi,
                                     double w, bool *accepted, psi_diag *d)
{
    psi_check_stats *s = &res->stats;
    psi_restricted_stats *rs = &s->restricted;
    rs->attempts++;
    rs->window = (uint32_t)w;
    psi_status st = psi_restricted_open_pairs(h, &res->idx, lo, hi, &rs->open_pairs, d);
    if (st != PSI_OK)
        return st;
    if (rs->open_pairs > RESTRICTED_MAX_PAIRS) {
        s->restricted_outcome = PSI_RESTRICTED_TOO_BIG;
        return PSI_OK;
    }
    psi_check_result rr;
    memset(&rr, 0, sizeof rr);
    rr.level_checked = res->level_checked;
    rr.stats = *s;
    psi_restricted_cut cut;
    stage(opts, "construct");
    double t0 = psi_cpu_now();
    if ((st = psi_restricted_index(h, &res->idx, lo, hi, &rr.idx, &cut, d)) != PSI_OK)
        goto out;
    rs->choices_before = cut.choices_before;
    rs->choices_after = cut.choices_after;
    rs->reads_before = cut.reads_before;
    rs->reads_after = cut.reads_after;
    psi_polygraph_opts po = {.no_coalescing = opts->no_coalescing};
    if ((st = psi_polygraph_build(h, &rr.idx, &po, &rr.g, d)) != PSI_OK ||
        (st = psi_restricted_skeleton(h, lo, hi, &rr.g, &rs->skeleton_edges, d)) != PSI_OK)
        goto out;
    psi_index_release_writes(&rr.idx);
    rr.stats.t_construct = psi_cpu_now() - t0;
    mem_after(&rr.stats, PSI_MEM_CONSTRUCT);
    rr.stats.known_edges_before = rr.g.n_known;
    rr.stats.constraints_before = rr.g.n_writer_pairs;
    rr.stats.unknown_deps_before = rr.g.n_pair_deps;
    if ((st = prune_stage(h, &rr, opts, psi_level_base(res->level_checked), d)) != PSI_OK)
        goto out;
    if (pruned_reject(&rr, opts)) {
        s->restricted_outcome = PSI_RESTRICTED_REJECT;
        goto out;
    }
    bool gave_up = false;
    int64_t budget = opts->restricted_conflicts ? opts->restricted_conflicts : RESTRICTED_CONFLICTS;
    if ((st = solve(h, &rr, opts, budget, &gave_up, d)) != PSI_OK)
        goto out;
    if (gave_up) {
        s->restricted_outcome = PSI_RESTRICTED_GAVE_UP;
    } else if (rr.verdict == PSI_ACCEPT) {
        *accepted = true;
        st = take_restricted(res, &rr, d);
    } else {
        s->restricted_outcome = PSI_RESTRICTED_REJECT;
    }
out:
    psi_check_result_free(&rr);
    return st;
}

/* The restricted problem, at most RESTRICTED_ATTEMPTS windows: *accepted
 * when one has a model (res then holds its check). */
static psi_status restricted_first(const psi_history *h, psi_check_result *res,
                                   const psi_check_opts *opts, bool *accepted, psi_diag *d)
{
    double t0 = psi_cpu_now();
    *accepted = false;
    res->stats.restricted_ran = true;
    /* est, unc (then each span's widening beyond w / 2), lo, hi: [n_txns]
     * each, in one block */
    double *est = malloc((size_t)h->n_txns * 4 * sizeof *est);
    if (!est)
        return psi_diag_nomem(d, "estimating the transactions' times");
    double *wid = est + h->n_txns, *lo = wid + h->n_txns, *hi = lo + h->n_txns;
    psi_status st = psi_restricted_estimate(h, &res->idx, RESTRICTED_ROUNDS, est, wid, d);
    for (uint32_t t = 0; t < h->n_txns; t++)
        wid[t] *= RESTRICTED_UNC;
    double w = restricted_window(h, opts);
    for (int i = 0; i < RESTRICTED_ATTEMPTS && st == PSI_OK && !*accepted; i++, w *= 2) {
        psi_restricted_spans(h, est, wid, w, lo, hi);
        st = restricted_attempt(h, res, opts, lo, hi, w, accepted, d);
        if (res->stats.restricted_outcome == PSI_RESTRICTED_TOO_BIG)
            break; /* a wider window leaves even more open */
    }
    free(est);
    res->stats.restricted.t = psi_cpu_now() - t0;
    return st;
}

/* Writer pairs from which the lazy check runs first (psi_check_opts.
 * lazy_pairs): by default never. Measured (bench/README, "s29, i17v"):
 * the solver re-decides every choice variable after each conflict, so
 * the search does not yet pay where seeding fails (10^5 transactions
 * with values 1..4: 63 M writer pairs); the path is exact and tested,
 * and opt-in (--lazy-pairs) until it does. */
#define LAZY_PAIRS UINT64_MAX

/* Whether the lazy check (lazy_rf.h) runs first: SI or SER exactly (no
 * real time, timestamps, version order or witness wanted), reads with a
 * choice of writers, and at least opts->lazy_pairs writer pairs. */
static bool lazy_wanted(const psi_history *h, const psi_check_result *res,
                        const psi_check_opts *opts, bool ordered)
{
    uint64_t bound = opts->lazy_pairs ? opts->lazy_pairs : LAZY_PAIRS;
    if (bound == UINT64_MAX || ordered || opts->version_order || opts->keep_model ||
        opts->no_pruning ||
        (res->level_checked != PSI_LEVEL_SI && res->level_checked != PSI_LEVEL_SER) ||
        !psi_lazy_applies(h, &res->idx))
        return false;
    const psi_index *idx = &res->idx;
    uint32_t *cnt = calloc(h->n_keys ? h->n_keys : 1, sizeof *cnt);
    if (!cnt)
        return false; /* the usual path says so */
    uint64_t pairs = 0;
    for (uint32_t o = 0; o < h->n_ops; o++)
        if ((idx->op_info[o] & PSI_OI_LIVE) && (idx->op_info[o] & PSI_OI_FINAL_WRITE) &&
            h->ops[o].kind == PSI_OP_WRITE)
            pairs += cnt[h->ops[o].key]++; /* pairs with the key's writers so far */
    free(cnt);
    return pairs >= bound;
}

psi_status psi_check(psi_history *h, const psi_check_opts *opts, psi_check_result *res, psi_diag *d)
{
    static const psi_check_opts defaults = {0};
    if (!opts)
        opts = &defaults;
    memset(res, 0, sizeof *res);
    res->level_checked = psi_level_of(opts->ser, opts->level);
    /* strict-ser and strong-si are SER and SI with real-time edges; the
     * strong-session levels are SER and SI (level.h). */
    const psi_level base = psi_level_base(res->level_checked);
    const bool ser = base == PSI_LEVEL_SER;
    const bool realtime = psi_level_realtime(res->level_checked);
    psi_check_stats *s = &res->stats;
    if (realtime && !h->rt) {
        psi_status e = psi_diag_set(
            d, PSI_ERR_INPUT,
            "%s: the history carries no real time (%s), which %s needs: only EDN and JSON "
            "histories with :invoke and completion ops of a :process do",
            h->source,
            psi_format_is_jepsen(h->format) ? "no :invoke of a :process" : "its format has none",
            psi_level_name(res->level_checked));
        return e;
    }
    /* Chains resolved for a history (interpret/hint_file.h) index its
     * transactions: only that history can take them. */
    if (opts->version_order && opts->version_order->named_in && opts->version_order->named_in != h)
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "the version order was read for another history than %s",
                            h->source ? h->source : "this one");
    s->sessions = h->n_sessions;
    s->transactions = h->n_txns - 1;
    s->operations = h->n_ops;

    mem_after(s, PSI_MEM_LOAD);
    stage(opts, "validate");
    double t0 = psi_cpu_now();
    uint32_t init_txn;
    psi_status st = psi_index_mark_initial(h, &opts->init, &init_txn, d);
    if (st != PSI_OK)
        return st;
    st = base == PSI_LEVEL_RC || base == PSI_LEVEL_PL2 ? psi_index_build_per_read(h, &res->idx, d)
                                                       : psi_index_build(h, &res->idx, d);
    s->t_validate = psi_cpu_now() - t0;
    mem_after(s, PSI_MEM_VALIDATE);
    if (st != PSI_OK) {
        /* Say which level refused the input. */
        if (st == PSI_ERR_INPUT && res->level_checked != PSI_LEVEL_SI)
            append_level(d, res->level_checked);
        return st;
    }
    s->committed = res->idx.n_committed;
    /* RC and PL-2 are per read: a transaction's two reads of a key may see
     * two committed writers (a non-repeatable read); the level's graph
     * then checks each read on its own. Every other level rejects it. */
    if (base == PSI_LEVEL_RC || base == PSI_LEVEL_PL2)
        psi_index_allow_nonrepeatable(&res->idx);
    if (res->idx.n_anomalies) {
        res->verdict = PSI_REJECT;
        res->reason = PSI_BY_ANOMALY;
        return PSI_OK;
    }
    /* Timestamps are replayed or constrained under SI's or SER's rules,
     * which forbid more than PC and PSI: there they would refuse valid
     * histories. A version order is a fact of the history at every level
     * that uses the polygraph. */
    if ((res->level_checked == PSI_LEVEL_PC || res->level_checked == PSI_LEVEL_PSI) &&
        opts->timestamps) {
        psi_status e = psi_diag_set(d, PSI_ERR_USAGE, "--timestamps is used by si and ser only");
        append_level(d, res->level_checked);
        return e;
    }
    if (psi_level_is_polynomial(res->level_checked) && opts->timestamps) {
        psi_status e = psi_diag_set(d, PSI_ERR_USAGE,
                                    "--timestamps: ordering information is used by si "
                                    "and ser only");
        append_level(d, res->level_checked);
        return e;
    }
    if (psi_level_is_polynomial(res->level_checked)) {
        /* No polygraph: the level's own graph (check/level_poly.c), timed
         * as the construct stage. */
        stage(opts, "construct");
        t0 = psi_cpu_now();
        /* A read with a choice of writers (a value written twice, or 0
         * written besides the initial state) makes the level a search
         * over the choices (level_choice.h); without one it is the
         * level's polynomial check alone. */
        bool search = psi_level_choice_reads(h, &res->idx, res->level_checked) || res->idx.n_opt;
        if (opts->version_order && search) {
            /* the searches do not take the order's edges (yet) */
            st = psi_diag_set(d, PSI_ERR_USAGE,
                              "--version-order: not with reads that have a choice of writers "
                              "(a value written twice) or transactions of unknown outcome");
            append_level(d, res->level_checked);
            return st;
        }
        /* A version order's pairs are facts of the commit order at these
         * levels too (level.h): resolved against the index (bad input is
         * PSI_ERR_INPUT naming the line), then edges of the level's graph. */
        if (opts->version_order && (st = psi_hints_resolve_index(h, &res->idx, opts->version_order,
                                                                 &res->hints, d)) != PSI_OK)
            return st;
        if (search)
            st = psi_level_check_lattice(h, opts, res, d); /* SI's read-from first */
        else
            st =
                psi_level_check_hinted(h, &res->idx, NULL, opts->version_order ? &res->hints : NULL,
                                       res->level_checked, &res->level, d);
        s->t_construct = psi_cpu_now() - t0;
        mem_after(s, PSI_MEM_CONSTRUCT);
        s->known_edges_after = res->level.forced_edges;
        if (st != PSI_OK)
            return st;
        res->verdict = res->level.accept ? PSI_ACCEPT : PSI_REJECT;
        res->reason = res->level.accept ? PSI_BY_NOTHING : PSI_BY_LEVEL;
        return PSI_OK;
    }

    /* The polygraph's levels from here on: aborted attempts have had
     * their say (G1a), and their operations go with the write map. */
    if (opts->drop_aborted) {
        t0 = psi_cpu_now();
        st = psi_index_drop_aborted(h, &res->idx, &s->dropped_ops, d);
        s->t_validate += psi_cpu_now() - t0;
        if (st != PSI_OK)
            return st;
        mem_after(s, PSI_MEM_VALIDATE); /* what validation leaves */
    }

    /* --timestamps, else the history's own (SI and SER based levels only:
     * elsewhere they are not used, as --timestamps is refused). */
    const psi_timestamps *tsp = opts->timestamps;
    psi_timestamps own;
    if (!tsp && h->ts && (base == PSI_LEVEL_SI || base == PSI_LEVEL_SER)) {
        psi_hint_ts *e;
        if ((st = own_timestamps(h, &own, &e, d)) != PSI_OK)
            return st;
        if (own.n) {
            /* resolving copies what the check keeps */
            st = psi_ts_resolve(h, &res->idx, &own, &res->ts, d);
            free(e);
            own.e = NULL; /* only its presence is used from here on */
            if (st != PSI_OK)
                return st;
            tsp = &own;
        }
    } else if (tsp) {
        st = psi_ts_resolve(h, &res->idx, tsp, &res->ts, d);
        if (st != PSI_OK)
            return st;
    }
    if (tsp) {
        if (!opts->version_order && !realtime && psi_ts_can_replay(h, &res->ts, ser)) {
            /* Complete timestamps: the replay decides, no polygraph (under
             * real time the polygraph carries both). */
            stage(opts, "construct");
            t0 = psi_cpu_now();
            st = psi_ts_replay(h, &res->idx, &res->ts, ser, &res->ts_violation, d);
            s->t_construct = psi_cpu_now() - t0;
            mem_after(s, PSI_MEM_CONSTRUCT);
            res->ts.replayed = true;
            if (st != PSI_OK)
                return st;
            res->verdict = res->ts_violation.kind ? PSI_REJECT : PSI_ACCEPT;
            res->reason = res->ts_violation.kind ? PSI_BY_TIMESTAMPS : PSI_BY_NOTHING;
            return PSI_OK;
        }
    }
    stage(opts, "construct");
    t0 = psi_cpu_now();
    /* A complete version order: one pass over the history decides
     * without the polygraph (complete_pass.h), an accept, or a reject with
     * the cycle it found (its WW edges' lines from the order file). A
     * cycle the pass cannot stand for goes on below, and so does a
     * witness (it is built from the polygraph). */
    if (opts->version_order && !realtime && !tsp && (base == PSI_LEVEL_SI || ser) &&
        !opts->keep_model && !opts->no_pruning) {
        bool taken, acyclic;
        psi_complete_counts cc;
        psi_edge *cyc;
        uint32_t cyc_len;
        st = psi_complete_pass(h, &res->idx, opts->version_order, ser, &taken, &acyclic, &cc, &cyc,
                               &cyc_len, d);
        if (st != PSI_OK)
            return st;
        if (taken && (acyclic || cyc_len)) {
            if (!acyclic) {
                /* the reject psi_known_only would give: its known cycle,
                 * the hints it names, no rounds */
                res->prune.outcome = PSI_PRUNE_KNOWN_CYCLE;
                res->prune.cycle[0] = cyc;
                res->prune.cycle_len[0] = cyc_len;
                st = psi_hints_of_cycle(h, &res->idx, opts->version_order, cyc, cyc_len,
                                        &res->hints, d);
                if (st != PSI_OK)
                    return st;
            }
            s->t_construct = psi_cpu_now() - t0;
            mem_after(s, PSI_MEM_CONSTRUCT);
            s->known_edges_before = cc.known_before;
            s->known_edges_after = cc.known_after;
            s->constraints_before = cc.writer_pairs;
            s->unknown_deps_before = cc.pair_deps;
            res->verdict = acyclic ? PSI_ACCEPT : PSI_REJECT;
            res->reason = acyclic ? PSI_BY_NOTHING : PSI_BY_KNOWN_CYCLE;
            return PSI_OK;
        }
        free(cyc);
    }
    /* Read-from choices with so many candidates that seeding would keep
     * most writer pairs: the restricted problem first (restricted.h). */
    if (restricted_wanted(h, res, opts, realtime || tsp)) {
        bool accepted;
        if ((st = restricted_first(h, res, opts, &accepted, d)) != PSI_OK)
            return st;
        if (accepted) {
            /* the attempts' construct stages, the estimate and any
             * attempt given up count as construct */
            s->t_construct = s->restricted.t - s->t_prune - s->t_encode - s->t_solve;
            return PSI_OK;
        }
        t0 = psi_cpu_now();
    }
    /* Read-from choices on keys with so many writers that seeding would
     * keep most of their pairs: the lazy check first (lazy_rf.h). */
    if (lazy_wanted(h, res, opts, realtime || tsp)) {
        psi_lazy_opts lo = {.ser = ser};
        psi_lazy_outcome out;
        s->lazy_ran = true;
        st = psi_lazy_check(h, &res->idx, &lo, &out, &s->lazy, d);
        s->lazy_outcome = (uint8_t)out;
        s->t_construct = psi_cpu_now() - t0;
        s->t_solve = s->lazy.t_solve;
        s->decisions = s->lazy.decisions;
        s->conflicts = s->lazy.conflicts;
        mem_after(s, PSI_MEM_SOLVE);
        if (st != PSI_OK)
            return st;
        if (out == PSI_LAZY_ACCEPT) {
            res->verdict = PSI_ACCEPT;
            res->reason = PSI_BY_NOTHING;
            return PSI_OK;
        }
        t0 = psi_cpu_now();
    }
    /* Without pruning, every writer pair is a constraint, as in the paper;
     * with it, pruning generates only the pairs the known graph leaves
     * unordered. */
    psi_polygraph_opts po = {.no_coalescing = opts->no_coalescing, .all_pairs = opts->no_pruning};
    if ((st = psi_polygraph_build(h, &res->idx, &po, &res->g, d)) != PSI_OK)
        return st;
    /* Real time: known DEP edges, before pruning like any fact. */
    if (realtime) {
        uint64_t n_rt;
        if ((st = psi_rt_constrain(h, &res->g, &n_rt, d)) != PSI_OK)
            return st;
    }
    /* Known version orders are known WW edges before pruning: seeding
     * then derives the RW edges they force, as for any ordered pair. A
     * complete one is decided and checked in one pass (known_only.h); a
     * reject goes the general way again, for its counterexample's lines. */
    bool complete = false;
    uint64_t known_before = 0;
    if (opts->version_order && !realtime && !tsp && (base == PSI_LEVEL_SI || ser) &&
        (st = psi_known_complete(h, &res->g, opts->version_order, ser, &complete, &known_before,
                                 &res->hints, &res->prune, d)) != PSI_OK)
        return st;
    if (complete && res->prune.outcome != PSI_PRUNE_OK) {
        complete = false;
        psi_prune_result_free(&res->prune);
        psi_hints_free(&res->hints);
        psi_polygraph_free(&res->g);
        if ((st = psi_polygraph_build(h, &res->idx, &po, &res->g, d)) != PSI_OK)
            return st;
    }
    if (opts->version_order && !complete) {
        if ((st = psi_hints_resolve(h, &res->g, opts->version_order, &res->hints, d)) != PSI_OK ||
            (st = psi_hints_apply(&res->hints, &res->g, d)) != PSI_OK)
            return st;
        if (tsp && (st = hints_agree(&res->hints, &res->ts, d)) != PSI_OK)
            return st;
    }
    /* Partial timestamps: their direct checks, then their orders as
     * known edges. */
    if (tsp) {
        st = psi_ts_constrain(h, &res->idx, &res->ts, ser, &res->g, &res->ts_violation, d);
        if (st != PSI_OK)
            return st;
        if (res->ts_violation.kind) {
            s->t_construct = psi_cpu_now() - t0;
            res->verdict = PSI_REJECT;
            res->reason = PSI_BY_TIMESTAMPS;
            return PSI_OK;
        }
    }
    /* Nothing after the polygraph looks values up again. */
    psi_index_release_writes(&res->idx);
    s->t_construct = psi_cpu_now() - t0;
    mem_after(s, PSI_MEM_CONSTRUCT);
    s->known_edges_before = complete ? known_before : res->g.n_known;
    s->constraints_before = res->g.n_writer_pairs;
    s->unknown_deps_before = res->g.n_pair_deps;
    if (complete) {
        if (!pruned_reject(res, opts))
            res->verdict = PSI_ACCEPT, res->reason = PSI_BY_NOTHING;
        return PSI_OK;
    }

    /* A version order that leaves no writer pair open needs one cycle
     * check of the known graph: no rounds, no solver (known_only.h). */
    if (opts->version_order && (base == PSI_LEVEL_SI || base == PSI_LEVEL_SER)) {
        stage(opts, "prune");
        t0 = psi_cpu_now();
        bool taken;
        st = psi_known_only(h, &res->g, &res->hints, ser, &taken, &res->prune, d);
        s->t_prune = psi_cpu_now() - t0;
        if (st != PSI_OK)
            return st;
        if (taken) {
            /* No cycle: every writer pair is ordered, so the solver would
             * get an empty formula. */
            if (!pruned_reject(res, opts))
                res->verdict = PSI_ACCEPT, res->reason = PSI_BY_NOTHING;
            return PSI_OK;
        }
    }
    if ((st = prune_stage(h, res, opts, base, d)) != PSI_OK)
        return st;
    if (pruned_reject(res, opts))
        return PSI_OK;
    return solve(h, res, opts, -1, NULL, d);
}

void psi_check_result_free(psi_check_result *res)
{
    psi_index_free(&res->idx);
    psi_polygraph_free(&res->g);
    psi_index_free(&res->cut_idx);
    psi_prune_result_free(&res->prune);
    free(res->solver_cycle);
    free(res->model_either);
    free(res->model_choice);
    free(res->model_choice_edges);
    psi_level_result_free(&res->level);
    psi_level_choices_free(&res->rf);
    psi_hints_free(&res->hints);
    psi_ts_info_free(&res->ts);
    memset(res, 0, sizeof *res);
}
