/* Helpers shared by the EDN tests: reading from a string, comparing two
 * histories array by array, temporary files. Everything is static: each
 * test program includes this once. */
#ifndef PSI_TESTS_EDN_HELPERS_H
#define PSI_TESTS_EDN_HELPERS_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "formats/read.h"
#include "formats/write.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Reads `text` as an EDN file named "t.edn"; returns the status, fills *d. */
static inline psi_status edn_read(const char *text, psi_history **h, psi_diag *d)
{
    psi_diag_clear(d);
    return psi_read_edn_buf("t.edn", text, strlen(text), 0, h, d);
}

/* Asserts that reading `text` fails with `st` and a message starting with
 * `prefix` (which names the file, line and column) and containing `part`. */
static inline void edn_expect_error(const char *text, psi_status st, const char *prefix,
                                    const char *part)
{
    psi_history *h = (psi_history *)1;
    psi_diag d;
    psi_status got = edn_read(text, &h, &d);
    if (got != st || strncmp(d.msg, prefix, strlen(prefix)) != 0 || (part && !strstr(d.msg, part)))
        print_error("input: %.200s\nexpected %s \"%s...%s...\"\ngot      %s \"%s\"\n", text,
                    psi_status_name(st), prefix, part ? part : "", psi_status_name(got), d.msg);
    assert_int_equal(got, st);
    assert_true(strncmp(d.msg, prefix, strlen(prefix)) == 0);
    if (part)
        assert_non_null(strstr(d.msg, part));
    assert_null(h);
}

/* Compares every array of two histories; src (where a transaction was read
 * from) only when `with_src`. */
static inline void edn_assert_same(const psi_history *a, const psi_history *b, bool with_src)
{
    assert_int_equal(a->n_sessions, b->n_sessions);
    for (uint32_t s = 0; s < a->n_sessions; s++) {
        assert_int_equal(a->sessions[s].id, b->sessions[s].id);
        assert_int_equal(a->sessions[s].first_txn, b->sessions[s].first_txn);
        assert_int_equal(a->sessions[s].n_txns, b->sessions[s].n_txns);
    }
    assert_int_equal(a->n_txns, b->n_txns);
    for (uint32_t t = 0; t < a->n_txns; t++) {
        const psi_txn *x = &a->txns[t], *y = &b->txns[t];
        assert_int_equal(x->id, y->id);
        if (with_src)
            assert_int_equal(x->src, y->src);
        assert_int_equal(x->session, y->session);
        assert_int_equal(x->pos, y->pos);
        assert_int_equal(x->first_op, y->first_op);
        assert_int_equal(x->n_ops, y->n_ops);
        assert_int_equal(x->status, y->status);
    }
    assert_int_equal(a->n_ops, b->n_ops);
    for (uint32_t o = 0; o < a->n_ops; o++) {
        assert_int_equal(a->ops[o].value, b->ops[o].value);
        assert_int_equal(a->ops[o].key, b->ops[o].key);
        assert_int_equal(a->ops[o].kind, b->ops[o].kind);
        assert_int_equal(a->ops[o].flags, b->ops[o].flags);
    }
    assert_int_equal(a->n_keys, b->n_keys);
    for (uint32_t k = 0; k < a->n_keys; k++)
        assert_int_equal(a->keys[k], b->keys[k]);
    assert_int_equal(a->n_list_reads, b->n_list_reads);
    for (uint32_t i = 0; i < a->n_list_reads; i++) {
        assert_int_equal(a->list_reads[i].op, b->list_reads[i].op);
        assert_int_equal(a->list_reads[i].len, b->list_reads[i].len);
        assert_int_equal(a->list_reads[i].first, b->list_reads[i].first);
    }
    assert_int_equal(a->n_list_vals, b->n_list_vals);
    for (uint64_t i = 0; i < a->n_list_vals; i++)
        assert_int_equal(a->list_vals[i], b->list_vals[i]);
}

/* Compares two histories as what they say, independent of the order the
 * builder received transactions in (which decides the op and key arrays):
 * same sessions, same transactions per session (id, status, ops with
 * external keys, observed lists). src is not compared. */
static inline void edn_assert_equivalent(const psi_history *a, const psi_history *b)
{
    assert_int_equal(a->n_sessions, b->n_sessions);
    assert_int_equal(a->n_txns, b->n_txns);
    assert_int_equal(a->n_ops, b->n_ops);
    assert_int_equal(a->n_keys, b->n_keys);
    assert_int_equal(a->n_list_reads, b->n_list_reads);
    assert_int_equal(a->n_list_vals, b->n_list_vals);
    for (uint32_t s = 0; s < a->n_sessions; s++) {
        assert_int_equal(a->sessions[s].id, b->sessions[s].id);
        assert_int_equal(a->sessions[s].first_txn, b->sessions[s].first_txn);
        assert_int_equal(a->sessions[s].n_txns, b->sessions[s].n_txns);
    }
    for (uint32_t t = 1; t < a->n_txns; t++) {
        const psi_txn *x = &a->txns[t], *y = &b->txns[t];
        assert_int_equal(x->id, y->id);
        assert_int_equal(x->session, y->session);
        assert_int_equal(x->pos, y->pos);
        assert_int_equal(x->n_ops, y->n_ops);
        assert_int_equal(x->status, y->status);
        for (uint32_t i = 0; i < x->n_ops; i++) {
            const psi_op *p = &a->ops[x->first_op + i], *q = &b->ops[y->first_op + i];
            assert_int_equal(p->kind, q->kind);
            /* by spelling: named keys' and values' ids depend on order */
            assert_string_equal(PSI_KEY_NAME(a, p->key), PSI_KEY_NAME(b, q->key));
            assert_string_equal(PSI_VALUE_NAME(a, p->value), PSI_VALUE_NAME(b, q->value));
            assert_int_equal(p->flags, q->flags);
            uint32_t n, m;
            const uint64_t *u = psi_history_list(a, x->first_op + i, &n);
            const uint64_t *v = psi_history_list(b, y->first_op + i, &m);
            assert_int_equal(n, m);
            assert_int_equal(u == NULL, v == NULL);
            for (uint32_t j = 0; j < n; j++)
                assert_string_equal(PSI_VALUE_NAME(a, u[j]), PSI_VALUE_NAME(b, v[j]));
        }
    }
}

/* A fresh temporary path (the file exists, empty); caller unlinks it. */
static inline void edn_temp_path(char path[64])
{
    snprintf(path, 64, "/tmp/psi-edn-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
}

/* The whole file, NUL-terminated; caller frees. */
static inline char *edn_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    size_t k;
    while ((k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += k;
        if (cap - n - 1 == 0) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* The transaction at position `pos` of the session with external id `sid`. */
static inline const psi_txn *edn_txn(const psi_history *h, uint64_t sid, uint32_t pos)
{
    for (uint32_t s = 0; s < h->n_sessions; s++)
        if (h->sessions[s].id == sid) {
            assert_true(pos < h->sessions[s].n_txns);
            return &h->txns[h->sessions[s].first_txn + pos];
        }
    fail_msg("no session %llu", (unsigned long long)sid);
    return NULL;
}

/* Asserts op i of transaction t: kind, external key, value, flags. */
static inline void edn_assert_op(const psi_history *h, const psi_txn *t, uint32_t i,
                                 psi_op_kind kind, uint64_t key, uint64_t value, unsigned flags)
{
    assert_true(i < t->n_ops);
    const psi_op *op = &h->ops[t->first_op + i];
    assert_int_equal(op->kind, kind);
    assert_int_equal(h->keys[op->key], key);
    assert_int_equal(op->value, value);
    assert_int_equal(op->flags, flags);
}

#endif
