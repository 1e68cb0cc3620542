/* Workload options shared by `generate` and `collect`, which run the same
 * generator workloads (sizes, ratios, key distribution, mix, seed, output
 * format) and differ only in what executes them. */
#ifndef PSI_CLI_WORKLOAD_H
#define PSI_CLI_WORKLOAD_H

#include "cli/args.h"
#include "core/history.h"
#include "workload/gen.h"

#include <stdbool.h>

/* Parses one workload option into o / *fmt; false when arg is not one.
 * Errors are printed with the command's name and set a->failed. */
bool psi_workload_option(psi_args *a, const char *arg, psi_gen_opts *o, psi_format *fmt);

#endif
