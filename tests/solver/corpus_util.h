/* Helpers shared by the solver tests that read ../shared/corpus/cnf: find
 * the corpus' cnf/ folder and read a whole file. */
#ifndef PSI_TESTS_SOLVER_CORPUS_UTIL_H
#define PSI_TESTS_SOLVER_CORPUS_UTIL_H

#include "support/corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns the corpus' cnf/ directory (static buffer). The programs call
 * psi_corpus_or_skip first, so the corpus is there; a cnf/ folder or an
 * expected.tsv missing from it then fails the caller's fopen assertion. */
static inline const char *cnf_dir(void)
{
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s/cnf", psi_corpus());
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
