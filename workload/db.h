/* One client interface for the databases `polysi-solve collect` runs
 * workloads on (PostgreSQL, MariaDB/MySQL, SQLite), so the workload runner
 * (collect.c) is written once and each database is one file that speaks
 * its client library: pg.c (libpq), mariadb.c (libmariadb), sqlite.c
 * (libsqlite3).
 *
 * Each driver is optional at build time: without its Debian -dev package at
 * configure time its `available` is false, its functions are not there
 * (NULL), and `package` says what to install. The drivers are constant
 * tables; they hold no state of their own (a connection is all there is).
 *
 * The data model every driver implements: one table TABLE(k, v), both
 * 64-bit integers, k the primary key, re-created and filled with v = 0 for
 * keys 0..keys-1 by reset, so a read of 0 is a read of the initial value.
 * A read is one row by key, a write an UPDATE of one row's v.
 *
 * Ownership: connect returns a connection the caller closes with close (in
 * the thread that uses it: one connection per session thread). A driver
 * function fills the psi_diag it is given with the database's own message
 * when it returns PSI_DB_FAIL (or a status other than PSI_OK). */
#ifndef PSI_WORKLOAD_DB_H
#define PSI_WORKLOAD_DB_H

#include "core/diag.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Levels as the databases name them (SQL's four). */
typedef enum psi_db_level {
    PSI_DB_READ_UNCOMMITTED = 0,
    PSI_DB_READ_COMMITTED,
    PSI_DB_REPEATABLE_READ,
    PSI_DB_SERIALIZABLE,
    PSI_DB_LEVEL_COUNT
} psi_db_level;

#define PSI_DB_LEVEL_BIT(l) (1u << (l))

/* What a statement did. Every outcome but PSI_DB_OK ends the transaction's
 * attempt: the runner rolls it back, records it as aborted (the database
 * aborted it, or it could not go on) and, unless PSI_DB_FAIL, retries. */
typedef enum psi_db_rc {
    PSI_DB_OK = 0,
    PSI_DB_SERIALIZATION, /* aborted to keep the level: PostgreSQL 40001, MariaDB 1020,
                             SQLite SQLITE_BUSY_SNAPSHOT */
    PSI_DB_DEADLOCK,      /* chosen as a deadlock victim: PostgreSQL 40P01, MariaDB 1213 */
    PSI_DB_BUSY,          /* a lock could not be had in time: MariaDB 1205 (lock wait
                             timeout), SQLite SQLITE_BUSY after the busy timeout */
    PSI_DB_FAIL,          /* anything else: the collection stops with d's message */
} psi_db_rc;

typedef struct psi_db_conn psi_db_conn; /* a driver's own connection */

typedef struct psi_db_driver {
    const char *name;    /* what --db takes: "postgres", "mariadb", "sqlite" */
    const char *title;   /* for people: "PostgreSQL", "MariaDB", "SQLite" */
    const char *package; /* the Debian package that enables it at build time */
    bool available;      /* built with its client library */
    unsigned levels;     /* PSI_DB_LEVEL_BIT of each level it offers */
    /* Connects. conninfo is key=value pairs as libpq takes them (see
     * psi_conninfo_parse); what keys a driver takes is its own. */
    psi_status (*connect)(const char *conninfo, psi_db_conn **out, psi_diag *d);
    void (*close)(psi_db_conn *c);
    /* The server's name and version ("PostgreSQL 15.6", "MariaDB
     * 10.11.6-MariaDB-0+deb12u1", "SQLite 3.40.1") into buf. */
    psi_status (*version)(psi_db_conn *c, char *buf, size_t n, psi_diag *d);
    /* Drops TABLE if it exists, creates it and fills it (v = 0 for keys
     * 0..keys-1). table is a plain lower-case identifier. */
    psi_status (*reset)(psi_db_conn *c, const char *table, uint32_t keys, psi_diag *d);
    /* Readies a session's connection: its level, prepared statements. */
    psi_status (*prepare)(psi_db_conn *c, const char *table, psi_db_level level, psi_diag *d);
    /* Starts a transaction at the level; writes: the transaction will
     * write (SQLite takes its write lock at the start then). */
    psi_db_rc (*begin)(psi_db_conn *c, psi_db_level level, bool writes, psi_diag *d);
    /* Reads key's value; a missing row is PSI_DB_FAIL. */
    psi_db_rc (*read)(psi_db_conn *c, uint32_t key, uint64_t *value, psi_diag *d);
    /* Writes value to key's row; a missing row is PSI_DB_FAIL. */
    psi_db_rc (*write)(psi_db_conn *c, uint32_t key, uint64_t value, psi_diag *d);
    psi_db_rc (*commit)(psi_db_conn *c, psi_diag *d);
    /* Ends a failed attempt whatever state it left (also when the database
     * already rolled it back). PSI_DB_OK or PSI_DB_FAIL. */
    psi_db_rc (*rollback)(psi_db_conn *c, psi_diag *d);
} psi_db_driver;

const psi_db_driver *psi_db_postgres(void);
const psi_db_driver *psi_db_mariadb(void);
const psi_db_driver *psi_db_sqlite(void);

/* The driver --db NAME names: postgres (postgresql, pg), mariadb (mysql),
 * sqlite (sqlite3), in any case; NULL if none. */
const psi_db_driver *psi_db_find(const char *name);

/* "read-uncommitted", "read-committed", "repeatable-read", "serializable". */
const char *psi_db_level_name(psi_db_level l);
/* Those names (also with a space or an underscore for the dash), in any
 * case. */
bool psi_db_level_parse(const char *s, psi_db_level *out);
/* "READ COMMITTED", ... as SQL spells them. */
const char *psi_db_level_sql(psi_db_level l);

/* ---- Connection strings (conninfo.c) ----
 * libpq's syntax: key=value pairs separated by blanks; a value may be
 * single-quoted, with \' and \\ inside. Used by the drivers whose client
 * library has no such parser (MariaDB, SQLite). */
typedef struct psi_conninfo {
    char *buf;     /* owned: the keys and values, NUL-separated */
    char **keys;   /* owned array of n pointers into buf */
    char **values; /* owned array of n pointers into buf */
    size_t n;
} psi_conninfo;

/* Parses s. A syntax error (a word without '=', an unterminated quote) is
 * PSI_ERR_USAGE naming the byte offset. */
psi_status psi_conninfo_parse(const char *s, psi_conninfo *out, psi_diag *d);
void psi_conninfo_free(psi_conninfo *c);
/* The value of key, or NULL when absent (the last one wins). */
const char *psi_conninfo_get(const psi_conninfo *c, const char *key);
/* Fails (PSI_ERR_USAGE) naming the first key that is not in allowed (a
 * NULL-terminated list), for a message that lists the ones `who` takes. */
psi_status psi_conninfo_only(const psi_conninfo *c, const char *const *allowed, const char *who,
                             psi_diag *d);

#endif
