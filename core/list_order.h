/* The version orders list-append reads show.
 *
 * A list read of key x returns the whole version order of x up to its last
 * element, so it establishes two kinds of WW facts, both true in every
 * commit order of every level:
 *   - consecutive elements: the appender of each element precedes the
 *     appender of the next one;
 *   - the tail: an append of x by a committed transaction that the list
 *     does not show came after the list's last element (had it come
 *     before, the list would show it).
 * Reads of one key are prefixes of one another (the index reports any two
 * that are not), so the longest live list read per key says it all.
 *
 * Elements without a unique committed appender (an unwritten, aborted or
 * repeated value: anomalies the index reports, or a choice of writers) end
 * the walk, and the key then gets no tail facts: fewer edges, sound.
 * Lists that read nothing ([]) give no facts here: a read of the initial
 * value already orders the reader before every writer of its key. */
#ifndef PSI_CORE_LIST_ORDER_H
#define PSI_CORE_LIST_ORDER_H

#include "core/history.h"
#include "core/index.h"

#include <stdbool.h>
#include <stdint.h>

/* Receives one WW fact from -> to on key; returns false to stop (the
 * caller keeps its own error). */
typedef bool (*psi_list_ww_fn)(void *ctx, uint32_t from, uint32_t to, uint32_t key);

/* Calls fn for every fact above, key by key. Returns false when fn stopped
 * the walk or memory ran out (*nomem set); O(list elements + writes of
 * list-read keys) time, O(keys + transactions) scratch memory. */
bool psi_list_ww_facts(const psi_history *h, const psi_index *idx, psi_list_ww_fn fn, void *ctx,
                       bool *nomem);

#endif
