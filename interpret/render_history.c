/* The shape of a history as recorded, for `polysi-solve stats` (render.h):
 * sessions, transactions by status, operations by kind, keys, and how many
 * transactions only read, only write, or both. Nothing is validated or
 * settled: unknown outcomes are counted as unknown. */
#include "interpret/json.h"
#include "interpret/render.h"

#include <assert.h>
#include <stdio.h>

typedef struct shape {
    uint64_t committed, aborted, unknown, reads, writes, ro, wo, rw, empty;
} shape;

/* One pass over the recorded transactions (the initial one, index 0, is
 * implicit and not counted). */
static shape count(const psi_history *h)
{
    shape c = {0};
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        uint64_t r = 0, w = 0;
        for (uint32_t i = 0; i < tx->n_ops; i++) {
            if (psi_txn_ops(h, t)[i].kind == PSI_OP_READ)
                r++;
            else
                w++;
        }
        c.reads += r;
        c.writes += w;
        c.committed += tx->status == PSI_TXN_COMMITTED;
        c.aborted += tx->status == PSI_TXN_ABORTED;
        c.unknown += tx->status == PSI_TXN_UNKNOWN;
        if (r && w)
            c.rw++;
        else if (r)
            c.ro++;
        else if (w)
            c.wo++;
        else
            c.empty++;
    }
    return c;
}

bool psi_render_history_text(const psi_history *h, const char *path, FILE *out)
{
    assert(h && path && out);
    shape c = count(h);
    fprintf(out, "history       %s (%s)\n", path, psi_format_name(h->format));
    fprintf(out, "sessions      %u\n", h->n_sessions);
    fprintf(out, "transactions  %u (committed %llu, aborted %llu, unknown %llu)\n", h->n_txns - 1,
            (unsigned long long)c.committed, (unsigned long long)c.aborted,
            (unsigned long long)c.unknown);
    fprintf(out, "operations    %u (reads %llu, writes %llu)\n", h->n_ops,
            (unsigned long long)c.reads, (unsigned long long)c.writes);
    fprintf(out, "keys          %u\n", h->n_keys);
    fprintf(out, "read-only     %llu\nwrite-only    %llu\nread-write    %llu\n",
            (unsigned long long)c.ro, (unsigned long long)c.wo, (unsigned long long)c.rw);
    if (c.empty)
        fprintf(out, "empty         %llu\n", (unsigned long long)c.empty);
    return !ferror(out);
}

bool psi_render_history_json(const psi_history *h, const char *path, FILE *out)
{
    assert(h && out);
    shape c = count(h);
    psi_json j;
    psi_json_init(&j, out);
    psi_json_begin_object(&j, NULL);
    psi_json_str(&j, "path", path);
    psi_json_str(&j, "format", psi_format_name(h->format));
    psi_json_u64(&j, "sessions", h->n_sessions);
    psi_json_u64(&j, "transactions", h->n_txns - 1);
    psi_json_u64(&j, "committed", c.committed);
    psi_json_u64(&j, "aborted", c.aborted);
    psi_json_u64(&j, "unknown", c.unknown);
    psi_json_u64(&j, "operations", h->n_ops);
    psi_json_u64(&j, "reads", c.reads);
    psi_json_u64(&j, "writes", c.writes);
    psi_json_u64(&j, "keys", h->n_keys);
    psi_json_u64(&j, "read_only", c.ro);
    psi_json_u64(&j, "write_only", c.wo);
    psi_json_u64(&j, "read_write", c.rw);
    psi_json_u64(&j, "empty", c.empty);
    psi_json_end_object(&j);
    return !ferror(out);
}
