/* LSD radix sort of (key, value, op) records (see kvsort.h). Each pass is
 * a stable counting scatter; passes over value digits that every record
 * shares are skipped, so the small per-key counters most testers write cost
 * one or two passes. */
#include "core/kvsort.h"

#include <assert.h>
#include <stdbool.h>
#include <string.h>

#define DIGIT_BITS 11u
#define DIGITS     (1u << DIGIT_BITS)

/* One stable scatter of src into dst by value digit `shift`; false (and
 * nothing moved) when every record has the same digit. */
static bool value_pass(const psi_kv *src, psi_kv *dst, size_t n, unsigned shift)
{
    size_t count[DIGITS];
    memset(count, 0, sizeof count);
    for (size_t i = 0; i < n; i++)
        count[(src[i].value >> shift) & (DIGITS - 1)]++;
    size_t sum = 0;
    for (unsigned d = 0; d < DIGITS; d++) {
        size_t c = count[d];
        if (c == n)
            return false;
        count[d] = sum;
        sum += c;
    }
    for (size_t i = 0; i < n; i++)
        dst[count[(src[i].value >> shift) & (DIGITS - 1)]++] = src[i];
    return true;
}

psi_kv *psi_kv_sort(psi_kv *a, psi_kv *tmp, size_t n, uint32_t n_keys, uint32_t *key_first)
{
    assert(n < UINT32_MAX);
    uint64_t all = 0;
    for (size_t i = 0; i < n; i++)
        all |= a[i].value;
    psi_kv *src = a, *dst = tmp;
    for (unsigned shift = 0; shift < 64 && (all >> shift) != 0; shift += DIGIT_BITS) {
        if (value_pass(src, dst, n, shift)) {
            psi_kv *t = src;
            src = dst;
            dst = t;
        }
    }
    /* The keys last: the most significant part of the order. key_first
     * counts, then serves as the scatter cursors. */
    uint32_t *first = key_first;
    memset(first, 0, ((size_t)n_keys + 1) * sizeof *first);
    for (size_t i = 0; i < n; i++) {
        assert(src[i].key < n_keys);
        first[src[i].key + 1]++;
    }
    for (uint32_t k = 0; k < n_keys; k++)
        first[k + 1] += first[k];
    /* Scatter with first[] as the cursors, then shift them back: cursor k
     * ends at key k + 1's start. */
    for (size_t i = 0; i < n; i++)
        dst[first[src[i].key]++] = src[i];
    for (uint32_t k = n_keys; k > 0; k--)
        first[k] = first[k - 1];
    first[0] = 0;
    return dst;
}
