/* `polysi-solve check`: load a history, run the whole check, report the
 * verdict with its reason, and (with --stats) stage times and counts. */
#include "check/check.h"
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "cli/limits.h"
#include "formats/read.h"
#include "interpret/describe.h"
#include "interpret/explain.h"
#include "interpret/witness.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static void help(void)
{
    printf("usage: polysi-solve check [OPTIONS] PATH\n\n"
           "Checks the history at PATH (a file, or a directory of Cobra T*.log files).\n\n"
           "  --isolation L             si (snapshot isolation, default) or ser\n"
           "  --format F                text | dbcop | cobra | edn (default: detect)\n"
           "  --json                    one JSON object on stdout instead of text\n"
           "  --stats                   stage times, counts and peak memory\n"
           "  --no-pruning              hand every constraint to the solver\n"
           "  --no-coalescing           one constraint per (writer pair, key)\n"
           "  --no-theory-propagation   solver: detect cycles only on activation\n"
           "  --timeout S               give up (exit 2, no verdict) after S seconds in any\n"
           "                            stage; the message names the stage\n"
           "  --max-memory MB           give up (exit 2, no verdict) when the resident set\n"
           "                            passes MB MiB; the message names the stage\n"
           "  --time-limit S            give up (exit 2) after S seconds of solving\n"
           "  --interpret-budget N      on reject, at most N local solver calls to restore and\n"
           "                            minimize the counterexample (default %u; 0: no\n"
           "                            interpretation, only the cycle(s) found)\n"
           "  --dot FILE                on reject, write the counterexample as Graphviz DOT\n"
           "  --witness FILE            on accept, write the version order of every key (and\n"
           "                            for --isolation ser a serialization order) to FILE;\n"
           "                            re-check it with 'polysi-solve verify-witness'\n\n"
           "Exit codes: 0 accept, 1 reject (a violation was found), 2 error.\n",
           PSI_INTERPRET_BUDGET_DEFAULT);
}

static size_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024u; /* Linux reports KiB */
}

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
    }
    return "?";
}

static const char *reason_name(psi_reject_reason r)
{
    static const char *names[] = {"none", "anomaly", "known-cycle", "pruning", "solver"};
    return r <= PSI_BY_SOLVER ? names[r] : "?";
}

static void fmt_edge(const psi_history *h, const psi_edge *e, char *buf, size_t n)
{
    char a[64], b[64];
    psi_fmt_txn(h, e->from, a, sizeof a);
    psi_fmt_txn(h, e->to, b, sizeof b);
    if (e->type == PSI_EDGE_SO)
        snprintf(buf, n, "%s -SO-> %s", a, b);
    else
        snprintf(buf, n, "%s -%s(%llu)-> %s", a, psi_edge_type_name((psi_edge_type)e->type),
                 (unsigned long long)h->keys[e->key], b);
}

static void print_anomaly_text(const psi_history *h, const psi_anomaly *a)
{
    char t[64], o[128], ot[64], oo[128];
    psi_fmt_txn(h, a->txn, t, sizeof t);
    psi_fmt_op(h, a->op, o, sizeof o);
    const psi_txn *tx = &h->txns[a->txn];
    printf("  %s (%s): transaction %s, operation %u %s", psi_anomaly_name(a->kind),
           psi_anomaly_title(a->kind), t, a->op - tx->first_op + 1, o);
    if (a->other_op != PSI_SRC_NONE) {
        psi_fmt_txn(h, a->other_txn, ot, sizeof ot);
        psi_fmt_op(h, a->other_op, oo, sizeof oo);
        const psi_txn *wx = &h->txns[a->other_txn];
        switch (a->kind) {
        case PSI_ANOM_INT:
            if (a->other_txn == a->txn)
                printf(" disagrees with operation %u %s of the same transaction",
                       a->other_op - wx->first_op + 1, oo);
            break;
        case PSI_ANOM_G1A:
            printf(" observes %s of %s, which aborted", oo, ot);
            break;
        case PSI_ANOM_G1B:
            printf(" observes %s of %s, which that transaction later overwrote", oo, ot);
            break;
        default:
            break;
        }
    }
    printf("\n");
}

static void print_cycle_text(const psi_history *h, const char *title, const psi_edge *c, uint32_t n)
{
    if (!n)
        return;
    printf("  %s:\n", title);
    for (uint32_t i = 0; i < n; i++) {
        char e[256];
        fmt_edge(h, &c[i], e, sizeof e);
        printf("    %s\n", e);
    }
}

static void print_stats_text(const psi_check_stats *s, double t_load, size_t peak)
{
    printf("stats:\n");
    printf("  time (s)      load %.3f  validate %.3f  construct %.3f  prune %.3f  encode %.3f  "
           "solve %.3f\n",
           t_load, s->t_validate, s->t_construct, s->t_prune, s->t_encode, s->t_solve);
    printf("  history       %u sessions, %u transactions (%u committed), %llu operations\n",
           s->sessions, s->transactions, s->committed, (unsigned long long)s->operations);
    printf("  known edges   %llu before pruning, %llu after\n",
           (unsigned long long)s->known_edges_before, (unsigned long long)s->known_edges_after);
    printf("  constraints   %llu writer pairs before pruning, %llu generated (unordered), %llu "
           "after (%u rounds)\n",
           (unsigned long long)s->constraints_before, (unsigned long long)s->constraints_generated,
           (unsigned long long)s->constraints_after, s->prune_rounds);
    printf("  unknown deps  %llu before pruning, %llu after\n",
           (unsigned long long)s->unknown_deps_before, (unsigned long long)s->unknown_deps_after);
    printf("  solver        %llu vars, %llu edges, %llu decisions, %llu conflicts, %llu "
           "propagations, %llu theory calls (%.3f s), %llu theory conflicts\n",
           (unsigned long long)s->vars, (unsigned long long)s->theory_edges,
           (unsigned long long)s->decisions, (unsigned long long)s->conflicts,
           (unsigned long long)s->propagations, (unsigned long long)s->theory_calls,
           s->theory_seconds, (unsigned long long)s->theory_conflicts);
    printf("  peak memory   %.1f MiB\n", (double)peak / (1024.0 * 1024.0));
}

static void print_interpret_stats(const psi_cex *cx)
{
    if (cx->present)
        printf("  interpret     %.3f s, %llu local solver calls\n", cx->seconds,
               (unsigned long long)cx->solver_calls);
}

static void json_cycle(psi_json *j, const psi_history *h, const char *key, const psi_edge *c,
                       uint32_t n)
{
    psi_json_begin_array(j, key);
    for (uint32_t i = 0; i < n; i++) {
        char a[64], b[64];
        psi_fmt_txn(h, c[i].from, a, sizeof a);
        psi_fmt_txn(h, c[i].to, b, sizeof b);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "from", a);
        psi_json_str(j, "to", b);
        psi_json_str(j, "type", psi_edge_type_name((psi_edge_type)c[i].type));
        if (c[i].type != PSI_EDGE_SO)
            psi_json_u64(j, "key", h->keys[c[i].key]);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

/* ---- Counterexample rendering (text, JSON, DOT) ---- */

static void fmt_cex_edge(const psi_history *h, const psi_cex_edge *e, char *buf, size_t n)
{
    psi_edge ge = {.from = e->from, .to = e->to, .key = e->key, .type = e->type};
    fmt_edge(h, &ge, buf, n);
}

/* "if (1,3) is installed before (2,8) on key 0" for the cycle's conditions. */
static void fmt_cond(const psi_history *h, const psi_cex *cx, const psi_cex_cycle *c, char *buf,
                     size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < cx->n_choices && i < 32 && used < n; i++) {
        if (!(c->cond_mask >> i & 1))
            continue;
        const psi_cex_choice *ch = &cx->choices[i];
        bool orr = c->cond_or >> i & 1;
        char a[64], b[64];
        psi_fmt_txn(h, orr ? ch->s : ch->t, a, sizeof a);
        psi_fmt_txn(h, orr ? ch->t : ch->s, b, sizeof b);
        int k = snprintf(buf + used, n - used, "%s%s installs key %llu before %s",
                         used ? " and " : "if ", a, (unsigned long long)h->keys[ch->key], b);
        used += k > 0 ? (size_t)k : 0;
    }
    if (!used)
        snprintf(buf, n, "certain and decided dependencies alone");
}

static void txn_ops(const psi_history *h, uint32_t t, char *buf, size_t n, const char *sep)
{
    size_t used = 0;
    buf[0] = '\0';
    if (t == PSI_INIT_TXN) {
        snprintf(buf, n, "writes every key's initial value");
        return;
    }
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops && used < n; i++) {
        char o[128];
        psi_fmt_op(h, tx->first_op + i, o, sizeof o);
        int k = snprintf(buf + used, n - used, "%s%s", i ? sep : "", o);
        used += k > 0 ? (size_t)k : 0;
    }
}

static void print_cex_text(const psi_history *h, const psi_cex *cx)
{
    if (!cx->present)
        return;
    printf("anomaly: %s\n", cx->summary);
    if (cx->anomaly_op != UINT32_MAX)
        printf("counterexample: %u transaction%s, %u dependenc%s (no cycle needed: the read "
               "itself is the violation)\n",
               cx->n_txns, cx->n_txns == 1 ? "" : "s", cx->n_edges, cx->n_edges == 1 ? "y" : "ies");
    else
        printf("counterexample: %u transactions, %u dependencies (%s; %llu local solver calls, "
               "%.3f s)\n",
               cx->n_txns, cx->n_edges,
               cx->minimal          ? "minimal: no dependency can be removed"
               : cx->restored_whole ? "not proven minimal: interpret budget exhausted"
                                    : "the reported cycle as found: interpret budget exhausted",
               (unsigned long long)cx->solver_calls, cx->seconds);
    printf("  transactions:\n");
    for (uint32_t i = 0; i < cx->n_txns; i++) {
        uint32_t t = cx->txns[i];
        char name[64], ops[4096];
        psi_fmt_txn(h, t, name, sizeof name);
        txn_ops(h, t, ops, sizeof ops, " ");
        if (t == PSI_INIT_TXN)
            printf("    %-12s %s\n", name, ops);
        else
            printf("    %-12s session %llu, position %u: %s%s\n", name,
                   (unsigned long long)h->sessions[h->txns[t].session].id, h->txns[t].pos + 1, ops,
                   h->txns[t].status == PSI_TXN_ABORTED ? " (aborted)" : "");
    }
    printf("  dependencies (certain: from the history; decided: the other version order "
           "closes a forbidden cycle; excluded: that other order):\n");
    for (uint32_t i = 0; i < cx->n_edges; i++) {
        const psi_cex_edge *e = &cx->edges[i];
        char buf[256];
        fmt_cex_edge(h, e, buf, sizeof buf);
        if (e->origin == PSI_CEX_EITHER || e->origin == PSI_CEX_OR) {
            const psi_cex_choice *ch = &cx->choices[e->choice];
            char a[64];
            psi_fmt_txn(h, e->origin == PSI_CEX_OR ? ch->s : ch->t, a, sizeof a);
            printf("    %-48s only if %s installs key %llu first\n", buf, a,
                   (unsigned long long)h->keys[ch->key]);
        } else {
            printf("    %-48s %s\n", buf, psi_cex_origin_name((psi_cex_origin)e->origin));
        }
    }
    for (uint32_t i = 0; i < cx->n_choices; i++) {
        const psi_cex_choice *ch = &cx->choices[i];
        char a[64], b[64];
        psi_fmt_txn(h, ch->decided == 2 ? ch->s : ch->t, a, sizeof a);
        psi_fmt_txn(h, ch->decided == 2 ? ch->t : ch->s, b, sizeof b);
        if (ch->decided)
            printf("  decided: %s installs key %llu before %s (the other order closes a cycle, "
                   "below)\n",
                   a, (unsigned long long)h->keys[ch->key], b);
        else
            printf("  %s and %s both write key %llu; neither order is possible\n", a, b,
                   (unsigned long long)h->keys[ch->key]);
    }
    if (cx->n_cycles)
        printf("  forbidden cycles:\n");
    for (uint32_t i = 0; i < cx->n_cycles; i++) {
        const psi_cex_cycle *c = &cx->cycles[i];
        char cond[512];
        fmt_cond(h, cx, c, cond, sizeof cond);
        printf("    %s:\n      ", cond);
        for (uint32_t k = 0; k < c->len; k++) {
            const psi_cex_edge *e = &cx->edges[cx->idx[c->first + k]];
            char a[64];
            psi_fmt_txn(h, e->from, a, sizeof a);
            if (e->type == PSI_EDGE_SO)
                printf("%s -SO-> ", a);
            else
                printf("%s -%s(%llu)-> ", a, psi_edge_type_name((psi_edge_type)e->type),
                       (unsigned long long)h->keys[e->key]);
        }
        if (c->len) {
            char a[64];
            psi_fmt_txn(h, cx->edges[cx->idx[c->first]].from, a, sizeof a);
            printf("%s", a);
        }
        printf("\n");
    }
}

static void json_cex(psi_json *j, const psi_history *h, const psi_cex *cx)
{
    if (!cx->present) {
        psi_json_null(j, "counterexample");
        return;
    }
    psi_json_begin_object(j, "counterexample");
    psi_json_str(j, "anomaly", psi_cex_kind_name(cx->kind));
    psi_json_str(j, "summary", cx->summary);
    psi_json_bool(j, "minimal", cx->minimal);
    psi_json_bool(j, "restored", cx->restored_whole);
    psi_json_u64(j, "solver_calls", cx->solver_calls);
    psi_json_num(j, "seconds", cx->seconds);
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
            psi_json_u64(j, "key", h->keys[e->key]);
        psi_json_str(j, "origin", psi_cex_origin_name((psi_cex_origin)e->origin));
        if (e->origin != PSI_CEX_CERTAIN) {
            psi_json_u64(j, "choice", e->choice);
            psi_json_str(j, "side", e->side ? "or" : "either");
        }
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
    psi_json_begin_array(j, "choices");
    for (uint32_t i = 0; i < cx->n_choices; i++) {
        char a[64], b[64];
        psi_fmt_txn(h, cx->choices[i].t, a, sizeof a);
        psi_fmt_txn(h, cx->choices[i].s, b, sizeof b);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "either_first", a);
        psi_json_str(j, "or_first", b);
        psi_json_u64(j, "key", h->keys[cx->choices[i].key]);
        psi_json_str(j, "decided",
                     cx->choices[i].decided == 1   ? "either"
                     : cx->choices[i].decided == 2 ? "or"
                                                   : "open");
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
    psi_json_begin_array(j, "cycles");
    for (uint32_t i = 0; i < cx->n_cycles; i++) {
        const psi_cex_cycle *c = &cx->cycles[i];
        psi_json_begin_object(j, NULL);
        psi_json_begin_array(j, "when");
        for (uint32_t k = 0; k < cx->n_choices && k < 32; k++) {
            if (!(c->cond_mask >> k & 1))
                continue;
            psi_json_begin_object(j, NULL);
            psi_json_u64(j, "choice", k);
            psi_json_str(j, "side", c->cond_or >> k & 1 ? "or" : "either");
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
    psi_json_end_object(j);
}

static void dot_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        if (*s == '\n')
            fputs("\\l", f);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static bool write_dot(const psi_history *h, const char *level, const psi_cex *cx, FILE *f)
{
    fprintf(f, "digraph counterexample {\n  rankdir=LR;\n  labelloc=t;\n  label=");
    char title[2048];
    snprintf(title, sizeof title, "%s violation: %s%s", level, cx->summary,
             cx->minimal ? " (minimal)" : "");
    dot_str(f, title);
    fprintf(f, ";\n  node [shape=box, fontname=\"monospace\"];\n"
               "  edge [fontname=\"monospace\"];\n");
    for (uint32_t i = 0; i < cx->n_txns; i++) {
        uint32_t t = cx->txns[i];
        char name[64], ops[4096], label[4400];
        psi_fmt_txn(h, t, name, sizeof name);
        txn_ops(h, t, ops, sizeof ops, "\n");
        if (t == PSI_INIT_TXN)
            snprintf(label, sizeof label, "%s\n%s\n", name, ops);
        else
            snprintf(label, sizeof label, "%s\nsession %llu, position %u\n%s\n", name,
                     (unsigned long long)h->sessions[h->txns[t].session].id, h->txns[t].pos + 1,
                     ops);
        fprintf(f, "  t%u [label=", t);
        dot_str(f, label);
        fprintf(f, "];\n");
    }
    for (uint32_t i = 0; i < cx->n_edges; i++) {
        const psi_cex_edge *e = &cx->edges[i];
        char label[256];
        if (e->type == PSI_EDGE_SO)
            snprintf(label, sizeof label, "SO");
        else
            snprintf(label, sizeof label, "%s(%llu)", psi_edge_type_name((psi_edge_type)e->type),
                     (unsigned long long)h->keys[e->key]);
        const char *style = "solid", *color = "black";
        if (e->origin == PSI_CEX_DECIDED) {
            style = "dashed";
        } else if (e->origin == PSI_CEX_EXCLUDED) {
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "\n(ruled out)");
            style = "dotted";
            color = "gray";
        } else if (e->origin == PSI_CEX_EITHER || e->origin == PSI_CEX_OR) {
            const psi_cex_choice *ch = &cx->choices[e->choice];
            char a[64];
            psi_fmt_txn(h, e->origin == PSI_CEX_OR ? ch->s : ch->t, a, sizeof a);
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "\nif %s first", a);
            style = "dotted";
            color = e->origin == PSI_CEX_OR ? "red" : "blue";
        }
        fprintf(f, "  t%u -> t%u [label=", e->from, e->to);
        dot_str(f, label);
        fprintf(f, ", style=%s, color=%s, fontcolor=%s];\n", style, color, color);
    }
    fprintf(f, "  subgraph cluster_legend {\n    label=\"legend\";\n    style=rounded;\n"
               "    legend [shape=plaintext, label=\"solid: certain (from the history)\\l"
               "dashed: decided by the interpretation\\l"
               "dotted blue/red: holds only if the named writer of an open pair goes first\\l"
               "dotted gray: the order ruled out (it closes a cycle)\\l"
               "labels: SO session order, WR read-from, WW version order, RW anti-dependency "
               "(key)\\l\"];\n  }\n}\n");
    return !ferror(f);
}

static void print_json(const psi_history *h, const char *path, const char *level,
                       const psi_check_result *r, const psi_cex *cx, double t_load, size_t peak)
{
    const psi_check_stats *s = &r->stats;
    psi_json j;
    psi_json_init(&j, stdout);
    psi_json_begin_object(&j, NULL);
    psi_json_str(&j, "path", path);
    psi_json_str(&j, "format", psi_format_name(h->format));
    psi_json_str(&j, "isolation", level);
    psi_json_str(&j, "verdict", r->verdict == PSI_ACCEPT ? "accept" : "reject");
    psi_json_str(&j, "reason", reason_name(r->reason));
    psi_json_begin_array(&j, "anomalies");
    for (size_t i = 0; i < r->idx.n_anomalies; i++) {
        const psi_anomaly *an = &r->idx.anomalies[i];
        char t[64], o[128];
        psi_json_begin_object(&j, NULL);
        psi_json_str(&j, "kind", psi_anomaly_name(an->kind));
        psi_json_str(&j, "title", psi_anomaly_title(an->kind));
        psi_fmt_txn(h, an->txn, t, sizeof t);
        psi_fmt_op(h, an->op, o, sizeof o);
        psi_json_str(&j, "transaction", t);
        psi_json_str(&j, "operation", o);
        if (an->other_op != PSI_SRC_NONE) {
            psi_fmt_txn(h, an->other_txn, t, sizeof t);
            psi_fmt_op(h, an->other_op, o, sizeof o);
            psi_json_str(&j, "other_transaction", t);
            psi_json_str(&j, "other_operation", o);
        }
        psi_json_end_object(&j);
    }
    psi_json_end_array(&j);
    psi_json_begin_array(&j, "cycles");
    if (r->reason == PSI_BY_KNOWN_CYCLE || r->reason == PSI_BY_PRUNING) {
        for (int c = 0; c < 2; c++)
            if (r->prune.cycle_len[c])
                json_cycle(&j, h, NULL, r->prune.cycle[c], r->prune.cycle_len[c]);
    } else if (r->reason == PSI_BY_SOLVER && r->solver_cycle_len) {
        json_cycle(&j, h, NULL, r->solver_cycle, r->solver_cycle_len);
    }
    psi_json_end_array(&j);
    json_cex(&j, h, cx);
    psi_json_begin_object(&j, "stats");
    psi_json_begin_object(&j, "seconds");
    psi_json_num(&j, "load", t_load);
    psi_json_num(&j, "validate", s->t_validate);
    psi_json_num(&j, "construct", s->t_construct);
    psi_json_num(&j, "prune", s->t_prune);
    psi_json_num(&j, "encode", s->t_encode);
    psi_json_num(&j, "solve", s->t_solve);
    psi_json_end_object(&j);
    psi_json_u64(&j, "sessions", s->sessions);
    psi_json_u64(&j, "transactions", s->transactions);
    psi_json_u64(&j, "committed", s->committed);
    psi_json_u64(&j, "operations", s->operations);
    psi_json_u64(&j, "known_edges_before", s->known_edges_before);
    psi_json_u64(&j, "known_edges_after", s->known_edges_after);
    psi_json_u64(&j, "constraints_before", s->constraints_before);
    psi_json_u64(&j, "constraints_generated", s->constraints_generated);
    psi_json_u64(&j, "constraints_after", s->constraints_after);
    psi_json_u64(&j, "unknown_deps_before", s->unknown_deps_before);
    psi_json_u64(&j, "unknown_deps_after", s->unknown_deps_after);
    psi_json_u64(&j, "prune_rounds", s->prune_rounds);
    psi_json_u64(&j, "solver_vars", s->vars);
    psi_json_u64(&j, "solver_edges", s->theory_edges);
    psi_json_u64(&j, "decisions", s->decisions);
    psi_json_u64(&j, "conflicts", s->conflicts);
    psi_json_u64(&j, "propagations", s->propagations);
    psi_json_u64(&j, "restarts", s->restarts);
    psi_json_u64(&j, "learned", s->learned);
    psi_json_u64(&j, "theory_calls", s->theory_calls);
    psi_json_u64(&j, "theory_conflicts", s->theory_conflicts);
    psi_json_u64(&j, "theory_propagations", s->theory_propagations);
    psi_json_num(&j, "theory_seconds", s->theory_seconds);
    psi_json_num(&j, "interpret_seconds", cx->present ? cx->seconds : 0.0);
    psi_json_u64(&j, "peak_memory_bytes", peak);
    psi_json_end_object(&j);
    psi_json_end_object(&j);
}

static void print_text(const psi_history *h, const char *level, const psi_check_result *r,
                       const psi_cex *cx)
{
    if (r->verdict == PSI_ACCEPT) {
        printf("ACCEPT: the history satisfies %s\n", level);
        return;
    }
    printf("REJECT: the history violates %s: %s\n", level, reason_text(r->reason));
    switch (r->reason) {
    case PSI_BY_ANOMALY:
        for (size_t i = 0; i < r->idx.n_anomalies; i++)
            print_anomaly_text(h, &r->idx.anomalies[i]);
        break;
    default:
        break;
    }
    print_cex_text(h, cx);
    if (cx->present && cx->restored_whole)
        return; /* the counterexample supersedes the raw cycles */
    switch (r->reason) {
    case PSI_BY_KNOWN_CYCLE:
        print_cycle_text(h, "cycle", r->prune.cycle[0], r->prune.cycle_len[0]);
        break;
    case PSI_BY_PRUNING:
        print_cycle_text(h, "cycle if the first writer goes first", r->prune.cycle[0],
                         r->prune.cycle_len[0]);
        print_cycle_text(h, "cycle if the second writer goes first", r->prune.cycle[1],
                         r->prune.cycle_len[1]);
        break;
    case PSI_BY_SOLVER:
        print_cycle_text(h, "last cycle the solver refuted", r->solver_cycle, r->solver_cycle_len);
        break;
    default:
        break;
    }
}

static bool save_witness(const psi_history *h, const psi_check_result *res, bool ser,
                         const char *path)
{
    psi_witness w;
    psi_diag d;
    if (psi_witness_build(h, res, ser, &w, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return false;
    }
    FILE *f = fopen(path, "w");
    bool ok = f && psi_witness_write(&w, h->source, f, path, &d) == PSI_OK;
    if (f && fclose(f) != 0)
        ok = false;
    if (!ok)
        fprintf(stderr, "polysi-solve: cannot write the witness to %s\n", path);
    psi_witness_free(&w);
    return ok;
}

int psi_cmd_check(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_read_opts ro = {0};
    psi_check_opts co = {0};
    psi_limits lim = {0};
    const char *path = NULL, *arg, *dot_path = NULL, *witness_path = NULL;
    uint64_t budget = PSI_INTERPRET_BUDGET_DEFAULT;
    bool json = false, stats = false, opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (path) {
                fprintf(stderr, "polysi-solve check: more than one PATH given\n");
                return 2;
            }
            path = arg;
        } else if (psi_args_flag(&a, arg, "--help")) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--json")) {
            json = true;
        } else if (psi_args_flag(&a, arg, "--stats")) {
            stats = true;
        } else if (psi_args_flag(&a, arg, "--no-pruning")) {
            co.no_pruning = true;
        } else if (psi_args_flag(&a, arg, "--no-coalescing")) {
            co.no_coalescing = true;
        } else if (psi_args_flag(&a, arg, "--no-theory-propagation")) {
            co.no_theory_propagation = true;
        } else if (psi_args_opt(&a, arg, "--interpret-budget")) {
            psi_args_u64(&a, "--interpret-budget", &budget);
        } else if (psi_args_opt(&a, arg, "--dot")) {
            dot_path = a.value;
        } else if (psi_args_opt(&a, arg, "--witness")) {
            witness_path = a.value;
        } else if (psi_limits_option(&a, arg, &lim)) {
            /* --timeout, --max-memory */
        } else if (psi_args_opt(&a, arg, "--time-limit")) {
            psi_args_double(&a, "--time-limit", &co.time_limit);
        } else if (psi_args_opt(&a, arg, "--isolation")) {
            if (strcmp(a.value, "si") == 0)
                co.ser = false;
            else if (strcmp(a.value, "ser") == 0)
                co.ser = true;
            else {
                fprintf(stderr, "polysi-solve check: --isolation takes si or ser, not '%s'\n",
                        a.value);
                return 2;
            }
        } else if (psi_args_opt(&a, arg, "--format")) {
            ro.format = psi_format_from_name(a.value);
            if (ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0) {
                fprintf(stderr, "polysi-solve check: unknown format '%s'\n", a.value);
                return 2;
            }
        } else {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (!path) {
        fprintf(stderr, "polysi-solve check: missing PATH (see --help)\n");
        return 2;
    }
    /* Limits cover loading, checking and interpreting; outputs are written
     * only after the watchdog is stopped, so no verdict or witness is ever
     * cut short. */
    bool wd_failed;
    psi_watchdog *wd = psi_limits_start(&lim, &wd_failed);
    if (wd_failed)
        return 2;
    psi_limits_stage(wd, "load");
    co.on_stage = psi_limits_on_stage;
    co.stage_ctx = wd;
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    double t0 = psi_now();
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK) {
        psi_limits_stop(wd);
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    double t_load = psi_now() - t0;
    co.keep_model = witness_path != NULL;
    psi_check_result res;
    if (psi_check(h, &co, &res, &d) != PSI_OK) {
        psi_limits_stop(wd);
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        psi_check_result_free(&res);
        psi_history_free(h);
        return 2;
    }
    const char *level = co.ser ? "SER" : "SI";
    int rc = res.verdict == PSI_ACCEPT ? 0 : 1;
    psi_cex cx;
    psi_cex_opts xo = {.ser = co.ser, .budget = budget};
    memset(&cx, 0, sizeof cx);
    /* --interpret-budget 0: no interpretation, only the raw cycle(s). */
    psi_limits_stage(wd, "interpret");
    psi_status xst = budget ? psi_cex_build(h, &res, &xo, &cx, &d) : PSI_OK;
    psi_limits_stop(wd);
    if (xst != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        psi_check_result_free(&res);
        psi_history_free(h);
        return 2;
    }
    if (rc == 0 && witness_path && !save_witness(h, &res, co.ser, witness_path))
        rc = 2;
    if (rc == 1 && dot_path && cx.present) {
        FILE *f = fopen(dot_path, "w");
        bool ok = f && write_dot(h, level, &cx, f);
        if (f && fclose(f) != 0)
            ok = false;
        if (!ok) {
            fprintf(stderr, "polysi-solve: cannot write %s\n", dot_path);
            rc = 2;
        }
    }
    size_t peak = peak_rss_bytes();
    if (rc != 2) {
        if (json) {
            print_json(h, path, level, &res, &cx, t_load, peak);
        } else {
            print_text(h, level, &res, &cx);
            if (stats) {
                print_stats_text(&res.stats, t_load, peak);
                print_interpret_stats(&cx);
            }
        }
    }
    psi_cex_free(&cx);
    psi_check_result_free(&res);
    psi_history_free(h);
    return rc;
}
