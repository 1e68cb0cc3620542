/* Loads every history of the shared corpus (PSI_CORPUS) with format
 * detection, checks the sizes the corpus README states, and round-trips
 * each through the dbcop and text writers. Every case needs the corpus: the
 * program is skipped (exit 77, CTest "Skipped") when it is not there. */
#include "rd_util.h"
#include "support/corpus.h"

/* Set by main; never NULL in the cases. */
static const char *g_corpus;

static psi_history *load(const char *rel)
{
    char path[2048];
    snprintf(path, sizeof path, "%s/%s", g_corpus, rel);
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_read_history(path, NULL, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

static void test_fig7_known_sizes(void **state)
{
    (void)state;
    psi_history *h = load("polysi-artifact/fig7/5_100_15_10000_0.5_uniform/history.bincode");
    assert_int_equal(h->format, PSI_FMT_DBCOP);
    assert_int_equal(h->n_sessions, 5);
    assert_int_equal(h->n_txns - 1, 500);
    assert_int_equal(h->n_ops, 7500);
    assert_int_equal(rd_count_kind(h, PSI_OP_WRITE), 3805);
    assert_int_equal(rd_count_kind(h, PSI_OP_READ), 3695);
    assert_int_equal(rd_count_status(h, PSI_TXN_COMMITTED), 500);
    assert_string_equal(h->dbcop.info, "PostgreSQL");
    assert_int_equal(h->dbcop.n_sessions, 5);
    assert_int_equal(h->dbcop.n_txns, 100);
    assert_int_equal(h->dbcop.n_evts, 15);
    psi_history_free(h);
}

static void test_rubis_known_sizes(void **state)
{
    (void)state;
    psi_history *h = load("polysi-artifact/fig8_9_10/rubis-10000");
    assert_int_equal(h->format, PSI_FMT_COBRA);
    assert_int_equal(h->n_sessions, 24);
    assert_int_equal(rd_count_status(h, PSI_TXN_COMMITTED), 9358);
    assert_int_equal(h->n_txns - 1, 9358);
    assert_int_equal(rd_count_kind(h, PSI_OP_WRITE), 11257);
    assert_int_equal(rd_count_kind(h, PSI_OP_READ), 35770);
    psi_history_free(h);
}

static void test_galera_lost_update(void **state)
{
    (void)state;
    psi_history *h = load("polysi-artifact/violations/galera/galera.txt");
    assert_int_equal(h->format, PSI_FMT_TEXT);
    assert_int_equal(h->n_ops, 14);
    /* (1,2) writes 4 on key 0; (1,3) and (2,8) read it */
    uint32_t readers = 0;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_op *o = psi_txn_ops(h, t);
        if (h->txns[t].id == 2)
            assert_int_equal(o[h->txns[t].n_ops - 1].value, 4);
        if ((h->txns[t].id == 3 || h->txns[t].id == 8) && o[0].kind == PSI_OP_READ &&
            o[0].value == 4)
            readers++;
    }
    assert_int_equal(readers, 2);
    psi_history_free(h);
}

/* ---- every history ---- */

typedef struct found {
    char **paths;
    size_t n, cap;
} found;

static found g_found;

static void add_path(const char *p)
{
    if (g_found.n == g_found.cap) {
        g_found.cap = g_found.cap ? 2 * g_found.cap : 64;
        g_found.paths = realloc(g_found.paths, g_found.cap * sizeof *g_found.paths);
        assert_non_null(g_found.paths);
    }
    g_found.paths[g_found.n] = strdup(p);
    assert_non_null(g_found.paths[g_found.n]);
    g_found.n++;
}

static bool has_cobra_logs(const char *dir)
{
    DIR *dh = opendir(dir);
    if (!dh)
        return false;
    bool yes = false;
    struct dirent *e;
    while (!yes && (e = readdir(dh)) != NULL) {
        size_t n = strlen(e->d_name);
        yes = e->d_name[0] == 'T' && n > 5 && strcmp(e->d_name + n - 4, ".log") == 0;
    }
    closedir(dh);
    return yes;
}

/* Collects history paths under dir: dbcop files, the text violations, and
 * directories holding Cobra logs (the cnf/ instances are not histories). */
static void walk(const char *dir)
{
    if (has_cobra_logs(dir)) {
        add_path(dir);
        return;
    }
    DIR *dh = opendir(dir);
    assert_non_null(dh);
    struct dirent *e;
    while ((e = readdir(dh)) != NULL) {
        if (e->d_name[0] == '.' || strcmp(e->d_name, "cnf") == 0)
            continue;
        char p[2048];
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat sb;
        if (lstat(p, &sb) != 0)
            continue;
        if (S_ISDIR(sb.st_mode))
            walk(p);
        else if (strcmp(e->d_name, "history.bincode") == 0 ||
                 (strstr(p, "/violations/") && strstr(e->d_name, ".txt")))
            add_path(p);
    }
    closedir(dh);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Writes h as dbcop and as text (when the format can say it) into dir and
 * reads each back: the same structure, ids too through text; a dbcop file
 * from the PolySI artifact (every event succeeded) comes back byte for
 * byte. */
static void round_trip(const psi_history *h, const char *src, const char *dir)
{
    char pd[1024], pt[1024];
    snprintf(pd, sizeof pd, "%s/rt.bincode", dir);
    snprintf(pt, sizeof pt, "%s/rt.txt", dir);
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_write_dbcop(h, pd, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    psi_history *back;
    if (psi_read_history(pd, NULL, &back, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    rd_assert_same(h, back, false);
    psi_history_free(back);
    if (h->format == PSI_FMT_DBCOP && strstr(src, "/polysi-artifact/")) {
        size_t n1, n2;
        unsigned char *a = rd_slurp(src, &n1), *b = rd_slurp(pd, &n2);
        if (n1 != n2 || memcmp(a, b, n1) != 0)
            fail_msg("%s: dbcop round trip changed the bytes", src);
        free(a);
        free(b);
    }
    if (rd_count_status(h, PSI_TXN_COMMITTED) == h->n_txns - 1) {
        if (psi_write_text(h, pt, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        if (psi_read_history(pt, NULL, &back, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        rd_assert_same(h, back, true);
        psi_history_free(back);
    }
    unlink(pd);
    unlink(pt);
}

static void test_load_everything(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    walk(g_corpus);
    qsort(g_found.paths, g_found.n, sizeof *g_found.paths, cmp_str);
    size_t by_fmt[5] = {0}, fig7 = 0, fig8 = 0, violations = 0, galera = 0, ser = 0;
    uint64_t ops = 0;
    for (size_t i = 0; i < g_found.n; i++) {
        const char *p = g_found.paths[i];
        psi_history *h;
        psi_diag d;
        psi_diag_clear(&d);
        if (psi_read_history(p, NULL, &h, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        assert_true(h->n_ops > 0);
        assert_true(h->n_sessions > 0);
        by_fmt[h->format]++;
        ops += h->n_ops;
        fig7 += strstr(p, "/fig7/") != NULL;
        fig8 += strstr(p, "/fig8_9_10/") != NULL;
        violations += strstr(p, "/violations/") != NULL;
        galera += strstr(p, "/si-galera-all-writes/") != NULL;
        ser += strstr(p, "/ser-violations/") != NULL;
        round_trip(h, p, dir);
        psi_history_free(h);
        free(g_found.paths[i]);
    }
    fprintf(stderr,
            "loaded and round-tripped %zu histories (%zu text, %zu dbcop, %zu cobra), %llu "
            "operations: fig7 %zu, "
            "fig8_9_10 %zu, violations %zu, si-galera %zu, ser-violations %zu\n",
            g_found.n, by_fmt[PSI_FMT_TEXT], by_fmt[PSI_FMT_DBCOP], by_fmt[PSI_FMT_COBRA],
            (unsigned long long)ops, fig7, fig8, violations, galera, ser);
    free(g_found.paths);
    rd_rmdir(dir);
    assert_int_equal(fig7, 31);
    assert_int_equal(fig8, 6);
    assert_int_equal(violations, 3);
    assert_int_equal(galera, 250);
    assert_int_equal(ser, 5);
}

int main(void)
{
    g_corpus = psi_corpus_or_skip("loading the corpus");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig7_known_sizes),
        cmocka_unit_test(test_rubis_known_sizes),
        cmocka_unit_test(test_galera_lost_update),
        cmocka_unit_test(test_load_everything),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
