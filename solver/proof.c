/* DRAT proof output in the text format: "l1 l2 ... 0" adds a lemma,
 * "d l1 l2 ... 0" deletes a clause. Lines are formatted by hand into a
 * buffer because proofs of hard instances run to gigabytes. */
#include "internal.h"

#include <stdlib.h>

#define PROOF_BUF 65536

void psi_proof_flush(psi_sat *s)
{
    if (s->proof && s->proof_n) {
        fwrite(s->proof_buf, 1, s->proof_n, s->proof);
        s->proof_n = 0;
    }
}

static void put_int(psi_sat *s, int x)
{
    char tmp[16];
    int n = 0;
    unsigned u = x < 0 ? (unsigned)-(long)x : (unsigned)x;
    do
        tmp[n++] = (char)('0' + u % 10);
    while (u /= 10);
    if (x < 0)
        s->proof_buf[s->proof_n++] = '-';
    while (n)
        s->proof_buf[s->proof_n++] = tmp[--n];
    s->proof_buf[s->proof_n++] = ' ';
}

static void line(psi_sat *s, bool del, const lit_t *lits, uint32_t n)
{
    if (!s->proof)
        return;
    if (!s->proof_buf) {
        s->proof_buf = malloc(PROOF_BUF);
        if (!s->proof_buf) {
            s->nomem = true;
            return;
        }
    }
    if (del) {
        s->proof_buf[s->proof_n++] = 'd';
        s->proof_buf[s->proof_n++] = ' ';
    }
    for (uint32_t i = 0; i < n; i++) {
        if (s->proof_n > PROOF_BUF - 32)
            psi_proof_flush(s);
        put_int(s, lit_to_int(lits[i]));
    }
    s->proof_buf[s->proof_n++] = '0';
    s->proof_buf[s->proof_n++] = '\n';
    if (s->proof_n > PROOF_BUF - 64)
        psi_proof_flush(s);
}

void psi_proof_add(psi_sat *s, const lit_t *lits, uint32_t n)
{
    line(s, false, lits, n);
}

void psi_proof_delete(psi_sat *s, const lit_t *lits, uint32_t n)
{
    line(s, true, lits, n);
}
