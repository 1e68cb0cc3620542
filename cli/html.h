/* `check --html FILE`: the pieces of the HTML report that need a process
 * of their own or the file system, which the renderers (interpret/
 * render.h) do not touch: the counterexample laid out by Graphviz's
 * `dot -Tsvg` when it is installed, and the page written from the runs'
 * summaries and fragments.
 *
 * Ownership: psi_html_reject_fragment returns a malloc'd string the
 * caller frees. */
#ifndef PSI_CLI_HTML_H
#define PSI_CLI_HTML_H

#include "interpret/render.h"

#include <stddef.h>

/* The HTML fragment of a reject (psi_render_html_cex): the drawing by
 * Graphviz (the program named by the environment variable POLYSI_DOT,
 * default "dot") when it runs and succeeds, else by our own layout. id
 * must be unique in the page. NULL when out of memory. */
char *psi_html_reject_fragment(const psi_history *h, const psi_check_result *res, const psi_cex *cx,
                               const psi_render_opts *o, const char *id);

/* Writes the page of n entries to out (an open file); true when written. */
bool psi_html_write_page(const psi_html_entry *e, size_t n, FILE *out);

#endif
