/* The counterexample as an SVG picture laid out here (render.h): the HTML
 * report's drawing when Graphviz is not installed, so the report never
 * depends on it. A plain layered layout, enough for the small graphs a
 * counterexample has:
 *
 *  1. a depth-first search marks the edges that close cycles (back edges);
 *  2. without them the graph is acyclic, and each transaction goes in the
 *     layer one past its deepest predecessor (longest path), laid out as
 *     columns from left to right;
 *  3. an edge to the next layer is a curve from a box's right side to the
 *     next box's left side; an edge that skips layers runs above the
 *     boxes, and a back edge below them, so no edge crosses a box's text.
 *
 * Boxes, arrows, styles and labels are those of render_dot.c (certain
 * solid, decided dashed, excluded dotted gray, an open pair's two orders
 * dotted blue/red), so both drawings read the same under one legend. */
#include "interpret/describe.h"
#include "interpret/render.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Geometry, in pixels, for a 12 px monospace font. */
#define CHAR_W         7.3
#define LINE_H         15.0
#define PAD            8.0
#define LAYER_GAP      150.0
#define NODE_GAP       36.0
#define MARGIN         16.0
#define BACK_STEP      26.0
#define MAX_OPS_SHOWN  8u
#define MAX_LINE_CHARS 44u

typedef struct node {
    uint32_t txn;
    uint32_t layer;
    double x, y, w, h;
    char lines[MAX_OPS_SHOWN + 3][MAX_LINE_CHARS + 4];
    uint32_t n_lines;
} node;

static void svg_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

/* Appends one line to nd, cut to MAX_LINE_CHARS (with "..."). */
static void add_line(node *nd, const char *s)
{
    if (nd->n_lines >= sizeof nd->lines / sizeof nd->lines[0])
        return;
    char *dst = nd->lines[nd->n_lines++];
    size_t n = strlen(s);
    if (n > MAX_LINE_CHARS) {
        memcpy(dst, s, MAX_LINE_CHARS - 3);
        memcpy(dst + MAX_LINE_CHARS - 3, "...", 4);
    } else {
        memcpy(dst, s, n + 1);
    }
}

static void node_text(const psi_history *h, node *nd)
{
    char buf[4096];
    psi_fmt_txn(h, nd->txn, buf, sizeof buf);
    add_line(nd, buf);
    if (nd->txn != PSI_INIT_TXN) {
        const psi_txn *t = &h->txns[nd->txn];
        snprintf(buf, sizeof buf, "session %llu, position %u",
                 (unsigned long long)h->sessions[t->session].id, t->pos + 1);
        add_line(nd, buf);
    }
    psi_fmt_txn_ops(h, nd->txn, "\n", buf, sizeof buf);
    uint32_t shown = 0, total = 0;
    for (char *p = buf; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (shown < MAX_OPS_SHOWN) {
            add_line(nd, p);
            shown++;
        }
        total++;
        if (!nl)
            break;
        p = nl + 1;
    }
    if (total > shown) {
        snprintf(buf, sizeof buf, "... %u more", total - shown);
        add_line(nd, buf);
    }
    size_t widest = 0;
    for (uint32_t i = 0; i < nd->n_lines; i++) {
        size_t l = strlen(nd->lines[i]);
        widest = l > widest ? l : widest;
    }
    nd->w = (double)widest * CHAR_W + 2 * PAD;
    nd->h = nd->n_lines * LINE_H + PAD;
}

static uint32_t local_index(const psi_cex *cx, uint32_t txn)
{
    /* cx->txns is sorted */
    uint32_t lo = 0, hi = cx->n_txns;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cx->txns[mid] < txn)
            lo = mid + 1;
        else
            hi = mid;
    }
    assert(lo < cx->n_txns && cx->txns[lo] == txn);
    return lo;
}

/* Steps 1 and 2: back[e] for edges closing a cycle, nd[].layer. */
static bool layer_nodes(const psi_cex *cx, const uint32_t *from, const uint32_t *to, node *nd,
                        bool *back)
{
    uint32_t n = cx->n_txns, m = cx->n_edges;
    uint32_t *start = calloc((size_t)n + 1, sizeof *start);
    uint32_t *adj = malloc(((size_t)m + 1) * sizeof *adj);
    uint8_t *state = calloc(n ? n : 1, 1);
    uint32_t *stack = malloc(((size_t)n + 1) * sizeof *stack);
    uint32_t *next = calloc(n ? n : 1, sizeof *next);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    bool ok = start && adj && state && stack && next && order;
    if (ok) {
        for (uint32_t e = 0; e < m; e++)
            start[from[e] + 1]++;
        for (uint32_t v = 0; v < n; v++)
            start[v + 1] += start[v];
        uint32_t *fill = next; /* reused: zero after */
        for (uint32_t e = 0; e < m; e++)
            adj[start[from[e]] + fill[from[e]]++] = e;
        memset(next, 0, n * sizeof *next);
        /* Iterative DFS; order[] collects nodes by finishing time. */
        uint32_t n_order = 0;
        for (uint32_t root = 0; root < n; root++) {
            if (state[root])
                continue;
            uint32_t sp = 0;
            stack[sp++] = root;
            state[root] = 1;
            while (sp) {
                uint32_t v = stack[sp - 1];
                if (next[v] < start[v + 1] - start[v]) {
                    uint32_t e = adj[start[v] + next[v]++];
                    uint32_t w = to[e];
                    if (state[w] == 1)
                        back[e] = true; /* on the stack: closes a cycle */
                    else if (state[w] == 0) {
                        state[w] = 1;
                        stack[sp++] = w;
                    }
                } else {
                    state[v] = 2;
                    order[n_order++] = v;
                    sp--;
                }
            }
        }
        /* Reverse finishing order is a topological order of the rest. */
        for (uint32_t i = n_order; i-- > 0;) {
            uint32_t v = order[i];
            for (uint32_t k = start[v]; k < start[v + 1]; k++) {
                uint32_t e = adj[k];
                if (!back[e] && nd[to[e]].layer < nd[v].layer + 1)
                    nd[to[e]].layer = nd[v].layer + 1;
            }
        }
    }
    free(start);
    free(adj);
    free(state);
    free(stack);
    free(next);
    free(order);
    return ok;
}

/* Step 2's geometry: columns by layer, boxes stacked and centred. Returns
 * the drawing's width; *height is the boxes' bottom. */
static double place_nodes(node *nd, uint32_t n, double top, double *height)
{
    uint32_t layers = 0;
    for (uint32_t i = 0; i < n; i++)
        layers = nd[i].layer + 1 > layers ? nd[i].layer + 1 : layers;
    double *lw = calloc(layers ? layers : 1, sizeof *lw);
    double *lh = calloc(layers ? layers : 1, sizeof *lh);
    if (!lw || !lh) {
        free(lw);
        free(lh);
        return -1;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = nd[i].layer;
        lw[l] = nd[i].w > lw[l] ? nd[i].w : lw[l];
        lh[l] += (lh[l] > 0 ? NODE_GAP : 0) + nd[i].h;
    }
    double tallest = 0, x = MARGIN;
    for (uint32_t l = 0; l < layers; l++)
        tallest = lh[l] > tallest ? lh[l] : tallest;
    double *lx = calloc(layers ? layers : 1, sizeof *lx);
    double *ly = calloc(layers ? layers : 1, sizeof *ly);
    if (!lx || !ly) {
        free(lw);
        free(lh);
        free(lx);
        free(ly);
        return -1;
    }
    for (uint32_t l = 0; l < layers; l++) {
        lx[l] = x;
        x += lw[l] + LAYER_GAP;
        ly[l] = top + (tallest - lh[l]) / 2;
    }
    for (uint32_t i = 0; i < n; i++) {
        uint32_t l = nd[i].layer;
        nd[i].x = lx[l] + (lw[l] - nd[i].w) / 2;
        nd[i].y = ly[l];
        ly[l] += nd[i].h + NODE_GAP;
    }
    *height = top + tallest;
    double width = x - LAYER_GAP + MARGIN;
    free(lw);
    free(lh);
    free(lx);
    free(ly);
    return width;
}

typedef struct edge_style {
    const char *dash, *color, *marker;
} edge_style;

static edge_style style_of(uint8_t origin)
{
    switch (origin) {
    case PSI_CEX_DECIDED:
        return (edge_style){"7 4", "#222", "k"};
    case PSI_CEX_EXCLUDED:
        return (edge_style){"2 4", "#888", "g"};
    case PSI_CEX_EITHER:
        return (edge_style){"2 4", "#1f5fbf", "b"};
    case PSI_CEX_OR:
        return (edge_style){"2 4", "#c0392b", "r"};
    default:
        return (edge_style){NULL, "#222", "k"};
    }
}

/* The label of edge e: TYPE(key), and a second line for the styles that
 * need words (as render_dot.c). */
static void edge_label(const psi_history *h, const psi_cex *cx, const psi_cex_edge *e, char *l1,
                       char *l2, size_t n)
{
    if (e->type == PSI_EDGE_SO)
        snprintf(l1, n, "SO");
    else
        snprintf(l1, n, "%s(%s)", psi_edge_type_name((psi_edge_type)e->type),
                 PSI_KEY_NAME(h, e->key));
    l2[0] = '\0';
    if (e->origin == PSI_CEX_EXCLUDED) {
        snprintf(l2, n, "(ruled out)");
    } else if (e->origin == PSI_CEX_EITHER || e->origin == PSI_CEX_OR) {
        const psi_cex_choice *ch = &cx->choices[e->choice];
        char a[64];
        psi_fmt_txn(h, e->origin == PSI_CEX_OR ? ch->s : ch->t, a, sizeof a);
        snprintf(l2, n, "if %s first", a);
    } else if (e->origin == PSI_CEX_READ_FROM) {
        char a[64];
        psi_fmt_txn(h, cx->rcands[e->rcand - 1].txn, a, sizeof a);
        snprintf(l2, n, "if read from %s", a);
    }
}

static void draw_label(FILE *f, double x, double y, const char *l1, const char *l2,
                       const char *color)
{
    fprintf(f, "<text class=\"el\" x=\"%.1f\" y=\"%.1f\" fill=\"%s\">", x, y, color);
    svg_text(f, l1);
    if (l2[0]) {
        fprintf(f, "<tspan x=\"%.1f\" dy=\"13\">", x);
        svg_text(f, l2);
        fputs("</tspan>", f);
    }
    fputs("</text>\n", f);
}

/* Step 3. Parallel edges between one pair are spread apart by their rank
 * among them. */
static void draw_edges(FILE *f, const psi_history *h, const psi_cex *cx, const node *nd,
                       const uint32_t *from, const uint32_t *to, const bool *back, double top,
                       double bottom, const char *id)
{
    uint32_t n_back = 0, n_over = 0;
    for (uint32_t e = 0; e < cx->n_edges; e++) {
        const node *a = &nd[from[e]], *b = &nd[to[e]];
        uint32_t rank = 0, same = 0;
        for (uint32_t k = 0; k < cx->n_edges; k++) {
            if (from[k] == from[e] && to[k] == to[e]) {
                rank += k < e;
                same++;
            }
        }
        double spread = ((double)rank - (double)(same - 1) / 2.0) * 16.0;
        edge_style st = style_of(cx->edges[e].origin);
        char l1[128], l2[128];
        edge_label(h, cx, &cx->edges[e], l1, l2, sizeof l1);
        double x1, y1, x2, y2, c1x, c1y, c2x, c2y;
        if (!back[e] && b->layer > a->layer + 1) {
            /* Above everything: up from a, along, down into b. */
            double high = top - BACK_STEP * (double)(++n_over);
            x1 = a->x + a->w / 2 + spread;
            y1 = a->y;
            x2 = b->x + b->w / 2 + spread;
            y2 = b->y;
            c1x = x1;
            c1y = high;
            c2x = x2;
            c2y = high;
        } else if (!back[e] && b->layer > a->layer) {
            x1 = a->x + a->w;
            y1 = a->y + a->h / 2 + spread;
            x2 = b->x;
            y2 = b->y + b->h / 2 + spread;
            double dx = (x2 - x1) / 2;
            c1x = x1 + dx;
            c1y = y1;
            c2x = x2 - dx;
            c2y = y2;
        } else {
            /* Below everything: down from a, along, up into b. */
            double low = bottom + BACK_STEP * (double)(++n_back);
            x1 = a->x + a->w / 2 + spread;
            y1 = a->y + a->h;
            x2 = b->x + b->w / 2 + spread;
            y2 = b->y + b->h;
            c1x = x1;
            c1y = low;
            c2x = x2;
            c2y = low;
            if (from[e] == to[e]) {
                c1x -= 40;
                c2x += 40;
            }
        }
        fprintf(f,
                "<path d=\"M%.1f,%.1f C%.1f,%.1f %.1f,%.1f %.1f,%.1f\" fill=\"none\" "
                "stroke=\"%s\" stroke-width=\"1.4\"%s%s%s marker-end=\"url(#%s-%s)\"/>\n",
                x1, y1, c1x, c1y, c2x, c2y, x2, y2, st.color, st.dash ? " stroke-dasharray=\"" : "",
                st.dash ? st.dash : "", st.dash ? "\"" : "", id, st.marker);
        /* the curve's midpoint: (P0 + 3 P1 + 3 P2 + P3) / 8 */
        double mx = (x1 + 3 * c1x + 3 * c2x + x2) / 8, my = (y1 + 3 * c1y + 3 * c2y + y2) / 8;
        draw_label(f, mx, my + (c1y < y1 ? -4 : l2[0] ? 2 : 10), l1, l2, st.color);
    }
}

bool psi_render_svg(const psi_history *h, const psi_cex *cx, const char *id, FILE *f)
{
    assert(h && cx && id && f);
    assert(cx->present);
    uint32_t n = cx->n_txns, m = cx->n_edges;
    node *nd = calloc(n ? n : 1, sizeof *nd);
    uint32_t *from = malloc(((size_t)m + 1) * sizeof *from);
    uint32_t *to = malloc(((size_t)m + 1) * sizeof *to);
    bool *back = calloc((size_t)m + 1, sizeof *back);
    bool ok = nd && from && to && back;
    if (ok) {
        for (uint32_t i = 0; i < n; i++) {
            nd[i].txn = cx->txns[i];
            node_text(h, &nd[i]);
        }
        for (uint32_t e = 0; e < m; e++) {
            from[e] = local_index(cx, cx->edges[e].from);
            to[e] = local_index(cx, cx->edges[e].to);
        }
        ok = layer_nodes(cx, from, to, nd, back);
    }
    uint32_t n_back = 0, n_over = 0;
    for (uint32_t e = 0; ok && e < m; e++) {
        n_back += back[e] || nd[to[e]].layer <= nd[from[e]].layer;
        n_over += !back[e] && nd[to[e]].layer > nd[from[e]].layer + 1;
    }
    /* room above the boxes for the edges that skip layers, and labels */
    double top = MARGIN + BACK_STEP * (double)n_over + (n_over ? 20 : 0);
    double bottom = 0, width = ok ? place_nodes(nd, n, top, &bottom) : -1;
    if (ok && width >= 0) {
        double height = bottom + BACK_STEP * (double)n_back + (n_back ? 30 : 0) + MARGIN;
        fprintf(f,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                "viewBox=\"0 0 %.0f %.0f\" role=\"img\" aria-label=\"counterexample\">\n"
                "<style>text{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;"
                "font-size:12px}.el{font-size:11px;text-anchor:middle;paint-order:stroke;"
                "stroke:#fff;stroke-width:4px;stroke-linejoin:round}</style>\n<defs>\n",
                width, height, width, height);
        static const char *const markers[][2] = {
            {"k", "#222"}, {"g", "#888"}, {"b", "#1f5fbf"}, {"r", "#c0392b"}};
        for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++)
            fprintf(f,
                    "<marker id=\"%s-%s\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
                    "markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\">"
                    "<path d=\"M0,0 L10,5 L0,10 z\" fill=\"%s\"/></marker>\n",
                    id, markers[i][0], markers[i][1]);
        fputs("</defs>\n", f);
        for (uint32_t i = 0; i < n; i++) {
            const node *a = &nd[i];
            fprintf(f,
                    "<g><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"4\" "
                    "fill=\"#fff\" stroke=\"#222\"/>\n",
                    a->x, a->y, a->w, a->h);
            for (uint32_t l = 0; l < a->n_lines; l++) {
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\"%s>", a->x + PAD,
                        a->y + PAD / 2 + LINE_H * (l + 1) - 3,
                        l == 0 ? " font-weight=\"bold\"" : "");
                svg_text(f, a->lines[l]);
                fputs("</text>\n", f);
            }
            fputs("</g>\n", f);
        }
        draw_edges(f, h, cx, nd, from, to, back, top, bottom, id);
        fputs("</svg>\n", f);
    }
    free(nd);
    free(from);
    free(to);
    free(back);
    return ok && width >= 0 && !ferror(f);
}
