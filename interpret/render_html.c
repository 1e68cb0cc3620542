/* The HTML report of `check --html` (render.h): one self-contained page (no
 * scripts, no external fonts, styles or images) with a summary table of
 * every history checked and a section per history: the verdict, the
 * history's size and the stage timings; for a reject the counterexample
 * drawn (an SVG given by the caller, Graphviz's, or render_svg.c's own
 * layout), the legend, its transactions with their operations, and the
 * full text report. Written for a 1200 px wide window and for print. */
#include "interpret/describe.h"
#include "interpret/render.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
    for (; s && *s; s++) {
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

static const char *status_name(uint8_t st)
{
    switch (st) {
    case PSI_TXN_COMMITTED:
        return "committed";
    case PSI_TXN_ABORTED:
        return "aborted";
    case PSI_TXN_INITIAL:
        return "initial state";
    default:
        return "unknown";
    }
}

/* The legend: one sample line per style, as both drawings use them. */
static void legend(FILE *f)
{
    static const struct {
        const char *dash, *color, *text;
    } rows[] = {
        {NULL, "#222", "certain: from the history (session order, reads-from, the initial state)"},
        {"7 4", "#222", "decided by the interpretation (the other order closes a forbidden cycle)"},
        {"2 4", "#1f5fbf", "holds only if the named writer of an open pair goes first (one order)"},
        {"2 4", "#c0392b", "holds only if the named writer of an open pair goes first (the other)"},
        {"2 4", "#888", "the order ruled out (shown with the cycle it would close)"},
    };
    fputs("<ul class=\"legend\">\n", f);
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        fprintf(f,
                "<li><svg width=\"44\" height=\"10\" aria-hidden=\"true\"><line x1=\"2\" "
                "y1=\"5\" x2=\"42\" y2=\"5\" stroke=\"%s\" stroke-width=\"1.6\"%s%s%s/></svg> %s"
                "</li>\n",
                rows[i].color, rows[i].dash ? " stroke-dasharray=\"" : "",
                rows[i].dash ? rows[i].dash : "", rows[i].dash ? "\"" : "", rows[i].text);
    }
    fputs("<li>labels: <b>SO</b> session order, <b>WR</b> read-from (write-read), <b>WW</b> "
          "version order (write-write), <b>RW</b> anti-dependency (read-write), with the key "
          "in parentheses</li>\n</ul>\n",
          f);
}

/* The counterexample's transactions, each with its operations. */
static void txn_table(FILE *f, const psi_history *h, const psi_cex *cx)
{
    fputs("<table class=\"txns\"><thead><tr><th>transaction</th><th>session</th>"
          "<th>position</th><th>status</th><th>operations</th></tr></thead><tbody>\n",
          f);
    for (uint32_t i = 0; i < cx->n_txns; i++) {
        uint32_t t = cx->txns[i];
        char name[64], op[256];
        psi_fmt_txn(h, t, name, sizeof name);
        fputs("<tr><td><code>", f);
        esc(f, name);
        if (t == PSI_INIT_TXN) {
            fputs("</code></td><td></td><td></td><td></td><td>writes every key's initial "
                  "value</td></tr>\n",
                  f);
            continue;
        }
        const psi_txn *tx = &h->txns[t];
        fprintf(f, "</code></td><td>%llu</td><td>%u</td><td>%s</td><td>",
                (unsigned long long)h->sessions[tx->session].id, tx->pos + 1,
                status_name(tx->status));
        for (uint32_t k = 0; k < tx->n_ops; k++) {
            psi_fmt_op(h, tx->first_op + k, op, sizeof op);
            fputs("<code>", f);
            esc(f, op);
            fputs("</code> ", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

bool psi_render_html_cex(const psi_history *h, const psi_check_result *res, const psi_cex *cx,
                         const psi_render_opts *o, const char *svg, const char *id, FILE *f)
{
    assert(h && res && cx && o && id && f);
    if (cx->present) {
        fprintf(f, "<h3>Counterexample: %s (%s)%s</h3>\n<p class=\"cexsum\">",
                psi_cex_kind_title(cx->kind), psi_cex_kind_name(cx->kind),
                cx->minimal ? ", minimal" : "");
        esc(f, cx->summary);
        fputs("</p>\n<figure class=\"graph\">\n", f);
        if (svg)
            fputs(svg, f);
        else if (!psi_render_svg(h, cx, id, f))
            fputs("<p>(the drawing could not be made: out of memory)</p>\n", f);
        fprintf(f,
                "<figcaption>%u transactions, %u dependencies; laid out by %s</figcaption>\n"
                "</figure>\n",
                cx->n_txns, cx->n_edges, svg ? "Graphviz (dot)" : "polysi-solve's layered layout");
        legend(f);
        txn_table(f, h, cx);
    } else {
        fputs("<p>No counterexample was drawn: the violation is shown in the report below "
              "(graph-free anomalies, or the raw cycle when the interpretation was not run).</p>\n",
              f);
    }
    /* The whole text report, for what the drawing leaves out (graph-free
     * anomalies, decided pairs, the raw cycles). */
    char *text = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&text, &len);
    bool ok = m != NULL;
    if (m) {
        psi_render_opts to = *o;
        to.stats = false;
        ok = psi_render_text(h, res, cx, &to, m);
        ok = fclose(m) == 0 && ok;
    }
    fputs("<details class=\"report\"", f);
    fputs(cx->present ? "" : " open", f);
    fputs("><summary>The text report</summary>\n<pre>", f);
    if (ok)
        esc(f, text);
    else
        fputs("(out of memory)", f);
    fputs("</pre></details>\n", f);
    free(text);
    return !ferror(f);
}

static const char *stage_title(psi_stage s)
{
    return psi_stage_name(s);
}

static void human_bytes(uint64_t b, char *buf, size_t n)
{
    if (b >= 1024ull * 1024 * 1024)
        snprintf(buf, n, "%.1f GiB", (double)b / (1024.0 * 1024 * 1024));
    else if (b >= 1024ull * 1024)
        snprintf(buf, n, "%.1f MiB", (double)b / (1024.0 * 1024));
    else
        snprintf(buf, n, "%.0f KiB", (double)b / 1024.0);
}

static const char *verdict_word(psi_outcome o)
{
    return o == PSI_OUTCOME_ACCEPT ? "ACCEPT" : o == PSI_OUTCOME_REJECT ? "REJECT" : "ERROR";
}

static const char *verdict_class(psi_outcome o)
{
    return o == PSI_OUTCOME_ACCEPT ? "acc" : o == PSI_OUTCOME_REJECT ? "rej" : "err";
}

/* The anomaly cell of a summary row. */
static void anomaly_cell(FILE *f, const psi_summary *s)
{
    if (s->outcome == PSI_OUTCOME_REJECT) {
        if (s->named)
            esc(f, psi_cex_kind_name(s->kind));
        else
            fputs("violation (not named)", f);
        if (s->n_anomalies > 1)
            fprintf(f, " (+%u more)", s->n_anomalies - 1);
    } else if (s->outcome == PSI_OUTCOME_ERROR) {
        esc(f, s->error ? s->error : "error");
    }
}

static void error_place(FILE *f, const psi_summary *s)
{
    if (s->error_file) {
        esc(f, s->error_file);
        if (s->error_where == PSI_AT_LINE)
            fprintf(f, ":%llu:%llu", (unsigned long long)s->error_line,
                    (unsigned long long)s->error_col);
        else if (s->error_where == PSI_AT_OFFSET)
            fprintf(f, ": byte %llu", (unsigned long long)s->error_offset);
    }
}

static void section(FILE *f, const psi_html_entry *e, size_t i)
{
    const psi_summary *s = e->s;
    const char *level = psi_level_name(psi_level_of(s->ser, s->level));
    fprintf(f, "<section id=\"h%zu\">\n<h2>%zu. ", i + 1, i + 1);
    esc(f, s->path);
    fprintf(f, "</h2>\n<p class=\"verdict %s\"><span class=\"badge\">%s</span> ",
            verdict_class(s->outcome), verdict_word(s->outcome));
    if (s->outcome == PSI_OUTCOME_ACCEPT) {
        fprintf(f, "the history satisfies %s", level);
    } else if (s->outcome == PSI_OUTCOME_REJECT) {
        fprintf(f, "the history violates %s", level);
        if (s->named) {
            fputs(": ", f);
            esc(f, s->summary ? s->summary : psi_cex_kind_name(s->kind));
        }
    } else {
        fprintf(f, "no verdict: the %s stage stopped: ", psi_stage_name(s->error_stage));
        esc(f, s->error);
        if (s->error_file) {
            fputs(" (at ", f);
            error_place(f, s);
            fputs(")", f);
        }
    }
    fputs("</p>\n<div class=\"facts\">\n<table class=\"kv\"><tbody>\n", f);
    fprintf(f, "<tr><th>format</th><td>%s</td></tr>\n<tr><th>level checked</th><td>%s</td></tr>\n",
            s->format == PSI_FMT_AUTO ? "(not read)" : psi_format_name(s->format), level);
    if (s->transactions) {
        fprintf(f,
                "<tr><th>sessions</th><td>%u</td></tr>\n<tr><th>transactions</th><td>%u (%u "
                "committed)</td></tr>\n<tr><th>operations</th><td>%llu</td></tr>\n",
                s->sessions, s->transactions, s->committed, (unsigned long long)s->operations);
        fprintf(f,
                "<tr><th>constraints</th><td>%llu before pruning, %llu after</td></tr>\n"
                "<tr><th>solver conflicts</th><td>%llu</td></tr>\n",
                (unsigned long long)s->constraints_before, (unsigned long long)s->constraints_after,
                (unsigned long long)s->conflicts);
    }
    if (s->peak_bytes) {
        char b[32];
        human_bytes(s->peak_bytes, b, sizeof b);
        fprintf(f, "<tr><th>peak memory</th><td>%s</td></tr>\n", b);
    }
    fputs("</tbody></table>\n<table class=\"stages\"><thead><tr><th>stage</th><th>time "
          "(s)</th></tr></thead><tbody>\n",
          f);
    for (int st = 0; st < PSI_STAGE_COUNT; st++)
        if (s->seconds[st] > 0)
            fprintf(f, "<tr><td>%s</td><td>%.4f</td></tr>\n", stage_title((psi_stage)st),
                    s->seconds[st]);
    fprintf(f,
            "<tr class=\"total\"><td>whole run</td><td>%.4f</td></tr>\n</tbody></table>\n</div>\n",
            s->wall);
    if (s->outcome == PSI_OUTCOME_REJECT) {
        if (e->detail)
            fputs(e->detail, f);
        else
            fputs("<p>(the counterexample was not kept for this report)</p>\n", f);
    }
    fputs("<p class=\"top\"><a href=\"#summary\">back to the summary</a></p>\n</section>\n", f);
}

static const char css[] =
    ":root{color-scheme:light}"
    "body{font-family:system-ui,-apple-system,\"Segoe UI\",Roboto,\"DejaVu Sans\",sans-serif;"
    "margin:0;color:#1b1b1b;background:#fff;line-height:1.4}"
    "main{max-width:1160px;margin:0 auto;padding:16px 20px 40px}"
    "h1{font-size:1.6em;margin:.4em 0 .2em}h2{font-size:1.25em;margin:0 0 .4em;"
    "overflow-wrap:anywhere}h3{font-size:1.05em;margin:1em 0 .3em}"
    "code,pre{font-family:\"DejaVu Sans Mono\",Menlo,Consolas,monospace;font-size:.88em}"
    "table{border-collapse:collapse}th,td{padding:3px 8px;text-align:left;vertical-align:top}"
    "table.summary{width:100%;margin:12px 0 24px}"
    "table.summary th{background:#f0f2f5;border-bottom:2px solid #c9ced6}"
    "table.summary td{border-bottom:1px solid #e3e6ea}table.summary td.num{text-align:right;"
    "font-variant-numeric:tabular-nums}table.summary td.path{overflow-wrap:anywhere;"
    "max-width:420px}"
    "section{border-top:2px solid #c9ced6;padding:14px 0 6px}"
    ".badge{display:inline-block;font-weight:700;padding:1px 8px;border-radius:4px;"
    "color:#fff;font-size:.85em;letter-spacing:.04em}"
    ".acc .badge,.badge.acc{background:#1e7b34}.rej .badge,.badge.rej{background:#b3261e}"
    ".err .badge,.badge.err{background:#7a5b00}"
    ".verdict{font-size:1.05em;margin:.3em 0 .8em}"
    ".facts{display:flex;flex-wrap:wrap;gap:12px 40px}"
    "table.kv th{font-weight:600;color:#444;padding-left:0}"
    "table.stages th{background:#f0f2f5}table.stages td:last-child{text-align:right;"
    "font-variant-numeric:tabular-nums}table.stages tr.total td{border-top:1px solid #aaa;"
    "font-weight:600}"
    ".cexsum{margin:.2em 0 .6em}"
    "figure.graph{margin:8px 0;padding:10px;border:1px solid #d8dce2;border-radius:6px;"
    "overflow-x:auto;background:#fff}figure.graph svg{max-width:100%;height:auto;"
    "display:block;margin:0 auto}figcaption{color:#555;font-size:.85em;margin-top:6px}"
    "ul.legend{list-style:none;padding:0;margin:6px 0 10px;font-size:.9em;color:#333}"
    "ul.legend li{margin:2px 0}ul.legend svg{vertical-align:middle}"
    "table.txns{margin:6px 0 10px;width:100%}table.txns th{background:#f0f2f5}"
    "table.txns td{border-bottom:1px solid #e3e6ea}table.txns code{white-space:nowrap}"
    "details.report summary{cursor:pointer;color:#333}"
    "pre{background:#f7f8fa;border:1px solid #e3e6ea;padding:8px;overflow-x:auto;"
    "white-space:pre-wrap;overflow-wrap:anywhere}"
    "a{color:#0b57d0}p.top{font-size:.85em}"
    "@media print{main{max-width:none;padding:0}a{color:inherit;text-decoration:none}"
    "p.top{display:none}section{break-before:page}section:first-of-type{break-before:auto}"
    "figure.graph,table.txns tr,.facts{break-inside:avoid}details.report>*{display:block}"
    ".badge{print-color-adjust:exact;-webkit-print-color-adjust:exact}}";

bool psi_render_html_page(const psi_html_entry *e, size_t n, const char *note, FILE *f)
{
    assert(f && (e || n == 0));
    size_t acc = 0, rej = 0, err = 0;
    for (size_t i = 0; i < n; i++) {
        acc += e[i].s->outcome == PSI_OUTCOME_ACCEPT;
        rej += e[i].s->outcome == PSI_OUTCOME_REJECT;
        err += e[i].s->outcome == PSI_OUTCOME_ERROR;
    }
    fprintf(f,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            "<link rel=\"icon\" href=\"data:,\">\n<title>polysi-solve report: %zu %s</title>\n"
            "<style>%s</style>\n</head>\n<body>\n<main>\n<h1>polysi-solve report</h1>\n"
            "<p>%zu %s checked: <span class=\"badge acc\">%zu accepted</span> "
            "<span class=\"badge rej\">%zu rejected</span> <span class=\"badge err\">%zu "
            "error%s</span>",
            n, n == 1 ? "history" : "histories", css, n, n == 1 ? "history" : "histories", acc, rej,
            err, err == 1 ? "" : "s");
    if (note) {
        fputs("<br>", f);
        esc(f, note);
    }
    fputs("</p>\n<table class=\"summary\" id=\"summary\"><thead><tr><th>#</th><th>history</th>"
          "<th>format</th><th>level</th><th>verdict</th><th>anomaly</th><th>time (s)</th>"
          "<th>sessions</th><th>transactions</th><th>operations</th></tr></thead><tbody>\n",
          f);
    for (size_t i = 0; i < n; i++) {
        const psi_summary *s = e[i].s;
        fprintf(f, "<tr><td class=\"num\">%zu</td><td class=\"path\"><a href=\"#h%zu\">", i + 1,
                i + 1);
        esc(f, s->path);
        fprintf(f, "</a></td><td>%s</td><td>%s</td><td><span class=\"badge %s\">%s</span></td><td>",
                s->format == PSI_FMT_AUTO ? "" : psi_format_name(s->format),
                psi_level_name(psi_level_of(s->ser, s->level)), verdict_class(s->outcome),
                verdict_word(s->outcome));
        anomaly_cell(f, s);
        fprintf(f, "</td><td class=\"num\">%.3f</td>", s->wall);
        if (s->transactions)
            fprintf(f,
                    "<td class=\"num\">%u</td><td class=\"num\">%u</td><td class=\"num\">%llu</td>",
                    s->sessions, s->transactions, (unsigned long long)s->operations);
        else
            fputs("<td></td><td></td><td></td>", f);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    for (size_t i = 0; i < n; i++)
        section(f, &e[i], i);
    fputs("</main>\n</body>\n</html>\n", f);
    return !ferror(f);
}
