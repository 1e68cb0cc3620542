/* The collector (workload/collect.h, db.h) without a server: libpq-style
 * connection strings (quotes, escapes, errors at a byte offset), level and
 * database names, the options psi_collect refuses (with the database's
 * levels named), and, when built with SQLite, whole collections on a
 * temporary file: every planned transaction committed and recorded, values
 * unique per key, the header naming SQLite, its version, the level and
 * "complete", an interrupt before the start giving an empty partial run, a
 * file that cannot be opened an error with SQLite's message. */
#include "workload/collect.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

static void conninfo_pairs(void **state)
{
    (void)state;
    psi_conninfo c;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(
        psi_conninfo_parse("  host=h port = 5 password='a b\\'c' dbname=x\\ y ", &c, &d), PSI_OK);
    assert_int_equal(c.n, 4);
    assert_string_equal(psi_conninfo_get(&c, "host"), "h");
    assert_string_equal(psi_conninfo_get(&c, "port"), "5");
    assert_string_equal(psi_conninfo_get(&c, "password"), "a b'c");
    assert_string_equal(psi_conninfo_get(&c, "dbname"), "x y");
    assert_null(psi_conninfo_get(&c, "user"));
    static const char *const some[] = {"host", "port", NULL};
    assert_int_equal(psi_conninfo_only(&c, some, "X", &d), PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "X takes no key 'password' (it takes host, port)"));
    psi_conninfo_free(&c);

    assert_int_equal(psi_conninfo_parse("", &c, &d), PSI_OK);
    assert_int_equal(c.n, 0);
    psi_conninfo_free(&c);
    /* the last of a repeated key wins, as in libpq */
    assert_int_equal(psi_conninfo_parse("a=1 a=2 b=''", &c, &d), PSI_OK);
    assert_string_equal(psi_conninfo_get(&c, "a"), "2");
    assert_string_equal(psi_conninfo_get(&c, "b"), "");
    psi_conninfo_free(&c);
}

static void conninfo_errors(void **state)
{
    (void)state;
    psi_conninfo c;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_conninfo_parse("host=h word", &c, &d), PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "expected key=value at byte 7"));
    assert_int_equal(psi_conninfo_parse("a=1 p='open", &c, &d), PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "unterminated quote at byte 6"));
    assert_int_equal(psi_conninfo_parse("=v", &c, &d), PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "at byte 0"));
}

static void names(void **state)
{
    (void)state;
    psi_db_level l;
    assert_true(psi_db_level_parse("Repeatable Read", &l));
    assert_int_equal(l, PSI_DB_REPEATABLE_READ);
    assert_true(psi_db_level_parse("read_committed", &l));
    assert_int_equal(l, PSI_DB_READ_COMMITTED);
    assert_true(psi_db_level_parse("SERIALIZABLE", &l));
    assert_int_equal(l, PSI_DB_SERIALIZABLE);
    assert_false(psi_db_level_parse("snapshot", &l));
    assert_false(psi_db_level_parse("serializabl", &l));
    assert_false(psi_db_level_parse("", &l));
    assert_string_equal(psi_db_level_sql(PSI_DB_READ_UNCOMMITTED), "READ UNCOMMITTED");
    assert_ptr_equal(psi_db_find("PostgreSQL"), psi_db_postgres());
    assert_ptr_equal(psi_db_find("pg"), psi_db_postgres());
    assert_ptr_equal(psi_db_find("mysql"), psi_db_mariadb());
    assert_ptr_equal(psi_db_find("sqlite3"), psi_db_sqlite());
    assert_null(psi_db_find("oracle"));
    assert_string_equal(psi_db_sqlite()->package, "libsqlite3-dev");
}

static void small_workload(psi_gen_opts *g)
{
    psi_gen_opts_default(g);
    g->sessions = 4;
    g->txns_per_session = 25;
    g->ops_per_txn = 5;
    g->keys = 12;
    g->seed = 3;
}

static void refused_options(void **state)
{
    (void)state;
    psi_gen_opts g;
    small_workload(&g);
    psi_collect_opts o;
    psi_collect_opts_default(&o);
    psi_history *h = NULL;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_collect(&g, &o, &h, NULL, &d), PSI_ERR_USAGE); /* no database */
    assert_null(h);
    o.db = psi_db_sqlite();
    o.conninfo = "/nonexistent/x.db";
    o.level = PSI_DB_REPEATABLE_READ;
    assert_int_equal(psi_collect(&g, &o, &h, NULL, &d), PSI_ERR_USAGE);
    if (psi_db_sqlite()->available)
        assert_non_null(strstr(d.msg, "SQLite offers no repeatable-read level (it offers "
                                      "serializable)"));
    o.level = PSI_DB_SERIALIZABLE;
    o.table = "Bad-Name";
    assert_int_equal(psi_collect(&g, &o, &h, NULL, &d), PSI_ERR_USAGE);
    o.table = "psi_kv";
    g.sessions = 0;
    assert_int_equal(psi_collect(&g, &o, &h, NULL, &d), PSI_ERR_USAGE);
    assert_null(h);
}

/* A temporary database file's path (removed by the caller with its WAL
 * files). */
static void temp_db(char *path, size_t n)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, n, "%s/psi-collect-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

static void remove_db(const char *path)
{
    char side[4200];
    unlink(path);
    snprintf(side, sizeof side, "%s-wal", path);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", path);
    unlink(side);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void sqlite_run(void **state)
{
    (void)state;
    if (!psi_db_sqlite()->available)
        skip();
    char path[4096];
    temp_db(path, sizeof path);
    psi_gen_opts g;
    small_workload(&g);
    psi_collect_opts o;
    psi_collect_opts_default(&o);
    o.db = psi_db_sqlite();
    o.conninfo = path;
    o.level = PSI_DB_SERIALIZABLE;
    psi_history *h = NULL;
    psi_collect_report rep;
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_collect(&g, &o, &h, &rep, &d);
    if (st != PSI_OK)
        fail_msg("collect: %s", d.msg);
    assert_int_equal(rep.committed, 100);
    assert_int_equal(rep.planned, 100);
    assert_false(rep.partial);
    assert_int_equal(h->n_sessions, 4);
    uint64_t committed = 0, aborted = 0;
    size_t n_writes = 0;
    uint64_t *writes = malloc(h->n_ops * sizeof *writes);
    assert_non_null(writes);
    for (uint32_t t = 0; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        if (t == PSI_INIT_TXN)
            continue;
        committed += tx->status == PSI_TXN_COMMITTED;
        aborted += tx->status == PSI_TXN_ABORTED;
        for (uint32_t k = 0; k < tx->n_ops; k++) {
            const psi_op *op = &h->ops[tx->first_op + k];
            if (op->kind == PSI_OP_WRITE)
                writes[n_writes++] = op->value;
        }
    }
    assert_int_equal(committed, 100);
    assert_int_equal(aborted, rep.aborted);
    /* every written value is unique (and never 0, the initial value) */
    qsort(writes, n_writes, sizeof *writes, cmp_u64);
    for (size_t i = 0; i < n_writes; i++) {
        assert_true(writes[i] != 0);
        if (i)
            assert_true(writes[i] != writes[i - 1]);
    }
    free(writes);
    assert_non_null(strstr(rep.header, "polysi-solve collect: SQLite 3."));
    assert_non_null(strstr(rep.header, "level serializable"));
    assert_non_null(strstr(rep.header, "; complete"));
    assert_non_null(h->dbcop.info);
    assert_string_equal(h->dbcop.info, rep.header);
    psi_history_free(h);
    remove_db(path);
}

static void sqlite_interrupted_before_start(void **state)
{
    (void)state;
    if (!psi_db_sqlite()->available)
        skip();
    char path[4096];
    temp_db(path, sizeof path);
    psi_gen_opts g;
    small_workload(&g);
    psi_collect_opts o;
    psi_collect_opts_default(&o);
    o.db = psi_db_sqlite();
    o.conninfo = path;
    o.level = PSI_DB_SERIALIZABLE;
    atomic_bool stop;
    atomic_init(&stop, true);
    o.interrupt = &stop;
    psi_history *h = NULL;
    psi_collect_report rep;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_collect(&g, &o, &h, &rep, &d), PSI_OK);
    assert_true(rep.partial);
    assert_int_equal(rep.committed, 0);
    assert_non_null(strstr(rep.header, "PARTIAL: interrupted after 0 of 100"));
    psi_history_free(h);
    remove_db(path);
}

static void sqlite_cannot_open(void **state)
{
    (void)state;
    if (!psi_db_sqlite()->available)
        skip();
    psi_gen_opts g;
    small_workload(&g);
    psi_collect_opts o;
    psi_collect_opts_default(&o);
    o.db = psi_db_sqlite();
    o.conninfo = "dbname=/nonexistent/dir/x.db";
    o.level = PSI_DB_SERIALIZABLE;
    psi_history *h = NULL;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_collect(&g, &o, &h, NULL, &d), PSI_ERR_IO);
    assert_null(h);
    assert_non_null(strstr(d.msg, "SQLite: cannot open /nonexistent/dir/x.db"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(conninfo_pairs),
        cmocka_unit_test(conninfo_errors),
        cmocka_unit_test(names),
        cmocka_unit_test(refused_options),
        cmocka_unit_test(sqlite_run),
        cmocka_unit_test(sqlite_interrupted_before_start),
        cmocka_unit_test(sqlite_cannot_open),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
