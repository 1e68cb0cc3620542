/* The --progress status line (see progress.h). */
#include "cli/progress.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

struct psi_progress_line {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool tty, stop;
    bool shown; /* tty: a line is on screen */
    double start, last_draw;
    /* guarded by mu */
    const char *stage;
    psi_progress_event ev; /* the last event of the current stage */
    bool have_ev;
    bool batch;
    size_t done, total, running;
    char current[160];
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Peak resident memory of this process and (batch) of its children. */
static double peak_mib(void)
{
    struct rusage self, kids;
    long kib = 0;
    if (getrusage(RUSAGE_SELF, &self) == 0)
        kib = self.ru_maxrss;
    if (getrusage(RUSAGE_CHILDREN, &kids) == 0 && kids.ru_maxrss > kib)
        kib = kids.ru_maxrss;
    return (double)kib / 1024.0;
}

/* The status text, with mu held. */
static void compose(const psi_progress_line *p, char *buf, size_t n)
{
    size_t used = 0;
#define PUT(...)                                                                                   \
    do {                                                                                           \
        int k_ = snprintf(buf + used, used < n ? n - used : 0, __VA_ARGS__);                       \
        used += k_ > 0 ? (size_t)k_ : 0;                                                           \
    } while (0)
    PUT("polysi-solve: ");
    if (p->batch) {
        PUT("%zu/%zu histories", p->done, p->total);
        if (p->running)
            PUT(", %zu running (%s)", p->running, p->current);
    } else {
        PUT("%s", p->stage ? p->stage : "starting");
        const psi_progress_event *e = &p->ev;
        if (p->have_ev && strcmp(e->stage, "prune") == 0)
            PUT(" round %llu", (unsigned long long)e->count);
        if (p->have_ev && e->total)
            PUT(" %.0f%%", 100.0 * (double)e->done / (double)e->total);
        if (p->have_ev && strcmp(e->stage, "solve") == 0)
            PUT(", %llu conflicts", (unsigned long long)e->count);
    }
    PUT(" | %.1f s | %.0f MiB peak", now() - p->start, peak_mib());
#undef PUT
    if (used >= n && n > 4)
        memcpy(buf + n - 4, "...", 4);
}

static void draw(psi_progress_line *p)
{
    char text[256];
    compose(p, text, sizeof text);
    if (p->tty)
        fprintf(stderr, "\r%s\033[K", text);
    else
        fprintf(stderr, "%s\n", text);
    fflush(stderr);
    p->shown = p->tty;
    p->last_draw = now();
}

static void erase_locked(psi_progress_line *p)
{
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        p->shown = false;
    }
}

static void *run(void *arg)
{
    psi_progress_line *p = arg;
    double every = p->tty ? 0.25 : 2.0;
    pthread_mutex_lock(&p->mu);
    while (!p->stop) {
        /* Nothing for the first half second: quick checks stay quiet. */
        if (now() - p->start >= 0.5 && now() - p->last_draw >= every)
            draw(p);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 100 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    erase_locked(p);
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

psi_progress_line *psi_progress_line_start(bool tty)
{
    psi_progress_line *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->tty = tty;
    p->start = now();
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    if (pthread_create(&p->thread, NULL, run, p) != 0) {
        pthread_mutex_destroy(&p->mu);
        pthread_cond_destroy(&p->cv);
        free(p);
        return NULL;
    }
    return p;
}

void psi_progress_line_stage(psi_progress_line *p, const char *stage)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stage = stage;
    p->have_ev = false;
    pthread_mutex_unlock(&p->mu);
}

void psi_progress_line_on_stage(void *p, const char *stage)
{
    psi_progress_line_stage(p, stage);
}

void psi_progress_line_on_event(void *arg, const psi_progress_event *ev)
{
    psi_progress_line *p = arg;
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->ev = *ev;
    p->have_ev = true;
    pthread_mutex_unlock(&p->mu);
}

void psi_progress_line_batch(psi_progress_line *p, size_t done, size_t total, size_t running,
                             const char *current)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->batch = true;
    p->done = done;
    p->total = total;
    p->running = running;
    if (current)
        snprintf(p->current, sizeof p->current, "%s", current);
    pthread_mutex_unlock(&p->mu);
}

void psi_progress_line_erase(psi_progress_line *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    erase_locked(p);
    p->last_draw = now(); /* give what follows a moment on screen */
    pthread_mutex_unlock(&p->mu);
}

void psi_progress_line_stop(psi_progress_line *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p);
}
