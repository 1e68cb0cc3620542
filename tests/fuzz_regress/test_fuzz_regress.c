/* Replays every file in tests/fuzz_regress/TARGET/ through the fuzz target TARGET (see
 * fuzz/fuzz.h): every input a fuzzer once crashed on, plus hand-made
 * hostile inputs, must now pass the target's checks under the sanitizers.
 * A new crasher goes into the folder of its target, named after what it
 * broke; a hand-made one after what it tries (see fuzz/fuzz_TARGET.c for
 * each target's input format). Every target must have at least one saved
 * input: a missing or empty folder fails, so a target cannot pass by
 * replaying nothing. (The witness inputs name a generated history by its
 * seed, fuzz_gen.c: if the generator changes they stay valid inputs but
 * pair the witness with another history.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct target {
    const char *name;
    int (*run)(const uint8_t *, size_t);
} target;

static const target targets[] = {
    {"text", psi_fuzz_text},       {"dbcop", psi_fuzz_dbcop},   {"edn", psi_fuzz_edn},
    {"cobra", psi_fuzz_cobra},     {"dimacs", psi_fuzz_dimacs}, {"verdict", psi_fuzz_verdict},
    {"witness", psi_fuzz_witness}, {"awdit", psi_fuzz_awdit},   {"timestamps", psi_fuzz_timestamps},
};

static uint8_t *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    uint8_t *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    /* An exact-size copy, so ASan catches any read past the end. */
    uint8_t *exact = malloc(n ? n : 1);
    assert_non_null(exact);
    memcpy(exact, buf, n);
    free(buf);
    *len = n;
    return exact;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void replay(void **state)
{
    const target *t = *state;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", PSI_FUZZ_REGRESS_DIR, t->name);
    DIR *d = opendir(dir);
    if (!d)
        fail_msg("fuzz_regress: no folder of saved inputs for target %s (%s)", t->name, dir);
    char *names[4096];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (n == sizeof names / sizeof names[0])
            fail_msg("fuzz_regress: more than %zu inputs in %s", n, dir);
        names[n] = strdup(e->d_name);
        assert_non_null(names[n]);
        n++;
    }
    closedir(d);
    if (n == 0)
        fail_msg("fuzz_regress: %s holds no inputs for target %s", dir, t->name);
    qsort(names, n, sizeof names[0], cmp_str);
    for (size_t i = 0; i < n; i++) {
        char path[8192];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        size_t len;
        uint8_t *buf = slurp(path, &len);
        printf("fuzz_regress: %s/%s (%zu bytes)\n", t->name, names[i], len);
        fflush(stdout);
        assert_int_equal(t->run(buf, len), 0);
        free(buf);
        free(names[i]);
    }
}

int main(void)
{
    struct CMUnitTest tests[sizeof targets / sizeof targets[0]];
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        tests[i] = (struct CMUnitTest){
            .name = targets[i].name, .test_func = replay, .initial_state = (void *)&targets[i]};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
