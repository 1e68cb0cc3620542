/* Validation and graph-free anomalies: WR resolution, final writes, INT,
 * G1a, G1b, unwritten reads, duplicate writes, unknown outcomes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Builds a history from "S:ID:STATUS op op ...; ..." where STATUS is c, a or
 * u and an op is wK=V, rK=V or rK=_ (initial value). */
static psi_history *mk(const char *spec)
{
    psi_diag d;
    psi_builder *b = psi_builder_new("spec", PSI_FMT_TEXT);
    const char *p = spec;
    while (*p) {
        unsigned long long s, id;
        char stc;
        int n;
        assert_int_equal(sscanf(p, " %llu:%llu:%c%n", &s, &id, &stc, &n), 3);
        p += n;
        assert_int_equal(psi_builder_begin(b, s, id, 0, &d), PSI_OK);
        for (;;) {
            while (*p == ' ')
                p++;
            if (*p == ';' || *p == '\0')
                break;
            char kind = *p++;
            unsigned long long k, v = 0;
            assert_int_equal(sscanf(p, "%llu=%n", &k, &n), 1);
            p += n;
            unsigned flags = 0;
            if (*p == '_') {
                flags = PSI_OPF_INIT;
                p++;
            } else {
                assert_int_equal(sscanf(p, "%llu%n", &v, &n), 1);
                p += n;
            }
            assert_int_equal(
                psi_builder_op(b, kind == 'w' ? PSI_OP_WRITE : PSI_OP_READ, k, v, flags, &d),
                PSI_OK);
        }
        psi_txn_status st = stc == 'c'   ? PSI_TXN_COMMITTED
                            : stc == 'a' ? PSI_TXN_ABORTED
                                         : PSI_TXN_UNKNOWN;
        assert_int_equal(psi_builder_end(b, st, &d), PSI_OK);
        if (*p == ';')
            p++;
    }
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

static size_t count(const psi_index *idx, psi_anomaly_kind k)
{
    size_t n = 0;
    for (size_t i = 0; i < idx->n_anomalies; i++)
        n += idx->anomalies[i].kind == k;
    return n;
}

static void test_clean_history(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:c w1=1 w1=2 r1=2 w2=5; 2:2:c r1=2 r2=_ r1=2 w1=3; 2:3:c r2=5");
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(idx.n_committed, 3);
    /* txn (1,1): ops 0..3; w1=1 is not final, w1=2 is. */
    assert_false(idx.op_info[0] & PSI_OI_FINAL_WRITE);
    assert_true(idx.op_info[1] & PSI_OI_FINAL_WRITE);
    assert_false(idx.op_info[2] & PSI_OI_EXTERNAL_READ); /* reads own write */
    assert_true(idx.op_info[3] & PSI_OI_FINAL_WRITE);
    /* txn (2,2): ops 4..7 */
    assert_true(idx.op_info[4] & PSI_OI_EXTERNAL_READ);
    assert_int_equal(idx.read_src[4], 1);
    assert_int_equal(idx.read_src[5], PSI_SRC_INIT);
    assert_false(idx.op_info[6] & PSI_OI_EXTERNAL_READ);
    assert_int_equal(idx.read_src[6], PSI_SRC_NONE);
    assert_int_equal(idx.read_src[8], 3);
    assert_int_equal(idx.op_txn[8], 3);
    psi_index_free(&idx);
    psi_history_free(h);
}

/* The external id of the transaction owning candidate j of read a
 * (0 for the initial transaction). */
static unsigned long long cand_id(const psi_history *h, const psi_index *idx, uint32_t a,
                                  uint32_t j)
{
    uint32_t w = idx->amb_cand[idx->amb[a].first + j];
    return w == PSI_SRC_INIT ? 0 : (unsigned long long)h->txns[idx->op_txn[w]].id;
}

/* The ambiguous read of transaction id `id`, or UINT32_MAX. */
static uint32_t amb_of(const psi_history *h, const psi_index *idx, uint64_t id)
{
    for (uint32_t a = 0; a < idx->n_amb; a++)
        if (h->txns[idx->amb[a].txn].id == id)
            return a;
    return UINT32_MAX;
}

static void test_repeated_values_give_candidates(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:c w7=3; 2:2:a w7=3; 3:3:c w7=3; 4:4:c r7=3; 1:5:c r7=3;"
                        "5:6:c r8=_; 6:7:c w8=0;"                   /* 0 written: init too */
                        "9:11:c w10=4; 9:12:c w10=4; 9:13:c r10=4;" /* own session: last */
                        "10:14:c r10=4;"                            /* other session */
                        "11:15:c w11=5 w11=6; 12:16:c w11=5; 13:17:c r11=5;" /* G1b excluded */
                        "14:18:c r12=7 w12=7; 15:19:c w12=7"); /* own write excluded */
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_non_null(idx.dup_prev);
    uint32_t a = amb_of(h, &idx, 4); /* aborted (2,2) is no candidate */
    assert_int_not_equal(a, UINT32_MAX);
    assert_int_equal(idx.amb[a].n, 2);
    assert_int_equal(cand_id(h, &idx, a, 0), 1);
    assert_int_equal(cand_id(h, &idx, a, 1), 3);
    assert_true(idx.op_info[idx.amb[a].op] & PSI_OI_AMBIG);
    assert_int_equal(idx.read_src[idx.amb[a].op], PSI_SRC_NONE);
    a = amb_of(h, &idx, 5); /* (1,1) earlier in the session, (3,3) elsewhere */
    assert_int_not_equal(a, UINT32_MAX);
    assert_int_equal(idx.amb[a].n, 2);
    a = amb_of(h, &idx, 6); /* the writer of 0, and the initial value (last) */
    assert_int_not_equal(a, UINT32_MAX);
    assert_int_equal(idx.amb[a].n, 2);
    assert_int_equal(cand_id(h, &idx, a, 0), 7);
    assert_int_equal(cand_id(h, &idx, a, 1), 0);
    /* (9,13) reads from its own session: (9,12) overwrites (9,11); and
     * (14,18)'s own write is no candidate: one writer each is left. */
    assert_int_equal(amb_of(h, &idx, 13), UINT32_MAX);
    for (uint32_t t = 1; t < h->n_txns; t++) {
        if (h->txns[t].id == 13) {
            uint32_t w = idx.read_src[h->txns[t].first_op];
            assert_int_equal(h->txns[idx.op_txn[w]].id, 12);
        }
        if (h->txns[t].id == 17) { /* (11,15)'s w11=5 is intermediate */
            uint32_t w = idx.read_src[h->txns[t].first_op];
            assert_int_equal(h->txns[idx.op_txn[w]].id, 16);
        }
        if (h->txns[t].id == 18) {
            uint32_t w = idx.read_src[h->txns[t].first_op];
            assert_int_equal(h->txns[idx.op_txn[w]].id, 19);
        }
    }
    /* (10,14) is another session: both session-9 writers remain. */
    a = amb_of(h, &idx, 14);
    assert_int_not_equal(a, UINT32_MAX);
    assert_int_equal(idx.amb[a].n, 2);
    assert_int_equal(cand_id(h, &idx, a, 0), 11);
    assert_int_equal(cand_id(h, &idx, a, 1), 12);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_recorded_initial_state(void **state)
{
    (void)state;
    /* (0,100) writes only 0 and starts first (src 0 everywhere: lowest
     * index, session 0 sorts first). */
    psi_history *h = mk("0:100:c w1=0 w2=0; 1:1:c r1=_ w1=5; 2:2:c r1=_ r2=_");
    psi_init_opts none = {.mode = PSI_INIT_NONE};
    uint32_t t;
    psi_diag d;
    assert_int_equal(psi_index_mark_initial(h, &none, &t, &d), PSI_OK);
    assert_int_equal(t, 0);
    psi_index idx;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_amb, 3); /* reads of 0: (0,100) or the initial value */
    psi_index_free(&idx);
    assert_int_equal(psi_index_mark_initial(h, NULL, &t, &d), PSI_OK);
    assert_int_equal(h->txns[t].id, 100);
    assert_int_equal(h->txns[t].status, PSI_TXN_INITIAL);
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_amb, 0);
    assert_int_equal(idx.init_txn, t);
    assert_int_equal(idx.n_committed, 2);
    psi_index_free(&idx);
    psi_history_free(h);

    /* Named: must exist and only write 0. An unknown first transaction is
     * not taken by auto. */
    h = mk("0:100:u w1=0; 1:1:c w1=5 w2=0; 2:2:c r1=_");
    psi_init_opts named = {.mode = PSI_INIT_NAMED, .session = 1, .id = 1};
    assert_int_equal(psi_index_mark_initial(h, &named, &t, &d), PSI_ERR_INPUT);
    assert_non_null(strstr(d.msg, "(1,1)"));
    named.id = 9;
    assert_int_equal(psi_index_mark_initial(h, &named, &t, &d), PSI_ERR_INPUT);
    assert_int_equal(psi_index_mark_initial(h, NULL, &t, &d), PSI_OK);
    assert_int_equal(t, 0);
    named = (psi_init_opts){.mode = PSI_INIT_NAMED, .session = 0, .id = 100};
    assert_int_equal(psi_index_mark_initial(h, &named, &t, &d), PSI_ERR_INPUT); /* unknown */
    psi_history_free(h);
}

static void test_graph_free_anomalies(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:a w1=1;"        /* aborted writer */
                        "1:2:c w2=1 w2=2;"   /* intermediate write w2=1 */
                        "2:3:c r1=1;"        /* G1a */
                        "2:4:c r2=1;"        /* G1b */
                        "2:5:c r3=9;"        /* unwritten */
                        "3:6:c w4=1 r4=2;"   /* INT: own write disagrees (r4=2 by 7) */
                        "3:7:c w4=2;"        /*   */
                        "3:8:c r5=_ r5=4;"   /* INT: two reads disagree (5=4 by 9) */
                        "3:9:c w5=4;"        /*   */
                        "4:10:c r6=3 w6=3;"  /* INT: reads its own later write */
                        "4:11:a r1=1 r3=8"); /* anomalies inside aborted txns don't count */
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(count(&idx, PSI_ANOM_G1A), 1);
    assert_int_equal(count(&idx, PSI_ANOM_G1B), 1);
    assert_int_equal(count(&idx, PSI_ANOM_UNWRITTEN), 1);
    assert_int_equal(count(&idx, PSI_ANOM_INT), 3);
    assert_int_equal(idx.n_anomalies, 6);
    for (size_t i = 0; i < idx.n_anomalies; i++) {
        const psi_anomaly *a = &idx.anomalies[i];
        uint64_t id = h->txns[a->txn].id;
        switch (a->kind) {
        case PSI_ANOM_G1A:
            assert_int_equal(id, 3);
            assert_int_equal(h->txns[a->other_txn].id, 1);
            break;
        case PSI_ANOM_G1B:
            assert_int_equal(id, 4);
            assert_int_equal(h->txns[a->other_txn].id, 2);
            assert_int_equal(h->ops[a->other_op].value, 1);
            break;
        case PSI_ANOM_UNWRITTEN:
            assert_int_equal(id, 5);
            assert_int_equal(a->other_op, PSI_SRC_NONE);
            break;
        default:
            assert_true(id == 6 || id == 8 || id == 10);
            assert_int_equal(a->other_txn, a->txn);
        }
    }
    assert_int_equal(idx.n_aborted, 2);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_unknown_outcomes_settle_transitively(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:u w1=1;"      /* observed by (2,3) via (1,2): committed */
                        "1:2:u r1=1 w2=1;" /* observed by (2,3): committed */
                        "2:3:c r2=1;"
                        "3:4:u w3=1 r9=5"); /* never observed: stays unknown, and its
                                               unwritten read is not an anomaly */
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(idx.n_promoted, 2);
    assert_int_equal(idx.n_committed, 3);
    assert_int_equal(idx.n_unknown, 1);
    assert_int_equal(h->txns[1].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[2].status, PSI_TXN_COMMITTED);
    assert_int_equal(h->txns[4].status, PSI_TXN_UNKNOWN);
    assert_false(idx.op_info[h->txns[4].first_op] & PSI_OI_LIVE);
    psi_index_free(&idx);
    psi_history_free(h);
}

static void test_long_transaction(void **state)
{
    (void)state;
    /* 200 ops over 3 keys takes the sorting path; one INT violation at the end. */
    char *spec = malloc(8192);
    size_t n = (size_t)sprintf(spec, "1:1:c");
    for (int i = 1; i <= 198; i++)
        n += (size_t)sprintf(spec + n, " w%d=%d", i % 3, i);
    n += (size_t)sprintf(spec + n, " r0=198 r1=1");
    psi_history *h = mk(spec);
    free(spec);
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 1);
    assert_int_equal(idx.anomalies[0].kind, PSI_ANOM_INT);
    assert_int_equal(idx.anomalies[0].op, 199);
    assert_int_equal(h->ops[idx.anomalies[0].other_op].value, 196);
    assert_true(idx.op_info[197] & PSI_OI_FINAL_WRITE); /* w0=198: last write of key 0 */
    assert_false(idx.op_info[0] & PSI_OI_FINAL_WRITE);
    psi_index_free(&idx);
    psi_history_free(h);
}

/* List-append reads of a key must be prefixes of one another: [1 2] and
 * [1 3] are an incompatible order, [1 2] and [1 2 3] are not, and a read
 * after the transaction's own append (its own snapshot) is left out. */
static void test_incompatible_list_orders(void **state)
{
    (void)state;
    for (int variant = 0; variant < 3; variant++) {
        psi_diag d;
        psi_builder *b = psi_builder_new("lists", PSI_FMT_EDN);
        for (uint64_t v = 1; v <= 3; v++) {
            assert_int_equal(psi_builder_begin(b, v, v, v, &d), PSI_OK);
            assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 7, v, PSI_OPF_APPEND, &d), PSI_OK);
            assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
        }
        uint64_t a[] = {1, 2}, bb[] = {1, 3}, c[] = {1, 2, 3};
        assert_int_equal(psi_builder_begin(b, 4, 4, 4, &d), PSI_OK);
        assert_int_equal(psi_builder_list_read(b, 7, a, 2, &d), PSI_OK);
        assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
        assert_int_equal(psi_builder_begin(b, 5, 5, 5, &d), PSI_OK);
        if (variant == 2) /* own append first: an internal read */
            assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 7, 9, PSI_OPF_APPEND, &d), PSI_OK);
        uint64_t own[] = {1, 3, 9};
        if (variant == 0)
            assert_int_equal(psi_builder_list_read(b, 7, bb, 2, &d), PSI_OK);
        else if (variant == 1)
            assert_int_equal(psi_builder_list_read(b, 7, c, 3, &d), PSI_OK);
        else
            assert_int_equal(psi_builder_list_read(b, 7, own, 3, &d), PSI_OK);
        assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
        psi_history *h;
        assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
        psi_index idx;
        assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
        size_t n = 0;
        for (size_t i = 0; i < idx.n_anomalies; i++)
            n += idx.anomalies[i].kind == PSI_ANOM_INCOMPATIBLE_ORDER;
        assert_int_equal(n, variant == 0 ? 1 : 0);
        if (variant == 0) {
            const psi_anomaly *an = &idx.anomalies[0];
            assert_int_equal(an->kind, PSI_ANOM_INCOMPATIBLE_ORDER);
            assert_int_not_equal(an->txn, an->other_txn);
        }
        psi_index_free(&idx);
        psi_history_free(h);
    }
}

/* Where op o of h is, as (transaction, offset) in one word, so that the
 * same operation can be recognized after psi_index_drop_aborted moved it;
 * PSI_SRC_INIT and PSI_SRC_NONE stand for themselves. */
static uint64_t place(const psi_history *h, const psi_index *idx, uint32_t o)
{
    if (o >= PSI_SRC_INIT)
        return o;
    uint32_t t = idx->op_txn[o];
    return (uint64_t)t << 32 | (o - h->txns[t].first_op);
}

/* Dropping aborted attempts' operations: every kept operation keeps its
 * contents and facts, every index that named an operation names the same
 * one at its new place, aborted transactions keep their ids and session
 * places with no operations. The history interleaves sessions (its
 * operations are not in transaction order), an aborted attempt repeats a
 * committed write's value that a committed read observes (the read keeps
 * the committed writer), a read has a choice of two committed writers,
 * and an unknown outcome is settled by its reader. */
static void test_drop_aborted(void **state)
{
    (void)state;
    psi_history *h = mk("1:1:c w1=1 w2=1; 2:2:a w1=2 w3=7 r1=1; 1:3:a w1=5 w2=9;"
                        "2:4:c r1=1 r2=1 w3=3; 3:5:c w2=1 r3=3; 3:6:u w4=4; 2:8:c w2=9;"
                        "1:7:c r4=4 r2=9 w1=6 r5=_; 3:9:a; 3:10:a r2=9 w5=1");
    psi_index idx;
    psi_diag d;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(idx.n_aborted, 4);
    assert_int_equal(idx.n_amb, 1);
    uint32_t n_before = h->n_ops, n_txns = h->n_txns;
    uint64_t *where = malloc(n_before * sizeof *where), *src = malloc(n_before * sizeof *src);
    psi_op *ops = malloc(n_before * sizeof *ops);
    uint8_t *info = malloc(n_before);
    psi_txn *txns = malloc(n_txns * sizeof *txns);
    uint64_t aborted_ops = 0;
    for (uint32_t o = 0; o < n_before; o++) {
        where[o] = place(h, &idx, o);
        src[o] = place(h, &idx, idx.read_src[o]);
        ops[o] = h->ops[o];
        info[o] = idx.op_info[o];
        aborted_ops += h->txns[idx.op_txn[o]].status == PSI_TXN_ABORTED;
    }
    memcpy(txns, h->txns, n_txns * sizeof *txns);
    uint64_t amb_read = place(h, &idx, idx.amb[0].op), cand[2];
    assert_int_equal(idx.amb[0].n, 2);
    for (int j = 0; j < 2; j++)
        cand[j] = place(h, &idx, idx.amb_cand[idx.amb[0].first + j]);

    uint64_t dropped;
    assert_int_equal(psi_index_drop_aborted(h, &idx, &dropped, &d), PSI_OK);
    assert_int_equal(dropped, 7);
    assert_int_equal(dropped, aborted_ops);
    assert_int_equal(h->n_dropped_ops, dropped);
    assert_int_equal(h->n_ops, n_before - dropped);
    assert_null(idx.w_op); /* the write map names aborted writes: released */
    assert_null(idx.dup_prev);
    assert_int_equal(h->n_txns, n_txns);
    for (uint32_t t = 1; t < n_txns; t++) {
        assert_int_equal(h->txns[t].id, txns[t].id);
        assert_int_equal(h->txns[t].session, txns[t].session);
        assert_int_equal(h->txns[t].pos, txns[t].pos);
        assert_int_equal(h->txns[t].status, txns[t].status);
        assert_int_equal(h->txns[t].n_ops, txns[t].status == PSI_TXN_ABORTED ? 0 : txns[t].n_ops);
    }
    uint32_t seen = 0;
    for (uint32_t o = 0; o < n_before; o++) {
        uint32_t t = (uint32_t)(where[o] >> 32), i = (uint32_t)where[o];
        if (txns[t].status == PSI_TXN_ABORTED)
            continue;
        uint32_t k = h->txns[t].first_op + i;
        assert_true(k < h->n_ops);
        assert_int_equal(idx.op_txn[k], t);
        assert_int_equal(h->ops[k].key, ops[o].key);
        assert_int_equal(h->ops[k].value, ops[o].value);
        assert_int_equal(h->ops[k].kind, ops[o].kind);
        assert_int_equal(h->ops[k].flags, ops[o].flags);
        assert_int_equal(idx.op_info[k], info[o]);
        assert_int_equal(place(h, &idx, idx.read_src[k]), src[o]);
        seen++;
    }
    assert_int_equal(seen, h->n_ops);
    assert_int_equal(place(h, &idx, idx.amb[0].op), amb_read);
    for (int j = 0; j < 2; j++)
        assert_int_equal(place(h, &idx, idx.amb_cand[idx.amb[0].first + j]), cand[j]);
    /* Nothing is left to drop, and a history without aborted attempts
     * (or once dropped) stays as it is. */
    assert_int_equal(psi_index_drop_aborted(h, &idx, &dropped, &d), PSI_OK);
    assert_int_equal(dropped, 0);
    assert_int_equal(h->n_dropped_ops, 7);
    free(where);
    free(src);
    free(ops);
    free(info);
    free(txns);
    psi_index_free(&idx);
    psi_history_free(h);
}

/* A history with list-append reads keeps its aborted attempts: the
 * polygraph looks appenders up in the write map (core/list_order.c). */
static void test_drop_aborted_keeps_lists(void **state)
{
    (void)state;
    psi_diag d;
    psi_builder *b = psi_builder_new("lists", PSI_FMT_EDN);
    assert_int_equal(psi_builder_begin(b, 1, 1, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 7, 1, PSI_OPF_APPEND, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    assert_int_equal(psi_builder_begin(b, 2, 2, 2, &d), PSI_OK);
    assert_int_equal(psi_builder_op(b, PSI_OP_WRITE, 7, 2, PSI_OPF_APPEND, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_ABORTED, &d), PSI_OK);
    uint64_t a[] = {1};
    assert_int_equal(psi_builder_begin(b, 3, 3, 3, &d), PSI_OK);
    assert_int_equal(psi_builder_list_read(b, 7, a, 1, &d), PSI_OK);
    assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    psi_history *h;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    psi_index idx;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    assert_int_equal(idx.n_anomalies, 0);
    assert_int_equal(idx.n_aborted, 1);
    uint64_t dropped;
    assert_int_equal(psi_index_drop_aborted(h, &idx, &dropped, &d), PSI_OK);
    assert_int_equal(dropped, 0);
    assert_int_equal(h->n_ops, 3);
    assert_non_null(idx.w_op);
    psi_index_free(&idx);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_clean_history),
        cmocka_unit_test(test_repeated_values_give_candidates),
        cmocka_unit_test(test_recorded_initial_state),
        cmocka_unit_test(test_graph_free_anomalies),
        cmocka_unit_test(test_unknown_outcomes_settle_transitively),
        cmocka_unit_test(test_long_transaction),
        cmocka_unit_test(test_incompatible_list_orders),
        cmocka_unit_test(test_drop_aborted),
        cmocka_unit_test(test_drop_aborted_keeps_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
