/* psi_locate_ops (formats/locate.c): places of operations the EDN reader
 * kept when it dropped others before them (reads of an :info completion,
 * nil reads of a :fail one), and in AWDIT's test format. Before the fix the
 * k-th kept operation was placed at the k-th micro-op of the file. */
#include "rd_util.h"

#include "formats/locate.h"

static void expect_place(const psi_history *h, uint32_t op, uint64_t line, uint64_t col)
{
    psi_place pl;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_locate_ops(h, &op, 1, &pl, &d), PSI_OK);
    if (!pl.exact || pl.line != line || pl.col != col)
        fail_msg("op %u: %s %llu:%llu, expected exact %llu:%llu", op,
                 pl.exact ? "exact" : "not exact", (unsigned long long)pl.line,
                 (unsigned long long)pl.col, (unsigned long long)line, (unsigned long long)col);
    psi_places_free(&pl, 1);
}

static void test_edn_dropped_reads(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    const char *edn = "{:type :info, :f :txn, :value [[:r 1 nil] [:w 1 5]], :process 0}\n"
                      "{:type :fail, :f :txn, :value [[:r 2 nil] [:r 2 7] [:w 2 8]], :process 1}\n"
                      "{:type :fail, :f :txn, :value [[:r 3 nil] [:w 3 9]], :process 2, "
                      ":polysi/reads :observed}\n";
    char *p = rd_write(dir, "h.edn", edn, strlen(edn));
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(p, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 5);
    expect_place(h, 0, 1, 43); /* [:w 1 5], not [:r 1 nil] */
    expect_place(h, 1, 2, 43); /* [:r 2 7] */
    expect_place(h, 2, 2, 52); /* [:w 2 8] */
    expect_place(h, 3, 3, 32); /* observed: [:r 3 nil] is kept */
    expect_place(h, 4, 3, 43);
    psi_history_free(h);
    free(p);
    rd_rmdir(dir);
}

static void test_awdit(void **state)
{
    (void)state;
    char *dir = rd_tmpdir();
    const char *text = "w 0 0\n\n  w 1 0\n=====\nw 0 1\n-----\nr 0 1\n\tr 1 0\n";
    char *p = rd_write(dir, "h.txt", text, strlen(text));
    psi_history *h;
    psi_diag d;
    psi_diag_clear(&d);
    assert_int_equal(psi_read_history(p, NULL, &h, &d), PSI_OK);
    assert_int_equal(h->format, PSI_FMT_AWDIT);
    expect_place(h, 1, 3, 3);
    expect_place(h, 4, 8, 2);
    psi_history_free(h);
    free(p);
    rd_rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edn_dropped_reads),
        cmocka_unit_test(test_awdit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
