/* Helpers shared by the solver tests that read ../shared/corpus/cnf: find
 * the corpus, read a whole file, and walk expected.tsv. */
#ifndef PSI_TESTS_SOLVER_CORPUS_UTIL_H
#define PSI_TESTS_SOLVER_CORPUS_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns the cnf/ directory (static buffer) or NULL, printing a SKIP line. */
static inline const char *cnf_dir(void)
{
    static char dir[4096];
    const char *c = getenv("PSI_CORPUS");
    if (!c || !*c) {
        printf("SKIP: PSI_CORPUS is not set; corpus tests skipped\n");
        return NULL;
    }
    snprintf(dir, sizeof dir, "%s/cnf", c);
    char tsv[4200];
    snprintf(tsv, sizeof tsv, "%s/expected.tsv", dir);
    FILE *f = fopen(tsv, "r");
    if (!f) {
        printf("SKIP: %s not found; corpus tests skipped\n", tsv);
        return NULL;
    }
    fclose(f);
    return dir;
}

/* Reads a whole file into a malloc'ed buffer (caller frees); NULL on error. */
static inline char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            char *nb = realloc(b, cap *= 2);
            if (!nb)
                free(b);
            b = nb;
        }
    }
    fclose(f);
    if (b)
        *len = n;
    return b;
}

#endif
