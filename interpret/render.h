/* Reports of a finished check, for people and for programs: the verdict
 * with its reason, the counterexample and the stage counts as text
 * (render_text.c) or as one JSON object (render_json.c, schema in README),
 * the counterexample as a Graphviz digraph (render_dot.c) or as SVG laid
 * out here (render_svg.c), the HTML report of one or many histories
 * (render_html.c), and the shape of a history for `polysi-solve stats`
 * (render_history.c).
 *
 * Renderers only read what check/ and explain/ built and write to the FILE*
 * they are given; they never print elsewhere, never close or flush `out`,
 * and choose no exit code (cli/ does). Each returns false when `out` is in
 * an error state afterwards (ferror), true otherwise. Transactions and
 * operations are named with interpret/describe.h everywhere, so a
 * transaction reads the same in every report. */
#ifndef PSI_INTERPRET_RENDER_H
#define PSI_INTERPRET_RENDER_H

#include "check/check.h"
#include "formats/locate.h"
#include "interpret/all.h"
#include "interpret/explain.h"
#include "interpret/summary.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* What the reports need beyond the check itself. */
typedef struct psi_render_opts {
    bool ser;            /* the level checked: named "SER", else "SI" ... */
    psi_level level;     /* ... unless this is another level (check/level.h) */
    bool stats;          /* text: append stage times, counts and peak memory */
    const char *path;    /* the input as the user named it (JSON "path"; NULL: "") */
    double load_seconds; /* reading the history and the version-order and timestamps
                            files, which psi_check does not time */
    size_t peak_bytes;   /* peak resident memory of the run, 0 if unknown */
    /* Where the graph-free anomalies' reads are in the input
     * (formats/locate.h), for the first n_places of res->idx.anomalies;
     * NULL: not shown. */
    const psi_place *places;
    size_t n_places;
    /* --all-anomalies: every graph-free anomaly is listed (else the first
     * ten and a count), then the independent violations found after the
     * first, and whether more remain. NULL: not asked. */
    const psi_all *all;
    /* DOT: no title and no legend (the HTML report has both around the
     * picture, which would otherwise shrink to fit them). */
    bool dot_bare;
} psi_render_opts;

/* The human report: "ACCEPT: ..." or "REJECT: ...: reason", graph-free
 * anomalies, the counterexample (when cx->present), else the raw cycle(s)
 * pruning or the solver reported; with o->stats the stage counts. cx must
 * be zeroed or built by psi_cex_build (present is false on accept). */
bool psi_render_text(const psi_history *h, const psi_check_result *res, const psi_cex *cx,
                     const psi_render_opts *o, FILE *out);

/* The same as one JSON object and a newline (README, "JSON schema"); the
 * stats object is always there. */
bool psi_render_json(const psi_history *h, const psi_check_result *res, const psi_cex *cx,
                     const psi_render_opts *o, FILE *out);

/* The counterexample as a Graphviz digraph with a legend. It draws only the
 * counterexample, so it takes no check result; cx->present must hold. */
bool psi_render_dot(const psi_history *h, const psi_cex *cx, const psi_render_opts *o, FILE *out);

/* The counterexample as SVG, laid out here (no Graphviz needed): layered
 * left to right, the edges that close cycles drawn below, styled and
 * labelled as in psi_render_dot. id prefixes the element ids (arrow
 * markers), unique per picture in one page. cx->present must hold. False
 * when out of memory or out is in an error state. */
bool psi_render_svg(const psi_history *h, const psi_cex *cx, const char *id, FILE *out);

/* The HTML fragment of a reject for psi_render_html_page: the
 * counterexample's name and summary, its drawing (svg, an <svg> element
 * the caller made, e.g. with Graphviz; NULL: psi_render_svg with id), the
 * legend, its transactions with their operations, and the text report.
 * Without a counterexample (cx not present) only the text report. */
bool psi_render_html_cex(const psi_history *h, const psi_check_result *res, const psi_cex *cx,
                         const psi_render_opts *o, const char *svg, const char *id, FILE *out);

/* One history of an HTML report: its summary and, for a reject, the
 * fragment psi_render_html_cex wrote (NULL: none). Not owned. */
typedef struct psi_html_entry {
    const psi_summary *s;
    const char *detail;
} psi_html_entry;

/* The whole report (`check --html`): one self-contained HTML page, no
 * scripts and nothing fetched, with a summary table (history, format,
 * level, verdict, anomaly, time, sizes) and a section per history (sizes,
 * stage timings, an error's message and place, a reject's fragment). note
 * (may be NULL) is a line under the title. */
bool psi_render_html_page(const psi_html_entry *e, size_t n, const char *note, FILE *out);

/* `polysi-solve stats`: sessions, transactions by status, operations, keys
 * and read-only / write-only / read-write counts of h as recorded (unknown
 * outcomes are not settled), as text or as one JSON object. */
bool psi_render_history_text(const psi_history *h, const char *path, FILE *out);
bool psi_render_history_json(const psi_history *h, const char *path, FILE *out);

#endif
