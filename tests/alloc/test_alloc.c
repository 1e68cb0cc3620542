/* Allocation failure anywhere is an error, never a crash, a leak or a wrong
 * answer. Each scenario below runs once normally (the reference result),
 * then again with allocation number N failing, for every N up to the
 * number of allocations the scenario makes, in two modes: only the N-th
 * allocation fails (a transient failure: later ones succeed), or the N-th
 * and every later one fails (memory is gone). Every run must either report
 * running out of memory (PSI_ERR_NOMEM, PSI_SAT_ENOMEM / PSI_DIMACS_ENOMEM)
 * or return the reference result, and must free everything it allocated:
 * the wrappers track each live block allocated while a scenario runs. A
 * run that goes wrong is repeated with the stack of the injected failure
 * printed.
 *
 * Scenarios: every reader on small inputs (text, both of its paths; dbcop;
 * EDN rw-register and list-append; one Cobra log and a Cobra directory;
 * psi_read_history on a file), validation (psi_index_build), the whole
 * check under SI and SER with pruning and coalescing on and off, the
 * solver alone on a CNF and a GNF formula, the writers, the workload
 * generator, and writing and re-checking a witness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "core/index.h"
#include "formats/read.h"
#include "formats/write.h"
#include "interpret/witness.h"
#include "interpret/witness_check.h"
#include "solver/dimacs.h"
#include "workload/gen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#include <sanitizer/lsan_interface.h>
#define REPORT_LEAKS()      __lsan_do_recoverable_leak_check()
#define PRINT_STACK_TRACE() __sanitizer_print_stack_trace()
#else
#define REPORT_LEAKS()      0
#define PRINT_STACK_TRACE() ((void)0)
#endif

/* ---- the wrappers ---- */

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);
void __wrap_free(void *p);

enum { LIVE_SLOTS = 1 << 20 };

static struct {
    bool armed;       /* a scenario is running: count, fail, track */
    bool persistent;  /* fail every allocation from fail_at on */
    uint64_t count;   /* allocations so far in this run */
    uint64_t fail_at; /* 0: never fail */
    uint64_t failed;  /* allocations refused in this run */
    size_t live;      /* blocks allocated in this run and not yet freed */
    void **slots;     /* open addressing set of those blocks (NULL empty, &tomb deleted) */
    bool trace;       /* print where each failing run's first failure happens */
} A;

static char tomb;

static size_t slot_of(void *p)
{
    uintptr_t x = (uintptr_t)p;
    x ^= x >> 17;
    x *= 0xed5ad4bbu;
    x ^= x >> 11;
    return (size_t)x & (LIVE_SLOTS - 1);
}

static void live_add(void *p)
{
    if (!A.slots)
        return;
    size_t i = slot_of(p);
    while (A.slots[i] && A.slots[i] != (void *)&tomb)
        i = (i + 1) & (LIVE_SLOTS - 1);
    A.slots[i] = p;
    A.live++;
}

static void live_remove(void *p)
{
    if (!A.slots || !p)
        return;
    for (size_t i = slot_of(p); A.slots[i]; i = (i + 1) & (LIVE_SLOTS - 1))
        if (A.slots[i] == p) {
            A.slots[i] = (void *)&tomb;
            A.live--;
            return;
        }
}

/* True if this allocation must fail. */
static bool inject(void)
{
    if (!A.armed)
        return false;
    A.count++;
    if (A.fail_at && (A.count == A.fail_at || (A.persistent && A.count > A.fail_at))) {
        if (A.failed++ == 0 && A.trace)
            PRINT_STACK_TRACE();
        return true;
    }
    return false;
}

void *__wrap_malloc(size_t n)
{
    if (inject())
        return NULL;
    void *p = __real_malloc(n);
    if (p && A.armed)
        live_add(p);
    return p;
}

void *__wrap_calloc(size_t n, size_t size)
{
    if (inject())
        return NULL;
    void *p = __real_calloc(n, size);
    if (p && A.armed)
        live_add(p);
    return p;
}

void *__wrap_realloc(void *p, size_t n)
{
    if (inject())
        return NULL;
    void *q = __real_realloc(p, n);
    if (q && A.armed) {
        live_remove(p);
        live_add(q);
    }
    return q;
}

char *__wrap_strdup(const char *s)
{
    if (inject())
        return NULL;
    char *p = __real_strdup(s);
    if (p && A.armed)
        live_add(p);
    return p;
}

void __wrap_free(void *p)
{
    if (A.armed)
        live_remove(p);
    __real_free(p);
}

/* ---- running a scenario under every failure ---- */

/* A scenario runs the code under test, frees what it produced and returns
 * an outcome: 0 and a result hash for success, 1 for a clean out-of-memory
 * error, anything else (with a message) for a wrong outcome. */
typedef struct outcome {
    int kind; /* OUT_OK, OUT_NOMEM, OUT_BAD */
    uint64_t hash;
    char why[256];
} outcome;
enum { OUT_OK, OUT_NOMEM, OUT_BAD };

typedef outcome (*scenario_fn)(const void *arg);

typedef struct totals {
    uint64_t runs, allocs;
} totals;

static totals grand;

static outcome run_once(scenario_fn fn, const void *arg, uint64_t fail_at, bool persistent)
{
    memset(A.slots, 0, LIVE_SLOTS * sizeof *A.slots);
    A.count = 0, A.failed = 0, A.live = 0;
    A.fail_at = fail_at, A.persistent = persistent;
    A.armed = true;
    outcome o = fn(arg);
    A.armed = false;
    return o;
}

static void exhaust(const char *name, scenario_fn fn, const void *arg)
{
    outcome ref = run_once(fn, arg, 0, false);
    if (ref.kind != OUT_OK)
        fail_msg("%s: fails without injected failures: %s", name, ref.why);
    assert_int_equal(A.live, 0);
    uint64_t n_allocs = A.count;
    /* Every scenario allocates: none seen means the wrappers are not in the
     * path (a shared libpolysi), and the runs below would prove nothing. */
    if (n_allocs == 0)
        fail_msg("%s: no allocation went through the wrappers", name);
    uint64_t nomem = 0, ok = 0;
    for (int persistent = 0; persistent < 2; persistent++)
        for (uint64_t n = 1; n <= n_allocs; n++) {
            outcome o = run_once(fn, arg, n, persistent);
            grand.runs++;
            if (o.kind != OUT_NOMEM && o.kind != OUT_OK && !A.trace) {
                /* Show where the failure that went wrong was injected. */
                A.trace = true;
                run_once(fn, arg, n, persistent);
                A.trace = false;
            }
            if (o.kind == OUT_BAD)
                fail_msg("%s: allocation %llu of %llu failing (%s): %s", name,
                         (unsigned long long)n, (unsigned long long)n_allocs,
                         persistent ? "and all later" : "alone", o.why);
            if (o.kind == OUT_OK && o.hash != ref.hash)
                fail_msg("%s: allocation %llu of %llu failing (%s): succeeded with a different "
                         "result",
                         name, (unsigned long long)n, (unsigned long long)n_allocs,
                         persistent ? "and all later" : "alone");
            if (A.live != 0 && REPORT_LEAKS() >= 0)
                fail_msg("%s: allocation %llu of %llu failing (%s): %zu blocks leaked", name,
                         (unsigned long long)n, (unsigned long long)n_allocs,
                         persistent ? "and all later" : "alone", A.live);
            nomem += o.kind == OUT_NOMEM;
            ok += o.kind == OUT_OK;
        }
    grand.allocs += n_allocs;
    printf("alloc: %-34s %5llu allocations; with failures: %llu out-of-memory errors, %llu "
           "correct results\n",
           name, (unsigned long long)n_allocs, (unsigned long long)nomem, (unsigned long long)ok);
    fflush(stdout);
}

static outcome bad(const char *fmt, const char *msg)
{
    outcome o = {.kind = OUT_BAD};
    /* A long diagnostic is cut to fit: its beginning names the problem. The
     * result is looked at only so that GCC's -Wformat-truncation (Release
     * builds) knows the cut is expected. */
    if (snprintf(o.why, sizeof o.why, fmt, msg) >= (int)sizeof o.why)
        o.why[sizeof o.why - 2] = '~';
    return o;
}

static outcome from_status(psi_status st, const psi_diag *d, uint64_t hash)
{
    if (st == PSI_OK)
        return (outcome){.kind = OUT_OK, .hash = hash};
    if (st == PSI_ERR_NOMEM)
        return (outcome){.kind = OUT_NOMEM};
    return bad("unexpected error: %s", d->msg);
}

/* ---- hashes of results ---- */

static uint64_t fnv(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t hash_history(const psi_history *h)
{
    uint64_t x = 0xcbf29ce484222325ull;
    x = fnv(x, h->sessions, h->n_sessions * sizeof *h->sessions);
    x = fnv(x, h->txns, h->n_txns * sizeof *h->txns);
    x = fnv(x, h->ops, h->n_ops * sizeof *h->ops);
    x = fnv(x, h->keys, h->n_keys * sizeof *h->keys);
    x = fnv(x, h->list_reads, h->n_list_reads * sizeof *h->list_reads);
    x = fnv(x, h->list_vals, h->n_list_vals * sizeof *h->list_vals);
    return x;
}

/* ---- readers ---- */

typedef struct input {
    psi_format fmt;
    const char *name;
    const void *bytes;
    size_t len;
} input;

static outcome read_buf(const void *arg)
{
    const input *in = arg;
    psi_history *h = NULL;
    psi_diag d;
    psi_status st;
    switch (in->fmt) {
    case PSI_FMT_TEXT:
        st = psi_read_text_buf(in->name, in->bytes, in->len, 0, &h, &d);
        break;
    case PSI_FMT_DBCOP:
        st = psi_read_dbcop_buf(in->name, in->bytes, in->len, 0, &h, &d);
        break;
    case PSI_FMT_EDN:
        st = psi_read_edn_buf(in->name, in->bytes, in->len, 0, &h, &d);
        break;
    default:
        st = psi_read_cobra_buf(in->name, in->bytes, in->len, 0, &h, &d);
        break;
    }
    if (st != PSI_OK && h)
        return bad("%s", "a failed read returned a history");
    outcome o = from_status(st, &d, h ? hash_history(h) : 0);
    psi_history_free(h);
    return o;
}

static outcome read_path(const void *arg)
{
    const char *path = arg;
    psi_history *h = NULL;
    psi_diag d;
    psi_read_opts ro = {0};
    psi_status st = psi_read_history(path, &ro, &h, &d);
    outcome o = from_status(st, &d, h ? hash_history(h) : 0);
    psi_history_free(h);
    return o;
}

static char tmpdir[256];

static char *tmp_path(const char *name)
{
    static char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, name);
    return path;
}

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = __real_malloc((size_t)n + 1); /* the test's own: never failed */
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static psi_history *generated(uint64_t seed, psi_gen_store store, double aborts, double unknown)
{
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.seed = seed;
    o.sessions = 3;
    o.txns_per_session = 4;
    o.ops_per_txn = 3;
    o.keys = 4;
    o.store = store;
    o.abort_ratio = aborts;
    o.unknown_ratio = unknown;
    psi_history *h;
    psi_diag d;
    assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_OK);
    return h;
}

static void put_be64(FILE *f, uint64_t x)
{
    for (int i = 7; i >= 0; i--)
        fputc((int)(x >> (8 * i)) & 0xff, f);
}

/* A Cobra log of session s: txn ids s*100+i, write ids s*1000+..., the
 * first transaction of session 1 reads session 0's first write; the last
 * transaction has no commit record (unknown outcome). */
static void write_cobra_log(const char *path, uint64_t s)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    for (uint64_t i = 1; i <= 3; i++) {
        uint64_t t = s * 100 + i;
        fputc('S', f), put_be64(f, t);
        if (s == 1 && i == 1)
            fputc('R', f), put_be64(f, 1), put_be64(f, 1001), put_be64(f, 7), put_be64(f, 5);
        else
            fputc('R', f), put_be64(f, 0xbebeebee), put_be64(f, 0xbebeebee), put_be64(f, 9),
                put_be64(f, 0);
        fputc('W', f), put_be64(f, s * 1000 + i), put_be64(f, 7), put_be64(f, 5 + i);
        if (i < 3)
            fputc('C', f), put_be64(f, t);
    }
    fclose(f);
}

static void test_readers(void **state)
{
    (void)state;
    static const char text[] = "# comment\nw(1,1,0,1)\nr(1,1,1,2)\nw(1,2,1,2)\n\n"
                               "r(1,1,2,3)\nw(2,3,2,3)\nr(3,0,0,4)\n";
    /* Transaction 1 reappears after another: the reader's grouped path. */
    static const char text_grouped[] = "w(1,1,0,1)\nw(2,1,1,2)\nr(2,0,0,1)\nr(1,1,1,2)\n"
                                       "w(3,5,0,1)\nr(3,5,2,3)\n";
    input in = {PSI_FMT_TEXT, "a.txt", text, sizeof text - 1};
    exhaust("text", read_buf, &in);
    in = (input){PSI_FMT_TEXT, "b.txt", text_grouped, sizeof text_grouped - 1};
    exhaust("text (interleaved transactions)", read_buf, &in);

    psi_history *h = generated(3, PSI_STORE_RANDOM, 0.2, 0.0);
    psi_diag d;
    assert_int_equal(psi_write_dbcop(h, tmp_path("h.bincode"), &d), PSI_OK);
    assert_int_equal(psi_write_edn(h, tmp_path("h.edn"), &d), PSI_OK);
    psi_history_free(h);
    size_t len;
    uint8_t *bytes = slurp(tmp_path("h.bincode"), &len);
    in = (input){PSI_FMT_DBCOP, "h.bincode", bytes, len};
    exhaust("dbcop", read_buf, &in);
    free(bytes);
    bytes = slurp(tmp_path("h.edn"), &len);
    in = (input){PSI_FMT_EDN, "h.edn", bytes, len};
    exhaust("edn (rw-register)", read_buf, &in);
    free(bytes);

    static const char la[] =
        "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append 1 1] [:r 2 nil]]}\n"
        "{:index 1, :type :ok, :process 0, :f :txn, :value [[:append 1 1] [:r 2 []]]}\n"
        "{:index 2, :type :info, :process :nemesis, :f :start, :value [:x {\"n1\" #{\"n2\"}}]}\n"
        "{:index 3, :type :invoke, :process 1, :f :txn, :value [[:r 1 nil] [:append 2 1]]}\n"
        "{:index 4, :type :info, :process 1, :f :txn, :value [[:r 1 nil] [:append 2 1]]}\n"
        "{:index 5, :type :ok, :process 2, :f :txn, :value [[:r 1 [1]] [:r 2 (1)]], :time "
        "#inst \"2020\"}\n";
    in = (input){PSI_FMT_EDN, "la.edn", la, sizeof la - 1};
    exhaust("edn (list-append)", read_buf, &in);

    mkdir(tmp_path("cobra"), 0777);
    write_cobra_log(tmp_path("cobra/T0.log"), 0);
    write_cobra_log(tmp_path("cobra/T1.log"), 1);
    bytes = slurp(tmp_path("cobra/T1.log"), &len);
    in = (input){PSI_FMT_COBRA, "T1.log", bytes, len};
    exhaust("cobra (one log)", read_buf, &in);
    free(bytes);
    exhaust("cobra (directory)", read_path, tmp_path("cobra"));
    exhaust("psi_read_history (edn file)", read_path, tmp_path("h.edn"));
}

/* ---- validation and the whole check ---- */

static outcome index_build(const void *arg)
{
    psi_history *h = (psi_history *)arg;
    /* Validation settles unknown outcomes in place: start each run alike. */
    uint8_t status[64];
    for (uint32_t t = 0; t < h->n_txns; t++)
        status[t] = h->txns[t].status;
    psi_index idx;
    psi_diag d;
    psi_status st = psi_index_build(h, &idx, &d);
    uint64_t x = 0;
    if (st == PSI_OK) {
        x = fnv(0xcbf29ce484222325ull, idx.read_src, h->n_ops * sizeof *idx.read_src);
        x = fnv(x, idx.op_info, h->n_ops);
        x = fnv(x, &idx.n_anomalies, sizeof idx.n_anomalies);
        x = fnv(x, &idx.n_committed, sizeof idx.n_committed);
        psi_index_free(&idx);
    }
    for (uint32_t t = 0; t < h->n_txns; t++)
        h->txns[t].status = status[t];
    return from_status(st, &d, x);
}

typedef struct check_case {
    psi_history *h;
    psi_check_opts opts;
} check_case;

static outcome check(const void *arg)
{
    const check_case *c = arg;
    uint8_t status[64];
    for (uint32_t t = 0; t < c->h->n_txns; t++)
        status[t] = c->h->txns[t].status;
    psi_check_result r;
    psi_diag d;
    psi_status st = psi_check(c->h, &c->opts, &r, &d);
    uint64_t x = st == PSI_OK ? (uint64_t)r.verdict : 0;
    /* The result is freed after an error too (what cli/cmd_check.c does):
     * psi_check leaves the stages it completed in it. */
    psi_check_result_free(&r);
    for (uint32_t t = 0; t < c->h->n_txns; t++)
        c->h->txns[t].status = status[t];
    return from_status(st, &d, x);
}

static void test_check(void **state)
{
    (void)state;
    struct {
        uint64_t seed;
        psi_gen_store store;
        unsigned faults;
        double aborts, unknown;
    } cases[] = {
        {1, PSI_STORE_SI, 0, 0, 0},
        {2, PSI_STORE_SER, 0, 0, 0.2},
        {3, PSI_STORE_SI, PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE) | PSI_FAULT_BIT(PSI_FAULT_LONG_FORK),
         0, 0},
        {4, PSI_STORE_RANDOM, 0, 0.2, 0},
    };
    unsigned accepts = 0, rejects = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.seed = cases[i].seed;
        o.sessions = 3, o.txns_per_session = 4, o.ops_per_txn = 3, o.keys = 3;
        o.store = cases[i].store;
        o.faults = cases[i].faults;
        o.fault_prob = 0.5;
        o.abort_ratio = cases[i].aborts;
        o.unknown_ratio = cases[i].unknown;
        psi_history *h;
        psi_diag d;
        assert_int_equal(psi_generate(&o, &h, NULL, &d), PSI_OK);
        assert_true(h->n_txns <= 64);
        char name[96];
        snprintf(name, sizeof name, "psi_index_build #%zu", i);
        exhaust(name, index_build, h);
        for (unsigned flags = 0; flags < 8; flags++) {
            check_case c = {h,
                            {.ser = flags & 1,
                             .no_pruning = (flags >> 1) & 1,
                             .no_coalescing = (flags >> 2) & 1,
                             .no_theory_propagation = i & 1}};
            snprintf(name, sizeof name, "psi_check #%zu %s%s%s", i, flags & 1 ? "SER" : "SI",
                     flags & 2 ? " no-pruning" : "", flags & 4 ? " no-coalescing" : "");
            outcome ref = check(&c);
            accepts += ref.hash == PSI_ACCEPT;
            rejects += ref.hash == PSI_REJECT;
            exhaust(name, check, &c);
        }
        psi_history_free(h);
    }
    assert_true(accepts > 0 && rejects > 0);
}

/* ---- writers, generator, witnesses ---- */

typedef struct write_case {
    const psi_history *h;
    psi_format fmt;
} write_case;

static outcome write_one(const void *arg)
{
    const write_case *c = arg;
    psi_diag d;
    const char *path = tmp_path("out");
    psi_status st = c->fmt == PSI_FMT_TEXT    ? psi_write_text(c->h, path, &d)
                    : c->fmt == PSI_FMT_DBCOP ? psi_write_dbcop(c->h, path, &d)
                                              : psi_write_edn(c->h, path, &d);
    uint64_t x = 0;
    if (st == PSI_OK) {
        size_t len;
        uint8_t *bytes = slurp(path, &len);
        x = fnv(0xcbf29ce484222325ull, bytes, len);
        free(bytes);
    } else if (access(path, F_OK) == 0) {
        return bad("%s", "a failed write left its output behind");
    }
    unlink(path);
    return from_status(st, &d, x);
}

static outcome generate(const void *arg)
{
    const psi_gen_opts *o = arg;
    psi_history *h = NULL;
    psi_diag d;
    psi_status st = psi_generate(o, &h, NULL, &d);
    outcome r = from_status(st, &d, h ? hash_history(h) : 0);
    psi_history_free(h);
    return r;
}

typedef struct witness_case {
    psi_history *h;
    bool ser;
} witness_case;

static outcome witness(const void *arg)
{
    const witness_case *c = arg;
    psi_check_opts co = {.ser = c->ser, .keep_model = true};
    psi_check_result r;
    psi_diag d;
    psi_status st = psi_check(c->h, &co, &r, &d);
    outcome o;
    if (st != PSI_OK) {
        psi_check_result_free(&r);
        return from_status(st, &d, 0);
    }
    if (r.verdict != PSI_ACCEPT) {
        psi_check_result_free(&r);
        return bad("%s", "the witness case must be accepted");
    }
    psi_witness w;
    st = psi_witness_build(c->h, &r, c->ser, &w, &d);
    psi_check_result_free(&r);
    if (st != PSI_OK)
        return from_status(st, &d, 0);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len); /* libc's allocations: not counted */
    assert_non_null(f);
    bool written = psi_witness_write(&w, c->h->source, f, "w", &d) == PSI_OK;
    psi_witness_free(&w);
    assert_int_equal(fclose(f), 0);
    if (!written) {
        __real_free(text);
        return bad("%s", "psi_witness_write failed");
    }
    psi_wverdict v;
    char *why = NULL;
    st = psi_witness_verify(c->h, "w", text, len, c->ser, &v, &why, &d);
    o = from_status(st, &d, st == PSI_OK ? (uint64_t)v : 0);
    if (st == PSI_OK && v != PSI_WITNESS_VALID)
        o = bad("witness refused: %s", why);
    free(why);
    __real_free(text);
    return o;
}

static void test_write_generate(void **state)
{
    (void)state;
    psi_gen_opts go;
    psi_gen_opts_default(&go);
    go.sessions = 3, go.txns_per_session = 4, go.ops_per_txn = 3, go.keys = 4;
    go.store = PSI_STORE_SER;
    go.keep_aborted = false; /* the text format has committed transactions only */
    psi_history *h;
    psi_diag d;
    assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
    write_case wc[] = {{h, PSI_FMT_TEXT}, {h, PSI_FMT_DBCOP}, {h, PSI_FMT_EDN}};
    exhaust("write text", write_one, &wc[0]);
    exhaust("write dbcop", write_one, &wc[1]);
    exhaust("write edn", write_one, &wc[2]);
    psi_history_free(h);
    psi_gen_opts o;
    psi_gen_opts_default(&o);
    o.sessions = 3, o.txns_per_session = 3, o.ops_per_txn = 3, o.keys = 5;
    o.faults = PSI_FAULT_BIT(PSI_FAULT_LONG_FORK);
    o.unknown_ratio = 0.2;
    exhaust("generate (SI store, faults)", generate, &o);
    o.store = PSI_STORE_RANDOM;
    o.abort_ratio = 0.2;
    exhaust("generate (random store)", generate, &o);
}

/* Building, writing and verifying a witness: an allocation failure must be
 * reported as out of memory, never as a cyclic model (witness.c's topo()
 * tells the two apart). */
static void test_witness(void **state)
{
    (void)state;
    psi_gen_opts go;
    psi_gen_opts_default(&go);
    go.sessions = 3, go.txns_per_session = 4, go.ops_per_txn = 3, go.keys = 4;
    go.store = PSI_STORE_SER;
    psi_history *h;
    psi_diag d;
    assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
    witness_case si = {h, false}, ser = {h, true};
    exhaust("witness SI (check, build, write, verify)", witness, &si);
    exhaust("witness SER (check, build, write, verify)", witness, &ser);
    psi_history_free(h);
}

/* ---- the solver alone ---- */

static outcome solve_text(const void *arg)
{
    const char *text = arg;
    psi_dimacs p;
    memset(&p, 0, sizeof p);
    psi_dimacs_error err;
    int rc = psi_dimacs_parse(text, strlen(text), &p, &err);
    if (rc == PSI_DIMACS_ENOMEM) {
        psi_dimacs_free(&p);
        return (outcome){.kind = OUT_NOMEM};
    }
    if (rc != PSI_DIMACS_OK) {
        psi_dimacs_free(&p);
        return bad("parse error: %s", err.msg);
    }
    psi_sat *s = psi_sat_new();
    if (!s) {
        psi_dimacs_free(&p);
        return (outcome){.kind = OUT_NOMEM};
    }
    psi_acyc *g = NULL;
    outcome o;
    rc = psi_dimacs_load(&p, s, &g, NULL, &err);
    if (rc == PSI_DIMACS_ENOMEM) {
        o = (outcome){.kind = OUT_NOMEM};
    } else if (rc != PSI_DIMACS_OK) {
        o = bad("load error: %s", err.msg);
    } else {
        int r = psi_sat_solve(s);
        if (r == PSI_SAT_ENOMEM)
            o = (outcome){.kind = OUT_NOMEM};
        else if (r == PSI_SAT_SAT || r == PSI_SAT_UNSAT)
            o = (outcome){.kind = OUT_OK, .hash = (uint64_t)r};
        else
            o = bad("%s", "solver gave up (unknown) without a limit");
    }
    psi_sat_free(s);
    psi_acyc_free(g);
    psi_dimacs_free(&p);
    return o;
}

/* Pigeonhole: n+1 pigeons, n holes (UNSAT, needs real search). */
static char *php(int n)
{
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    int vars = (n + 1) * n;
    int clauses = (n + 1) + n * (n + 1) * n / 2;
    len += (size_t)snprintf(buf + len, cap - len, "p cnf %d %d\n", vars, clauses);
    for (int p = 0; p <= n; p++) {
        for (int h = 0; h < n; h++)
            len += (size_t)snprintf(buf + len, cap - len, "%d ", p * n + h + 1);
        len += (size_t)snprintf(buf + len, cap - len, "0\n");
    }
    for (int h = 0; h < n; h++)
        for (int p = 0; p <= n; p++)
            for (int q = p + 1; q <= n; q++)
                len += (size_t)snprintf(buf + len, cap - len, "-%d -%d 0\n", p * n + h + 1,
                                        q * n + h + 1);
    return buf;
}

static void test_solver(void **state)
{
    (void)state;
    char *cnf = php(4);
    exhaust("solver: pigeonhole 5/4 (CNF)", solve_text, cnf);
    free(cnf);
    static const char sat[] = "p cnf 5 5\n1 2 3 0\n-1 -2 0\n-2 -3 0\n4 5 -1 0\n-4 -5 0\n";
    exhaust("solver: small SAT (CNF)", solve_text, sat);
    static const char gnf[] = "p cnf 7 3\n7 0\n1 2 0\n3 4 0\n"
                              "digraph int 4 6 0\nedge 0 0 1 1\nedge 0 1 0 2\nedge 0 1 2 3\n"
                              "edge 0 2 1 4\nedge 0 2 3 5\nedge 0 3 0 6\nacyclic 0 7\n";
    exhaust("solver: acyclicity (GNF)", solve_text, gnf);
    static const char gnf_si[] =
        "p cnf 6 4\n6 0\n1 0\n2 0\n3 4 0\ndigraph int 3 5 1\nedge 1 0 1 1\nantiedge 1 1 2 2\n"
        "antiedge 1 2 0 3\nedge 1 2 1 4\nedge 1 1 0 5\nacyclic_si 1 6\n";
    exhaust("solver: SI acyclicity (GNF)", solve_text, gnf_si);
}

static int setup(void **state)
{
    (void)state;
    A.slots = __real_calloc(LIVE_SLOTS, sizeof *A.slots);
    const char *base = getenv("TMPDIR");
    snprintf(tmpdir, sizeof tmpdir, "%s/psi-alloc-XXXXXX", base && *base ? base : "/tmp");
    return A.slots && mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    int rc = system(cmd);
    printf("alloc: %llu runs with injected failures over %llu allocation sites\n",
           (unsigned long long)grand.runs, (unsigned long long)grand.allocs);
    __real_free(A.slots);
    A.slots = NULL;
    return rc == 0 ? 0 : -1;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_readers), cmocka_unit_test(test_solver),
        cmocka_unit_test(test_check),   cmocka_unit_test(test_write_generate),
        cmocka_unit_test(test_witness),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
