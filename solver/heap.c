/* VSIDS decisions: a binary max-heap of variables keyed by activity, with
 * exponentially growing bump increments (EVSIDS) rescaled before overflow. */
#include "internal.h"

static inline bool before(const psi_sat *s, uint32_t a, uint32_t b)
{
    return s->activity[a] > s->activity[b];
}

static void sift_up(psi_sat *s, uint32_t i)
{
    uint32_t v = s->heap[i];
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!before(s, v, s->heap[p]))
            break;
        s->heap[i] = s->heap[p];
        s->heap_pos[s->heap[i]] = i;
        i = p;
    }
    s->heap[i] = v;
    s->heap_pos[v] = i;
}

static void sift_down(psi_sat *s, uint32_t i)
{
    uint32_t v = s->heap[i];
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= s->heap_n)
            break;
        if (c + 1 < s->heap_n && before(s, s->heap[c + 1], s->heap[c]))
            c++;
        if (!before(s, s->heap[c], v))
            break;
        s->heap[i] = s->heap[c];
        s->heap_pos[s->heap[i]] = i;
        i = c;
    }
    s->heap[i] = v;
    s->heap_pos[v] = i;
}

/* The heap array has room for every variable (sized with the variables). */
bool psi_heap_insert(psi_sat *s, uint32_t v)
{
    if (s->heap_pos[v] != UINT32_MAX)
        return true;
    s->heap[s->heap_n] = v;
    s->heap_pos[v] = s->heap_n++;
    sift_up(s, s->heap_pos[v]);
    return true;
}

/* Returns UINT32_MAX when empty. */
uint32_t psi_heap_pop(psi_sat *s)
{
    if (!s->heap_n)
        return UINT32_MAX;
    uint32_t v = s->heap[0];
    s->heap_pos[v] = UINT32_MAX;
    if (--s->heap_n) {
        s->heap[0] = s->heap[s->heap_n];
        s->heap_pos[s->heap[0]] = 0;
        sift_down(s, 0);
    }
    return v;
}

void psi_var_bump(psi_sat *s, uint32_t v)
{
    if ((s->activity[v] += s->var_inc) > 1e100) {
        for (uint32_t i = 0; i < s->nvars; i++)
            s->activity[i] *= 1e-100;
        s->var_inc *= 1e-100;
    }
    if (s->heap_pos[v] != UINT32_MAX)
        sift_up(s, s->heap_pos[v]);
}

void psi_var_decay(psi_sat *s)
{
    s->var_inc /= s->var_decay;
}
