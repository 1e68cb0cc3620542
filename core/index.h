/* Validation of a history and the per-operation facts every later stage
 * needs: which transaction owns each operation, which write each external
 * read observed (WR), which writes are a transaction's final write of a key,
 * and the anomalies that need no dependency graph (INT, G1a, G1b, reads of
 * values nobody wrote).
 *
 * Building the index also settles transactions of unknown outcome (EDN
 * :info, Cobra transactions without a commit record): one whose write is
 * observed by a committed read is committed (transitively); the others keep
 * PSI_TXN_UNKNOWN and take no part, like aborted ones. This is the one place
 * that writes to the history (txn status).
 *
 * Ownership: psi_index_build allocates everything in the index;
 * psi_index_free releases it. The index points into nothing. */
#ifndef PSI_CORE_INDEX_H
#define PSI_CORE_INDEX_H

#include "core/history.h"

#include <stdbool.h>
#include <stdint.h>

/* read_src values that are not operation indices. */
#define PSI_SRC_INIT (UINT32_MAX - 1u) /* observed the initial value */
#define PSI_SRC_NONE UINT32_MAX        /* not an external committed read, or no writer */

enum psi_opinfo {
    PSI_OI_EXTERNAL_READ = 1u << 0, /* first op on its key in its txn, and a read */
    PSI_OI_FINAL_WRITE = 1u << 1,   /* last write of its key in its txn */
    PSI_OI_LIVE = 1u << 2,          /* belongs to a committed transaction */
    /* A read that is not the first op on its key in its txn and follows no
     * write of the key by its own txn: a read event of its own under RC and
     * PL-2 (per-read axioms), which may see another committed writer than
     * the txn's earlier read did. read_src stays PSI_SRC_NONE for it (the
     * SI/SER pipeline knows one read per key and txn): its writer is
     * psi_index_repeat_src. */
    PSI_OI_REPEAT_READ = 1u << 3,
};

typedef enum psi_anomaly_kind {
    PSI_ANOM_INT = 0,       /* a read disagrees with its own transaction's earlier ops */
    PSI_ANOM_G1A = 1,       /* aborted read: observed a write of an aborted transaction */
    PSI_ANOM_G1B = 2,       /* intermediate read: observed a write its writer overwrote */
    PSI_ANOM_UNWRITTEN = 3, /* observed a value no transaction wrote */
    /* Two list-append reads of a key whose lists are not prefixes of one
     * another (op and other_op are the two reads; other_op's list is the
     * longest of its key): no version order can give both. */
    PSI_ANOM_INCOMPATIBLE_ORDER = 4,
} psi_anomaly_kind;

typedef struct psi_anomaly {
    uint8_t kind;       /* psi_anomaly_kind */
    uint32_t txn;       /* the reading transaction */
    uint32_t op;        /* the offending read */
    uint32_t other_txn; /* INT: same txn; G1a/G1b: the writer; UNWRITTEN: PSI_SRC_NONE;
                           INCOMPATIBLE_ORDER: the other reader */
    uint32_t other_op;  /* INT: the op it should agree with; G1a/G1b: the write observed;
                           INCOMPATIBLE_ORDER: the other read */
    /* INT only: a non-repeatable read. op is a PSI_OI_REPEAT_READ that
     * observes a committed final write (other than its own txn's) unlike
     * other_op, the txn's earlier read of the key. Every level from RA up
     * rejects it; RC and PL-2, whose axioms are per read, allow it
     * (psi_index_allow_nonrepeatable). */
    bool nonrepeatable;
} psi_anomaly;

typedef struct psi_index {
    uint32_t *op_txn;   /* [n_ops] owning transaction */
    uint32_t *read_src; /* [n_ops] for external reads of committed txns: the write op
                           observed, PSI_SRC_INIT, or PSI_SRC_NONE */
    uint8_t *op_info;   /* [n_ops] psi_opinfo bits */
    uint32_t n_committed, n_aborted, n_unknown; /* after settling unknowns */
    uint32_t n_promoted;                        /* unknown txns settled as committed */
    psi_anomaly *anomalies;
    size_t n_anomalies;
    void **writes; /* [n_keys] JudyL value -> write op + 1, for psi_index_writer */
    uint32_t n_keys;
} psi_index;

/* Builds the index. Fails (PSI_ERR_INPUT) when a value is written twice to
 * one key, naming the key, the value and both writers. Anomalies are not
 * failures: they are listed in idx->anomalies. */
psi_status psi_index_build(psi_history *h, psi_index *idx, psi_diag *d);
void psi_index_free(psi_index *idx);

/* Frees the write map (psi_index_writer answers PSI_SRC_NONE afterwards):
 * once the polygraph is built nothing needs it, and on large histories it
 * is one of the biggest structures. */
void psi_index_release_writes(psi_index *idx);

/* Drops the non-repeatable-read anomalies (RC and PL-2 allow them) from
 * idx->anomalies, keeping the others in order; returns how many it
 * dropped. */
size_t psi_index_allow_nonrepeatable(psi_index *idx);

/* The write op a PSI_OI_REPEAT_READ op observed: a write op, PSI_SRC_INIT,
 * or PSI_SRC_NONE (no writer; the index reported that). Needs the write
 * map (before psi_index_release_writes). */
uint32_t psi_index_repeat_src(const psi_history *h, const psi_index *idx, uint32_t op);

/* The write op that wrote `value` to dense key `key`, or PSI_SRC_NONE. */
uint32_t psi_index_writer(const psi_index *idx, uint32_t key, uint64_t value);

/* The names of interpret/vocabulary.c (the tool's one vocabulary, kept in
 * step by tests/interpret): "internal", "G1a", "G1b", "unwritten read",
 * "incompatible order"; and what each is. */
const char *psi_anomaly_name(psi_anomaly_kind k);
const char *psi_anomaly_title(psi_anomaly_kind k);

#endif
