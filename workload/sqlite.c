/* The SQLite driver of db.h, through libsqlite3. Compiled with
 * PSI_HAVE_SQLITE3 when CMake found it (Debian: libsqlite3-dev).
 *
 * conninfo is the database file's path, or key=value pairs: dbname (or
 * file) the path, busy_timeout milliseconds (5000). The file is created if
 * it does not exist. One connection per session on the one file, in WAL
 * mode (readers do not block the writer). SQLite's transactions are
 * serializable and it offers no other level: a transaction that will write
 * begins with BEGIN IMMEDIATE (it takes the write lock at once, so two
 * writers never deadlock upgrading their locks), a read-only one with
 * BEGIN DEFERRED. SQLITE_BUSY (the lock was not had within the busy
 * timeout) and SQLITE_BUSY_SNAPSHOT are recorded as aborts and retried;
 * every other error fails the collection with SQLite's message. */
#include "workload/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PSI_HAVE_SQLITE3

#include <sqlite3.h>

struct psi_db_conn {
    sqlite3 *db;
    sqlite3_stmt *rd, *wr;
    char *path;
};

static psi_status sq_error(psi_diag *d, sqlite3 *db, const char *what)
{
    return psi_diag_set(d, PSI_ERR_IO, "SQLite: %s: %s", what,
                        db ? sqlite3_errmsg(db) : "out of memory");
}

/* The outcome of a finished step or exec returning rc. */
static psi_db_rc step_rc(psi_db_conn *c, int rc, const char *what, psi_diag *d)
{
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW)
        return PSI_DB_OK;
    sq_error(d, c->db, what);
    if (rc == SQLITE_BUSY_SNAPSHOT)
        return PSI_DB_SERIALIZATION;
    if ((rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED)
        return PSI_DB_BUSY;
    return PSI_DB_FAIL;
}

static psi_status sq_connect(const char *conninfo, psi_db_conn **out, psi_diag *d)
{
    *out = NULL;
    psi_conninfo ci = {0};
    const char *path = conninfo;
    long timeout = 5000;
    if (strchr(conninfo, '=')) {
        static const char *const keys[] = {"dbname", "file", "busy_timeout", NULL};
        psi_status st = psi_conninfo_parse(conninfo, &ci, d);
        if (st == PSI_OK)
            st = psi_conninfo_only(&ci, keys, "SQLite", d);
        if (st != PSI_OK) {
            psi_conninfo_free(&ci);
            return st;
        }
        path = psi_conninfo_get(&ci, "dbname");
        if (!path)
            path = psi_conninfo_get(&ci, "file");
        const char *t = psi_conninfo_get(&ci, "busy_timeout");
        char *end = NULL;
        if (t && ((timeout = strtol(t, &end, 10)) < 0 || *end || end == t)) {
            /* the message before the free: t points into ci */
            psi_status bad = psi_diag_set(d, PSI_ERR_USAGE,
                                          "SQLite: busy_timeout takes milliseconds, not '%s'", t);
            psi_conninfo_free(&ci);
            return bad;
        }
    }
    if (!path || !*path) {
        psi_conninfo_free(&ci);
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "SQLite: name the database file (--conn PATH or dbname=PATH)");
    }
    psi_db_conn *c = calloc(1, sizeof *c);
    if (!c || !(c->path = strdup(path))) {
        free(c);
        psi_conninfo_free(&ci);
        return psi_diag_nomem(d, "connecting");
    }
    psi_conninfo_free(&ci);
    int rc = sqlite3_open_v2(c->path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
    if (rc != SQLITE_OK) {
        psi_status st = psi_diag_set(d, PSI_ERR_IO, "SQLite: cannot open %s: %s", c->path,
                                     c->db ? sqlite3_errmsg(c->db) : sqlite3_errstr(rc));
        sqlite3_close(c->db);
        free(c->path);
        free(c);
        return st;
    }
    sqlite3_busy_timeout(c->db, (int)(timeout > 3600000 ? 3600000 : timeout));
    *out = c;
    return PSI_OK;
}

static void sq_close(psi_db_conn *c)
{
    if (!c)
        return;
    sqlite3_finalize(c->rd);
    sqlite3_finalize(c->wr);
    sqlite3_close(c->db);
    free(c->path);
    free(c);
}

static psi_status sq_version(psi_db_conn *c, char *buf, size_t n, psi_diag *d)
{
    (void)c;
    (void)d;
    snprintf(buf, n, "SQLite %s", sqlite3_libversion());
    return PSI_OK;
}

static psi_status sq_exec(psi_db_conn *c, const char *sql, const char *what, psi_diag *d)
{
    return sqlite3_exec(c->db, sql, NULL, NULL, NULL) == SQLITE_OK ? PSI_OK
                                                                   : sq_error(d, c->db, what);
}

static psi_status sq_reset(psi_db_conn *c, const char *table, uint32_t keys, psi_diag *d)
{
    char sql[256];
    /* WAL: readers never block the writer; synchronous off: a test
     * database, the history is what matters, not durability. */
    psi_status st = sq_exec(c, "PRAGMA journal_mode=WAL", "setting WAL mode", d);
    snprintf(sql, sizeof sql,
             "DROP TABLE IF EXISTS %s; CREATE TABLE %s (k INTEGER PRIMARY KEY, v INTEGER NOT "
             "NULL)",
             table, table);
    if (st == PSI_OK)
        st = sq_exec(c, sql, "creating the table", d);
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g WHERE x < %" PRIu32
             ") INSERT INTO %s SELECT x, 0 FROM g",
             keys - 1, table);
    if (st == PSI_OK)
        st = sq_exec(c, sql, "filling the table", d);
    return st;
}

static psi_status sq_prepare(psi_db_conn *c, const char *table, psi_db_level level, psi_diag *d)
{
    (void)level; /* serializable is all there is */
    char sql[160];
    if (sq_exec(c, "PRAGMA synchronous=OFF", "setting up the session", d) != PSI_OK)
        return PSI_ERR_IO;
    snprintf(sql, sizeof sql, "SELECT v FROM %s WHERE k = ?1", table);
    if (sqlite3_prepare_v2(c->db, sql, -1, &c->rd, NULL) != SQLITE_OK)
        return sq_error(d, c->db, "preparing statements");
    snprintf(sql, sizeof sql, "UPDATE %s SET v = ?2 WHERE k = ?1", table);
    if (sqlite3_prepare_v2(c->db, sql, -1, &c->wr, NULL) != SQLITE_OK)
        return sq_error(d, c->db, "preparing statements");
    return PSI_OK;
}

static psi_db_rc sq_begin(psi_db_conn *c, psi_db_level level, bool writes, psi_diag *d)
{
    (void)level;
    const char *sql = writes ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED";
    return step_rc(c, sqlite3_exec(c->db, sql, NULL, NULL, NULL), sql, d);
}

static psi_db_rc sq_read(psi_db_conn *c, uint32_t key, uint64_t *value, psi_diag *d)
{
    sqlite3_reset(c->rd);
    sqlite3_bind_int64(c->rd, 1, key);
    int rc = sqlite3_step(c->rd);
    if (rc == SQLITE_ROW) {
        *value = (uint64_t)sqlite3_column_int64(c->rd, 0);
        rc = SQLITE_OK;
    } else if (rc == SQLITE_DONE) {
        psi_diag_set(d, PSI_ERR_IO, "SQLite: the row of key %" PRIu32 " is missing", key);
        return PSI_DB_FAIL;
    }
    psi_db_rc r = step_rc(c, rc, "read", d);
    sqlite3_reset(c->rd); /* ends the statement: its read lock goes with the transaction */
    return r;
}

static psi_db_rc sq_write(psi_db_conn *c, uint32_t key, uint64_t value, psi_diag *d)
{
    sqlite3_reset(c->wr);
    sqlite3_bind_int64(c->wr, 1, key);
    sqlite3_bind_int64(c->wr, 2, (sqlite3_int64)value);
    psi_db_rc r = step_rc(c, sqlite3_step(c->wr), "write", d);
    if (r == PSI_DB_OK && sqlite3_changes(c->db) != 1) {
        psi_diag_set(d, PSI_ERR_IO, "SQLite: the row of key %" PRIu32 " is missing", key);
        r = PSI_DB_FAIL;
    }
    sqlite3_reset(c->wr);
    return r;
}

static psi_db_rc sq_commit(psi_db_conn *c, psi_diag *d)
{
    return step_rc(c, sqlite3_exec(c->db, "COMMIT", NULL, NULL, NULL), "COMMIT", d);
}

static psi_db_rc sq_rollback(psi_db_conn *c, psi_diag *d)
{
    if (sqlite3_get_autocommit(c->db))
        return PSI_DB_OK; /* no transaction open (a failed BEGIN, or SQLite ended it) */
    return sqlite3_exec(c->db, "ROLLBACK", NULL, NULL, NULL) == SQLITE_OK
               ? PSI_DB_OK
               : (sq_error(d, c->db, "ROLLBACK"), PSI_DB_FAIL);
}

static const psi_db_driver driver = {
    .name = "sqlite",
    .title = "SQLite",
    .package = "libsqlite3-dev",
    .available = true,
    .levels = PSI_DB_LEVEL_BIT(PSI_DB_SERIALIZABLE),
    .connect = sq_connect,
    .close = sq_close,
    .version = sq_version,
    .reset = sq_reset,
    .prepare = sq_prepare,
    .begin = sq_begin,
    .read = sq_read,
    .write = sq_write,
    .commit = sq_commit,
    .rollback = sq_rollback,
};

#else /* no libsqlite3 */

static const psi_db_driver driver = {
    .name = "sqlite",
    .title = "SQLite",
    .package = "libsqlite3-dev",
    .available = false,
    .levels = PSI_DB_LEVEL_BIT(PSI_DB_SERIALIZABLE), /* for the message a level gets */
};

#endif

const psi_db_driver *psi_db_sqlite(void)
{
    return &driver;
}
