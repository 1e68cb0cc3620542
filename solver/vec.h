/* Small shared helpers of solver/: a growable uint32_t vector and a
 * monotonic clock. Vectors are owned by whoever embeds them and freed with
 * free(v.a). Growth failures are reported, never fatal.
 *
 * Deliberately the solver's own: solver/ must build and be tested alone,
 * including nothing outside solver/, so it cannot use core/vec.h and
 * core/clock.h (psi_grow, psi_now), which the rest of the project uses. Do
 * not merge them; do not use these outside solver/ either. */
#ifndef PSI_SOLVER_VEC_H
#define PSI_SOLVER_VEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct u32vec {
    uint32_t *a;
    size_t n, cap;
} u32vec;

bool psi_u32_push(u32vec *v, uint32_t x);
bool psi_u32_reserve(u32vec *v, size_t n);

/* Grows *p (an array of elem-byte items with capacity *cap) to hold need. */
bool psi_grow_array(void **p, size_t *cap, size_t need, size_t elem);

/* Seconds on a monotonic clock. */
double psi_sat_now(void);

/* A clock that costs a few nanoseconds but ticks only every few
 * milliseconds. Summing many short intervals measured with it is still
 * accurate on average (an interval catches a tick with probability
 * proportional to its length), which is how theory time is accounted
 * without the exact clock's cost on every theory call. */
double psi_sat_coarse_now(void);

/* CPU time of the calling thread in seconds (a system call: not per literal). */
double psi_sat_cpu_now(void);

#endif
