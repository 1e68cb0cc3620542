/* Batch runs: `polysi-solve check PATH...` with more than one PATH, or
 * with --recursive (directories are walked for histories). Each history is
 * checked in a child process of its own, -j N of them at once, so
 * --timeout and --max-memory bound each history on its own, and a history
 * that hits a limit (or crashes the checker) is an error in its line, not
 * the end of the batch. Results are printed in the order of the paths:
 * one line per history and a summary (or, with --json, one array of the
 * per-history JSON reports and error objects). Exit code: 2 if any
 * history is an error, else 1 if any is rejected, else 0.
 *
 * The results are kept as psi_summary values (interpret/summary.h), one
 * per history in a psi_batch: what a renderer of batch reports consumes. */
#ifndef PSI_CLI_BATCH_H
#define PSI_CLI_BATCH_H

#include "cli/check_run.h"
#include "interpret/summary.h"

#include <stdbool.h>
#include <stddef.h>

/* One history of a batch. */
typedef struct psi_batch_item {
    psi_summary s; /* filled when done */
    char *report;  /* --json: its JSON report or error object, without newline */
    char *html;    /* --html, a reject: its fragment (psi_render_html_cex), else NULL */
    bool done;
} psi_batch_item;

/* A batch run and its results. Ownership: psi_batch_collect allocates
 * paths and items; psi_batch_free releases them. */
typedef struct psi_batch {
    char **paths; /* histories, in order */
    size_t n;
    psi_batch_item *items; /* [n] */
    double wall;           /* the whole batch */
    size_t accepted, rejected, errors;
} psi_batch;

/* The histories named by PATH... (a directory with --recursive: every
 * history below it, see README "Batch runs"). Prints what is wrong and
 * returns false on failure (a path that cannot be read, none found). */
bool psi_batch_collect(const psi_check_cli *c, psi_batch *b);

/* Checks every history (c->jobs at once), printing as results arrive, in
 * order; returns the exit code. */
int psi_batch_run(const psi_check_cli *c, psi_batch *b, psi_progress_line *progress);

void psi_batch_free(psi_batch *b);

#endif
