/* The simulated multi-version store behind the generator (see gen.h).
 *
 * Sessions run their transactions one after another; a deterministic
 * scheduler (driven by the seed) picks, at every step, one session and
 * advances it by one action: begin, one operation, or commit. So up to one
 * transaction per session is in flight and operations interleave freely.
 *
 * Every key has a list of committed versions in commit order (commit
 * timestamps strictly increase). SI: a transaction takes its snapshot at
 * begin (the current commit timestamp), reads the latest version no newer
 * than the snapshot unless it wrote or read the key before (then it sees its
 * own past), buffers its writes, and at commit aborts if any key it writes
 * has a version newer than its snapshot (first-committer-wins). SER adds
 * backward validation of the read set: it also aborts if any key it read
 * from the snapshot has a newer version. Then every read of a committed
 * transaction returns what the store holds at its commit point too, and its
 * writes are installed there, so commit order is a serial order: the history
 * is serializable (this is classic OCC validation over snapshot reads).
 *
 * Faults (each drawn per transaction with probability fault_prob) break the
 * store on purpose; the report says which ones changed a committed
 * transaction ("applied") and which did so in a way that forces an SI
 * violation in every version order ("violations"). The proofs rest on one
 * fact: if a transaction reads version V of x and also writes x, its own
 * version follows V in every acyclic version order (otherwise WW and WR
 * would form a cycle); following such read-modify-write links, and with the
 * initial version first, some versions are "forced" before others.
 *  - lost-update: commit despite a conflict. Provable when T read x at V and
 *    some committed U also read x at V and wrote x: T and U each get an RW
 *    edge to the other, next to a WW edge, whatever their order.
 *  - stale-read: an external read returns a random older version. Provable
 *    when that version is forced before a version the same session wrote
 *    earlier (SO then RW back).
 *  - session-skip: an external read of a key the session wrote before
 *    returns a version forced before the session's last write (always
 *    provable, as above).
 *  - long-fork: the snapshot has a hole: it skips one recent commit but sees
 *    later ones. Provable when T3 reads x at W1's version and y before W2's
 *    (forced), while T4 reads y at W2's version and x before W1's (forced):
 *    W1 -WR-> T3 -RW-> W2 -WR-> T4 -RW-> W1 has no two adjacent RW edges.
 *    Checked after the run for every committed transaction with a hole. */
#include "workload/gen.h"

#include "core/vec.h"

#include <stdlib.h>
#include <string.h>

enum {
    VER_INIT = -1,         /* the initial version, before every other */
    VER_NONE = -2,         /* no version: blind write, or an internal read */
    WALK_LIMIT = 64,       /* steps when following read-modify-write links */
    SCAN_LIMIT = 256,      /* versions/readers looked at by fault bookkeeping */
    RETRY_LIMIT = 1000,    /* attempts of one transaction before giving up */
    FORK_BUDGET = 1 << 14, /* edges the long-fork search may follow per txn */
};
#define NO_LINK UINT32_MAX

typedef struct version {
    uint64_t value;
    uint32_t cts;     /* commit timestamp, from 1 */
    uint32_t writer;  /* index into store.fins */
    int32_t prev;     /* version of this key its writer read first, or VER_NONE */
    uint32_t readers; /* first committed external read of it (store.xreads) */
} version;

typedef struct keyvers {
    version *v;
    size_t n, cap;
} keyvers;

/* A committed transaction. */
typedef struct fin {
    uint32_t session;
    uint32_t rfirst, rcount; /* its external reads in store.xreads */
    uint32_t wfirst, wcount; /* versions it installed, in store.wvers */
    uint32_t so_next;        /* next committed txn of its session, or NO_LINK */
} fin;

typedef struct wver {
    uint32_t key;
    int32_t ver;
} wver;

/* An external read of a committed transaction (kept for long-fork checks). */
typedef struct xread {
    uint32_t txn, key;
    int32_t ver;
    uint32_t next; /* next reader of the same version */
} xread;

/* An executed operation of an in-flight transaction. */
typedef struct rec {
    uint64_t value;
    uint32_t key;
    int32_t ver; /* external reads: the version read; else VER_NONE */
    uint8_t kind;
    uint8_t flags;
} rec;

/* Open-addressing map key -> last op index, for reads of own writes. */
typedef struct slot {
    uint32_t key, op, stamp;
} slot;

typedef struct sess {
    uint32_t done;     /* finished transactions (committed ones when retrying) */
    uint32_t attempts; /* aborted attempts of the current one */
    bool open;
    uint32_t snap, hole; /* hole: commit timestamp reads skip (0: none) */
    uint64_t invoked;    /* the clock's tick at the transaction's begin (opts realtime) */
    psi_gen_step *steps;
    size_t cap_steps;
    uint32_t n_steps, cur;
    rec *ops;
    size_t cap_ops;
    uint32_t n_ops;
    slot *tab;
    size_t tab_cap;
    uint32_t stamp;
    unsigned drawn;    /* faults drawn for this transaction */
    unsigned applied;  /* faults that changed something */
    unsigned violated; /* faults that provably broke SI */
} sess;

typedef struct store {
    const psi_gen_opts *o;
    psi_gen_plan *plan;
    psi_gen_rng *r;
    psi_builder *b;
    psi_gen_report *rep;
    psi_diag *d;

    keyvers *kv;
    uint64_t *next_val;
    uint32_t now;     /* last commit timestamp */
    uint64_t tick;    /* the clock of begins and completions (opts realtime) */
    uint64_t last_id; /* last transaction id handed out */
    fin *fins;
    size_t n_fins, cap_fins;
    xread *xreads;
    size_t n_xreads, cap_xreads;
    wver *wvers;
    size_t n_wvers, cap_wvers;
    uint32_t *last_fin;      /* per session: its latest committed txn, or NO_LINK */
    uint32_t *visit, *queue; /* post-run search scratch, per committed txn */
    uint32_t visit_stamp;
    int64_t budget;  /* search steps left for the current transaction */
    uint32_t *holes; /* committed transactions whose hole changed a read */
    size_t n_holes, cap_holes;
    bool track_reads;       /* long-fork bookkeeping on */
    bool unknown_committed; /* a committed txn was recorded as UNKNOWN */

    /* commit-time scratch, indexed by key */
    uint32_t *kstamp, *klast;
    int32_t *kfirst_read;
    uint32_t commit_stamp;
    sess *sessions;
} store;

/* ---- versions ---- */

/* Latest version of key k visible at snapshot snap with hole skipped. */
static int32_t visible(const store *st, uint32_t k, uint32_t snap, uint32_t hole, bool *skipped)
{
    const keyvers *kv = &st->kv[k];
    /* Snapshots are recent: gallop back from the newest version, then
     * binary-search the last stride. */
    size_t lo = 0, hi = kv->n, step = 1;
    for (;;) {
        if (hi == 0 || kv->v[hi - 1].cts <= snap) {
            lo = hi; /* everything below hi is visible */
            break;
        }
        size_t next = hi > step ? hi - step : 0;
        if (kv->v[next].cts <= snap) {
            lo = next;
            break;
        }
        hi = next;
        step *= 2;
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kv->v[mid].cts <= snap)
            lo = mid + 1;
        else
            hi = mid;
    }
    int32_t i = (int32_t)lo - 1;
    if (i >= 0 && hole && kv->v[i].cts == hole) {
        i--;
        *skipped = true;
    }
    return i;
}

/* Is version a of key k before version j in every acyclic version order? */
static bool forced_before(const store *st, uint32_t k, int32_t a, int32_t j)
{
    if (a == VER_INIT)
        return j >= 0;
    const version *v = st->kv[k].v;
    for (int steps = 0; j >= 0 && steps < WALK_LIMIT; steps++) {
        j = v[j].prev;
        if (j == a)
            return true;
    }
    return false;
}

/* The newest version of key k written by session s, or VER_NONE. */
static int32_t session_last_write(const store *st, uint32_t k, uint32_t s)
{
    const keyvers *kv = &st->kv[k];
    for (size_t i = kv->n, seen = 0; i-- > 0 && seen < SCAN_LIMIT; seen++)
        if (st->fins[kv->v[i].writer].session == s)
            return (int32_t)i;
    return VER_NONE;
}

/* ---- in-flight transactions ---- */

static bool tab_reset(sess *se, uint32_t n)
{
    size_t want = 16;
    while (want < 2 * (size_t)n)
        want *= 2;
    if (want > se->tab_cap) {
        slot *t = calloc(want, sizeof *t);
        if (!t)
            return false;
        free(se->tab);
        se->tab = t;
        se->tab_cap = want;
        se->stamp = 0;
    }
    se->stamp++;
    return true;
}

static slot *tab_find(sess *se, uint32_t key)
{
    size_t mask = se->tab_cap - 1, i = (key * 0x9e3779b9u) & mask;
    while (se->tab[i].stamp == se->stamp && se->tab[i].key != key)
        i = (i + 1) & mask;
    return &se->tab[i];
}

static psi_status begin_txn(store *st, sess *se)
{
    uint32_t n = psi_gen_plan_txn(st->plan, st->r, &se->steps, &se->cap_steps);
    if (n == UINT32_MAX || !tab_reset(se, n) ||
        !psi_grow((void **)&se->ops, &se->cap_ops, n ? n : 1, sizeof *se->ops))
        return psi_diag_nomem(st->d, "running the store");
    se->n_steps = n;
    se->cur = 0;
    se->n_ops = 0;
    se->open = true;
    se->snap = st->now;
    se->invoked = ++st->tick;
    se->hole = 0;
    se->drawn = se->applied = se->violated = 0;
    for (int f = 0; f < PSI_FAULT_COUNT; f++)
        if ((st->o->faults & PSI_FAULT_BIT(f)) && psi_gen_rng_chance(st->r, st->o->fault_prob))
            se->drawn |= PSI_FAULT_BIT(f);
    if ((se->drawn & PSI_FAULT_BIT(PSI_FAULT_LONG_FORK)) && st->now >= 2) {
        /* skip one of the last few commits (most often the one before the
         * last), but never the very last: a later commit must stay visible */
        uint32_t span = st->now - 1 < 4 ? st->now - 1 : 4;
        uint32_t back =
            psi_gen_rng_chance(st->r, 0.5) ? 0 : (uint32_t)psi_gen_rng_below(st->r, span);
        se->hole = st->now - 1 - back;
    }
    return PSI_OK;
}

/* Chooses the version an external read of key k returns. */
static int32_t choose_read(store *st, sess *se, uint32_t s, uint32_t k)
{
    bool skipped = false;
    int32_t i = visible(st, k, se->snap, se->hole, &skipped);
    if (skipped)
        se->applied |= PSI_FAULT_BIT(PSI_FAULT_LONG_FORK);

    if (se->drawn & PSI_FAULT_BIT(PSI_FAULT_SESSION_SKIP)) {
        int32_t j = session_last_write(st, k, s);
        if (j >= 0) {
            /* candidates: the read-modify-write chain below j, then init */
            int32_t cand[17];
            int nc = 0;
            for (int32_t c = st->kv[k].v[j].prev; c >= 0 && nc < 16; c = st->kv[k].v[c].prev)
                cand[nc++] = c;
            cand[nc++] = VER_INIT;
            se->applied |= PSI_FAULT_BIT(PSI_FAULT_SESSION_SKIP);
            se->violated |= PSI_FAULT_BIT(PSI_FAULT_SESSION_SKIP);
            return cand[psi_gen_rng_below(st->r, (uint64_t)nc)];
        }
    }
    if ((se->drawn & PSI_FAULT_BIT(PSI_FAULT_STALE_READ)) && i >= 0 &&
        psi_gen_rng_chance(st->r, 0.5)) {
        int32_t old = (int32_t)psi_gen_rng_below(st->r, (uint64_t)i + 1) - 1;
        se->applied |= PSI_FAULT_BIT(PSI_FAULT_STALE_READ);
        int32_t j = session_last_write(st, k, s);
        if (j >= 0 && forced_before(st, k, old, j))
            se->violated |= PSI_FAULT_BIT(PSI_FAULT_STALE_READ);
        return old;
    }
    return i;
}

static psi_status step_op(store *st, sess *se, uint32_t s)
{
    psi_gen_step stp = se->steps[se->cur++];
    uint32_t k = stp.key;
    rec *op = &se->ops[se->n_ops];
    *op = (rec){.key = k, .kind = stp.kind, .ver = VER_NONE};
    slot *sl = tab_find(se, k);
    bool touched = sl->stamp == se->stamp;
    /* Read committed: a key the transaction has only read so far (its last
     * op on it read a version) is read afresh, per read, so two reads of a
     * key may see two committed versions (a non-repeatable read); after an
     * own write a read sees that write at every level. */
    if (touched && st->o->store == PSI_STORE_RC && stp.kind == PSI_OP_READ &&
        se->ops[sl->op].kind == PSI_OP_READ && se->ops[sl->op].ver != VER_NONE)
        touched = false;
    if (stp.kind == PSI_OP_WRITE) {
        op->value = ++st->next_val[k];
    } else if (touched) {
        op->value = se->ops[sl->op].value; /* own past: last write or read */
        op->flags = se->ops[sl->op].flags & PSI_OPF_INIT;
    } else {
        /* read committed: the snapshot is taken per read, not per transaction */
        if (st->o->store == PSI_STORE_RC)
            se->snap = st->now;
        op->ver = choose_read(st, se, s, k);
        op->value = op->ver >= 0 ? st->kv[k].v[op->ver].value : 0;
        op->flags = op->ver >= 0 ? 0 : PSI_OPF_INIT;
    }
    *sl = (slot){.key = k, .op = se->n_ops, .stamp = se->stamp};
    se->n_ops++;
    return PSI_OK;
}

/* Does some committed transaction also read key k at version v and write k? */
static bool shared_read_overwritten(const store *st, uint32_t k, int32_t v)
{
    const keyvers *kv = &st->kv[k];
    size_t from = v < 0 ? 0 : (size_t)v + 1;
    for (size_t j = from, seen = 0; j < kv->n && seen < SCAN_LIMIT; j++, seen++)
        if (kv->v[j].prev == v)
            return true;
    return false;
}

static bool newer_than(const store *st, uint32_t k, uint32_t snap)
{
    const keyvers *kv = &st->kv[k];
    return kv->n && kv->v[kv->n - 1].cts > snap;
}

static psi_status record(store *st, sess *se, uint32_t s, psi_txn_status status)
{
    const psi_gen_opts *o = st->o;
    psi_gen_report *rep = st->rep;
    rep->attempts++;
    if (status == PSI_TXN_ABORTED)
        rep->attempts_aborted++;
    else
        rep->attempts_committed++;
    if (status == PSI_TXN_ABORTED && !o->keep_aborted) {
        rep->not_recorded++;
        return PSI_OK;
    }
    if (psi_gen_rng_chance(st->r, o->unknown_ratio)) {
        st->unknown_committed |= status == PSI_TXN_COMMITTED;
        status = PSI_TXN_UNKNOWN;
    }
    rep->committed += status == PSI_TXN_COMMITTED;
    rep->aborted += status == PSI_TXN_ABORTED;
    rep->unknown += status == PSI_TXN_UNKNOWN;
    uint64_t id = ++st->last_id;
    if (status == PSI_TXN_COMMITTED && o->on_timestamps &&
        (o->store == PSI_STORE_SI || o->store == PSI_STORE_SER))
        /* Commit timestamps 2, 4, 6, ... (st->now was just advanced for
         * this commit); a snapshot at commit count N starts at 2N + 1, so
         * it sees exactly the commits up to N. */
        o->on_timestamps(o->timestamps_ctx, s, id, 2 * (int64_t)se->snap + 1, 2 * (int64_t)st->now);
    psi_status rc = psi_builder_begin(st->b, s, id, 0, st->d);
    /* Completed now: after every begin and completion so far. Recorded as
     * of unknown outcome, the client never saw it complete: its
     * completion is open (Jepsen's :info, which the readers and writers
     * take as open), so the history says what its EDN or JSON file says. */
    if (rc == PSI_OK && o->realtime)
        rc = psi_builder_set_rt(st->b, se->invoked,
                                status == PSI_TXN_UNKNOWN ? PSI_RT_OPEN : ++st->tick, st->d);
    for (uint32_t i = 0; rc == PSI_OK && i < se->n_ops; i++) {
        const rec *op = &se->ops[i];
        rc = psi_builder_op(st->b, (psi_op_kind)op->kind, op->key,
                            psi_gen_value(st->plan, op->key, op->value), op->flags, st->d);
        rep->reads += op->kind == PSI_OP_READ;
        rep->writes += op->kind == PSI_OP_WRITE;
    }
    rep->ops += se->n_ops;
    rep->txns++;
    return rc == PSI_OK ? psi_builder_end(st->b, status, st->d) : rc;
}

static psi_status commit_txn(store *st, sess *se, uint32_t s)
{
    const psi_gen_opts *o = st->o;
    /* The client rolls back (abort_ratio): nothing is installed. */
    if (psi_gen_rng_chance(st->r, o->abort_ratio))
        return record(st, se, s, PSI_TXN_ABORTED);
    /* per key: first op a read? (its version) and last write */
    uint32_t cs = ++st->commit_stamp;
    bool conflict = false;
    for (uint32_t i = 0; i < se->n_ops; i++) {
        const rec *op = &se->ops[i];
        uint32_t k = op->key;
        if (st->kstamp[k] != cs) {
            st->kstamp[k] = cs;
            st->kfirst_read[k] = op->kind == PSI_OP_READ ? op->ver : VER_NONE;
            st->klast[k] = NO_LINK;
            bool read_checked = op->kind == PSI_OP_READ && o->store == PSI_STORE_SER;
            if (read_checked && newer_than(st, k, se->snap))
                conflict = true;
        }
        if (op->kind == PSI_OP_WRITE) {
            st->klast[k] = i;
            if (newer_than(st, k, se->snap))
                conflict = true;
        }
    }
    if (o->store == PSI_STORE_RC)
        conflict = false; /* read committed checks no conflicts: lost updates are allowed */
    if (conflict && !(se->drawn & PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE)))
        return record(st, se, s, PSI_TXN_ABORTED);
    if (conflict) {
        se->applied |= PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE);
        for (uint32_t i = 0; i < se->n_ops; i++) {
            uint32_t k = se->ops[i].key;
            if (st->klast[k] == i && st->kfirst_read[k] != VER_NONE &&
                shared_read_overwritten(st, k, st->kfirst_read[k]))
                se->violated |= PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE);
        }
    }

    /* commit: install the last write of every written key */
    if (st->now == UINT32_MAX)
        return psi_diag_set(st->d, PSI_ERR_LIMIT, "generate: too many commits");
    uint32_t cts = ++st->now;
    if (!psi_grow((void **)&st->fins, &st->cap_fins, st->n_fins + 1, sizeof *st->fins))
        return psi_diag_nomem(st->d, "running the store");
    uint32_t f = (uint32_t)st->n_fins++;
    st->fins[f] = (fin){.session = s,
                        .rfirst = (uint32_t)st->n_xreads,
                        .wfirst = (uint32_t)st->n_wvers,
                        .so_next = NO_LINK};
    if (st->track_reads) {
        if (st->last_fin[s] != NO_LINK)
            st->fins[st->last_fin[s]].so_next = f;
        st->last_fin[s] = f;
    }
    for (uint32_t i = 0; i < se->n_ops; i++) {
        const rec *op = &se->ops[i];
        uint32_t k = op->key;
        if (op->kind == PSI_OP_WRITE && st->klast[k] == i) {
            keyvers *kv = &st->kv[k];
            if (!psi_grow((void **)&kv->v, &kv->cap, kv->n + 1, sizeof *kv->v))
                return psi_diag_nomem(st->d, "running the store");
            kv->v[kv->n++] = (version){.value = op->value,
                                       .cts = cts,
                                       .writer = f,
                                       .prev = st->kfirst_read[k],
                                       .readers = NO_LINK};
            if (st->track_reads) {
                if (!psi_grow((void **)&st->wvers, &st->cap_wvers, st->n_wvers + 1,
                              sizeof *st->wvers))
                    return psi_diag_nomem(st->d, "running the store");
                st->wvers[st->n_wvers++] = (wver){.key = k, .ver = (int32_t)kv->n - 1};
                st->fins[f].wcount++;
            }
        }
        if (st->track_reads && op->kind == PSI_OP_READ && op->ver != VER_NONE) {
            if (!psi_grow((void **)&st->xreads, &st->cap_xreads, st->n_xreads + 1,
                          sizeof *st->xreads))
                return psi_diag_nomem(st->d, "running the store");
            xread *x = &st->xreads[st->n_xreads];
            *x = (xread){.txn = f, .key = k, .ver = op->ver, .next = NO_LINK};
            if (op->ver >= 0) {
                x->next = st->kv[k].v[op->ver].readers;
                st->kv[k].v[op->ver].readers = (uint32_t)st->n_xreads;
            }
            st->n_xreads++;
            st->fins[f].rcount++;
        }
    }
    if (se->applied & PSI_FAULT_BIT(PSI_FAULT_LONG_FORK)) {
        if (!psi_grow((void **)&st->holes, &st->cap_holes, st->n_holes + 1, sizeof *st->holes))
            return psi_diag_nomem(st->d, "running the store");
        st->holes[st->n_holes++] = f;
    }
    for (int fl = 0; fl < PSI_FAULT_COUNT; fl++) {
        st->rep->applied[fl] += (se->applied >> fl) & 1u;
        st->rep->violations[fl] += (se->violated >> fl) & 1u;
    }
    return record(st, se, s, PSI_TXN_COMMITTED);
}

/* ---- long forks, after the run ---- */

static const xread *find_xread(const store *st, uint32_t txn, uint32_t key)
{
    const fin *fn = &st->fins[txn];
    for (uint32_t i = 0; i < fn->rcount; i++)
        if (st->xreads[fn->rfirst + i].key == key)
            return &st->xreads[fn->rfirst + i];
    return NULL;
}

/* Is there a path of SO and WR edges from committed txn a to b? Such a path
 * puts a's versions before b's in every acceptable version order (the other
 * way round WW would close a cycle). Edges only go forward in commit order,
 * and the search gives up (answering no) after SCAN_LIMIT * 16 nodes or
 * when the transaction's budget of edges is spent. */
static bool reaches(store *st, uint32_t a, uint32_t b)
{
    if (a == b)
        return true;
    if (a > b)
        return false;
    uint32_t stamp = ++st->visit_stamp, head = 0, tail = 0;
    st->queue[tail++] = a;
    st->visit[a] = stamp;
    while (head < tail && tail < SCAN_LIMIT * 16 && st->budget > 0) {
        st->budget--;
        const fin *fn = &st->fins[st->queue[head++]];
        uint32_t c = fn->so_next;
        if (c == b)
            return true;
        if (c != NO_LINK && c < b && st->visit[c] != stamp) {
            st->visit[c] = stamp;
            st->queue[tail++] = c;
        }
        for (uint32_t w = 0; w < fn->wcount && tail < SCAN_LIMIT * 16; w++) {
            const wver *wv = &st->wvers[fn->wfirst + w];
            for (uint32_t q = st->kv[wv->key].v[wv->ver].readers; q != NO_LINK && st->budget > 0;
                 q = st->xreads[q].next) {
                st->budget--;
                uint32_t r = st->xreads[q].txn;
                if (r == b)
                    return true;
                if (r < b && st->visit[r] != stamp && tail < SCAN_LIMIT * 16) {
                    st->visit[r] = stamp;
                    st->queue[tail++] = r;
                }
            }
        }
    }
    return false;
}

/* Version a of key k is before version j in every acceptable order. */
static bool ordered_before(store *st, uint32_t k, int32_t a, int32_t j)
{
    if (a == VER_INIT)
        return j >= 0;
    if (a < 0 || j < 0 || a == j)
        return false;
    return reaches(st, st->kv[k].v[a].writer, st->kv[k].v[j].writer);
}

/* A causality violation at committed txn t3: it misses a write W2 that is
 * already in its causal past (W2 reaches T3 by SO/WR edges), reading an
 * older version of y instead: W2 ->* T3 -RW-> W2. */
static bool causal_gap_at(store *st, uint32_t t3)
{
    const fin *fn = &st->fins[t3];
    for (uint32_t b = 0; b < fn->rcount; b++) {
        const xread *ry = &st->xreads[fn->rfirst + b];
        const keyvers *kvy = &st->kv[ry->key];
        size_t from = ry->ver < 0 ? 0 : (size_t)ry->ver + 1;
        for (size_t j = from; j < kvy->n && j < from + WALK_LIMIT; j++) {
            uint32_t w2 = kvy->v[j].writer;
            if (w2 != t3 && ordered_before(st, ry->key, ry->ver, (int32_t)j) && reaches(st, w2, t3))
                return true;
        }
    }
    return false;
}

/* A long fork at committed txn t3: T3 reads x at W1's version and y before
 * W2's version (ordered); T4 reads y at W2's version and x before W1's
 * version (ordered). */
static bool long_fork_at(store *st, uint32_t t3)
{
    const fin *fn = &st->fins[t3];
    for (uint32_t a = 0; a < fn->rcount; a++) {
        const xread *rx = &st->xreads[fn->rfirst + a];
        if (rx->ver < 0)
            continue;
        uint32_t x = rx->key, w1 = st->kv[x].v[rx->ver].writer;
        for (uint32_t b = 0; b < fn->rcount; b++) {
            const xread *ry = &st->xreads[fn->rfirst + b];
            uint32_t y = ry->key;
            if (y == x)
                continue;
            const keyvers *kvy = &st->kv[y];
            size_t from = ry->ver < 0 ? 0 : (size_t)ry->ver + 1;
            for (size_t j = from; j < kvy->n && j < from + WALK_LIMIT; j++) {
                if (kvy->v[j].writer == t3 || !ordered_before(st, y, ry->ver, (int32_t)j))
                    continue;
                uint32_t seen = 0;
                for (uint32_t q = kvy->v[j].readers; q != NO_LINK && seen < SCAN_LIMIT;
                     q = st->xreads[q].next, seen++) {
                    uint32_t t4 = st->xreads[q].txn;
                    if (t4 == t3 || t4 == w1)
                        continue;
                    const xread *r4 = find_xread(st, t4, x);
                    if (r4 && ordered_before(st, x, r4->ver, rx->ver))
                        return true;
                }
            }
        }
    }
    return false;
}

/* ---- the run ---- */

static void store_free(store *st)
{
    if (st->kv)
        for (uint32_t k = 0; k < st->o->keys; k++)
            free(st->kv[k].v);
    free(st->kv);
    free(st->next_val);
    free(st->fins);
    free(st->xreads);
    free(st->wvers);
    free(st->last_fin);
    free(st->visit);
    free(st->queue);
    free(st->holes);
    free(st->kstamp);
    free(st->klast);
    free(st->kfirst_read);
    if (st->sessions)
        for (uint32_t s = 0; s < st->o->sessions; s++) {
            free(st->sessions[s].steps);
            free(st->sessions[s].ops);
            free(st->sessions[s].tab);
        }
    free(st->sessions);
}

psi_status psi_gen_store_run(const psi_gen_opts *o, psi_gen_plan *p, psi_gen_rng *r, psi_builder *b,
                             psi_gen_report *rep, psi_diag *d)
{
    store st = {.o = o, .plan = p, .r = r, .b = b, .rep = rep, .d = d};
    st.track_reads = (o->faults & PSI_FAULT_BIT(PSI_FAULT_LONG_FORK)) != 0;
    st.kv = calloc(o->keys, sizeof *st.kv);
    st.next_val = calloc(o->keys, sizeof *st.next_val);
    st.kstamp = calloc(o->keys, sizeof *st.kstamp);
    st.klast = calloc(o->keys, sizeof *st.klast);
    st.kfirst_read = calloc(o->keys, sizeof *st.kfirst_read);
    st.sessions = calloc(o->sessions, sizeof *st.sessions);
    uint32_t *active = malloc(o->sessions * sizeof *active);
    psi_status rc = PSI_OK;
    if (st.track_reads) {
        st.last_fin = malloc(o->sessions * sizeof *st.last_fin);
        if (st.last_fin)
            for (uint32_t s = 0; s < o->sessions; s++)
                st.last_fin[s] = NO_LINK;
        else
            rc = psi_diag_nomem(d, "starting the store");
    }
    if (rc != PSI_OK)
        goto done;
    if (!st.kv || !st.next_val || !st.kstamp || !st.klast || !st.kfirst_read || !st.sessions ||
        !active) {
        rc = psi_diag_nomem(d, "starting the store");
        goto done;
    }
    uint32_t n_active = 0;
    for (uint32_t s = 0; s < o->sessions; s++)
        if (o->txns_per_session > 0)
            active[n_active++] = s;
    while (n_active > 0 && rc == PSI_OK) {
        uint32_t ai = (uint32_t)psi_gen_rng_below(r, n_active), s = active[ai];
        sess *se = &st.sessions[s];
        if (!se->open) {
            rc = begin_txn(&st, se);
        } else if (se->cur < se->n_steps) {
            rc = step_op(&st, se, s);
        } else {
            uint32_t before = (uint32_t)st.n_fins;
            rc = commit_txn(&st, se, s);
            se->open = false;
            bool committed = st.n_fins > before;
            if (!committed && o->retry_aborted && ++se->attempts < RETRY_LIMIT)
                continue;
            se->attempts = 0;
            if (++se->done == o->txns_per_session)
                active[ai] = active[--n_active];
        }
    }
    if (rc != PSI_OK)
        goto done;
    if (st.n_holes) {
        st.visit = calloc(st.n_fins, sizeof *st.visit);
        st.queue = malloc(st.n_fins * sizeof *st.queue);
        if (!st.visit || !st.queue) {
            rc = psi_diag_nomem(d, "checking long forks");
            goto done;
        }
    }
    for (size_t i = 0; i < st.n_holes; i++) {
        st.budget = FORK_BUDGET;
        bool fork = long_fork_at(&st, st.holes[i]);
        rep->long_forks += fork;
        st.budget = FORK_BUDGET;
        rep->violations[PSI_FAULT_LONG_FORK] += fork || causal_gap_at(&st, st.holes[i]);
    }
    if (st.unknown_committed) {
        memset(rep->violations, 0, sizeof rep->violations);
        rep->long_forks = 0;
    }
done:
    free(active);
    store_free(&st);
    return rc;
}
