/* Known version orders (issue 15, check --version-order): the witness
 * format's chain lines (version 3), hints as known WW edges before pruning
 * (a complete order leaves no constraint), the RW edges a hint forces, a
 * hint that contradicts the history rejected with the hint's line in the
 * cycle and the counterexample, bad hints refused naming FILE:LINE, and
 * on generated histories: hints taken from the check's own witness (true
 * for the history, complete or any part of it) never change a verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "check/check.h"
#include "check/complete_pass.h"
#include "check/known_only.h"
#include "formats/witness.h"
#include "interpret/explain.h"
#include "interpret/hint_file.h"
#include "interpret/witness.h"
#include "oracle/oracle.h"
#include "support/list_history.h"
#include "support/spec.h"
#include "workload/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef psi_hint_file hints_mem;

static psi_status hints_parse(const char *text, hints_mem *m, psi_diag *d)
{
    return psi_hint_file_parse("hints.txt", text, strlen(text), m, d);
}

/* As `check` reads the file: its transactions resolved for h as it is
 * parsed (psi_hint_file_parse_for). */
static psi_status hints_parse_for(const char *text, const psi_history *h, hints_mem *m, psi_diag *d)
{
    return psi_hint_file_parse_for("hints.txt", text, strlen(text), h, m, d);
}

static void hints_free(hints_mem *m)
{
    psi_hint_file_free(m);
}

/* Checks spec with hint text (NULL: none); returns the status, fills r. */
static psi_status check_with(const char *spec, const char *hints, bool ser, psi_check_result *r,
                             psi_history **hp, psi_diag *d)
{
    psi_history *h = spec_history(spec);
    assert_non_null(h);
    hints_mem m;
    memset(&m, 0, sizeof m);
    psi_check_opts o = {.ser = ser};
    if (hints) {
        /* First the chains by name (psi_hint_file_parse), on a history of
         * its own: the resolved chains below must be answered alike. */
        psi_history *h0 = spec_history(spec);
        assert_non_null(h0);
        psi_status st = hints_parse(hints, &m, d);
        assert_int_equal(st, PSI_OK);
        o.version_order = &m.vo;
        psi_check_result r0;
        psi_status st0 = psi_check(h0, &o, &r0, d);
        char msg0[sizeof d->msg];
        memcpy(msg0, d->msg, sizeof msg0);
        hints_free(&m);
        assert_int_equal(hints_parse_for(hints, h, &m, d), PSI_OK);
        o.version_order = &m.vo;
        st = psi_check(h, &o, r, d);
        assert_int_equal(st, st0);
        if (st != PSI_OK)
            assert_string_equal(d->msg, msg0);
        else {
            assert_int_equal(r->verdict, r0.verdict);
            assert_int_equal(r->reason, r0.reason);
            assert_int_equal(r->hints.n, r0.hints.n);
            assert_int_equal(r->stats.known_edges_after, r0.stats.known_edges_after);
        }
        psi_check_result_free(&r0);
        psi_history_free(h0);
        hints_free(&m);
        *hp = h;
        return st;
    }
    psi_status st = psi_check(h, &o, r, d);
    *hp = h;
    return st;
}

static void test_chain_lines(void **state)
{
    (void)state;
    psi_witness w;
    psi_diag d;
    const char *v3 = "polysi-witness 3\nkey 1 (1,1) (2,2)\nchain 1 (1,1)\nchain 7 (3,3) (4,4)\n";
    assert_int_equal(psi_witness_parse("h", v3, strlen(v3), &w, &d), PSI_OK);
    assert_int_equal(w.version, 3);
    assert_int_equal(w.n_keys, 1);
    assert_int_equal(w.n_chains, 2);
    assert_int_equal(w.chains[1].key, 7);
    assert_int_equal(w.chains[1].n, 2);
    assert_int_equal(w.chains[1].line, 4);
    assert_int_equal(w.tx[w.chains[1].first + 1].sid, 4);
    /* Written back as version 3, and read back the same. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(psi_witness_write(&w, NULL, f, "mem", &d), PSI_OK);
    fclose(f);
    assert_non_null(strstr(buf, "polysi-witness 3\n"));
    assert_non_null(strstr(buf, "chain 7 (3,3) (4,4)\n"));
    psi_witness w2;
    assert_int_equal(psi_witness_parse("h", buf, len, &w2, &d), PSI_OK);
    assert_int_equal(w2.n_chains, 2);
    psi_witness_free(&w2);
    free(buf);
    psi_witness_free(&w);
    /* Older versions have no chain lines: still read, chain refused. */
    const char *v1 = "polysi-witness 1\nkey 1 (1,1)\nchain 1 (1,1)\n";
    assert_int_equal(psi_witness_parse("h", v1, strlen(v1), &w, &d), PSI_ERR_SYNTAX);
    assert_non_null(strstr(d.msg, "h:3:1:"));
    const char *bad = "polysi-witness 3\nchain x (1,1)\n";
    assert_int_equal(psi_witness_parse("h", bad, strlen(bad), &w, &d), PSI_ERR_SYNTAX);
    assert_non_null(strstr(d.msg, "h:2:7:"));
    const char *v6 = "polysi-witness 6\n"; /* 4 spells keys, 5 repeat reads */
    assert_int_equal(psi_witness_parse("h", v6, strlen(v6), &w, &d), PSI_ERR_SYNTAX);
}

/* Three blind writers: unordered without hints, fully ordered with. */
static void test_complete_order_needs_no_solver(void **state)
{
    (void)state;
    const char *spec = "1:1:c w1=1; 2:2:c w1=2; 3:3:c w1=3; 4:4:c r1=3";
    for (int ser = 0; ser < 2; ser++) {
        psi_check_result r;
        psi_history *h;
        psi_diag d;
        assert_int_equal(check_with(spec, NULL, ser, &r, &h, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_true(r.stats.constraints_generated > 0);
        psi_check_result_free(&r);
        psi_history_free(h);
        assert_int_equal(
            check_with(spec, "polysi-witness 3\nchain 1 (2,2) (1,1) (3,3)\n", ser, &r, &h, &d),
            PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(r.stats.constraints_generated, 0);
        assert_int_equal(r.stats.constraints_after, 0);
        assert_int_equal(r.stats.prune_rounds, 0); /* known-only: one cycle check */
        assert_int_equal(r.stats.theory_edges, 0);
        /* decided by the polygraph-free pass: no polygraph, no hints */
        assert_null(r.g.w_off);
        assert_int_equal(r.hints.n, 0);
        assert_int_equal(r.stats.known_edges_before, 4 + 1 + 2); /* SO, WR, hints */
        assert_int_equal(r.stats.known_edges_after, 4 + 1 + 2);  /* T4 reads the last */
        psi_check_result_free(&r);
        psi_history_free(h);
        /* With keep_model (a witness), the polygraph is built. */
        h = spec_history(spec);
        hints_mem m;
        assert_int_equal(hints_parse("polysi-witness 3\nchain 1 (2,2) (1,1) (3,3)\n", &m, &d),
                         PSI_OK);
        psi_check_opts o = {.ser = ser, .version_order = &m.vo, .keep_model = true};
        assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(r.stats.known_edges_before, 4 + 1 + 2);
        assert_int_equal(r.g.n_hint_edges, 2);
        assert_int_equal(r.hints.n, 2);
        psi_check_result_free(&r);
        hints_free(&m);
        psi_history_free(h);
    }
}

/* T3 reads y's initial value that T2 overwrites, and T2 reads T1's x:
 * SER orders T3's x before T1's. The hint "T1 before T3 on x" forces
 * T2 ->RW T3, closing T2 ->RW T3 ->RW T2: SER rejects, SI (two adjacent
 * anti-dependencies) accepts; the opposite hint changes nothing. */
static void test_hint_forces_rw(void **state)
{
    (void)state;
    const char *spec = "1:1:c w1=1; 2:2:c r1=1 w2=1; 3:3:c w1=2 r2=_";
    psi_check_result r;
    psi_history *h;
    psi_diag d;
    assert_int_equal(check_with(spec, NULL, true, &r, &h, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    psi_check_result_free(&r);
    psi_history_free(h);
    const char *bad = "polysi-witness 3\n# T1 first\nchain 1 (1,1) (3,3)\n";
    assert_int_equal(check_with(spec, bad, true, &r, &h, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_REJECT);
    psi_check_result_free(&r);
    psi_history_free(h);
    assert_int_equal(check_with(spec, bad, false, &r, &h, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    psi_check_result_free(&r);
    psi_history_free(h);
    assert_int_equal(check_with(spec, "polysi-witness 3\nchain 1 (3,3) (1,1)\n", true, &r, &h, &d),
                     PSI_OK);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    psi_check_result_free(&r);
    psi_history_free(h);
}

/* A hint against session order: the known graph's cycle has the hint's
 * edge, the counterexample names its line. */
static void test_contradiction_names_line(void **state)
{
    (void)state;
    const char *spec = "1:1:c w1=1; 1:2:c w1=2; 2:3:c r1=2";
    for (int ser = 0; ser < 2; ser++) {
        psi_check_result r;
        psi_history *h;
        psi_diag d;
        assert_int_equal(
            check_with(spec, "polysi-witness 3\n\n\nchain 1 (1,2) (1,1)\n", ser, &r, &h, &d),
            PSI_OK);
        assert_int_equal(r.verdict, PSI_REJECT);
        assert_int_equal(r.reason, PSI_BY_KNOWN_CYCLE);
        bool hint = false;
        for (uint32_t i = 0; i < r.prune.cycle_len[0]; i++) {
            const psi_edge *e = &r.prune.cycle[0][i];
            if (e->origin == PSI_FROM_VERSION_ORDER) {
                hint = true;
                assert_int_equal(psi_hints_line(&r.hints, e->from, e->to, e->key), 4);
            }
        }
        assert_true(hint);
        psi_cex cx;
        psi_cex_opts xo = {.ser = ser};
        assert_int_equal(psi_cex_build(h, &r, &xo, &cx, &d), PSI_OK);
        assert_true(cx.present);
        assert_true(cx.by_hints);
        assert_string_equal(cx.hint_file, "hints.txt");
        bool named = false;
        for (uint32_t i = 0; i < cx.n_edges; i++)
            named = named || (cx.edges[i].origin == PSI_CEX_HINT && cx.edges[i].hint_line == 4);
        assert_true(named);
        assert_string_equal(psi_cex_origin_name(PSI_CEX_HINT), "version-order");
        psi_cex_free(&cx);
        psi_check_result_free(&r);
        psi_history_free(h);
    }
}

static void expect_refused(const char *spec, const char *hints, const char *where, const char *what)
{
    psi_check_result r;
    psi_history *h;
    psi_diag d;
    psi_status st = check_with(spec, hints, false, &r, &h, &d);
    if (st != PSI_ERR_INPUT)
        fail_msg("expected a refusal of %s, got status %d", hints, st);
    if (!strstr(d.msg, where) || !strstr(d.msg, what))
        fail_msg("message '%s' lacks '%s' or '%s'", d.msg, where, what);
    psi_check_result_free(&r);
    psi_history_free(h);
}

/* The history's transaction named (sid, tid). */
static uint32_t txn_named(const psi_history *h, uint64_t sid, uint64_t tid)
{
    for (uint32_t t = 1; t < h->n_txns; t++)
        if (h->sessions[h->txns[t].session].id == sid && h->txns[t].id == tid)
            return t;
    fail_msg("no transaction (%llu,%llu)", (unsigned long long)sid, (unsigned long long)tid);
    return 0;
}

/* psi_hint_file_parse_for: chains of names that are one transaction each
 * come resolved (the history's indices, on the chain's line); a name that
 * is none's leaves the whole file by name, whose check then names it as
 * before (two transactions cannot share a name: the builder refuses a
 * repeated transaction id). Aborted and unknown-outcome
 * transactions resolve too: whether a hint may name them is decided at
 * the check, by their status then (check_with compares both forms). */
static void test_resolved_names(void **state)
{
    (void)state;
    const char *spec = "1:1:c w1=1; 1:2:c w1=2; 2:3:a w1=3; 2:4:u w1=4";
    psi_history *h = spec_history(spec);
    assert_non_null(h);
    psi_diag d;
    hints_mem m;
    assert_int_equal(hints_parse_for("polysi-witness 3\n# c\nchain 1 (1,1) (1,2) (2,3)\n"
                                     "order (9,9)\n",
                                     h, &m, &d),
                     PSI_OK);
    assert_ptr_equal(m.vo.named_in, h);
    assert_int_equal(m.vo.n_chains, 1);
    const psi_hint_chain *c = &m.vo.chains[0];
    assert_null(c->tx);
    assert_non_null(c->txn);
    assert_int_equal(c->n, 3);
    assert_int_equal(c->txn[0], txn_named(h, 1, 1));
    assert_int_equal(c->txn[2], txn_named(h, 2, 3));
    psi_hint_txn x = psi_hint_chain_entry(&m.vo, c, 1);
    assert_int_equal(x.sid, 1);
    assert_int_equal(x.tid, 2);
    assert_int_equal(x.line, 3);
    hints_free(&m);
    /* (1,5) is no transaction of h: the file by name */
    assert_int_equal(
        hints_parse_for("polysi-witness 3\nchain 1 (1,1) (1,2)\nchain 1 (1,2) (1,5)\n", h, &m, &d),
        PSI_OK);
    assert_null(m.vo.named_in);
    assert_int_equal(m.vo.n_chains, 2);
    assert_non_null(m.vo.chains[1].tx);
    assert_null(m.vo.chains[1].txn);
    assert_int_equal(m.vo.chains[1].tx[1].tid, 5);
    hints_free(&m);
    /* a syntax error is the plain parse's, wherever the names stop */
    assert_int_equal(
        hints_parse_for("polysi-witness 3\nchain 1 (1,1)\nchain 1 (1,2) (1,\n", h, &m, &d),
        PSI_ERR_SYNTAX);
    assert_non_null(strstr(d.msg, "hints.txt:3:"));
    assert_int_equal(hints_parse_for("polysi-witness 3\nchain 1 (7,7) (1,\n", h, &m, &d),
                     PSI_ERR_SYNTAX);
    assert_non_null(strstr(d.msg, "hints.txt:2:"));
    psi_history_free(h);
    /* resolved for one history, refused by a check of another */
    h = spec_history(spec);
    psi_history *h2 = spec_history(spec);
    assert_non_null(h2);
    assert_int_equal(hints_parse_for("polysi-witness 3\nchain 1 (1,1) (1,2)\n", h, &m, &d), PSI_OK);
    psi_check_opts o = {.version_order = &m.vo};
    psi_check_result r;
    assert_int_equal(psi_check(h2, &o, &r, &d), PSI_ERR_USAGE);
    assert_non_null(strstr(d.msg, "another history"));
    psi_check_result_free(&r);
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    assert_int_equal(r.verdict, PSI_ACCEPT);
    psi_check_result_free(&r);
    hints_free(&m);
    psi_history_free(h);
    psi_history_free(h2);
    /* what a check refuses, by either form (check_with compares them) */
    expect_refused(spec, "polysi-witness 3\nchain 1 (1,1) (2,3)\n",
                   "hints.txt:2:", "(2,3) is not a committed transaction");
    expect_refused(spec, "polysi-witness 3\nchain 1 (1,1) (1,9)\n",
                   "hints.txt:2:", "(1,9) is not a committed transaction");
    expect_refused(spec, "polysi-witness 3\nchain 2 (1,1)\n", "hints.txt:2:", "key 2");
}

/* Resolving: transaction ids shared by sessions and session ids that are
 * not dense (each lookup path of hints.c), keys out of order in the file,
 * a key ordered by two chains that repeat an edge: one edge per pair,
 * with its first line, grouped by key in ascending order. */
static void test_hint_lookup_and_groups(void **state)
{
    (void)state;
    const char *spec = "5:10:c w1=1 w2=1; 5:20:c w1=2; 9:1000000:c w1=3 w2=2; 6:30:c r1=3 r2=2";
    const char *hints = "polysi-witness 3\nchain 2 (5,10) (9,1000000)\nchain 1 (5,10) (5,20)\n"
                        "chain 1 (5,20) (9,1000000)\nchain 1 (5,10) (5,20)\n";
    for (int ser = 0; ser < 2; ser++) {
        psi_check_result r;
        psi_history *h;
        psi_diag d;
        assert_int_equal(check_with(spec, hints, ser, &r, &h, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_ACCEPT);
        assert_int_equal(r.stats.constraints_generated, 0);
        assert_int_equal(r.hints.n, 3);
        for (uint64_t i = 1; i < r.hints.n; i++)
            assert_true(r.hints.e[i - 1].key <= r.hints.e[i].key);
        uint32_t a = txn_named(h, 5, 10), b = txn_named(h, 5, 20), c = txn_named(h, 9, 1000000);
        uint32_t k1 = r.hints.e[0].key, k2 = r.hints.e[2].key;
        assert_int_equal(h->keys[k1], 1);
        assert_int_equal(h->keys[k2], 2);
        assert_int_equal(psi_hints_line(&r.hints, a, b, k1), 3);
        assert_int_equal(psi_hints_line(&r.hints, b, c, k1), 4);
        assert_int_equal(psi_hints_line(&r.hints, a, c, k2), 2);
        assert_int_equal(psi_hints_line(&r.hints, a, c, k1), 0);
        assert_int_equal(psi_hints_line(&r.hints, b, a, k1), 0);
        psi_check_result_free(&r);
        psi_history_free(h);
    }
    /* A key named out of order whose one chain repeats a writer. */
    expect_refused(spec,
                   "polysi-witness 3\nchain 2 (5,10) (9,1000000)\nchain 1 (5,10) (5,20) (5,10)\n",
                   "hints.txt:3:", "contradicts itself");
    expect_refused(spec, "polysi-witness 3\nchain 1 (6,30) (5,20)\n",
                   "hints.txt:2:", "(6,30) does not write key 1");
    expect_refused(spec, "polysi-witness 3\nchain 1 (7,10) (5,20)\n",
                   "hints.txt:2:", "(7,10) is not a committed transaction");
}

static void test_bad_hints(void **state)
{
    (void)state;
    const char *spec = "1:1:c w1=1; 1:2:c w1=2 w2=1; 2:3:a w1=3; 2:4:c r1=2";
    expect_refused(spec, "polysi-witness 3\nchain 1 (1,1) (9,9)\n",
                   "hints.txt:2:", "(9,9) is not a committed transaction");
    expect_refused(spec, "polysi-witness 3\nchain 1 (1,1) (2,3)\n",
                   "hints.txt:2:", "(2,3) is not a committed transaction"); /* aborted */
    expect_refused(spec, "polysi-witness 3\n\nchain 5 (1,1)\n",
                   "hints.txt:3:", "key 5 is not in the history");
    expect_refused(spec, "polysi-witness 3\nchain 2 (1,1) (1,2)\n",
                   "hints.txt:2:", "(1,1) does not write key 2");
    expect_refused(spec, "polysi-witness 3\nchain 2 (2,4)\n",
                   "hints.txt:2:", "(2,4) does not write key 2");
    expect_refused(spec, "polysi-witness 3\nchain 1 (1,1) (1,1)\n", "hints.txt:2:", "named twice");
    expect_refused(spec, "polysi-witness 3\nchain 1 (1,1) (1,2)\nchain 1 (1,2) (1,1)\n",
                   "hints.txt:", "contradicts itself");
}

/* spec checked at a polynomial level with hint text (NULL: none), read as
 * `check` reads it; returns the status, fills r, *hp, d. */
static psi_status level_with(const char *spec, const char *hints, psi_level level,
                             psi_check_result *r, psi_history **hp, psi_diag *d)
{
    psi_history *h = spec_history(spec);
    assert_non_null(h);
    hints_mem m;
    memset(&m, 0, sizeof m);
    psi_check_opts o = {.level = level};
    if (hints) {
        assert_int_equal(hints_parse_for(hints, h, &m, d), PSI_OK);
        o.version_order = &m.vo;
    }
    psi_status st = psi_check(h, &o, r, d);
    hints_free(&m);
    *hp = h;
    return st;
}

static psi_verdict level_verdict(const char *spec, const char *hints, psi_level level)
{
    psi_check_result r;
    psi_history *h;
    psi_diag d;
    psi_status st = level_with(spec, hints, level, &r, &h, &d);
    if (st != PSI_OK)
        fail_msg("%s at %s: %s", hints ? hints : "no hints", psi_level_name(level), d.msg);
    psi_verdict v = r.verdict;
    psi_check_result_free(&r);
    psi_history_free(h);
    return v;
}

/* --version-order at the polynomial levels: a known pair is an edge of
 * the level's graph, a fact of the commit order like a list-append read's
 * (check/level.h). A write cycle (G0) only the order reveals is rejected
 * at every one of them and accepted without the order; an order against
 * session order too; an order against an edge RA and CC force (T3 reads x
 * from T2 and y from T1, which also wrote x) only where the level forces
 * it; bad hints are refused naming their line, as under SI; a read with a
 * choice of writers is refused with the order (the searches do not take
 * it). */
static void test_weak_levels(void **state)
{
    (void)state;
    static const psi_level levels[] = {PSI_LEVEL_PL2, PSI_LEVEL_RC, PSI_LEVEL_RA, PSI_LEVEL_CC};
    const char *g0 = "1:1:c w1=1 w2=1; 2:2:c w1=2 w2=2";
    const char *cyc = "polysi-witness 3\nchain 1 (1,1) (2,2)\n\nchain 2 (2,2) (1,1)\n";
    const char *so = "1:1:c w1=1; 1:2:c w1=2";
    const char *forced = "1:1:c w1=1 w2=1; 2:2:c w1=2; 3:3:c r1=2 r2=1";
    const char *against = "polysi-witness 3\nchain 1 (2,2) (1,1)\n";
    for (size_t i = 0; i < sizeof levels / sizeof *levels; i++) {
        psi_level l = levels[i];
        assert_int_equal(level_verdict(g0, NULL, l), PSI_ACCEPT);
        assert_int_equal(level_verdict(g0,
                                       "polysi-witness 3\nchain 1 (1,1) (2,2)\n"
                                       "chain 2 (1,1) (2,2)\n",
                                       l),
                         PSI_ACCEPT);
        psi_check_result r;
        psi_history *h;
        psi_diag d;
        assert_int_equal(level_with(g0, cyc, l, &r, &h, &d), PSI_OK);
        assert_int_equal(r.verdict, PSI_REJECT);
        assert_int_equal(r.reason, PSI_BY_LEVEL);
        assert_int_equal(r.level.cycle_len, 2);
        for (uint32_t j = 0; j < 2; j++) {
            const psi_level_edge *e = &r.level.cycle[j];
            assert_int_equal(e->why, PSI_LW_ORDER_WW);
            /* key 1's pair on line 2, key 2's on line 4 */
            assert_int_equal(psi_hints_line(&r.hints, e->from, e->to, e->key),
                             e->from == txn_named(h, 1, 1) ? 2 : 4);
        }
        psi_check_result_free(&r);
        psi_history_free(h);
        assert_int_equal(level_verdict(so, "polysi-witness 3\nchain 1 (1,1) (1,2)\n", l),
                         PSI_ACCEPT);
        assert_int_equal(level_verdict(so, "polysi-witness 3\nchain 1 (1,2) (1,1)\n", l),
                         PSI_REJECT);
        assert_int_equal(level_verdict(forced, NULL, l), PSI_ACCEPT);
        assert_int_equal(level_verdict(forced, against, l),
                         l == PSI_LEVEL_RA || l == PSI_LEVEL_CC ? PSI_REJECT : PSI_ACCEPT);
        /* bad hints: exit 2 naming the line, as under SI */
        static const char *const bad[][3] = {
            {"polysi-witness 3\nchain 1 (1,1) (9,9)\n",
             "hints.txt:2:", "(9,9) is not a committed transaction"},
            {"polysi-witness 3\n\nchain 7 (1,1)\n", "hints.txt:3:", "key 7 is not in"},
            {"polysi-witness 3\nchain 1 (1,1) (2,2) (1,1)\n", "hints.txt:2:", "contradicts itself"},
            {"polysi-witness 3\nchain 1 (1,1)\nchain 2 (3,3)\n",
             "hints.txt:3:", "(3,3) does not write key 2"},
        };
        for (size_t b = 0; b < sizeof bad / sizeof *bad; b++) {
            psi_status st = level_with(forced, bad[b][0], l, &r, &h, &d);
            if (st != PSI_ERR_INPUT || !strstr(d.msg, bad[b][1]) || !strstr(d.msg, bad[b][2]))
                fail_msg("%s at %s: status %d, '%s'", bad[b][0], psi_level_name(l), st, d.msg);
            psi_check_result_free(&r);
            psi_history_free(h);
        }
        /* a value written twice: T3's read has a choice of writers */
        assert_int_equal(level_with("1:1:c w1=1; 2:2:c w1=1; 3:3:c r1=1",
                                    "polysi-witness 3\nchain 1 (1,1) (2,2)\n", l, &r, &h, &d),
                         PSI_ERR_USAGE);
        assert_non_null(strstr(d.msg, "--version-order"));
        psi_check_result_free(&r);
        psi_history_free(h);
    }
}

/* Hint text from the key lines of a witness: each key's order, whole
 * (keep 100) or as a random subsequence split into up to two chains. */
static char *hints_from_witness(const psi_witness *w, unsigned keep, uint64_t *rng)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    fputs("polysi-witness 3\n", f);
    for (size_t k = 0; k < w->n_keys; k++) {
        const psi_witness_line *l = &w->keys[k];
        for (int part = 0; part < 2; part++) {
            fprintf(f, "chain %llu", (unsigned long long)l->key);
            for (size_t i = 0; i < l->n; i++) {
                *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
                if (keep < 100 && (*rng >> 33) % 100 >= keep)
                    continue;
                fprintf(f, " (%llu,%llu)", (unsigned long long)w->tx[l->first + i].sid,
                        (unsigned long long)w->tx[l->first + i].tid);
            }
            fputc('\n', f);
            if (keep == 100)
                break;
        }
    }
    fclose(f);
    return buf;
}

/* Generated histories (SI and SER stores, some with faults): the hint-free
 * verdict under SI and SER; on an SI accept, the witness's orders as
 * hints, complete and in part: SI still accepts (complete: with no
 * constraint left), and SER keeps its verdict when it rejected (hints
 * only add edges); PL-2, RC, RA and CC accept with them. */
static void test_true_hints_keep_verdicts(void **state)
{
    (void)state;
    uint64_t rng = 42;
    unsigned accepted = 0, rejected = 0, weak_checked = 0;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        psi_gen_opts go;
        psi_gen_opts_default(&go);
        go.seed = seed;
        go.sessions = 2 + seed % 4;
        go.txns_per_session = 2 + seed % 5;
        go.ops_per_txn = 1 + seed % 4;
        go.keys = 1 + seed % 5;
        go.store = seed % 3 == 0 ? PSI_STORE_SER : PSI_STORE_SI;
        if (seed % 4 == 0) {
            go.faults = PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE);
            go.fault_prob = 0.3;
        }
        psi_history *h;
        psi_diag d;
        assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
        psi_check_opts o = {.keep_model = true};
        psi_check_result r;
        assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
        if (r.verdict != PSI_ACCEPT) {
            rejected++;
            psi_check_result_free(&r);
            psi_history_free(h);
            continue;
        }
        accepted++;
        psi_witness w;
        assert_int_equal(psi_witness_build(h, &r, false, &w, &d), PSI_OK);
        psi_check_result_free(&r);
        psi_check_opts so = {.ser = true};
        assert_int_equal(psi_check(h, &so, &r, &d), PSI_OK);
        psi_verdict ser_plain = r.verdict;
        psi_check_result_free(&r);
        static const unsigned keeps[] = {100, 50, 10};
        for (size_t k = 0; k < 3; k++) {
            char *text = hints_from_witness(&w, keeps[k], &rng);
            hints_mem m;
            assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
            for (int ser = 0; ser < 2; ser++) {
                psi_check_opts ho = {.ser = ser, .version_order = &m.vo};
                psi_status st = psi_check(h, &ho, &r, &d);
                if (st != PSI_OK)
                    fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
                if (!ser) {
                    if (r.verdict != PSI_ACCEPT)
                        fail_msg("seed %llu keep %u: true hints made SI reject",
                                 (unsigned long long)seed, keeps[k]);
                    if (keeps[k] == 100)
                        assert_int_equal(r.stats.constraints_after, 0);
                } else if (ser_plain == PSI_REJECT) {
                    assert_int_equal(r.verdict, PSI_REJECT);
                }
                psi_check_result_free(&r);
            }
            /* SI's commit order is one of each weaker level's (check/
             * level.h): its version orders keep their accepts (a read
             * with a choice of writers refuses the order there) */
            static const psi_level weak[] = {PSI_LEVEL_PL2, PSI_LEVEL_RC, PSI_LEVEL_RA,
                                             PSI_LEVEL_CC};
            for (size_t l = 0; l < sizeof weak / sizeof *weak; l++) {
                psi_check_opts wo = {.level = weak[l], .version_order = &m.vo};
                psi_status st = psi_check(h, &wo, &r, &d);
                if (st == PSI_OK && r.verdict != PSI_ACCEPT)
                    fail_msg("seed %llu keep %u: true hints made %s reject",
                             (unsigned long long)seed, keeps[k], psi_level_name(weak[l]));
                if (st != PSI_OK && st != PSI_ERR_USAGE)
                    fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
                weak_checked += st == PSI_OK;
                psi_check_result_free(&r);
            }
            hints_free(&m);
            free(text);
        }
        psi_witness_free(&w);
        psi_history_free(h);
    }
    assert_true(accepted > 50);
    assert_true(weak_checked > 100);
    print_message("true hints: %u SI accepts re-checked with hints, %u rejects, %u weak-level "
                  "checks with them\n",
                  accepted, rejected, weak_checked);
}

/* ---- The command line: check --version-order ---- */

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = NULL;
    size_t cap = 0, n = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (n + 2 > cap) {
            cap = cap ? 2 * cap : 4096;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
        buf[n++] = (char)c;
    }
    fclose(f);
    if (!buf)
        buf = calloc(1, 1);
    else
        buf[n] = '\0';
    return buf;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs the CLI with args; returns its exit code, *out stdout+stderr. */
static int run_cli(const char *dir, const char *args, char **out)
{
    const char *bin = getenv("PSI_CLI");
    assert_non_null(bin);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "cd '%s' && '%s' %s >out.txt 2>&1", dir, bin, args);
    int st = system(cmd);
    char p[512];
    snprintf(p, sizeof p, "%s/out.txt", dir);
    *out = slurp(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void test_cli(void **state)
{
    (void)state;
    if (!getenv("PSI_CLI")) {
        print_message("PSI_CLI not set: CLI cases skipped\n");
        return;
    }
    char dir[] = "/tmp/psi_order_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char p[512];
    snprintf(p, sizeof p, "%s/h.txt", dir);
    /* (1,1) and (2,2) write x blindly; (3,3) reads (2,2)'s x. */
    put_file(p, "w(0,1,1,1)\nw(0,2,2,2)\nr(0,2,3,3)\n");
    snprintf(p, sizeof p, "%s/good.txt", dir);
    put_file(p, "polysi-witness 3\nchain 0 (1,1) (2,2)\n");
    snprintf(p, sizeof p, "%s/contra.txt", dir);
    put_file(p, "polysi-witness 3\n# wrong on purpose\nchain 0 (2,2) (1,1)\n");
    snprintf(p, sizeof p, "%s/unknown.txt", dir);
    put_file(p, "polysi-witness 3\nchain 0 (1,1) (7,7)\n");
    snprintf(p, sizeof p, "%s/syntax.txt", dir);
    put_file(p, "polysi-witness 3\nchain 0 (1,1\n");
    char *out;
    assert_int_equal(run_cli(dir, "check --stats --version-order good.txt h.txt", &out), 0);
    free(out);
    /* (2,2) before (1,1) is fine for SI and SER alike: (3,3) read (2,2)
     * and nobody overwrote it after... unless (1,1) comes later, which
     * makes (3,3) ->RW (1,1): still acyclic. Both accept. */
    assert_int_equal(run_cli(dir, "check --version-order contra.txt h.txt", &out), 0);
    free(out);
    /* A contradiction with session order: rejected, the line named. */
    snprintf(p, sizeof p, "%s/so.txt", dir);
    put_file(p, "w(0,1,1,1)\nw(0,2,1,2)\n");
    snprintf(p, sizeof p, "%s/so-hint.txt", dir);
    put_file(p, "polysi-witness 3\n\nchain 0 (1,2) (1,1)\n");
    assert_int_equal(run_cli(dir, "check --version-order so-hint.txt so.txt", &out), 1);
    if (!strstr(out, "version-order so-hint.txt:3"))
        fail_msg("the reject does not name the hint's line:\n%s", out);
    free(out);
    assert_int_equal(run_cli(dir, "check --json --version-order so-hint.txt so.txt", &out), 1);
    assert_non_null(strstr(out, "\"source\":"));
    assert_non_null(strstr(out, "so-hint.txt:3"));
    free(out);
    assert_int_equal(run_cli(dir, "check --version-order unknown.txt h.txt", &out), 2);
    assert_non_null(strstr(out, "unknown.txt:2:"));
    free(out);
    assert_int_equal(run_cli(dir, "check --version-order syntax.txt h.txt", &out), 2);
    assert_non_null(strstr(out, "syntax.txt:2:"));
    free(out);
    assert_int_equal(run_cli(dir, "check --version-order missing.txt h.txt", &out), 2);
    assert_non_null(strstr(out, "missing.txt"));
    free(out);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The small generated history of the differential tests below. */
static psi_history *small_history(uint64_t seed)
{
    psi_gen_opts go;
    psi_gen_opts_default(&go);
    go.seed = seed;
    go.sessions = 2 + seed % 3;
    go.txns_per_session = 1 + seed % 4;
    go.ops_per_txn = 1 + seed % 3;
    go.keys = 1 + seed % 3;
    go.dist = PSI_DIST_UNIFORM;
    go.store = seed % 5 == 0 ? PSI_STORE_RANDOM : seed % 2 ? PSI_STORE_SI : PSI_STORE_SER;
    psi_history *h;
    psi_diag d;
    assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
    return h;
}

/* The committed writers of key k (at most 64), in transaction order (so
 * by session, in session order). */
static uint32_t key_writers(const psi_history *h, uint32_t k, uint32_t w[64])
{
    uint32_t n = 0;
    for (uint32_t t = 1; t < h->n_txns && n < 64; t++) {
        if (h->txns[t].status != PSI_TXN_COMMITTED)
            continue;
        bool writes = false;
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++) {
            const psi_op *op = &h->ops[h->txns[t].first_op + i];
            writes |= op->kind == PSI_OP_WRITE && op->key == k;
        }
        if (writes)
            w[n++] = t;
    }
    return n;
}

/* Appends " (S,ID)" for transaction t to text. */
static int put_txn(const psi_history *h, uint32_t t, char *text, size_t cap, int len)
{
    return len + snprintf(text + len, cap - (size_t)len, " (%llu,%llu)",
                          (unsigned long long)h->sessions[h->txns[t].session].id,
                          (unsigned long long)h->txns[t].id);
}

/* Checks h under SI or SER with the hint text against the oracle
 * restricted to oh: false when there is no verdict to compare (the oracle
 * gave up, or the pipeline refuses the history, e.g. a repeated value);
 * else they must agree, and *r holds the pipeline's result (the caller
 * frees it). */
static bool hinted_vs_oracle(const psi_history *h, bool ser, const char *text,
                             const oracle_hints *oh, uint64_t seed, psi_check_result *r)
{
    oracle_result orr;
    oracle_verdict ov = oracle_check_hinted(h, ser, oh, 200000, &orr);
    if (ov != ORACLE_ACCEPT && ov != ORACLE_REJECT)
        return false;
    hints_mem m;
    psi_diag d;
    assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
    psi_check_opts o = {.ser = ser, .version_order = &m.vo};
    psi_status st = psi_check((psi_history *)h, &o, r, &d);
    hints_free(&m);
    if (st == PSI_ERR_INPUT) {
        psi_check_result_free(r);
        return false;
    }
    if (st != PSI_OK)
        fail_msg("seed %llu: %s", (unsigned long long)seed, d.msg);
    if ((r->verdict == PSI_ACCEPT) != (ov == ORACLE_ACCEPT))
        fail_msg("seed %llu %s: pipeline %s, oracle %s, hints:\n%s", (unsigned long long)seed,
                 ser ? "ser" : "si", r->verdict == PSI_ACCEPT ? "accept" : "reject",
                 oracle_verdict_name(ov), text);
    return true;
}

/* Differential: small generated histories with random version-order hints
 * (true or not: a random order of two writers of a key), the pipeline
 * against the brute-force oracle restricted to the orders the hints allow.
 * They must agree exactly, under SI and SER. */
static void test_hints_against_oracle(void **state)
{
    (void)state;
    uint64_t rng = 99;
    unsigned compared = 0, rejects = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        psi_history *h = small_history(seed);
        /* Up to three hints, each two distinct committed writers of a key. */
        oracle_ww_hint ww[3];
        size_t nw = 0;
        char text[1024];
        int len = snprintf(text, sizeof text, "polysi-witness 3\n");
        for (int tries = 0; tries < 20 && nw < 3; tries++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t k = (uint32_t)((rng >> 33) % (h->n_keys ? h->n_keys : 1));
            uint32_t w[64], n = key_writers(h, k, w);
            if (n < 2)
                continue;
            uint32_t a = w[(rng >> 20) % n], b = w[(rng >> 40) % n];
            if (a == b)
                continue;
            ww[nw++] = (oracle_ww_hint){a, b, k};
            len += snprintf(text + len, sizeof text - (size_t)len, "chain %llu",
                            (unsigned long long)h->keys[k]);
            len = put_txn(h, a, text, sizeof text, len);
            len = put_txn(h, b, text, sizeof text, len);
            len += snprintf(text + len, sizeof text - (size_t)len, "\n");
        }
        oracle_hints oh = {.ww = ww, .n_ww = nw};
        for (int ser = 0; ser < 2; ser++) {
            psi_check_result r;
            if (!hinted_vs_oracle(h, ser, text, &oh, seed, &r))
                continue;
            compared++;
            rejects += r.verdict == PSI_REJECT;
            psi_check_result_free(&r);
        }
        psi_history_free(h);
    }
    assert_true(compared > 300);
    print_message("hints vs oracle: %u verdicts compared, %u rejects\n", compared, rejects);
}

/* Field by field: an edge's two padding bytes are whatever its array
 * held (a Release build's fresh memory is not zeroed). */
static bool same_edge(const psi_edge *a, const psi_edge *b)
{
    return a->from == b->from && a->to == b->to && a->key == b->key && a->type == b->type &&
           a->origin == b->origin;
}

/* psi_known_complete against the general path it stands in for
 * (psi_hints_resolve, psi_hints_apply, psi_known_only), each on a fresh
 * polygraph of h with order text: when both take a complete order, they
 * have the same hints, the same known edges in the same order (so the same
 * witness) and the same outcome and cycle; when only it does, it rejects.
 * Returns whether it took it. */
static bool complete_same_as_general(psi_history *h, bool ser, const char *text)
{
    hints_mem m;
    psi_diag d;
    assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
    uint32_t init;
    psi_init_opts io = {0};
    assert_int_equal(psi_index_mark_initial(h, &io, &init, &d), PSI_OK);
    psi_index idx;
    assert_int_equal(psi_index_build(h, &idx, &d), PSI_OK);
    psi_polygraph_opts po = {0};
    psi_polygraph g[2];
    psi_hints hs[2];
    psi_prune_result pr[2];
    memset(pr, 0, sizeof pr);
    bool taken[2];
    uint64_t before;
    for (int i = 0; i < 2; i++)
        assert_int_equal(psi_polygraph_build(h, &idx, &po, &g[i], &d), PSI_OK);
    psi_status st =
        psi_known_complete(h, &g[0], &m.vo, ser, &taken[0], &before, &hs[0], &pr[0], &d);
    assert_int_equal(st, PSI_OK);
    /* The polygraph-free pass (complete_pass.h) takes exactly the orders
     * psi_known_complete takes (these histories have no list reads), and
     * decides them alike, with the same counts. */
    bool taken_p, acyclic;
    psi_complete_counts cc;
    assert_int_equal(
        psi_complete_pass(h, &idx, &m.vo, ser, &taken_p, &acyclic, &cc, NULL, NULL, &d), PSI_OK);
    if (!idx.n_amb && !idx.opt)
        assert_int_equal(taken_p, taken[0]);
    if (taken_p) {
        assert_true(taken[0]);
        assert_int_equal(acyclic, pr[0].outcome == PSI_PRUNE_OK);
        assert_int_equal(cc.known_before, before);
        assert_int_equal(cc.known_after, g[0].n_known);
        assert_int_equal(cc.writer_pairs, g[0].n_writer_pairs);
        assert_int_equal(cc.pair_deps, g[0].n_pair_deps);
    }
    st = psi_hints_resolve(h, &g[1], &m.vo, &hs[1], &d);
    if (taken[0])
        assert_int_equal(st, PSI_OK);
    if (st == PSI_OK) {
        assert_int_equal(psi_hints_apply(&hs[1], &g[1], &d), PSI_OK);
        uint64_t before1 = g[1].n_known;
        assert_int_equal(psi_known_only(h, &g[1], &hs[1], ser, &taken[1], &pr[1], &d), PSI_OK);
        /* A complete order against session order is a cycle of its own
         * edges, which psi_known_only leaves to the rounds (and psi_check
         * to the general path): a reject either way. */
        if (taken[0] && !taken[1])
            assert_int_equal(pr[0].outcome, PSI_PRUNE_KNOWN_CYCLE);
        if (taken[0] && taken[1]) {
            assert_int_equal(before, before1);
            assert_int_equal(hs[0].n, hs[1].n);
            assert_memory_equal(hs[0].e, hs[1].e, hs[0].n * sizeof *hs[0].e);
            assert_int_equal(g[0].n_known, g[1].n_known);
            for (uint64_t i = 0; i < g[0].n_known; i++)
                assert_true(same_edge(&g[0].known[i], &g[1].known[i]));
            assert_int_equal(pr[0].outcome, pr[1].outcome);
            assert_int_equal(pr[0].cycle_len[0], pr[1].cycle_len[0]);
            if (pr[0].cycle_len[0])
                for (uint32_t i = 0; i < pr[0].cycle_len[0]; i++)
                    assert_true(same_edge(&pr[0].cycle[0][i], &pr[1].cycle[0][i]));
        }
        psi_hints_free(&hs[1]);
    }
    if (!taken[0])
        assert_int_equal(hs[0].n, 0);
    psi_hints_free(&hs[0]);
    for (int i = 0; i < 2; i++) {
        psi_prune_result_free(&pr[i]);
        psi_polygraph_free(&g[i]);
    }
    psi_index_free(&idx);
    hints_free(&m);
    return taken[0];
}

/* An accept r of text's complete order: without keep_model it may have
 * come from the polygraph-free pass, which keeps no polygraph (a witness
 * is refused); with keep_model the same verdict, the same statistics, and
 * a witness. */
static void witness_after_pass(psi_history *h, bool ser, const char *text,
                               const psi_check_result *r)
{
    psi_witness wt;
    psi_diag d;
    if (!r->g.w_off)
        assert_int_equal(psi_witness_build(h, r, ser, &wt, &d), PSI_ERR_USAGE);
    hints_mem m;
    assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
    psi_check_opts o = {.ser = ser, .version_order = &m.vo, .keep_model = true};
    psi_check_result k;
    assert_int_equal(psi_check(h, &o, &k, &d), PSI_OK);
    assert_int_equal(k.verdict, PSI_ACCEPT);
    assert_int_equal(k.stats.known_edges_before, r->stats.known_edges_before);
    assert_int_equal(k.stats.known_edges_after, r->stats.known_edges_after);
    assert_int_equal(k.stats.constraints_before, r->stats.constraints_before);
    assert_int_equal(k.stats.unknown_deps_before, r->stats.unknown_deps_before);
    assert_int_equal(psi_witness_build(h, &k, ser, &wt, &d), PSI_OK);
    psi_witness_free(&wt);
    psi_check_result_free(&k);
    hints_free(&m);
}

/* A reject r of text's complete order by the polygraph-free pass (no
 * polygraph: its cycle is the pass's) against the old path's (keep_model
 * skips the pass): the same verdict; the pass's cycle closes, is a
 * forbidden one (SI: no two adjacent RW edges), and each of its edges is
 * a known edge of the old path's graph with the same origin (when that
 * graph is complete: known-only); its WW
 * edges name the same order line; and the counterexamples built from the
 * two are both cycles, minimal alike. *same_kind counts those that name
 * the old path's anomaly. */
static void fast_reject_same_as_old(psi_history *h, bool ser, const char *text,
                                    const psi_check_result *r, unsigned *same_kind)
{
    hints_mem m;
    psi_diag d;
    assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
    psi_check_opts o = {.ser = ser, .version_order = &m.vo, .keep_model = true};
    psi_check_result k;
    assert_int_equal(psi_check(h, &o, &k, &d), PSI_OK);
    assert_int_equal(k.verdict, PSI_REJECT);
    assert_non_null(k.g.known);
    uint32_t n = r->prune.cycle_len[0];
    const psi_edge *c = r->prune.cycle[0];
    assert_true(n > 0);
    for (uint32_t i = 0; i < n; i++) {
        const psi_edge *e = &c[i], *next = &c[(i + 1) % n];
        assert_int_equal(e->to, next->from);
        if (!ser)
            assert_false(e->type == PSI_EDGE_RW && next->type == PSI_EDGE_RW);
        /* The old path's rounds (an order against session order: not
         * known-only) stop at their first cycle, before every forced edge
         * is known. */
        bool known = k.stats.prune_rounds > 0;
        for (uint64_t j = 0; j < k.g.n_known && !known; j++)
            known = same_edge(&k.g.known[j], e);
        if (!known)
            fail_msg("%s: edge %u -> %u (type %d, key %u, origin %d) of the pass's cycle is not "
                     "in the old path's known graph; order:\n%s",
                     ser ? "ser" : "si", e->from, e->to, e->type, e->key, e->origin, text);
        if (e->origin == PSI_FROM_VERSION_ORDER) {
            uint64_t line = psi_hints_line(&r->hints, e->from, e->to, e->key);
            assert_true(line > 0);
            assert_int_equal(line, psi_hints_line(&k.hints, e->from, e->to, e->key));
        }
    }
    psi_cex cx[2];
    psi_cex_opts xo = {.ser = ser, .version_order = &m.vo};
    assert_int_equal(psi_cex_build(h, r, &xo, &cx[0], &d), PSI_OK);
    assert_int_equal(psi_cex_build(h, &k, &xo, &cx[1], &d), PSI_OK);
    assert_true(cx[0].present && cx[1].present);
    /* Both are cycles the history has; which one each path reports
     * first may differ (the pass's shortest cycle through the node its
     * search hit, the old path's through the node its topological sort
     * left first), and so may the anomaly the minimal sub-history shows:
     * counted, not required. */
    assert_true(cx[0].n_cycles > 0 && cx[0].anomaly_op == UINT32_MAX);
    *same_kind += cx[0].kind == cx[1].kind;
    assert_int_equal(cx[0].minimal, cx[1].minimal);
    assert_int_equal(cx[0].by_hints, cx[1].by_hints);
    assert_int_equal(r->hints.n_all, k.hints.n);
    for (int i = 0; i < 2; i++)
        psi_cex_free(&cx[i]);
    psi_check_result_free(&k);
    hints_free(&m);
}

/* A complete version order takes the known-only path (check/known_only.h):
 * no rounds, no solver; psi_known_complete decides it from the order and
 * builds the general path's known graph (complete_same_as_general). Differential against the oracle
 * on small generated histories whose every key gets a random total order of its committed writers
 * that keeps session order (true or not), so the order's forced RW edges and the one cycle check
 * decide alone; also with some keys' orders reversed, which may go against session order: the full
 * pipeline checks those (a cycle). Accepts yield a witness. */
static void test_complete_order_known_only(void **state)
{
    (void)state;
    uint64_t rng = 7;
    unsigned compared = 0, rejects = 0, fast = 0, complete = 0, fast_rejects = 0, same_kind = 0;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        psi_history *h = small_history(seed);
        oracle_ww_hint ww[256];
        size_t nw = 0;
        char text[8192];
        int len = snprintf(text, sizeof text, "polysi-witness 3\n");
        bool reverse = seed % 10 == 0;
        for (uint32_t k = 0; k < h->n_keys; k++) {
            /* The writers of each session in session order, merged in a
             * random interleaving. */
            uint32_t w[64], n = key_writers(h, k, w), order[64], n_order = 0;
            bool taken[64] = {0};
            while (n_order < n) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                uint32_t pick = (uint32_t)((rng >> 33) % n);
                if (taken[pick])
                    continue;
                /* the first untaken writer of pick's session */
                uint32_t sess = h->txns[w[pick]].session, f = 0;
                while (taken[f] || h->txns[w[f]].session != sess)
                    f++;
                taken[f] = true;
                order[n_order++] = w[f];
            }
            for (uint32_t i = 0; reverse && i < n / 2; i++) {
                uint32_t x = order[i];
                order[i] = order[n - 1 - i];
                order[n - 1 - i] = x;
            }
            if (n == 0)
                continue;
            len += snprintf(text + len, sizeof text - (size_t)len, "chain %llu",
                            (unsigned long long)h->keys[k]);
            for (uint32_t i = 0; i < n; i++) {
                len = put_txn(h, order[i], text, sizeof text, len);
                if (i + 1 < n) {
                    assert_true(nw < 256);
                    ww[nw++] = (oracle_ww_hint){order[i], order[i + 1], k};
                }
            }
            len += snprintf(text + len, sizeof text - (size_t)len, "\n");
            assert_true((size_t)len < sizeof text);
        }
        oracle_hints oh = {.ww = ww, .n_ww = nw};
        for (int ser = 0; ser < 2; ser++) {
            psi_check_result r;
            if (!hinted_vs_oracle(h, ser, text, &oh, seed, &r))
                continue;
            if (r.reason != PSI_BY_ANOMALY)
                complete += complete_same_as_general(h, ser, text);
            if (r.verdict == PSI_REJECT && r.reason == PSI_BY_KNOWN_CYCLE)
                assert_true(r.prune.cycle_len[0] > 0);
            if (r.verdict == PSI_REJECT && r.reason == PSI_BY_KNOWN_CYCLE && !r.g.known) {
                fast_rejects++;
                fast_reject_same_as_old(h, ser, text, &r, &same_kind);
            }
            /* Known-only: no rounds, no constraint, nothing for the solver. */
            if (r.stats.prune_rounds == 0 && r.reason != PSI_BY_ANOMALY) {
                fast++;
                assert_int_equal(r.stats.constraints_generated, 0);
                assert_int_equal(r.stats.theory_edges, 0);
                assert_int_equal(r.stats.decisions, 0);
            }
            if (r.verdict == PSI_ACCEPT)
                witness_after_pass(h, ser, text, &r);
            compared++;
            rejects += r.verdict == PSI_REJECT;
            psi_check_result_free(&r);
        }
        psi_history_free(h);
    }
    assert_true(compared > 300);
    assert_true(fast > compared / 2);
    assert_true(complete > compared / 2);
    assert_true(fast_rejects > 0);
    print_message("complete orders vs oracle: %u verdicts, %u rejects (%u by the polygraph-free "
                  "pass, %u of them with the old path's anomaly), %u known-only, %u by the "
                  "complete-order pass (same known graph as the general path)\n",
                  compared, rejects, fast_rejects, same_kind, fast, complete);
}

/* A complete order of h (each key's committed writers in transaction
 * order), as a list per key, mutated by one of the edits that make an
 * order incomplete or keep it complete (kind below), as text. */
static int mutated_order(const psi_history *h, unsigned kind, uint64_t *rng, char *text, size_t cap)
{
    int len = snprintf(text, cap, "polysi-witness 3\n");
    uint32_t target = h->n_keys ? (uint32_t)((*rng >> 33) % h->n_keys) : 0;
    for (uint32_t k = 0; k < h->n_keys; k++) {
        uint32_t w[66], n = key_writers(h, k, w);
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t i = n ? (uint32_t)((*rng >> 20) % n) : 0, j = n ? (uint32_t)((*rng >> 40) % n) : 0;
        bool here = k == target && n > 0;
        if (here && kind == 5)
            continue; /* a key without its line */
        if (here && kind == 0) {
            memmove(w + i + 1, w + i, (n - i) * sizeof *w); /* a writer named twice */
            n++;
        }
        if (here && kind == 1) {
            memmove(w + i, w + i + 1, (n - i - 1) * sizeof *w); /* one left out */
            n--;
        }
        if (here && kind == 2) /* any committed transaction, a writer of k or not */
            w[i] = 1 + (uint32_t)((*rng >> 7) % (h->n_txns - 1));
        if (here && kind == 6) {
            uint32_t x = w[i]; /* still complete, in another order */
            w[i] = w[j];
            w[j] = x;
        }
        for (int line = 0; line < (here && kind == 3 ? 2 : 1); line++) {
            len += snprintf(text + len, cap - (size_t)len, "chain %llu",
                            (unsigned long long)h->keys[k]);
            for (uint32_t x = 0; x < n; x++) {
                if (here && kind == 4 && x == i) /* a transaction the history has not */
                    len += snprintf(text + len, cap - (size_t)len, " (%llu,%llu)",
                                    (unsigned long long)h->sessions[0].id + 1000,
                                    (unsigned long long)7);
                else
                    len = put_txn(h, w[x], text, cap, len);
            }
            len += snprintf(text + len, cap - (size_t)len, "\n");
        }
        assert_true((size_t)len < cap);
    }
    return len;
}

/* The polygraph-free pass takes an order exactly when psi_known_complete
 * does, also for orders that are not complete: a writer named twice or
 * left out, a transaction that writes no such key or is not in the
 * history, a key with two lines or none; complete_same_as_general
 * compares the two. Some histories have transactions of over 64
 * operations, which psi_hints_next looks up by key instead of scanning. */
static void test_mutated_orders_alike(void **state)
{
    (void)state;
    uint64_t rng = 11;
    unsigned taken = 0, declined = 0;
    char *text = malloc(1 << 16);
    assert_non_null(text);
    for (uint64_t seed = 1; seed <= 240; seed++) {
        psi_history *h;
        if (seed % 8 == 0) {
            psi_gen_opts go;
            psi_gen_opts_default(&go);
            go.seed = seed;
            go.sessions = 2;
            go.txns_per_session = 2;
            go.ops_per_txn = 80;
            go.keys = 40;
            go.dist = PSI_DIST_UNIFORM;
            go.store = PSI_STORE_SER;
            psi_diag d;
            assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
        } else {
            h = small_history(seed);
        }
        /* the pass's precondition: an index without anomalies */
        psi_check_result r;
        psi_diag d;
        psi_check_opts o = {0};
        assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
        bool anomalous = r.reason == PSI_BY_ANOMALY;
        psi_check_result_free(&r);
        for (unsigned kind = 0; kind < 7 && !anomalous; kind++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            mutated_order(h, kind, &rng, text, 1 << 16);
            for (int ser = 0; ser < 2; ser++) {
                if (complete_same_as_general(h, ser, text))
                    taken++;
                else
                    declined++;
            }
        }
        psi_history_free(h);
    }
    free(text);
    assert_true(taken > 200 && declined > 200);
    print_message("mutated orders: %u taken, %u declined, alike by both paths\n", taken, declined);
}

/* The text of witness w (key and read lines), the caller's to free. */
static char *witness_text(const psi_witness *w)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    psi_diag d;
    assert_int_equal(psi_witness_write(w, NULL, f, "mem", &d), PSI_OK);
    assert_int_equal(fclose(f), 0);
    return buf;
}

/* The verdict of h under the order text, and whether the polygraph-free
 * pass gave it (no polygraph built). */
static psi_verdict verdict_with(psi_history *h, bool ser, const char *text, bool *by_pass)
{
    hints_mem m;
    psi_diag d;
    assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
    psi_check_opts o = {.ser = ser, .version_order = &m.vo};
    psi_check_result r;
    assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
    psi_verdict v = r.verdict;
    *by_pass = r.g.w_off == NULL && r.reason == PSI_BY_NOTHING;
    psi_check_result_free(&r);
    hints_free(&m);
    return v;
}

/* Any complete order of h (each key's writers in transaction order) with
 * read lines naming a random candidate for each choice read of idx: the
 * verdict is the one without the read lines (the old path's), accept or
 * reject. Returns 1 (one verdict compared); counts rejects, and accepts
 * by the pass with choice reads in *passed. */
static unsigned any_choice_alike(psi_history *h, bool ser, const psi_index *idx, uint64_t *rng,
                                 unsigned *rejects, unsigned *passed)
{
    size_t cap = 1 << 16;
    char *text = malloc(cap);
    assert_non_null(text);
    int len = snprintf(text, cap, "polysi-witness 3\n");
    for (uint32_t k = 0; k < h->n_keys; k++) {
        uint32_t w[64], n = key_writers(h, k, w);
        if (!n)
            continue;
        len += snprintf(text + len, cap - (size_t)len, "key %llu", (unsigned long long)h->keys[k]);
        for (uint32_t i = 0; i < n; i++)
            len = put_txn(h, w[i], text, cap, len);
        len += snprintf(text + len, cap - (size_t)len, "\n");
    }
    int plain_len = len;
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *x = &idx->amb[a];
        *rng = *rng * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t c = idx->amb_cand[x->first + (*rng >> 33) % x->n];
        len += snprintf(text + len, cap - (size_t)len, "read");
        len = put_txn(h, x->txn, text, cap, len);
        len +=
            snprintf(text + len, cap - (size_t)len, " %llu", (unsigned long long)h->keys[x->key]);
        if (c == PSI_SRC_INIT)
            len += snprintf(text + len, cap - (size_t)len, " init\n");
        else {
            len = put_txn(h, idx->op_txn[c], text, cap, len);
            len += snprintf(text + len, cap - (size_t)len, "\n");
        }
        assert_true((size_t)len < cap);
    }
    bool pass, pass0;
    psi_verdict v = verdict_with(h, ser, text, &pass);
    text[plain_len] = 0;
    assert_int_equal(v, verdict_with(h, ser, text, &pass0));
    *rejects += v == PSI_REJECT;
    *passed += pass && idx->n_amb;
    free(text);
    return 1;
}

/* Reads with a choice of writers (repeated values): the polygraph-free
 * pass walks them as reads of the writers the order file's read lines
 * name. On small generated histories with values 1..2 or 1..3, the
 * check's own witness (key and read lines) as the order: the verdict with
 * its read lines (the pass) is the verdict without them (the old path,
 * which searches the choices), also with one read line pointed at another
 * candidate or at no writer of the value; and on every history (rejected
 * ones too) an order of writers in transaction order with read lines
 * naming random candidates (any_choice_alike). */
static void test_choice_reads_by_read_lines(void **state)
{
    (void)state;
    unsigned compared = 0, by_pass = 0, choice = 0, rejects = 0, any_pass = 0;
    uint64_t rng = 5;
    for (uint64_t seed = 1; seed <= 150; seed++) {
        psi_gen_opts go;
        psi_gen_opts_default(&go);
        go.seed = seed;
        go.sessions = 2 + seed % 3;
        go.txns_per_session = 2 + seed % 4;
        go.ops_per_txn = 2 + seed % 3;
        go.keys = 2 + seed % 3;
        go.value_range = 2 + seed % 2;
        go.dist = PSI_DIST_UNIFORM;
        go.store = seed % 7 == 0 ? PSI_STORE_RANDOM : seed % 2 ? PSI_STORE_SI : PSI_STORE_SER;
        psi_history *h;
        psi_diag d;
        assert_int_equal(psi_generate(&go, &h, NULL, &d), PSI_OK);
        for (int ser = 0; ser < 2; ser++) {
            psi_check_opts o = {.ser = ser, .keep_model = true};
            psi_check_result r;
            assert_int_equal(psi_check(h, &o, &r, &d), PSI_OK);
            bool amb = r.idx.n_amb > 0;
            if (r.reason != PSI_BY_ANOMALY)
                compared += any_choice_alike(h, ser, &r.idx, &rng, &rejects, &any_pass);
            psi_witness w;
            bool have = r.verdict == PSI_ACCEPT && psi_witness_build(h, &r, ser, &w, &d) == PSI_OK;
            psi_check_result_free(&r);
            if (!have)
                continue;
            char *text = witness_text(&w);
            /* without read lines: the old path (the pass declines choices) */
            psi_witness no_reads = w;
            no_reads.n_reads = 0;
            char *plain = witness_text(&no_reads);
            bool pass, pass0;
            psi_verdict v0 = verdict_with(h, ser, plain, &pass0);
            psi_verdict v = verdict_with(h, ser, text, &pass);
            assert_int_equal(v, v0);
            if (amb)
                assert_false(pass0);
            compared++;
            by_pass += pass;
            choice += pass && amb;
            /* One read line's writer changed to another committed
             * transaction (a candidate or not), or to the initial value. */
            if (w.n_reads) {
                rng = rng * 6364136223846793005ull + 1442695040888963407ull;
                psi_witness_read *x = &w.reads[(rng >> 33) % w.n_reads];
                uint32_t t = 1 + (uint32_t)((rng >> 11) % (h->n_txns - 1));
                if ((rng >> 50) % 4 == 0) {
                    x->init = true;
                } else {
                    x->init = false;
                    x->writer.sid = h->sessions[h->txns[t].session].id;
                    x->writer.tid = h->txns[t].id;
                }
                char *moved = witness_text(&w);
                assert_int_equal(verdict_with(h, ser, moved, &pass), v0);
                free(moved);
            }
            free(text);
            free(plain);
            psi_witness_free(&w);
        }
        psi_history_free(h);
    }
    assert_true(compared > 400);
    assert_true(choice > 30 && rejects > 30 && any_pass > 5);
    print_message("choice reads: %u verdicts compared (%u rejects); witnesses: %u by the pass, %u "
                  "of them with choice reads; any order: %u accepts by the pass with choice "
                  "reads\n",
                  compared, rejects, by_pass, choice, any_pass);
}

/* List-append reads in the polygraph-free pass: their WW facts checked
 * against the order's places. On small list-append histories with
 * complete orders (every key's writers in transaction order, or in the
 * order the lists show, or with two swapped), the pass takes what
 * psi_known_complete takes and decides alike (complete_same_as_general),
 * and the check's verdict is the one without the pass (keep_model). */
static void test_list_reads_in_pass(void **state)
{
    (void)state;
    unsigned compared = 0, rejects = 0, taken = 0;
    uint64_t rng = 3;
    char text[4096];
    for (uint64_t seed = 1; seed <= 400; seed++) {
        psi_history *h = psi_test_list_history(seed);
        psi_check_result r;
        psi_diag d;
        psi_check_opts o0 = {0};
        assert_int_equal(psi_check(h, &o0, &r, &d), PSI_OK);
        bool anomalous = r.reason == PSI_BY_ANOMALY;
        psi_check_result_free(&r);
        if (anomalous) {
            psi_history_free(h);
            continue;
        }
        int len = snprintf(text, sizeof text, "polysi-witness 3\n");
        for (uint32_t k = 0; k < h->n_keys; k++) {
            uint32_t w[64], n = key_writers(h, k, w);
            /* by appended value: the order the lists show when true */
            for (uint32_t i = 0; seed % 3 && i < n; i++)
                for (uint32_t j = i + 1; j < n; j++) {
                    uint64_t vi = 0, vj = 0;
                    for (uint32_t q = 0; q < h->txns[w[i]].n_ops; q++) {
                        const psi_op *op = &h->ops[h->txns[w[i]].first_op + q];
                        vi = op->key == k && op->kind == PSI_OP_WRITE ? op->value : vi;
                    }
                    for (uint32_t q = 0; q < h->txns[w[j]].n_ops; q++) {
                        const psi_op *op = &h->ops[h->txns[w[j]].first_op + q];
                        vj = op->key == k && op->kind == PSI_OP_WRITE ? op->value : vj;
                    }
                    if (vj < vi) {
                        uint32_t x = w[i];
                        w[i] = w[j];
                        w[j] = x;
                    }
                }
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            if (n >= 2 && (rng >> 33) % 4 == 0) {
                uint32_t i = (uint32_t)((rng >> 20) % (n - 1)), x = w[i];
                w[i] = w[i + 1];
                w[i + 1] = x;
            }
            if (!n)
                continue;
            len += snprintf(text + len, sizeof text - (size_t)len, "chain %llu",
                            (unsigned long long)h->keys[k]);
            for (uint32_t i = 0; i < n; i++)
                len = put_txn(h, w[i], text, sizeof text, len);
            len += snprintf(text + len, sizeof text - (size_t)len, "\n");
        }
        for (int ser = 0; ser < 2; ser++) {
            taken += complete_same_as_general(h, ser, text);
            hints_mem m;
            assert_int_equal(hints_parse_for(text, h, &m, &d), PSI_OK);
            psi_check_opts o = {.ser = ser, .version_order = &m.vo};
            psi_check_opts ok = {.ser = ser, .version_order = &m.vo, .keep_model = true};
            psi_check_result a, b;
            assert_int_equal(psi_check(h, &o, &a, &d), PSI_OK);
            assert_int_equal(psi_check(h, &ok, &b, &d), PSI_OK);
            assert_int_equal(a.verdict, b.verdict);
            compared++;
            rejects += a.verdict == PSI_REJECT;
            psi_check_result_free(&a);
            psi_check_result_free(&b);
            hints_free(&m);
        }
        psi_history_free(h);
    }
    assert_true(compared > 300 && rejects > 30 && compared - rejects > 30 && taken > 100);
    print_message("list reads: %u verdicts compared (%u rejects), %u orders taken by the pass\n",
                  compared, rejects, taken);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chain_lines),
        cmocka_unit_test(test_resolved_names),
        cmocka_unit_test(test_weak_levels),
        cmocka_unit_test(test_complete_order_needs_no_solver),
        cmocka_unit_test(test_hint_forces_rw),
        cmocka_unit_test(test_contradiction_names_line),
        cmocka_unit_test(test_bad_hints),
        cmocka_unit_test(test_hint_lookup_and_groups),
        cmocka_unit_test(test_true_hints_keep_verdicts),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_hints_against_oracle),
        cmocka_unit_test(test_complete_order_known_only),
        cmocka_unit_test(test_mutated_orders_alike),
        cmocka_unit_test(test_choice_reads_by_read_lines),
        cmocka_unit_test(test_list_reads_in_pass),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
