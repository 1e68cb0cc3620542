/* The JSON report of a check (render.h; schema in README, "JSON schema"):
 * one object with the verdict and reason, graph-free anomalies, the raw
 * cycle(s) pruning or the solver reported, the counterexample (null when
 * none was built) and every stage count. Fields are never removed or
 * renamed within a major version, so programs can rely on them. */
#include "interpret/describe.h"
#include "interpret/json.h"
#include "interpret/render.h"

#include <assert.h>
#include <stdio.h>

static const char *reason_name(psi_reject_reason r)
{
    static const char *names[] = {"none",   "anomaly", "known-cycle", "pruning",
                                  "solver", "level",   "timestamps"};
    return r <= PSI_BY_TIMESTAMPS ? names[r] : "?";
}

/* A key: a number when every key of the history is an integer (as it has
 * always been), else its spelling as a string (":x", "\"acct 1\"", "7"). */
static void json_key(psi_json *j, const char *name, const psi_history *h, uint32_t k)
{
    if (h->key_names)
        psi_json_str(j, name, h->key_names[k]);
    else
        psi_json_u64(j, name, h->keys[k]);
}

/* A raw cycle pruning or the solver reported, as an array of edges. */
static void json_cycle(psi_json *j, const psi_history *h, const psi_edge *c, uint32_t n)
{
    psi_json_begin_array(j, NULL);
    for (uint32_t i = 0; i < n; i++) {
        char a[64], b[64];
        psi_fmt_txn(h, c[i].from, a, sizeof a);
        psi_fmt_txn(h, c[i].to, b, sizeof b);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "from", a);
        psi_json_str(j, "to", b);
        psi_json_str(j, "type", psi_edge_type_name((psi_edge_type)c[i].type));
        if (c[i].type != PSI_EDGE_SO)
            json_key(j, "key", h, c[i].key);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

static void json_cex_txns(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    psi_json_begin_array(j, "transactions");
    for (uint32_t i = 0; i < cx->n_txns; i++) {
        uint32_t t = cx->txns[i];
        char name[64];
        psi_fmt_txn(h, t, name, sizeof name);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "name", name);
        if (t == PSI_INIT_TXN) {
            psi_json_null(j, "session");
            psi_json_null(j, "id");
            psi_json_null(j, "position");
        } else {
            psi_json_u64(j, "session", h->sessions[h->txns[t].session].id);
            psi_json_u64(j, "id", h->txns[t].id);
            psi_json_u64(j, "position", h->txns[t].pos + 1);
        }
        psi_json_begin_array(j, "operations");
        for (uint32_t k = 0; t != PSI_INIT_TXN && k < h->txns[t].n_ops; k++) {
            char o[128];
            psi_fmt_op(h, h->txns[t].first_op + k, o, sizeof o);
            psi_json_str(j, NULL, o);
        }
        psi_json_end_array(j);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

static void json_cex_edges(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    psi_json_begin_array(j, "edges");
    for (uint32_t i = 0; i < cx->n_edges; i++) {
        const psi_cex_edge *e = &cx->edges[i];
        char a[64], b[64];
        psi_fmt_txn(h, e->from, a, sizeof a);
        psi_fmt_txn(h, e->to, b, sizeof b);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "from", a);
        psi_json_str(j, "to", b);
        psi_json_str(j, "type", psi_edge_type_name((psi_edge_type)e->type));
        if (e->type == PSI_EDGE_SO)
            psi_json_null(j, "key");
        else
            json_key(j, "key", h, e->key);
        psi_json_str(j, "origin", psi_cex_origin_name((psi_cex_origin)e->origin));
        if (e->shown_by) {
            /* the list-append read that orders the two writers */
            char rd[160], rt[64];
            psi_fmt_op(h, e->shown_by - 1, rd, sizeof rd);
            psi_fmt_txn(h, psi_history_op_txn(h, e->shown_by - 1), rt, sizeof rt);
            psi_json_begin_object(j, "shown_by");
            psi_json_str(j, "transaction", rt);
            psi_json_str(j, "operation", rd);
            psi_json_end_object(j);
        }
        if (e->origin == PSI_CEX_HINT || e->origin == PSI_CEX_TIMESTAMPS) {
            /* the hint file's line that gives the order */
            char src[600];
            snprintf(src, sizeof src, "%s:%llu",
                     e->origin == PSI_CEX_HINT ? cx->hint_file : cx->ts_file,
                     (unsigned long long)e->hint_line);
            psi_json_str(j, "source", src);
        } else if (e->origin == PSI_CEX_REALTIME && h->rt) {
            /* from completed before to was invoked */
            psi_json_begin_object(j, "real_time");
            psi_json_str(j, "by", h->rt_by_index ? "index" : "op");
            psi_json_u64(j, "completed", h->rt[e->from].complete);
            psi_json_u64(j, "invoked", h->rt[e->to].invoke);
            psi_json_end_object(j);
        } else if (e->origin != PSI_CEX_CERTAIN && e->origin != PSI_CEX_FORCED &&
                   e->choice != UINT32_MAX) {
            psi_json_u64(j, "choice", e->choice);
            psi_json_str(j, "side", e->side ? "or" : "either");
        }
        if (e->rcand) {
            /* the read-from choice the edge needs: reads[read] takes writer */
            const psi_cex_rcand *rc = &cx->rcands[e->rcand - 1];
            psi_fmt_txn(h, rc->txn, a, sizeof a);
            psi_json_begin_object(j, "read_from");
            psi_json_u64(j, "read", rc->read);
            psi_json_str(j, "writer", a);
            psi_json_end_object(j);
        }
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

static void json_cex_choices(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    psi_json_begin_array(j, "choices");
    for (uint32_t i = 0; i < cx->n_choices; i++) {
        char a[64], b[64];
        psi_fmt_txn(h, cx->choices[i].t, a, sizeof a);
        psi_fmt_txn(h, cx->choices[i].s, b, sizeof b);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "either_first", a);
        psi_json_str(j, "or_first", b);
        json_key(j, "key", h, cx->choices[i].key);
        psi_json_str(j, "decided",
                     cx->choices[i].decided == 1   ? "either"
                     : cx->choices[i].decided == 2 ? "or"
                                                   : "open");
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

/* The reads with several candidate writers that the violation involves:
 * which writer each was resolved to, how, and the candidates excluded,
 * each with the index of the cycle that excludes it. */
static void json_cex_reads(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    psi_json_begin_array(j, "reads");
    for (uint32_t i = 0; i < cx->n_reads; i++) {
        const psi_cex_read *r = &cx->reads[i];
        char t[64], o[160];
        psi_fmt_txn(h, r->txn, t, sizeof t);
        psi_fmt_op(h, r->op, o, sizeof o);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "transaction", t);
        psi_json_str(j, "operation", o);
        json_key(j, "key", h, r->key);
        psi_json_begin_object(j, "read_from");
        if (r->writer == UINT32_MAX) {
            psi_json_null(j, "writer");
        } else {
            psi_fmt_txn(h, r->writer, t, sizeof t);
            psi_json_str(j, "writer", t);
        }
        psi_json_str(j, "how", psi_cex_rf_how_name((psi_cex_rf_how)r->how));
        psi_json_begin_array(j, "candidates");
        for (uint32_t k = 0; k < r->n; k++) {
            psi_fmt_txn(h, cx->rcands[r->first + k].txn, t, sizeof t);
            psi_json_str(j, NULL, t);
        }
        psi_json_end_array(j);
        psi_json_begin_array(j, "excluded");
        for (uint32_t k = 0; k < r->n; k++) {
            const psi_cex_rcand *c = &cx->rcands[r->first + k];
            if (!c->excluded)
                continue;
            psi_fmt_txn(h, c->txn, t, sizeof t);
            psi_json_begin_object(j, NULL);
            psi_json_str(j, "writer", t);
            if (c->cycle == UINT32_MAX)
                psi_json_null(j, "cycle");
            else
                psi_json_u64(j, "cycle", c->cycle);
            psi_json_end_object(j);
        }
        psi_json_end_array(j);
        psi_json_end_object(j);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

/* Each cycle: the choices it depends on (writer pairs' orders, then reads'
 * writers), and its edges as indices into the edges array, in cycle
 * order. */
static void json_cex_cycles(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    psi_json_begin_array(j, "cycles");
    for (uint32_t i = 0; i < cx->n_cycles; i++) {
        const psi_cex_cycle *c = &cx->cycles[i];
        psi_json_begin_object(j, NULL);
        psi_json_begin_array(j, "when");
        for (uint32_t k = 0; k < c->n_cond; k++) {
            const psi_cex_cond *cd = &cx->conds[c->cond_first + k];
            psi_json_begin_object(j, NULL);
            psi_json_u64(j, "choice", cd->choice);
            psi_json_str(j, "side", cd->side ? "or" : "either");
            psi_json_end_object(j);
        }
        for (uint32_t k = 0; k < c->n_rcond; k++) {
            const psi_cex_rcand *rc = &cx->rcands[cx->rconds[c->rcond_first + k]];
            char a[64];
            psi_fmt_txn(h, rc->txn, a, sizeof a);
            psi_json_begin_object(j, NULL);
            psi_json_u64(j, "read", rc->read);
            psi_json_str(j, "writer", a);
            psi_json_end_object(j);
        }
        psi_json_end_array(j);
        psi_json_begin_array(j, "edges");
        for (uint32_t k = 0; k < c->len; k++)
            psi_json_u64(j, NULL, cx->idx[c->first + k]);
        psi_json_end_array(j);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

/* The counterexample as an object under key (NULL inside an array). */
static void json_cex_as(psi_json *j, const char *key, const psi_history *h, const psi_cex *cx)
{
    if (!cx->present) {
        psi_json_null(j, key);
        return;
    }
    psi_json_begin_object(j, key);
    psi_json_str(j, "anomaly", psi_cex_kind_name(cx->kind));
    if (psi_cex_kind_elle(cx->kind))
        psi_json_str(j, "elle", psi_cex_kind_elle(cx->kind));
    else
        psi_json_null(j, "elle");
    psi_json_str(j, "summary", cx->summary);
    psi_json_bool(j, "minimal", cx->minimal);
    psi_json_bool(j, "restored", cx->restored_whole);
    psi_json_bool(j, "by_pipeline", cx->by_pipeline);
    psi_json_u64(j, "solver_calls", cx->solver_calls);
    psi_json_num(j, "seconds", cx->seconds);
    json_cex_txns(j, h, cx);
    json_cex_edges(j, h, cx);
    json_cex_choices(j, h, cx);
    json_cex_reads(j, h, cx);
    json_cex_cycles(j, h, cx);
    psi_json_end_object(j);
}

static void json_cex(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    json_cex_as(j, "counterexample", h, cx);
}

/* --all-anomalies: graph-free counts by name, the independent violations
 * after the first (each a counterexample object), and what is left. */
static void json_all(psi_json *j, const psi_check_result *r, const psi_render_opts *o)
{
    const psi_all *a = o->all;
    psi_json_begin_object(j, "all_anomalies");
    psi_json_begin_object(j, "graph_free");
    for (int k = 0; k <= PSI_CEX_KIND_LAST; k++) {
        size_t n = 0;
        for (size_t i = 0; i < r->idx.n_anomalies; i++)
            n += psi_cex_kind_of_anomaly((psi_anomaly_kind)r->idx.anomalies[i].kind) ==
                 (psi_cex_kind)k;
        if (n)
            psi_json_u64(j, psi_cex_kind_name((psi_cex_kind)k), n);
    }
    psi_json_end_object(j);
    psi_json_begin_array(j, "violations");
    for (uint32_t i = 0; i < a->n; i++)
        json_cex_as(j, NULL, a->items[i].h, &a->items[i].cx);
    psi_json_end_array(j);
    if (!a->rest_checked)
        psi_json_null(j, "rest");
    else
        psi_json_str(j, "rest", a->rest == PSI_ACCEPT ? "accept" : "reject");
    psi_json_bool(j, "more", a->rest_checked && a->rest == PSI_REJECT);
    psi_json_end_object(j);
}

/* The graph-free anomalies validation found (empty unless reason is
 * "anomaly"). */
static void json_place(psi_json *j, const psi_place *p)
{
    if (!p || !p->file || p->where == PSI_AT_NONE) {
        psi_json_null(j, "place");
        return;
    }
    psi_json_begin_object(j, "place");
    psi_json_str(j, "file", p->file);
    if (p->where == PSI_AT_LINE) {
        psi_json_u64(j, "line", p->line);
        psi_json_u64(j, "column", p->col);
    } else {
        psi_json_u64(j, "offset", p->offset);
    }
    psi_json_bool(j, "exact", p->exact);
    psi_json_end_object(j);
}

static void json_anomalies(psi_json *j, const psi_history *h, const psi_check_result *r,
                           const psi_render_opts *opts)
{
    psi_json_begin_array(j, "anomalies");
    for (size_t i = 0; i < r->idx.n_anomalies; i++) {
        const psi_anomaly *an = &r->idx.anomalies[i];
        char t[64], o[128];
        psi_cex_kind k = psi_cex_kind_of_anomaly((psi_anomaly_kind)an->kind);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "kind", psi_cex_kind_name(k));
        if (psi_cex_kind_elle(k))
            psi_json_str(j, "elle", psi_cex_kind_elle(k));
        else
            psi_json_null(j, "elle");
        psi_json_str(j, "title", psi_anomaly_title(an->kind));
        psi_fmt_txn(h, an->txn, t, sizeof t);
        psi_fmt_op(h, an->op, o, sizeof o);
        psi_json_str(j, "transaction", t);
        psi_json_str(j, "operation", o);
        if (an->other_op != PSI_SRC_NONE) {
            psi_fmt_txn(h, an->other_txn, t, sizeof t);
            psi_fmt_op(h, an->other_op, o, sizeof o);
            psi_json_str(j, "other_transaction", t);
            psi_json_str(j, "other_operation", o);
        }
        if (opts->places)
            json_place(j, i < opts->n_places ? &opts->places[i] : NULL);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

/* The raw cycle(s) the check reported, whatever the counterexample says. */
static void json_raw_cycles(psi_json *j, const psi_history *h, const psi_check_result *r)
{
    psi_json_begin_array(j, "cycles");
    if (r->reason == PSI_BY_KNOWN_CYCLE || r->reason == PSI_BY_PRUNING) {
        for (int c = 0; c < 2; c++)
            if (r->prune.cycle_len[c])
                json_cycle(j, h, r->prune.cycle[c], r->prune.cycle_len[c]);
    } else if (r->reason == PSI_BY_SOLVER && r->solver_cycle_len) {
        json_cycle(j, h, r->solver_cycle, r->solver_cycle_len);
    }
    psi_json_end_array(j);
}

static void json_stats(psi_json *j, const psi_check_stats *s, const psi_cex *cx,
                       const psi_render_opts *o)
{
    psi_json_begin_object(j, "stats");
    psi_json_begin_object(j, "seconds");
    psi_json_num(j, "load", o->load_seconds);
    psi_json_num(j, "validate", s->t_validate);
    psi_json_num(j, "construct", s->t_construct);
    psi_json_num(j, "prune", s->t_prune);
    psi_json_num(j, "encode", s->t_encode);
    psi_json_num(j, "solve", s->t_solve);
    psi_json_end_object(j);
    psi_json_u64(j, "sessions", s->sessions);
    psi_json_u64(j, "transactions", s->transactions);
    psi_json_u64(j, "committed", s->committed);
    psi_json_u64(j, "operations", s->operations);
    psi_json_u64(j, "dropped_operations", s->dropped_ops);
    psi_json_u64(j, "known_edges_before", s->known_edges_before);
    psi_json_u64(j, "known_edges_after", s->known_edges_after);
    psi_json_u64(j, "constraints_before", s->constraints_before);
    psi_json_u64(j, "constraints_generated", s->constraints_generated);
    psi_json_u64(j, "constraints_after", s->constraints_after);
    psi_json_u64(j, "unknown_deps_before", s->unknown_deps_before);
    psi_json_u64(j, "unknown_deps_after", s->unknown_deps_after);
    psi_json_u64(j, "prune_rounds", s->prune_rounds);
    psi_json_u64(j, "solver_vars", s->vars);
    psi_json_u64(j, "solver_edges", s->theory_edges);
    psi_json_u64(j, "decisions", s->decisions);
    psi_json_u64(j, "conflicts", s->conflicts);
    psi_json_u64(j, "propagations", s->propagations);
    psi_json_u64(j, "restarts", s->restarts);
    psi_json_u64(j, "learned", s->learned);
    psi_json_u64(j, "theory_calls", s->theory_calls);
    psi_json_u64(j, "theory_conflicts", s->theory_conflicts);
    psi_json_u64(j, "theory_propagations", s->theory_propagations);
    psi_json_num(j, "theory_seconds", s->theory_seconds);
    psi_json_num(j, "interpret_seconds", cx->present ? cx->seconds : 0.0);
    /* The attempts tried before the usual path, as the text's "lazy" and
     * "restricted" lines: present only when they ran. */
    if (s->lazy_ran) {
        psi_json_begin_object(j, "lazy");
        psi_json_str(j, "outcome", psi_lazy_outcome_name(s->lazy_outcome));
        psi_json_u64(j, "models", s->lazy.rounds);
        psi_json_u64(j, "choices", s->lazy.choices);
        psi_json_u64(j, "variables", s->lazy.materialized);
        psi_json_u64(j, "writer_pairs", s->lazy.pairs);
        psi_json_u64(j, "rw_edges", s->lazy.rw_edges);
        psi_json_u64(j, "backward_edges", s->lazy.violations);
        psi_json_num(j, "solve_seconds", s->lazy.t_solve);
        psi_json_num(j, "check_seconds", s->lazy.t_check);
        psi_json_end_object(j);
    }
    if (s->restricted_ran) {
        psi_json_begin_object(j, "restricted");
        psi_json_str(j, "outcome", psi_restricted_outcome_name(s->restricted_outcome));
        psi_json_u64(j, "windows", s->restricted.attempts);
        psi_json_u64(j, "last_window", s->restricted.window);
        psi_json_u64(j, "choices_before", s->restricted.choices_before);
        psi_json_u64(j, "choices_kept", s->restricted.choices_after);
        psi_json_u64(j, "reads_with_choice_before", s->restricted.reads_before);
        psi_json_u64(j, "reads_with_choice_kept", s->restricted.reads_after);
        psi_json_u64(j, "estimate_edges", s->restricted.skeleton_edges);
        psi_json_u64(j, "writer_pairs_in_window", s->restricted.open_pairs);
        psi_json_num(j, "seconds", s->restricted.t);
        psi_json_end_object(j);
    }
    psi_json_u64(j, "peak_memory_bytes", o->peak_bytes);
    /* After each stage that ran (issue 17): the peak so far, the resident
     * set then, and the peak per operation of the history. */
    psi_json_begin_object(j, "memory");
    for (int m = 0; m < PSI_MEM_STAGES; m++) {
        if (!s->mem_peak[m])
            continue;
        psi_json_begin_object(j, psi_mem_stage_name((psi_mem_stage)m));
        psi_json_u64(j, "peak_bytes", s->mem_peak[m]);
        psi_json_u64(j, "resident_bytes", s->mem_now[m]);
        psi_json_num(j, "peak_bytes_per_op",
                     s->operations ? (double)s->mem_peak[m] / (double)s->operations : 0.0);
        psi_json_end_object(j);
    }
    psi_json_end_object(j);
    psi_json_end_object(j);
}

bool psi_render_json(const psi_history *h, const psi_check_result *r, const psi_cex *cx,
                     const psi_render_opts *o, FILE *out)
{
    assert(h && r && cx && o && out);
    psi_json j;
    psi_json_init(&j, out);
    psi_json_begin_object(&j, NULL);
    psi_json_str(&j, "path", o->path);
    psi_json_str(&j, "format", psi_format_name(h->format));
    psi_json_str(&j, "isolation", psi_level_name(r->level_checked));
    psi_json_str(&j, "verdict", r->verdict == PSI_ACCEPT ? "accept" : "reject");
    psi_json_str(&j, "reason", reason_name(r->reason));
    if (r->idx.init_txn) {
        char name[64];
        psi_fmt_txn(h, r->idx.init_txn, name, sizeof name);
        psi_json_str(&j, "initial_state", name);
    }
    json_anomalies(&j, h, r, o);
    json_raw_cycles(&j, h, r);
    json_cex(&j, h, cx);
    if (o->all && r->verdict == PSI_REJECT)
        json_all(&j, r, o);
    json_stats(&j, &r->stats, cx, o);
    psi_json_end_object(&j);
    return !ferror(out);
}
