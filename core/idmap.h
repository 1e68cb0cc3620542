/* A map from external u64 ids (keys, sessions, transactions as a file
 * spells them) to a Word_t slot, for the readers and the history builder.
 *
 * Most files number their ids densely from 0 or 1, and one JudyL lookup
 * per operation was a third of loading a text history. So ids below a
 * bound live in a plain array indexed by the id (one load, no tree walk),
 * and the rest in a JudyL. The bound grows with the number of ids stored
 * (ids up to PSI_IDMAP_SPREAD times the number stored, or below a floor;
 * the array is at most twice that, 64 bytes per id), so memory stays
 * linear in the ids stored however sparse or large they are; when it
 * grows, the JudyL entries below the new bound move into the array, so
 * every id has exactly one home. Internal (not installed). */
#ifndef PSI_CORE_IDMAP_H
#define PSI_CORE_IDMAP_H

#include <Judy.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Array slots allowed per stored id, and the array size always allowed. */
#define PSI_IDMAP_SPREAD 4u
#define PSI_IDMAP_FLOOR  65536u

typedef struct psi_idmap {
    Word_t *direct; /* owned: direct[id] for id < cap, 0 = absent */
    size_t cap;
    Pvoid_t judy; /* owned: ids >= cap */
    size_t n;     /* fresh slots handed out: an upper bound on the ids stored */
} psi_idmap;

/* The slot of id, inserted as 0 if absent; NULL when out of memory. The
 * caller stores a nonzero value in a fresh (0) slot: 0 means absent. The
 * pointer is valid until the next psi_idmap_slot or psi_idmap_del. */
Word_t *psi_idmap_slot(psi_idmap *m, uint64_t id);

/* The slot of id, or NULL if absent (or 0). Never allocates. */
const Word_t *psi_idmap_get(const psi_idmap *m, uint64_t id);

/* Removes id (its slot becomes absent). */
void psi_idmap_del(psi_idmap *m, uint64_t id);

/* The largest id stored with a nonzero slot; false when none is. */
bool psi_idmap_last(const psi_idmap *m, uint64_t *id);

/* The smallest id >= *id whose slot is absent; false when there is none. */
bool psi_idmap_first_empty(const psi_idmap *m, uint64_t *id);

void psi_idmap_free(psi_idmap *m);

#endif
