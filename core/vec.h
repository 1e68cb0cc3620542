/* Growable arrays for bulk data: amortized doubling, failure reported to the
 * caller (never abort). Used as
 *     psi_op *ops; size_t n, cap;
 *     if (!psi_grow((void **)&ops, &cap, n + 1, sizeof *ops)) return nomem;
 * The owner of the pointer frees it with free(). */
#ifndef PSI_CORE_VEC_H
#define PSI_CORE_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Ensures *cap >= need (elements of size elem). Returns false, leaving *p
 * untouched, if the size overflows or realloc fails. */
static inline bool psi_grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 16;
    while (nc < need) {
        if (nc > SIZE_MAX / 2)
            return false;
        nc *= 2;
    }
    if (elem && nc > SIZE_MAX / elem)
        return false;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

#endif
