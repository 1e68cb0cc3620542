/* Naming transactions and operations for reports (see describe.h). */
#include "interpret/describe.h"

#include <assert.h>
#include <stdio.h>

void psi_fmt_txn(const psi_history *h, uint32_t t, char *buf, size_t n)
{
    if (t == PSI_INIT_TXN || t >= h->n_txns) {
        snprintf(buf, n, "(init)");
        return;
    }
    const psi_txn *tx = &h->txns[t];
    snprintf(buf, n, "(%llu,%llu)", (unsigned long long)h->sessions[tx->session].id,
             (unsigned long long)tx->id);
}

void psi_fmt_op(const psi_history *h, uint32_t op, char *buf, size_t n)
{
    const psi_op *o = &h->ops[op];
    char kb[24], vb[24];
    const char *key = psi_history_key_name(h, o->key, kb);
    if (o->kind == PSI_OP_WRITE) {
        snprintf(buf, n, "%s(%s,%s)", (o->flags & PSI_OPF_APPEND) ? "append" : "w", key,
                 psi_history_value_name(h, o->value, vb));
        return;
    }
    if (o->flags & PSI_OPF_LIST) {
        uint32_t len;
        const uint64_t *v = psi_history_list(h, op, &len);
        int k = snprintf(buf, n, "r(%s,[", key);
        size_t used = k > 0 ? (size_t)k : 0;
        for (uint32_t i = 0; i < len && used < n; i++) {
            if (i == 6 && len > 8) {
                k = snprintf(buf + used, n - used, "%s... %u more", i ? " " : "", len - i - 1);
                used += k > 0 ? (size_t)k : 0;
                i = len - 2;
                continue;
            }
            k = snprintf(buf + used, n - used, "%s%s", i ? " " : "",
                         psi_history_value_name(h, v[i], vb));
            used += k > 0 ? (size_t)k : 0;
        }
        if (used < n)
            snprintf(buf + used, n - used, "])");
        return;
    }
    if (o->flags & PSI_OPF_INIT)
        snprintf(buf, n, "r(%s,init)", key);
    else
        snprintf(buf, n, "r(%s,%s)", key, psi_history_value_name(h, o->value, vb));
}

void psi_fmt_txn_ops(const psi_history *h, uint32_t t, const char *sep, char *buf, size_t n)
{
    assert(n > 0);
    size_t used = 0;
    buf[0] = '\0';
    if (t == PSI_INIT_TXN) {
        snprintf(buf, n, "writes every key's initial value");
        return;
    }
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops && used < n; i++) {
        char o[128];
        psi_fmt_op(h, tx->first_op + i, o, sizeof o);
        int k = snprintf(buf + used, n - used, "%s%s", i ? sep : "", o);
        used += k > 0 ? (size_t)k : 0;
    }
}
