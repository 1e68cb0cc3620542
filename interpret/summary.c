/* One checked history in a few fields, its listing line and its error as
 * JSON (see summary.h). */
#include "interpret/summary.h"

#include "interpret/json.h"

#include <stdlib.h>
#include <string.h>

static const char *const stage_names[PSI_STAGE_COUNT] = {
    "load", "validate", "construct", "prune", "encode", "solve", "interpret", "write"};

const char *psi_stage_name(psi_stage s)
{
    return (unsigned)s < PSI_STAGE_COUNT ? stage_names[s] : "?";
}

bool psi_stage_parse(const char *name, psi_stage *out)
{
    for (int i = 0; i < PSI_STAGE_COUNT; i++)
        if (name && strcmp(name, stage_names[i]) == 0) {
            *out = (psi_stage)i;
            return true;
        }
    return false;
}

bool psi_summary_init(psi_summary *s, const char *path, bool ser)
{
    memset(s, 0, sizeof *s);
    s->ser = ser;
    s->kind = PSI_CEX_CYCLE;
    s->path = strdup(path ? path : "");
    return s->path != NULL;
}

void psi_summary_free(psi_summary *s)
{
    free(s->path);
    free(s->summary);
    free(s->error);
    free(s->error_file);
    memset(s, 0, sizeof *s);
}

bool psi_summary_set_check(psi_summary *s, const psi_history *h, const psi_check_result *r,
                           const psi_cex *cx)
{
    const psi_check_stats *st = &r->stats;
    s->format = h->format;
    s->outcome = r->verdict == PSI_ACCEPT ? PSI_OUTCOME_ACCEPT : PSI_OUTCOME_REJECT;
    s->reason = r->reason;
    s->level = r->level_checked;
    s->seconds[PSI_STAGE_VALIDATE] = st->t_validate;
    s->seconds[PSI_STAGE_CONSTRUCT] = st->t_construct;
    s->seconds[PSI_STAGE_PRUNE] = st->t_prune;
    s->seconds[PSI_STAGE_ENCODE] = st->t_encode;
    s->seconds[PSI_STAGE_SOLVE] = st->t_solve;
    s->sessions = st->sessions;
    s->transactions = st->transactions;
    s->committed = st->committed;
    s->operations = st->operations;
    s->constraints_before = st->constraints_before;
    s->constraints_after = st->constraints_after;
    s->conflicts = st->conflicts;
    if (s->outcome == PSI_OUTCOME_REJECT && cx && cx->present) {
        s->named = true;
        s->kind = cx->kind;
        s->n_anomalies = 1;
        s->seconds[PSI_STAGE_INTERPRET] = cx->seconds;
        free(s->summary);
        if (!(s->summary = strdup(cx->summary)))
            return false;
    }
    return true;
}

bool psi_summary_set_error(psi_summary *s, psi_stage stage, const psi_diag *d, const char *file)
{
    s->outcome = PSI_OUTCOME_ERROR;
    s->error_stage = stage;
    s->error_status = d->status;
    s->error_where = d->where;
    s->error_line = d->line;
    s->error_col = d->col;
    s->error_offset = d->offset;
    free(s->error);
    free(s->error_file);
    s->error = s->error_file = NULL;
    size_t at = d->text_at < sizeof d->msg ? d->text_at : 0;
    const char *msg = d->msg + at;
    if (d->where != PSI_AT_NONE && d->file_len) {
        s->error_file = strndup(d->msg, d->file_len);
    } else if (file) {
        s->error_file = strdup(file);
        /* A message that starts with the file ("F: cannot ...") names it
         * once, in "file". */
        size_t fl = strlen(file);
        if (strncmp(msg, file, fl) == 0 && msg[fl] == ':' && msg[fl + 1] == ' ')
            msg += fl + 2;
    }
    s->error = strdup(msg);
    return s->error && (s->error_file || !(file || d->file_len));
}

/* " (load 0.010, validate ..., interpret 0.000 s; 12.3 MiB)" */
static void stats_tail(const psi_summary *s, FILE *out)
{
    fputs(" (", out);
    for (int i = 0; i < PSI_STAGE_WRITE; i++)
        fprintf(out, "%s%s %.3f", i ? ", " : "", stage_names[i], s->seconds[i]);
    fprintf(out, " s; %.1f MiB)", (double)s->peak_bytes / (1024.0 * 1024.0));
}

bool psi_render_summary_line(const psi_summary *s, bool stats, FILE *out)
{
    switch (s->outcome) {
    case PSI_OUTCOME_ACCEPT:
        fprintf(out, "ACCEPT  %s  %.3f s", s->path, s->wall);
        break;
    case PSI_OUTCOME_REJECT:
        fprintf(out, "REJECT  %s  %s", s->path,
                s->named ? psi_cex_kind_name(s->kind) : "violation (not interpreted)");
        if (s->n_anomalies > 1)
            fprintf(out, " and %u more", s->n_anomalies - 1);
        fprintf(out, "  %.3f s", s->wall);
        break;
    case PSI_OUTCOME_ERROR:
        /* The message as it would be printed alone: with its place. */
        fprintf(out, "ERROR   %s  ", s->path);
        if (s->error_file && s->error_where == PSI_AT_LINE)
            fprintf(out, "%s:%llu:%llu: ", s->error_file, (unsigned long long)s->error_line,
                    (unsigned long long)s->error_col);
        else if (s->error_file && s->error_where == PSI_AT_OFFSET)
            fprintf(out, "%s: byte %llu: ", s->error_file, (unsigned long long)s->error_offset);
        else if (s->error_file && strcmp(s->error_file, s->path) != 0)
            fprintf(out, "%s: ", s->error_file);
        fprintf(out, "%s (%s stage)", s->error ? s->error : "error",
                psi_stage_name(s->error_stage));
        break;
    }
    if (stats)
        stats_tail(s, out);
    fputc('\n', out);
    return !ferror(out);
}

bool psi_render_error_json(const psi_summary *s, bool with_path, FILE *out)
{
    psi_json j;
    psi_json_init(&j, out);
    psi_json_begin_object(&j, NULL);
    if (with_path) {
        psi_json_str(&j, "path", s->path);
        psi_json_str(&j, "isolation", psi_level_name(psi_level_of(s->ser, s->level)));
        psi_json_str(&j, "verdict", "error");
    }
    psi_json_begin_object(&j, "error");
    psi_json_str(&j, "message", s->error ? s->error : "error");
    if (s->error_file)
        psi_json_str(&j, "file", s->error_file);
    else
        psi_json_null(&j, "file");
    if (s->error_where == PSI_AT_LINE) {
        psi_json_u64(&j, "line", s->error_line);
        psi_json_u64(&j, "column", s->error_col);
    } else if (s->error_where == PSI_AT_OFFSET) {
        psi_json_u64(&j, "offset", s->error_offset);
    }
    psi_json_str(&j, "stage", psi_stage_name(s->error_stage));
    psi_json_end_object(&j);
    psi_json_end_object(&j);
    fputc('\n', out);
    return !ferror(out);
}
