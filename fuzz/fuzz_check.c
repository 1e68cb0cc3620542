/* Shared checks of the reader fuzz targets (see fuzz_check.h). */
#include "fuzz_check.h"
#include "fuzz.h"

#include "check/check.h"
#include "check/level.h"
#include "core/index.h"
#include "interpret/explain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Histories up to this many operations also go through the whole check. */
#define FUZZ_CHECK_OPS 48u

void psi_fuzz_require(int cond, const char *msg, const char *file, int line)
{
    if (cond)
        return;
    fprintf(stderr, "%s:%d: fuzz check failed: %s\n", file, line, msg);
    abort();
}

static void check_diag(const psi_diag *d)
{
    FUZZ_REQUIRE(memchr(d->msg, '\0', sizeof d->msg) != NULL, "diagnostic not terminated");
    FUZZ_REQUIRE(d->msg[0] != '\0', "empty diagnostic");
}

/* The layout history.h promises. */
static void check_shape(const psi_history *h)
{
    FUZZ_REQUIRE(h->n_txns >= 1 && h->txns, "no initial transaction");
    FUZZ_REQUIRE(h->txns[0].n_ops == 0 && h->txns[0].session == PSI_NO_SESSION,
                 "initial transaction has operations or a session");
    uint32_t next_txn = 1;
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        const psi_session *se = &h->sessions[s];
        FUZZ_REQUIRE(se->first_txn == next_txn, "sessions do not tile the transactions");
        FUZZ_REQUIRE((uint64_t)se->first_txn + se->n_txns <= h->n_txns, "session past the end");
        if (s > 0)
            FUZZ_REQUIRE(h->sessions[s - 1].id < se->id, "sessions not sorted by id");
        for (uint32_t i = 0; i < se->n_txns; i++) {
            const psi_txn *t = &h->txns[se->first_txn + i];
            FUZZ_REQUIRE(t->session == s && t->pos == i, "transaction session/pos wrong");
            FUZZ_REQUIRE(t->status <= PSI_TXN_UNKNOWN, "bad transaction status");
        }
        next_txn += se->n_txns;
    }
    FUZZ_REQUIRE(next_txn == h->n_txns, "transactions outside every session");
    /* Transactions own disjoint op ranges covering every op (in builder
     * order, which need not be session order). */
    uint8_t *owned = calloc((size_t)h->n_ops + 1, 1);
    FUZZ_REQUIRE(owned != NULL, "out of memory in the checker");
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *x = &h->txns[t];
        FUZZ_REQUIRE((uint64_t)x->first_op + x->n_ops <= h->n_ops, "transaction past the end");
        for (uint32_t i = 0; i < x->n_ops; i++) {
            FUZZ_REQUIRE(!owned[x->first_op + i], "an operation in two transactions");
            owned[x->first_op + i] = 1;
        }
    }
    for (uint32_t o = 0; o < h->n_ops; o++)
        FUZZ_REQUIRE(owned[o], "an operation outside every transaction");
    free(owned);
    for (uint32_t o = 0; o < h->n_ops; o++) {
        const psi_op *op = &h->ops[o];
        FUZZ_REQUIRE(op->key < h->n_keys, "key index out of range");
        FUZZ_REQUIRE(op->kind <= PSI_OP_WRITE, "bad op kind");
        FUZZ_REQUIRE(!(op->flags & PSI_OPF_INIT) || op->value == 0, "initial read with a value");
    }
    /* Real time (history.h psi_rt): the initial transaction first, and no
     * transaction completing before it is invoked. */
    for (uint32_t t = 0; h->rt && t < h->n_txns; t++)
        FUZZ_REQUIRE(h->rt[t].invoke <= h->rt[t].complete &&
                         (t || (h->rt[0].invoke == 0 && h->rt[0].complete == 0)),
                     "bad real-time interval");
    for (uint32_t i = 0; i < h->n_list_reads; i++) {
        const psi_list_read *l = &h->list_reads[i];
        FUZZ_REQUIRE(l->op < h->n_ops && (h->ops[l->op].flags & PSI_OPF_LIST), "bad list read");
        FUZZ_REQUIRE(i == 0 || h->list_reads[i - 1].op < l->op, "list reads not sorted");
        FUZZ_REQUIRE(l->first + l->len <= h->n_list_vals, "list past its values");
    }
}

/* The whole check under every level (real-time ones only when the
 * history has real time), and the lattice between the verdicts
 * (level.h): a history accepted under a level is accepted under every
 * level it implies. A level may refuse a history with an error (the
 * polynomial ones refuse a read with a choice of writers): it then takes
 * no part. Every history here has at most FUZZ_CHECK_OPS operations, and
 * pruning runs on one thread, so an input costs a bounded number of small
 * checks. */
static void check_levels(psi_history *h)
{
    int verdict[PSI_LEVEL_LAST + 1]; /* 0 accept, 1 reject, -1 none */
    for (unsigned l = 0; l <= PSI_LEVEL_LAST; l++) {
        verdict[l] = -1;
        if (psi_level_realtime((psi_level)l) && !h->rt)
            continue;
        psi_check_opts co = {.level = (psi_level)l,
                             .ser = psi_level_base((psi_level)l) == PSI_LEVEL_SER,
                             .threads = 1,
                             .time_limit = 5.0};
        psi_check_result r;
        psi_diag d;
        psi_status cst = psi_check(h, &co, &r, &d);
        if (cst != PSI_OK)
            check_diag(&d);
        else
            verdict[l] = r.verdict == PSI_REJECT;
        if (cst == PSI_OK && r.verdict == PSI_REJECT && psi_level_realtime((psi_level)l)) {
            /* Real time: the counterexample re-checks sub-histories
             * rebuilt from this one (interpret/sub_check.c). */
            psi_cex cx;
            psi_cex_opts xo = {.ser = co.ser, .budget = 60};
            psi_status xst = psi_cex_build(h, &r, &xo, &cx, &d);
            FUZZ_REQUIRE(xst == PSI_OK, "no counterexample of a real-time reject");
            FUZZ_REQUIRE(cx.present && cx.n_txns > 0, "an empty counterexample");
            psi_cex_free(&cx);
        }
        psi_check_result_free(&r); /* also after an error */
    }
    for (unsigned s = 0; s <= PSI_LEVEL_LAST; s++)
        for (unsigned w = 0; w <= PSI_LEVEL_LAST; w++)
            if (verdict[s] == 0 && verdict[w] == 1 &&
                psi_level_implies((psi_level)s, (psi_level)w)) {
                fprintf(stderr, "accepted under %s, rejected under %s\n",
                        psi_level_name((psi_level)s), psi_level_name((psi_level)w));
                FUZZ_REQUIRE(0, "the verdicts break the lattice of levels");
            }
}

void psi_fuzz_after_read(psi_status st, psi_history *h, const psi_diag *d)
{
    if (st != PSI_OK) {
        FUZZ_REQUIRE(h == NULL, "failed read returned a history");
        FUZZ_REQUIRE(d->status == st, "diagnostic status differs from the result");
        check_diag(d);
        return;
    }
    FUZZ_REQUIRE(h != NULL, "successful read without a history");
    check_shape(h);
    FUZZ_REQUIRE(h->n_ops <= PSI_FUZZ_MAX_OPS, "more operations than the limit");
    if (h->n_ops <= FUZZ_CHECK_OPS) {
        check_levels(h);
    } else {
        psi_diag d2;
        psi_index idx;
        psi_status ist = psi_index_build(h, &idx, &d2);
        if (ist == PSI_OK)
            psi_index_free(&idx);
        else
            check_diag(&d2);
    }
    psi_history_free(h);
}
