/* The PostgreSQL driver of db.h, through libpq. Compiled with
 * PSI_HAVE_LIBPQ when CMake found libpq (Debian: libpq-dev); otherwise the
 * driver says it is not available.
 *
 * conninfo goes to libpq as it is (PQconnectdb: host, port, user,
 * password, dbname, ...; "" takes libpq's defaults and PG* variables).
 * Statements are prepared per connection; a transaction is BEGIN ISOLATION
 * LEVEL ... / COMMIT. SQLSTATE 40001 is a serialization failure, 40P01 a
 * deadlock; every other error fails the collection with the server's
 * message. PostgreSQL takes all four levels (READ UNCOMMITTED behaves as
 * READ COMMITTED there). */
#include "workload/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PSI_HAVE_LIBPQ

#include <libpq-fe.h>

struct psi_db_conn {
    PGconn *pg;
};

/* PQerrorMessage ends with a newline; keep messages one line. */
static psi_status pg_error(psi_diag *d, PGconn *c, const char *what)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", c ? PQerrorMessage(c) : "out of memory");
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return psi_diag_set(d, PSI_ERR_IO, "PostgreSQL: %s: %s", what, buf);
}

/* The outcome of a statement's result (which it clears). */
static psi_db_rc result_rc(psi_db_conn *c, PGresult *r, const char *what, psi_diag *d)
{
    ExecStatusType es = PQresultStatus(r);
    psi_db_rc rc = PSI_DB_OK;
    if (es != PGRES_COMMAND_OK && es != PGRES_TUPLES_OK) {
        const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
        if (state && strcmp(state, "40001") == 0)
            rc = PSI_DB_SERIALIZATION;
        else if (state && strcmp(state, "40P01") == 0)
            rc = PSI_DB_DEADLOCK;
        else
            rc = PSI_DB_FAIL;
        pg_error(d, c->pg, what);
    }
    PQclear(r);
    return rc;
}

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static psi_status pg_connect(const char *conninfo, psi_db_conn **out, psi_diag *d)
{
    *out = NULL;
    psi_db_conn *c = calloc(1, sizeof *c);
    if (!c)
        return psi_diag_nomem(d, "connecting");
    c->pg = PQconnectdb(conninfo);
    if (PQstatus(c->pg) != CONNECTION_OK) {
        psi_status st = pg_error(d, c->pg, "cannot connect");
        PQfinish(c->pg);
        free(c);
        return st;
    }
    PQsetNoticeProcessor(c->pg, quiet, NULL); /* the library never prints */
    *out = c;
    return PSI_OK;
}

static void pg_close(psi_db_conn *c)
{
    if (!c)
        return;
    PQfinish(c->pg);
    free(c);
}

static psi_status pg_version(psi_db_conn *c, char *buf, size_t n, psi_diag *d)
{
    (void)d;
    const char *v = PQparameterStatus(c->pg, "server_version");
    snprintf(buf, n, "PostgreSQL %s", v ? v : "(version unknown)");
    return PSI_OK;
}

static psi_status pg_reset(psi_db_conn *c, const char *table, uint32_t keys, psi_diag *d)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SET client_min_messages TO warning; DROP TABLE IF EXISTS %s; "
             "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint NOT NULL); "
             "INSERT INTO %s SELECT g, 0 FROM generate_series(0, %" PRIu32 ") g; "
             "ANALYZE %s",
             table, table, table, keys - 1, table);
    return result_rc(c, PQexec(c->pg, sql), "creating the table", d) == PSI_DB_OK ? PSI_OK
                                                                                  : PSI_ERR_IO;
}

static psi_status pg_prepare(psi_db_conn *c, const char *table, psi_db_level level, psi_diag *d)
{
    (void)level; /* each BEGIN names it */
    char sql[160];
    if (result_rc(c, PQexec(c->pg, "SET synchronous_commit TO off"), "setting up the session", d) !=
        PSI_DB_OK)
        return PSI_ERR_IO;
    snprintf(sql, sizeof sql, "SELECT v FROM %s WHERE k = $1", table);
    if (result_rc(c, PQprepare(c->pg, "r", sql, 1, NULL), "preparing statements", d) != PSI_DB_OK)
        return PSI_ERR_IO;
    snprintf(sql, sizeof sql, "UPDATE %s SET v = $2 WHERE k = $1", table);
    if (result_rc(c, PQprepare(c->pg, "w", sql, 2, NULL), "preparing statements", d) != PSI_DB_OK)
        return PSI_ERR_IO;
    return PSI_OK;
}

static psi_db_rc pg_begin(psi_db_conn *c, psi_db_level level, bool writes, psi_diag *d)
{
    (void)writes;
    char sql[64];
    snprintf(sql, sizeof sql, "BEGIN ISOLATION LEVEL %s", psi_db_level_sql(level));
    return result_rc(c, PQexec(c->pg, sql), "BEGIN", d);
}

static psi_db_rc pg_read(psi_db_conn *c, uint32_t key, uint64_t *value, psi_diag *d)
{
    char kbuf[24];
    snprintf(kbuf, sizeof kbuf, "%" PRIu32, key);
    const char *params[1] = {kbuf};
    PGresult *r = PQexecPrepared(c->pg, "r", 1, params, NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) != 1) {
        PQclear(r);
        psi_diag_set(d, PSI_ERR_IO, "PostgreSQL: the row of key %" PRIu32 " is missing", key);
        return PSI_DB_FAIL;
    }
    if (PQresultStatus(r) == PGRES_TUPLES_OK)
        *value = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
    return result_rc(c, r, "read", d);
}

static psi_db_rc pg_write(psi_db_conn *c, uint32_t key, uint64_t value, psi_diag *d)
{
    char kbuf[24], vbuf[24];
    snprintf(kbuf, sizeof kbuf, "%" PRIu32, key);
    snprintf(vbuf, sizeof vbuf, "%" PRIu64, value);
    const char *params[2] = {kbuf, vbuf};
    PGresult *r = PQexecPrepared(c->pg, "w", 2, params, NULL, NULL, 0);
    if (PQresultStatus(r) == PGRES_COMMAND_OK && strcmp(PQcmdTuples(r), "1") != 0) {
        PQclear(r);
        psi_diag_set(d, PSI_ERR_IO, "PostgreSQL: the row of key %" PRIu32 " is missing", key);
        return PSI_DB_FAIL;
    }
    return result_rc(c, r, "write", d);
}

static psi_db_rc pg_commit(psi_db_conn *c, psi_diag *d)
{
    return result_rc(c, PQexec(c->pg, "COMMIT"), "COMMIT", d);
}

static psi_db_rc pg_rollback(psi_db_conn *c, psi_diag *d)
{
    /* a failed COMMIT already ended the transaction */
    if (PQtransactionStatus(c->pg) == PQTRANS_IDLE)
        return PSI_DB_OK;
    return result_rc(c, PQexec(c->pg, "ROLLBACK"), "ROLLBACK", d) == PSI_DB_OK ? PSI_DB_OK
                                                                               : PSI_DB_FAIL;
}

static const psi_db_driver driver = {
    .name = "postgres",
    .title = "PostgreSQL",
    .package = "libpq-dev",
    .available = true,
    .levels = PSI_DB_LEVEL_BIT(PSI_DB_READ_UNCOMMITTED) | PSI_DB_LEVEL_BIT(PSI_DB_READ_COMMITTED) |
              PSI_DB_LEVEL_BIT(PSI_DB_REPEATABLE_READ) | PSI_DB_LEVEL_BIT(PSI_DB_SERIALIZABLE),
    .connect = pg_connect,
    .close = pg_close,
    .version = pg_version,
    .reset = pg_reset,
    .prepare = pg_prepare,
    .begin = pg_begin,
    .read = pg_read,
    .write = pg_write,
    .commit = pg_commit,
    .rollback = pg_rollback,
};

#else /* no libpq */

static const psi_db_driver driver = {
    .name = "postgres",
    .title = "PostgreSQL",
    .package = "libpq-dev",
    .available = false,
};

#endif

const psi_db_driver *psi_db_postgres(void)
{
    return &driver;
}
