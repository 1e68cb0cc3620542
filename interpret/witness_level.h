/* Witnesses under the levels other than SI and SER (check/level.h): a
 * commit order co (formats/witness.h, version 3: an isolation line naming
 * the level and an order line), checked against the level's axiom read
 * by read, with nothing from prune/, encode/ or solver/.
 *
 * Writing: PL-2, RC, RA and CC take the order their checker found (a
 * topological order of the saturated graph); PC and PSI take a
 * topological order of the model's graph: PSI of its DEP edges (then the
 * visibility (SO ∪ WR ∪ WW_co)+ is DEP+, and a model with no cycle of one
 * RW edge satisfies the axiom), PC of DEP ∪ (SO ∪ WR);RW (encode.h), in
 * which the prefix axiom holds by construction.
 *
 * Checking: co must list every committed transaction once, put SO, WR and
 * the version orders list-append reads show forward, and satisfy, for
 * every read event of x in t from t1 and every other committed writer t2
 * of x with the level's premise, t2 co t1 (premises: level.h; PC: t2 co*
 * u for some u →(SO ∪ WR) t; PSI: t2 →(SO ∪ WR ∪ WW_co)+ t, by vector
 * clocks over sessions computed along co). Cost O(n·k + r·w) for n
 * transactions, k sessions, r reads and w writers of the read's key.
 *
 * Ownership: psi_witness_build_level fills *w (psi_witness_free releases
 * it); *why is allocated for the caller. */
#ifndef PSI_INTERPRET_WITNESS_LEVEL_H
#define PSI_INTERPRET_WITNESS_LEVEL_H

#include "check/check.h"
#include "formats/witness.h"

/* res: an accept of psi_check under `res->level_checked`, a level other
 * than SI and SER (PC and PSI: run with opts.keep_model). */
psi_status psi_witness_build_level(const psi_history *h, const psi_check_result *res,
                                   psi_witness *w, psi_diag *d);

/* ord[t]: t's place in the commit order (the initial transaction 0, the
 * committed ones 1.., others UINT32_MAX); chosen[o]: the writer a read
 * line gave an ambiguous read, or UINT32_MAX; under RC and PL-2 also
 * every live repeat read's writer (never UINT32_MAX: witness_check.c
 * gives the defaults and refuses a repeat read it cannot resolve). Sets *why to the refusal
 * (naming order_line), or NULL when the order proves the level.
 * PSI_ERR_NOMEM or PSI_ERR_LIMIT otherwise. */
psi_status psi_witness_level_check(const psi_history *h, const psi_index *idx,
                                   const uint32_t *chosen, const uint32_t *ord, psi_level level,
                                   unsigned long long order_line, char **why);

/* Repeat reads under RC and PL-2 (core/index.h, PSI_OI_REPEAT_READ), for
 * interpret/witness_check.c's read lines (formats/witness.h, version 5).
 *
 * Whether write op (or PSI_SRC_INIT) src may be what repeat read o saw:
 * the initial value when o read it, or a committed final write of o's
 * value to its key by another transaction (the write map's chain, as
 * check/level_choice.c's candidates): 1 if so, else 0. With src
 * UINT32_MAX: how many candidates o has (counting stops at 2), the last
 * one counted in *only. Needs the write map. */
uint32_t psi_witness_repeat_cands(const psi_history *h, const psi_index *idx, uint32_t o,
                                  uint32_t src, uint32_t *only);

/* Read event `event` (0: the external read) of dense key `key` by
 * transaction x: its reads of the key before its own first write of it,
 * in program order; UINT32_MAX when there are not that many. */
uint32_t psi_witness_read_event(const psi_history *h, const psi_index *idx, uint32_t x,
                                uint32_t key, uint32_t event);

/* The writers of the repeat reads no read line named (chosen[o] still
 * UINT32_MAX): a repeat of the value its transaction's first read of the
 * key saw reads from that read's writer (as in SI's read-from, and what
 * witnesses before version 5 meant), another value from its one
 * candidate. A repeat read with several candidates keeps UINT32_MAX (the
 * checker refuses it). PSI_ERR_NOMEM only. */
psi_status psi_witness_repeat_defaults(const psi_history *h, const psi_index *idx,
                                       uint32_t *chosen);

#endif
