/* --progress: one status line on stderr while a check runs: the stage, the
 * percent where it is measurable (bytes of the input parsed, constraints
 * checked in a pruning round), pruning rounds or solver conflicts, elapsed
 * time and peak memory; for a batch, histories done of all.
 *
 * A thread redraws it: on a terminal in place, at most four times a
 * second, and erases it when stopped (so the report that follows starts
 * on a clean line); elsewhere (--progress with stderr redirected) as a new
 * line every two seconds. The library's callbacks only store numbers under
 * a lock; they never print.
 *
 * Ownership: psi_progress_line_start allocates; psi_progress_line_stop
 * erases the line, joins the thread and frees. A NULL display ignores
 * every call. */
#ifndef PSI_CLI_PROGRESS_H
#define PSI_CLI_PROGRESS_H

#include "core/progress.h"

#include <stdbool.h>
#include <stddef.h>

typedef struct psi_progress_line psi_progress_line;

/* tty: redraw in place (stderr is a terminal). NULL when the thread cannot
 * start (then no progress is shown; the check goes on). */
psi_progress_line *psi_progress_line_start(bool tty);
/* The stage now running (a string literal: kept, not copied). */
void psi_progress_line_stage(psi_progress_line *p, const char *stage);
/* For psi_check_opts.on_stage. */
void psi_progress_line_on_stage(void *p, const char *stage);
/* For psi_progress.fn (psi_read_opts, psi_check_opts). */
void psi_progress_line_on_event(void *p, const psi_progress_event *ev);
/* Batch runs: histories finished of all, how many run now, and the one
 * started last (copied; may be NULL). */
void psi_progress_line_batch(psi_progress_line *p, size_t done, size_t total, size_t running,
                             const char *current);
/* Erases the line now (before something else is printed on stderr). */
void psi_progress_line_erase(psi_progress_line *p);
void psi_progress_line_stop(psi_progress_line *p);

#endif
