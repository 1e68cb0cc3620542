/* Validation and graph-free anomalies: WR resolution, final writes, INT,
 * G1a, G1b, unwritten reads, duplicate writes, unknown outcomes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builds a history from "S:ID:STATUS op op ...; ..." where STATUS is c, a or
 * u and an op is wK=V, rK=V or rK=_ (initial value). */
static psi_history *mk(const char *spec)
{
    psi_diag d;
    psi_builder *b = psi_builder_new("spec", PSI_FMT_TEXT);
    const char *p = spec;
    while (*p) {
        unsigned long long s, id;
        char stc;
        int n;
        assert_int_equal(sscanf(p, " %llu:%llu:%c%n", &s, &id, &stc, &n), 3);
        p += n;
        assert_int_equal(psi_builder_begin(b, s, id, 0, &d), PSI_OK);
        for (;;) {
            while (*p == ' ')
                p++;
            if (*p == ';' || *p == '\0')
                break;
            char kind = *p++;
            unsigned long long k, v = 0;
            assert_int_equal(sscanf(p, "%llu=%n", &k, &n), 1);
            p += n;
            unsigned flags = 0;
            if (*p == '_') {
                flags = PSI_OPF_INIT;
                p++;
            } else {
                assert_int_equal(sscanf(p, "%llu%n", &v, &n), 1);
                p += n;
            }
            assert_int_equal(
                psi_builder_op(b, kind == 'w' ? PSI_OP_WRITE : PSI_OP_READ, k, v, flags, &d),
                PSI_OK);
        }
        psi_txn_status st = stc == 'c'   ? PSI_TXN_COMMITTED
                            : stc == 'a' ? PSI_TXN_ABORTED
                                         : PSI_TXN_UNKNOWN;
        assert_int_equal(psi_builder_end(b, st, &d), PSI_OK);
        if (*p == ';')
            p++;
    }
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

static size_t count(const psi_index *idx, psi_anomaly_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < idx->n_anomalies; i++)
        n += idx->anomalies[i].kind == k;
    return n;
}

static void test_clean_history(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:c w1=1 w1=2 r1=2 w2=5; 2:2:c r1=2 r2=_ r1=2 w1=3; 2:3:c r2=5");
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(idx.n_committed, 3);
    /* txn (1,1): ops 0..3; w1=1 is not final, w1=2 is. */
    assert_false(idx.op_info[0] & PSI_OI_FINAL_WRITE);
    assert_true(idx.op_info[1] & PSI_OI_FINAL_WRITE);
    assert_false(idx.op_info[2] & PSI_OI_EXTERNAL_READ); /* reads own write */
    assert_true(idx.op_info[3] & PSI_OI_FINAL_WRITE);
    /* txn (2,2): ops 4..7 */
    assert_true(idx.op_info[4] & PSI_OI_EXTERNAL_READ);
    assert_int_equal(idx.read_src[4], 1);
    assert_int_equal(idx.read_src[5], PSI_SRC_INIT);
    assert_false(idx.op_info[6] & PSI_OI_EXTERNAL_READ);
    assert_int_equal(idx.read_src[6], PSI_SRC_NONE);
    assert_int_equal(idx.read_src[8], 3);
    assert_int_equal(idx.op_txn[8], 3);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_duplicate_write_is_input_error(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:c w7=3; 2:2:a w7=3");
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_ERR_INPUT);
    assert_non_null(strstr(d.msg, "value 3"));
    assert_non_null(strstr(d.msg, "key 7"));
    assert_non_null(strstr(d.msg, "(1,1)"));
    assert_non_null(strstr(d.msg, "(2,2)"));
    assert_null(idx.op_txn); /* nothing half-built is left behind */
    psi_history_free(h);
}

static void test_graph_free_anomalies(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:a w1=1;"        /* aborted writer */
                        "1:2:c w2=1 w2=2;"   /* intermediate write w2=1 */
                        "2:3:c r1=1;"        /* G1a */
                        "2:4:c r2=1;"        /* G1b */
                        "2:5:c r3=9;"        /* unwritten */
                        "3:6:c w4=1 r4=2;"   /* INT: own write disagrees (r4=2 by 7) */
                        "3:7:c w4=2;"        /*   */
                        "3:8:c r5=_ r5=4;"   /* INT: two reads disagree (5=4 by 9) */
                        "3:9:c w5=4;"        /*   */
                        "4:10:c r6=3 w6=3;"  /* INT: reads its own later write */
                        "4:11:a r1=1 r3=8"); /* anomalies inside aborted txns don't count */
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(count(&idx, PSI_ANOM_G1A), 1);
    assert_int_equal(count(&idx, PSI_ANOM_G1B), 1);
    assert_int_equal(count(&idx, PSI_ANOM_UNWRITTEN), 1);
    assert_int_equal(count(&idx, PSI_ANOM_INT), 3);
    assert_int_equal(idx.n_anomalies, 6);
    for (size_t i = 0; i < idx.n_anomalies; i++) {
        const psi_anomaly *a = &idx.anomalies[i];
        uint64_t id = h->txns[a->txn].id;
        switch (a->kind) {
        case PSI_ANOM_G1A:
            assert_int_equal(id, 3);
            assert_int_equal(h->txns[a->other_txn].id, 1);
            break;
        case PSI_ANOM_G1B:
            assert_int_equal(id, 4);
            assert_int_equal(h->txns[a->other_txn].id, 2);
            assert_int_equal(h->ops[a->other_op].value, 1);
            break;
        case PSI_ANOM_UNWRITTEN:
            assert_int_equal(id, 5);
            assert_int_equal(a->other_op, PSI_SRC_NONE);
            break;
        default:
            assert_true(id == 6 || id == 8 || id == 10);
            assert_int_equal(a->other_txn, a->txn);
        }
    }
    assert_int_equal(idx.n_aborted, 2);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_unknown_outcomes_settle_transitively(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:u w1=1;"      /* observed by (2,3) via (1,2): committed */
                        "1:2:u r1=1 w2=1;" /* observed by (2,3): committed */
                        "2:3:c r2=1;"
                        "3:4:u w3=1 r9=5"); /* never observed: stays unknown, and its
                                               unwritten read is not an anomaly */
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(idx.n_promoted, 2);
    assert_int_equal(idx.n_committed, 3);
    assert_int_equal(idx.n_unknown, 1);
    assert_int_equal(h->txns[1].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[2].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[4].status, PSI_TXN_UNKNOWN);
    assert_false(idx.op_info[h->txns[4].first_op] & PSI_OI_LIVE);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_long_transaction(void **state)
{
    (void)state;
    /* 200 ops over 3 keys takes the sorting path; one INT violation at the end. */
    char *spec = malloc(8192);
    size_t n = (size_t)sprintf(spec, "1:1:c");
    for (int i = 1; i <= 198; i++)
        n += (size_t)sprintf(spec + n, " w%d=%d", i % 3, i);
    n += (size_t)sprintf(spec + n, " r0=198 r1=1");
    psi_history *h = mk(spec);
    free(spec);
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 1);
    assert_int_equal(idx.anomalies[0].kind, PSI_ANOM_INT);
    assert_int_equal(idx.anomalies[0].op, 199);
    assert_int_equal(h->ops[idx.anomalies[0].other_op].value, 196);
    assert_true(idx.op_info[197] & PSI_OI_FINAL_WRITE); /* w0=198: last write of key 0 */
    assert_false(idx.op_info[0] & PSI_OI_FINAL_WRITE);
    psi_index_free(&idx);
    psi_history_free(h);
}

/* List-append reads of a key must be prefixes of one another: [1 2] and
 * [1 3] are an incompatible order, [1 2] and [1 2 3] are not, and a read
 * after the transaction's own append (its own snapshot) is left out. */
static void test_incompatible_list_orders(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        psi_diag d;
        psi_builder *b = psi_builder_new("lists", PSI_FMT_EDN);
        for (uint64_t v = 1; v <= 3; v++) {
            assert_int_equal(psi_builder_begin(b, v, v, v, &d), PSI_OK);
            assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 7, v, PSI_OPF_APPEND, &d), PSI_OK);
            assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
        }
        uint64_t a[] = {1, 2}, bb[] = {1, 3}, c[] = {1, 2, 3};
        assert_int_equal(psi_builder_begin(b, 4, 4, 4, &d), PSI_OK);
        assert_int_equal(psi_builder_list_read(b, 7, a, 2, &d), PSI_OK);
        assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
        assert_int_equal(psi_builder_begin(b, 5, 5, 5, &d), PSI_OK);
        if (variant == 2) /* own append first: an internal read */
            assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 7, 9, PSI_OPF_APPEND, &d), PSI_OK);
        uint64_t own[] = {1, 3, 9};
        if (variant == 0)
            assert_int_equal(psi_builder_list_read(b, 7, bb, 2, &d), PSI_OK);
        else if (variant == 1)
            assert_int_equal(psi_builder_list_read(b, 7, c, 3, &d), PSI_OK);
        else
            assert_int_equal(psi_builder_list_read(b, 7, own, 3, &d), PSI_OK);
        assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
        psi_history *h;
        assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
        psi_index idx;
        assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
        size_t n = 0;
        for (size_t i = 0; i < idx.n_anomalies; i++)
            n += idx.anomalies[i].kind == PSI_ANOM_INCOMPATIBLE_ORDER;
        assert_int_equal(n, variant == 0 ? 1 : 0);
        if (variant == 0) {
            const psi_anomaly *an = &idx.anomalies[0];
            assert_int_equal(an->kind, PSI_ANOM_INCOMPATIBLE_ORDER);
            assert_int_not_equal(an->txn, an->other_txn);
        }
        psi_index_free(&idx);
        psi_history_free(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_history),
        cmocka_unit_test(test_duplicate_write_is_input_error),
        cmocka_unit_test(test_graph_free_anomalies),
        cmocka_unit_test(test_unknown_outcomes_settle_transitively),
        cmocka_unit_test(test_long_transaction),
        cmocka_unit_test(test_incompatible_list_orders),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
