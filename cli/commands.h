/* The polysi-solve subcommands. Each takes the arguments after its name
 * (argv[0] is the subcommand) and returns the process exit code:
 * check/verify-witness 0 accept, 1 reject, 2 error; sat 10/20/0, 2 error. */
#ifndef PSI_CLI_COMMANDS_H
#define PSI_CLI_COMMANDS_H

int psi_cmd_check(int argc, char **argv);
int psi_cmd_stats(int argc, char **argv);
int psi_cmd_convert(int argc, char **argv);
int psi_cmd_sat(int argc, char **argv);
int psi_cmd_generate(int argc, char **argv);
int psi_cmd_collect(int argc, char **argv);
int psi_cmd_verify_witness(int argc, char **argv);

#endif
