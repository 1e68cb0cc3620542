/* Counterexamples shrunk at the level checked (issue 14 item 3, issue 15):
 * PC, PSI, real-time levels and known version orders re-check
 * sub-histories with the whole pipeline, so the counterexample is a
 * minimal violation of that level, named.
 *
 * Each case is a small history with transactions the violation does not
 * need. The test asserts the name, the transactions, and minimality on
 * its own: it rebuilds the sub-history without each transaction of the
 * counterexample through the builder (dropping the reads of values the
 * removed transaction wrote: nothing from sub_check.c) and checks that the
 * pipeline accepts it at the level, while the counterexample's own
 * sub-history is rejected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "interpret/explain.h"

#include <stdio.h>
#include <string.h>

#define MAX_OPS 4

typedef struct t_op {
    char kind; /* 'r' or 'w', 0 ends */
    uint64_t key, value;
} t_op;

typedef struct t_txn {
    uint64_t session, id;
    uint64_t invoke, complete; /* real time (when the case has it) */
    t_op ops[MAX_OPS];
} t_txn;

typedef struct t_case {
    const char *name;
    psi_level level;
    bool rt;
    const t_txn *txns;
    uint32_t n;
    psi_cex_kind kind;
    const uint64_t *want; /* transaction ids of the counterexample */
    uint32_t n_want;
    const psi_version_order *vo;
} t_case;

/* Was (key, value) written by a transaction of c that keep[] leaves out? */
static bool written_by_removed(const t_case *c, const bool *keep, uint64_t key, uint64_t value)
{
    for (uint32_t i = 0; i < c->n; i++)
        for (int k = 0; k < MAX_OPS && c->txns[i].ops[k].kind; k++)
            if (!keep[i] && c->txns[i].ops[k].kind == 'w' && c->txns[i].ops[k].key == key &&
                c->txns[i].ops[k].value == value)
                return true;
    return false;
}

static psi_history *build(const t_case *c, const bool *keep)
{
    psi_builder *b = psi_builder_new("case", PSI_FMT_TEXT);
    psi_diag d;
    assert_non_null(b);
    psi_builder_set_rt_by_index(b, true);
    for (uint32_t i = 0; i < c->n; i++) {
        const t_txn *t = &c->txns[i];
        if (!keep[i])
            continue;
        assert_int_equal(psi_builder_begin(b, t->session, t->id, i + 1, &d), PSI_OK);
        if (c->rt)
            assert_int_equal(psi_builder_set_rt(b, t->invoke, t->complete, &d), PSI_OK);
        for (int k = 0; k < MAX_OPS && t->ops[k].kind; k++) {
            const t_op *o = &t->ops[k];
            if (o->kind == 'r' && o->value && written_by_removed(c, keep, o->key, o->value))
                continue;
            assert_int_equal(psi_builder_op(b, o->kind == 'r' ? PSI_OP_READ : PSI_OP_WRITE, o->key,
                                            o->value, o->value ? 0 : PSI_OPF_INIT, &d),
                             PSI_OK);
        }
        assert_int_equal(psi_builder_end(b, PSI_TXN_COMMITTED, &d), PSI_OK);
    }
    psi_history *h = NULL;
    assert_int_equal(psi_builder_finish(b, &h, &d), PSI_OK);
    return h;
}

static psi_verdict check(const t_case *c, psi_history *h, psi_check_result *r)
{
    psi_check_opts o = {
        .level = c->level, .ser = c->level == PSI_LEVEL_SER, .threads = 1, .version_order = c->vo};
    psi_diag d;
    if (psi_check(h, &o, r, &d) != PSI_OK)
        fail_msg("%s: %s", c->name, d.msg);
    return r->verdict;
}

/* The verdict on the sub-history keep[] names, with the case's version
 * orders restricted to it (a chain's order holds of its subsequences). */
static psi_verdict sub_verdict(const t_case *c, const bool *keep)
{
    psi_history *h = build(c, keep);
    psi_check_result r;
    psi_hint_txn tx[16];
    psi_hint_chain ch[4];
    psi_version_order vo = {.name = "order.txt", .chains = ch};
    t_case sub = *c;
    if (c->vo) {
        size_t m = 0;
        for (size_t i = 0; i < c->vo->n_chains && i < 4; i++) {
            ch[vo.n_chains] = c->vo->chains[i];
            ch[vo.n_chains].tx = tx + m;
            ch[vo.n_chains].n = 0;
            for (size_t k = 0; k < c->vo->chains[i].n; k++)
                for (uint32_t j = 0; j < c->n; j++)
                    if (keep[j] && c->txns[j].session == c->vo->chains[i].tx[k].sid &&
                        c->txns[j].id == c->vo->chains[i].tx[k].tid && m < 16) {
                        tx[m++] = c->vo->chains[i].tx[k];
                        ch[vo.n_chains].n++;
                    }
            vo.n_chains += ch[vo.n_chains].n >= 2;
        }
        sub.vo = vo.n_chains ? &vo : NULL;
    }
    psi_verdict v = check(&sub, h, &r);
    psi_check_result_free(&r);
    psi_history_free(h);
    return v;
}

static void run_case(const t_case *c)
{
    bool all[16];
    assert_true(c->n <= 16);
    for (uint32_t i = 0; i < c->n; i++)
        all[i] = true;
    psi_history *h = build(c, all);
    psi_check_result r;
    assert_int_equal(check(c, h, &r), PSI_REJECT);
    psi_cex cx;
    psi_cex_opts xo = {.ser = c->level == PSI_LEVEL_SER, .version_order = c->vo};
    psi_diag d;
    assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
    if (!cx.present || !cx.by_pipeline || !cx.minimal || cx.kind != c->kind)
        fail_msg("%s: present %d, by_pipeline %d, minimal %d, named %s (want %s): %s", c->name,
                 cx.present, cx.by_pipeline, cx.minimal, psi_cex_kind_name(cx.kind),
                 psi_cex_kind_name(c->kind), cx.summary);
    /* The transactions, by id. */
    bool keep[16] = {false};
    uint32_t got = 0;
    for (uint32_t i = 0; i < cx.n_txns; i++) {
        if (cx.txns[i] == PSI_INIT_TXN)
            continue;
        uint64_t id = h->txns[cx.txns[i]].id;
        bool wanted = false;
        for (uint32_t k = 0; k < c->n_want; k++)
            wanted |= c->want[k] == id;
        if (!wanted)
            fail_msg("%s: transaction %llu in the counterexample: %s", c->name,
                     (unsigned long long)id, cx.summary);
        for (uint32_t k = 0; k < c->n; k++)
            if (c->txns[k].id == id)
                keep[k] = true;
        got++;
    }
    if (got != c->n_want)
        fail_msg("%s: %u transactions, want %u: %s", c->name, got, c->n_want, cx.summary);
    /* Every edge is between transactions of the counterexample. */
    for (uint32_t i = 0; i < cx.n_edges; i++) {
        bool from = false, to = false;
        for (uint32_t k = 0; k < cx.n_txns; k++) {
            from |= cx.txns[k] == cx.edges[i].from || cx.edges[i].from == PSI_INIT_TXN;
            to |= cx.txns[k] == cx.edges[i].to;
        }
        assert_true(from && to);
    }
    /* Minimal: the counterexample is rejected, and without any one of its
     * transactions the rest is accepted. */
    assert_int_equal(sub_verdict(c, keep), PSI_REJECT);
    for (uint32_t k = 0; k < c->n; k++) {
        if (!keep[k])
            continue;
        keep[k] = false;
        if (sub_verdict(c, keep) != PSI_ACCEPT)
            fail_msg("%s: still rejected without transaction %llu", c->name,
                     (unsigned long long)c->txns[k].id);
        keep[k] = true;
    }
    psi_cex_free(&cx);
    psi_check_result_free(&r);
    psi_history_free(h);
}

/* PC: a long fork among four transactions, with a write chain on key 1
 * and readers of other keys around it. */
static const t_txn long_fork[] = {
    {1, 10, 0, 0, {{'w', 1, 1}, {'w', 5, 1}}}, {2, 20, 0, 0, {{'w', 2, 1}}},
    {3, 30, 0, 0, {{'r', 1, 1}, {'r', 2, 0}}}, {4, 40, 0, 0, {{'r', 2, 1}, {'r', 1, 0}}},
    {1, 11, 0, 0, {{'r', 5, 1}, {'w', 5, 2}}}, {5, 50, 0, 0, {{'r', 5, 2}, {'w', 6, 1}}},
    {3, 31, 0, 0, {{'r', 6, 1}, {'r', 1, 1}}},
};
static const uint64_t long_fork_want[] = {10, 20, 30, 40};

/* PSI: a lost update on key 1 (both read (1,10)'s write), with a reader
 * chain that makes the check's own cycle run through more transactions. */
static const t_txn lost_update[] = {
    {1, 10, 0, 0, {{'w', 1, 1}}},
    {2, 20, 0, 0, {{'r', 1, 1}, {'w', 1, 2}, {'w', 2, 1}}},
    {3, 30, 0, 0, {{'r', 1, 1}, {'w', 1, 3}}},
    {4, 40, 0, 0, {{'r', 2, 1}, {'w', 3, 1}}},
    {5, 50, 0, 0, {{'r', 3, 1}, {'r', 1, 3}}},
    {6, 60, 0, 0, {{'w', 7, 1}}},
};
static const uint64_t lost_update_want[] = {10, 20, 30};

/* Real time: (1,10) writes key 1 and completes (index 1) before (3,30) is
 * invoked (index 6), which still reads key 1's initial value. Between
 * them, (2,20) runs alone (indices 2 to 5), so the sparse real-time
 * edges go through it; the violation needs only the two. */
static const t_txn stale[] = {
    {1, 10, 0, 1, {{'w', 1, 1}}},
    {2, 20, 2, 5, {{'w', 2, 1}}},
    {3, 30, 6, 7, {{'r', 1, 0}, {'r', 2, 1}}},
    {4, 40, 8, 9, {{'r', 2, 1}}},
};
static const uint64_t stale_want[] = {10, 30};

/* Known version orders: key 1's chain says (1,11) before (2,20) before
 * (1,10), against session 1's order (1,10) then (1,11). (2,20) orders
 * nothing the violation needs: the chain's order holds of (1,11) and
 * (1,10) alone. */
static const t_txn hinted[] = {
    {1, 10, 0, 0, {{'w', 1, 1}}},
    {1, 11, 0, 0, {{'w', 1, 2}}},
    {2, 20, 0, 0, {{'w', 1, 3}}},
    {3, 30, 0, 0, {{'r', 1, 2}}},
};
static const uint64_t hinted_want[] = {10, 11};
static const psi_hint_txn hint_tx[] = {{1, 11, 7}, {2, 20, 7}, {1, 10, 7}};
static const psi_hint_chain hint_chain[] = {{.key = 1, .line = 7, .tx = hint_tx, .n = 3}};
static const psi_version_order hint_vo = {.name = "order.txt", .chains = hint_chain, .n_chains = 1};

#define N(a) (uint32_t)(sizeof(a) / sizeof *(a))

static void test_pc_long_fork(void **state)
{
    (void)state;
    t_case c = {"pc long fork", PSI_LEVEL_PC,      false,
                long_fork,      N(long_fork),      PSI_CEX_LONG_FORK,
                long_fork_want, N(long_fork_want), NULL};
    run_case(&c);
}

static void test_psi_lost_update(void **state)
{
    (void)state;
    t_case c = {"psi lost update", PSI_LEVEL_PSI,       false,
                lost_update,       N(lost_update),      PSI_CEX_LOST_UPDATE,
                lost_update_want,  N(lost_update_want), NULL};
    run_case(&c);
}

static void test_realtime_stale(void **state)
{
    (void)state;
    psi_level levels[] = {PSI_LEVEL_STRICT_SER, PSI_LEVEL_STRONG_SI};
    for (int i = 0; i < 2; i++) {
        t_case c = {i ? "strong-si stale read" : "strict-ser stale read",
                    levels[i],
                    true,
                    stale,
                    N(stale),
                    PSI_CEX_G_SINGLE,
                    stale_want,
                    N(stale_want),
                    NULL};
        run_case(&c);
    }
}

/* The real-time edge of the stale read is labelled as such. */
static void test_realtime_label(void **state)
{
    (void)state;
    bool all[N(stale)] = {true, true, true, true};
    t_case c = {
        .name = "label", .level = PSI_LEVEL_STRICT_SER, .rt = true, .txns = stale, .n = N(stale)};
    psi_history *h = build(&c, all);
    psi_check_result r;
    assert_int_equal(check(&c, h, &r), PSI_REJECT);
    psi_cex cx;
    psi_cex_opts xo = {.ser = true};
    psi_diag d;
    assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
    bool found = false;
    for (uint32_t i = 0; i < cx.n_edges; i++)
        found |= cx.edges[i].origin == PSI_CEX_REALTIME && h->txns[cx.edges[i].from].id == 10 &&
                 h->txns[cx.edges[i].to].id == 30;
    assert_true(found);
    psi_cex_free(&cx);
    psi_check_result_free(&r);
    psi_history_free(h);
}

static void test_version_order(void **state)
{
    (void)state;
    psi_level levels[] = {PSI_LEVEL_SI, PSI_LEVEL_SER};
    for (int i = 0; i < 2; i++) {
        t_case c = {i ? "ser version order" : "si version order",
                    levels[i],
                    false,
                    hinted,
                    N(hinted),
                    PSI_CEX_G1C,
                    hinted_want,
                    N(hinted_want),
                    &hint_vo};
        run_case(&c);
    }
    /* The hint edge names its line. */
    bool all[N(hinted)] = {true, true, true, true};
    t_case c = {.name = "hint label",
                .level = PSI_LEVEL_SI,
                .txns = hinted,
                .n = N(hinted),
                .vo = &hint_vo};
    psi_history *h = build(&c, all);
    psi_check_result r;
    assert_int_equal(check(&c, h, &r), PSI_REJECT);
    psi_cex cx;
    psi_cex_opts xo = {.version_order = &hint_vo};
    psi_diag d;
    assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
    bool found = false;
    for (uint32_t i = 0; i < cx.n_edges; i++)
        found |= cx.edges[i].origin == PSI_CEX_HINT && cx.edges[i].hint_line == 7 &&
                 h->txns[cx.edges[i].from].id == 11 && h->txns[cx.edges[i].to].id == 10;
    if (!found)
        fail_msg("no version-order edge (1,11) -> (1,10) at line 7: %s", cx.summary);
    psi_cex_free(&cx);
    psi_check_result_free(&r);
    psi_history_free(h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pc_long_fork),   cmocka_unit_test(test_psi_lost_update),
        cmocka_unit_test(test_realtime_stale), cmocka_unit_test(test_realtime_label),
        cmocka_unit_test(test_version_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
