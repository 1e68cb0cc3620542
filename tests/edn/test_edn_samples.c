/* The sample histories in tests/edn/data read as documented, and the
 * validation pass (core/index) settles their :info transactions: one whose
 * write is observed becomes committed, one never observed stays unknown. */
#include "edn_helpers.h"

#include "core/index.h"

static psi_history *read_sample(const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", EDN_DATA, file);
    psi_read_opts opts = {0};
    psi_history *h;
    psi_diag d;
    if (psi_read_history(path, &opts, &h, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(h->format, PSI_FMT_EDN);
    return h;
}

static void test_list_append_sample(void **state)
{
    (void)state;
    psi_history *h = read_sample("list-append.edn");
    assert_int_equal(h->n_sessions, 4); /* processes 0, 1, 2, 3; the nemesis is skipped */
    assert_int_equal(h->n_txns, 7);
    const psi_txn *t = edn_txn(h, 0, 0);
    assert_int_equal(t->id, 2);
    assert_int_equal(t->src, 3);
    edn_assert_op(h, t, 1, PSI_OP_READ, 2, 0, PSI_OPF_LIST | PSI_OPF_INIT);
    t = edn_txn(h, 0, 1);
    assert_int_equal(t->id, 8);
    assert_int_equal(t->status, PSI_TXN_ABORTED);
    assert_int_equal(t->n_ops, 1); /* [:r 3 nil] of a :fail is unknown */
    t = edn_txn(h, 1, 0);
    assert_int_equal(t->id, 4);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);
    assert_int_equal(t->n_ops, 1);
    edn_assert_op(h, t, 0, PSI_OP_WRITE, 2, 1, PSI_OPF_APPEND);
    t = edn_txn(h, 2, 0);
    assert_int_equal(t->id, 9);
    assert_int_equal(t->src, 10);
    assert_int_equal(t->status, PSI_TXN_UNKNOWN);

    psi_index idx;
    psi_diag d;
    if (psi_index_build(h, &idx, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(idx.n_promoted, 1); /* process 1's append to key 2 was read */
    assert_int_equal(idx.n_unknown, 1);  /* process 2's append to key 3 never was */
    assert_int_equal(idx.n_aborted, 1);
    assert_int_equal(idx.n_committed, 4);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(edn_txn(h, 1, 0)->status, PSI_TXN_COMMITTED);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_rw_register_sample(void **state)
{
    (void)state;
    psi_history *h = read_sample("rw-register.edn");
    assert_int_equal(h->n_sessions, 3);
    assert_int_equal(h->n_txns, 6);
    const psi_txn *t = edn_txn(h, 0, 1);
    assert_int_equal(t->id, 5);
    edn_assert_op(h, t, 0, PSI_OP_READ, 1, 7, 0);
    t = edn_txn(h, 3, 0);
    assert_int_equal(t->status, PSI_TXN_ABORTED);
    assert_int_equal(t->n_ops, 1);

    psi_index idx;
    psi_diag d;
    if (psi_index_build(h, &idx, &d) != PSI_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(idx.n_promoted, 1);
    assert_int_equal(idx.n_unknown, 0);
    assert_int_equal(idx.n_aborted, 1);
    assert_int_equal(idx.n_committed, 4);
    assert_int_equal(idx.n_anomalies, 0);
    psi_index_free(&idx);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_append_sample),
        cmocka_unit_test(test_rw_register_sample),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
