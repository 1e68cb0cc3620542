/* The output-path probe and the signal watcher of `collect`
 * (cli/interrupt.h). */
#include "cli/interrupt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Fails fast on an output path that cannot be written, before a long
 * collection: a file is created beside it and removed. */
bool psi_path_writable(const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") == 0 ||
        (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)))
        return true; /* stdout, a device, a FIFO: written in place */
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        fprintf(stderr, "polysi-solve: %s: cannot write: %s\n", path, strerror(EISDIR));
        return false;
    }
    char probe[4096];
    snprintf(probe, sizeof probe, "%s.probe%ld", path, (long)getpid());
    int fd = open(probe, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) {
        fprintf(stderr, "polysi-solve: %s: cannot create a file there: %s\n", path,
                strerror(errno));
        return false;
    }
    close(fd);
    unlink(probe);
    return true;
}

/* ---- Signals: a thread waits for SIGINT/SIGTERM (blocked everywhere
 * else, so no database call sees EINTR) and turns the first into a stop
 * between transactions. ---- */

static void *watch(void *arg)
{
    psi_watcher *w = arg;
    struct timespec tick = {0, 100 * 1000 * 1000};
    while (!atomic_load(&w->done)) {
        int sig = sigtimedwait(&w->set, NULL, &tick);
        if (sig < 0)
            continue;
        if (!atomic_load(&w->interrupt)) {
            atomic_store(&w->interrupt, true);
            fprintf(stderr,
                    "\npolysi-solve: %s: stopping after the running transactions; the history "
                    "so far will be written, marked partial (again to abandon it)\n",
                    strsignal(sig));
        } else if (!atomic_load(&w->writing)) {
            fprintf(stderr, "polysi-solve: %s again: abandoned; nothing written\n", strsignal(sig));
            _exit(EXIT_INTERRUPTED);
        }
    }
    return NULL;
}

bool psi_watcher_start(psi_watcher *w, sigset_t *old)
{
    sigemptyset(&w->set);
    sigaddset(&w->set, SIGINT);
    sigaddset(&w->set, SIGTERM);
    atomic_init(&w->interrupt, false);
    atomic_init(&w->writing, false);
    atomic_init(&w->done, false);
    if (pthread_sigmask(SIG_BLOCK, &w->set, old) != 0)
        return false;
    if (pthread_create(&w->th, NULL, watch, w) != 0) {
        pthread_sigmask(SIG_SETMASK, old, NULL);
        return false;
    }
    return true;
}

void psi_watcher_stop(psi_watcher *w, const sigset_t *old)
{
    atomic_store(&w->done, true);
    pthread_join(w->th, NULL);
    pthread_sigmask(SIG_SETMASK, old, NULL);
}
