/* A small long-option parser shared by the subcommands: `--name value`,
 * `--name=value` and flags, in any order around positional arguments.
 *
 * Errors are printed as "polysi-solve CMD: ..." unless the command sets
 * `quiet` to word its own (sat keeps the messages it always printed): then
 * nothing is printed and `error` says what went wrong. Either way `failed`
 * is set and the command exits 2. */
#ifndef PSI_CLI_ARGS_H
#define PSI_CLI_ARGS_H

#include "core/history.h"
#include "core/index.h"
#include <stdbool.h>
#include <stdint.h>

typedef enum psi_args_error {
    PSI_ARGS_OK = 0,
    PSI_ARGS_NO_VALUE,  /* an option that takes a value came last */
    PSI_ARGS_BAD_VALUE, /* the value (a.value) does not parse or is out of range */
    PSI_ARGS_UNKNOWN,   /* psi_args_unknown */
} psi_args_error;

typedef struct psi_args {
    int argc;
    char **argv;
    int i;                /* next argument to look at */
    const char *cmd;      /* subcommand name, for messages */
    const char *name;     /* name of the option just matched, without "=value" */
    const char *value;    /* value of the option just matched */
    bool escaped;         /* the argument just returned came right after "--" */
    bool quiet;           /* set by the caller: report in `error`, print nothing */
    bool failed;          /* bad usage (printed unless quiet); exit 2 */
    psi_args_error error; /* why failed is set */
} psi_args;

void psi_args_init(psi_args *a, int argc, char **argv);
/* True when there is another argument; *arg is it, and *is_option says
 * whether it starts with a dash ("-x" or "--x"; "-" alone is positional,
 * stdin). The argument after "--" is positional whatever it looks like
 * (a.escaped is set for it). */
bool psi_args_next(psi_args *a, const char **arg, bool *is_option);
/* Matches flag `--name` exactly. */
bool psi_args_flag(psi_args *a, const char *arg, const char *name);
/* Matches --help or -h. */
bool psi_args_help(psi_args *a, const char *arg);
/* Matches `--name value` or `--name=value`; a.name is name, a.value the
 * value. A missing value is an error (PSI_ARGS_NO_VALUE; a.value is ""). */
bool psi_args_opt(psi_args *a, const char *arg, const char *name);
/* Parses a.value as an unsigned integer / a non-negative number; an error
 * naming the option on failure (PSI_ARGS_BAD_VALUE). */
bool psi_args_u64(psi_args *a, const char *name, uint64_t *out);
bool psi_args_double(psi_args *a, const char *name, double *out);
/* Like psi_args_u64, refusing values above UINT32_MAX. */
bool psi_args_u32(psi_args *a, const char *name, uint32_t *out);
/* "polysi-solve CMD: unknown option ARG" (PSI_ARGS_UNKNOWN). */
void psi_args_unknown(psi_args *a, const char *arg);

/* Matches `--initial-state S` (check, stats, convert): *out becomes
 * implicit or recorded; any other S is an error naming the option
 * (PSI_ARGS_BAD_VALUE, "--initial-state takes implicit or recorded"). */
bool psi_args_initial_state(psi_args *a, const char *arg, psi_initial_state *out);

/* --init MODE: "auto", "none" or "(SESSION,ID)" (parentheses optional).
 * False when MODE is none of them. */
bool psi_parse_init(const char *s, psi_init_opts *o);

#endif
