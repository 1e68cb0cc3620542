/* The human report of a check (render.h): verdict and reason, graph-free
 * anomalies, the counterexample with its transactions, dependencies,
 * decided writer pairs and forbidden cycles, the raw cycle(s) when no
 * counterexample was restored, and with --stats the stage times and counts.
 * The wording is the tool's interface (README, "Counterexamples"), so a
 * change here is a change of the output format. */
#include "interpret/describe.h"
#include "interpret/render.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* Graph-free anomalies listed without --all-anomalies. */
#define GRAPH_FREE_SHOWN 10u

static const char *reason_text(psi_reject_reason r)
{
    switch (r) {
    case PSI_BY_NOTHING:
        return "accepted";
    case PSI_BY_ANOMALY:
        return "anomalies found without any dependency graph";
    case PSI_BY_KNOWN_CYCLE:
        return "the history's dependencies, with the version orders they force, already form a "
               "forbidden cycle";
    case PSI_BY_PRUNING:
        return "two writers of a key can be ordered neither way (found while pruning)";
    case PSI_BY_SOLVER:
        return "no version order of the remaining writers avoids a forbidden cycle";
    case PSI_BY_LEVEL:
        return "the level's axioms force a cycle (no commit order satisfies them)";
    case PSI_BY_TIMESTAMPS:
        return "the start and commit timestamps show a violation";
    }
    return "?";
}

static void fmt_edge(const psi_history *h, const psi_edge *e, char *buf, size_t n)
{
    char a[64], b[64];
    psi_fmt_txn(h, e->from, a, sizeof a);
    psi_fmt_txn(h, e->to, b, sizeof b);
    if (e->type == PSI_EDGE_SO)
        snprintf(buf, n, "%s -SO-> %s", a, b);
    else
        snprintf(buf, n, "%s -%s(%s)-> %s", a, psi_edge_type_name((psi_edge_type)e->type),
                 PSI_KEY_NAME(h, e->key), b);
}

static void anomaly_text(FILE *out, const psi_history *h, const psi_anomaly *a,
                         const psi_place *place)
{
    char t[64], o[128], ot[64], oo[128], at[600] = "";
    psi_fmt_txn(h, a->txn, t, sizeof t);
    psi_fmt_op(h, a->op, o, sizeof o);
    const psi_txn *tx = &h->txns[a->txn];
    psi_cex_kind k = a->nonrepeatable ? PSI_CEX_NONREPEATABLE_READ
                                      : psi_cex_kind_of_anomaly((psi_anomaly_kind)a->kind);
    if (place)
        psi_place_format(place, at, sizeof at);
    fprintf(out, "  %s (%s): transaction %s, operation %u %s%s%s", psi_cex_kind_name(k),
            a->nonrepeatable ? "two reads of a key see two committed versions"
                             : psi_anomaly_title(a->kind),
            t, a->op - tx->first_op + 1, o,
            at[0] ? (place->exact ? " at " : " (its transaction at ") : "", at);
    if (at[0] && !place->exact)
        fputc(')', out);
    if (a->other_op != PSI_SRC_NONE) {
        psi_fmt_txn(h, a->other_txn, ot, sizeof ot);
        psi_fmt_op(h, a->other_op, oo, sizeof oo);
        const psi_txn *wx = &h->txns[a->other_txn];
        switch (a->kind) {
        case PSI_ANOM_INT:
            if (a->other_txn != a->txn)
                break;
            if (a->other_op > a->op)
                fprintf(out,
                        " reads the value that operation %u %s of the same transaction writes "
                        "only later",
                        a->other_op - wx->first_op + 1, oo);
            else
                fprintf(out, " disagrees with operation %u %s of the same transaction",
                        a->other_op - wx->first_op + 1, oo);
            break;
        case PSI_ANOM_G1A:
            fprintf(out, " observes %s of %s, which aborted", oo, ot);
            break;
        case PSI_ANOM_G1B:
            fprintf(out, " observes %s of %s, which that transaction later overwrote", oo, ot);
            break;
        case PSI_ANOM_INCOMPATIBLE_ORDER:
            fprintf(out, " and %s of %s are not prefixes of one another", oo, ot);
            break;
        default:
            break;
        }
    }
    fprintf(out, "\n");
}

static void cycle_text(FILE *out, const psi_history *h, const char *title, const psi_edge *c,
                       uint32_t n)
{
    if (!n)
        return;
    fprintf(out, "  %s:\n", title);
    for (uint32_t i = 0; i < n; i++) {
        char e[256];
        fmt_edge(h, &c[i], e, sizeof e);
        fprintf(out, "    %s\n", e);
    }
}

static void stats_text(FILE *out, const psi_check_stats *s, double t_load, size_t peak)
{
    fprintf(out, "stats:\n");
    fprintf(out,
            "  time (s)      load %.3f  validate %.3f  construct %.3f  prune %.3f  encode %.3f  "
            "solve %.3f\n",
            t_load, s->t_validate, s->t_construct, s->t_prune, s->t_encode, s->t_solve);
    fprintf(out, "  history       %u sessions, %u transactions (%u committed), %llu operations",
            s->sessions, s->transactions, s->committed, (unsigned long long)s->operations);
    if (s->dropped_ops)
        fprintf(out, " (%llu of aborted transactions dropped after validation)",
                (unsigned long long)s->dropped_ops);
    fputc('\n', out);
    fprintf(out, "  known edges   %llu before pruning, %llu after\n",
            (unsigned long long)s->known_edges_before, (unsigned long long)s->known_edges_after);
    fprintf(out,
            "  constraints   %llu writer pairs before pruning, %llu generated (unordered), %llu "
            "after (%u rounds)\n",
            (unsigned long long)s->constraints_before, (unsigned long long)s->constraints_generated,
            (unsigned long long)s->constraints_after, s->prune_rounds);
    fprintf(out, "  unknown deps  %llu before pruning, %llu after\n",
            (unsigned long long)s->unknown_deps_before, (unsigned long long)s->unknown_deps_after);
    fprintf(out,
            "  solver        %llu vars, %llu edges, %llu decisions, %llu conflicts, %llu "
            "propagations, %llu theory calls (%.3f s), %llu theory conflicts\n",
            (unsigned long long)s->vars, (unsigned long long)s->theory_edges,
            (unsigned long long)s->decisions, (unsigned long long)s->conflicts,
            (unsigned long long)s->propagations, (unsigned long long)s->theory_calls,
            s->theory_seconds, (unsigned long long)s->theory_conflicts);
    if (s->lazy_ran)
        fprintf(out,
                "  lazy          %s after %u models: %llu choices (%llu variables), %llu writer "
                "pairs, %llu RW edges added, %llu backward edges (solve %.3f s, check %.3f s)\n",
                psi_lazy_outcome_name(s->lazy_outcome), s->lazy.rounds,
                (unsigned long long)s->lazy.choices, (unsigned long long)s->lazy.materialized,
                (unsigned long long)s->lazy.pairs, (unsigned long long)s->lazy.rw_edges,
                (unsigned long long)s->lazy.violations, s->lazy.t_solve, s->lazy.t_check);
    if (s->restricted_ran)
        fprintf(out,
                "  restricted    %s after %u windows (last %u): %llu of %llu choices kept, "
                "%u of %u reads still a choice, %llu estimate edges, %llu writer pairs in the "
                "window (%.3f s)\n",
                psi_restricted_outcome_name(s->restricted_outcome), s->restricted.attempts,
                s->restricted.window, (unsigned long long)s->restricted.choices_after,
                (unsigned long long)s->restricted.choices_before, s->restricted.reads_after,
                s->restricted.reads_before, (unsigned long long)s->restricted.skeleton_edges,
                (unsigned long long)s->restricted.open_pairs, s->restricted.t);
    if (s->psi_models)
        fprintf(out, "  refinement    %llu models, %llu clauses (PSI)\n",
                (unsigned long long)s->psi_models, (unsigned long long)s->psi_clauses);
    fprintf(out, "  peak memory   %.1f MiB\n", (double)peak / (1024.0 * 1024.0));
    /* After each stage that ran: the peak so far, the resident set then,
     * and the peak per operation of the history (issue 17). */
    const char *rows[3] = {"  peak MiB     ", "  resident MiB ", "  peak B/op    "};
    for (int row = 0; row < 3; row++) {
        bool any = false;
        for (int m = 0; m < PSI_MEM_STAGES; m++) {
            uint64_t v = row == 1 ? s->mem_now[m] : s->mem_peak[m];
            if (!s->mem_peak[m] || (row == 2 && !s->operations))
                continue;
            fprintf(out, "%s%s %.1f", any ? "  " : rows[row], psi_mem_stage_name((psi_mem_stage)m),
                    row == 2 ? (double)v / (double)s->operations : (double)v / (1024.0 * 1024.0));
            any = true;
        }
        if (any)
            fprintf(out, "\n");
    }
}

static void interpret_stats_text(FILE *out, const psi_cex *cx)
{
    /* A counterexample shrunk by re-running the whole check on
     * sub-histories (levels whose local re-checks would forbid too much)
     * counts those re-checks, not solver calls on a local polygraph. */
    if (cx->present)
        fprintf(out, "  interpret     %.3f s, %llu %s%s\n", cx->seconds,
                (unsigned long long)cx->solver_calls,
                cx->by_pipeline ? "whole-check re-check" : "local solver call",
                cx->solver_calls == 1 ? "" : "s");
}

static void fmt_cex_edge(const psi_history *h, const psi_cex_edge *e, char *buf, size_t n)
{
    psi_edge ge = {.from = e->from, .to = e->to, .key = e->key, .type = e->type};
    fmt_edge(h, &ge, buf, n);
}

/* "(2,3)'s r(1,5) reads from (3,4)": read-from candidate rc taken. */
static void fmt_read_from(const psi_history *h, const psi_cex *cx, uint32_t rc, char *buf, size_t n)
{
    const psi_cex_rcand *c = &cx->rcands[rc];
    const psi_cex_read *r = &cx->reads[c->read];
    char t[64], o[160], w[64];
    psi_fmt_txn(h, r->txn, t, sizeof t);
    psi_fmt_op(h, r->op, o, sizeof o);
    psi_fmt_txn(h, c->txn, w, sizeof w);
    int k = snprintf(buf, n, "%s's ", t);
    size_t used = k > 0 && (size_t)k < n ? (size_t)k : n - 1;
    k = snprintf(buf + used, n - used, "%s", o);
    used += k > 0 && (size_t)k < n - used ? (size_t)k : n - used - 1;
    snprintf(buf + used, n - used, " reads from %s", w);
}

/* The reads with several candidate writers: which one each was resolved
 * to and why, and each candidate excluded with its cycle (below). */
static void reads_text(FILE *out, const psi_history *h, const psi_cex *cx)
{
    if (!cx->n_reads)
        return;
    fprintf(out, "  read-from (values written by several transactions: which write each read "
                 "saw):\n");
    for (uint32_t i = 0; i < cx->n_reads; i++) {
        const psi_cex_read *r = &cx->reads[i];
        char t[64], o[160], w[64];
        psi_fmt_txn(h, r->txn, t, sizeof t);
        psi_fmt_op(h, r->op, o, sizeof o);
        if (r->writer != UINT32_MAX)
            psi_fmt_txn(h, r->writer, w, sizeof w);
        switch (r->how) {
        case PSI_RF_FORCED:
            fprintf(out,
                    "    %s's %s: from %s, forced (every other writer of it closes a "
                    "forbidden cycle)\n",
                    t, o, w);
            break;
        case PSI_RF_DECIDED:
            fprintf(out,
                    "    %s's %s: from %s, decided (taken in the failing assignment shown; "
                    "the violation holds whichever writer left it read from)\n",
                    t, o, w);
            break;
        default:
            fprintf(out, "    %s's %s: from none: every writer of it closes a forbidden cycle\n", t,
                    o);
        }
        for (uint32_t k = 0; k < r->n; k++) {
            const psi_cex_rcand *c = &cx->rcands[r->first + k];
            psi_fmt_txn(h, c->txn, w, sizeof w);
            if (c->excluded && c->cycle != UINT32_MAX)
                fprintf(out,
                        "      %-12s excluded (the cycle \"if %s's %s reads from %s\" "
                        "below)\n",
                        w, t, o, w);
            else if (c->excluded)
                fprintf(out, "      %-12s excluded by the check\n", w);
            else if (c->txn != r->writer)
                fprintf(out, "      %-12s possible\n", w);
        }
    }
}

/* "if (1,3) installs key 0 before (2,8)" for the cycle's conditions. */
static void fmt_cond(const psi_history *h, const psi_cex *cx, const psi_cex_cycle *c, char *buf,
                     size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < c->n_cond && used < n; i++) {
        const psi_cex_cond *cd = &cx->conds[c->cond_first + i];
        const psi_cex_choice *ch = &cx->choices[cd->choice];
        bool orr = cd->side;
        char a[64], b[64];
        psi_fmt_txn(h, orr ? ch->s : ch->t, a, sizeof a);
        psi_fmt_txn(h, orr ? ch->t : ch->s, b, sizeof b);
        int k = snprintf(buf + used, n - used, "%s%s installs key %s before %s",
                         used ? " and " : "if ", a, PSI_KEY_NAME(h, ch->key), b);
        used += k > 0 ? (size_t)k : 0;
    }
    for (uint32_t i = 0; i < c->n_rcond && used < n; i++) {
        char rf[256];
        fmt_read_from(h, cx, cx->rconds[c->rcond_first + i], rf, sizeof rf);
        int k = snprintf(buf + used, n - used, "%s%s", used ? " and " : "if ", rf);
        used += k > 0 ? (size_t)k : 0;
    }
    if (!used)
        snprintf(buf, n, "certain and decided dependencies alone");
}

static void cex_text(FILE *out, const psi_history *h, const psi_cex *cx)
{
    if (!cx->present)
        return;
    fprintf(out, "anomaly: %s\n", cx->summary);
    if (cx->by_level)
        fprintf(out,
                "counterexample: %u transaction%s, %u dependenc%s (the shortest forbidden cycle "
                "through one of its transactions, with the facts that force its version "
                "orders)\n",
                cx->n_txns, cx->n_txns == 1 ? "" : "s", cx->n_edges,
                cx->n_edges == 1 ? "y" : "ies");
    else if (cx->by_timestamps)
        fprintf(out, "counterexample: %u transaction%s (no cycle needed: the timestamps show it)\n",
                cx->n_txns, cx->n_txns == 1 ? "" : "s");
    else if (cx->anomaly_op != UINT32_MAX)
        fprintf(out,
                "counterexample: %u transaction%s, %u dependenc%s (no cycle needed: the read "
                "itself is the violation)\n",
                cx->n_txns, cx->n_txns == 1 ? "" : "s", cx->n_edges,
                cx->n_edges == 1 ? "y" : "ies");
    else
        fprintf(out, "counterexample: %u transaction%s, %u dependenc%s (%s; %llu %s%s, %.3f s)\n",
                cx->n_txns, cx->n_txns == 1 ? "" : "s", cx->n_edges, cx->n_edges == 1 ? "y" : "ies",
                cx->minimal && cx->by_pipeline
                    ? "minimal at the level checked: without any one of these transactions "
                      "the rest is accepted; the cycle is the level's check of them"
                : cx->minimal        ? "minimal: no dependency can be removed"
                : cx->restored_whole ? "not proven minimal: interpret budget exhausted"
                                     : "the reported cycle as found: interpret budget exhausted",
                (unsigned long long)cx->solver_calls,
                cx->by_pipeline ? "whole-check re-check" : "local solver call",
                cx->solver_calls == 1 ? "" : "s", cx->seconds);
    fprintf(out, "  transactions:\n");
    for (uint32_t i = 0; i < cx->n_txns; i++) {
        uint32_t t = cx->txns[i];
        char name[64], ops[4096];
        psi_fmt_txn(h, t, name, sizeof name);
        psi_fmt_txn_ops(h, t, " ", ops, sizeof ops);
        if (t == PSI_INIT_TXN)
            fprintf(out, "    %-12s %s\n", name, ops);
        else
            fprintf(out, "    %-12s session %llu, position %u: %s%s\n", name,
                    (unsigned long long)h->sessions[h->txns[t].session].id, h->txns[t].pos + 1, ops,
                    h->txns[t].status == PSI_TXN_ABORTED ? " (aborted)" : "");
    }
    if (cx->n_edges && cx->by_level && cx->hint_file[0])
        fprintf(out, "  dependencies (certain: from the history; version-order: the hint file's "
                     "line; forced: the level's axiom orders the two writers, from those):\n");
    else if (cx->n_edges && cx->by_level)
        fprintf(out, "  dependencies (certain: from the history; forced: the level's axiom orders "
                     "the two writers, from the certain ones):\n");
    else if (cx->n_edges && cx->by_hints)
        fprintf(out, "  dependencies (certain: from the history; version-order, timestamps: the "
                     "hint file's line; real time: the ops' order; decided: derived by the "
                     "check from those):\n");
    else if (cx->n_edges && cx->by_pipeline)
        fprintf(out, "  dependencies (certain: from the history; decided: ordered by the level's "
                     "check of these transactions):\n");
    else if (cx->n_edges)
        fprintf(out, "  dependencies (certain: from the history; decided: the other version order "
                     "closes a forbidden cycle; excluded: that other order):\n");
    for (uint32_t i = 0; i < cx->n_edges; i++) {
        const psi_cex_edge *e = &cx->edges[i];
        char buf[256];
        fmt_cex_edge(h, e, buf, sizeof buf);
        if (e->origin == PSI_CEX_EITHER || e->origin == PSI_CEX_OR) {
            const psi_cex_choice *ch = &cx->choices[e->choice];
            char a[64];
            psi_fmt_txn(h, e->origin == PSI_CEX_OR ? ch->s : ch->t, a, sizeof a);
            char rf[256] = "";
            if (e->rcand) {
                strcpy(rf, " and ");
                fmt_read_from(h, cx, e->rcand - 1, rf + 5, sizeof rf - 5);
            }
            fprintf(out, "    %-48s only if %s installs key %s first%s\n", buf, a,
                    PSI_KEY_NAME(h, ch->key), rf);
        } else if (e->origin == PSI_CEX_HINT) {
            fprintf(out, "    %-48s version-order %s:%llu\n", buf, cx->hint_file,
                    (unsigned long long)e->hint_line);
        } else if (e->origin == PSI_CEX_TIMESTAMPS) {
            fprintf(out, "    %-48s timestamps %s:%llu\n", buf, cx->ts_file,
                    (unsigned long long)e->hint_line);
        } else if (e->rcand) {
            char rf[256];
            fmt_read_from(h, cx, e->rcand - 1, rf, sizeof rf);
            fprintf(out, "    %-48s %s, when %s\n", buf,
                    psi_cex_origin_name((psi_cex_origin)e->origin), rf);
        } else if (e->origin == PSI_CEX_REALTIME && h->rt) {
            const char *at = h->rt_by_index ? "index" : "op";
            fprintf(out, "    %-48s real time: completed at %s %llu before invoked at %s %llu\n",
                    buf, at, (unsigned long long)h->rt[e->from].complete, at,
                    (unsigned long long)h->rt[e->to].invoke);
        } else if (e->shown_by) {
            char rd[160], rt[64];
            psi_fmt_op(h, e->shown_by - 1, rd, sizeof rd);
            psi_fmt_txn(h, psi_history_op_txn(h, e->shown_by - 1), rt, sizeof rt);
            fprintf(out, "    %-48s certain: %s in %s shows the order\n", buf, rd, rt);
        } else {
            fprintf(out, "    %-48s %s\n", buf, psi_cex_origin_name((psi_cex_origin)e->origin));
        }
    }
    for (uint32_t i = 0; i < cx->n_choices; i++) {
        const psi_cex_choice *ch = &cx->choices[i];
        char a[64], b[64];
        psi_fmt_txn(h, ch->decided == 2 ? ch->s : ch->t, a, sizeof a);
        psi_fmt_txn(h, ch->decided == 2 ? ch->t : ch->s, b, sizeof b);
        if (ch->decided)
            fprintf(out,
                    "  decided: %s installs key %s before %s (the other order closes a cycle, "
                    "below)\n",
                    a, PSI_KEY_NAME(h, ch->key), b);
        else
            fprintf(out, "  %s and %s both write key %s; neither order is possible\n", a, b,
                    PSI_KEY_NAME(h, ch->key));
    }
    reads_text(out, h, cx);
    if (cx->n_cycles)
        fprintf(out, "  forbidden cycles:\n");
    for (uint32_t i = 0; i < cx->n_cycles; i++) {
        const psi_cex_cycle *c = &cx->cycles[i];
        char cond[512];
        fmt_cond(h, cx, c, cond, sizeof cond);
        fprintf(out, "    %s:\n      ", cond);
        for (uint32_t k = 0; k < c->len; k++) {
            const psi_cex_edge *e = &cx->edges[cx->idx[c->first + k]];
            char a[64];
            psi_fmt_txn(h, e->from, a, sizeof a);
            if (e->type == PSI_EDGE_SO)
                fprintf(out, "%s -SO-> ", a);
            else
                fprintf(out, "%s -%s(%s)-> ", a, psi_edge_type_name((psi_edge_type)e->type),
                        PSI_KEY_NAME(h, e->key));
        }
        if (c->len) {
            char a[64];
            psi_fmt_txn(h, cx->edges[cx->idx[c->first]].from, a, sizeof a);
            fprintf(out, "%s", a);
        }
        fprintf(out, "\n");
    }
}

/* A reject: reason, graph-free anomalies, then the counterexample or, when
 * none was restored, the raw cycle(s) the check reported. */
static void verdict_text(FILE *out, const psi_history *h, const char *level,
                         const psi_check_result *r, const psi_cex *cx, const psi_render_opts *o)
{
    assert(r->verdict == PSI_REJECT);
    fprintf(out, "REJECT: the history violates %s: %s\n", level, reason_text(r->reason));
    switch (r->reason) {
    case PSI_BY_ANOMALY: {
        size_t shown = o->all ? r->idx.n_anomalies : GRAPH_FREE_SHOWN;
        for (size_t i = 0; i < r->idx.n_anomalies && i < shown; i++)
            anomaly_text(out, h, &r->idx.anomalies[i],
                         o->places && i < o->n_places ? &o->places[i] : NULL);
        if (r->idx.n_anomalies > shown)
            fprintf(out,
                    "  ... and %zu more graph-free anomalies (--all-anomalies lists every one)\n",
                    r->idx.n_anomalies - shown);
        break;
    }
    default:
        break;
    }
    cex_text(out, h, cx);
    if (cx->present && cx->restored_whole)
        return; /* the counterexample supersedes the raw cycles */
    switch (r->reason) {
    case PSI_BY_KNOWN_CYCLE:
        cycle_text(out, h, "cycle", r->prune.cycle[0], r->prune.cycle_len[0]);
        break;
    case PSI_BY_PRUNING:
        cycle_text(out, h, "cycle if the first writer goes first", r->prune.cycle[0],
                   r->prune.cycle_len[0]);
        cycle_text(out, h, "cycle if the second writer goes first", r->prune.cycle[1],
                   r->prune.cycle_len[1]);
        break;
    case PSI_BY_SOLVER:
        cycle_text(out, h, "last cycle the solver refuted", r->solver_cycle, r->solver_cycle_len);
        break;
    default:
        break;
    }
}

/* --all-anomalies: counts of the graph-free anomalies by name, the
 * independent violations after the first, and whether more remain. */
static void all_text(FILE *out, const psi_check_result *r, const psi_cex *cx,
                     const psi_render_opts *o)
{
    const psi_all *a = o->all;
    const char *level = psi_level_name(r->level_checked);
    uint32_t cycles = a->n + (r->reason != PSI_BY_ANOMALY && cx->present);
    fprintf(out, "all anomalies: %zu graph-free", a->graph_free);
    for (int k = 0, first = 1; k <= PSI_CEX_KIND_LAST && a->graph_free; k++) {
        size_t n = 0;
        for (size_t i = 0; i < r->idx.n_anomalies; i++)
            n += psi_cex_kind_of_anomaly((psi_anomaly_kind)r->idx.anomalies[i].kind) ==
                 (psi_cex_kind)k;
        if (n)
            fprintf(out, "%s%s %zu", first ? " (" : ", ", psi_cex_kind_name((psi_cex_kind)k), n);
        first &= !n;
    }
    if (a->graph_free)
        fputc(')', out);
    /* Violations the timestamps showed have no cycle: say so, by name. */
    uint32_t by_ts[PSI_CEX_KIND_LAST + 1] = {0}, n_ts = 0;
    for (uint32_t i = 0; i <= a->n; i++) {
        const psi_cex *c = i < a->n ? &a->items[i].cx : cx;
        if ((i < a->n || (r->reason != PSI_BY_ANOMALY && cx->present)) && c->by_timestamps &&
            c->kind <= PSI_CEX_KIND_LAST) {
            by_ts[c->kind]++;
            n_ts++;
        }
    }
    if (!n_ts)
        fprintf(out, ", %u independent violation%s with a cycle; ", cycles, cycles == 1 ? "" : "s");
    else {
        if (n_ts == cycles)
            fprintf(out, ", %u independent violation%s found from the timestamps (", cycles,
                    cycles == 1 ? "" : "s");
        else
            fprintf(out,
                    ", %u independent violations, %u with a cycle and %u found from the "
                    "timestamps (",
                    cycles, cycles - n_ts, n_ts);
        for (int k = 0, first = 1; k <= PSI_CEX_KIND_LAST; k++)
            if (by_ts[k]) {
                fprintf(out, "%s%s %u", first ? "" : ", ", psi_cex_kind_name((psi_cex_kind)k),
                        by_ts[k]);
                first = 0;
            }
        fputs("); ", out);
    }
    if (a->rest_checked && a->rest == PSI_ACCEPT)
        fprintf(out, "no more: without their transactions the history satisfies %s\n", level);
    else if (a->rest_checked)
        fprintf(out, "and more: without their transactions the history still violates %s\n", level);
    else
        fprintf(out, "the rest was not checked\n");
    for (uint32_t i = 0; i < a->n; i++) {
        fprintf(out, "violation %u of %u:\n", cycles - a->n + i + 1, cycles);
        cex_text(out, a->items[i].h, &a->items[i].cx);
    }
}

bool psi_render_text(const psi_history *h, const psi_check_result *r, const psi_cex *cx,
                     const psi_render_opts *o, FILE *out)
{
    assert(h && r && cx && o && out);
    const char *level = psi_level_name(r->level_checked);
    if (r->verdict == PSI_ACCEPT)
        fprintf(out, "ACCEPT: the history satisfies %s\n", level);
    else
        verdict_text(out, h, level, r, cx, o);
    if (r->idx.init_txn) {
        char name[64];
        psi_fmt_txn(h, r->idx.init_txn, name, sizeof name);
        fprintf(out,
                "note: recorded initial state: %s only writes initial values and was merged "
                "into the initial transaction (--init none checks it as an ordinary one)\n",
                name);
    }
    if (o->all && r->verdict == PSI_REJECT)
        all_text(out, r, cx, o);
    if (o->stats) {
        stats_text(out, &r->stats, o->load_seconds, o->peak_bytes);
        interpret_stats_text(out, cx);
    }
    return !ferror(out);
}
