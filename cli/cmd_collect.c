/* `polysi-solve collect --db postgres|mariadb|sqlite --conn CONNINFO
 * --level L [OPTIONS] OUT` (and `--pg CONNINFO`, the same as --db postgres
 * --conn CONNINFO): run the generator's workload against a real database
 * (workload/collect.h), record the history and write it. A summary goes to
 * stderr.
 *
 * Nothing is left at OUT unless a complete history was recorded: every
 * error (unreachable database, wrong credentials, a level the database
 * does not offer, a failed statement) exits 2 with the database's message
 * before anything is written, and the writers put the file in place only
 * when all of it is written. SIGINT or SIGTERM during the collection stop
 * the sessions after their running transactions; what they recorded is
 * written as a complete history whose header says it is partial (exit
 * 130), or nothing when no transaction finished. A second signal while
 * collecting abandons it (nothing written). */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/interrupt.h"
#include "cli/workload.h"
#include "formats/read.h"
#include "formats/write.h"
#include "workload/collect.h"
#include "workload/gen.h"

#include <inttypes.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static void help(void)
{
    const psi_db_driver *dbs[] = {psi_db_postgres(), psi_db_mariadb(), psi_db_sqlite()};
    printf("usage: polysi-solve collect --db DB --conn CONNINFO --level LEVEL [OPTIONS] OUT\n"
           "       polysi-solve collect --pg CONNINFO --level LEVEL [OPTIONS] OUT\n\n"
           "Runs a generated workload against a database (one connection and one thread\n"
           "per session, all running at once), records the history and writes it to OUT,\n"
           "with the database, its version and the level in the file's header. The table\n"
           "(--table, default psi_kv) is dropped, re-created as (k, v) and filled with\n"
           "v = 0 for every key: 0 is the initial value. A transaction the database aborts\n"
           "(serialization failure, deadlock, lock timeout, SQLite busy) is rolled back,\n"
           "recorded as aborted, and retried with fresh values.\n\n"
           "database:\n"
           "  --db DB             postgres | mariadb (or mysql) | sqlite\n"
           "  --conn CONNINFO     key=value pairs as libpq takes them:\n"
           "                        postgres: anything libpq takes ('' = libpq defaults and\n"
           "                                  PG* variables), e.g. 'host=/tmp port=5432\n"
           "                                  user=me dbname=test'\n"
           "                        mariadb:  host, port, user, password, dbname (required),\n"
           "                                  unix_socket, connect_timeout\n"
           "                        sqlite:   the database file's path (created if missing),\n"
           "                                  or dbname=PATH [busy_timeout=MS (5000)]\n"
           "  --pg CONNINFO       the same as --db postgres --conn CONNINFO\n"
           "  --level L           as the database names it: read-uncommitted,\n"
           "                      read-committed, repeatable-read, serializable (postgres,\n"
           "                      mariadb); serializable (sqlite: its only level). Required.\n"
           "  --table NAME        table to use (psi_kv; dropped and re-created)\n"
           "  --max-retries N     retries of one transaction before giving up (1000)\n"
           "workload (as polysi-solve generate; defaults as in the PolySI paper):\n"
           "  --sessions N        client sessions (20)\n"
           "  --txns N            committed transactions per session (100)\n"
           "  --ops N             operations per transaction (15)\n"
           "  --reads R           fraction of reads, mix polysi only (0.5)\n"
           "  --keys N            number of keys (10000)\n"
           "  --dist D            uniform | zipf | hotspot (zipf)\n"
           "  --zipf-theta X      zipfian exponent (0.5)\n"
           "  --long-txn-ratio R  fraction of long transactions (0)\n"
           "  --long-ops N        operations of a long transaction (10 x --ops)\n"
           "  --mix M             polysi | rmw | blindw-rh | blindw-rw | blindw-wh |\n"
           "                      heavy-write (polysi)\n"
           "  --seed S            random seed of the plans (1); the interleaving is the\n"
           "                      database's, so histories differ from run to run\n"
           "output:\n"
           "  --format F          text | dbcop | edn | json (dbcop; text drops aborted\n"
           "                      transactions, which it cannot express)\n\n"
           "Exit codes: 0 collected; 2 error (nothing written: the database's message is\n"
           "printed); 130 interrupted (SIGINT/SIGTERM): the sessions stop after their\n"
           "running transactions and what they recorded is written, complete and marked\n"
           "PARTIAL in its header, or nothing when no transaction finished; a second\n"
           "signal abandons the collection.\n\n"
           "This polysi-solve was built with:");
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++)
        printf(" %s (%s)", dbs[i]->name,
               dbs[i]->available ? "enabled" : "DISABLED: install its -dev package and rebuild");
    printf("\n");
    for (size_t i = 0; i < sizeof dbs / sizeof dbs[0]; i++)
        if (!dbs[i]->available)
            printf("Built WITHOUT %s's client library: apt-get install %s, then rebuild.\n",
                   dbs[i]->title, dbs[i]->package);
}

typedef struct collect_cli {
    psi_gen_opts g;
    psi_collect_opts o;
    psi_format fmt;
    const char *db_name, *conninfo, *level, *out;
} collect_cli;

static bool parse_opt(psi_args *a, const char *arg, collect_cli *c)
{
    if (psi_workload_option(a, arg, &c->g, &c->fmt))
        return true;
    if (psi_args_opt(a, arg, "--pg")) {
        if (c->db_name && strcmp(c->db_name, "postgres") != 0) {
            fprintf(stderr, "polysi-solve collect: --pg is --db postgres, not --db %s\n",
                    c->db_name);
            a->failed = true;
        }
        c->db_name = "postgres";
        c->conninfo = a->value;
    } else if (psi_args_opt(a, arg, "--db")) {
        c->db_name = a->value;
    } else if (psi_args_opt(a, arg, "--conn")) {
        c->conninfo = a->value;
    } else if (psi_args_opt(a, arg, "--table")) {
        c->o.table = a->value;
    } else if (psi_args_opt(a, arg, "--max-retries")) {
        psi_args_u32(a, "--max-retries", &c->o.max_retries);
    } else if (psi_args_opt(a, arg, "--level")) {
        c->level = a->value;
    } else {
        return false;
    }
    return true;
}

/* Checks what the options name once all are read; prints and returns
 * false on misuse. */
static bool resolve(collect_cli *c)
{
    if (!c->db_name) {
        fprintf(stderr, "polysi-solve collect: name the database: --db postgres|mariadb|sqlite "
                        "(see --help)\n");
        return false;
    }
    c->o.db = psi_db_find(c->db_name);
    if (!c->o.db) {
        fprintf(stderr, "polysi-solve collect: unknown database '%s' (postgres, mariadb, sqlite)\n",
                c->db_name);
        return false;
    }
    if (!c->o.db->available) {
        fprintf(stderr,
                "polysi-solve collect: this polysi-solve was built without %s's client library, "
                "so --db %s is disabled; install %s (apt-get install %s) and rebuild\n",
                c->o.db->title, c->o.db->name, c->o.db->package, c->o.db->package);
        return false;
    }
    if (!c->conninfo) {
        fprintf(stderr, "polysi-solve collect: need --conn CONNINFO (see --help)\n");
        return false;
    }
    c->o.conninfo = c->conninfo;
    if (!c->level) {
        fprintf(stderr, "polysi-solve collect: name the level with --level (see --help)\n");
        return false;
    }
    if (!psi_db_level_parse(c->level, &c->o.level)) {
        fprintf(stderr,
                "polysi-solve collect: unknown level '%s' (read-uncommitted, read-committed, "
                "repeatable-read, serializable)\n",
                c->level);
        return false;
    }
    if (!c->out) {
        fprintf(stderr, "polysi-solve collect: need an output path (see --help)\n");
        return false;
    }
    return true;
}

static void print_summary(const collect_cli *c, const psi_collect_report *rep)
{
    fprintf(stderr,
            "collected from %s (%s) in %.2f s: %" PRIu64 " committed, %" PRIu64 " aborted (%" PRIu64
            " serialization failures, %" PRIu64 " deadlocks, %" PRIu64
            " lock timeouts); recorded %" PRIu64 " operations (%" PRIu64 " reads, %" PRIu64
            " writes); seed %" PRIu64 "\n",
            rep->version, psi_db_level_name(c->o.level), rep->seconds, rep->committed, rep->aborted,
            rep->serialization, rep->deadlocks, rep->busy, rep->ops, rep->reads, rep->writes,
            c->g.seed);
}

/* Collects and writes; the exit code. */
static int run(collect_cli *c)
{
    if (!psi_path_writable(c->out))
        return 2;
    psi_watcher w;
    sigset_t old;
    bool watching = psi_watcher_start(&w, &old);
    if (watching)
        c->o.interrupt = &w.interrupt;
    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h = NULL;
    psi_collect_report rep;
    psi_status st = psi_collect(&c->g, &c->o, &h, &rep, &d);
    if (watching)
        atomic_store(&w.writing, true);
    int rc = 2;
    if (st != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
    } else if (rep.partial && rep.committed + rep.aborted == 0) {
        fprintf(stderr, "polysi-solve: interrupted before any transaction finished; nothing "
                        "written\n");
        rc = EXIT_INTERRUPTED;
    } else if (psi_write_history(h, c->fmt, c->out, rep.header, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
    } else {
        print_summary(c, &rep);
        rc = 0;
        if (rep.partial) {
            fprintf(stderr,
                    "polysi-solve: interrupted: wrote a PARTIAL history to %s (%" PRIu64
                    " of %" PRIu64
                    " planned transactions committed; every recorded transaction is complete, "
                    "and the header says PARTIAL)\n",
                    c->out, rep.committed, rep.planned);
            rc = EXIT_INTERRUPTED;
        }
    }
    psi_history_free(h);
    if (watching)
        psi_watcher_stop(&w, &old);
    return rc;
}

int psi_cmd_collect(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    collect_cli c = {.fmt = PSI_FMT_DBCOP};
    psi_gen_opts_default(&c.g);
    psi_collect_opts_default(&c.o);
    const char *arg;
    bool opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (c.out) {
                fprintf(stderr, "polysi-solve collect: too many arguments\n");
                return 2;
            }
            c.out = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (!parse_opt(&a, arg, &c)) {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (!resolve(&c))
        return 2;
    c.o.keep_aborted = c.fmt != PSI_FMT_TEXT;
    return run(&c);
}
