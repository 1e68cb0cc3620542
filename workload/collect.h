/* Collecting histories from a real database (any driver of db.h).
 *
 * The workload is the generator's (psi_gen_plan_new / psi_gen_plan_txn in
 * gen.h: sessions, transactions per session, operations per transaction,
 * read ratio, keys, distribution, mix); only the execution differs:
 *
 *  - the driver's table is reset: (k, v), v = 0 for every key 0..keys-1,
 *    so a read of 0 is a read of the initial value, exactly as in the model;
 *  - one connection and one thread (pthreads) per session, all started
 *    together behind a barrier, so sessions really interleave and contend;
 *  - each planned transaction is begun at the level, its reads and writes
 *    run one statement each, with a value unique per key (session-tagged
 *    counter, never 0), then committed;
 *  - an attempt the database aborts (serialization failure, deadlock, lock
 *    timeout: db.h's psi_db_rc) is rolled back and recorded as an aborted
 *    transaction with the operations it executed; the session retries the
 *    same plan with fresh values (at most max_retries times), so it commits
 *    its quota, as the generator's stores do. Any other error stops the
 *    collection: no history.
 *
 * Interruption: when *interrupt becomes true, every session stops after
 * the transaction it is running (which commits or aborts as it would), and
 * the history of what was recorded is returned, marked partial in the
 * report: every transaction in it is complete.
 *
 * The history carries the run's description (database, version, level,
 * workload, partial or complete) as its dbcop header: info string, start
 * and end times (psi_history.dbcop), and the same line is in the report
 * for the text and EDN writers' header comment. */
#ifndef PSI_WORKLOAD_COLLECT_H
#define PSI_WORKLOAD_COLLECT_H

#include "core/diag.h"
#include "core/history.h"
#include "workload/db.h"
#include "workload/gen.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

typedef struct psi_collect_opts {
    const psi_db_driver *db;
    const char *conninfo; /* the driver's connection string */
    psi_db_level level;
    const char *table;            /* "psi_kv" (a plain lower-case SQL identifier) */
    uint32_t max_retries;         /* per planned transaction (1000) */
    bool keep_aborted;            /* record aborted attempts (true) */
    const atomic_bool *interrupt; /* stop between transactions when true (NULL: never) */
} psi_collect_opts;

typedef struct psi_collect_report {
    uint64_t committed;
    uint64_t aborted;            /* attempts the database aborted */
    uint64_t serialization;      /* of those, serialization failures */
    uint64_t deadlocks;          /* deadlock victims */
    uint64_t busy;               /* lock waits that timed out (SQLite: busy) */
    uint64_t planned;            /* committed transactions the workload asked for */
    uint64_t ops, reads, writes; /* recorded */
    double seconds;              /* wall time of the workload (not the setup) */
    bool partial;                /* interrupted: fewer than planned were run */
    char version[160];           /* the server's name and version */
    char header[512];            /* the one-line description the history carries */
} psi_collect_report;

void psi_collect_opts_default(psi_collect_opts *o);

/* Runs workload g against o->db and builds the history. On success *out is
 * owned by the caller. Errors: PSI_ERR_USAGE (bad options, a level the
 * database does not offer, a driver built without its library: the message
 * names the package), PSI_ERR_IO (connection or SQL errors, with the
 * database's own message), PSI_ERR_LIMIT (a transaction exceeded
 * max_retries), PSI_ERR_NOMEM. rep is filled as far as the run went. */
psi_status psi_collect(const psi_gen_opts *g, const psi_collect_opts *o, psi_history **out,
                       psi_collect_report *rep, psi_diag *d);

#endif
