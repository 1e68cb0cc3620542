/* The Graphviz picture of a counterexample (render.h): one box per
 * transaction with its session, position and operations, one arrow per
 * dependency labelled TYPE(key), styled by origin (certain solid, decided
 * dashed, the excluded order dotted gray, the two orders of an open pair
 * dotted blue/red), and a legend that says so. `dot -Tsvg` renders it. */
#include "interpret/describe.h"
#include "interpret/render.h"

#include <assert.h>
#include <stdio.h>
#include <string.h>

/* A DOT string literal; a newline becomes \l (left-justified line). */
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

/* One box per transaction, named t<index> so edges can refer to it. */
static void dot_nodes(FILE *f, const psi_history *h, const psi_cex *cx)
{
    for (uint32_t i = 0; i < cx->n_txns; i++) {
        uint32_t t = cx->txns[i];
        char name[64], ops[4096], label[4400];
        psi_fmt_txn(h, t, name, sizeof name);
        psi_fmt_txn_ops(h, t, "\n", ops, sizeof ops);
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
}

/* One arrow per dependency, labelled TYPE(key) and styled by its origin,
 * as the legend explains. */
static void dot_edges(FILE *f, const psi_history *h, const psi_cex *cx)
{
    for (uint32_t i = 0; i < cx->n_edges; i++) {
        const psi_cex_edge *e = &cx->edges[i];
        char label[256];
        if (e->type == PSI_EDGE_SO)
            snprintf(label, sizeof label, "SO");
        else
            snprintf(label, sizeof label, "%s(%s)", psi_edge_type_name((psi_edge_type)e->type),
                     PSI_KEY_NAME(h, e->key));
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
        } else if (e->origin == PSI_CEX_READ_FROM) {
            style = "dotted";
            color = "darkgreen";
        }
        if (e->rcand) {
            /* which writer its read takes: forced, excluded, or a case */
            const psi_cex_rcand *rc = &cx->rcands[e->rcand - 1];
            const psi_cex_read *r = &cx->reads[rc->read];
            char a[64], o[160];
            psi_fmt_txn(h, rc->txn, a, sizeof a);
            psi_fmt_op(h, r->op, o, sizeof o);
            size_t l = strlen(label);
            snprintf(label + l, sizeof label - l, "\nif %s reads from %s (%s)", o, a,
                     rc->excluded              ? "excluded"
                     : rc->txn != r->writer    ? "possible"
                     : r->how == PSI_RF_FORCED ? "forced"
                                               : "decided");
        }
        fprintf(f, "  t%u -> t%u [label=", e->from, e->to);
        dot_str(f, label);
        fprintf(f, ", style=%s, color=%s, fontcolor=%s];\n", style, color, color);
    }
}

bool psi_render_dot(const psi_history *h, const psi_cex *cx, const psi_render_opts *o, FILE *f)
{
    assert(h && cx && o && f);
    assert(cx->present);
    const char *level = psi_level_name(psi_level_of(o->ser, o->level));
    if (o->dot_bare) {
        fprintf(f, "digraph counterexample {\n  rankdir=LR;\n"
                   "  node [shape=box, fontname=\"monospace\", fontsize=11];\n"
                   "  edge [fontname=\"monospace\", fontsize=10];\n");
        dot_nodes(f, h, cx);
        dot_edges(f, h, cx);
        fprintf(f, "}\n");
        return !ferror(f);
    }
    fprintf(f, "digraph counterexample {\n  rankdir=LR;\n  labelloc=t;\n  label=");
    char title[2048];
    snprintf(title, sizeof title, "%s violation: %s%s", level, cx->summary,
             cx->minimal ? " (minimal)" : "");
    dot_str(f, title);
    fprintf(f, ";\n  node [shape=box, fontname=\"monospace\"];\n"
               "  edge [fontname=\"monospace\"];\n");
    dot_nodes(f, h, cx);
    dot_edges(f, h, cx);
    fprintf(f, "  subgraph cluster_legend {\n    label=\"legend\";\n    style=rounded;\n"
               "    legend [shape=plaintext, label=\"solid: certain (from the history)\\l"
               "dashed: decided by the interpretation\\l"
               "dotted blue/red: holds only if the named writer of an open pair goes first\\l"
               "dotted gray: the order ruled out (it closes a cycle)\\l"
               "labels: SO session order, WR read-from, WW version order, RW anti-dependency "
               "(key)\\l\"];\n  }\n}\n");
    return !ferror(f);
}
