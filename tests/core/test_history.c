/* The history builder: grouping by session, ordering, limits, ownership. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/history.h"
#include "core/idmap.h"
#include "core/keyname.h"

#include <string.h>

static void test_groups_sessions_and_keeps_order(void **state)
{
    (void)state;
    psi_diag d;
    psi_builder *b = psi_builder_new("mem", PSI_FMT_TEXT);
    assert_non_null(b);
    /* Interleaved sessions 7 and 3; session 3 must come first (sorted ids). */
    assert_int_equal(psi_builder_begin(b, 7, 100, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 42, 5, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 3, 200, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 42, 5, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 9, 0, PSI_OPF_INIT, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_ABORTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 7, 101, 3, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);

    assert_int_equal(h->n_sessions, 2);
    assert_int_equal(h->n_txns, 4);
    assert_int_equal(h->n_ops, 3);
    assert_int_equal(h->n_keys, 2);
    assert_int_equal(h->sessions[0].id, 3);
    assert_int_equal(h->sessions[0].first_txn, 1);
    assert_int_equal(h->sessions[0].n_txns, 1);
    assert_int_equal(h->sessions[1].id, 7);
    assert_int_equal(h->sessions[1].first_txn, 2);
    assert_int_equal(h->sessions[1].n_txns, 2);
    assert_int_equal(h->txns[0].session, PSI_NO_SESSION);
    assert_int_equal(h->txns[1].id, 200);
    assert_int_equal(h->txns[1].status, PSI_TXN_ABORTED);
    assert_int_equal(h->txns[2].id, 100);
    assert_int_equal(h->txns[2].pos, 0);
    assert_int_equal(h->txns[3].id, 101);
    assert_int_equal(h->txns[3].pos, 1);
    assert_int_equal(h->txns[3].n_ops, 0);
    const psi_op *r = psi_txn_ops(h, 1);
    assert_int_equal(h->keys[r[0].key], 42);
    assert_int_equal(r[0].value, 5);
    assert_true(r[1].flags & PSI_OPF_INIT);
    assert_int_equal(psi_history_op_txn(h, 0), 2);
    assert_int_equal(psi_history_op_txn(h, 2), 1);
    assert_true(psi_history_bytes(h) > 0);
    psi_history_free(h);
}

static void test_refuses_repeated_txn_id(void **state)
{
    (void)state;
    psi_diag d;
    psi_builder *b = psi_builder_new("dup.txt", PSI_FMT_TEXT);
    assert_int_equal(psi_builder_begin(b, 1, 9, 4, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 2, 9, 8, &d), PSI_ERR_INPUT);
    /* FILE:LINE:COLUMN for text formats, as every input error. */
    assert_true(strncmp(d.msg, "dup.txt:8:1: transaction id 9 ", 30) == 0);
    assert_non_null(strstr(d.msg, "line 4"));
    assert_int_equal(d.where, PSI_AT_LINE);
    assert_int_equal(d.line, 8);
    assert_int_equal(d.file_len, 7);
    psi_builder_free(b);
    /* FILE: byte OFFSET: for binary ones. */
    b = psi_builder_new("h.bincode", PSI_FMT_DBCOP);
    assert_int_equal(psi_builder_begin(b, 1, 3, 100, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 1, 3, 250, &d), PSI_ERR_INPUT);
    assert_true(strncmp(d.msg, "h.bincode: byte 250: transaction id 3 ", 38) == 0);
    assert_non_null(strstr(d.msg, "byte 100"));
    assert_int_equal(d.where, PSI_AT_OFFSET);
    assert_int_equal(d.offset, 250);
    psi_builder_free(b);
}

static void test_list_reads_and_discard(void **state)
{
    (void)state;
    psi_diag d;
    psi_builder *b = psi_builder_new("l.edn", PSI_FMT_EDN);
    uint64_t vals[] = {4, 8, 15};
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 5, vals, 3, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 6, NULL, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    /* A transaction that is given and then discarded leaves no trace. */
    assert_int_equal(psi_builder_begin(b, 1, 2, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 5, vals, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 5, 16, PSI_OPF_APPEND, &d), PSI_OK);
    psi_builder_discard(b);
    assert_int_equal(psi_builder_begin(b, 1, 2, 3, &d), PSI_OK); /* id reusable */
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    assert_int_equal(h->n_ops, 2);
    assert_int_equal(h->n_list_reads, 2);
    assert_int_equal(h->n_list_vals, 3);
    uint32_t len;
    const uint64_t *l = psi_history_list(h, 0, &len);
    assert_int_equal(len, 3);
    assert_int_equal(l[2], 15);
    assert_int_equal(h->ops[0].value, 15);
    psi_history_list(h, 1, &len);
    assert_int_equal(len, 0);
    assert_true(h->ops[1].flags & PSI_OPF_INIT);
    psi_history_free(h);
}

static void test_unfinished_transaction_is_an_error(void **state)
{
    (void)state;
    psi_diag d;
    psi_builder *b = psi_builder_new("cut.txt", PSI_FMT_TEXT);
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_ERR_SYNTAX);
    assert_null(h);
    assert_non_null(strstr(d.msg, "cut.txt"));
}

static void test_format_names(void **state)
{
    (void)state;
    assert_int_equal(psi_format_from_name("dbcop"), PSI_FMT_DBCOP);
    assert_int_equal(psi_format_from_name("edn"), PSI_FMT_EDN);
    assert_int_equal(psi_format_from_name("nope"), PSI_FMT_AUTO);
    assert_string_equal(psi_format_name(PSI_FMT_COBRA), "cobra");
}

/* Integer keys and values given before the first name keep their integer
 * identity (7 is "7"), are distinct from keyword :7, and every spelling is
 * printed back as given; copying the names gives the same meanings. */
static void test_named_keys_and_values(void **state)
{
    (void)state;
    psi_diag d;
    char buf[24];
    psi_builder *b = psi_builder_new("mem", PSI_FMT_EDN);
    assert_non_null(b);
    assert_false(psi_builder_keys_named(b));
    uint64_t k, v, k7, kx, vy;
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_key_int(b, 7, &k, &d), PSI_OK);
    assert_int_equal(k, 7); /* unchanged while no key is named */
    assert_int_equal(psi_builder_value_int(b, 3, &v, &d), PSI_OK);
    assert_int_equal(v, 3);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, k, v, 0, &d), PSI_OK);
    uint64_t list[2] = {3, 4};
    assert_int_equal(psi_builder_list_read(b, 7, list, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, 7, 0, PSI_OPF_INIT, &d), PSI_OK);
    /* The switch: key 7 becomes "7", value 3 becomes the id of "3". */
    assert_int_equal(psi_builder_key_named(b, ":7", 2, &kx, &d), PSI_OK);
    assert_true(psi_builder_keys_named(b));
    assert_int_equal(psi_builder_key_int(b, 7, &k7, &d), PSI_OK);
    assert_int_equal(k7, 0);
    assert_int_equal(kx, 1);
    assert_int_equal(psi_builder_value_named(b, ":y", 2, &vy, &d), PSI_OK);
    assert_true(psi_builder_values_named(b));
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, kx, vy, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_value_int(b, 3, &v, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_READ, k7, v, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);

    assert_int_equal(h->n_keys, 2);
    assert_non_null(h->key_names);
    assert_string_equal(psi_history_key_name(h, 0, buf), "7");
    assert_string_equal(psi_history_key_name(h, 1, buf), ":7");
    assert_non_null(h->value_names);
    assert_int_equal(h->n_value_names, 3); /* "3", "4", ":y" */
    assert_int_equal(h->ops[0].value, h->ops[4].value);
    assert_string_equal(psi_history_value_name(h, h->ops[0].value, buf), "3");
    assert_string_equal(psi_history_value_name(h, h->ops[1].value, buf), "4");
    uint32_t len;
    const uint64_t *lv = psi_history_list(h, 1, &len);
    assert_int_equal(len, 2);
    assert_string_equal(psi_history_value_name(h, lv[0], buf), "3");
    assert_int_equal(h->ops[2].value, 0);
    assert_string_equal(psi_history_value_name(h, 0, buf), "nil");
    assert_string_equal(psi_history_value_name(h, h->ops[3].value, buf), ":y");

    psi_builder *c = psi_builder_new("copy", PSI_FMT_EDN);
    assert_non_null(c);
    assert_int_equal(psi_builder_copy_names(c, h, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(c, 1, 1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_op(c, PSI_OP_WRITE, h->keys[1], h->ops[3].value, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(c, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h2;
    assert_int_equal(psi_builder_finish(c, &h2, &d), PSI_OK);
    assert_string_equal(psi_history_key_name(h2, h2->ops[0].key, buf), ":7");
    assert_string_equal(psi_history_value_name(h2, h2->ops[0].value, buf), ":y");
    psi_history_free(h2);
    psi_history_free(h);

    /* All integers: no tables, integers printed in decimal. */
    b = psi_builder_new("mem", PSI_FMT_EDN);
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 18446744073709551615u, 9, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    assert_null(h->key_names);
    assert_null(h->value_names);
    assert_false(psi_history_has_names(h));
    assert_string_equal(psi_history_key_name(h, 0, buf), "18446744073709551615");
    assert_string_equal(psi_history_value_name(h, 9, buf), "9");
    psi_history_free(h);

    /* A builder freed unfinished frees its names. */
    b = psi_builder_new("mem", PSI_FMT_EDN);
    assert_int_equal(psi_builder_key_named(b, "\"a b\"", 5, &k, &d), PSI_OK);
    assert_int_equal(psi_builder_value_named(b, "foo", 3, &v, &d), PSI_OK);
    assert_int_equal(psi_builder_value_named(b, "", 0, &v, &d), PSI_ERR_INPUT);
    psi_builder_free(b);
}

/* The id map agrees with a plain model over dense, sparse and huge ids,
 * through the array's growth (JudyL entries moving into it), deletion,
 * last and first-empty. */
static void test_idmap_matches_a_model(void **state)
{
    (void)state;
    psi_idmap m = {0};
    enum { N = 20000 };
    static uint64_t ids[N];
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        /* dense from 0, sparse up to 2^20 (array after growth), huge */
        ids[i] = i % 3 == 0 ? (uint64_t)i : i % 3 == 1 ? x % (1u << 20) : x | (1ull << 63);
        Word_t *slot = psi_idmap_slot(&m, ids[i]);
        assert_non_null(slot);
        if (*slot == 0)
            *slot = (Word_t)i + 1;
    }
    uint64_t last_model = 0;
    for (int i = 0; i < N; i++) {
        const Word_t *g = psi_idmap_get(&m, ids[i]);
        assert_non_null(g);
        assert_int_equal(ids[(size_t)*g - 1], ids[i]); /* the first insert of this id */
        if (ids[i] > last_model)
            last_model = ids[i];
    }
    uint64_t last = 0;
    assert_true(psi_idmap_last(&m, &last));
    assert_int_equal(last, last_model);
    assert_null(psi_idmap_get(&m, 1u << 21 | 1u)); /* never inserted: x % 2^20 < 2^21 */
    /* ids 0, 3, 6, ... are present; 1 may be (sparse) or not: delete it */
    psi_idmap_del(&m, 1);
    uint64_t e = 0;
    assert_true(psi_idmap_first_empty(&m, &e));
    assert_int_equal(e, 1);
    psi_idmap_del(&m, last_model);
    assert_null(psi_idmap_get(&m, last_model));
    e = UINT64_MAX;
    assert_true(psi_idmap_first_empty(&m, &e) || psi_idmap_get(&m, UINT64_MAX));
    psi_idmap_free(&m);
}

/* A history writing keys[0..n) in one transaction (dense key i is
 * keys[i]: the builder numbers keys as they first appear). */
static psi_history *keyed(const uint64_t *keys, size_t n)
{
    psi_diag d;
    psi_diag_clear(&d);
    psi_builder *b = psi_builder_new("keys", PSI_FMT_TEXT);
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    for (size_t i = 0; i < n; i++)
        assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, keys[i], i + 1, 0, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h = NULL;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    assert_int_equal(h->n_keys, n);
    return h;
}

/* psi_key_lookup over integer keys: a dense span (the table) and a sparse
 * one (the sorted search) find the same keys and refuse the same others. */
static void test_key_lookup_dense_and_sparse(void **state)
{
    (void)state;
    const uint64_t dense[] = {5, 3, 4, 7}, sparse[] = {5, 1000000, 3, UINT64_MAX};
    const uint64_t absent[] = {0, 2, 6, 8, 999999, UINT64_MAX - 1};
    const uint64_t *sets[] = {dense, sparse};
    for (int s = 0; s < 2; s++) {
        psi_history *h = keyed(sets[s], 4);
        psi_key_lookup kl;
        psi_diag d;
        psi_diag_clear(&d);
        assert_int_equal(psi_key_lookup_init(&kl, h, &d), PSI_OK);
        assert_true(s ? kl.table == NULL : kl.table != NULL);
        for (uint32_t k = 0; k < 4; k++)
            assert_int_equal(psi_key_lookup_ext(&kl, sets[s][k]), k);
        for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
            assert_int_equal(psi_key_lookup_ext(&kl, absent[i]), UINT32_MAX);
        if (!s) /* below the table's start: the offset wraps */
            assert_int_equal(psi_key_lookup_ext(&kl, UINT64_MAX), UINT32_MAX);
        assert_int_equal(psi_key_lookup_name(&kl, "3"), s ? 2 : 1);
        assert_int_equal(psi_key_lookup_name(&kl, "6"), UINT32_MAX);
        assert_int_equal(psi_key_lookup_name(&kl, ":x"), UINT32_MAX);
        psi_key_lookup_free(&kl);
        psi_history_free(h);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups_sessions_and_keeps_order),
        cmocka_unit_test(test_refuses_repeated_txn_id),
        cmocka_unit_test(test_list_reads_and_discard),
        cmocka_unit_test(test_unfinished_transaction_is_an_error),
        cmocka_unit_test(test_format_names),
        cmocka_unit_test(test_named_keys_and_values),
        cmocka_unit_test(test_idmap_matches_a_model),
        cmocka_unit_test(test_key_lookup_dense_and_sparse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
