/* The MariaDB / MySQL driver of db.h, through libmariadb (MariaDB
 * Connector/C). Compiled with PSI_HAVE_MARIADB when CMake found it
 * (Debian: libmariadb-dev).
 *
 * conninfo is key=value pairs as libpq takes them: host, port, user,
 * password, dbname, unix_socket, connect_timeout. The table is InnoDB. Each
 * session sets its level once (SET SESSION TRANSACTION ISOLATION LEVEL)
 * and runs START TRANSACTION ... COMMIT, with rows matched rather than
 * changed counted as affected (CLIENT_FOUND_ROWS), so a missing row is
 * told from a write of an equal value. Aborts, retried: 1213 deadlock
 * (InnoDB rolled the transaction back), 1205 lock wait timeout (only the
 * statement was rolled back: the attempt is rolled back here), 1020
 * "record has changed since last read" (what InnoDB's snapshot-isolation
 * mode raises); every other error fails the collection with the server's
 * message.
 *
 * MariaDB's REPEATABLE READ reads from a snapshot but lets an UPDATE
 * overwrite a row that changed since (it waits for the row lock, then
 * writes): no first-committer-wins, so lost updates are possible, and the
 * checker finds them (README, "MariaDB"). SERIALIZABLE takes shared locks
 * on every read. */
#include "workload/db.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef PSI_HAVE_MARIADB

#include <mysql.h>
#include <mysqld_error.h>

struct psi_db_conn {
    MYSQL *m;
    char table[64];
};

static psi_status my_error(psi_diag *d, MYSQL *m, const char *what)
{
    return psi_diag_set(d, PSI_ERR_IO, "MariaDB: %s: %s (error %u)", what, mysql_error(m),
                        mysql_errno(m));
}

/* Runs sql; its outcome. */
static psi_db_rc query(psi_db_conn *c, const char *sql, const char *what, psi_diag *d)
{
    if (mysql_real_query(c->m, sql, strlen(sql)) == 0)
        return PSI_DB_OK;
    unsigned e = mysql_errno(c->m);
    my_error(d, c->m, what);
    if (e == ER_LOCK_DEADLOCK)
        return PSI_DB_DEADLOCK;
    if (e == ER_LOCK_WAIT_TIMEOUT)
        return PSI_DB_BUSY;
    if (e == ER_CHECKREAD)
        return PSI_DB_SERIALIZATION;
    return PSI_DB_FAIL;
}

static psi_status my_connect(const char *conninfo, psi_db_conn **out, psi_diag *d)
{
    *out = NULL;
    static const char *const keys[] = {
        "host", "port", "user", "password", "dbname", "unix_socket", "connect_timeout", NULL};
    psi_conninfo ci;
    psi_status st = psi_conninfo_parse(conninfo, &ci, d);
    if (st != PSI_OK)
        return st;
    if ((st = psi_conninfo_only(&ci, keys, "MariaDB", d)) != PSI_OK) {
        psi_conninfo_free(&ci);
        return st;
    }
    const char *port_s = psi_conninfo_get(&ci, "port");
    const char *timeout_s = psi_conninfo_get(&ci, "connect_timeout");
    unsigned long port = 0, timeout = 10;
    char *end = NULL;
    if (port_s && ((port = strtoul(port_s, &end, 10)) > 65535 || *end || end == port_s))
        st = psi_diag_set(d, PSI_ERR_USAGE, "MariaDB: port must be a number, not '%s'", port_s);
    else if (timeout_s &&
             ((timeout = strtoul(timeout_s, &end, 10)) > 3600 || *end || end == timeout_s))
        st = psi_diag_set(d, PSI_ERR_USAGE, "MariaDB: connect_timeout takes seconds, not '%s'",
                          timeout_s);
    psi_db_conn *c = st == PSI_OK ? calloc(1, sizeof *c) : NULL;
    if (st == PSI_OK && (!c || !(c->m = mysql_init(NULL))))
        st = psi_diag_nomem(d, "connecting");
    if (st == PSI_OK) {
        unsigned int t = (unsigned int)timeout;
        mysql_options(c->m, MYSQL_OPT_CONNECT_TIMEOUT, &t);
        if (!mysql_real_connect(c->m, psi_conninfo_get(&ci, "host"), psi_conninfo_get(&ci, "user"),
                                psi_conninfo_get(&ci, "password"), psi_conninfo_get(&ci, "dbname"),
                                (unsigned int)port, psi_conninfo_get(&ci, "unix_socket"),
                                CLIENT_FOUND_ROWS))
            st = my_error(d, c->m, "cannot connect");
        else if (!psi_conninfo_get(&ci, "dbname"))
            st = psi_diag_set(d, PSI_ERR_USAGE,
                              "MariaDB: name the database the table goes in (dbname=NAME)");
    }
    psi_conninfo_free(&ci);
    if (st != PSI_OK) {
        if (c && c->m)
            mysql_close(c->m);
        free(c);
        return st;
    }
    *out = c;
    return PSI_OK;
}

static void my_close(psi_db_conn *c)
{
    if (!c)
        return;
    mysql_close(c->m);
    free(c);
}

static psi_status my_version(psi_db_conn *c, char *buf, size_t n, psi_diag *d)
{
    (void)d;
    const char *v = mysql_get_server_info(c->m);
    if (!v)
        v = "(version unknown)";
    snprintf(buf, n, "%s %s", strstr(v, "MariaDB") ? "MariaDB" : "MySQL", v);
    return PSI_OK;
}

static psi_status my_reset(psi_db_conn *c, const char *table, uint32_t keys, psi_diag *d)
{
    char sql[256];
    snprintf(sql, sizeof sql, "DROP TABLE IF EXISTS %s", table);
    if (query(c, sql, "dropping the table", d) != PSI_DB_OK)
        return PSI_ERR_IO;
    snprintf(sql, sizeof sql,
             "CREATE TABLE %s (k BIGINT PRIMARY KEY, v BIGINT NOT NULL) ENGINE=InnoDB", table);
    if (query(c, sql, "creating the table", d) != PSI_DB_OK)
        return PSI_ERR_IO;
    /* Filled 1000 rows per statement. */
    enum { CHUNK = 1000 };
    char *buf = malloc(64 + (size_t)CHUNK * 28);
    if (!buf)
        return psi_diag_nomem(d, "filling the table");
    psi_status st = PSI_OK;
    for (uint32_t k = 0; st == PSI_OK && k < keys;) {
        int w = sprintf(buf, "INSERT INTO %s VALUES ", table);
        for (uint32_t i = 0; i < CHUNK && k < keys; i++, k++)
            w += sprintf(buf + w, "%s(%" PRIu32 ",0)", i ? "," : "", k);
        if (query(c, buf, "filling the table", d) != PSI_DB_OK)
            st = PSI_ERR_IO;
    }
    free(buf);
    return st;
}

static psi_status my_prepare(psi_db_conn *c, const char *table, psi_db_level level, psi_diag *d)
{
    char sql[96];
    snprintf(c->table, sizeof c->table, "%s", table);
    snprintf(sql, sizeof sql, "SET SESSION TRANSACTION ISOLATION LEVEL %s",
             psi_db_level_sql(level));
    if (query(c, sql, "setting the isolation level", d) != PSI_DB_OK)
        return PSI_ERR_IO;
    if (query(c, "SET autocommit = 0", "setting up the session", d) != PSI_DB_OK)
        return PSI_ERR_IO;
    return PSI_OK;
}

static psi_db_rc my_begin(psi_db_conn *c, psi_db_level level, bool writes, psi_diag *d)
{
    (void)level; /* set for the session */
    (void)writes;
    return query(c, "START TRANSACTION", "START TRANSACTION", d);
}

static psi_db_rc my_read(psi_db_conn *c, uint32_t key, uint64_t *value, psi_diag *d)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT v FROM %s WHERE k = %" PRIu32, c->table, key);
    psi_db_rc rc = query(c, sql, "read", d);
    if (rc != PSI_DB_OK)
        return rc;
    MYSQL_RES *r = mysql_store_result(c->m);
    if (!r) {
        my_error(d, c->m, "read");
        return PSI_DB_FAIL;
    }
    MYSQL_ROW row = mysql_fetch_row(r);
    if (!row || !row[0]) {
        mysql_free_result(r);
        psi_diag_set(d, PSI_ERR_IO, "MariaDB: the row of key %" PRIu32 " is missing", key);
        return PSI_DB_FAIL;
    }
    *value = strtoull(row[0], NULL, 10);
    mysql_free_result(r);
    return PSI_DB_OK;
}

static psi_db_rc my_write(psi_db_conn *c, uint32_t key, uint64_t value, psi_diag *d)
{
    char sql[128];
    snprintf(sql, sizeof sql, "UPDATE %s SET v = %" PRIu64 " WHERE k = %" PRIu32, c->table, value,
             key);
    psi_db_rc rc = query(c, sql, "write", d);
    if (rc == PSI_DB_OK && mysql_affected_rows(c->m) != 1) {
        psi_diag_set(d, PSI_ERR_IO, "MariaDB: the row of key %" PRIu32 " is missing", key);
        rc = PSI_DB_FAIL;
    }
    return rc;
}

static psi_db_rc my_commit(psi_db_conn *c, psi_diag *d)
{
    return query(c, "COMMIT", "COMMIT", d);
}

static psi_db_rc my_rollback(psi_db_conn *c, psi_diag *d)
{
    return query(c, "ROLLBACK", "ROLLBACK", d) == PSI_DB_OK ? PSI_DB_OK : PSI_DB_FAIL;
}

static const psi_db_driver driver = {
    .name = "mariadb",
    .title = "MariaDB",
    .package = "libmariadb-dev",
    .available = true,
    .levels = PSI_DB_LEVEL_BIT(PSI_DB_READ_UNCOMMITTED) | PSI_DB_LEVEL_BIT(PSI_DB_READ_COMMITTED) |
              PSI_DB_LEVEL_BIT(PSI_DB_REPEATABLE_READ) | PSI_DB_LEVEL_BIT(PSI_DB_SERIALIZABLE),
    .connect = my_connect,
    .close = my_close,
    .version = my_version,
    .reset = my_reset,
    .prepare = my_prepare,
    .begin = my_begin,
    .read = my_read,
    .write = my_write,
    .commit = my_commit,
    .rollback = my_rollback,
};

#else /* no libmariadb */

static const psi_db_driver driver = {
    .name = "mariadb",
    .title = "MariaDB",
    .package = "libmariadb-dev",
    .available = false,
    .levels = PSI_DB_LEVEL_BIT(PSI_DB_READ_UNCOMMITTED) | PSI_DB_LEVEL_BIT(PSI_DB_READ_COMMITTED) |
              PSI_DB_LEVEL_BIT(PSI_DB_REPEATABLE_READ) | PSI_DB_LEVEL_BIT(PSI_DB_SERIALIZABLE),
};

#endif

const psi_db_driver *psi_db_mariadb(void)
{
    return &driver;
}
