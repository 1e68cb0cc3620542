/* The polynomial levels (PL-2, RC, RA, CC) on histories where a read has
 * a choice of writers: a value written more than once to its key, or a
 * read of the initial value when someone also wrote 0 (issue 11 at the
 * weak levels; internal to check/).
 *
 * With the read-from relation fixed, each of these levels is decided in
 * polynomial time by saturation (level.h). Biswas & Enea's results assume
 * it is fixed (unique values), as do AWDIT's and Plume's. With a choice of
 * writers CC is NP-complete already for one-operation transactions
 * (Bouajjani, Enea, Guerraoui & Hamza, POPL 2017: causal consistency of a
 * read/write memory execution whose values may repeat); for RC and RA we
 * found no result either way (README, "Isolation levels"). So the choice
 * is searched:
 *   1. Pruning, exact: a candidate writer w of a read in t is excluded
 *      when t already reaches w over SO ∪ the known WR edges (every commit
 *      order contains both, so w →WR t would close a cycle). A read left
 *      with one candidate becomes a known WR edge; this repeats to a
 *      fixpoint (at most MAX_ROUNDS rounds, each O((n + r)·k) with k
 *      sessions).
 *   2. When every read has one candidate left, one run of psi_level_check
 *      with that read-from decides.
 *   3. Otherwise the CDCL solver searches: one variable per remaining
 *      candidate, an at-least-one clause per read (a model's choice for a
 *      read is its first true candidate). Each model's read-from is
 *      checked by psi_level_check; a violation adds the clause "not all of
 *      the choices its cycle depends on" (the reads whose WR edges, forced
 *      edges' reads and premises, and CC's causal paths it uses), which
 *      every read-from that keeps those choices violates too. A model that
 *      passes is the accept; UNSAT is the reject. Finite: each clause
 *      removes the current model for good.
 *
 * Under RC and PL-2 a repeat read (a key's second read in a transaction,
 * PSI_OI_REPEAT_READ) is a read event of its own; when its value was
 * written more than once it is a choice read too, its candidates found
 * through the write map.
 *
 * Ownership: psi_level_check_choices fills *out (arrays malloc'd, freed by
 * psi_level_choices_free) and res (psi_level_result_free). On return the
 * external reads with a choice (PSI_OI_AMBIG) have idx->read_src set to
 * the writer they were resolved to (accept: the accepting read-from;
 * reject: the last violating one), so that reports and witnesses can read
 * it like any read; nothing else in the index changes. */
#ifndef PSI_CHECK_LEVEL_CHOICE_H
#define PSI_CHECK_LEVEL_CHOICE_H

#include "check/level.h"

/* How a choice read was settled. */
typedef enum psi_rfc_how {
    PSI_RFC_OPEN = 0,      /* searched: the solver's model picked the writer */
    PSI_RFC_FORCED = 1,    /* pruning excluded every candidate but one */
    PSI_RFC_NO_WRITER = 2, /* pruning excluded every candidate: the history is rejected */
    PSI_RFC_LATTICE = 3,   /* SI's accepting model's writer (check/level_lattice.h) */
    /* its transaction is optional and absent in the accepting model
     * (level_outcome.h): no writer (read_src PSI_SRC_NONE) */
    PSI_RFC_ABSENT = 4
} psi_rfc_how;

typedef struct psi_rf_read {
    uint32_t op, txn, key;
    uint32_t n;     /* candidates: cand[first .. first + n) */
    uint64_t first; /* write ops or PSI_SRC_INIT */
    uint32_t chosen;
    uint32_t left; /* candidates pruning left */
    uint8_t how;   /* psi_rfc_how */
    bool repeat;   /* a repeat read (RC, PL-2), not in idx->amb */
} psi_rf_read;

typedef struct psi_level_choices {
    psi_rf_read *reads;
    uint32_t n_reads;
    uint32_t *cand;    /* [n_cand] */
    uint8_t *excluded; /* [n_cand] 1: pruning excluded it */
    uint64_t n_cand, n_excluded;
    uint32_t rounds;      /* pruning rounds */
    uint64_t models;      /* read-froms the level check ran on */
    uint64_t clauses;     /* clauses added from violations */
    uint64_t depends_max; /* the most choices one violation depended on */
} psi_level_choices;

/* The number of choice reads of h at level l (0: psi_level_check alone
 * decides). The index must still have its write map. */
uint32_t psi_level_choice_reads(const psi_history *h, const psi_index *idx, psi_level l);

/* Decides level l (polynomial) on a history with choice reads. hint,
 * when not NULL, is a writer per read op (SI's read-from, level_lattice.h)
 * to check instead of pruning and searching: then an accept is the
 * verdict, and a reject proves nothing (the caller searches). */
psi_status psi_level_check_choices(const psi_history *h, psi_index *idx, psi_level level,
                                   const uint32_t *hint, psi_level_result *res,
                                   psi_level_choices *out, psi_diag *d);
void psi_level_choices_free(psi_level_choices *c);

#endif
