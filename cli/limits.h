/* --timeout SECONDS and --max-memory MB for the long-running commands.
 *
 * A watchdog thread wakes every few milliseconds; when the wall-clock
 * deadline passes or the resident set grows past the limit it prints
 * "polysi-solve: time limit of S s reached in the STAGE stage; no verdict"
 * (or the memory equivalent) and ends the process with exit code 2. The
 * command tells it the current stage (psi_limits_stage), and disarms it
 * before printing anything that depends on the result, so a limit never
 * cuts a verdict in half: once disarmed the watchdog stays silent, and if
 * it fires first the command never prints.
 *
 * Memory is the resident set read from /proc/self/statm, so the limit is
 * checked, not enforced: an allocation burst between two wake-ups can pass
 * it briefly. Allocation failures themselves are errors everywhere (exit 2,
 * "out of memory while ..."). Ownership: psi_limits_start allocates the
 * watchdog; psi_limits_stop joins and frees it. */
#ifndef PSI_CLI_LIMITS_H
#define PSI_CLI_LIMITS_H

#include "cli/args.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct psi_limits {
    double timeout;  /* seconds, 0: none */
    uint64_t max_mb; /* MiB of resident memory, 0: none (when max_mb_given) */
    /* --max-memory was given. Without it the limit is psi_limits_default_mb:
     * a run that outgrows the machine ends with the limit's message (exit
     * 2, the stage named) instead of being killed by the kernel. */
    bool max_mb_given;
    /* Called (with the watchdog's lock held, just before the process
     * ends) with the stage and the message without its "polysi-solve: "
     * prefix, e.g. to print it as JSON or hand it to a batch parent; it
     * returns whether the message should still go to stderr. NULL: it does. */
    bool (*on_fire)(void *ctx, const char *stage, const char *message);
    void *fire_ctx;
} psi_limits;

typedef struct psi_watchdog psi_watchdog;

/* Parses --timeout / --max-memory if arg is one of them (true when
 * consumed; a bad value sets a->failed). */
bool psi_limits_option(psi_args *a, const char *arg, psi_limits *l);

/* The memory limit without --max-memory, in MiB: 90 % of the machine's
 * memory, or of the cgroup's limit (/sys/fs/cgroup/memory.max) when that is
 * lower; 0 when neither can be read. */
uint64_t psi_limits_default_mb(void);

/* Starts the watchdog (NULL when no limit is set, or when the thread
 * cannot be started: then *failed is set and a message printed). */
psi_watchdog *psi_limits_start(const psi_limits *l, bool *failed);
/* Names the stage now running (a string literal: it is kept, not copied). */
void psi_limits_stage(psi_watchdog *w, const char *stage);
/* For psi_check_opts.on_stage. */
void psi_limits_on_stage(void *w, const char *stage);
/* Disarms the watchdog: once this returns it will never end the process.
 * (If a limit was reached first, the watchdog holds the lock while it
 * prints and exits, so this call never returns and nothing is printed.) */
void psi_limits_disarm(psi_watchdog *w);
void psi_limits_stop(psi_watchdog *w);

#endif
