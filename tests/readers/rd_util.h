/* Helpers shared by the reader tests: temporary directories and files that
 * are removed afterwards, a byte buffer for building binary inputs in
 * memory, and assertions on diagnostics. Everything is static inline so each
 * test program takes only what it uses. */
#ifndef PSI_TESTS_READERS_RD_UTIL_H
#define PSI_TESTS_READERS_RD_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/input.h" /* psi_read_file: internal to formats/, tested here */
#include "formats/read.h"
#include "formats/write.h"

/* ---- temporary files ---- */

static inline char *rd_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char tmpl[512];
    snprintf(tmpl, sizeof tmpl, "%s/psi-readers-XXXXXX", base && *base ? base : "/tmp");
    char *dir = mkdtemp(tmpl);
    assert_non_null(dir);
    char *copy = strdup(dir);
    assert_non_null(copy);
    return copy;
}

/* Writes bytes to dir/name; returns the path (caller frees). */
static inline char *rd_write(const char *dir, const char *name, const void *bytes, size_t n)
{
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    assert_non_null(path);
    snprintf(path, len, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    if (n)
        assert_int_equal(fwrite(bytes, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Removes dir and the files in it (one level, as the tests create), frees dir. */
static inline void rd_rmdir(char *dir)
{
    DIR *dh = opendir(dir);
    if (dh) {
        struct dirent *e;
        while ((e = readdir(dh)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char p[1024];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat sb;
            if (lstat(p, &sb) == 0 && S_ISDIR(sb.st_mode)) {
                char *sub = strdup(p);
                rd_rmdir(sub);
            } else {
                unlink(p);
            }
        }
        closedir(dh);
    }
    rmdir(dir);
    free(dir);
}

/* Reads a whole file (asserting success); caller frees. */
static inline unsigned char *rd_slurp(const char *path, size_t *len)
{
    char *buf;
    psi_diag d;
    psi_diag_clear(&d);
    psi_status st = psi_read_file(path, &buf, len, &d);
    if (st != PSI_OK)
        fail_msg("%s", d.msg);
    return (unsigned char *)buf;
}

/* ---- binary inputs built in memory ---- */

typedef struct rd_bytes {
    unsigned char *p;
    size_t n, cap;
} rd_bytes;

static inline void rd_put(rd_bytes *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t nc = b->cap ? b->cap : 256;
        while (nc < b->n + n)
            nc *= 2;
        b->p = realloc(b->p, nc);
        assert_non_null(b->p);
        b->cap = nc;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static inline void rd_u8(rd_bytes *b, unsigned v)
{
    unsigned char c = (unsigned char)v;
    rd_put(b, &c, 1);
}

static inline void rd_le64(rd_bytes *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    rd_put(b, x, 8);
}

static inline void rd_be64(rd_bytes *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (56 - 8 * i));
    rd_put(b, x, 8);
}

static inline void rd_free(rd_bytes *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- diagnostics ---- */

/* The exit-style category of a reader failure: the CLI exits with 2 for
 * every error; readers report input problems only as I/O, syntax, input or
 * limit errors (never usage errors, which would mean a caller bug). */
static inline int rd_exit_code(psi_status st)
{
    return st == PSI_OK ? 0 : 2;
}

/* Asserts that st and d report `want` (an input-error category, exit 2),
 * and that d's message contains every NULL-terminated needle (file name,
 * "line:col", "byte N", ...). */
static inline void rd_expect_(psi_status st, const psi_diag *d, psi_status want, ...)
{
    assert_true(want == PSI_ERR_IO || want == PSI_ERR_SYNTAX || want == PSI_ERR_INPUT ||
                want == PSI_ERR_LIMIT);
    assert_int_equal(rd_exit_code(st), 2);
    if (st != want || d->status != want)
        fail_msg("expected status %s, got %s (diag %s): %s", psi_status_name(want),
                 psi_status_name(st), psi_status_name(d->status), d->msg);
    va_list ap;
    va_start(ap, want);
    const char *needle;
    while ((needle = va_arg(ap, const char *)) != NULL)
        if (!strstr(d->msg, needle))
            fail_msg("message lacks \"%s\": %s", needle, d->msg);
    va_end(ap);
}
#define rd_expect(st, d, want, ...) rd_expect_((st), (d), (want), __VA_ARGS__, (const char *)NULL)

static inline uint32_t rd_count_kind(const psi_history *h, psi_op_kind k)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < h->n_ops; i++)
        n += h->ops[i].kind == k;
    return n;
}

static inline uint32_t rd_count_status(const psi_history *h, psi_txn_status s)
{
    uint32_t n = 0;
    for (uint32_t t = 1; t < h->n_txns; t++)
        n += h->txns[t].status == s;
    return n;
}

/* Same structure: sessions in order with the same transactions (order,
 * status, ops); ids compared too when with_ids. */
static inline void rd_assert_same(const psi_history *a, const psi_history *b, bool with_ids)
{
    assert_int_equal(a->n_sessions, b->n_sessions);
    assert_int_equal(a->n_txns, b->n_txns);
    assert_int_equal(a->n_ops, b->n_ops);
    for (uint32_t s = 0; s < a->n_sessions; s++) {
        const psi_session *sa = &a->sessions[s], *sb = &b->sessions[s];
        if (with_ids)
            assert_int_equal(sa->id, sb->id);
        assert_int_equal(sa->n_txns, sb->n_txns);
        for (uint32_t i = 0; i < sa->n_txns; i++) {
            const psi_txn *ta = &a->txns[sa->first_txn + i], *tb = &b->txns[sb->first_txn + i];
            if (with_ids)
                assert_int_equal(ta->id, tb->id);
            assert_int_equal(ta->status, tb->status);
            assert_int_equal(ta->n_ops, tb->n_ops);
            for (uint32_t k = 0; k < ta->n_ops; k++) {
                const psi_op *oa = &a->ops[ta->first_op + k], *ob = &b->ops[tb->first_op + k];
                assert_int_equal(oa->kind, ob->kind);
                assert_int_equal(a->keys[oa->key], b->keys[ob->key]);
                assert_int_equal(oa->value, ob->value);
                assert_int_equal(oa->flags, ob->flags);
            }
        }
    }
}

#endif
