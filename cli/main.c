/* polysi-solve: the command-line front end. Dispatches to one subcommand
 * per file (cmd_*.c); only this directory prints and picks exit codes. */
#include "cli/commands.h"

#include <stdio.h>
#include <string.h>

typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
    {"check", psi_cmd_check, "check a history under SI or SER (exit 0 accept, 1 reject, 2 error)"},
    {"stats", psi_cmd_stats, "print counts of sessions, transactions, operations and keys"},
    {"convert", psi_cmd_convert, "convert a history to text, dbcop or edn"},
    {"generate", psi_cmd_generate,
     "generate a workload history with a simulated SI/SER store (optionally faulty)"},
    {"collect", psi_cmd_collect,
     "run a generated workload on PostgreSQL (libpq) and record the history"},
    {"verify-witness", psi_cmd_verify_witness,
     "re-check a witness of an accept (exit 0 valid, 1 refused, 2 error)"},
    {"sat", psi_cmd_sat, "solve a DIMACS CNF or GNF file (exit 10 SAT, 20 UNSAT, 0 unknown)"},
};

static void usage(FILE *out)
{
    fprintf(out, "usage: polysi-solve COMMAND [OPTIONS] ...\n\n"
                 "Checks whether a recorded transaction history satisfies snapshot isolation\n"
                 "(SI) or serializability (SER), and explains every violation.\n\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(out, "  %-15s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'polysi-solve COMMAND --help' describes each command.\n"
                 "Exit codes: 0 accept, 1 reject (a violation was found), 2 error.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
        strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("polysi-solve %s\n", PSI_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "polysi-solve: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
