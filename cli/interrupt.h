/* What `collect` needs around a long run against a database: a check that
 * the output path can be written before the run starts, and a thread that
 * turns SIGINT/SIGTERM into a polite stop between transactions.
 *
 * The signals are blocked in every thread (psi_watcher_start blocks them
 * in the caller before creating any session thread, which inherit the
 * mask), so no database call sees EINTR; the watcher thread alone waits
 * for them. The first signal sets `interrupt` (the sessions stop after
 * their running transactions); a second one before `writing` is set
 * abandons the run with exit 130 and nothing written; after `writing`,
 * further signals wait until the history is written.
 *
 * Ownership: the psi_watcher is the caller's (on its stack); start fills
 * it, stop joins the thread and restores the signal mask. */
#ifndef PSI_CLI_INTERRUPT_H
#define PSI_CLI_INTERRUPT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The exit code of an interrupted collection (128 + SIGINT, as shells). */
#define EXIT_INTERRUPTED 130

typedef struct psi_watcher {
    pthread_t th;
    sigset_t set;
    atomic_bool interrupt; /* the sessions stop after their transactions */
    atomic_bool writing;   /* collection over: further signals wait for the write */
    atomic_bool done;      /* the watcher returns */
} psi_watcher;

/* True when path ("-" is stdout) can be written; otherwise says why on
 * stderr, naming the path. A regular file is probed by creating (and
 * removing) a file beside it. */
bool psi_path_writable(const char *path);

/* Blocks SIGINT and SIGTERM (the previous mask goes to *old) and starts
 * the watcher; false (signals left as they were) if it could not. */
bool psi_watcher_start(psi_watcher *w, sigset_t *old);
/* Stops and joins the watcher and restores the mask *old. */
void psi_watcher_stop(psi_watcher *w, const sigset_t *old);

#endif
