/* Ids to slots through an array for small ids and a JudyL for the rest
 * (see idmap.h). Invariant: every id the JudyL holds is >= cap, so an id
 * has one home, chosen by its value alone. */
#include "core/idmap.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The array may cover ids below this: linear in the ids stored. */
static uint64_t idmap_bound(const psi_idmap *m)
{
    uint64_t n = (uint64_t)m->n + 1;
    return n > UINT64_MAX / PSI_IDMAP_SPREAD ? UINT64_MAX : n * PSI_IDMAP_SPREAD;
}

/* Grows the array to cover id (< bound) and moves the JudyL entries below
 * the new size into it. False when out of memory (nothing changed). */
static bool idmap_grow(psi_idmap *m, uint64_t id)
{
    size_t nc = m->cap ? m->cap : 256; /* small files stay small */
    while (nc <= id)
        nc *= 2; /* id < bound, far below SIZE_MAX / 2 for any real input */
    if (nc > SIZE_MAX / sizeof *m->direct)
        return false;
    Word_t *d = realloc(m->direct, nc * sizeof *d);
    if (!d)
        return false;
    memset(d + m->cap, 0, (nc - m->cap) * sizeof *d);
    m->direct = d;
    Word_t idx = (Word_t)m->cap;
    Word_t *pv;
    JLF(pv, m->judy, idx);
    while (pv && idx < nc) {
        d[idx] = *pv;
        int rc;
        JLD(rc, m->judy, idx);
        (void)rc;
        JLN(pv, m->judy, idx); /* the next one above the deleted idx */
    }
    m->cap = nc;
    return true;
}

Word_t *psi_idmap_slot(psi_idmap *m, uint64_t id)
{
    Word_t *slot;
    if (id < m->cap) {
        slot = &m->direct[id];
    } else if (id < PSI_IDMAP_FLOOR || id < idmap_bound(m)) {
        if (!idmap_grow(m, id))
            return NULL;
        slot = &m->direct[id];
    } else {
        JLI(slot, m->judy, (Word_t)id);
        if (slot == PJERR)
            return NULL;
    }
    if (*slot == 0)
        m->n++;
    return slot;
}

const Word_t *psi_idmap_get(const psi_idmap *m, uint64_t id)
{
    if (id < m->cap)
        return m->direct[id] ? &m->direct[id] : NULL;
    Word_t *pv;
    JLG(pv, m->judy, (Word_t)id);
    return pv && *pv ? pv : NULL;
}

void psi_idmap_del(psi_idmap *m, uint64_t id)
{
    if (id < m->cap) {
        m->direct[id] = 0;
        return;
    }
    int rc;
    JLD(rc, m->judy, (Word_t)id);
    (void)rc;
}

bool psi_idmap_last(const psi_idmap *m, uint64_t *id)
{
    Word_t idx = (Word_t)-1;
    Word_t *pv;
    JLL(pv, m->judy, idx);
    while (pv) {
        if (*pv) {
            *id = idx;
            return true;
        }
        JLP(pv, m->judy, idx);
    }
    for (size_t i = m->cap; i-- > 0;)
        if (m->direct[i]) {
            *id = i;
            return true;
        }
    return false;
}

bool psi_idmap_first_empty(const psi_idmap *m, uint64_t *id)
{
    for (uint64_t i = *id; i < m->cap; i++)
        if (!m->direct[i]) {
            *id = i;
            return true;
        }
    /* Above the array: the first index the JudyL has no entry for (entries
     * are always nonzero there, as deleted ones are removed). */
    Word_t idx = *id > m->cap ? (Word_t)*id : (Word_t)m->cap;
    if (JudyLFirstEmpty(m->judy, &idx, PJE0) != 1)
        return false;
    *id = idx;
    return true;
}

void psi_idmap_free(psi_idmap *m)
{
    free(m->direct);
    JudyLFreeArray(&m->judy, PJE0); /* (the JLFA macro trips clang's -Wsign-compare) */
    memset(m, 0, sizeof *m);
}
