/* Progress of the long stages, for callers that show it (polysi-solve
 * --progress): the readers report bytes parsed, pruning its rounds and how
 * far into a round it is, the solve stage its conflicts. The library calls
 * the callback now and then (every few thousand items at most, never per
 * item), from the thread that runs the stage; it prints nothing itself.
 * A psi_progress with fn NULL (or a NULL pointer) reports nothing. */
#ifndef PSI_CORE_PROGRESS_H
#define PSI_CORE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

typedef struct psi_progress_event {
    const char *stage; /* "load", "prune", "solve" (a string literal) */
    uint64_t done;     /* work done of total: bytes (load), constraints checked this round */
    uint64_t total;    /* 0: no known total (solve) */
    uint64_t count;    /* prune: the round (from 1); solve: conflicts so far */
} psi_progress_event;

typedef struct psi_progress {
    void (*fn)(void *ctx, const psi_progress_event *ev);
    void *ctx;
} psi_progress;

static inline void psi_progress_report(const psi_progress *p, const char *stage, uint64_t done,
                                       uint64_t total, uint64_t count)
{
    if (p && p->fn) {
        psi_progress_event ev = {.stage = stage, .done = done, .total = total, .count = count};
        p->fn(p->ctx, &ev);
    }
}

#endif
