/* A small long-option parser shared by the subcommands: `--name value`,
 * `--name=value` and flags, in any order around positional arguments. */
#ifndef PSI_CLI_ARGS_H
#define PSI_CLI_ARGS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_args {
    int argc;
    char **argv;
    int i;             /* next argument to look at */
    const char *cmd;   /* subcommand name, for messages */
    const char *value; /* value of the option just matched */
    bool failed;       /* a message was printed; exit 2 */
} psi_args;

void psi_args_init(psi_args *a, int argc, char **argv);
/* True when there is another argument; *arg is it. Stops option parsing
 * after "--". */
bool psi_args_next(psi_args *a, const char **arg, bool *is_option);
/* Matches flag `--name` exactly. */
bool psi_args_flag(psi_args *a, const char *arg, const char *name);
/* Matches `--name value` or `--name=value`; a.value is the value. Prints an
 * error and sets failed when the value is missing. */
bool psi_args_opt(psi_args *a, const char *arg, const char *name);
/* Parses a.value as an unsigned integer / a non-negative number; prints an
 * error naming the option on failure. */
bool psi_args_u64(psi_args *a, const char *name, uint64_t *out);
bool psi_args_double(psi_args *a, const char *name, double *out);
/* Like psi_args_u64, refusing values above UINT32_MAX. */
bool psi_args_u32(psi_args *a, const char *name, uint32_t *out);
/* Prints "polysi-solve CMD: unknown option ARG" and sets failed. */
void psi_args_unknown(psi_args *a, const char *arg);

#endif
