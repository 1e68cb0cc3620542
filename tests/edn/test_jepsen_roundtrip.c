/* The Jepsen writers (EDN, JSON) lose nothing: a history written by
 * psi_write_edn or psi_write_json and read back is identical, field by
 * field, to the one written: the same sessions (by id, each with its
 * transactions in order), each transaction with its id, outcome and
 * operations (kind, key and value as spelled, flags, observed lists), the
 * same real time (who precedes whom, which invokes are known, which
 * completions are open) and the same timestamps. Written again, the file
 * is the same byte for byte.
 *
 * test_convert_all compares what every format keeps (stats and the
 * multiset of transactions); this one holds the Jepsen formats to
 * everything they can say, because a report once said the EDN writer lost
 * data and nothing reproduced it. What this test found: timestamps
 * (:start-ts/:commit-ts) were dropped, so a timestamped reject became an
 * accept after `convert`; a history without real time got one made up
 * from the file's line order (each session's transactions before the
 * next session's), which strict-SER and strong-SI then checked; and a
 * completion without an invoke after another transaction of its process
 * was written with an invoke that the reader refused.
 *
 * Inputs: generated histories (every store, mix, faults, aborted and
 * unknown outcomes, repeated values, explicit initial state, real time or
 * none), the same rebuilt with named keys and values (keywords, strings,
 * symbols, negative integers, booleans), list-append keys and timestamps;
 * every file of tests/levels/data and tests/edn/data; hand-written Jepsen
 * histories for the corners (:info and :fail reads, completions without
 * invokes, ops without :process, writes of 0); and the CLI's `generate
 * --format edn|json` and `convert --to edn|json`. */
#include "edn_helpers.h"

#include "support/random_history.h"

#include <dirent.h>
#include <sys/wait.h>

#ifndef LEVELS_DATA
#error "LEVELS_DATA must name tests/levels/data"
#endif
#ifndef EDN_DATA
#error "EDN_DATA must name tests/edn/data"
#endif

/* What the test did, so that it can assert it did it. */
typedef struct tally {
    uint32_t written[2], refused[2]; /* by format: 0 EDN, 1 JSON */
    uint32_t with_rt, with_ts, named, lists, unknown, aborted;
} tally;

/* The transaction of b that is a's transaction t: same session id and
 * position (asserted to exist). */
static uint32_t counterpart(const psi_history *a, uint32_t t, const psi_history *b,
                            const char *what)
{
    const psi_txn *x = &a->txns[t];
    uint64_t sid = a->sessions[x->session].id;
    for (uint32_t s = 0; s < b->n_sessions; s++)
        if (b->sessions[s].id == sid) {
            if (x->pos >= b->sessions[s].n_txns)
                fail_msg("%s: session %llu has %u transactions, read back %u", what,
                         (unsigned long long)sid, a->sessions[x->session].n_txns,
                         b->sessions[s].n_txns);
            return b->sessions[s].first_txn + x->pos;
        }
    fail_msg("%s: session %llu is missing", what, (unsigned long long)sid);
    return 0;
}

/* Whether transaction t's real time is known to precede u's (history.h). */
static bool rt_before(const psi_history *h, uint32_t t, uint32_t u)
{
    return h->rt[t].complete != PSI_RT_OPEN && h->rt[t].complete < h->rt[u].invoke;
}

/* The spelling of value v, the initial value's alike in every history
 * (named values spell it nil, integer ones 0; the op's flags say it). */
static const char *vname(const psi_history *h, uint64_t v, char buf[24])
{
    return v ? psi_history_value_name(h, v, buf) : "<initial>";
}

/* a and b say the same, everything the Jepsen formats carry (see the file
 * comment). */
static void assert_identical(const psi_history *a, const psi_history *b, const char *what)
{
    if (a->n_sessions != b->n_sessions || a->n_txns != b->n_txns || a->n_ops != b->n_ops ||
        a->n_keys != b->n_keys)
        fail_msg("%s: %u sessions, %u transactions, %u operations, %u keys; read back %u, %u, "
                 "%u, %u",
                 what, a->n_sessions, a->n_txns, a->n_ops, a->n_keys, b->n_sessions, b->n_txns,
                 b->n_ops, b->n_keys);
    assert_int_equal(a->initial_state, b->initial_state);
    uint32_t *map = malloc(a->n_txns * sizeof *map);
    assert_non_null(map);
    map[0] = 0;
    for (uint32_t t = 1; t < a->n_txns; t++) {
        uint32_t u = map[t] = counterpart(a, t, b, what);
        const psi_txn *x = &a->txns[t], *y = &b->txns[u];
        if (x->id != y->id || x->status != y->status || x->n_ops != y->n_ops)
            fail_msg("%s: transaction %llu (session %llu) status %u, %u ops; read back %llu, "
                     "status %u, %u ops",
                     what, (unsigned long long)x->id,
                     (unsigned long long)a->sessions[x->session].id, x->status, x->n_ops,
                     (unsigned long long)y->id, y->status, y->n_ops);
        for (uint32_t i = 0; i < x->n_ops; i++) {
            uint32_t o = x->first_op + i, q = y->first_op + i;
            const psi_op *p = &a->ops[o], *r = &b->ops[q];
            char kb[24], vb[24], kc[24], vc[24];
            const char *ka = psi_history_key_name(a, p->key, kb),
                       *kz = psi_history_key_name(b, r->key, kc);
            const char *va = vname(a, p->value, vb), *vz = vname(b, r->value, vc);
            if (p->kind != r->kind || p->flags != r->flags || strcmp(ka, kz) || strcmp(va, vz))
                fail_msg("%s: transaction %llu op %u: %c %s %s flags %u; read back %c %s %s "
                         "flags %u",
                         what, (unsigned long long)x->id, i, p->kind == PSI_OP_READ ? 'r' : 'w', ka,
                         va, p->flags, r->kind == PSI_OP_READ ? 'r' : 'w', kz, vz, r->flags);
            uint32_t n, m;
            const uint64_t *u1 = psi_history_list(a, o, &n), *u2 = psi_history_list(b, q, &m);
            if ((u1 == NULL) != (u2 == NULL) || n != m)
                fail_msg("%s: transaction %llu op %u: list of %u, read back %u", what,
                         (unsigned long long)x->id, i, n, m);
            for (uint32_t j = 0; j < n; j++)
                if (strcmp(vname(a, u1[j], vb), vname(b, u2[j], vc)))
                    fail_msg("%s: transaction %llu op %u: list element %u %s, read back %s", what,
                             (unsigned long long)x->id, i, j, vname(a, u1[j], vb),
                             vname(b, u2[j], vc));
        }
        bool ta = a->ts && a->ts[t].has, tb = b->ts && b->ts[u].has;
        if (ta != tb ||
            (ta && (a->ts[t].start != b->ts[u].start || a->ts[t].commit != b->ts[u].commit)))
            fail_msg("%s: transaction %llu: timestamps %d, read back %d", what,
                     (unsigned long long)x->id, ta, tb);
    }
    if ((a->rt == NULL) != (b->rt == NULL))
        fail_msg("%s: real time %s, read back %s", what, a->rt ? "present" : "absent",
                 b->rt ? "present" : "absent");
    for (uint32_t t = 1; a->rt && t < a->n_txns; t++) {
        uint32_t u = map[t];
        if ((a->rt[t].invoke == 0) != (b->rt[u].invoke == 0) ||
            (a->rt[t].complete == PSI_RT_OPEN) != (b->rt[u].complete == PSI_RT_OPEN))
            fail_msg("%s: transaction %llu: invoke known %d, open %d; read back %d, %d", what,
                     (unsigned long long)a->txns[t].id, a->rt[t].invoke != 0,
                     a->rt[t].complete == PSI_RT_OPEN, b->rt[u].invoke != 0,
                     b->rt[u].complete == PSI_RT_OPEN);
        for (uint32_t s = 1; s < a->n_txns; s++)
            if (rt_before(a, t, s) != rt_before(b, u, map[s]))
                fail_msg("%s: %llu precedes %llu in real time: %d, read back %d", what,
                         (unsigned long long)a->txns[t].id, (unsigned long long)a->txns[s].id,
                         rt_before(a, t, s), rt_before(b, u, map[s]));
    }
    free(map);
}

/* Whether spelling s is a keyword or symbol, which JSON cannot spell. */
static bool keyword_or_symbol(const char *s)
{
    return s[0] == ':' || (s[0] >= 'a' && s[0] <= 'z' && strcmp(s, "true") && strcmp(s, "false"));
}

/* Whether format f (0 EDN, 1 JSON) must refuse h, predicted from h alone:
 * a written 0 from a format where it is the initial value (text, dbcop),
 * and for JSON a keyword or symbol. */
static bool must_refuse(const psi_history *h, int f)
{
    bool zero_initial = !psi_format_is_jepsen(h->format) && h->format != PSI_FMT_COBRA;
    for (uint32_t o = 0; zero_initial && o < h->n_ops; o++)
        if (h->ops[o].kind == PSI_OP_WRITE && h->ops[o].value == 0 &&
            !(h->ops[o].flags & PSI_OPF_APPEND))
            return true;
    if (f == 0)
        return false;
    for (uint32_t k = 0; h->key_names && k < h->n_keys; k++)
        if (keyword_or_symbol(h->key_names[k]))
            return true;
    for (uint64_t v = 0; h->value_names && v < h->n_value_names; v++)
        if (keyword_or_symbol(h->value_names[v]))
            return true;
    return false;
}

/* Writes h in format f, reads it back (NULL when refused as predicted) and
 * returns the text in *text. */
static psi_history *write_read(const psi_history *h, int f, char **text, const char *what,
                               tally *ty)
{
    char path[64];
    edn_temp_path(path);
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = f ? psi_write_json(h, path, &d) : psi_write_edn(h, path, &d);
    bool refuse = must_refuse(h, f);
    if (refuse) {
        unlink(path);
        if (st != PSI_ERR_INPUT || !strstr(d.msg, "cannot write as"))
            fail_msg("%s as %s: expected a refusal, got %s: %s", what, f ? "JSON" : "EDN",
                     psi_status_name(st), d.msg);
        ty->refused[f]++;
        return NULL;
    }
    if (st != PSI_OK)
        fail_msg("%s as %s: %s", what, f ? "JSON" : "EDN", d.msg);
    size_t len;
    char *buf = edn_slurp(path, &len);
    unlink(path);
    psi_history *back;
    psi_diag_clear(&d);
    st = f ? psi_read_json_buf("back.json", buf, len, 0, &back, &d)
           : psi_read_edn_buf("back.edn", buf, len, 0, &back, &d);
    if (st != PSI_OK)
        fail_msg("%s as %s, read back: %s\n%.2000s", what, f ? "JSON" : "EDN", d.msg, buf);
    *text = buf;
    ty->written[f]++;
    return back;
}

/* h through EDN and JSON: identical when read back, and the same text
 * when written again. */
static void round_trip(const psi_history *h, const char *what, tally *ty)
{
    ty->with_rt += h->rt != NULL;
    ty->with_ts += h->ts != NULL;
    ty->named += psi_history_has_names(h);
    ty->lists += h->n_list_reads > 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        ty->unknown += h->txns[t].status == PSI_TXN_UNKNOWN;
        ty->aborted += h->txns[t].status == PSI_TXN_ABORTED;
    }
    for (int f = 0; f < 2; f++) {
        char *t1 = NULL, *t2 = NULL;
        psi_history *h1 = write_read(h, f, &t1, what, ty);
        if (!h1)
            continue;
        assert_identical(h, h1, what);
        psi_history *h2 = write_read(h1, f, &t2, what, ty);
        assert_non_null(h2);
        assert_identical(h1, h2, what);
        if (strcmp(t1, t2) != 0)
            fail_msg("%s as %s: written again, the text differs:\n%.1000s\n---\n%.1000s", what,
                     f ? "JSON" : "EDN", t1, t2);
        free(t1);
        free(t2);
        psi_history_free(h1);
        psi_history_free(h2);
    }
}

/* Generator options for seed (x: its bits). */
static void gen_opts(uint64_t seed, psi_gen_opts *o)
{
    uint64_t x = psi_test_mix64(seed * 6007);
    psi_gen_opts_default(o);
    o->seed = seed;
    o->sessions = 1 + (uint32_t)(x % 7);
    o->txns_per_session = 1 + (uint32_t)((x >> 4) % 10);
    o->ops_per_txn = 1 + (uint32_t)((x >> 8) % 6);
    o->keys = 1 + (uint32_t)((x >> 12) % 12);
    o->dist = (x >> 16) % 2 ? PSI_DIST_ZIPF : PSI_DIST_UNIFORM;
    static const psi_gen_store stores[] = {PSI_STORE_SI, PSI_STORE_SER, PSI_STORE_RC,
                                           PSI_STORE_RANDOM};
    o->store = stores[(x >> 17) % 4];
    static const psi_gen_mix mixes[] = {PSI_MIX_POLYSI,    PSI_MIX_RMW,       PSI_MIX_BLINDW_RH,
                                        PSI_MIX_BLINDW_RW, PSI_MIX_BLINDW_WH, PSI_MIX_HEAVY_WRITE};
    o->mix = mixes[(x >> 20) % 6];
    if ((x >> 24) % 3 == 0) {
        o->faults = (unsigned)((x >> 26) % 15) + 1;
        o->fault_prob = 0.2;
    }
    o->keep_aborted = true;
    if ((x >> 30) % 3 == 0)
        o->abort_ratio = 0.3;
    if ((x >> 32) % 3 == 0)
        o->unknown_ratio = 0.3;
    if ((x >> 34) % 3 == 0)
        o->value_range = 1 + (x >> 36) % 4;
    o->explicit_init = (x >> 40) % 8 == 0;
    o->realtime = (x >> 43) % 2;
    o->retry_aborted = (x >> 44) % 4 != 0;
    if ((x >> 46) % 5 == 0)
        o->long_txn_ratio = 0.2;
}

/* A spelling for key or value number n of kind `kind` (0 .. 5). */
static void spell(char *buf, size_t cap, unsigned kind, uint64_t n, bool key)
{
    switch (kind % 6) {
    case 0:
        snprintf(buf, cap, "%llu", (unsigned long long)n);
        break;
    case 1:
        snprintf(buf, cap, key ? ":k%llu" : ":ns/v%llu", (unsigned long long)n);
        break;
    case 2:
        snprintf(buf, cap, key ? "\"acct %llu\"" : "\"v \\\"%llu\\\"\"", (unsigned long long)n);
        break;
    case 3:
        snprintf(buf, cap, key ? "sym%llu" : "v%llu?", (unsigned long long)n);
        break;
    case 4:
        snprintf(buf, cap, "-%llu", (unsigned long long)n + 1);
        break;
    default:
        snprintf(buf, cap, "%s", n % 2 ? "true" : "false");
        break;
    }
}

/* h rebuilt as an EDN history (a written 0 is then an ordinary value)
 * with named keys and values when `names` (kinds drawn per key and value),
 * writes of every third key as appends and its reads as list reads
 * (observing earlier appends of the key, or nothing), and timestamps on
 * some committed transactions when `ts`. Real time is copied. */
static psi_history *decorate(const psi_history *h, uint64_t seed, bool names, bool ts)
{
    psi_builder *b = psi_builder_new("decorated", PSI_FMT_EDN);
    assert_non_null(b);
    psi_diag d;
    uint64_t x = psi_test_mix64(seed * 31 + 7);
    uint64_t *appended = calloc(h->n_keys ? h->n_keys : 1, sizeof *appended);
    assert_non_null(appended);
    char buf[64];
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        assert_int_equal(psi_builder_begin(b, h->sessions[tx->session].id, tx->id, t, &d), PSI_OK);
        if (h->rt)
            assert_int_equal(psi_builder_set_rt(b, h->rt[t].invoke, h->rt[t].complete, &d), PSI_OK);
        x = psi_test_mix64(x + t);
        if (ts && x % 3 == 0)
            assert_int_equal(psi_builder_set_ts(b, (int64_t)t - 50, (int64_t)(t + x % 5), &d),
                             PSI_OK);
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            const psi_op *op = &h->ops[tx->first_op + i];
            uint64_t ext = h->keys[op->key], key = ext, value = op->value;
            bool list = op->key % 3 == 0;
            if (names) {
                /* booleans name two keys at most: others merge into them */
                spell(buf, sizeof buf, (unsigned)(psi_test_mix64(seed + ext) % 6), ext, true);
                assert_int_equal(psi_builder_key_named(b, buf, strlen(buf), &key, &d), PSI_OK);
            }
            if (names && value) { /* a value is spelled alike wherever it is */
                spell(buf, sizeof buf, (unsigned)(psi_test_mix64(seed * 3 + value) % 5), value,
                      false);
                assert_int_equal(psi_builder_value_named(b, buf, strlen(buf), &value, &d), PSI_OK);
            }
            if (!list) {
                assert_int_equal(psi_builder_op(b, op->kind, key, value, op->flags, &d), PSI_OK);
                continue;
            }
            if (op->kind == PSI_OP_WRITE) {
                assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, key, value, PSI_OPF_APPEND, &d),
                                 PSI_OK);
                appended[op->key]++;
                continue;
            }
            /* a list read: the key's first n appended values, n random */
            uint64_t vals[8];
            uint32_t n = (uint32_t)(psi_test_mix64(x + i) % (appended[op->key] + 1));
            n = n > 8 ? 8 : n;
            for (uint32_t j = 0; j < n; j++) {
                uint64_t v = 1 + j;
                if (names) {
                    spell(buf, sizeof buf, (unsigned)(psi_test_mix64(seed * 3 + v) % 5), v, false);
                    assert_int_equal(psi_builder_value_named(b, buf, strlen(buf), &v, &d), PSI_OK);
                }
                vals[j] = v;
            }
            assert_int_equal(psi_builder_list_read(b, key, vals, n, &d), PSI_OK);
        }
        assert_int_equal(psi_builder_end(b, (psi_txn_status)tx->status, &d), PSI_OK);
    }
    free(appended);
    psi_history *out;
    if (psi_builder_finish(b, &out, &d) != PSI_OK)
        fail_msg("decorating seed %llu: %s", (unsigned long long)seed, d.msg);
    return out;
}

static void test_generated(void **state)
{
    (void)state;
    tally ty = {0};
    for (uint64_t seed = 1; seed <= 400; seed++) {
        psi_gen_opts o;
        gen_opts(seed, &o);
        psi_history *h;
        psi_diag d;
        if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
            fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
        char what[96];
        snprintf(what, sizeof what, "generated seed %llu", (unsigned long long)seed);
        round_trip(h, what, &ty);
        if (!o.explicit_init) {
            bool names = seed % 2, ts = seed % 3 == 0;
            psi_history *e = decorate(h, seed, names, ts);
            snprintf(what, sizeof what, "generated seed %llu, decorated (names %d, ts %d)",
                     (unsigned long long)seed, names, ts);
            round_trip(e, what, &ty);
            psi_history_free(e);
        }
        psi_history_free(h);
    }
    print_message("EDN %u written, %u refused; JSON %u written, %u refused; %u with real time, "
                  "%u with timestamps, %u named, %u with lists; %u unknown, %u aborted\n",
                  ty.written[0], ty.refused[0], ty.written[1], ty.refused[1], ty.with_rt,
                  ty.with_ts, ty.named, ty.lists, ty.unknown, ty.aborted);
    /* every kind of input was there */
    assert_true(ty.written[0] >= 1000 && ty.written[1] >= 600);
    assert_true(ty.refused[0] >= 20 && ty.refused[1] >= 100);
    assert_true(ty.with_rt >= 200 && ty.with_ts >= 50 && ty.named >= 150 && ty.lists >= 200);
    assert_true(ty.unknown >= 500 && ty.aborted >= 500);
}

/* Every history file of one folder (witnesses and other files skipped). */
static uint32_t files_of(const char *dir, tally *ty)
{
    DIR *dh = opendir(dir);
    assert_non_null(dh);
    uint32_t n = 0;
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len < 5 ||
            (strcmp(e->d_name + len - 4, ".txt") != 0 && strcmp(e->d_name + len - 4, ".edn") != 0))
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        psi_read_opts ro = {0};
        psi_history *h;
        psi_diag d;
        if (psi_read_history(path, &ro, &h, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        round_trip(h, path, ty);
        psi_history_free(h);
        n++;
    }
    closedir(dh);
    return n;
}

static void test_data_files(void **state)
{
    (void)state;
    tally ty = {0};
    uint32_t n = files_of(LEVELS_DATA, &ty) + files_of(EDN_DATA, &ty);
    print_message("%u files\n", n);
    assert_true(n >= 28);
}

/* The corners, as Jepsen or Elle write them. */
static void test_hand_written(void **state)
{
    (void)state;
    static const char *const edn[] = {
        /* timestamps: a lost update the timestamps show */
        "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0, :index 1, :start-ts 1, "
        ":commit-ts 2}\n"
        "{:type :ok, :f :txn, :value [[:w 1 2]], :process 1, :index 2, :start-ts -5, "
        ":commit-ts 3}\n",
        /* completions only: no real time */
        "{:type :ok, :f :txn, :value [[:r 1 nil] [:w 2 1]], :process 0, :index 1}\n"
        "{:type :ok, :f :txn, :value [[:w 1 1] [:r 2 nil]], :process 1, :index 2}\n",
        /* a completion without an invoke after its process's invoked one */
        "{:type :invoke, :f :txn, :value [[:w 1 1]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:w 1 1]], :process 0}\n"
        "{:type :invoke, :f :txn, :value [[:w 2 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:w 2 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:r 1 1] [:r 2 1]], :process 0}\n",
        /* Elle's test histories: no :process, no invokes */
        "{:type :ok, :value [[:append :x 1] [:r :y [1]]]}\n"
        "{:type :ok, :value [[:append :y 1] [:r :x nil]]}\n"
        "{:type :info, :value [[:append :x 2]]}\n",
        /* :info and :fail with nil and known reads, interleaved, :index 0,
         * a nemesis op */
        "{:type :invoke, :f :txn, :value [[:r :x nil] [:w :y 1]], :process 3, :index 0}\n"
        "{:type :invoke, :f :txn, :value [[:r :y nil] [:w :x 1]], :process 4, :index 1}\n"
        "{:type :info, :f :start, :process :nemesis, :index 2}\n"
        "{:type :info, :f :txn, :value [[:r :x nil] [:w :y 1]], :process 3, :index 3}\n"
        "{:type :fail, :f :txn, :value [[:r :y 1] [:w :x 1]], :process 4, :index 4}\n"
        "{:type :invoke, :f :txn, :value [[:r :x nil] [:r :y nil]], :process 4, :index 5}\n"
        "{:type :ok, :f :txn, :value [[:r :x nil] [:r :y 1]], :process 4, :index 6}\n"
        "{:type :invoke, :f :txn, :value [[:r :x nil]], :process 3, :index 7}\n",
        /* writes of 0 and repeated values with named keys; strings with
         * escapes; an explicit init transaction (EDN: ordinary) */
        "{:type :ok, :f :txn, :value [[:w \"a\\\"b\" 0] [:w :k 0] [:w 7 0]], :process 0}\n"
        "{:type :ok, :f :txn, :value [[:w \"a\\\"b\" 1] [:w :k 1]], :process 1}\n"
        "{:type :ok, :f :txn, :value [[:w \"a\\\"b\" 1] [:r :k 0] [:r 7 0]], :process 2}\n"
        "{:type :ok, :f :txn, :value [[:r \"a\\\"b\" 1] [:r :k nil]], :process 1}\n",
        /* list-append: empty and nil list reads, repeated appends, an
         * empty transaction, sessions out of order, huge ids */
        "{:type :ok, :value [[:append 5 1] [:r 5 [1]] [:r 6 []] [:r 7 nil]], :process 9, "
        ":index 18446744073709551615}\n"
        "{:type :ok, :value [], :process 2, :index 3}\n"
        "{:type :fail, :value [[:append 5 1] [:r 6 nil]], :process 2, :index 4}\n"
        "{:type :ok, :value [[:r 5 [1 1]] [:append 6 :z]], :process 18446744073709551615, "
        ":index 5}\n",
    };
    tally ty = {0};
    for (size_t i = 0; i < sizeof edn / sizeof edn[0]; i++) {
        psi_history *h;
        psi_diag d;
        if (edn_read(edn[i], &h, &d) != PSI_OK)
            fail_msg("%zu: %s", i, d.msg);
        round_trip(h, edn[i], &ty);
        psi_history_free(h);
    }
    assert_true(ty.with_ts >= 1 && ty.with_rt >= 2);
}

/* Runs a shell command; returns its exit code. */
static int run(const char *cmd)
{
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st))
        print_message("%s: status %d\n", cmd, st);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

/* The CLI: `generate --format edn|json` writes what psi_generate makes
 * with the same options (real time on, aborted kept), and `convert --to
 * edn|json` of a text history what the text file says. */
static void test_cli(void **state)
{
    (void)state;
    const char *cli = getenv("PSI_CLI");
    if (!cli)
        fail_msg("PSI_CLI is not set (CTest sets it)");
    char dir[] = "/tmp/psi-jepsen-rt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char cmd[8192], out[256], txt[256];
    static const char *const fmts[] = {"edn", "json"};
    for (uint64_t seed = 1; seed <= 6; seed++)
        for (int f = 0; f < 2; f++) {
            snprintf(out, sizeof out, "%s/g.%s", dir, fmts[f]);
            const char *extra = seed % 3 == 0   ? "--unknown-ratio 0.3 --abort-ratio 0.2"
                                : seed % 3 == 1 ? "--value-range 2 --isolation random"
                                                : "--isolation read-committed --faults lost-update";
            snprintf(cmd, sizeof cmd,
                     "'%s' generate --sessions 4 --txns 5 --ops 3 --keys 5 --seed %llu %s "
                     "--format %s '%s' 2>/dev/null",
                     cli, (unsigned long long)seed, extra, fmts[f], out);
            assert_int_equal(run(cmd), 0);
            psi_gen_opts o;
            psi_gen_opts_default(&o);
            o.sessions = 4, o.txns_per_session = 5, o.ops_per_txn = 3, o.keys = 5;
            o.seed = seed, o.keep_aborted = true, o.realtime = true;
            if (seed % 3 == 0)
                o.unknown_ratio = 0.3, o.abort_ratio = 0.2;
            else if (seed % 3 == 1)
                o.value_range = 2, o.store = PSI_STORE_RANDOM;
            else
                o.store = PSI_STORE_RC, o.faults = PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE);
            psi_history *want, *got;
            psi_diag d;
            assert_int_equal(psi_generate(&o, &want, NULL, &d), PSI_OK);
            psi_read_opts ro = {0};
            if (psi_read_history(out, &ro, &got, &d) != PSI_OK)
                fail_msg("%s", d.msg);
            assert_identical(want, got, out);
            psi_history_free(got);

            /* the same as text, converted (text has no unknown outcome) */
            snprintf(txt, sizeof txt, "%s/g.txt", dir);
            psi_history_free(want);
            snprintf(cmd, sizeof cmd,
                     "'%s' generate --sessions 4 --txns 5 --ops 3 --keys 5 --seed %llu %s '%s' "
                     "2>/dev/null && '%s' convert --to %s '%s' '%s'",
                     cli, (unsigned long long)seed, seed % 3 == 0 ? "--abort-ratio 0.2" : extra,
                     txt, cli, fmts[f], txt, out);
            assert_int_equal(run(cmd), 0);
            assert_int_equal(psi_read_history(txt, &ro, &want, &d), PSI_OK);
            if (psi_read_history(out, &ro, &got, &d) != PSI_OK)
                fail_msg("%s", d.msg);
            assert_identical(want, got, out);
            psi_history_free(want);
            psi_history_free(got);
            unlink(txt);
            unlink(out);
        }
    /* --explicit-init has no Jepsen form (the initial value is nil there):
     * refused before anything is written, saying so */
    snprintf(out, sizeof out, "%s/i.edn", dir);
    snprintf(cmd, sizeof cmd, "'%s' generate --txns 2 --explicit-init --format edn '%s' 2>'%s/err'",
             cli, out, dir);
    assert_int_equal(run(cmd), 2);
    snprintf(txt, sizeof txt, "%s/err", dir);
    size_t len;
    char *err = edn_slurp(txt, &len);
    if (!strstr(err, "--explicit-init"))
        fail_msg("generate --explicit-init --format edn: %s", err);
    free(err);
    unlink(txt);
    assert_int_equal(access(out, F_OK), -1);
    assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_written),
        cmocka_unit_test(test_data_files),
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
