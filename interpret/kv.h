/* Internal to interpret/: (key, value) pairs of a history's writes, kept
 * sorted to ask "did a transaction left out write this version?" when a
 * sub-history is rebuilt (all.c takes violations out, sub_check.c keeps
 * a counterexample's transactions). */
#ifndef PSI_INTERPRET_KV_H
#define PSI_INTERPRET_KV_H

#include <stddef.h>
#include <stdint.h>

typedef struct psi_kv {
    uint32_t key; /* dense key of the original history */
    uint64_t value;
} psi_kv;

/* qsort/bsearch order: by key, then value. */
static inline int psi_kv_cmp(const void *a, const void *b)
{
    const psi_kv *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->value > y->value) - (x->value < y->value);
}

#endif
