/* Pigeonhole formula in DIMACS: gen_php N puts N+1 pigeons into N holes
 * (unsatisfiable; exponential for resolution, so CDCL time grows fast). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_php HOLES\n");
        return 2;
    }
    int h = atoi(argv[1]), p = h + 1;
    if (h < 1)
        return 2;
    printf("p cnf %d %d\n", p * h, p + h * p * (p - 1) / 2);
    for (int i = 0; i < p; i++) {
        for (int j = 0; j < h; j++)
            printf("%d ", i * h + j + 1);
        printf("0\n");
    }
    for (int j = 0; j < h; j++)
        for (int a = 0; a < p; a++)
            for (int b = a + 1; b < p; b++)
                printf("-%d -%d 0\n", a * h + j + 1, b * h + j + 1);
    return 0;
}
