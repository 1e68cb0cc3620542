/* `polysi-solve stats PATH`: counts that describe a history's shape, as
 * text or JSON (interpret/render_history.c). */
#include "cli/args.h"
#include "cli/commands.h"
#include "formats/read.h"
#include "interpret/render.h"

#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: polysi-solve stats [--format F] [--initial-state S] [--json] PATH\n\n"
           "Prints the number of sessions, transactions (committed/aborted/unknown), reads,\n"
           "writes, keys, and read-only / write-only / read-write transactions.\n"
           "Statuses are as recorded (unknown outcomes are not settled here).\n\n"
           "  --format F   text | dbcop | cobra | edn | json | awdit (default: detect)\n"
           "  --initial-state S  implicit or recorded (text, dbcop, AWDIT; AWDIT's default)\n"
           "  --json       one JSON object instead of text\n");
}

int psi_cmd_stats(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_read_opts ro = {0};
    const char *path = NULL, *arg;
    bool json = false, opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (path) {
                fprintf(stderr, "polysi-solve stats: more than one PATH given\n");
                return 2;
            }
            path = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--json")) {
            json = true;
        } else if (psi_args_initial_state(&a, arg, &ro.initial_state)) {
            /* a.failed (printed) when the value is not implicit or recorded */
        } else if (psi_args_opt(&a, arg, "--format")) {
            ro.format = psi_format_from_name(a.value);
            if (ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0) {
                fprintf(stderr, "polysi-solve stats: unknown format '%s'\n", a.value);
                return 2;
            }
        } else {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (!path) {
        fprintf(stderr, "polysi-solve stats: missing PATH (see --help)\n");
        return 2;
    }
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    if (h->note) /* what the reader decided about the input, said once */
        fprintf(stderr, "polysi-solve: %s: note: %s\n", path, h->note);
    /* As for check, a failed write to stdout does not change the exit code. */
    if (json)
        (void)psi_render_history_json(h, path, stdout);
    else
        (void)psi_render_history_text(h, path, stdout);
    psi_history_free(h);
    return 0;
}
