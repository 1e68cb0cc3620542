/* Random 3-SAT in DIMACS: gen_random3sat VARS CLAUSES SEED. Clauses have
 * three distinct variables with random signs (the usual fixed-length model;
 * ratio 4.26 is the hardest region). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t st;
static uint32_t rnd(uint32_t n)
{
    st ^= st >> 12;
    st ^= st << 25;
    st ^= st >> 27;
    return (uint32_t)((st * 0x2545F4914F6CDD1Dull) >> 33) % n;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: gen_random3sat VARS CLAUSES SEED\n");
        return 2;
    }
    int n = atoi(argv[1]), m = atoi(argv[2]);
    st = (uint64_t)strtoull(argv[3], NULL, 10) * 0x9E3779B97F4A7C15ull + 1;
    if (n < 3 || m < 0)
        return 2;
    printf("p cnf %d %d\n", n, m);
    for (int i = 0; i < m; i++) {
        int v[3];
        for (int k = 0; k < 3; k++) {
            int ok;
            do {
                v[k] = 1 + (int)rnd((uint32_t)n);
                ok = 1;
                for (int j = 0; j < k; j++)
                    ok &= v[j] != v[k];
            } while (!ok);
            printf("%d ", rnd(2) ? v[k] : -v[k]);
        }
        printf("0\n");
    }
    return 0;
}
