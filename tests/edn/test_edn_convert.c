/* Conversions to and from EDN preserve a history exactly:
 * text -> history -> edn -> history -> text gives the same text, and the
 * histories agree array by array (a hand-made history and the corpus' text
 * histories); dbcop and Cobra corpus histories converted to EDN read back
 * the same. The corpus cases run as their own CTest test (argument
 * `corpus`, test edn_convert_corpus), skipped when ../shared/corpus is
 * absent; the others always run. */
#include "edn_helpers.h"
#include "support/corpus.h"

/* Set by main for the corpus cases. */
static const char *corpus_dir;

static char *write_to_string(psi_status (*writer)(const psi_history *, const char *, psi_diag *),
                             const psi_history *h, size_t *len)
{
    char path[64];
    edn_temp_path(path);
    psi_diag d;
    psi_status st = writer(h, path, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    char *text = edn_slurp(path, len);
    unlink(path);
    return text;
}

static void text_edn_text(const char *name, const char *text0, size_t len0)
{
    psi_diag d;
    psi_history *h0, *canon, *h1, *h2;
    if (psi_read_text_buf(name, text0, len0, 0, &h0, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    /* The text writer puts sessions in order: read that back as the
     * canonical history every later step must reproduce exactly. */
    size_t len1, len_edn, len2;
    char *text1 = write_to_string(psi_write_text, h0, &len1);
    if (psi_read_text_buf(name, text1, len1, 0, &canon, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    edn_assert_equivalent(h0, canon);

    char *edn = write_to_string(psi_write_edn, canon, &len_edn);
    if (psi_read_edn_buf("x.edn", edn, len_edn, 0, &h1, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    edn_assert_same(canon, h1, false);

    char *text2 = write_to_string(psi_write_text, h1, &len2);
    assert_int_equal(len1, len2);
    assert_memory_equal(text1, text2, len1);
    if (psi_read_text_buf(name, text2, len2, 0, &h2, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    edn_assert_same(canon, h2, true);

    free(text1);
    free(text2);
    free(edn);
    psi_history_free(h0);
    psi_history_free(canon);
    psi_history_free(h1);
    psi_history_free(h2);
}

static void test_hand_made(void **state)
{
    (void)state;
    /* sessions interleave; reads of 0 are initial-value reads */
    const char *text = "w(1,5,2,20)\n"
                       "r(1,0,1,10)\n"
                       "w(2,7,1,10)\n"
                       "r(2,7,2,20)\n"
                       "r(1,5,1,11)\n"
                       "w(1,6,1,11)\n"
                       "r(18446744073709551615,0,9,30)\n"
                       "w(18446744073709551615,18446744073709551615,9,31)\n";
    text_edn_text("hand.txt", text, strlen(text));
}

static void test_corpus(void **state)
{
    (void)state;
    const char *files[] = {"polysi-artifact/violations/galera/galera.txt",
                           "polysi-artifact/violations/yugabyte/yugabyte.txt"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus_dir, files[i]);
        if (access(path, R_OK) != 0)
            fail_msg("corpus file %s is missing", path);
        size_t len;
        char *text = edn_slurp(path, &len);
        text_edn_text(path, text, len);
        free(text);
    }
}

/* Real dbcop and Cobra histories: history -> edn -> history says the same
 * thing (these hold no reads of aborted or unknown transactions, which EDN
 * cannot carry). */
static void test_binary_corpus(void **state)
{
    (void)state;
    const char *paths[] = {"polysi-artifact/fig7/5_100_15_10000_0.5_uniform/history.bincode",
                           "polysi-artifact/fig8_9_10/rubis-10000"};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", corpus_dir, paths[i]);
        if (access(path, R_OK) != 0)
            fail_msg("corpus path %s is missing", path);
        psi_read_opts opts = {0};
        psi_history *h0, *h1;
        psi_diag d;
        if (psi_read_history(path, &opts, &h0, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        size_t len;
        char *edn = write_to_string(psi_write_edn, h0, &len);
        if (psi_read_edn_buf("x.edn", edn, len, 0, &h1, &d) != PSI_OK)
            fail_msg("%s", d.msg);
        edn_assert_equivalent(h0, h1);
        free(edn);
        psi_history_free(h0);
        psi_history_free(h1);
    }
}

/* psi_read_history finds EDN by name and by content and reaches this reader. */
static void test_read_history(void **state)
{
    (void)state;
    const char *texts[] = {"{:type :ok, :f :txn, :value [[:w 1 2]], :process 3}\n",
                           "[{:type :ok, :f :txn, :value [[:w 1 2]], :process 3}]\n"};
    for (size_t i = 0; i < 2; i++) {
        char path[64];
        edn_temp_path(path);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fputs(texts[i], f);
        fclose(f);
        psi_read_opts opts = {0};
        psi_history *h;
        psi_diag d;
        psi_status st = psi_read_history(path, &opts, &h, &d);
        unlink(path);
        if (st != PSI_OK)
            fail_msg("%s", d.msg);
        assert_int_equal(h->format, PSI_FMT_EDN);
        assert_string_equal(h->source, path);
        edn_assert_op(h, edn_txn(h, 3, 0), 0, PSI_OP_WRITE, 1, 2, 0);
        psi_history_free(h);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "corpus") == 0) {
        corpus_dir = psi_corpus_or_skip("EDN conversions of corpus histories");
        const struct CMUnitTest corpus_tests[] = {
            cmocka_unit_test(test_corpus),
            cmocka_unit_test(test_binary_corpus),
        };
        return cmocka_run_group_tests(corpus_tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_made),
        cmocka_unit_test(test_read_history),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
