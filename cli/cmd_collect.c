/* `polysi-solve collect --pg CONNINFO --level L [OPTIONS] OUT`: run the
 * generator's workload against a real PostgreSQL server (workload/pg.h),
 * record the history and write it. A summary goes to stderr. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/workload.h"
#include "formats/read.h"
#include "formats/write.h"
#include "workload/gen.h"
#include "workload/pg.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: polysi-solve collect --pg CONNINFO --level LEVEL [OPTIONS] OUT\n\n"
           "Runs a generated workload against PostgreSQL through libpq (one connection\n"
           "and one thread per session, all running at once), records the history and\n"
           "writes it to OUT. The table (--table, default psi_kv) is dropped, re-created\n"
           "as (k bigint primary key, v bigint) and filled with v = 0 for every key:\n"
           "0 is the initial value. Serialization failures and deadlocks (SQLSTATE\n"
           "40001, 40P01) roll the transaction back; it is recorded as aborted and the\n"
           "session retries it with fresh values.\n\n"
           "database:\n"
           "  --pg CONNINFO       libpq connection string, e.g. 'host=/tmp port=5432\n"
           "                      dbname=postgres' (required; '' = libpq defaults/PG* env)\n"
           "  --level L           read-committed | repeatable-read | serializable\n"
           "                      (repeatable-read; PostgreSQL's is snapshot isolation)\n"
           "  --table NAME        table to use (psi_kv; dropped and re-created)\n"
           "  --max-retries N     retries of one transaction before giving up (1000)\n"
           "workload (as polysi-solve generate; defaults as in the PolySI paper):\n"
           "  --sessions N        client sessions (20)\n"
           "  --txns N            committed transactions per session (100)\n"
           "  --ops N             operations per transaction (15)\n"
           "  --reads R           fraction of reads, mix polysi only (0.5)\n"
           "  --keys N            number of keys (10000)\n"
           "  --dist D            uniform | zipf | hotspot (zipf)\n"
           "  --zipf-theta X      zipfian exponent (0.99)\n"
           "  --long-txn-ratio R  fraction of long transactions (0)\n"
           "  --long-ops N        operations of a long transaction (10 x --ops)\n"
           "  --mix M             polysi | rmw | blindw-rh | blindw-rw | blindw-wh |\n"
           "                      heavy-write (polysi)\n"
           "  --seed S            random seed of the plans (1); the interleaving is the\n"
           "                      database's, so histories differ from run to run\n"
           "output:\n"
           "  --format F          text | dbcop | edn (dbcop; text drops aborted\n"
           "                      transactions, which it cannot express)\n\n"
           "%s",
           psi_pg_available()
               ? ""
               : "This polysi-solve was built WITHOUT libpq, so collect is disabled:\n"
                 "install libpq-dev (apt-get install libpq-dev) and rebuild.\n");
}

static bool parse_opt(psi_args *a, const char *arg, psi_gen_opts *g, psi_pg_opts *o,
                      psi_format *fmt)
{
    if (psi_workload_option(a, arg, g, fmt))
        return true;
    if (psi_args_opt(a, arg, "--pg")) {
        o->conninfo = a->value;
    } else if (psi_args_opt(a, arg, "--table")) {
        o->table = a->value;
    } else if (psi_args_opt(a, arg, "--max-retries")) {
        psi_args_u32(a, "--max-retries", &o->max_retries);
    } else if (psi_args_opt(a, arg, "--level")) {
        if (!psi_pg_level_parse(a->value, &o->level)) {
            fprintf(stderr, "polysi-solve collect: --level takes read-committed, "
                            "repeatable-read or serializable\n");
            a->failed = true;
        }
    } else {
        return false;
    }
    return true;
}

int psi_cmd_collect(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_gen_opts g;
    psi_gen_opts_default(&g);
    psi_pg_opts o;
    psi_pg_opts_default(&o);
    psi_format fmt = PSI_FMT_DBCOP;
    const char *out = NULL, *arg;
    bool opt, have_pg = false;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (out) {
                fprintf(stderr, "polysi-solve collect: too many arguments\n");
                return 2;
            }
            out = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (!parse_opt(&a, arg, &g, &o, &fmt)) {
            psi_args_unknown(&a, arg);
        } else {
            have_pg |= strcmp(arg, "--pg") == 0 || strncmp(arg, "--pg=", 5) == 0;
        }
        if (a.failed)
            return 2;
    }
    if (!psi_pg_available()) {
        fprintf(stderr, "polysi-solve collect: built without libpq, so collect is disabled; "
                        "install libpq-dev (apt-get install libpq-dev) and rebuild\n");
        return 2;
    }
    if (!have_pg || !out) {
        fprintf(stderr, "polysi-solve collect: need --pg CONNINFO and an output path "
                        "(see --help)\n");
        return 2;
    }
    o.keep_aborted = fmt != PSI_FMT_TEXT;

    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    psi_pg_report rep;
    if (psi_pg_collect(&g, &o, &h, &rep, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    psi_status st = fmt == PSI_FMT_TEXT    ? psi_write_text(h, out, &d)
                    : fmt == PSI_FMT_DBCOP ? psi_write_dbcop(h, out, &d)
                                           : psi_write_edn(h, out, &d);
    psi_history_free(h);
    if (st != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    fprintf(stderr,
            "collected from PostgreSQL (%s) in %.2f s: %" PRIu64 " committed, %" PRIu64
            " aborted (%" PRIu64 " serialization failures, %" PRIu64
            " deadlocks); recorded %" PRIu64 " operations (%" PRIu64 " reads, %" PRIu64
            " writes); seed %" PRIu64 "\n",
            psi_pg_level_name(o.level), rep.seconds, rep.committed, rep.aborted, rep.serialization,
            rep.deadlocks, rep.ops, rep.reads, rep.writes, g.seed);
    return 0;
}
