/* `polysi-solve check`: load a history, validate it, run the checks that
 * need no dependency graph, and report. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "core/index.h"
#include "core/read.h"
#include "interpret/describe.h"

#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: polysi-solve check [--isolation si|ser] [--format F] [--json] PATH\n\n"
           "Checks the history at PATH (a file, or a directory of Cobra T*.log files).\n\n"
           "  --isolation L  si (snapshot isolation, default) or ser (serializability)\n"
           "  --format F     text | dbcop | cobra | edn (default: detect)\n"
           "  --json         one JSON object on stdout instead of text\n\n"
           "Exit codes: 0 accept, 1 reject (a violation was found), 2 error.\n");
}

static void print_anomaly_text(const psi_history *h, const psi_anomaly *a)
{
    char t[64], o[128], ot[64], oo[128];
    psi_fmt_txn(h, a->txn, t, sizeof t);
    psi_fmt_op(h, a->op, o, sizeof o);
    const psi_txn *tx = &h->txns[a->txn];
    printf("  %s (%s): transaction %s, operation %u %s", psi_anomaly_name(a->kind),
           psi_anomaly_title(a->kind), t, a->op - tx->first_op + 1, o);
    if (a->other_op != PSI_SRC_NONE) {
        psi_fmt_txn(h, a->other_txn, ot, sizeof ot);
        psi_fmt_op(h, a->other_op, oo, sizeof oo);
        const psi_txn *wx = &h->txns[a->other_txn];
        switch (a->kind) {
        case PSI_ANOM_INT:
            printf(" disagrees with operation %u %s of the same transaction",
                   a->other_op - wx->first_op + 1, oo);
            break;
        case PSI_ANOM_G1A:
            printf(" observes %s of %s, which aborted", oo, ot);
            break;
        case PSI_ANOM_G1B:
            printf(" observes %s of %s, which that transaction later overwrote", oo, ot);
            break;
        default:
            break;
        }
    }
    printf("\n");
}

int psi_cmd_check(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_read_opts ro = {0};
    const char *path = NULL, *arg;
    bool json = false, ser = false, opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (path) {
                fprintf(stderr, "polysi-solve check: more than one PATH given\n");
                return 2;
            }
            path = arg;
        } else if (psi_args_flag(&a, arg, "--help")) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--json")) {
            json = true;
        } else if (psi_args_opt(&a, arg, "--isolation")) {
            if (strcmp(a.value, "si") == 0)
                ser = false;
            else if (strcmp(a.value, "ser") == 0)
                ser = true;
            else {
                fprintf(stderr, "polysi-solve check: --isolation takes si or ser, not '%s'\n",
                        a.value);
                return 2;
            }
        } else if (psi_args_opt(&a, arg, "--format")) {
            ro.format = psi_format_from_name(a.value);
            if (ro.format == PSI_FMT_AUTO && strcmp(a.value, "auto") != 0) {
                fprintf(stderr, "polysi-solve check: unknown format '%s'\n", a.value);
                return 2;
            }
        } else {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (!path) {
        fprintf(stderr, "polysi-solve check: missing PATH (see --help)\n");
        return 2;
    }
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    psi_index idx;
    if (psi_index_build(h, &idx, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        psi_history_free(h);
        return 2;
    }
    int rc = idx.n_anomalies ? 1 : 2;
    const char *level = ser ? "SER" : "SI";
    if (json) {
        psi_json j;
        psi_json_init(&j, stdout);
        psi_json_begin_object(&j, NULL);
        psi_json_str(&j, "path", path);
        psi_json_str(&j, "isolation", level);
        psi_json_str(&j, "verdict", rc == 1 ? "reject" : "undecided");
        psi_json_begin_array(&j, "anomalies");
        for (size_t i = 0; i < idx.n_anomalies; i++) {
            const psi_anomaly *an = &idx.anomalies[i];
            char t[64], o[128];
            psi_json_begin_object(&j, NULL);
            psi_json_str(&j, "kind", psi_anomaly_name(an->kind));
            psi_json_str(&j, "title", psi_anomaly_title(an->kind));
            psi_fmt_txn(h, an->txn, t, sizeof t);
            psi_fmt_op(h, an->op, o, sizeof o);
            psi_json_str(&j, "transaction", t);
            psi_json_str(&j, "operation", o);
            if (an->other_op != PSI_SRC_NONE) {
                psi_fmt_txn(h, an->other_txn, t, sizeof t);
                psi_fmt_op(h, an->other_op, o, sizeof o);
                psi_json_str(&j, "other_transaction", t);
                psi_json_str(&j, "other_operation", o);
            }
            psi_json_end_object(&j);
        }
        psi_json_end_array(&j);
        psi_json_end_object(&j);
    } else if (idx.n_anomalies) {
        printf("REJECT under %s: %zu anomal%s found without any dependency graph\n", level,
               idx.n_anomalies, idx.n_anomalies == 1 ? "y" : "ies");
        for (size_t i = 0; i < idx.n_anomalies; i++)
            print_anomaly_text(h, &idx.anomalies[i]);
    } else {
        printf("UNDECIDED under %s: no INT, G1a, G1b or unwritten-read anomaly; the "
               "dependency-graph check is not built yet\n",
               level);
    }
    psi_index_free(&idx);
    psi_history_free(h);
    return rc;
}
