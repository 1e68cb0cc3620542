/* --initial-state recorded for the text and dbcop formats (formats/read.c):
 * a read of 0 is an ordinary read that must read a recorded write of 0,
 * never an implicit initial value; implicit (the formats' default) keeps
 * reads of 0 as reads of the initial value. Checked on the histories the
 * readers return and on verdicts, through both formats (the dbcop file is
 * written from the text), and refused for formats whose initial value is
 * not 0 (EDN, JSON, Cobra). */
#include "rd_util.h"

#include "check/check.h"
#include "formats/write.h"

static char *g_dir;

/* S1: T1 writes 7 to key 2, then T2 writes 0 to key 1 and 5 to key 2.
 * S2: T3 reads 0 from key 1 and 7 from key 2. Implicit: T3 may have read
 * key 1's initial value, and T1, T3, T2 is serializable. Recorded: T3
 * read key 1 from T2, yet key 2 from T1, which T2 overwrote: a fractured
 * read that SI forbids. */
static const char FRACTURED[] = "w(2,7,1,1)\nw(1,0,1,2)\nw(2,5,1,2)\nr(1,0,2,3)\nr(2,7,2,3)\n";
/* A read of 0 that no transaction wrote: the implicit initial value, or,
 * recorded, a read of a value never written. */
static const char UNWRITTEN[] = "w(1,5,1,1)\nr(1,0,2,2)\n";
/* A first transaction writing only 0 is the recorded initial state: it is
 * merged into the initial transaction (--init auto), and reads of its 0s
 * read it. */
static const char RECORDED_INIT[] = "w(1,0,1,1)\nw(2,0,1,1)\nr(1,0,2,2)\nw(1,7,2,2)\nr(2,0,3,3)\n"
                                    "r(1,7,3,3)\n";

static psi_history *read_as(const char *path, psi_initial_state init)
{
    psi_read_opts o = {.initial_state = init};
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    if (psi_read_history(path, &o, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    return h;
}

static int verdict(psi_history *h, psi_level level)
{
    psi_check_opts o = {.level = level, .ser = level == PSI_LEVEL_SER};
    psi_check_result r;
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_check(h, &o, &r, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    int v = (int)r.verdict;
    psi_check_result_free(&r);
    return v;
}

/* The text file `text` and its dbcop conversion; *dbcop owned by caller. */
static char *both(const char *name, const char *text, char **dbcop)
{
    char *p = rd_write(g_dir, name, text, strlen(text));
    psi_history *h = read_as(p, PSI_INITIAL_DEFAULT);
    size_t n = strlen(g_dir) + strlen(name) + 16;
    *dbcop = malloc(n);
    assert_non_null(*dbcop);
    snprintf(*dbcop, n, "%s/%s.bincode", g_dir, name);
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_write_dbcop(h, *dbcop, &d), PSI_OK);
    psi_history_free(h);
    return p;
}

static void test_reads_of_zero(void **state)
{
    (void)state;
    char *db;
    char *tx = both("u.txt", UNWRITTEN, &db);
    const char *paths[] = {tx, db};
    for (int i = 0; i < 2; i++) {
        psi_history *h = read_as(paths[i], PSI_INITIAL_IMPLICIT);
        assert_int_equal(h->initial_state, PSI_INITIAL_IMPLICIT);
        uint32_t init_reads = 0;
        for (uint32_t o = 0; o < h->n_ops; o++)
            init_reads += h->ops[o].kind == PSI_OP_READ && (h->ops[o].flags & PSI_OPF_INIT);
        assert_int_equal(init_reads, 1);
        assert_int_equal(verdict(h, PSI_LEVEL_SI), PSI_ACCEPT);
        psi_history_free(h);

        h = read_as(paths[i], PSI_INITIAL_RECORDED);
        assert_int_equal(h->initial_state, PSI_INITIAL_RECORDED);
        for (uint32_t o = 0; o < h->n_ops; o++)
            assert_false(h->ops[o].flags & PSI_OPF_INIT);
        /* Nobody wrote 0 to key 1: even RC rejects the read. */
        assert_int_equal(verdict(h, PSI_LEVEL_RC), PSI_REJECT);
        assert_int_equal(verdict(h, PSI_LEVEL_SI), PSI_REJECT);
        psi_history_free(h);
    }
    free(tx);
    free(db);
}

static void test_verdicts_differ(void **state)
{
    (void)state;
    char *db;
    char *tx = both("f.txt", FRACTURED, &db);
    const char *paths[] = {tx, db};
    for (int i = 0; i < 2; i++) {
        psi_history *h = read_as(paths[i], PSI_INITIAL_DEFAULT);
        assert_int_equal(verdict(h, PSI_LEVEL_SI), PSI_ACCEPT);
        psi_history_free(h);
        h = read_as(paths[i], PSI_INITIAL_RECORDED);
        assert_int_equal(verdict(h, PSI_LEVEL_SI), PSI_REJECT);
        assert_int_equal(verdict(h, PSI_LEVEL_RC), PSI_REJECT);
        psi_history_free(h);
    }
    free(tx);
    free(db);
    tx = both("r.txt", RECORDED_INIT, &db);
    const char *again[] = {tx, db};
    for (int i = 0; i < 2; i++) {
        psi_history *h = read_as(again[i], PSI_INITIAL_RECORDED);
        assert_int_equal(verdict(h, PSI_LEVEL_SER), PSI_ACCEPT);
        psi_history_free(h);
    }
    free(tx);
    free(db);
}

static void test_refused_elsewhere(void **state)
{
    (void)state;
    static const char JSON[] = "{\"type\":\"ok\",\"value\":[[\"w\",1,1]],\"process\":1}\n";
    static const char EDN[] = "{:type :ok, :value [[:w 1 1]], :process 1}\n";
    const struct {
        const char *name, *text;
    } cases[] = {{"h.json", JSON}, {"h.edn", EDN}};
    for (size_t i = 0; i < 2; i++) {
        char *p = rd_write(g_dir, cases[i].name, cases[i].text, strlen(cases[i].text));
        psi_read_opts o = {.initial_state = PSI_INITIAL_RECORDED};
        psi_history *h = (psi_history *)1;
        psi_diag d;
        psi_diag_clear(&d);
        assert_int_equal(psi_read_history(p, &o, &h, &d), PSI_ERR_USAGE);
        assert_non_null(strstr(d.msg, "whose initial value is not 0"));
        assert_null(h);
        free(p);
    }
    /* A directory of Cobra logs. */
    psi_read_opts o = {.initial_state = PSI_INITIAL_RECORDED, .format = PSI_FMT_COBRA};
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(g_dir, &o, &h, &d), PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "Cobra"));
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_of_zero),
        cmocka_unit_test(test_verdicts_differ),
        cmocka_unit_test(test_refused_elsewhere),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
