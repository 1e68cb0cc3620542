/* Tests build small histories from one-line specs:
 *   "S:ID:STATUS op op ...; S:ID:STATUS ...; ..."
 * STATUS is c (committed), a (aborted) or u (unknown); an op is wK=V,
 * rK=V, or rK=_ (read of the initial value). Transactions of a session keep
 * the order they appear in. Returns NULL (after printing why) on a bad spec
 * or a builder error, so a typo fails the test instead of testing nothing. */
#ifndef PSI_TESTS_SPEC_H
#define PSI_TESTS_SPEC_H

#include "core/history.h"

#include <stdio.h>

static inline psi_history *spec_history(const char *spec)
{
    psi_diag d;
    psi_builder *b = psi_builder_new("spec", PSI_FMT_TEXT);
    if (!b)
        return NULL;
    const char *p = spec;
    uint64_t line = 0;
    while (*p) {
        unsigned long long s, id;
        char stc;
        int n;
        if (sscanf(p, " %llu:%llu:%c%n", &s, &id, &stc, &n) != 3)
            goto bad;
        p += n;
        if (psi_builder_begin(b, s, id, ++line, &d) != PSI_OK)
            goto err;
        for (;;) {
            while (*p == ' ')
                p++;
            if (*p == ';' || *p == '\0')
                break;
            char kind = *p++;
            unsigned long long k, v = 0;
            if ((kind != 'r' && kind != 'w') || sscanf(p, "%llu=%n", &k, &n) != 1)
                goto bad;
            p += n;
            unsigned flags = 0;
            if (*p == '_') {
                flags = PSI_OPF_INIT;
                p++;
            } else {
                if (sscanf(p, "%llu%n", &v, &n) != 1)
                    goto bad;
                p += n;
            }
            if (psi_builder_op(b, kind == 'w' ? PSI_OP_WRITE : PSI_OP_READ, k, v, flags, &d) !=
                PSI_OK)
                goto err;
        }
        psi_txn_status st = stc == 'c'   ? PSI_TXN_COMMITTED
                            : stc == 'a' ? PSI_TXN_ABORTED
                                         : PSI_TXN_UNKNOWN;
        if (psi_builder_end(b, st, &d) != PSI_OK)
            goto err;
        if (*p == ';')
            p++;
        while (*p == ' ')
            p++;
    }
    psi_history *h;
    if (psi_builder_finish(b, &h, &d) != PSI_OK) {
        fprintf(stderr, "spec_history: %s\n", d.msg);
        return NULL;
    }
    return h;
bad:
    fprintf(stderr, "spec_history: bad spec near '%s'\n", p);
    psi_builder_free(b);
    return NULL;
err:
    fprintf(stderr, "spec_history: %s\n", d.msg);
    psi_builder_free(b);
    return NULL;
}

#endif
