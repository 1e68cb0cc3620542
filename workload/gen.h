/* Workload generation: PolySI-style parametric workloads (and the Cobra /
 * Emme-King-Cobra mixes) executed by a simulated multi-version store under
 * SI or SER, optionally broken on purpose (fault injection), or by an
 * "unconstrained" store whose reads return arbitrary written values.
 *
 * The result is an ordinary psi_history (built with the core builder), so
 * the same histories feed the checker, the oracle, the writers and the
 * benchmark harness. Everything is deterministic per seed.
 *
 * Guarantees (see psi_gen_report):
 *  - values are unique per key and never 0 (0 is the initial value), unless
 *    value_range is set: then each written value is 1..value_range, drawn
 *    per (key, version) by a hash, so they repeat (uniformly, or zipfian
 *    with value_zipf; a value_unique_ratio share of the writes keeps a
 *    unique value above the range instead); what the store does
 *    (versions, faults) is the same as without it;
 *  - a fault-free SI store yields a history that satisfies SI, a fault-free
 *    SER store one that satisfies SER (aborted transactions are recorded as
 *    aborted with the operations they executed; nobody reads their writes);
 *  - report.violations[f] > 0 means fault f fired in a way that provably
 *    breaks SI (so the history satisfies neither SI nor SER); with
 *    value_range the proof is in the store's versions: a repeated value
 *    can let another read-from explain the history. */
#ifndef PSI_WORKLOAD_GEN_H
#define PSI_WORKLOAD_GEN_H

#include "core/diag.h"
#include "core/history.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum psi_gen_dist {
    PSI_DIST_UNIFORM,
    PSI_DIST_ZIPF,    /* zipfian over key ranks, exponent zipf_theta */
    PSI_DIST_HOTSPOT, /* hot_op_frac of the operations on hot_key_frac of the keys */
} psi_gen_dist;

typedef enum psi_gen_mix {
    PSI_MIX_POLYSI,      /* each op a read with probability read_ratio, else a write */
    PSI_MIX_RMW,         /* 25% reads, 25% writes, 50% read-modify-writes */
    PSI_MIX_BLINDW_RH,   /* 90% read-only txns, 10% blind-write-only txns */
    PSI_MIX_BLINDW_RW,   /* 50% / 50% */
    PSI_MIX_BLINDW_WH,   /* 10% / 90% */
    PSI_MIX_HEAVY_WRITE, /* 10% reads, 10% read-modify-writes, 80% writes */
} psi_gen_mix;

typedef enum psi_gen_store {
    PSI_STORE_SI,     /* snapshot reads, first-committer-wins */
    PSI_STORE_SER,    /* SI plus read-set validation at commit */
    PSI_STORE_RANDOM, /* unconstrained: reads return any value ever written, or 0 */
    PSI_STORE_RC,     /* read committed: each read returns the latest committed version
                         at the time of the read; no conflict checks (valid under RC and
                         PL-2, usually not under RA: reads fracture across commits) */
} psi_gen_store;

typedef enum psi_fault {
    PSI_FAULT_LOST_UPDATE,  /* commit despite a write-write conflict */
    PSI_FAULT_STALE_READ,   /* read an older version than the snapshot's */
    PSI_FAULT_LONG_FORK,    /* snapshot with a hole: misses one earlier commit */
    PSI_FAULT_SESSION_SKIP, /* read a version older than the session's own write */
    PSI_FAULT_COUNT
} psi_fault;

#define PSI_FAULT_BIT(f) (1u << (f))

typedef struct psi_gen_opts {
    uint32_t sessions;         /* 20 */
    uint32_t txns_per_session; /* 100 */
    uint32_t ops_per_txn;      /* 15 */
    double read_ratio;         /* 0.5 (PSI_MIX_POLYSI only) */
    uint32_t keys;             /* 10000 */
    psi_gen_dist dist;         /* zipf */
    double zipf_theta;         /* 0.5, as the PolySI paper's generator (dbcop's) */
    double hot_key_frac;       /* 0.2 */
    double hot_op_frac;        /* 0.8 */
    double long_txn_ratio;     /* fraction of txns with long_ops operations (0) */
    uint32_t long_ops;         /* 0: 10 x ops_per_txn */
    psi_gen_mix mix;           /* polysi */
    psi_gen_store store;       /* SI */
    unsigned faults;           /* PSI_FAULT_BIT mask (0) */
    double fault_prob;         /* per transaction and enabled fault (0.1) */
    double abort_ratio;        /* fraction of transactions the client rolls back (0); with
                                  retry_aborted each is retried as a new transaction */
    double unknown_ratio;      /* fraction of finished txns recorded as UNKNOWN (0) */
    bool keep_aborted;         /* record aborted txns (true; text format cannot) */
    /* SI/SER store: a session retries an aborted transaction (as a fresh
     * one, at most 1000 times) so txns_per_session counts committed ones, as
     * in PolySI's histories (true). */
    bool retry_aborted;
    uint64_t seed; /* 1 */
    /* --value-range N: written values drawn from 1..N (0: unique counters). */
    uint64_t value_range;
    /* --value-zipf S (needs value_range, at most 2^20): the drawn values
     * are zipfian over 1..value_range, value v with weight 1/v^S, as in
     * VeriStrong's duplicate-value workloads (dbcop's generator with
     * --repeat_value -s S -N value_range); 0 (the default): uniform. */
    double value_zipf;
    /* Set by --value-repeat-ratio R to 1 - R (needs value_range): the
     * fraction of the writes that do not draw but keep a unique value,
     * value_range + the key's version number, above the range so it never
     * equals a drawn one (VeriStrong's duplicate ratio R); 0 (the
     * default): every write draws. */
    double value_unique_ratio;
    /* --explicit-init: the history starts with a transaction (session 0,
     * id 0) writing 0 to every key 0..keys-1, the recorded initial state. */
    bool explicit_init;
    /* --timestamps (SI and SER stores): called for every transaction
     * recorded as committed, with the store's true start (its snapshot)
     * and commit times, in one unit where a transaction sees exactly those
     * that commit before it starts (check/timestamps.h). NULL: none. */
    void (*on_timestamps)(void *ctx, uint64_t session, uint64_t id, int64_t start, int64_t commit);
    void *timestamps_ctx;
    /* Record each transaction's real time (history.h psi_rt): a tick of
     * the simulation's clock when it begins and one when it commits or
     * aborts, so the EDN/JSON writers put its events in that order and a
     * transaction completed before another began precedes it (generate
     * sets it for --format edn). */
    bool realtime;
} psi_gen_opts;

/* Begins the history with the recorded initial state when
 * o->explicit_init (see above). */
psi_status psi_gen_explicit_init(const psi_gen_opts *o, psi_builder *b, psi_diag *d);

typedef struct psi_gen_report {
    /* What was recorded, by status: committed + aborted + unknown == txns. */
    uint64_t txns;
    uint64_t committed, aborted, unknown;
    uint64_t ops, reads, writes;
    /* What the store ran: every attempt, committed or aborted (by a write
     * conflict, SER's read validation or abort_ratio); aborted attempts are
     * retried unless retry_aborted is off, and not recorded when
     * keep_aborted is off (not_recorded). */
    uint64_t attempts, attempts_committed, attempts_aborted, not_recorded;
    /* Times each fault changed what a committed transaction did. */
    uint64_t applied[PSI_FAULT_COUNT];
    /* Of those, how many provably break SI whatever the version order. Left
     * at 0 when committed transactions are recorded as UNKNOWN (an unread
     * one drops out of the history and may take the anomaly with it). */
    uint64_t violations[PSI_FAULT_COUNT];
    /* Of violations[PSI_FAULT_LONG_FORK] (a snapshot hole makes either a
     * causality violation or a long fork), how many are long forks proper:
     * two readers that see two writes in opposite orders. */
    uint64_t long_forks;
} psi_gen_report;

void psi_gen_opts_default(psi_gen_opts *o);

/* Generates a history. On success *out is owned by the caller (free with
 * psi_history_free); rep (may be NULL) is filled. Fails with PSI_ERR_USAGE
 * on inconsistent options, PSI_ERR_NOMEM, or PSI_ERR_LIMIT. */
psi_status psi_generate(const psi_gen_opts *o, psi_history **out, psi_gen_report *rep, psi_diag *d);

/* Names as the CLI spells them; the parsers return false if unknown. */
const char *psi_gen_dist_name(psi_gen_dist x);
const char *psi_gen_mix_name(psi_gen_mix x);
const char *psi_gen_store_name(psi_gen_store x);
const char *psi_fault_name(psi_fault f);
bool psi_gen_dist_parse(const char *s, psi_gen_dist *out);
bool psi_gen_mix_parse(const char *s, psi_gen_mix *out);
bool psi_gen_store_parse(const char *s, psi_gen_store *out);
/* Comma-separated fault names (or "none") into a PSI_FAULT_BIT mask. */
bool psi_gen_faults_parse(const char *list, unsigned *mask);

/* ---- Shared by gen.c and store.c only ---- */

typedef struct psi_gen_rng {
    uint64_t s[4];
} psi_gen_rng;

void psi_gen_rng_seed(psi_gen_rng *r, uint64_t seed);
uint64_t psi_gen_rng_next(psi_gen_rng *r);
uint64_t psi_gen_rng_below(psi_gen_rng *r, uint64_t n); /* uniform in [0, n), n > 0 */
bool psi_gen_rng_chance(psi_gen_rng *r, double p);

/* One planned operation of a transaction: which key, read or write. */
typedef struct psi_gen_step {
    uint32_t key;
    uint8_t kind; /* psi_op_kind */
} psi_gen_step;

/* Samples transactions' operation plans for a workload. */
typedef struct psi_gen_plan psi_gen_plan;
psi_gen_plan *psi_gen_plan_new(const psi_gen_opts *o);
void psi_gen_plan_free(psi_gen_plan *p);
/* Plans one transaction into *steps (grown as needed, owned by the caller);
 * returns the number of operations, or UINT32_MAX when out of memory. */
uint32_t psi_gen_plan_txn(psi_gen_plan *p, psi_gen_rng *r, psi_gen_step **steps, size_t *cap);

/* The value written as version `v` (1, 2, ...) of key `key` under the
 * plan's value options (v itself without value_range); 0 stays 0. A
 * function of (seed, key, v) only: the RNG stream, and so what the store
 * does, is the same whatever the value options. */
uint64_t psi_gen_value(const psi_gen_plan *p, uint32_t key, uint64_t v);

/* Runs the SI/SER store over the whole workload, feeding the builder. */
psi_status psi_gen_store_run(const psi_gen_opts *o, psi_gen_plan *p, psi_gen_rng *r, psi_builder *b,
                             psi_gen_report *rep, psi_diag *d);

#endif
