/* Workload option parsing for generate and collect (see workload.h). */
#include "cli/workload.h"

#include <stddef.h>
#include <stdio.h>

bool psi_workload_option(psi_args *a, const char *arg, psi_gen_opts *o, psi_format *fmt)
{
    static const struct {
        const char *name;
        size_t off;
    } u32s[] = {{"--sessions", offsetof(psi_gen_opts, sessions)},
                {"--txns", offsetof(psi_gen_opts, txns_per_session)},
                {"--ops", offsetof(psi_gen_opts, ops_per_txn)},
                {"--keys", offsetof(psi_gen_opts, keys)},
                {"--long-ops", offsetof(psi_gen_opts, long_ops)}};
    static const struct {
        const char *name;
        size_t off;
    } dbls[] = {{"--reads", offsetof(psi_gen_opts, read_ratio)},
                {"--zipf-theta", offsetof(psi_gen_opts, zipf_theta)},
                {"--long-txn-ratio", offsetof(psi_gen_opts, long_txn_ratio)}};
    for (size_t i = 0; i < sizeof u32s / sizeof u32s[0]; i++)
        if (psi_args_opt(a, arg, u32s[i].name)) {
            psi_args_u32(a, u32s[i].name, (uint32_t *)((char *)o + u32s[i].off));
            return true;
        }
    for (size_t i = 0; i < sizeof dbls / sizeof dbls[0]; i++)
        if (psi_args_opt(a, arg, dbls[i].name)) {
            psi_args_double(a, dbls[i].name, (double *)((char *)o + dbls[i].off));
            return true;
        }
    if (psi_args_opt(a, arg, "--seed")) {
        psi_args_u64(a, "--seed", &o->seed);
    } else if (psi_args_opt(a, arg, "--dist")) {
        if (!psi_gen_dist_parse(a->value, &o->dist)) {
            fprintf(stderr, "polysi-solve %s: unknown distribution '%s'\n", a->cmd, a->value);
            a->failed = true;
        }
    } else if (psi_args_opt(a, arg, "--mix")) {
        if (!psi_gen_mix_parse(a->value, &o->mix)) {
            fprintf(stderr, "polysi-solve %s: unknown mix '%s'\n", a->cmd, a->value);
            a->failed = true;
        }
    } else if (psi_args_opt(a, arg, "--format")) {
        *fmt = psi_format_from_name(a->value);
        if (*fmt != PSI_FMT_TEXT && *fmt != PSI_FMT_DBCOP && *fmt != PSI_FMT_EDN &&
            *fmt != PSI_FMT_JSON) {
            fprintf(stderr, "polysi-solve %s: --format takes text, dbcop, edn or json\n", a->cmd);
            a->failed = true;
        }
    } else {
        return false;
    }
    return true;
}
