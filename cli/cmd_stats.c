/* `polysi-solve stats PATH`: counts that describe a history's shape. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "formats/read.h"

#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: polysi-solve stats [--format F] [--json] PATH\n\n"
           "Prints the number of sessions, transactions (committed/aborted/unknown), reads,\n"
           "writes, keys, and read-only / write-only / read-write transactions.\n"
           "Statuses are as recorded (unknown outcomes are not settled here).\n\n"
           "  --format F   text | dbcop | cobra | edn (default: detect)\n"
           "  --json       one JSON object instead of text\n");
}

typedef struct counts {
    uint64_t committed, aborted, unknown, reads, writes, ro, wo, rw, empty;
} counts;

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
        } else if (psi_args_flag(&a, arg, "--help")) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--json")) {
            json = true;
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
    counts c = {0};
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        uint64_t r = 0, w = 0;
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            if (psi_txn_ops(h, t)[i].kind == PSI_OP_READ)
                r++;
            else
                w++;
        }
        c.reads += r;
        c.writes += w;
        c.committed += tx->status == PSI_TXN_COMMITTED;
        c.aborted += tx->status == PSI_TXN_ABORTED;
        c.unknown += tx->status == PSI_TXN_UNKNOWN;
        if (r && w)
            c.rw++;
        else if (r)
            c.ro++;
        else if (w)
            c.wo++;
        else
            c.empty++;
    }
    if (json) {
        psi_json j;
        psi_json_init(&j, stdout);
        psi_json_begin_object(&j, NULL);
        psi_json_str(&j, "path", path);
        psi_json_str(&j, "format", psi_format_name(h->format));
        psi_json_u64(&j, "sessions", h->n_sessions);
        psi_json_u64(&j, "transactions", h->n_txns - 1);
        psi_json_u64(&j, "committed", c.committed);
        psi_json_u64(&j, "aborted", c.aborted);
        psi_json_u64(&j, "unknown", c.unknown);
        psi_json_u64(&j, "operations", h->n_ops);
        psi_json_u64(&j, "reads", c.reads);
        psi_json_u64(&j, "writes", c.writes);
        psi_json_u64(&j, "keys", h->n_keys);
        psi_json_u64(&j, "read_only", c.ro);
        psi_json_u64(&j, "write_only", c.wo);
        psi_json_u64(&j, "read_write", c.rw);
        psi_json_u64(&j, "empty", c.empty);
        psi_json_end_object(&j);
    } else {
        printf("history       %s (%s)\n", path, psi_format_name(h->format));
        printf("sessions      %u\n", h->n_sessions);
        printf("transactions  %u (committed %llu, aborted %llu, unknown %llu)\n", h->n_txns - 1,
               (unsigned long long)c.committed, (unsigned long long)c.aborted,
               (unsigned long long)c.unknown);
        printf("operations    %u (reads %llu, writes %llu)\n", h->n_ops,
               (unsigned long long)c.reads, (unsigned long long)c.writes);
        printf("keys          %u\n", h->n_keys);
        printf("read-only     %llu\nwrite-only    %llu\nread-write    %llu\n",
               (unsigned long long)c.ro, (unsigned long long)c.wo, (unsigned long long)c.rw);
        if (c.empty)
            printf("empty         %llu\n", (unsigned long long)c.empty);
    }
    psi_history_free(h);
    return 0;
}
