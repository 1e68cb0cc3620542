/* What the register formats (text, dbcop) cannot express, refused before
 * anything is written rather than converted lossily (see output.h). Each
 * writer checks transaction status itself: which outcomes a format has
 * differs between them. */
#include "formats/output.h"

#include <stdlib.h>

psi_status psi_write_check_ops(const psi_history *h, uint32_t t, const char *path, const char *fmt,
                               const char *who, psi_diag *d)
{
    const psi_txn *tx = &h->txns[t];
    uint64_t sid = h->sessions[tx->session].id;
    const psi_op *ops = psi_txn_ops(h, t);
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        /* Keys and values other than integers (EDN keywords, strings...):
         * the first one is named, never replaced by its interned id. */
        uint64_t key, value;
        if (!psi_history_key_u64(h, ops[i].key, &key))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) uses key "
                                "%.200s, which is not an integer; %s has only integer keys",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                PSI_KEY_NAME(h, ops[i].key), who);
        if (!psi_history_value_u64(h, ops[i].value, &value))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) uses "
                                "value %.200s (key %.200s), which is not an integer; %s has only "
                                "integer values",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                PSI_VALUE_NAME(h, ops[i].value), PSI_KEY_NAME(h, ops[i].key), who);
        if (ops[i].flags & (PSI_OPF_LIST | PSI_OPF_APPEND))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) has a "
                                "list-append operation on key %llu; %s has only register reads "
                                "and writes",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned long long)key, who);
        /* A read of 0 that is not of the initial value (EDN's [:r k 0],
         * Cobra's, or AWDIT's recorded state) would read the initial value
         * in text and dbcop: a read of a value nobody wrote could become
         * a valid one. */
        if (ops[i].kind == PSI_OP_READ && value == 0 &&
            !(ops[i].flags & (PSI_OPF_INIT | PSI_OPF_LIST)))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) reads "
                                "value 0 of key %llu, which is not the initial value here; %s "
                                "would read it as the initial value",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned long long)key, who);
        /* A written 0 is the initial value again in text and dbcop; from
         * formats where it is an ordinary value, it would change meaning. */
        if (ops[i].kind == PSI_OP_WRITE && value == 0 &&
            (psi_format_is_jepsen(h->format) || h->format == PSI_FMT_COBRA))
            return psi_diag_set(d, PSI_ERR_INPUT,
                                "%s: cannot write as %s: transaction %llu (session %llu) writes "
                                "value 0 to key %llu, which %s reserves for the initial value",
                                path, fmt, (unsigned long long)tx->id, (unsigned long long)sid,
                                (unsigned long long)key, who);
    }
    return PSI_OK;
}

psi_status psi_write_check_whole(const psi_history *h, const char *path, const char *fmt,
                                 psi_diag *d)
{
    if (h->n_dropped_ops == 0)
        return PSI_OK;
    return psi_diag_set(d, PSI_ERR_INPUT,
                        "%s: cannot write as %s: %llu operation%s of aborted transactions %s "
                        "dropped from this history after validation, so it is no longer the "
                        "input; write the history as read",
                        path, fmt, (unsigned long long)h->n_dropped_ops,
                        h->n_dropped_ops == 1 ? "" : "s", h->n_dropped_ops == 1 ? "was" : "were");
}

psi_status psi_write_check_jepsen(const psi_history *h, const char *path, const char *fmt,
                                  psi_diag *d)
{
    bool zero_is_initial = !psi_format_is_jepsen(h->format) && h->format != PSI_FMT_COBRA;
    if (!zero_is_initial)
        return PSI_OK;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *tx = &h->txns[t];
        const psi_op *ops = psi_txn_ops(h, t);
        for (uint32_t i = 0; i < tx->n_ops; i++)
            if (ops[i].kind == PSI_OP_WRITE && ops[i].value == 0 &&
                !(ops[i].flags & PSI_OPF_APPEND))
                return psi_diag_set(
                    d, PSI_ERR_INPUT,
                    "%s: cannot write as %s: transaction %llu (session %llu) writes value 0 to "
                    "key %s, which the %s format reads as the initial value written again; in "
                    "%s the initial value is nil and a written 0 is an ordinary value, so reads "
                    "of 0 would change meaning",
                    path, fmt, (unsigned long long)tx->id,
                    (unsigned long long)h->sessions[tx->session].id, PSI_KEY_NAME(h, ops[i].key),
                    psi_format_name(h->format), fmt);
    }
    return PSI_OK;
}

/* Real time: by time, at equal times invokes first (precedence is strict,
 * check/realtime.c), then by transaction and kind (a transaction's invoke
 * before its completion). */
static int event_cmp(const void *x, const void *y)
{
    const psi_write_event *a = x, *b = y;
    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->completes != b->completes)
        return a->completes < b->completes ? -1 : 1;
    return (a->txn > b->txn) - (a->txn < b->txn);
}

psi_status psi_write_events(const psi_history *h, psi_write_event **out, size_t *n, psi_diag *d)
{
    size_t m = 0;
    for (uint32_t s = 0; s < h->n_sessions; s++)
        m += 2 * (size_t)h->sessions[s].n_txns;
    psi_write_event *ev = malloc((m ? m : 1) * sizeof *ev);
    if (!ev)
        return psi_diag_nomem(d, "ordering the history's events");
    m = 0;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        /* the time of the session's last event so far */
        uint64_t last = 0;
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            uint64_t inv = h->rt ? h->rt[t].invoke : 0, cmp = h->rt ? h->rt[t].complete : 0;
            /* An invoke is written only when it is known: without real
             * time (or for a completion that had no invoke) a made-up
             * invoke would make every session's transactions precede the
             * next session's, and the reader would check that real time
             * under strict-SER and strong-SI. A completion alone says
             * nothing about when it began, as before. */
            if (inv)
                ev[m++] = (psi_write_event){.time = inv, .txn = t, .completes = 0};
            /* An open completion (:info) is open wherever it stands: right
             * after its invoke, or, with none, after its session's last
             * event, so that its process has one operation outstanding at
             * a time and keeps its order. */
            if (cmp == PSI_RT_OPEN)
                cmp = inv ? inv : last;
            ev[m++] = (psi_write_event){.time = cmp, .txn = t, .completes = 1};
            last = cmp;
        }
    }
    if (h->rt && m)
        qsort(ev, m, sizeof *ev, event_cmp);
    *out = ev;
    *n = m;
    return PSI_OK;
}
