/* Sorting (key, value, op) records by (key, value) in linear time: the
 * index's write map and its read-to-writer join (core/index.c) are sorted
 * arrays instead of a per-operation hash or tree lookup, so validation
 * streams through memory instead of chasing pointers per read.
 *
 * Internal to the library (not installed). No allocation: the caller owns
 * both buffers. */
#ifndef PSI_CORE_KVSORT_H
#define PSI_CORE_KVSORT_H

#include <stddef.h>
#include <stdint.h>

typedef struct psi_kv {
    uint64_t value;
    uint32_t key; /* dense key, < n_keys */
    uint32_t op;
} psi_kv;

/* Sorts a[0..n) stably by (key, value) with an LSD radix sort (as many
 * value digits as the largest value needs, then one counting pass over the
 * keys), using tmp[0..n) as scratch. Records with equal (key, value) keep
 * their order. Returns the sorted array: a or tmp (the other one holds
 * garbage). key_first[0 .. n_keys] gets the ranges: key k's records are
 * [key_first[k], key_first[k + 1]) of the result. n must be below
 * UINT32_MAX. */
psi_kv *psi_kv_sort(psi_kv *a, psi_kv *tmp, size_t n, uint32_t n_keys, uint32_t *key_first);

#endif
