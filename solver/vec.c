/* Growable vectors and the clock shared by the solver files (the solver's own
 * copies of what core/vec.h and core/clock.h give the rest of the project,
 * because solver/ stands alone; see vec.h). Growth doubles, failures are
 * reported (never abort) so the solver can return ENOMEM. */
#include "vec.h"
#include "internal.h"

#include <stdlib.h>
#include <time.h>

bool psi_grow_array(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 8;
    while (nc < need) {
        if (nc > SIZE_MAX / 4 / (elem ? elem : 1))
            return false;
        nc *= 2;
    }
    void *q = realloc(*p, nc * elem);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

bool psi_u32_reserve(u32vec *v, size_t n)
{
    return psi_grow_array((void **)&v->a, &v->cap, n, sizeof *v->a);
}

bool psi_u32_push(u32vec *v, uint32_t x)
{
    if (v->n == v->cap && !psi_grow_array((void **)&v->a, &v->cap, v->n + 1, sizeof *v->a))
        return false;
    v->a[v->n++] = x;
    return true;
}

bool psi_lits_push(psi_lits *v, int lit)
{
    if (v->n == v->cap && !psi_grow_array((void **)&v->lits, &v->cap, v->n + 1, sizeof *v->lits))
        return false;
    v->lits[v->n++] = lit;
    return true;
}

bool psi_watch_grow(watches *ws)
{
    size_t cap = ws->cap;
    if (cap >= UINT32_MAX / 2 || !psi_grow_array((void **)&ws->w, &cap, cap + 1, sizeof *ws->w))
        return false;
    ws->cap = (uint32_t)cap;
    return true;
}

double psi_sat_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double psi_sat_cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double psi_sat_coarse_now(void)
{
#ifdef CLOCK_MONOTONIC_COARSE
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#else
    return psi_sat_now();
#endif
}
