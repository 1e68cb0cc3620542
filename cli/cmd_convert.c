/* `polysi-solve convert --to FORMAT PATH OUT`: rewrite a history in another
 * format, as recorded (statuses are not settled, nothing is validated, so a
 * conversion never changes what the history says). */
#include "cli/args.h"
#include "cli/commands.h"
#include "formats/read.h"
#include "formats/write.h"

#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: polysi-solve convert --to text|dbcop|edn|json [--format F] [--initial-state S] "
           "PATH OUT\n\n"
           "Reads PATH (any supported format, or --format F) and writes it to OUT in the\n"
           "target format. Fails (exit 2) when the history cannot be expressed in the\n"
           "target format, e.g. aborted transactions in text.\n");
}

int psi_cmd_convert(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_read_opts ro = {0};
    psi_format to = PSI_FMT_AUTO;
    const char *pos[2] = {NULL, NULL}, *arg;
    int npos = 0;
    bool opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (npos == 2) {
                fprintf(stderr, "polysi-solve convert: too many arguments\n");
                return 2;
            }
            pos[npos++] = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (psi_args_opt(&a, arg, "--to")) {
            to = psi_format_from_name(a.value);
            if (to == PSI_FMT_AUTO || to == PSI_FMT_COBRA || to == PSI_FMT_AWDIT) {
                fprintf(stderr,
                        "polysi-solve convert: --to takes text, dbcop, edn or json, not '%s'\n",
                        a.value);
                return 2;
            }
        } else if (psi_args_initial_state(&a, arg, &ro.initial_state)) {
            /* a.failed (printed) when the value is not implicit or recorded */
        } else if (psi_args_opt(&a, arg, "--format")) {
            ro.format = psi_format_from_name(a.value);
            if (ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0) {
                fprintf(stderr, "polysi-solve convert: unknown format '%s'\n", a.value);
                return 2;
            }
        } else {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (to == PSI_FMT_AUTO || npos != 2) {
        fprintf(stderr, "polysi-solve convert: need --to FORMAT, PATH and OUT (see --help)\n");
        return 2;
    }
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    if (psi_read_history(pos[0], &ro, &h, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    if (h->note) /* what the reader decided about the input, said once */
        fprintf(stderr, "polysi-solve: %s: note: %s\n", pos[0], h->note);
    /* A recorded initial state (AWDIT) with reads or writes of 0 cannot be
     * said in the targets, whose initial state is implicit (0 or nil). */
    if (h->initial_state == PSI_INITIAL_RECORDED)
        for (uint32_t o = 0; o < h->n_ops; o++)
            if (h->ops[o].value == 0 && !(h->ops[o].flags & (PSI_OPF_INIT | PSI_OPF_LIST))) {
                fprintf(stderr,
                        "polysi-solve convert: %s has a recorded initial state and reads or "
                        "writes value 0 (key %llu); %s has an implicit initial state and cannot "
                        "express it (read it with --initial-state implicit if 0 is meant as "
                        "the initial value)\n",
                        pos[0], (unsigned long long)h->keys[h->ops[o].key], psi_format_name(to));
                psi_history_free(h);
                return 2;
            }
    psi_status st;
    switch (to) {
    case PSI_FMT_TEXT:
        st = psi_write_text(h, pos[1], &d);
        break;
    case PSI_FMT_DBCOP:
        st = psi_write_dbcop(h, pos[1], &d);
        break;
    case PSI_FMT_JSON:
        st = psi_write_json(h, pos[1], &d);
        break;
    default:
        st = psi_write_edn(h, pos[1], &d);
        break;
    }
    psi_history_free(h);
    if (st != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    return 0;
}
