/* One history through the whole check (see check_run.h): outputs are
 * opened first, so an unwritable --dot or --witness path fails in
 * seconds; the watchdog covers loading, checking and interpreting;
 * nothing is printed before it is stopped, so a limit never leaves a
 * partial verdict; a write that still fails afterwards is reported after
 * the verdict, with exit 2. */
#include "cli/check_run.h"

#include "cli/html.h"
#include "cli/outfile.h"
#include "core/memuse.h"
#include "formats/input.h"
#include "formats/locate.h"
#include "interpret/explain.h"
#include "interpret/hint_file.h"
#include "interpret/render.h"
#include "interpret/witness.h"
#include "interpret/witness_level.h"

#include <stdlib.h>
#include <string.h>

/* Graph-free anomalies whose place in the file a report names. */
#define MAX_PLACES 64

typedef struct run {
    const psi_check_cli *c;
    const psi_run_io *io;
    const char *path;
    psi_summary *s;
    psi_watchdog *wd;
    const char *stage; /* now running; a literal */
} run;

static void on_stage(void *ctx, const char *stage)
{
    run *r = ctx;
    r->stage = stage;
    psi_limits_stage(r->wd, stage);
    psi_progress_line_stage(r->io->progress, stage);
}

static void stop_watchdog(run *r)
{
    psi_limits_stop(r->wd);
    r->wd = NULL;
}

static psi_stage stage_of(const run *r)
{
    psi_stage st = PSI_STAGE_LOAD;
    (void)psi_stage_parse(r->stage, &st);
    return st;
}

/* Prints the error of s as the run's io says. */
static void print_error(const run *r, const psi_summary *s, const psi_diag *d)
{
    if (!r->io->print_errors)
        return;
    psi_progress_line_erase(r->io->progress);
    if (r->c->json && r->io->report) {
        (void)psi_render_error_json(s, false, r->io->report);
        fflush(r->io->report);
    }
    fprintf(stderr, "polysi-solve: %s\n", d->msg);
}

/* The run stops with an error in the current stage. Returns 2. */
static int fail(run *r, const psi_diag *d, const char *file)
{
    /* Out of memory here still leaves the outcome an error. */
    (void)psi_summary_set_error(r->s, stage_of(r), d, file);
    print_error(r, r->s, d);
    return 2;
}

/* The watchdog's hook, in its thread, just before the process ends: the
 * main thread is inside the library, so a summary of its own is built. */
static bool on_limit(void *ctx, const char *stage, const char *message)
{
    run *r = ctx;
    psi_summary s;
    psi_diag d;
    psi_diag_set(&d, PSI_ERR_LIMIT, "%s", message);
    psi_stage st = PSI_STAGE_LOAD;
    (void)psi_stage_parse(stage, &st);
    if (psi_summary_init(&s, r->path, r->c->co.ser)) {
        s.level = r->c->co.level;
        (void)psi_summary_set_error(&s, st, &d, NULL);
        psi_progress_line_erase(r->io->progress);
        if (r->io->print_errors && r->c->json && r->io->report) {
            (void)psi_render_error_json(&s, false, r->io->report);
            fflush(r->io->report);
        }
        if (r->io->on_limit)
            r->io->on_limit(r->io->limit_ctx, &s);
        psi_summary_free(&s);
    }
    return r->io->print_errors;
}

/* The outputs --dot and --witness, opened before the check. */
typedef struct outputs {
    psi_outfile dot, witness;
} outputs;

static bool write_witness(const psi_history *h, const psi_check_result *res, bool ser, FILE *f,
                          const char *path, psi_diag *d)
{
    psi_witness w;
    /* SI and SER: version orders; every other level: a commit order */
    psi_level l = psi_level_base(res->level_checked);
    psi_status st = l == PSI_LEVEL_SI || l == PSI_LEVEL_SER
                        ? psi_witness_build(h, res, ser, &w, d)
                        : psi_witness_build_level(h, res, &w, d);
    if (st != PSI_OK)
        return false;
    bool ok = psi_witness_write(&w, h->source, f, path, d) == PSI_OK;
    psi_witness_free(&w);
    return ok;
}

/* Writes (or drops) the outputs after the verdict. On failure fills d and
 * returns false; what could be written is written. */
static bool finish_outputs(run *r, outputs *o, const psi_history *h, const psi_check_result *res,
                           const psi_cex *cx, const psi_render_opts *rend, psi_diag *d)
{
    const psi_check_cli *c = r->c;
    bool ok = true, removed;
    if (c->witness_path) {
        if (res->verdict == PSI_ACCEPT) {
            if (!write_witness(h, res, c->co.ser, o->witness.f, c->witness_path, d)) {
                psi_outfile_discard(&o->witness, false, NULL);
                ok = false;
            } else if (psi_outfile_commit(&o->witness, d) != PSI_OK) {
                ok = false;
            }
        } else {
            /* No witness of a reject: an earlier run's file must not be
             * taken for one. */
            psi_outfile_discard(&o->witness, true, &removed);
            if (removed)
                fprintf(stderr,
                        "polysi-solve: no witness on reject: removed %s, which an earlier run "
                        "wrote\n",
                        c->witness_path);
        }
    }
    if (c->dot_path) {
        if (res->verdict == PSI_REJECT && cx->present) {
            bool wrote = psi_render_dot(h, cx, rend, o->dot.f);
            if (!wrote) {
                psi_outfile_discard(&o->dot, false, NULL);
                if (ok)
                    psi_diag_file(d, PSI_ERR_IO, c->dot_path, "write failed");
                ok = false;
            } else if (ok) {
                ok = psi_outfile_commit(&o->dot, d) == PSI_OK;
            } else {
                psi_diag scratch;
                (void)psi_outfile_commit(&o->dot, &scratch);
            }
        } else {
            psi_outfile_discard(&o->dot, true, &removed);
            if (removed)
                fprintf(stderr,
                        "polysi-solve: no counterexample to draw: removed %s, which an earlier "
                        "run wrote\n",
                        c->dot_path);
        }
    }
    return ok;
}

/* --version-order FILE, read whole and parsed for h, its transactions
 * resolved as they are read (interpret/hint_file.h). */
static psi_status load_hints(const char *path, const psi_history *h, psi_hint_file *f, psi_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    memset(f, 0, sizeof *f);
    psi_status st = psi_read_file(path, &buf, &len, d);
    if (st == PSI_OK)
        st = psi_hint_file_parse_for(path, buf, len, h, f, d);
    free(buf);
    return st;
}

/* --timestamps FILE, read whole and parsed. */
static psi_status load_timestamps(const char *path, psi_ts_file *f, psi_diag *d)
{
    char *buf = NULL;
    size_t len = 0;
    memset(f, 0, sizeof *f);
    psi_status st = psi_read_file(path, &buf, &len, d);
    if (st == PSI_OK)
        st = psi_ts_file_parse(path, buf, len, f, d);
    free(buf);
    return st;
}

static psi_status open_outputs(const psi_check_cli *c, outputs *o, psi_diag *d)
{
    memset(o, 0, sizeof *o);
    if (c->dot_path && psi_outfile_open(&o->dot, c->dot_path, d) != PSI_OK)
        return d->status;
    if (c->witness_path && psi_outfile_open(&o->witness, c->witness_path, d) != PSI_OK) {
        psi_outfile_discard(&o->dot, false, NULL);
        return d->status;
    }
    return PSI_OK;
}

int psi_check_run(const psi_check_cli *c, const char *path, const psi_run_io *io, psi_summary *s)
{
    double t_start = psi_now();
    if (io->html)
        *io->html = NULL;
    if (!psi_summary_init(s, path, c->co.ser)) {
        fprintf(stderr, "polysi-solve: out of memory\n");
        s->outcome = PSI_OUTCOME_ERROR;
        return 2;
    }
    s->level = c->co.level;
    run r = {.c = c, .io = io, .path = path, .s = s, .stage = "write"};
    psi_diag d;
    psi_diag_clear(&d);
    outputs out;
    if (io->outputs && open_outputs(c, &out, &d) != PSI_OK)
        return fail(&r, &d, NULL);
    if (!io->outputs)
        memset(&out, 0, sizeof out);

    /* Limits cover loading, checking and interpreting. */
    psi_limits lim = c->lim;
    lim.on_fire = on_limit;
    lim.fire_ctx = &r;
    bool wd_failed;
    r.wd = psi_limits_start(&lim, &wd_failed);
    int rc = 2;
    psi_history *h = NULL;
    psi_check_result res;
    memset(&res, 0, sizeof res);
    psi_cex cx;
    memset(&cx, 0, sizeof cx);
    psi_hint_file hints;
    memset(&hints, 0, sizeof hints);
    psi_ts_file tsf;
    memset(&tsf, 0, sizeof tsf);
    if (wd_failed) {
        psi_diag_set(&d, PSI_ERR_NOMEM, "cannot start the limits watchdog");
        rc = fail(&r, &d, NULL);
        goto done;
    }
    on_stage(&r, "load");
    psi_read_opts ro = c->ro;
    ro.progress = (psi_progress){.fn = psi_progress_line_on_event, .ctx = io->progress};
    double t0 = psi_cpu_now(); /* stage times are CPU time (check.h) */
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK) {
        stop_watchdog(&r);
        rc = fail(&r, &d, path);
        goto done;
    }
    if (h->note) /* what the reader decided about the input, said once */
        fprintf(stderr, "polysi-solve: %s: note: %s\n", path, h->note);
    s->format = h->format;
    psi_check_opts co = c->co;
    if (c->version_order_path) {
        if (load_hints(c->version_order_path, h, &hints, &d) != PSI_OK) {
            stop_watchdog(&r);
            rc = fail(&r, &d, c->version_order_path);
            goto done;
        }
        co.version_order = &hints.vo;
    }
    if (c->timestamps_path) {
        if (load_timestamps(c->timestamps_path, &tsf, &d) != PSI_OK) {
            stop_watchdog(&r);
            rc = fail(&r, &d, c->timestamps_path);
            goto done;
        }
        co.timestamps = &tsf.ts;
    }
    /* Loading is reading every input: the history, and the version order
     * and timestamps files (issue 15 measures a complete order against
     * "loading plus one graph pass"). */
    s->seconds[PSI_STAGE_LOAD] = psi_cpu_now() - t0;
    co.keep_model = io->outputs && c->witness_path != NULL;
    /* h is checked once, explained and freed: aborted attempts' operations
     * may go after validation (check.h). Not with --all-anomalies: the
     * histories left after each violation are rebuilt from h, and without
     * those operations their solver takes another path, so the later
     * violations listed (and whether more remain) could differ from
     * those of a check that keeps them. */
    co.drop_aborted = c->max_anomalies == 0;
    co.on_stage = on_stage;
    co.stage_ctx = &r;
    co.progress = (psi_progress){.fn = psi_progress_line_on_event, .ctx = io->progress};
    if (psi_check(h, &co, &res, &d) != PSI_OK) {
        stop_watchdog(&r);
        rc = fail(&r, &d, path);
        goto done;
    }
    rc = res.verdict == PSI_ACCEPT ? 0 : 1;
    /* --interpret-budget 0: no interpretation, only the raw cycle(s). */
    on_stage(&r, "interpret");
    psi_cex_opts xo = {.ser = c->co.ser, .budget = c->budget, .version_order = c->co.version_order};
    psi_status xst = c->budget ? psi_cex_build(h, &res, &xo, &cx, &d) : PSI_OK;
    /* --all-anomalies: more independent violations, checked and explained
     * with the same options, still under the limits. */
    psi_all all;
    memset(&all, 0, sizeof all);
    bool have_all = false;
    if (xst == PSI_OK && c->max_anomalies && res.verdict == PSI_REJECT) {
        co.keep_model = false;
        xst = psi_all_find(h, &res, &cx, &co, &xo, c->max_anomalies, &all, &d);
        have_all = xst == PSI_OK;
    }
    stop_watchdog(&r);
    if (xst != PSI_OK) {
        rc = fail(&r, &d, path);
        goto done;
    }
    psi_progress_line_erase(io->progress);
    if (!psi_summary_set_check(s, h, &res, &cx))
        fprintf(stderr, "polysi-solve: out of memory while summarizing %s\n", path);
    if (have_all)
        s->n_anomalies = (uint32_t)all.graph_free + all.n +
                         (res.reason != PSI_BY_ANOMALY && cx.present ? 1u : 0u);

    /* The verdict stands; outputs that fail now turn exit 1 or 0 into 2
     * after the verdict is printed. */
    on_stage(&r, "write");
    psi_render_opts rend = {.ser = c->co.ser,
                            .level = c->co.level,
                            .stats = c->stats,
                            .path = path,
                            .load_seconds = s->seconds[PSI_STAGE_LOAD],
                            .all = have_all ? &all : NULL};
    /* Graph-free anomalies name their read's place in the file (the
     * first MAX_PLACES; each costs a look into the file). */
    psi_place places[MAX_PLACES];
    uint32_t place_ops[MAX_PLACES];
    size_t n_places = 0;
    if (io->report && res.reason == PSI_BY_ANOMALY) {
        for (size_t i = 0; i < res.idx.n_anomalies && n_places < MAX_PLACES; i++)
            place_ops[n_places++] = res.idx.anomalies[i].op;
        if (psi_locate_ops(h, place_ops, n_places, places, &d) == PSI_OK) {
            rend.places = places;
            rend.n_places = n_places;
        } else {
            n_places = 0;
        }
    }
    psi_diag wd;
    psi_diag_clear(&wd);
    bool wrote = !io->outputs || finish_outputs(&r, &out, h, &res, &cx, &rend, &wd);
    memset(&out, 0, sizeof out);
    rend.peak_bytes = psi_mem_peak();
    s->peak_bytes = rend.peak_bytes;
    if (io->report) {
        bool ok = c->json ? psi_render_json(h, &res, &cx, &rend, io->report)
                          : psi_render_text(h, &res, &cx, &rend, io->report);
        if (fflush(io->report) != 0)
            ok = false;
        if (!ok && wrote) {
            psi_diag_set(&wd, PSI_ERR_IO, "cannot write the report (verdict: %s)",
                         rc == 0 ? "ACCEPT" : "REJECT");
            wrote = false;
        }
    }
    if (io->html && res.verdict == PSI_REJECT) {
        *io->html = psi_html_reject_fragment(h, &res, &cx, &rend, io->html_id ? io->html_id : "cx");
        if (!*io->html && wrote) {
            psi_diag_set(&wd, PSI_ERR_NOMEM, "out of memory while drawing the HTML report");
            wrote = false;
        }
    }
    psi_places_free(places, n_places);
    psi_all_free(&all);
    if (!wrote) {
        /* The verdict was printed; the error comes after it, on stderr
         * (and as JSON it would break the report, so only there). */
        (void)psi_summary_set_error(s, PSI_STAGE_WRITE, &wd, NULL);
        if (io->print_errors) {
            psi_progress_line_erase(io->progress);
            fprintf(stderr, "polysi-solve: %s\n", wd.msg);
        }
        rc = 2;
    }
done:
    if (io->outputs) {
        psi_outfile_discard(&out.dot, false, NULL);
        psi_outfile_discard(&out.witness, false, NULL);
    }
    s->wall = psi_now() - t_start;
    if (!s->peak_bytes)
        s->peak_bytes = psi_mem_peak();
    psi_cex_free(&cx);
    psi_check_result_free(&res);
    psi_hint_file_free(&hints);
    psi_ts_file_free(&tsf);
    psi_history_free(h);
    return rc;
}
