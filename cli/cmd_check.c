/* `polysi-solve check`: load a history, run the whole check, report the
 * verdict with its reason, and (with --stats) stage times and counts. */
#include "cli/args.h"
#include "cli/commands.h"
#include "cli/json.h"
#include "core/read.h"
#include "interpret/check.h"
#include "interpret/describe.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

static void help(void)
{
    printf("usage: polysi-solve check [OPTIONS] PATH\n\n"
           "Checks the history at PATH (a file, or a directory of Cobra T*.log files).\n\n"
           "  --isolation L             si (snapshot isolation, default) or ser\n"
           "  --format F                text | dbcop | cobra | edn (default: detect)\n"
           "  --json                    one JSON object on stdout instead of text\n"
           "  --stats                   stage times, counts and peak memory\n"
           "  --no-pruning              hand every constraint to the solver\n"
           "  --no-coalescing           one constraint per (writer pair, key)\n"
           "  --no-theory-propagation   solver: detect cycles only on activation\n"
           "  --time-limit S            give up (exit 2) after S seconds of solving\n\n"
           "Exit codes: 0 accept, 1 reject (a violation was found), 2 error.\n");
}

static size_t peak_rss_bytes(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (size_t)ru.ru_maxrss * 1024u; /* Linux reports KiB */
}

static const char *reason_text(psi_reject_reason r)
{
    switch (r) {
    case PSI_BY_NOTHING:
        return "accepted";
    case PSI_BY_ANOMALY:
        return "anomalies found without any dependency graph";
    case PSI_BY_KNOWN_CYCLE:
        return "the dependencies certain from the history already form a forbidden cycle";
    case PSI_BY_PRUNING:
        return "two writers of a key can be ordered neither way (found while pruning)";
    case PSI_BY_SOLVER:
        return "no version order of the remaining writers avoids a forbidden cycle";
    }
    return "?";
}

static const char *reason_name(psi_reject_reason r)
{
    static const char *names[] = {"none", "anomaly", "known-cycle", "pruning", "solver"};
    return r <= PSI_BY_SOLVER ? names[r] : "?";
}

static void fmt_edge(const psi_history *h, const psi_edge *e, char *buf, size_t n)
{
    char a[64], b[64];
    psi_fmt_txn(h, e->from, a, sizeof a);
    psi_fmt_txn(h, e->to, b, sizeof b);
    if (e->type == PSI_EDGE_SO)
        snprintf(buf, n, "%s -SO-> %s", a, b);
    else
        snprintf(buf, n, "%s -%s(%llu)-> %s", a, psi_edge_type_name((psi_edge_type)e->type),
                 (unsigned long long)h->keys[e->key], b);
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
            if (a->other_txn == a->txn)
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

static void print_cycle_text(const psi_history *h, const char *title, const psi_edge *c, uint32_t n)
{
    if (!n)
        return;
    printf("  %s:\n", title);
    for (uint32_t i = 0; i < n; i++) {
        char e[256];
        fmt_edge(h, &c[i], e, sizeof e);
        printf("    %s\n", e);
    }
}

static void print_stats_text(const psi_check_stats *s, double t_load, size_t peak)
{
    printf("stats:\n");
    printf("  time (s)      load %.3f  validate %.3f  construct %.3f  prune %.3f  encode %.3f  "
           "solve %.3f\n",
           t_load, s->t_validate, s->t_construct, s->t_prune, s->t_encode, s->t_solve);
    printf("  history       %u sessions, %u transactions (%u committed), %llu operations\n",
           s->sessions, s->transactions, s->committed, (unsigned long long)s->operations);
    printf("  known edges   %llu before pruning, %llu after\n",
           (unsigned long long)s->known_edges_before, (unsigned long long)s->known_edges_after);
    printf("  constraints   %llu writer pairs before pruning, %llu generated (unordered), %llu "
           "after (%u rounds)\n",
           (unsigned long long)s->constraints_before, (unsigned long long)s->constraints_generated,
           (unsigned long long)s->constraints_after, s->prune_rounds);
    printf("  unknown deps  %llu before pruning, %llu after\n",
           (unsigned long long)s->unknown_deps_before, (unsigned long long)s->unknown_deps_after);
    printf("  solver        %llu vars, %llu edges, %llu decisions, %llu conflicts, %llu "
           "propagations, %llu theory calls (%.3f s), %llu theory conflicts\n",
           (unsigned long long)s->vars, (unsigned long long)s->theory_edges,
           (unsigned long long)s->decisions, (unsigned long long)s->conflicts,
           (unsigned long long)s->propagations, (unsigned long long)s->theory_calls,
           s->theory_seconds, (unsigned long long)s->theory_conflicts);
    printf("  peak memory   %.1f MiB\n", (double)peak / (1024.0 * 1024.0));
}

static void json_cycle(psi_json *j, const psi_history *h, const char *key, const psi_edge *c,
                       uint32_t n)
{
    psi_json_begin_array(j, key);
    for (uint32_t i = 0; i < n; i++) {
        char a[64], b[64];
        psi_fmt_txn(h, c[i].from, a, sizeof a);
        psi_fmt_txn(h, c[i].to, b, sizeof b);
        psi_json_begin_object(j, NULL);
        psi_json_str(j, "from", a);
        psi_json_str(j, "to", b);
        psi_json_str(j, "type", psi_edge_type_name((psi_edge_type)c[i].type));
        if (c[i].type != PSI_EDGE_SO)
            psi_json_u64(j, "key", h->keys[c[i].key]);
        psi_json_end_object(j);
    }
    psi_json_end_array(j);
}

static void print_json(const psi_history *h, const char *path, const char *level,
                       const psi_check_result *r, double t_load, size_t peak)
{
    const psi_check_stats *s = &r->stats;
    psi_json j;
    psi_json_init(&j, stdout);
    psi_json_begin_object(&j, NULL);
    psi_json_str(&j, "path", path);
    psi_json_str(&j, "format", psi_format_name(h->format));
    psi_json_str(&j, "isolation", level);
    psi_json_str(&j, "verdict", r->verdict == PSI_ACCEPT ? "accept" : "reject");
    psi_json_str(&j, "reason", reason_name(r->reason));
    psi_json_begin_array(&j, "anomalies");
    for (size_t i = 0; i < r->idx.n_anomalies; i++) {
        const psi_anomaly *an = &r->idx.anomalies[i];
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
    psi_json_begin_array(&j, "cycles");
    if (r->reason == PSI_BY_KNOWN_CYCLE || r->reason == PSI_BY_PRUNING) {
        for (int c = 0; c < 2; c++)
            if (r->prune.cycle_len[c])
                json_cycle(&j, h, NULL, r->prune.cycle[c], r->prune.cycle_len[c]);
    } else if (r->reason == PSI_BY_SOLVER && r->solver_cycle_len) {
        json_cycle(&j, h, NULL, r->solver_cycle, r->solver_cycle_len);
    }
    psi_json_end_array(&j);
    psi_json_begin_object(&j, "stats");
    psi_json_begin_object(&j, "seconds");
    psi_json_num(&j, "load", t_load);
    psi_json_num(&j, "validate", s->t_validate);
    psi_json_num(&j, "construct", s->t_construct);
    psi_json_num(&j, "prune", s->t_prune);
    psi_json_num(&j, "encode", s->t_encode);
    psi_json_num(&j, "solve", s->t_solve);
    psi_json_end_object(&j);
    psi_json_u64(&j, "sessions", s->sessions);
    psi_json_u64(&j, "transactions", s->transactions);
    psi_json_u64(&j, "committed", s->committed);
    psi_json_u64(&j, "operations", s->operations);
    psi_json_u64(&j, "known_edges_before", s->known_edges_before);
    psi_json_u64(&j, "known_edges_after", s->known_edges_after);
    psi_json_u64(&j, "constraints_before", s->constraints_before);
    psi_json_u64(&j, "constraints_generated", s->constraints_generated);
    psi_json_u64(&j, "constraints_after", s->constraints_after);
    psi_json_u64(&j, "unknown_deps_before", s->unknown_deps_before);
    psi_json_u64(&j, "unknown_deps_after", s->unknown_deps_after);
    psi_json_u64(&j, "prune_rounds", s->prune_rounds);
    psi_json_u64(&j, "solver_vars", s->vars);
    psi_json_u64(&j, "solver_edges", s->theory_edges);
    psi_json_u64(&j, "decisions", s->decisions);
    psi_json_u64(&j, "conflicts", s->conflicts);
    psi_json_u64(&j, "propagations", s->propagations);
    psi_json_u64(&j, "restarts", s->restarts);
    psi_json_u64(&j, "learned", s->learned);
    psi_json_u64(&j, "theory_calls", s->theory_calls);
    psi_json_u64(&j, "theory_conflicts", s->theory_conflicts);
    psi_json_u64(&j, "theory_propagations", s->theory_propagations);
    psi_json_num(&j, "theory_seconds", s->theory_seconds);
    psi_json_u64(&j, "peak_memory_bytes", peak);
    psi_json_end_object(&j);
    psi_json_end_object(&j);
}

static void print_text(const psi_history *h, const char *level, const psi_check_result *r)
{
    if (r->verdict == PSI_ACCEPT) {
        printf("ACCEPT: the history satisfies %s\n", level);
        return;
    }
    printf("REJECT: the history violates %s: %s\n", level, reason_text(r->reason));
    switch (r->reason) {
    case PSI_BY_ANOMALY:
        for (size_t i = 0; i < r->idx.n_anomalies; i++)
            print_anomaly_text(h, &r->idx.anomalies[i]);
        break;
    case PSI_BY_KNOWN_CYCLE:
        print_cycle_text(h, "cycle", r->prune.cycle[0], r->prune.cycle_len[0]);
        break;
    case PSI_BY_PRUNING:
        print_cycle_text(h, "cycle if the first writer goes first", r->prune.cycle[0],
                         r->prune.cycle_len[0]);
        print_cycle_text(h, "cycle if the second writer goes first", r->prune.cycle[1],
                         r->prune.cycle_len[1]);
        break;
    case PSI_BY_SOLVER:
        print_cycle_text(h, "last cycle the solver refuted", r->solver_cycle, r->solver_cycle_len);
        break;
    default:
        break;
    }
}

int psi_cmd_check(int argc, char **argv)
{
    psi_args a;
    psi_args_init(&a, argc, argv);
    psi_read_opts ro = {0};
    psi_check_opts co = {0};
    const char *path = NULL, *arg;
    bool json = false, stats = false, opt;
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
        } else if (psi_args_flag(&a, arg, "--stats")) {
            stats = true;
        } else if (psi_args_flag(&a, arg, "--no-pruning")) {
            co.no_pruning = true;
        } else if (psi_args_flag(&a, arg, "--no-coalescing")) {
            co.no_coalescing = true;
        } else if (psi_args_flag(&a, arg, "--no-theory-propagation")) {
            co.no_theory_propagation = true;
        } else if (psi_args_opt(&a, arg, "--time-limit")) {
            psi_args_double(&a, "--time-limit", &co.time_limit);
        } else if (psi_args_opt(&a, arg, "--isolation")) {
            if (strcmp(a.value, "si") == 0)
                co.ser = false;
            else if (strcmp(a.value, "ser") == 0)
                co.ser = true;
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
    double t0 = psi_now();
    if (psi_read_history(path, &ro, &h, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        return 2;
    }
    double t_load = psi_now() - t0;
    psi_check_result res;
    if (psi_check(h, &co, &res, &d) != PSI_OK) {
        fprintf(stderr, "polysi-solve: %s\n", d.msg);
        psi_check_result_free(&res);
        psi_history_free(h);
        return 2;
    }
    const char *level = co.ser ? "SER" : "SI";
    size_t peak = peak_rss_bytes();
    if (json) {
        print_json(h, path, level, &res, t_load, peak);
    } else {
        print_text(h, level, &res);
        if (stats)
            print_stats_text(&res.stats, t_load, peak);
    }
    int rc = res.verdict == PSI_ACCEPT ? 0 : 1;
    psi_check_result_free(&res);
    psi_history_free(h);
    return rc;
}
