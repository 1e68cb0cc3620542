/* The workload runner of `collect` (collect.h), written once for every
 * database: sessions in threads, each planned transaction run through the
 * driver (db.h), aborted attempts recorded and retried, the history built
 * from what the sessions recorded. */
#include "workload/collect.h"

#include "core/vec.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void psi_collect_opts_default(psi_collect_opts *o)
{
    memset(o, 0, sizeof *o);
    o->conninfo = "";
    o->level = PSI_DB_REPEATABLE_READ;
    o->table = "psi_kv";
    o->max_retries = 1000;
    o->keep_aborted = true;
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

/* "read-committed, repeatable-read or serializable" for a message. */
static void level_list(unsigned levels, char *buf, size_t n)
{
    size_t used = 0, total = 0, k = 0;
    buf[0] = '\0';
    for (unsigned l = 0; l < PSI_DB_LEVEL_COUNT; l++)
        total += (levels >> l) & 1u;
    for (unsigned l = 0; l < PSI_DB_LEVEL_COUNT && used < n; l++) {
        if (!((levels >> l) & 1u))
            continue;
        k++;
        const char *sep = k == 1 ? "" : k == total ? " or " : ", ";
        int w = snprintf(buf + used, n - used, "%s%s", sep, psi_db_level_name((psi_db_level)l));
        used += w > 0 ? (size_t)w : 0;
    }
}

static psi_status check_opts(const psi_gen_opts *g, const psi_collect_opts *o, psi_diag *d)
{
    if (!o->db)
        return psi_diag_set(d, PSI_ERR_USAGE, "collect: no database named");
    if (!o->db->available)
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "collect: this polysi-solve was built without the %s client library; "
                            "install %s (Debian: apt-get install %s) and rebuild",
                            o->db->title, o->db->package, o->db->package);
    if (!plain_identifier(o->table))
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "collect: table name must be a plain lower-case SQL identifier");
    if ((unsigned)o->level >= PSI_DB_LEVEL_COUNT)
        return psi_diag_set(d, PSI_ERR_USAGE, "collect: unknown isolation level");
    if (!(o->db->levels & PSI_DB_LEVEL_BIT(o->level))) {
        char list[128];
        level_list(o->db->levels, list, sizeof list);
        return psi_diag_set(d, PSI_ERR_USAGE, "collect: %s offers no %s level (it offers %s)",
                            o->db->title, psi_db_level_name(o->level), list);
    }
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

typedef struct rec_op {
    uint64_t value;
    uint32_t key;
    uint8_t kind;
} rec_op;

typedef struct rec_txn {
    size_t first_op;
    uint32_t n_ops;
    uint8_t status;
} rec_txn;

typedef struct shared {
    const psi_gen_opts *g;
    const psi_collect_opts *o;
    pthread_barrier_t start;
    atomic_bool stop; /* a session failed: the others stop too */
} shared;

typedef struct sess {
    shared *sh;
    uint32_t index;
    psi_db_conn *conn;
    psi_gen_plan *plan;
    psi_gen_rng rng;
    uint64_t counter; /* writes issued by this session */
    rec_op *ops;
    size_t n_ops, cap_ops;
    rec_txn *txns;
    size_t n_txns, cap_txns;
    uint64_t committed, aborted, serialization, deadlocks, busy;
    psi_status st;
    psi_diag diag;
} sess;

static bool interrupted(const shared *sh)
{
    return sh->o->interrupt && atomic_load(sh->o->interrupt);
}

/* Counts an abort by kind; false for PSI_DB_FAIL (not an abort). */
static bool count_abort(sess *se, psi_db_rc rc)
{
    switch (rc) {
    case PSI_DB_SERIALIZATION:
        se->serialization++;
        return true;
    case PSI_DB_DEADLOCK:
        se->deadlocks++;
        return true;
    case PSI_DB_BUSY:
        se->busy++;
        return true;
    default:
        return false;
    }
}

/* One attempt at the planned transaction. Returns 1 committed, 0 aborted
 * by the database (recorded as aborted), -1 on any other error. */
static int attempt(sess *se, const psi_gen_step *steps, uint32_t n)
{
    const psi_gen_opts *g = se->sh->g;
    const psi_collect_opts *o = se->sh->o;
    const psi_db_driver *db = o->db;
    size_t first = se->n_ops;
    if (!psi_grow((void **)&se->ops, &se->cap_ops, se->n_ops + n, sizeof *se->ops) ||
        !psi_grow((void **)&se->txns, &se->cap_txns, se->n_txns + 1, sizeof *se->txns)) {
        se->st = psi_diag_nomem(&se->diag, "collecting");
        return -1;
    }
    bool writes = false;
    for (uint32_t i = 0; i < n; i++)
        writes |= steps[i].kind == PSI_OP_WRITE;
    psi_db_rc rc = db->begin(se->conn, o->level, writes, &se->diag);
    for (uint32_t i = 0; rc == PSI_DB_OK && i < n; i++) {
        rec_op op = {.key = steps[i].key, .kind = steps[i].kind};
        if (op.kind == PSI_OP_READ) {
            rc = db->read(se->conn, op.key, &op.value, &se->diag);
        } else {
            /* unique per key (in fact globally), never 0 */
            op.value = se->counter++ * g->sessions + se->index + 1;
            rc = db->write(se->conn, op.key, op.value, &se->diag);
        }
        if (rc == PSI_DB_OK)
            se->ops[se->n_ops++] = op;
    }
    if (rc == PSI_DB_OK)
        rc = db->commit(se->conn, &se->diag);
    if (rc != PSI_DB_OK) {
        bool aborted = count_abort(se, rc);
        psi_diag scratch;
        /* After a failure the connection may be unusable: the first
         * error is the one to report. */
        if (db->rollback(se->conn, aborted ? &se->diag : &scratch) != PSI_DB_OK || !aborted) {
            se->st = PSI_ERR_IO;
            return -1;
        }
    }
    bool ok = rc == PSI_DB_OK;
    if (ok)
        se->committed++;
    else
        se->aborted++;
    if (!ok && !o->keep_aborted)
        se->n_ops = first;
    else
        se->txns[se->n_txns++] = (rec_txn){.first_op = first,
                                           .n_ops = (uint32_t)(se->n_ops - first),
                                           .status = ok ? PSI_TXN_COMMITTED : PSI_TXN_ABORTED};
    return ok;
}

static void *session_main(void *arg)
{
    sess *se = arg;
    shared *sh = se->sh;
    psi_gen_step *steps = NULL;
    size_t cap = 0;
    pthread_barrier_wait(&sh->start);
    for (uint32_t t = 0; t < sh->g->txns_per_session; t++) {
        if (atomic_load(&sh->stop) || interrupted(sh))
            break;
        uint32_t n = psi_gen_plan_txn(se->plan, &se->rng, &steps, &cap);
        if (n == UINT32_MAX) {
            se->st = psi_diag_nomem(&se->diag, "planning a transaction");
            break;
        }
        int rc = 0;
        for (uint32_t a = 0; rc == 0; a++) {
            if (atomic_load(&sh->stop) || (a > 0 && interrupted(sh)))
                break;
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
        /* close now: an open transaction of ours may hold locks the other
         * sessions wait for */
        sh->o->db->close(se->conn);
        se->conn = NULL;
        atomic_store(&sh->stop, true);
    }
    free(steps);
    return NULL;
}

/* "2024-05-01 12:00:00 UTC" */
static void utc_now(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M:%S UTC", &tm))
        snprintf(buf, n, "?");
}

static void describe(const psi_gen_opts *g, const psi_collect_opts *o, psi_collect_report *rep)
{
    int k = snprintf(rep->header, sizeof rep->header,
                     "polysi-solve collect: %s, level %s; %" PRIu32 " sessions x %" PRIu32
                     " txns x %" PRIu32 " ops, %" PRIu32 " keys %s, mix %s, seed %" PRIu64 "; ",
                     rep->version, psi_db_level_name(o->level), g->sessions, g->txns_per_session,
                     g->ops_per_txn, g->keys, psi_gen_dist_name(g->dist), psi_gen_mix_name(g->mix),
                     g->seed);
    size_t used = k > 0 && (size_t)k < sizeof rep->header ? (size_t)k : sizeof rep->header - 1;
    if (rep->partial)
        snprintf(rep->header + used, sizeof rep->header - used,
                 "PARTIAL: interrupted after %" PRIu64 " of %" PRIu64
                 " planned transactions committed",
                 rep->committed, rep->planned);
    else
        snprintf(rep->header + used, sizeof rep->header - used, "complete");
}

static psi_status build(sess *ss, uint32_t n, const psi_gen_opts *g, psi_collect_report *rep,
                        const char *start, psi_history **out, psi_diag *d)
{
    char where[64];
    snprintf(where, sizeof where, "<%s>", ss[0].sh->o->db->name);
    psi_builder *b = psi_builder_new(where, PSI_FMT_DBCOP);
    if (!b)
        return psi_diag_nomem(d, "building the history");
    uint64_t id = 0;
    psi_status st = PSI_OK;
    for (uint32_t s = 0; st == PSI_OK && s < n; s++) {
        const sess *se = &ss[s];
        for (size_t t = 0; st == PSI_OK && t < se->n_txns; t++) {
            const rec_txn *tx = &se->txns[t];
            st = psi_builder_begin(b, s, ++id, 0, d);
            for (uint32_t i = 0; st == PSI_OK && i < tx->n_ops; i++) {
                const rec_op *op = &se->ops[tx->first_op + i];
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
    /* dbcop's header: the generator's parameters, the description, the
     * start and end times (the builder takes the strings). */
    char end[40];
    utc_now(end, sizeof end);
    psi_dbcop_meta m = {.n_sessions = g->sessions,
                        .n_vars = g->keys,
                        .n_txns = g->txns_per_session,
                        .n_evts = g->ops_per_txn,
                        .info = strdup(rep->header),
                        .start = strdup(start),
                        .end = strdup(end)};
    if (st == PSI_OK && (!m.info || !m.start || !m.end))
        st = psi_diag_nomem(d, "building the history");
    if (st != PSI_OK) {
        free(m.info);
        free(m.start);
        free(m.end);
        psi_builder_free(b);
        return st;
    }
    psi_builder_set_dbcop_meta(b, &m);
    return psi_builder_finish(b, out, d);
}

/* Connects every session, resets the table (through the first) and
 * readies each connection. */
static psi_status setup(sess *ss, uint32_t n, const psi_gen_opts *g, psi_collect_report *rep,
                        psi_diag *d)
{
    const psi_collect_opts *o = ss[0].sh->o;
    for (uint32_t s = 0; s < n; s++) {
        ss[s].plan = psi_gen_plan_new(g);
        if (!ss[s].plan)
            return psi_diag_nomem(d, "planning the workload");
        psi_gen_rng_seed(&ss[s].rng, g->seed * 0x9E3779B97F4A7C15ull + s + 1);
        psi_status st = o->db->connect(o->conninfo, &ss[s].conn, d);
        if (st != PSI_OK)
            return st;
        if (s == 0 &&
            ((st = o->db->version(ss[0].conn, rep->version, sizeof rep->version, d)) != PSI_OK ||
             (st = o->db->reset(ss[0].conn, o->table, g->keys, d)) != PSI_OK))
            return st;
    }
    for (uint32_t s = 0; s < n; s++) {
        psi_status st = o->db->prepare(ss[s].conn, o->table, o->level, d);
        if (st != PSI_OK)
            return st;
    }
    return PSI_OK;
}

/* Starts the session threads behind the barrier and waits for them all. */
static psi_status run_sessions(shared *sh, sess *ss, uint32_t n, psi_collect_report *rep,
                               psi_diag *d)
{
    pthread_t *th = calloc(n, sizeof *th);
    if (!th)
        return psi_diag_nomem(d, "starting the sessions");
    if (pthread_barrier_init(&sh->start, NULL, n + 1) != 0) {
        free(th);
        return psi_diag_set(d, PSI_ERR_LIMIT, "collect: cannot create a barrier");
    }
    uint32_t started = 0;
    for (; started < n; started++)
        if (pthread_create(&th[started], NULL, session_main, &ss[started]) != 0)
            break;
    if (started < n) {
        /* the barrier counts n + 1 parties: stand in for the missing ones */
        atomic_store(&sh->stop, true);
        for (uint32_t s = started; s < n + 1; s++)
            pthread_barrier_wait(&sh->start);
    } else {
        pthread_barrier_wait(&sh->start);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint32_t s = 0; s < started; s++)
        pthread_join(th[s], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    rep->seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    pthread_barrier_destroy(&sh->start);
    free(th);
    if (started < n)
        return psi_diag_set(d, PSI_ERR_LIMIT, "collect: cannot start %" PRIu32 " threads", n);
    return PSI_OK;
}

psi_status psi_collect(const psi_gen_opts *g, const psi_collect_opts *o, psi_history **out,
                       psi_collect_report *rep, psi_diag *d)
{
    *out = NULL;
    psi_collect_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    psi_status st = check_opts(g, o, d);
    if (st != PSI_OK)
        return st;
    uint32_t n = g->sessions;
    rep->planned = (uint64_t)n * g->txns_per_session;
    shared sh = {.g = g, .o = o};
    atomic_init(&sh.stop, false);
    sess *ss = calloc(n, sizeof *ss);
    if (!ss)
        return psi_diag_nomem(d, "starting the sessions");
    for (uint32_t s = 0; s < n; s++) {
        ss[s].sh = &sh;
        ss[s].index = s;
    }
    char start[40];
    utc_now(start, sizeof start);
    st = setup(ss, n, g, rep, d);
    if (st == PSI_OK)
        st = run_sessions(&sh, ss, n, rep, d);
    for (uint32_t s = 0; st == PSI_OK && s < n; s++)
        if (ss[s].st != PSI_OK) {
            *d = ss[s].diag;
            st = ss[s].st;
        }
    for (uint32_t s = 0; s < n; s++) {
        rep->committed += ss[s].committed;
        rep->aborted += ss[s].aborted;
        rep->serialization += ss[s].serialization;
        rep->deadlocks += ss[s].deadlocks;
        rep->busy += ss[s].busy;
    }
    if (st == PSI_OK) {
        rep->partial = rep->committed < rep->planned;
        describe(g, o, rep);
        st = build(ss, n, g, rep, start, out, d);
    }
    for (uint32_t s = 0; s < n; s++) {
        if (ss[s].conn)
            o->db->close(ss[s].conn);
        psi_gen_plan_free(ss[s].plan);
        free(ss[s].ops);
        free(ss[s].txns);
    }
    free(ss);
    return st;
}
