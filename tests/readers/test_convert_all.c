/* `convert` keeps everything (issue 12, item 7): a history written in each
 * writable format (text, dbcop, EDN, JSON) and read back says the same,
 * or the writer refuses with a message naming what the target cannot
 * express. "The same" is checked twice: identical `stats` (sessions,
 * transactions by status, operations, keys, read-only / write-only /
 * read-write counts), and the same multiset of transactions, each as its
 * status and its operations in program order (kind, key and value as
 * spelled, initial-value and list flags, observed lists). Session and
 * transaction ids are not compared: dbcop has none, and text gives an
 * aborted write (TXN -1) a fresh id.
 *
 * Whether a target must refuse is predicted here from the history alone
 * (expect_refusal), independently of the writers, and the writer must
 * agree both ways: a refusal that was not predicted is a failure, and so is
 * a conversion that should have been refused.
 *
 * Inputs: the workload generator's histories (plain, aborted, unknown,
 * repeated values, explicit initial state, unconstrained reads) through
 * every pair of formats (two hops), hand-written EDN and JSON ones
 * (list-append, observed reads of aborted and unknown transactions, reads
 * of 0 that are not the initial value), and, as test
 * readers_convert_all_corpus, the corpus histories through every format
 * (one hop; a deterministic sample of the VeriStrong histories, see
 * corpus_sample). As readers_convert_all_whole_corpus (argument
 * `corpus-all`, registered for optimised builds without sanitizers, which
 * CI runs after its Release build) every corpus history of every size
 * makes the same trip: cheap at -O2, too slow for the ASan budget. */
#include "rd_util.h"

#include "formats/write.h"
#include "interpret/render.h"
#include "support/corpus.h"
#include "workload/gen.h"

#include <dirent.h>
#include <sys/wait.h>

static char *g_dir;
/* Conversions done and refused, per format (TARGETS order), so a test can
 * assert it exercised both. */
static size_t g_done[4], g_refused[4];

static const psi_format TARGETS[] = {PSI_FMT_TEXT, PSI_FMT_DBCOP, PSI_FMT_EDN, PSI_FMT_JSON};

/* `stats` without its first line (the path and the format). */
static char *stats_of(const psi_history *h)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    assert_non_null(f);
    assert_true(psi_render_history_text(h, "x", f));
    fclose(f);
    char *nl = strchr(buf, '\n');
    assert_non_null(nl);
    memmove(buf, nl + 1, strlen(nl + 1) + 1);
    return buf;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One string per recorded transaction (see the file comment), sorted. */
static char **signatures(const psi_history *h)
{
    char **sig = calloc(h->n_txns ? h->n_txns : 1, sizeof *sig);
    assert_non_null(sig);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        char *buf = NULL;
        size_t n = 0;
        FILE *f = open_memstream(&buf, &n);
        assert_non_null(f);
        fprintf(f, "%u:", (unsigned)tx->status);
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            uint32_t o = tx->first_op + i;
            const psi_op *op = &h->ops[o];
            char kb[24], vb[24];
            fprintf(f, " %c%s/%s/%u", op->kind == PSI_OP_READ ? 'r' : 'w',
                    psi_history_key_name(h, op->key, kb),
                    (op->flags & PSI_OPF_INIT) && !(op->flags & PSI_OPF_LIST)
                        ? "init"
                        : psi_history_value_name(h, op->value, vb),
                    (unsigned)op->flags);
            uint32_t len;
            const uint64_t *vals = psi_history_list(h, o, &len);
            for (uint32_t j = 0; vals && j < len; j++)
                fprintf(f, "%s%s", j ? "," : "[", psi_history_value_name(h, vals[j], vb));
            if (vals)
                fputs(len ? "]" : "[]", f);
        }
        fclose(f);
        sig[t - 1] = buf;
    }
    qsort(sig, h->n_txns ? h->n_txns - 1 : 0, sizeof *sig, cmp_str);
    return sig;
}

static void free_sigs(char **sig, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(sig[i]);
    free(sig);
}

/* Asserts that a and b say the same (see the file comment). */
static void assert_same_content(const psi_history *a, const psi_history *b, const char *what)
{
    char *sa = stats_of(a), *sb = stats_of(b);
    if (strcmp(sa, sb) != 0)
        fail_msg("%s: stats differ:\n%s---\n%s", what, sa, sb);
    free(sa);
    free(sb);
    assert_int_equal(a->n_txns, b->n_txns);
    char **x = signatures(a), **y = signatures(b);
    for (uint32_t i = 0; i + 1 < a->n_txns; i++)
        if (strcmp(x[i], y[i]) != 0)
            fail_msg("%s: transactions differ:\n%.300s\n%.300s", what, x[i], y[i]);
    free_sigs(x, a->n_txns - 1);
    free_sigs(y, b->n_txns - 1);
}

/* Whether 0 is the initial value of h's format (a written 0 may be read by
 * a read of 0), as core/index.c has it. */
static bool zero_is_initial(const psi_history *h)
{
    return h->format != PSI_FMT_EDN && h->format != PSI_FMT_JSON && h->format != PSI_FMT_COBRA;
}

/* Whether a key or value spelling is a keyword or symbol (JSON has
 * neither). */
static bool keyword_or_symbol(const char *s)
{
    return s[0] == ':' || (s[0] != '"' && s[0] != '-' && (s[0] < '0' || s[0] > '9') &&
                           strcmp(s, "true") != 0 && strcmp(s, "false") != 0);
}

static bool json_cannot_spell(const psi_history *h)
{
    for (uint32_t k = 0; h->key_names && k < h->n_keys; k++)
        if (keyword_or_symbol(h->key_names[k]))
            return true;
    for (uint64_t v = 0; h->value_names && v < h->n_value_names; v++)
        if (keyword_or_symbol(h->value_names[v]))
            return true;
    return false;
}

/* Why `to` cannot express h (a word the writer's message must contain), or
 * NULL when it can. */
static const char *expect_refusal(const psi_history *h, psi_format to)
{
    bool jepsen = to == PSI_FMT_EDN || to == PSI_FMT_JSON;
    if (psi_history_has_names(h) && !jepsen)
        return "not an integer";
    if (to == PSI_FMT_JSON && json_cannot_spell(h))
        return "JSON cannot spell";
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        const psi_op *ops = psi_txn_ops(h, t);
        if (!jepsen && tx->status == PSI_TXN_UNKNOWN)
            return "unknown outcome";
        if (to == PSI_FMT_TEXT && tx->n_ops == 0)
            return "no operations";
        if (to == PSI_FMT_TEXT && tx->status == PSI_TXN_ABORTED &&
            (tx->n_ops != 1 || ops[0].kind != PSI_OP_WRITE))
            return "TXN -1";
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            bool zero = ops[i].value == 0 && !(ops[i].flags & (PSI_OPF_LIST | PSI_OPF_INIT));
            if (!jepsen && (ops[i].flags & (PSI_OPF_LIST | PSI_OPF_APPEND)))
                return "list-append";
            if (!jepsen && zero && !zero_is_initial(h))
                return "value 0";
            if (jepsen && zero && ops[i].kind == PSI_OP_WRITE && zero_is_initial(h))
                return "value 0";
        }
    }
    return NULL;
}

static size_t target_index(psi_format f)
{
    for (size_t i = 0; i < sizeof TARGETS / sizeof TARGETS[0]; i++)
        if (TARGETS[i] == f)
            return i;
    fail_msg("not a target: %s", psi_format_name(f));
    return 0;
}

static const char *ext(psi_format f)
{
    return f == PSI_FMT_TEXT ? "txt" : f == PSI_FMT_DBCOP ? "bincode" : psi_format_name(f);
}

/* Writes h as `to` and reads it back (NULL when refused, as predicted). */
static psi_history *convert(const psi_history *h, psi_format to, const char *what)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/rt.%s", g_dir, ext(to));
    const char *why = expect_refusal(h, to);
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_write_history(h, to, path, NULL, &d);
    if (why) {
        if (st != PSI_ERR_INPUT || !strstr(d.msg, "cannot write as") || !strstr(d.msg, why))
            fail_msg("%s -> %s: expected a refusal (%s), got %s: %s", what, psi_format_name(to),
                     why, psi_status_name(st), d.msg);
        g_refused[target_index(to)]++;
        return NULL;
    }
    if (st != PSI_OK)
        fail_msg("%s -> %s: %s", what, psi_format_name(to), d.msg);
    psi_read_opts o = {.format = to};
    psi_history *back;
    psi_diag_clear(&d);
    if (psi_read_history(path, &o, &back, &d) != PSI_OK)
        fail_msg("%s -> %s, read back: %s", what, psi_format_name(to), d.msg);
    unlink(path);
    assert_int_equal(back->format, to);
    g_done[target_index(to)]++;
    return back;
}

/* h through every target, and with `two_hops` every result through every
 * target again. */
static void round_trips(const psi_history *h, const char *what, bool two_hops)
{
    for (size_t i = 0; i < sizeof TARGETS / sizeof TARGETS[0]; i++) {
        psi_history *h1 = convert(h, TARGETS[i], what);
        if (!h1)
            continue;
        assert_same_content(h, h1, what);
        for (size_t j = 0; two_hops && j < sizeof TARGETS / sizeof TARGETS[0]; j++) {
            psi_history *h2 = convert(h1, TARGETS[j], what);
            if (!h2)
                continue;
            assert_same_content(h, h2, what);
            psi_history_free(h2);
        }
        psi_history_free(h1);
    }
}

static void test_generated(void **state)
{
    (void)state;
    for (int variant = 0; variant < 7; variant++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.sessions = 4;
        o.txns_per_session = 12;
        o.ops_per_txn = 4;
        o.keys = 8;
        o.seed = 1000 + (uint64_t)variant;
        const char *what = "generated";
        switch (variant) {
        case 1:
            o.abort_ratio = 0.3, o.keep_aborted = true, what = "generated, aborted";
            break;
        case 2:
            o.unknown_ratio = 0.3, what = "generated, unknown";
            break;
        case 3:
            o.value_range = 2, what = "generated, repeated values";
            break;
        case 4:
            o.explicit_init = true, what = "generated, explicit initial state";
            break;
        case 5:
            o.store = PSI_STORE_RANDOM, what = "generated, unconstrained reads";
            break;
        case 6:
            o.abort_ratio = 0.3, o.keep_aborted = true, o.ops_per_txn = 1, o.read_ratio = 0;
            what = "generated, aborted single writes";
            break;
        default:
            break;
        }
        psi_history *h;
        psi_diag d;
        psi_diag_clear(&d);
        if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
            fail_msg("%s: %s", what, d.msg);
        round_trips(h, what, true);
        psi_history_free(h);
    }
    /* Every format both wrote and refused something. */
    for (size_t i = 0; i < 4; i++) {
        assert_true(g_done[i] > 0);
        assert_true(g_refused[i] > 0);
    }
}

/* Jepsen histories: list-append, reads of aborted and unknown transactions
 * kept (observed), a read of 0 that is not the initial value, a write of
 * 0 (an ordinary value in EDN), empty-list reads. */
static void test_jepsen(void **state)
{
    (void)state;
    static const char *const edn[] = {
        "{:type :ok, :value [[:append 1 1] [:r 2 []]], :process 0, :index 1}\n"
        "{:type :fail, :value [[:append 2 5] [:r 1 [1]]], :process 1, :index 2}\n"
        "{:type :info, :value [[:append 2 6] [:r 1 nil]], :process 1, :index 3, "
        ":polysi/reads :observed}\n"
        "{:type :ok, :value [[:r 1 [1]] [:append 1 2] [:r 1 [1 2]]], :process 2, :index 4}\n",
        "{:type :ok, :value [[:r 1 nil] [:w 1 3] [:w 2 4]], :process 0, :index 1}\n"
        "{:type :fail, :value [[:r 1 nil] [:w 1 5]], :process 1, :index 2, :polysi/reads "
        ":observed}\n"
        "{:type :fail, :value [[:w 2 7]], :process 1, :index 3}\n"
        "{:type :info, :value [[:r 2 4] [:w 1 8]], :process 2, :index 4, :polysi/reads "
        ":observed}\n"
        "{:type :ok, :value [[:r 1 3] [:r 2 7]], :process 3, :index 5}\n",
        "{:type :ok, :value [[:r 1 0] [:w 2 1]], :process 0}\n",
        "{:type :ok, :value [[:w \"x\" -1] [:w 2 true]], :process 0}\n"
        "{:type :ok, :value [[:r \"x\" -1] [:r 2 nil]], :process 1}\n",
        "{:type :ok, :value [[:w :x 1] [:w 2 :v]], :process 0}\n"
        "{:type :ok, :value [[:r :x 1]], :process 1}\n",
        "{:type :ok, :value [[:w 1 1]], :process 0}\n{:type :ok, :value [], :process 1}\n",
        "{:type :ok, :value [[:w 1 0] [:w 2 1]], :process 0}\n"
        "{:type :ok, :value [[:r 1 0] [:r 2 nil]], :process 1}\n",
    };
    for (size_t i = 0; i < sizeof edn / sizeof edn[0]; i++) {
        psi_history *h;
        psi_diag d;
        psi_diag_clear(&d);
        if (psi_read_edn_buf("j.edn", edn[i], strlen(edn[i]), 0, &h, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        round_trips(h, edn[i], true);
        psi_history_free(h);
    }
}

/* The CLI says the same and exits 2 on a refusal. */
static void test_cli_refusal(void **state)
{
    (void)state;
    const char *cli = getenv("PSI_CLI");
    if (!cli)
        skip();
    static const char EDN[] = "{:type :ok, :value [[:append 1 1]], :process 0}\n";
    char *in = rd_write(g_dir, "la.edn", EDN, strlen(EDN));
    char cmd[9000];
    snprintf(cmd, sizeof cmd, "'%s' convert --to text '%s' '%s/out.txt' 2>'%s/err'", cli, in, g_dir,
             g_dir);
    int rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 2);
    char err[4200];
    snprintf(err, sizeof err, "%s/err", g_dir);
    size_t n;
    unsigned char *msg = rd_slurp(err, &n);
    assert_non_null(strstr((char *)msg, "cannot write as text"));
    assert_non_null(strstr((char *)msg, "list-append"));
    free(msg);
    snprintf(cmd, sizeof cmd, "'%s' convert --to json '%s' '%s/out.json' 2>/dev/null", cli, in,
             g_dir);
    rc = system(cmd);
    assert_true(WIFEXITED(rc));
    assert_int_equal(WEXITSTATUS(rc), 0);
    free(in);
}

/* ---- The corpus ---- */

typedef struct path_list {
    char **v;
    size_t n, cap;
} path_list;

static void add_path(path_list *l, const char *p)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 64;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        assert_non_null(l->v);
    }
    l->v[l->n] = strdup(p);
    assert_non_null(l->v[l->n]);
    l->n++;
}

/* Every history under dir: history.bincode files, *.txt files and
 * directories of Cobra logs (T<n>.log). */
static void find_histories(const char *dir, path_list *out)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    bool cobra = false;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (stat(p, &sb) != 0)
            continue;
        size_t n = strlen(e->d_name);
        if (S_ISDIR(sb.st_mode))
            find_histories(p, out);
        else if (strcmp(e->d_name, "history.bincode") == 0 ||
                 (n > 4 && strcmp(e->d_name + n - 4, ".txt") == 0))
            add_path(out, p);
        else if (e->d_name[0] == 'T' && n > 4 && strcmp(e->d_name + n - 4, ".log") == 0)
            cobra = true;
    }
    closedir(d);
    if (cobra)
        add_path(out, dir);
}

/* Which corpus histories to convert, to stay within the CI budget: every
 * one outside veristrong-artifact/si-galera-all-writes (about forty) and
 * every 50th of those 250 (in sorted order). Histories of more than
 * 50000 operations are skipped (ten: PolySI's fig8 histories, the larger
 * fig7 ones; the same readers and writers run on the smaller ones). About
 * 20 s of CPU under ASan. */
static bool corpus_sample(const char *path, size_t *galera_seen)
{
    if (!strstr(path, "si-galera-all-writes"))
        return true;
    return (*galera_seen)++ % 50 == 0;
}

/* *state: a bool, true for every history of every size (corpus-all),
 * false for the sample. */
static void test_corpus(void **state)
{
    const bool whole = *(const bool *)*state;
    const char *root = psi_corpus();
    assert_non_null(root);
    path_list l = {0};
    find_histories(root, &l);
    qsort(l.v, l.n, sizeof *l.v, cmp_str);
    assert_true(l.n > 0);
    size_t galera = 0, done = 0, big = 0;
    for (size_t i = 0; i < l.n; i++) {
        if (whole || corpus_sample(l.v[i], &galera)) {
            psi_history *h;
            psi_diag d;
            psi_diag_clear(&d);
            psi_read_opts o = {.max_ops = whole ? 0 : 50000};
            psi_status st = psi_read_history(l.v[i], &o, &h, &d);
            if (st == PSI_ERR_LIMIT) {
                big++;
            } else {
                if (st != PSI_OK)
                    fail_msg("%s", d.msg);
                round_trips(h, l.v[i], false);
                psi_history_free(h);
                done++;
            }
        }
        free(l.v[i]);
    }
    free(l.v);
    fprintf(stderr,
            "converted %zu of %zu corpus histories through text, dbcop, EDN and JSON (%zu over "
            "50000 operations skipped)\n",
            done, l.n, big);
    assert_true(done >= 20);
    /* The whole corpus means all of it: nothing skipped, nothing sampled. */
    if (whole)
        assert_true(done == l.n && big == 0);
}

static int setup(void **state)
{
    (void)state;
    g_dir = rd_tmpdir();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    rd_rmdir(g_dir);
    return 0;
}

int main(int argc, char **argv)
{
    bool whole = argc > 1 && strcmp(argv[1], "corpus-all") == 0;
    if (whole || (argc > 1 && strcmp(argv[1], "corpus") == 0)) {
        psi_corpus_or_skip("round trips of corpus histories through every format");
        const struct CMUnitTest corpus_tests[] = {
            cmocka_unit_test_prestate(test_corpus, &whole),
        };
        return cmocka_run_group_tests(corpus_tests, setup, teardown);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generated),
        cmocka_unit_test(test_jepsen),
        cmocka_unit_test(test_cli_refusal),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
