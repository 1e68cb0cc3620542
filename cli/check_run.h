/* One run of `polysi-solve check` on one history: load, check, interpret,
 * write the outputs (--dot, --witness) and the report, under the
 * --timeout/--max-memory watchdog and the --progress line. cmd_check.c
 * calls it for a single PATH, batch.c (in a child process per history)
 * for many.
 *
 * Whatever happens, the run's psi_summary is filled: the verdict and the
 * anomaly, or the error with its stage and place. */
#ifndef PSI_CLI_CHECK_RUN_H
#define PSI_CLI_CHECK_RUN_H

#include "check/check.h"
#include "cli/limits.h"
#include "cli/progress.h"
#include "formats/read.h"
#include "interpret/summary.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Everything the command line says. */
typedef struct psi_check_cli {
    psi_read_opts ro;
    psi_check_opts co;
    psi_limits lim;
    const char *dot_path, *witness_path;
    const char *version_order_path; /* --version-order FILE (interpret/hint_file.h), NULL: none */
    const char *timestamps_path;    /* --timestamps FILE, NULL: none */
    const char *html_path;  /* --html FILE (written by cmd_check.c from the runs' results) */
    uint64_t budget;        /* --interpret-budget */
    uint32_t max_anomalies; /* --all-anomalies[=N]: 0 when not asked */
    bool json, stats;
    int progress;       /* --progress: 1, --no-progress: 0, default -1 (stderr a terminal) */
    uint32_t jobs;      /* -j N (batch runs) */
    bool recursive;     /* --recursive */
    const char **paths; /* PATH... (argv's strings) */
    size_t n_paths;
} psi_check_cli;

/* Where one run's results go. */
typedef struct psi_run_io {
    FILE *report;      /* the whole report, text or JSON (--json); NULL: none */
    bool print_errors; /* errors as "polysi-solve: MSG" on stderr (and, with --json, as a JSON
                          object on report) */
    bool outputs;      /* --dot and --witness apply */
    psi_progress_line *progress; /* the status line to feed (NULL: none) */
    /* Called when the watchdog ends the process (a limit was hit), with
     * the run's summary marked as that error (batch children hand it to
     * their parent). NULL: only the printing above. */
    void (*on_limit)(void *ctx, const psi_summary *s);
    void *limit_ctx;
    /* --html: a reject's fragment of the report (cli/html.h) is put here
     * (malloc'd, the caller frees it; NULL when none). NULL: not asked.
     * html_id names the drawing's elements, unique in the page. */
    char **html;
    const char *html_id;
} psi_run_io;

/* Runs the whole check of the history at path; fills *s (which the caller
 * frees with psi_summary_free) and returns the exit code: 0 accept,
 * 1 reject, 2 error. */
int psi_check_run(const psi_check_cli *c, const char *path, const psi_run_io *io, psi_summary *s);

#endif
