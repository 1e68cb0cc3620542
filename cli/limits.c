/* The limits watchdog (see limits.h). */
#include "cli/limits.h"

#include "core/memuse.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct psi_watchdog {
    psi_limits lim;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    const char *stage; /* guarded by mu */
    bool disarmed;     /* guarded by mu */
    double start;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool psi_limits_option(psi_args *a, const char *arg, psi_limits *l)
{
    if (psi_args_opt(a, arg, "--timeout")) {
        if (!a->failed)
            psi_args_double(a, "--timeout", &l->timeout);
        return true;
    }
    if (psi_args_opt(a, arg, "--max-memory")) {
        if (!a->failed)
            psi_args_u64(a, "--max-memory", &l->max_mb);
        l->max_mb_given = true;
        return true;
    }
    return false;
}

uint64_t psi_limits_default_mb(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t bytes = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
    /* A container's limit is what the kernel enforces there ("max" when
     * there is none). */
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f) {
        unsigned long long cg = 0;
        if (fscanf(f, "%llu", &cg) == 1 && cg > 0 && (!bytes || cg < bytes))
            bytes = cg;
        fclose(f);
    }
    return bytes / 10 * 9 / (1024u * 1024u);
}

/* Prints the message and ends the process; called with mu held, so the
 * command cannot disarm (and start printing) in between. */
static void fire(psi_watchdog *w, bool memory)
{
    char msg[256];
    const char *stage = w->stage ? w->stage : "start-up";
    int n;
    if (memory)
        n = snprintf(msg, sizeof msg,
                     "polysi-solve: memory limit of %llu MB%s reached in the %s stage; no "
                     "verdict\n",
                     (unsigned long long)w->lim.max_mb,
                     w->lim.max_mb_given ? ""
                                         : " (the default: 90 % of this machine's memory; "
                                           "--max-memory sets it)",
                     stage);
    else
        n = snprintf(msg, sizeof msg,
                     "polysi-solve: time limit of %g s reached in the %s stage; no verdict\n",
                     w->lim.timeout, stage);
    bool print = true;
    if (w->lim.on_fire && n > 14) {
        char bare[256];
        snprintf(bare, sizeof bare, "%.*s", n - 14 - 1, msg + 14); /* no prefix, no newline */
        print = w->lim.on_fire(w->lim.fire_ctx, stage, bare);
    }
    fflush(stdout);
    if (print && n > 0 && write(STDERR_FILENO, msg, (size_t)n) < 0) {
        /* nothing more can be said */
    }
    _exit(2);
}

static void *watch(void *arg)
{
    psi_watchdog *w = arg;
    pthread_mutex_lock(&w->mu);
    while (!w->disarmed) {
        double t = now() - w->start;
        if (w->lim.timeout > 0 && t >= w->lim.timeout)
            fire(w, false);
        if (w->lim.max_mb && psi_mem_resident() > w->lim.max_mb * 1024ull * 1024ull)
            fire(w, true);
        /* Sleep 10 ms or until disarmed. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 10 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&w->cv, &w->mu, &ts);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

psi_watchdog *psi_limits_start(const psi_limits *l, bool *failed)
{
    *failed = false;
    psi_limits eff = *l;
    if (!eff.max_mb_given)
        eff.max_mb = psi_limits_default_mb();
    if (eff.timeout <= 0 && eff.max_mb == 0)
        return NULL;
    psi_watchdog *w = calloc(1, sizeof *w);
    if (!w) {
        fprintf(stderr, "polysi-solve: out of memory while starting the limits watchdog\n");
        *failed = true;
        return NULL;
    }
    w->lim = eff;
    w->start = now();
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (pthread_create(&w->thread, NULL, watch, w) != 0) {
        fprintf(stderr, "polysi-solve: cannot start the limits watchdog\n");
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        free(w);
        *failed = true;
        return NULL;
    }
    return w;
}

void psi_limits_stage(psi_watchdog *w, const char *stage)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->stage = stage;
    pthread_mutex_unlock(&w->mu);
}

void psi_limits_on_stage(void *w, const char *stage)
{
    psi_limits_stage(w, stage);
}

void psi_limits_disarm(psi_watchdog *w)
{
    if (!w)
        return;
    pthread_mutex_lock(&w->mu);
    w->disarmed = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void psi_limits_stop(psi_watchdog *w)
{
    if (!w)
        return;
    psi_limits_disarm(w);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
    free(w);
}
