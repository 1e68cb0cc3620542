/* Robustness: thousands of deterministic random mutations (byte changes,
 * truncations, insertions, deletions, huge lengths) of small valid inputs
 * go through each in-memory reader. Every outcome must be a history or a
 * located diagnostic; under ASan/UBSan any out-of-bounds access, leak or
 * huge allocation fails the test. */
#include "rd_util.h"

static uint64_t g_rng = 0x243f6a8885a308d3ull;

static uint64_t rnd(void)
{
    g_rng ^= g_rng << 13;
    g_rng ^= g_rng >> 7;
    g_rng ^= g_rng << 17;
    return g_rng;
}

typedef psi_status (*reader_fn)(const char *name, const unsigned char *buf, size_t len,
                                psi_history **out, psi_diag *d);

static psi_status text_reader(const char *name, const unsigned char *buf, size_t len,
                              psi_history **out, psi_diag *d)
{
    return psi_read_text_buf(name, (const char *)buf, len, 0, out, d);
}

static psi_status dbcop_reader(const char *name, const unsigned char *buf, size_t len,
                               psi_history **out, psi_diag *d)
{
    return psi_read_dbcop_buf(name, buf, len, 0, out, d);
}

static psi_status cobra_reader(const char *name, const unsigned char *buf, size_t len,
                               psi_history **out, psi_diag *d)
{
    return psi_read_cobra_buf(name, buf, len, 0, out, d);
}

static void mutate(unsigned char *p, size_t *n, size_t cap)
{
    int edits = 1 + (int)(rnd() % 4);
    for (int e = 0; e < edits; e++) {
        size_t len = *n;
        switch (rnd() % 6) {
        case 0: /* random byte */
            if (len)
                p[rnd() % len] = (unsigned char)rnd();
            break;
        case 1: /* truncate */
            if (len)
                *n = rnd() % len;
            break;
        case 2: /* insert a byte */
            if (len < cap) {
                size_t at = rnd() % (len + 1);
                memmove(p + at + 1, p + at, len - at);
                p[at] = (unsigned char)rnd();
                (*n)++;
            }
            break;
        case 3: /* delete a byte */
            if (len) {
                size_t at = rnd() % len;
                memmove(p + at, p + at + 1, len - at - 1);
                (*n)--;
            }
            break;
        case 4: /* a huge 64-bit field, little- or big-endian */
            if (len >= 8) {
                size_t at = rnd() % (len - 7);
                for (int i = 0; i < 8; i++)
                    p[at + i] = (rnd() & 1) ? 0xff : 0x7f;
            }
            break;
        default: /* a structural character of the text format */
            if (len) {
                static const char chars[] = "rw(),0123456789 #\n\r-";
                p[rnd() % len] = (unsigned char)chars[rnd() % (sizeof chars - 1)];
            }
            break;
        }
    }
}

static void run(const char *name, reader_fn rd, const unsigned char *seed, size_t n_seed,
                int rounds)
{
    enum { CAP = 4096 };
    unsigned char buf[CAP];
    assert_true(n_seed <= CAP);
    int ok = 0;
    for (int r = 0; r < rounds; r++) {
        memcpy(buf, seed, n_seed);
        size_t n = n_seed;
        mutate(buf, &n, CAP);
        /* Read from an exact-size heap copy so ASan sees any overread. */
        unsigned char *copy = malloc(n ? n : 1);
        assert_non_null(copy);
        memcpy(copy, buf, n);
        psi_history *h = NULL;
        psi_diag d;
        psi_diag_clear(&d);
        psi_status st = rd(name, copy, n, &h, &d);
        if (st == PSI_OK) {
            assert_non_null(h);
            ok++;
            psi_history_free(h);
        } else {
            assert_null(h);
            assert_true(st == PSI_ERR_SYNTAX || st == PSI_ERR_INPUT || st == PSI_ERR_LIMIT);
            assert_non_null(strstr(d.msg, name));
        }
        free(copy);
    }
    fprintf(stderr, "%s: %d of %d mutants read as histories\n", name, ok, rounds);
}

static void test_text(void **state)
{
    (void)state;
    const char *seed = "# seed\nw(1,1,1,1)\nw(2,5,1,1)\nr(1,1,2,2)\nr(2,0,2,2)\n"
                       "w(1,2,2,3)\nr(1,2,1,4)\nw(3,9,1,4)\n";
    run("mut.txt", text_reader, (const unsigned char *)seed, strlen(seed), 20000);
}

static void test_dbcop(void **state)
{
    (void)state;
    rd_bytes b = {0};
    for (int i = 0; i < 5; i++)
        rd_le64(&b, 3);
    for (int i = 0; i < 3; i++) {
        rd_le64(&b, 2);
        rd_put(&b, "ab", 2);
    }
    rd_le64(&b, 2);
    for (int s = 0; s < 2; s++) {
        rd_le64(&b, 2);
        for (int t = 0; t < 2; t++) {
            rd_le64(&b, 2);
            for (int e = 0; e < 2; e++) {
                rd_u8(&b, (unsigned)e);
                rd_le64(&b, (uint64_t)(s + 1));
                rd_le64(&b, e ? (uint64_t)(10 * s + 2 * t + 1) : 0);
                rd_u8(&b, 1);
            }
            rd_u8(&b, (unsigned)t);
        }
    }
    run("mut.bincode", dbcop_reader, b.p, b.n, 20000);
    rd_free(&b);
}

static void test_cobra(void **state)
{
    (void)state;
    rd_bytes b = {0};
    for (uint64_t t = 1; t <= 4; t++) {
        rd_u8(&b, 'S');
        rd_be64(&b, t);
        rd_u8(&b, 'W');
        rd_be64(&b, 100 + t);
        rd_be64(&b, t % 2);
        rd_be64(&b, 7);
        rd_u8(&b, 'R');
        rd_be64(&b, t > 1 ? t - 1 : 0xbebeebee);
        rd_be64(&b, t > 1 ? 99 + t : 0xbebeebee);
        rd_be64(&b, 1);
        rd_be64(&b, 7);
        if (t != 3) {
            rd_u8(&b, 'C');
            rd_be64(&b, t);
        }
    }
    run("T1.log", cobra_reader, b.p, b.n, 20000);
    rd_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text),
        cmocka_unit_test(test_dbcop),
        cmocka_unit_test(test_cobra),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
