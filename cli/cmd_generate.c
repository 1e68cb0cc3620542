/* `polysi-solve generate [OPTIONS] OUT`: run a PolySI/Cobra-style workload
 * on the simulated store (workload/gen.h) and write the history. Faults
 * that fired are reported on stderr, so a script knows when the history
 * must be rejected. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/workload.h"
#include "formats/read.h"
#include "formats/write.h"
#include "workload/gen.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static void help(void)
{
    printf("usage: polysi-solve generate [OPTIONS] OUT\n\n"
           "Generates a transaction history by running a workload on a simulated\n"
           "multi-version store, and writes it to OUT.\n\n"
           "workload (defaults as in the PolySI paper):\n"
           "  --sessions N        client sessions (20)\n"
           "  --txns N            transactions per session (100)\n"
           "  --ops N             operations per transaction (15)\n"
           "  --reads R           fraction of reads, mix polysi only (0.5)\n"
           "  --keys N            number of keys (10000)\n"
           "  --dist D            uniform | zipf | hotspot (zipf; hotspot: 80%% of the\n"
           "                      operations on 20%% of the keys)\n"
           "  --zipf-theta X      zipfian exponent (0.5, as the PolySI paper's generator;\n"
           "                      YCSB uses 0.99)\n"
           "  --long-txn-ratio R  fraction of long transactions (0)\n"
           "  --long-ops N        operations of a long transaction (10 x --ops)\n"
           "  --mix M             polysi | rmw | blindw-rh | blindw-rw | blindw-wh |\n"
           "                      heavy-write (polysi)\n"
           "store:\n"
           "  --isolation I       si | ser | random | read-committed (si; random: reads\n"
           "                      return any value ever written to the key, or the\n"
           "                      initial one; read-committed: each read returns the\n"
           "                      latest committed version, no conflict checks)\n"
           "  --faults LIST       comma-separated: lost-update, stale-read, long-fork,\n"
           "                      session-skip (none)\n"
           "  --fault-prob P      probability per transaction and fault (0.1)\n"
           "  --abort-ratio R     fraction of transactions the client rolls back, in any\n"
           "                      store (0); the SI/SER stores also abort on conflicts\n"
           "  --unknown-ratio R   fraction recorded with unknown outcome (0)\n"
           "  --no-retry          do not retry aborted transactions (by default a session\n"
           "                      retries until --txns of its transactions committed)\n"
           "  --seed S            random seed (1)\n"
           "  --value-range N     written values drawn from 1..N, so they repeat (0:\n"
           "                      unique counters, the default); the store behaves the\n"
           "                      same, but a repeated value may let another writer\n"
           "                      explain a faulty read\n"
           "  --value-zipf S      with --value-range N: values zipfian over 1..N, value v\n"
           "                      with weight 1/v^S (0: uniform, the default; N at most\n"
           "                      2^20), as VeriStrong's duplicate-value workloads\n"
           "  --value-repeat-ratio R  with --value-range N: only this fraction of the\n"
           "                      writes draws from 1..N, the others write unique values\n"
           "                      above N (1, the default: every write draws)\n"
           "  --explicit-init     start with a transaction (session 0, id 0) writing 0 to\n"
           "                      every key: a recorded initial state (text and dbcop\n"
           "                      only: edn and json have no written initial value)\n"
           "output:\n"
           "  --timestamps FILE   also write the store's true start and commit\n"
           "                      timestamps of the committed transactions, as\n"
           "                      '(SESSION,ID) START COMMIT' lines (si and ser stores,\n"
           "                      text format), for check --timestamps\n"
           "  --format F          text | dbcop | edn | json (text; text drops aborted\n"
           "                      transactions, which it cannot express; edn and json\n"
           "                      write the events in the store's real-time order, for\n"
           "                      strict-ser and strong-si)\n\n"
           "A summary goes to stderr, including each fault's count of transactions it\n"
           "changed and of those that provably break SI (such a history must be\n"
           "rejected under SI and SER).\n");
}

/* --timestamps: where the store's true timestamps go. */
typedef struct ts_sink {
    FILE *f;
    bool failed;
} ts_sink;

static void put_ts(void *ctx, uint64_t session, uint64_t id, int64_t start, int64_t commit)
{
    ts_sink *t = ctx;
    if (fprintf(t->f, "(%" PRIu64 ",%" PRIu64 ") %" PRId64 " %" PRId64 "\n", session, id, start,
                commit) < 0)
        t->failed = true;
}

/* Parses one option; returns false when it is unknown. */
static bool parse_opt(psi_args *a, const char *arg, psi_gen_opts *o, psi_format *fmt)
{
    static const struct {
        const char *name;
        size_t off;
    } dbls[] = {{"--fault-prob", offsetof(psi_gen_opts, fault_prob)},
                {"--abort-ratio", offsetof(psi_gen_opts, abort_ratio)},
                {"--unknown-ratio", offsetof(psi_gen_opts, unknown_ratio)}};
    if (psi_workload_option(a, arg, o, fmt))
        return true;
    if (psi_args_opt(a, arg, "--value-range")) {
        psi_args_u64(a, "--value-range", &o->value_range);
        return true;
    }
    if (psi_args_opt(a, arg, "--value-zipf")) {
        psi_args_double(a, "--value-zipf", &o->value_zipf);
        return true;
    }
    if (psi_args_opt(a, arg, "--value-repeat-ratio")) {
        double r = -1;
        psi_args_double(a, "--value-repeat-ratio", &r);
        /* Out of [0, 1] lands outside [0, 1] too: psi_generate refuses it. */
        o->value_unique_ratio = r >= 0 && r <= 1 ? 1 - r : -1;
        return true;
    }
    if (psi_args_flag(a, arg, "--explicit-init")) {
        o->explicit_init = true;
        return true;
    }
    for (size_t i = 0; i < sizeof dbls / sizeof dbls[0]; i++)
        if (psi_args_opt(a, arg, dbls[i].name)) {
            psi_args_double(a, dbls[i].name, (double *)((char *)o + dbls[i].off));
            return true;
        }
    if (psi_args_opt(a, arg, "--isolation")) {
        if (!psi_gen_store_parse(a->value, &o->store)) {
            fprintf(stderr,
                    "polysi-solve generate: --isolation takes si, ser, random or read-committed\n");
            a->failed = true;
        }
    } else if (psi_args_opt(a, arg, "--faults")) {
        if (!psi_gen_faults_parse(a->value, &o->faults)) {
            fprintf(stderr, "polysi-solve generate: unknown fault in '%s'\n", a->value);
            a->failed = true;
        }
    } else {
        return false;
    }
    return true;
}

static void report(const psi_gen_opts *o, const psi_gen_report *r)
{
    fprintf(stderr,
            "generated %" PRIu64 " transactions (%" PRIu64 " committed, %" PRIu64
            " aborted, %" PRIu64 " of unknown outcome), %" PRIu64 " operations (%" PRIu64
            " reads, %" PRIu64 " writes); store %s, mix %s, seed %" PRIu64 "\n",
            r->txns, r->committed, r->aborted, r->unknown, r->ops, r->reads, r->writes,
            psi_gen_store_name(o->store), psi_gen_mix_name(o->mix), o->seed);
    /* What the store ran: with retries, aborted attempts can outnumber
     * the transactions asked for, and they are in the history unless the
     * format drops them. */
    if (r->attempts_aborted)
        fprintf(stderr,
                "the store ran %" PRIu64 " transaction attempts: %" PRIu64 " committed, %" PRIu64
                " aborted (%.0f%%%s)%s; %s\n",
                r->attempts, r->attempts_committed, r->attempts_aborted,
                100.0 * (double)r->attempts_aborted / (double)r->attempts,
                o->store == PSI_STORE_RANDOM ? ", by --abort-ratio"
                : o->abort_ratio > 0         ? ", by write conflicts and --abort-ratio"
                                             : ", by write conflicts",
                o->store != PSI_STORE_RANDOM && o->retry_aborted ? " and retried" : "",
                r->not_recorded ? "the text format cannot record aborted transactions, so they "
                                  "are left out"
                                : "every aborted attempt is recorded as aborted");
    /* With repeated values the proofs hold for the store's versions, not
     * for the history: a read's value may have another writer that
     * explains it (workload/gen.h), so they are not called proofs. */
    for (int f = 0; f < PSI_FAULT_COUNT; f++)
        if (o->faults & PSI_FAULT_BIT(f))
            fprintf(stderr, "fault %s: applied %" PRIu64 ", %s %" PRIu64 "%s\n",
                    psi_fault_name((psi_fault)f), r->applied[f],
                    o->value_range ? "breaks SI in the store's versions" : "provably breaks SI",
                    r->violations[f],
                    o->value_range ? " (values repeat: another writer of a value may explain "
                                     "the read, so the history may still satisfy SI)"
                                   : "");
}

int psi_cmd_generate(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    psi_format fmt = PSI_FMT_TEXT;
    const char *out = NULL, *arg, *ts_path = NULL;
    bool opt;
    while (psi_args_next(&a, &arg, &opt)) {
        if (!opt) {
            if (out) {
                fprintf(stderr, "polysi-solve generate: too many arguments\n");
                return 2;
            }
            out = arg;
        } else if (psi_args_help(&a, arg)) {
            help();
            return 0;
        } else if (psi_args_flag(&a, arg, "--no-retry")) {
            o.retry_aborted = false;
        } else if (psi_args_opt(&a, arg, "--timestamps")) {
            ts_path = a.value;
        } else if (!parse_opt(&a, arg, &o, &fmt)) {
            psi_args_unknown(&a, arg);
        }
        if (a.failed)
            return 2;
    }
    if (!out) {
        fprintf(stderr, "polysi-solve generate: need an output path (see --help)\n");
        return 2;
    }
    /* EDN and JSON have no written initial value (nil): a transaction
     * writing 0 there is an ordinary one, which the checker never takes
     * for the initial state, so the history would mean something else
     * (the writers refuse it too, less clearly, after generating). */
    if (o.explicit_init && (fmt == PSI_FMT_EDN || fmt == PSI_FMT_JSON)) {
        fprintf(stderr,
                "polysi-solve generate: --explicit-init needs --format text or dbcop: in %s the "
                "initial value is nil, never written, so a transaction writing 0 would be an "
                "ordinary one\n",
                psi_format_name(fmt));
        return 2;
    }
    o.keep_aborted = fmt != PSI_FMT_TEXT;
    /* EDN and JSON carry invoke and completion order: the store's true one. */
    o.realtime = fmt == PSI_FMT_EDN || fmt == PSI_FMT_JSON;
    ts_sink ts = {0};
    if (ts_path) {
        /* Transaction ids survive only in the text format. */
        if (fmt != PSI_FMT_TEXT || (o.store != PSI_STORE_SI && o.store != PSI_STORE_SER)) {
            fprintf(stderr, "polysi-solve generate: --timestamps needs --format text and "
                            "--isolation si or ser\n");
            return 2;
        }
        if (!(ts.f = fopen(ts_path, "w"))) {
            fprintf(stderr, "polysi-solve generate: %s: cannot open for writing\n", ts_path);
            return 2;
        }
        fprintf(ts.f, "# true start and commit timestamps of the committed transactions\n");
        o.on_timestamps = put_ts;
        o.timestamps_ctx = &ts;
    }

    psi_diag d;
    psi_diag_clear(&d);
    psi_history *h;
    psi_gen_report rep;
    psi_status gst = psi_generate(&o, &h, &rep, &d);
    if (ts.f && (fclose(ts.f) != 0 || ts.failed) && gst == PSI_OK) {
        psi_history_free(h);
        fprintf(stderr, "polysi-solve generate: %s: write failed\n", ts_path);
        return 2;
    }
    if (gst != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    psi_status st = fmt == PSI_FMT_TEXT    ? psi_write_text(h, out, &d)
                    : fmt == PSI_FMT_DBCOP ? psi_write_dbcop(h, out, &d)
                    : fmt == PSI_FMT_JSON  ? psi_write_json(h, out, &d)
                                           : psi_write_edn(h, out, &d);
    psi_history_free(h);
    if (st != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    report(&o, &rep);
    return 0;
}
