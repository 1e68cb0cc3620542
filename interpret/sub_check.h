/* Internal to interpret/: checking a sub-history with the whole pipeline
 * at the level the history was checked at, for the levels and hints the
 * local re-check of explain.c cannot express (PC, PSI, real time, known
 * version orders, timestamps).
 *
 * The sub-history over a set of committed transactions is a history of
 * its own: those transactions, in their sessions' order, with their
 * real-time intervals and timestamps, and every read that could have
 * observed a transaction left out dropped (a read whose writer, or one of
 * whose candidate writers (core/index.h), is left out; a list read or a
 * repeated read when another committed transaction writes a value it
 * read).
 * Dropping transactions and reads only removes dependencies, so a
 * sub-history that violates the level shows the history does: this is
 * the relaxation psi_sub_polygraph_build makes for reads with a writer
 * outside (core/polygraph.h). Version orders keep each chain's members
 * that are kept, in order (a chain's order holds of any subsequence);
 * timestamps and real time are per transaction and kept as they are.
 *
 * Ownership: psi_subcheck_init allocates what psi_subcheck_free releases;
 * h, res and the check options are borrowed and must outlive it. A
 * psi_subrun owns its history and check result (psi_subrun_free). */
#ifndef PSI_INTERPRET_SUB_CHECK_H
#define PSI_INTERPRET_SUB_CHECK_H

#include "check/check.h"
#include "interpret/explain.h"

#include <stdbool.h>
#include <stdint.h>

struct psi_subcheck_data; /* sub_check.c */

typedef struct psi_subcheck {
    const psi_history *h;
    const psi_check_result *res;
    psi_check_opts co;              /* the sub-checks' options */
    const char *vo_name;            /* the version-order file, for messages */
    struct psi_subcheck_data *data; /* what is built once (owned) */
    /* Set by the caller between runs: a run is a violation only when
     * pruning rejects the sub-history (a known cycle, or a read left with
     * no candidate); one that reaches the solver is none, and its solve
     * stops after a few hundred decisions. The answer then depends on the
     * sub-history alone, never on the machine's speed, and a big
     * sub-history whose reads lost candidates (a hard instance: 3,540
     * transactions of 10k values 1..4 took the solver over 20 s) costs
     * about its pruning. A rejection is still the pipeline's. */
    bool pruning_only;
    bool reached_solve; /* the last run reached the solver */
    /* Set by the caller: an accepted run keeps the solver's model, for
     * psi_subrun_ser_order. */
    bool keep_model;
} psi_subcheck;

/* A sub-history and its check. */
typedef struct psi_subrun {
    psi_history *h;
    psi_check_result res;
    bool checked;
    uint32_t *txn_map; /* [h->n_txns] its transaction -> the original's */
    uint32_t *key_map; /* [h->n_keys] its dense key -> the original's */
    uint32_t *op_map;  /* [h->n_ops] its operation -> the original's */
} psi_subrun;

/* vo: the check's known version orders, or NULL (then the hint edges the
 * check resolved, res->hints, are used: each as a chain of two). */
psi_status psi_subcheck_init(psi_subcheck *sc, const psi_history *h, const psi_check_result *res,
                             const psi_version_order *vo, psi_diag *d);
void psi_subcheck_free(psi_subcheck *sc);

/* Builds and checks the sub-history over txns[0..n) (sorted; the initial
 * transaction and transactions not committed are skipped). *violation is
 * set when it is rejected. With out, the run is handed over (the caller
 * frees it), else freed. PSI_ERR_INPUT when the check refuses it (e.g. a
 * level needing real time, none left): no verdict, treated as no
 * violation by callers. */
psi_status psi_subcheck_run(psi_subcheck *sc, const uint32_t *txns, uint32_t n, bool *violation,
                            psi_subrun *out, psi_diag *d);
void psi_subrun_free(psi_subrun *r);

/* The violation the pipeline finds in the (minimal) sub-history over
 * txns[0..n) (sorted), as the counterexample cex (edges, transactions and
 * keys of the whole history; every transaction of the set listed, since
 * the cycle may leave out one its edges rest on): its cycle, or its
 * timestamp violation (interpret/sub_present.c). 1 when shown, 0 when
 * the sub-history gives nothing to show (not rejected, or no cycle: the
 * caller shows the check's own), -1 when out of memory (d says so). */
int psi_subcheck_present(psi_subcheck *sc, const uint32_t *txns, uint32_t n, psi_cex *cex,
                         psi_diag *d);

/* An accepted SER run's model (psi_subcheck.keep_model) as a serial
 * order of the original history's transactions: the topological order of
 * the model's active graph (interpret/witness.h), the initial transaction
 * left out, in order[0..*n) (room for r->h->n_txns). PSI_ERR_USAGE when
 * the run kept no model (an accept without the polygraph). */
psi_status psi_subrun_ser_order(const psi_subrun *r, uint32_t *order, uint32_t *n, psi_diag *d);

#endif
