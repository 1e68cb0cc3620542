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
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

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

/* Asks the kernel to back the 2 MiB-aligned interior of a large block
 * with transparent huge pages (Linux, where THP is in "madvise" mode by
 * default): filling a 10^7-operation history otherwise takes over 10^5
 * page faults, about a third of its loading time on a loaded machine. A
 * hint only: failure or another system changes nothing but speed. */
static inline void psi_hint_huge(void *p, size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    const uintptr_t huge = (uintptr_t)2 << 20;
    if (!p || bytes < 4 * huge)
        return;
    uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1);
    uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_HUGEPAGE);
#else
    (void)p;
    (void)bytes;
#endif
}

/* psi_grow for the few arrays that reach hundreds of megabytes (a
 * history's operations): past PSI_HUGE_MIN bytes the new block is hinted
 * for huge pages and the `used` elements are copied over. realloc would
 * copy anyway: a hinted block is split in several mappings, which mremap
 * cannot move, and an unhinted one takes a page fault per 4 KiB. */
#define PSI_HUGE_MIN ((size_t)8 << 20)
static inline bool psi_grow_huge(void **p, size_t *cap, size_t need, size_t elem, size_t used)
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
    if (nc * elem < PSI_HUGE_MIN)
        return psi_grow(p, cap, need, elem);
    void *q = malloc(nc * elem);
    if (!q)
        return false;
    psi_hint_huge(q, nc * elem);
    if (used)
        memcpy(q, *p, used * elem);
    free(*p);
    *p = q;
    *cap = nc;
    return true;
}

#endif
