/* The counterexample of a reject by timestamps (check/timestamps.h): the
 * transactions involved and a sentence with their timestamps. No cycle:
 * the timestamps themselves are the evidence. */
#include "interpret/describe.h"
#include "interpret/explain.h"
#include "interpret/local.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "(1,2) [start 5, commit 9]" */
static void fmt_ts(const psi_history *h, const psi_ts_info *ts, uint32_t t, char *buf, size_t n)
{
    char name[64];
    psi_fmt_txn(h, t, name, sizeof name);
    if (t == PSI_INIT_TXN || t == UINT32_MAX || !ts->line[t])
        snprintf(buf, n, "%s", name);
    else
        snprintf(buf, n, "%s [start %lld, commit %lld; %s:%llu]", name, (long long)ts->start[t],
                 (long long)ts->commit[t], ts->file, (unsigned long long)ts->line[t]);
}

psi_status psi_ts_cex_build(const psi_history *h, const psi_check_result *res, psi_cex *cx,
                            psi_diag *d)
{
    const psi_ts_violation *v = &res->ts_violation;
    const psi_ts_info *ts = &res->ts;
    cx->txns = malloc(3 * sizeof *cx->txns);
    if (!cx->txns)
        return psi_diag_nomem(d, "explaining the violation");
    uint32_t cand[3] = {v->a, v->b, v->other};
    for (int i = 0; i < 3; i++) {
        if (cand[i] == UINT32_MAX)
            continue;
        bool dup = false;
        for (uint32_t j = 0; j < cx->n_txns; j++)
            dup |= cx->txns[j] == cand[i];
        if (!dup)
            cx->txns[cx->n_txns++] = cand[i];
    }
    for (uint32_t i = 1; i < cx->n_txns; i++) /* sorted, as everywhere */
        for (uint32_t j = i; j > 0 && cx->txns[j - 1] > cx->txns[j]; j--) {
            uint32_t x = cx->txns[j];
            cx->txns[j] = cx->txns[j - 1];
            cx->txns[j - 1] = x;
        }
    char a[256], b[256], o[256], rd[160];
    fmt_ts(h, ts, v->a, a, sizeof a);
    fmt_ts(h, ts, v->b, b, sizeof b);
    fmt_ts(h, ts, v->other, o, sizeof o);
    const char *key = v->key < h->n_keys ? PSI_KEY_NAME(h, v->key) : "0";
    if (v->op != UINT32_MAX)
        psi_fmt_op(h, v->op, rd, sizeof rd);
    const char *when = res->ts.replayed ? "" : " (partial timestamps)";
    switch ((psi_ts_kind)v->kind) {
    case PSI_TS_CONCURRENT_WRITERS:
        cx->kind = PSI_CEX_LOST_UPDATE;
        snprintf(cx->summary, sizeof cx->summary,
                 "lost update: %s and %s both write key %s but overlap in time: neither "
                 "commits before the other starts%s",
                 a, b, key, when);
        break;
    case PSI_TS_STALE_READ:
        cx->kind = PSI_CEX_STALE_READ;
        cx->anomaly_op = v->op;
        snprintf(cx->summary, sizeof cx->summary,
                 "stale read: %s in %s misses the version of key %s that %s committed before "
                 "it %s%s%s%s",
                 rd, b, key, v->a == PSI_INIT_TXN ? "nobody" : a,
                 psi_level_base(res->level_checked) == PSI_LEVEL_SER ? "committed" : "started",
                 v->other == UINT32_MAX ? "" : "; it read the older one of ",
                 v->other == UINT32_MAX ? "" : o, when);
        break;
    case PSI_TS_FUTURE_READ:
        cx->kind = PSI_CEX_FUTURE_READ;
        cx->anomaly_op = v->op;
        snprintf(cx->summary, sizeof cx->summary,
                 "future read: %s in %s reads the version of key %s that %s commits only "
                 "after %s%s",
                 rd, b, key, a,
                 psi_level_base(res->level_checked) == PSI_LEVEL_SER ? "it commits" : "it starts",
                 when);
        break;
    case PSI_TS_SESSION_ORDER:
        cx->kind = PSI_CEX_SESSION_TIME;
        snprintf(cx->summary, sizeof cx->summary,
                 "session order against time: %s precedes %s in its session but does not "
                 "commit before it %s%s",
                 a, b, psi_level_base(res->level_checked) == PSI_LEVEL_SER ? "commits" : "starts",
                 when);
        break;
    default:
        snprintf(cx->summary, sizeof cx->summary, "a violation of the timestamps");
        break;
    }
    cx->present = true;
    cx->restored_whole = true;
    cx->by_timestamps = true;
    return PSI_OK;
}
