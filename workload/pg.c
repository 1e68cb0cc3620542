/* Collecting histories from PostgreSQL (see pg.h). Compiled with
 * PSI_HAVE_LIBPQ when CMake found libpq; otherwise only the stubs at the
 * end exist. */
#include "workload/pg.h"

#include "core/vec.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void psi_pg_opts_default(psi_pg_opts *o)
{
    memset(o, 0, sizeof *o);
    o->conninfo = "";
    o->level = PSI_PG_REPEATABLE_READ;
    o->table = "psi_kv";
    o->max_retries = 1000;
    o->keep_aborted = true;
}

static const char *const level_names[] = {"read-committed", "repeatable-read", "serializable"};

const char *psi_pg_level_name(psi_pg_level l)
{
    return (unsigned)l < 3 ? level_names[l] : "?";
}

bool psi_pg_level_parse(const char *s, psi_pg_level *out)
{
    for (unsigned i = 0; i < 3; i++)
        if (strcasecmp(s, level_names[i]) == 0) {
            *out = (psi_pg_level)i;
            return true;
        }
    return false;
}

static bool plain_identifier(const char *s)
{
    if (!s || !*s || strlen(s) > 63 || !((*s >= 'a' && *s <= 'z') || *s == '_'))
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_'))
            return false;
    return true;
}

static psi_status check_opts(const psi_gen_opts *g, const psi_pg_opts *o, psi_diag *d)
{
    if (!plain_identifier(o->table))
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "collect: table name must be a plain lower-case SQL identifier");
    if ((unsigned)o->level > PSI_PG_SERIALIZABLE)
        return psi_diag_set(d, PSI_ERR_USAGE, "collect: unknown isolation level");
    if (g->sessions == 0 || g->keys == 0)
        return psi_diag_set(d, PSI_ERR_USAGE, "collect: need at least one session and one key");
    if (g->sessions > 1000)
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "collect: at most 1000 sessions (one connection and thread each)");
    if (g->store == PSI_STORE_RANDOM || g->faults)
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "collect: the database is the store (no random store, no faults)");
    return PSI_OK;
}

#ifdef PSI_HAVE_LIBPQ

#include <libpq-fe.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

static const char *const level_sql[] = {"READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"};

typedef struct pg_op {
    uint64_t value;
    uint32_t key;
    uint8_t kind;
} pg_op;

typedef struct pg_txn {
    size_t first_op;
    uint32_t n_ops;
    uint8_t status;
} pg_txn;

typedef struct shared {
    const psi_gen_opts *g;
    const psi_pg_opts *o;
    pthread_barrier_t start;
    atomic_bool stop;
} shared;

typedef struct pg_sess {
    shared *sh;
    uint32_t index;
    PGconn *conn;
    psi_gen_plan *plan;
    psi_gen_rng rng;
    uint64_t counter; /* writes issued by this session */
    pg_op *ops;
    size_t n_ops, cap_ops;
    pg_txn *txns;
    size_t n_txns, cap_txns;
    uint64_t committed, aborted, serialization, deadlocks;
    psi_status st;
    psi_diag diag;
} pg_sess;

/* PQerrorMessage ends with a newline; keep messages one line. */
static psi_status pg_error(psi_diag *d, PGconn *c, const char *what)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", PQerrorMessage(c));
    size_t n = strlen(buf);
    while (n && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = 0;
    for (char *p = buf; *p; p++)
        if (*p == '\n')
            *p = ' ';
    return psi_diag_set(d, PSI_ERR_IO, "collect: %s: %s", what, buf);
}

/* Runs sql; true when it succeeded. *retry is set when it failed with a
 * serialization failure (40001) or a deadlock (40P01). */
static bool exec_ok(pg_sess *se, PGresult *r, bool *retry, const char *what)
{
    ExecStatusType es = PQresultStatus(r);
    if (es == PGRES_COMMAND_OK || es == PGRES_TUPLES_OK)
        return true;
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);
    if (state && (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)) {
        *retry = true;
        if (state[2] == '0')
            se->serialization++;
        else
            se->deadlocks++;
        return false;
    }
    se->st = pg_error(&se->diag, se->conn, what);
    return false;
}

static bool simple(pg_sess *se, const char *sql, bool *retry)
{
    PGresult *r = PQexec(se->conn, sql);
    bool ok = exec_ok(se, r, retry, sql);
    PQclear(r);
    return ok;
}

/* One attempt at the planned transaction. Returns 1 committed, 0 rolled back
 * on a retryable error (recorded as aborted), -1 on any other error. */
static int attempt(pg_sess *se, const psi_gen_step *steps, uint32_t n)
{
    const psi_gen_opts *g = se->sh->g;
    const psi_pg_opts *o = se->sh->o;
    char begin[64], kbuf[24], vbuf[24];
    snprintf(begin, sizeof begin, "BEGIN ISOLATION LEVEL %s", level_sql[o->level]);
    bool retry = false;
    size_t first = se->n_ops;
    if (!psi_grow((void **)&se->ops, &se->cap_ops, se->n_ops + n, sizeof *se->ops) ||
        !psi_grow((void **)&se->txns, &se->cap_txns, se->n_txns + 1, sizeof *se->txns)) {
        se->st = psi_diag_nomem(&se->diag, "collecting");
        return -1;
    }
    bool ok = simple(se, begin, &retry);
    for (uint32_t i = 0; ok && i < n; i++) {
        pg_op op = {.key = steps[i].key, .kind = steps[i].kind};
        snprintf(kbuf, sizeof kbuf, "%" PRIu32, op.key);
        const char *params[2] = {kbuf, vbuf};
        PGresult *r;
        if (op.kind == PSI_OP_READ) {
            r = PQexecPrepared(se->conn, "r", 1, params, NULL, NULL, 0);
            ok = exec_ok(se, r, &retry, "read");
            if (ok && PQntuples(r) == 1)
                op.value = strtoull(PQgetvalue(r, 0, 0), NULL, 10);
        } else {
            /* unique per key (in fact globally), never 0 */
            op.value = se->counter++ * g->sessions + se->index + 1;
            snprintf(vbuf, sizeof vbuf, "%" PRIu64, op.value);
            r = PQexecPrepared(se->conn, "w", 2, params, NULL, NULL, 0);
            ok = exec_ok(se, r, &retry, "write");
            if (ok && strcmp(PQcmdTuples(r), "1") != 0) {
                se->st = psi_diag_set(&se->diag, PSI_ERR_IO,
                                      "collect: row of key %" PRIu32 " missing from %s", op.key,
                                      o->table);
                ok = false;
            }
        }
        PQclear(r);
        if (ok)
            se->ops[se->n_ops++] = op;
    }
    if (ok)
        ok = simple(se, "COMMIT", &retry);
    if (!ok && !retry)
        return -1;
    if (!ok && PQtransactionStatus(se->conn) != PQTRANS_IDLE) {
        bool again = false; /* a failed COMMIT already ended the transaction */
        if (!simple(se, "ROLLBACK", &again))
            return -1;
    }
    uint8_t status = ok ? PSI_TXN_COMMITTED : PSI_TXN_ABORTED;
    if (ok)
        se->committed++;
    else
        se->aborted++;
    if (!ok && !o->keep_aborted)
        se->n_ops = first;
    else
        se->txns[se->n_txns++] =
            (pg_txn){.first_op = first, .n_ops = (uint32_t)(se->n_ops - first), .status = status};
    return ok;
}

static void *session_main(void *arg)
{
    pg_sess *se = arg;
    shared *sh = se->sh;
    psi_gen_step *steps = NULL;
    size_t cap = 0;
    pthread_barrier_wait(&sh->start);
    for (uint32_t t = 0; t < sh->g->txns_per_session && !atomic_load(&sh->stop); t++) {
        uint32_t n = psi_gen_plan_txn(se->plan, &se->rng, &steps, &cap);
        if (n == UINT32_MAX) {
            se->st = psi_diag_nomem(&se->diag, "planning a transaction");
            break;
        }
        int rc = 0;
        for (uint32_t a = 0; rc == 0 && !atomic_load(&sh->stop); a++) {
            if (a > sh->o->max_retries) {
                se->st = psi_diag_set(&se->diag, PSI_ERR_LIMIT,
                                      "collect: session %" PRIu32
                                      " gave up on a transaction after %" PRIu32 " retries",
                                      se->index, sh->o->max_retries);
                break;
            }
            rc = attempt(se, steps, n);
        }
        if (se->st != PSI_OK)
            break;
    }
    if (se->st != PSI_OK) {
        /* close now: an open transaction of ours may hold row locks the
         * other sessions wait for */
        PQfinish(se->conn);
        se->conn = NULL;
        atomic_store(&sh->stop, true);
    }
    free(steps);
    return NULL;
}

static void quiet(void *arg, const char *msg)
{
    (void)arg;
    (void)msg;
}

static psi_status connect_session(pg_sess *se, psi_diag *d)
{
    se->conn = PQconnectdb(se->sh->o->conninfo);
    if (PQstatus(se->conn) == CONNECTION_OK)
        PQsetNoticeProcessor(se->conn, quiet, NULL); /* the library never prints */
    return PQstatus(se->conn) == CONNECTION_OK ? PSI_OK : pg_error(d, se->conn, "cannot connect");
}

static psi_status prepare_session(pg_sess *se, psi_diag *d)
{
    const psi_pg_opts *o = se->sh->o;
    char sql[160];
    PGresult *r = PQexec(se->conn, "SET synchronous_commit TO off");
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    snprintf(sql, sizeof sql, "SELECT v FROM %s WHERE k = $1", o->table);
    r = ok ? PQprepare(se->conn, "r", sql, 1, NULL) : NULL;
    ok = ok && PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    snprintf(sql, sizeof sql, "UPDATE %s SET v = $2 WHERE k = $1", o->table);
    r = ok ? PQprepare(se->conn, "w", sql, 2, NULL) : NULL;
    ok = ok && PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    return ok ? PSI_OK : pg_error(d, se->conn, "preparing statements");
}

static psi_status reset_table(PGconn *c, const psi_pg_opts *o, uint32_t keys, psi_diag *d)
{
    char sql[512];
    snprintf(sql, sizeof sql,
             "SET client_min_messages TO warning; DROP TABLE IF EXISTS %s; "
             "CREATE TABLE %s (k bigint PRIMARY KEY, v bigint NOT NULL); "
             "INSERT INTO %s SELECT g, 0 FROM generate_series(0, %" PRIu32 ") g; "
             "ANALYZE %s",
             o->table, o->table, o->table, keys - 1, o->table);
    PGresult *r = PQexec(c, sql);
    bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    return ok ? PSI_OK : pg_error(d, c, "creating the table");
}

static psi_status build(pg_sess *ss, uint32_t n, psi_history **out, psi_pg_report *rep, psi_diag *d)
{
    psi_builder *b = psi_builder_new("<postgresql>", PSI_FMT_TEXT);
    if (!b)
        return psi_diag_nomem(d, "building the history");
    uint64_t id = 0;
    psi_status st = PSI_OK;
    for (uint32_t s = 0; st == PSI_OK && s < n; s++) {
        const pg_sess *se = &ss[s];
        for (size_t t = 0; st == PSI_OK && t < se->n_txns; t++) {
            const pg_txn *tx = &se->txns[t];
            st = psi_builder_begin(b, s, ++id, 0, d);
            for (uint32_t i = 0; st == PSI_OK && i < tx->n_ops; i++) {
                const pg_op *op = &se->ops[tx->first_op + i];
                unsigned flags = op->kind == PSI_OP_READ && op->value == 0 ? PSI_OPF_INIT : 0;
                st = psi_builder_op(b, (psi_op_kind)op->kind, op->key, op->value, flags, d);
                rep->reads += op->kind == PSI_OP_READ;
                rep->writes += op->kind == PSI_OP_WRITE;
                rep->ops++;
            }
            if (st == PSI_OK)
                st = psi_builder_end(b, (psi_txn_status)tx->status, d);
        }
    }
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}

bool psi_pg_available(void)
{
    return true;
}

psi_status psi_pg_collect(const psi_gen_opts *g, const psi_pg_opts *o, psi_history **out,
                          psi_pg_report *rep, psi_diag *d)
{
    *out = NULL;
    psi_pg_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    psi_status st = check_opts(g, o, d);
    if (st != PSI_OK)
        return st;
    uint32_t n = g->sessions;
    shared sh = {.g = g, .o = o};
    atomic_init(&sh.stop, false);
    pg_sess *ss = calloc(n, sizeof *ss);
    pthread_t *th = calloc(n, sizeof *th);
    uint32_t started = 0;
    bool barrier = false;
    if (!ss || !th) {
        st = psi_diag_nomem(d, "starting the sessions");
        goto done;
    }
    for (uint32_t s = 0; st == PSI_OK && s < n; s++) {
        ss[s].sh = &sh;
        ss[s].index = s;
        psi_gen_rng_seed(&ss[s].rng, g->seed * 0x9E3779B97F4A7C15ull + s + 1);
        ss[s].plan = psi_gen_plan_new(g);
        if (!ss[s].plan)
            st = psi_diag_nomem(d, "planning the workload");
        else
            st = connect_session(&ss[s], d);
        if (st == PSI_OK && s == 0)
            st = reset_table(ss[0].conn, o, g->keys, d);
    }
    for (uint32_t s = 0; st == PSI_OK && s < n; s++)
        st = prepare_session(&ss[s], d);
    if (st != PSI_OK)
        goto done;
    if (pthread_barrier_init(&sh.start, NULL, n + 1) != 0) {
        st = psi_diag_set(d, PSI_ERR_LIMIT, "collect: cannot create a barrier");
        goto done;
    }
    barrier = true;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, session_main, &ss[started]) != 0)
            break;
    if (started < n) {
        /* the barrier counts n + 1 parties: stand in for the missing ones */
        atomic_store(&sh.stop, true);
        for (uint32_t s = started; s < n + 1; s++)
            pthread_barrier_wait(&sh.start);
    } else {
        pthread_barrier_wait(&sh.start);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t s = 0; s < started; s++)
        pthread_join(th[s], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rep->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    if (started < n) {
        st = psi_diag_set(d, PSI_ERR_LIMIT, "collect: cannot start %" PRIu32 " threads", n);
        goto done;
    }
    for (uint32_t s = 0; s < n; s++) {
        rep->committed += ss[s].committed;
        rep->aborted += ss[s].aborted;
        rep->serialization += ss[s].serialization;
        rep->deadlocks += ss[s].deadlocks;
        if (st == PSI_OK && ss[s].st != PSI_OK) {
            *d = ss[s].diag;
            st = ss[s].st;
        }
    }
    if (st == PSI_OK)
        st = build(ss, n, out, rep, d);
done:
    if (barrier)
        pthread_barrier_destroy(&sh.start);
    for (uint32_t s = 0; ss && s < n; s++) {
        if (ss[s].conn)
            PQfinish(ss[s].conn);
        psi_gen_plan_free(ss[s].plan);
        free(ss[s].ops);
        free(ss[s].txns);
    }
    free(ss);
    free(th);
    return st;
}

#else /* no libpq */

bool psi_pg_available(void)
{
    return false;
}

psi_status psi_pg_collect(const psi_gen_opts *g, const psi_pg_opts *o, psi_history **out,
                          psi_pg_report *rep, psi_diag *d)
{
    *out = NULL;
    if (rep)
        memset(rep, 0, sizeof *rep);
    psi_status st = check_opts(g, o, d);
    if (st != PSI_OK)
        return st;
    return psi_diag_set(d, PSI_ERR_USAGE,
                        "collect: this polysi-solve was built without libpq; install libpq-dev "
                        "(Debian: apt-get install libpq-dev) and rebuild");
}

#endif
