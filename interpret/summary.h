/* A checked history in a few fields: what a listing of many histories
 * shows for each (`check PATH...` batch runs, and reports built on them).
 * It is a plain value that can be built in one process and sent to
 * another: built from a finished check (psi_summary_set_check) or from the
 * error that stopped it (psi_summary_set_error).
 *
 * Ownership: a psi_summary owns its strings; psi_summary_free releases
 * them (and leaves it as psi_summary_init made it). */
#ifndef PSI_INTERPRET_SUMMARY_H
#define PSI_INTERPRET_SUMMARY_H

#include "check/check.h"
#include "interpret/explain.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The stages of a run, in order (check.h's plus reading the file before,
 * interpreting and writing outputs after). */
typedef enum psi_stage {
    PSI_STAGE_LOAD = 0,
    PSI_STAGE_VALIDATE,
    PSI_STAGE_CONSTRUCT,
    PSI_STAGE_PRUNE,
    PSI_STAGE_ENCODE,
    PSI_STAGE_SOLVE,
    PSI_STAGE_INTERPRET,
    PSI_STAGE_WRITE,
    PSI_STAGE_COUNT
} psi_stage;

const char *psi_stage_name(psi_stage s); /* "load", ..., "write" */
/* The stage of that name (as psi_check_opts.on_stage passes them); false
 * when unknown. */
bool psi_stage_parse(const char *name, psi_stage *out);

/* The exit codes of `polysi-solve check`. */
typedef enum psi_outcome {
    PSI_OUTCOME_ACCEPT = 0,
    PSI_OUTCOME_REJECT = 1,
    PSI_OUTCOME_ERROR = 2,
} psi_outcome;

typedef struct psi_summary {
    char *path;        /* the history as the user named it */
    psi_format format; /* as read; PSI_FMT_AUTO when it was never read */
    bool ser;          /* the level checked: SER, else SI ... */
    psi_level level;   /* ... unless this is another one (psi_level_of(ser, level) names it) */
    psi_outcome outcome;

    /* PSI_OUTCOME_REJECT */
    psi_reject_reason reason;
    bool named;           /* a counterexample named the anomaly (kind, summary) */
    psi_cex_kind kind;    /* its name: psi_cex_kind_name */
    char *summary;        /* its one-sentence summary, NULL when none */
    uint32_t n_anomalies; /* independent anomalies found (--all-anomalies), else 1 */

    /* Every outcome: what was reached. */
    double seconds[PSI_STAGE_COUNT]; /* wall time per stage, 0 when not reached */
    double wall;                     /* the whole run */
    uint32_t sessions, transactions, committed;
    uint64_t operations;
    uint64_t constraints_before, constraints_after, conflicts;
    uint64_t peak_bytes; /* of the process that ran it, 0 if unknown */

    /* PSI_OUTCOME_ERROR: what stopped it and where. */
    psi_stage error_stage;
    psi_status error_status;
    char *error;         /* the message proper (without "FILE:LINE:COL: ") */
    char *error_file;    /* the file it names, NULL when none */
    uint8_t error_where; /* psi_diag_where */
    uint64_t error_line, error_col, error_offset;
} psi_summary;

/* An empty summary of the history at path (copied; false when out of
 * memory). */
bool psi_summary_init(psi_summary *s, const char *path, bool ser);
void psi_summary_free(psi_summary *s);

/* Fills the outcome of a finished check: verdict, reason, the anomaly the
 * counterexample names (cx may be zeroed: no counterexample), stage times
 * and sizes. False when out of memory. */
bool psi_summary_set_check(psi_summary *s, const psi_history *h, const psi_check_result *r,
                           const psi_cex *cx);

/* Marks the run as failed in `stage` with d's message and place. A diag
 * that names no file is taken to be about `file` (may be NULL). False when
 * out of memory (the outcome is an error either way). */
bool psi_summary_set_error(psi_summary *s, psi_stage stage, const psi_diag *d, const char *file);

/* One line for a listing: "ACCEPT  PATH  0.12 s", "REJECT  PATH  ANOMALY
 * 0.12 s", "ERROR   PATH  MESSAGE (STAGE stage)", with a newline; stats
 * adds the stage times and peak memory. */
bool psi_render_summary_line(const psi_summary *s, bool stats, FILE *out);

/* The error as one JSON object and a newline (README, "Errors as JSON"):
 * {"error": {"message", "file", "line", "column" | "offset", "stage"}};
 * with_path adds "path", "isolation" and "verdict": "error" in front (an
 * element of a batch array). */
bool psi_render_error_json(const psi_summary *s, bool with_path, FILE *out);

#endif
