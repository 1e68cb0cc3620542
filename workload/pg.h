/* Collecting histories from a real PostgreSQL server through libpq.
 *
 * The workload is the generator's (psi_gen_plan_new / psi_gen_plan_txn in
 * gen.h: sessions, transactions per session, operations per transaction,
 * read ratio, keys, distribution, mix); only the execution differs:
 *
 *  - one table `TABLE(k bigint primary key, v bigint not null)`, dropped,
 *    re-created and prefilled with v = 0 for every key 0..keys-1, so a read
 *    of 0 is a read of the initial value, exactly as in the model;
 *  - one connection and one thread (pthreads) per session, all started
 *    together behind a barrier, so sessions really interleave and contend;
 *  - a read is `SELECT v FROM TABLE WHERE k = $1`, a write `UPDATE TABLE
 *    SET v = $2 WHERE k = $1` with a value unique per key (session-tagged
 *    counter, never 0), each transaction `BEGIN ISOLATION LEVEL ...` ..
 *    `COMMIT`;
 *  - a serialization failure or deadlock (SQLSTATE 40001 / 40P01) rolls
 *    back; the attempt is recorded as an aborted transaction with the
 *    operations it executed, and the session retries the same plan with
 *    fresh values (at most max_retries times) so it commits its quota, as
 *    the generator's stores do. Any other error stops the collection.
 *
 * Built without libpq (no libpq-dev at configure time), psi_pg_available()
 * is false and psi_pg_collect fails with a message saying how to enable it. */
#ifndef PSI_WORKLOAD_PG_H
#define PSI_WORKLOAD_PG_H

#include "core/diag.h"
#include "core/history.h"
#include "workload/gen.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum psi_pg_level {
    PSI_PG_READ_COMMITTED,
    PSI_PG_REPEATABLE_READ,
    PSI_PG_SERIALIZABLE,
} psi_pg_level;

typedef struct psi_pg_opts {
    const char *conninfo; /* libpq connection string ("" = libpq defaults) */
    psi_pg_level level;   /* repeatable read */
    const char *table;    /* "psi_kv" (a plain SQL identifier) */
    uint32_t max_retries; /* per planned transaction (1000) */
    bool keep_aborted;    /* record aborted attempts (true) */
} psi_pg_opts;

typedef struct psi_pg_report {
    uint64_t committed;
    uint64_t aborted;            /* attempts rolled back on 40001 / 40P01 */
    uint64_t serialization;      /* of those, 40001 */
    uint64_t deadlocks;          /* of those, 40P01 */
    uint64_t ops, reads, writes; /* recorded */
    double seconds;              /* wall time of the workload (not the setup) */
} psi_pg_report;

void psi_pg_opts_default(psi_pg_opts *o);
bool psi_pg_available(void);
const char *psi_pg_level_name(psi_pg_level l); /* "repeatable-read", ... */
bool psi_pg_level_parse(const char *s, psi_pg_level *out);

/* Runs workload g against the server and builds the history. On success
 * *out is owned by the caller. Errors: PSI_ERR_USAGE (bad options, or built
 * without libpq), PSI_ERR_IO (connection or SQL errors, with the server's
 * message), PSI_ERR_LIMIT (a transaction exceeded max_retries),
 * PSI_ERR_NOMEM. */
psi_status psi_pg_collect(const psi_gen_opts *g, const psi_pg_opts *o, psi_history **out,
                          psi_pg_report *rep, psi_diag *d);

#endif
