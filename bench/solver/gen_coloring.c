/* Graph colouring in DIMACS: gen_coloring VERTICES EDGES COLOURS SEED. A
 * random graph (distinct edges, no loops); each vertex gets at least one
 * colour (and at most one), adjacent vertices differ. Near average degree
 * 4.6 for 3 colours the instances are hardest. */
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
    if (argc != 5) {
        fprintf(stderr, "usage: gen_coloring VERTICES EDGES COLOURS SEED\n");
        return 2;
    }
    int n = atoi(argv[1]), m = atoi(argv[2]), k = atoi(argv[3]);
    st = (uint64_t)strtoull(argv[4], NULL, 10) * 0x9E3779B97F4A7C15ull + 3;
    if (n < 2 || k < 1 || m < 0 || (long)m > (long)n * (n - 1) / 2)
        return 2;
    int *eu = malloc(sizeof(int) * (size_t)m), *ev = malloc(sizeof(int) * (size_t)m);
    char *adj = calloc((size_t)n * (size_t)n, 1);
    if (!eu || !ev || !adj)
        return 2;
    for (int i = 0; i < m; i++) {
        int u, v;
        do {
            u = (int)rnd((uint32_t)n);
            v = (int)rnd((uint32_t)n);
        } while (u == v || adj[u * n + v]);
        adj[u * n + v] = adj[v * n + u] = 1;
        eu[i] = u;
        ev[i] = v;
    }
    printf("p cnf %d %d\n", n * k, n + n * k * (k - 1) / 2 + m * k);
    for (int u = 0; u < n; u++) {
        for (int c = 0; c < k; c++)
            printf("%d ", u * k + c + 1);
        printf("0\n");
        for (int a = 0; a < k; a++)
            for (int b = a + 1; b < k; b++)
                printf("-%d -%d 0\n", u * k + a + 1, u * k + b + 1);
    }
    for (int i = 0; i < m; i++)
        for (int c = 0; c < k; c++)
            printf("-%d -%d 0\n", eu[i] * k + c + 1, ev[i] * k + c + 1);
    free(eu);
    free(ev);
    free(adj);
    return 0;
}
