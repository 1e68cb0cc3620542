/* encode/reduce.c: the known edges the theory gets. A dropped edge's
 * cycle is still found through its replacement path (and the conflict
 * cycle names real known edges), edges only an ANTI edge would imply are
 * kept in SI, on random graphs with labelled probe edges the reduced
 * encoding answers exactly as the full one under SI and SER, and under
 * PC (its own rules), PSI's DEP-only reduction keeps DEP's transitive
 * closure and every RW edge, the theory's sort keys are the whole known
 * graph's depths, and histories with a choice of writers are reduced
 * too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/index.h"
#include "core/polygraph.h"
#include "encode/encode.h"
#include "encode/reduce.h"
#include "support/spec.h"

#include <stdlib.h>
#include <string.h>

/* A polygraph of known edges only: what psi_encode and psi_reduce_known
 * read. Sessions are chains of SO links after the initial node 0. */
typedef struct kgraph {
    psi_polygraph g;
    psi_edge e[256];
} kgraph;

static void kg_init(kgraph *k, uint32_t nodes)
{
    memset(k, 0, sizeof *k);
    k->g.n_nodes = nodes;
    k->g.known = k->e;
}

static void kg_add(kgraph *k, uint32_t from, uint32_t to, psi_edge_type type, psi_edge_origin o)
{
    assert_true(k->g.n_known < 256);
    k->e[k->g.n_known++] =
        (psi_edge){.from = from, .to = to, .key = 0, .type = (uint8_t)type, .origin = (uint8_t)o};
}

/* A session of nodes first .. last: SO from 0 and links between them. */
static void kg_session(kgraph *k, uint32_t first, uint32_t last)
{
    kg_add(k, 0, first, PSI_EDGE_SO, PSI_FROM_HISTORY);
    for (uint32_t v = first; v < last; v++)
        kg_add(k, v, v + 1, PSI_EDGE_SO, PSI_FROM_HISTORY);
}

static bool kept(const kgraph *k, bool ser, uint32_t index)
{
    uint32_t *ids;
    uint64_t n;
    psi_diag d;
    assert_int_equal(psi_reduce_known(&k->g, ser, &ids, &n, NULL, &d), PSI_OK);
    bool found = !ids; /* NULL: every edge kept */
    for (uint64_t i = 0; ids && i < n; i++)
        found |= ids[i] == index;
    free(ids);
    return found;
}

/* Encodes k (reduced unless `full`), adds labelled probe edges (variables
 * 1..n_probes, at least one of them on) and solves. On UNSAT checks that
 * the conflict cycle is chained and its known ids are k's real edges.
 * Returns the solver's answer; *cycle_known gets the known edges of the
 * cycle in order (up to 16) and their number. */
typedef struct probe {
    uint32_t from, to;
    psi_edge_kind kind;
} probe;

static int solve_probes(const kgraph *k, bool ser, bool full, const probe *p, int n_probes,
                        psi_edge *cycle_known, uint32_t *n_cycle_known)
{
    psi_encoding enc;
    psi_diag d;
    psi_encode_opts eo = {.ser = ser, .no_known_reduction = full};
    assert_int_equal(psi_encode(&k->g, &eo, &enc, &d), PSI_OK);
    assert_int_equal(psi_sat_reserve(enc.sat, n_probes), 0);
    int clause[8];
    for (int i = 0; i < n_probes; i++) {
        assert_true(psi_acyc_add_edge(enc.graph, p[i].from, p[i].to, p[i].kind, i + 1, 0) >= 0);
        clause[i] = i + 1;
    }
    assert_int_equal(psi_sat_add_clause(enc.sat, clause, (size_t)n_probes), 0);
    int r = psi_sat_solve(enc.sat);
    assert_true(r == PSI_SAT_SAT || r == PSI_SAT_UNSAT);
    uint32_t nk = 0;
    size_t n = 0;
    const uint32_t *ids = psi_acyc_conflict_cycle(enc.graph, &n);
    uint32_t prev_to = UINT32_MAX, first_from = UINT32_MAX;
    for (size_t i = 0; r == PSI_SAT_UNSAT && i < n; i++) {
        uint32_t from, to;
        if (ids[i] < enc.n_known_edges) {
            psi_edge e = psi_encoding_edge(&enc, &k->g, ids[i]);
            uint64_t at = enc.known_id ? enc.known_id[ids[i]] : ids[i];
            assert_memory_equal(&e, &k->g.known[at], sizeof e);
            from = e.from, to = e.to;
            if (cycle_known && nk < 16)
                cycle_known[nk] = e;
            nk++;
        } else {
            uint64_t j = ids[i] - enc.n_known_edges;
            assert_true(j < (uint64_t)n_probes);
            from = p[j].from, to = p[j].to;
        }
        if (i == 0)
            first_from = from;
        else
            assert_int_equal(from, prev_to);
        prev_to = to;
    }
    if (r == PSI_SAT_UNSAT && n)
        assert_int_equal(prev_to, first_from);
    if (n_cycle_known)
        *n_cycle_known = nk;
    psi_encoding_free(&enc);
    return r;
}

/* Sessions 1-2 and 3-4-5; the probe 5 -> 1 closes every cycle below. */
static void two_sessions(kgraph *k)
{
    kg_init(k, 6);
    kg_session(k, 1, 2);
    kg_session(k, 3, 5);
}

/* WR 1->5 is implied by WR 1->3 and the links 3->4->5 and dropped; the
 * cycle it closed with the probe goes round the replacement path. */
static void test_dropped_dep_cycle(void **state)
{
    (void)state;
    kgraph k;
    two_sessions(&k);
    uint32_t first = (uint32_t)k.g.n_known;
    kg_add(&k, 1, 3, PSI_EDGE_WR, PSI_FROM_HISTORY);
    kg_add(&k, 1, 5, PSI_EDGE_WR, PSI_FROM_HISTORY);
    assert_true(kept(&k, false, first));
    assert_false(kept(&k, false, first + 1));
    assert_false(kept(&k, true, first + 1));
    probe p = {5, 1, PSI_EDGE_DEP};
    psi_edge cyc[16];
    uint32_t nc;
    assert_int_equal(solve_probes(&k, false, false, &p, 1, cyc, &nc), PSI_SAT_UNSAT);
    /* 1 -WR-> 3 -SO-> 4 -SO-> 5, then the probe */
    assert_int_equal(nc, 3);
    assert_int_equal(cyc[0].from, 1);
    assert_int_equal(cyc[0].to, 3);
    assert_int_equal(cyc[0].type, PSI_EDGE_WR);
    assert_int_equal(cyc[1].type, PSI_EDGE_SO);
    assert_int_equal(cyc[2].to, 5);
    assert_int_equal(solve_probes(&k, true, false, &p, 1, NULL, NULL), PSI_SAT_UNSAT);
}

/* SI: RW 1->5 is implied by RW 1->3 (3 arrived by RW leaves by SO, and
 * reaches 5 as by DEP) and dropped; the one-RW cycle with the probe is
 * still forbidden. */
static void test_dropped_anti_cycle(void **state)
{
    (void)state;
    kgraph k;
    two_sessions(&k);
    uint32_t first = (uint32_t)k.g.n_known;
    kg_add(&k, 1, 3, PSI_EDGE_RW, PSI_FROM_SEEDING);
    kg_add(&k, 1, 5, PSI_EDGE_RW, PSI_FROM_SEEDING);
    assert_true(kept(&k, false, first));
    assert_false(kept(&k, false, first + 1));
    probe p = {5, 1, PSI_EDGE_DEP};
    psi_edge cyc[16];
    uint32_t nc;
    assert_int_equal(solve_probes(&k, false, false, &p, 1, cyc, &nc), PSI_SAT_UNSAT);
    assert_int_equal(nc, 3);
    assert_int_equal(cyc[0].type, PSI_EDGE_RW);
    assert_int_equal(cyc[0].to, 3);
}

/* SI: a DEP edge that only an ANTI edge would imply stays (from u arrived
 * by RW, RW 1->3 is not available), and its cycle with an RW probe, which
 * the path RW 1->3 ->SO 4 ->SO 5 ->RW 1 (two consecutive RW) would not
 * close, is found. In SER the same edge is implied. */
static void test_dep_not_implied_by_anti(void **state)
{
    (void)state;
    kgraph k;
    two_sessions(&k);
    uint32_t first = (uint32_t)k.g.n_known;
    kg_add(&k, 1, 3, PSI_EDGE_RW, PSI_FROM_SEEDING);
    kg_add(&k, 1, 5, PSI_EDGE_WR, PSI_FROM_HISTORY);
    assert_true(kept(&k, false, first + 1));
    assert_false(kept(&k, true, first + 1));
    probe p = {5, 1, PSI_EDGE_ANTI};
    assert_int_equal(solve_probes(&k, false, false, &p, 1, NULL, NULL), PSI_SAT_UNSAT);
    assert_int_equal(solve_probes(&k, true, false, &p, 1, NULL, NULL), PSI_SAT_UNSAT);
}

/* Rule 2: WR 1->5 is implied through 1's session successor 2 and its
 * WR 2->4; the cycle goes 1 -> 2 -> 4 -> 5 -> 1. An RW edge of the later
 * node implies DEP edges only strictly after its target: WR 1->4 stays
 * beside RW 2->4. */
static void test_later_node(void **state)
{
    (void)state;
    kgraph k;
    two_sessions(&k);
    uint32_t first = (uint32_t)k.g.n_known;
    kg_add(&k, 2, 4, PSI_EDGE_WR, PSI_FROM_HISTORY);
    kg_add(&k, 1, 5, PSI_EDGE_WR, PSI_FROM_HISTORY);
    assert_false(kept(&k, false, first + 1));
    probe p = {5, 1, PSI_EDGE_DEP};
    psi_edge cyc[16];
    uint32_t nc;
    assert_int_equal(solve_probes(&k, false, false, &p, 1, cyc, &nc), PSI_SAT_UNSAT);
    assert_int_equal(nc, 3); /* SO 1->2, WR 2->4, SO 4->5, then the probe */
    assert_int_equal(cyc[0].to, 2);

    two_sessions(&k);
    kg_add(&k, 2, 4, PSI_EDGE_RW, PSI_FROM_SEEDING);
    kg_add(&k, 1, 4, PSI_EDGE_WR, PSI_FROM_HISTORY);
    kg_add(&k, 1, 5, PSI_EDGE_WR, PSI_FROM_HISTORY);
    assert_true(kept(&k, false, first + 1));
    assert_false(kept(&k, false, first + 2));
    probe q = {4, 1, PSI_EDGE_ANTI}; /* 1 -WR-> 4 -RW-> 1: one RW, forbidden */
    assert_int_equal(solve_probes(&k, false, false, &q, 1, NULL, NULL), PSI_SAT_UNSAT);
}

/* Random graphs: sessions as chains, known edges mostly forward in a
 * random time consistent with them, two or three probe edges (at least
 * one on). The reduced encoding must answer as the full one. */
static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* The sort keys of psi_reduce_known against longest paths found by
 * relaxing every known edge of the theory's internal graph (SI: DEP u->w
 * from u0 and u1 to w0, ANTI from u0 to w1) until nothing changes; graphs
 * whose internal graph is cyclic (the relaxation does not settle) have no
 * depths and are skipped (returns false). */
static bool check_depth_keys(const kgraph *k, bool ser, const uint32_t *key)
{
    uint32_t M = ser ? k->g.n_nodes : 2 * k->g.n_nodes, depth[80] = {0};
    assert_true(M <= 80);
    for (uint32_t round = 0; round <= M; round++) {
        bool changed = false;
        for (uint64_t i = 0; i < k->g.n_known; i++) {
            const psi_edge *e = &k->g.known[i];
            bool anti = !ser && psi_edge_is_anti((psi_edge_type)e->type);
            for (uint32_t c = 0; c < (ser || anti ? 1u : 2u); c++) {
                uint32_t x = ser ? e->from : 2 * e->from + c, y = ser ? e->to : 2 * e->to + anti;
                if (depth[y] < depth[x] + 1)
                    depth[y] = depth[x] + 1, changed = true;
            }
        }
        if (!changed) {
            for (uint32_t v = 0; v < k->g.n_nodes; v++)
                assert_int_equal(key[v], depth[ser ? v : 2 * v]);
            return true;
        }
    }
    return false;
}

/* Reads with a choice of writers get the reduction too (the theory's
 * order comes from every known edge): T1's WR edge to T3 is implied by
 * its WR edge to T2 through session 2, T2's read of key 2 has two
 * candidates (T1, T4), and the reduced encoding answers as the full one.
 * The second history adds a lost update on key 3 in T2 and T3 through
 * T1's write, rejected by SI and SER. */
static void test_choices_reduced(void **state)
{
    (void)state;
    const char *specs[] = {
        "1:1:c w0=1 w1=1 w2=5; 2:2:c r0=1 r2=5; 2:3:c r1=1; 3:4:c w2=5",
        "1:1:c w0=1 w1=1 w2=5 w3=1; 2:2:c r0=1 r2=5; 2:3:c r1=1; 3:4:c w2=5; "
        "3:5:c r3=1 w3=2; 4:6:c r3=1 w3=3",
    };
    for (int h = 0; h < 2; h++)
        for (int ser = 0; ser < 2; ser++) {
            psi_history *hist = spec_history(specs[h]);
            assert_non_null(hist);
            psi_index idx;
            psi_polygraph g;
            psi_diag d;
            assert_int_equal(psi_index_build(hist, &idx, &d), PSI_OK);
            psi_polygraph_opts po = {.all_pairs = true};
            assert_int_equal(psi_polygraph_build(hist, &idx, &po, &g, &d), PSI_OK);
            assert_true(g.n_amb >= 1);
            int res[2];
            for (int full = 0; full < 2; full++) {
                psi_encoding enc;
                psi_encode_opts eo = {.ser = ser, .no_known_reduction = full};
                assert_int_equal(psi_encode(&g, &eo, &enc, &d), PSI_OK);
                assert_true(full ? !enc.known_id : enc.n_known_edges < g.n_known);
                res[full] = psi_sat_solve(enc.sat);
                psi_encoding_free(&enc);
            }
            assert_int_equal(res[0], res[1]);
            assert_int_equal(res[0], h ? PSI_SAT_UNSAT : PSI_SAT_SAT);
            psi_polygraph_free(&g);
            psi_index_free(&idx);
            psi_history_free(hist);
        }
}

static void test_random_same_answer(void **state)
{
    (void)state;
    uint64_t rs = 0x9e3779b97f4a7c15u;
    int answers[2][2] = {{0}};
    uint64_t dropped = 0, keyed = 0;
    for (int it = 0; it < 3000; it++) {
        kgraph k;
        uint32_t n_sess = 2 + (uint32_t)(rng_next(&rs) % 3), v = 1, time[40];
        uint32_t len[4];
        for (uint32_t s = 0; s < n_sess; s++)
            len[s] = 1 + (uint32_t)(rng_next(&rs) % 5);
        uint32_t nodes = 1;
        for (uint32_t s = 0; s < n_sess; s++)
            nodes += len[s];
        kg_init(&k, nodes);
        time[0] = 0;
        for (uint32_t s = 0; s < n_sess; s++) {
            kg_session(&k, v, v + len[s] - 1);
            uint32_t t = 1 + (uint32_t)(rng_next(&rs) % 4);
            for (uint32_t j = 0; j < len[s]; j++, v++)
                time[v] = t += 1 + (uint32_t)(rng_next(&rs) % 4);
        }
        uint32_t m = 4 + (uint32_t)(rng_next(&rs) % 30);
        for (uint32_t j = 0; j < m; j++) {
            uint32_t a = (uint32_t)(rng_next(&rs) % nodes), b = (uint32_t)(rng_next(&rs) % nodes);
            if (a == b)
                continue;
            if (time[a] > time[b] && rng_next(&rs) % 8)
                a ^= b, b ^= a, a ^= b;
            static const psi_edge_type ty[] = {PSI_EDGE_WR, PSI_EDGE_WW, PSI_EDGE_RW, PSI_EDGE_RW,
                                               PSI_EDGE_SO};
            psi_edge_type t = ty[rng_next(&rs) % 5];
            kg_add(&k, a, b, t, t == PSI_EDGE_SO ? PSI_FROM_REALTIME : PSI_FROM_SEEDING);
        }
        probe p[3];
        int np = 2 + (int)(rng_next(&rs) % 2);
        for (int j = 0; j < np; j++) {
            p[j].from = 1 + (uint32_t)(rng_next(&rs) % (nodes - 1));
            p[j].to = 1 + (uint32_t)(rng_next(&rs) % (nodes - 1));
            if (p[j].from == p[j].to)
                p[j].to = 0 == p[j].from ? 1 : 0;
            p[j].kind = rng_next(&rs) % 2 ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
        }
        for (int ser = 0; ser < 2; ser++) {
            uint32_t *ids, *key;
            uint64_t nk;
            psi_diag d;
            assert_int_equal(psi_reduce_known(&k.g, ser, &ids, &nk, &key, &d), PSI_OK);
            dropped += k.g.n_known - nk;
            assert_true(!key == !ids); /* keys exactly when edges are dropped */
            if (key)
                keyed += check_depth_keys(&k, ser, key);
            free(ids);
            free(key);
            int full = solve_probes(&k, ser, true, p, np, NULL, NULL);
            int red = solve_probes(&k, ser, false, p, np, NULL, NULL);
            if (full != red)
                fail_msg("iteration %d (%s): full %d, reduced %d", it, ser ? "ser" : "si", full,
                         red);
            answers[ser][full == PSI_SAT_SAT]++;
        }
    }
    /* the cases exercise both answers and actually drop edges */
    for (int ser = 0; ser < 2; ser++)
        for (int a = 0; a < 2; a++)
            assert_true(answers[ser][a] > 300);
    assert_true(dropped > 3000);
    print_message("sort keys checked on %llu graphs\n", (unsigned long long)keyed);
    assert_true(keyed > 1000);
}

/* Encodes k for PC (reduced unless `full`), adds probe edges as
 * psi_encode maps them (WW to the target's twin) and solves. */
typedef struct pc_probe {
    uint32_t from, to;
    psi_edge_type type;
} pc_probe;

static int solve_pc(const kgraph *k, bool full, const pc_probe *p, int n_probes)
{
    psi_encoding enc;
    psi_diag d;
    psi_encode_opts eo = {.pc = true, .no_known_reduction = full};
    assert_int_equal(psi_encode(&k->g, &eo, &enc, &d), PSI_OK);
    assert_int_equal(psi_sat_reserve(enc.sat, (int)enc.n_vars + n_probes), 0);
    int clause[8];
    for (int i = 0; i < n_probes; i++) {
        int var = (int)enc.n_vars + i + 1;
        uint32_t to = p[i].type == PSI_EDGE_WW ? k->g.n_nodes + p[i].to : p[i].to;
        psi_edge_kind kind = psi_edge_is_anti(p[i].type) ? PSI_EDGE_ANTI : PSI_EDGE_DEP;
        assert_true(psi_acyc_add_edge(enc.graph, p[i].from, to, kind, var, 0) >= 0);
        /* the encoding gives a twin its way out only when a WW edge of
         * its own enters it (encode.h): a probe's comes with the probe */
        if (p[i].type == PSI_EDGE_WW)
            assert_true(psi_acyc_add_edge(enc.graph, to, p[i].to, PSI_EDGE_ANTI, var, 0) >= 0);
        clause[i] = var;
    }
    assert_int_equal(psi_sat_add_clause(enc.sat, clause, (size_t)n_probes), 0);
    int r = psi_sat_solve(enc.sat);
    assert_true(r == PSI_SAT_SAT || r == PSI_SAT_UNSAT);
    psi_encoding_free(&enc);
    return r;
}

static bool kept_pc(const kgraph *k, uint32_t index)
{
    uint32_t *ids;
    uint64_t n;
    psi_diag d;
    assert_int_equal(psi_reduce_known_pc(&k->g, &ids, &n, &d), PSI_OK);
    bool found = !ids;
    for (uint64_t i = 0; ids && i < n; i++)
        found |= ids[i] == index;
    free(ids);
    return found;
}

/* PC: WR 1->3 beside WW 1->3 stays (the WW edge arrives "by WW" and may
 * not take an RW edge next: W;A is allowed, S;A is not), the WW edge goes
 * (the WR edge reaches 3 in the stronger state). An S edge strictly after
 * a WW edge goes: the WW target leaves by its link as by S. */
static void test_pc_rules(void **state)
{
    (void)state;
    kgraph k;
    two_sessions(&k);
    uint32_t first = (uint32_t)k.g.n_known;
    kg_add(&k, 1, 3, PSI_EDGE_WW, PSI_FROM_SEEDING);
    pc_probe a = {3, 1, PSI_EDGE_RW};
    assert_int_equal(solve_pc(&k, false, &a, 1), PSI_SAT_SAT); /* WW;RW: allowed */
    kg_add(&k, 1, 3, PSI_EDGE_WR, PSI_FROM_HISTORY);
    assert_false(kept_pc(&k, first));
    assert_true(kept_pc(&k, first + 1));
    assert_int_equal(solve_pc(&k, false, &a, 1), PSI_SAT_UNSAT); /* WR;RW: forbidden */
    assert_int_equal(solve_pc(&k, true, &a, 1), PSI_SAT_UNSAT);

    two_sessions(&k);
    kg_add(&k, 1, 3, PSI_EDGE_WW, PSI_FROM_SEEDING);
    kg_add(&k, 1, 4, PSI_EDGE_WR, PSI_FROM_HISTORY);
    assert_true(kept_pc(&k, first));
    assert_false(kept_pc(&k, first + 1)); /* 1 -WW-> 3 -SO-> 4 */
    pc_probe b = {4, 1, PSI_EDGE_RW};     /* ... -SO-> 4 -RW-> 1: forbidden */
    assert_int_equal(solve_pc(&k, false, &b, 1), PSI_SAT_UNSAT);
    /* a later node's RW edge implies a WW edge to its target, not an S */
    two_sessions(&k);
    kg_add(&k, 2, 4, PSI_EDGE_RW, PSI_FROM_SEEDING);
    kg_add(&k, 1, 4, PSI_EDGE_WR, PSI_FROM_HISTORY);
    kg_add(&k, 1, 4, PSI_EDGE_WW, PSI_FROM_SEEDING);
    assert_true(kept_pc(&k, first + 1));
    assert_false(kept_pc(&k, first + 2));
    assert_int_equal(solve_pc(&k, false, &b, 1), PSI_SAT_UNSAT);
}

/* A random session graph as test_random_same_answer draws it. */
static uint32_t random_graph(kgraph *k, uint64_t *rs)
{
    uint32_t n_sess = 2 + (uint32_t)(rng_next(rs) % 3), v = 1, time[40], len[4], nodes = 1;
    for (uint32_t s = 0; s < n_sess; s++)
        nodes += len[s] = 1 + (uint32_t)(rng_next(rs) % 5);
    kg_init(k, nodes);
    time[0] = 0;
    for (uint32_t s = 0; s < n_sess; s++) {
        kg_session(k, v, v + len[s] - 1);
        uint32_t t = 1 + (uint32_t)(rng_next(rs) % 4);
        for (uint32_t j = 0; j < len[s]; j++, v++)
            time[v] = t += 1 + (uint32_t)(rng_next(rs) % 4);
    }
    uint32_t m = 4 + (uint32_t)(rng_next(rs) % 30);
    static const psi_edge_type ty[] = {PSI_EDGE_WR, PSI_EDGE_WW, PSI_EDGE_RW, PSI_EDGE_RW,
                                       PSI_EDGE_SO};
    for (uint32_t j = 0; j < m; j++) {
        uint32_t a = (uint32_t)(rng_next(rs) % nodes), b = (uint32_t)(rng_next(rs) % nodes);
        if (a == b)
            continue;
        if (time[a] > time[b] && rng_next(rs) % 8)
            a ^= b, b ^= a, a ^= b;
        psi_edge_type t = ty[rng_next(rs) % 5];
        kg_add(k, a, b, t, t == PSI_EDGE_SO ? PSI_FROM_REALTIME : PSI_FROM_SEEDING);
    }
    return nodes;
}

/* PC: random graphs and two or three probe edges of random types; the
 * reduced encoding answers as the full one. */
static void test_pc_random_same_answer(void **state)
{
    (void)state;
    uint64_t rs = 0x2545f4914f6cdd1du, dropped = 0;
    int answers[2] = {0};
    for (int it = 0; it < 3000; it++) {
        kgraph k;
        uint32_t nodes = random_graph(&k, &rs);
        pc_probe p[3];
        int np = 2 + (int)(rng_next(&rs) % 2);
        for (int j = 0; j < np; j++) {
            p[j].from = 1 + (uint32_t)(rng_next(&rs) % (nodes - 1));
            p[j].to = 1 + (uint32_t)(rng_next(&rs) % (nodes - 1));
            if (p[j].from == p[j].to)
                p[j].to = 0;
            p[j].type = (psi_edge_type)(rng_next(&rs) % 4);
        }
        uint32_t *ids;
        uint64_t nk;
        psi_diag d;
        assert_int_equal(psi_reduce_known_pc(&k.g, &ids, &nk, &d), PSI_OK);
        dropped += k.g.n_known - nk;
        free(ids);
        int full = solve_pc(&k, true, p, np), red = solve_pc(&k, false, p, np);
        if (full != red)
            fail_msg("iteration %d: full %d, reduced %d", it, full, red);
        answers[full == PSI_SAT_SAT]++;
    }
    assert_true(answers[0] > 300 && answers[1] > 300);
    assert_true(dropped > 3000);
}

/* Which nodes DEP paths over the edges (all, or those in ids) reach from
 * each node: bit v of reach[u]. Up to 40 nodes. */
static void dep_closure(const kgraph *k, const uint32_t *ids, uint64_t n, uint64_t *reach)
{
    uint32_t N = k->g.n_nodes;
    memset(reach, 0, N * sizeof *reach);
    for (uint64_t i = 0; i < n; i++) {
        const psi_edge *e = &k->g.known[ids ? ids[i] : i];
        if (!psi_edge_is_anti((psi_edge_type)e->type))
            reach[e->from] |= (uint64_t)1 << e->to;
    }
    for (uint32_t w = 0; w < N; w++) /* Floyd-Warshall over bit rows */
        for (uint32_t u = 0; u < N; u++)
            if (reach[u] >> w & 1)
                reach[u] |= reach[w];
}

/* PSI: the DEP-only reduction keeps DEP's transitive closure (the theory's
 * cycles and the refinement's reachability) and every RW edge. */
static void test_psi_dep_closure(void **state)
{
    (void)state;
    uint64_t rs = 0x853c49e6748fea9bu, dropped = 0;
    for (int it = 0; it < 3000; it++) {
        kgraph k;
        random_graph(&k, &rs);
        uint32_t *ids;
        uint64_t nk;
        psi_diag d;
        assert_int_equal(psi_reduce_known_dep(&k.g, &ids, &nk, &d), PSI_OK);
        uint64_t full[40], red[40];
        dep_closure(&k, NULL, k.g.n_known, full);
        dep_closure(&k, ids, nk, red);
        assert_memory_equal(full, red, k.g.n_nodes * sizeof *full);
        uint64_t rw = 0, rw_kept = 0;
        for (uint64_t i = 0; i < k.g.n_known; i++)
            rw += psi_edge_is_anti((psi_edge_type)k.g.known[i].type);
        for (uint64_t i = 0; i < nk; i++) {
            assert_true(!i || !ids || ids[i] > ids[i - 1]);
            rw_kept += psi_edge_is_anti((psi_edge_type)k.g.known[ids ? ids[i] : i].type);
        }
        assert_int_equal(rw, rw_kept);
        dropped += k.g.n_known - nk;
        free(ids);
    }
    assert_true(dropped > 3000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dropped_dep_cycle),       cmocka_unit_test(test_dropped_anti_cycle),
        cmocka_unit_test(test_dep_not_implied_by_anti), cmocka_unit_test(test_later_node),
        cmocka_unit_test(test_random_same_answer),      cmocka_unit_test(test_pc_rules),
        cmocka_unit_test(test_pc_random_same_answer),   cmocka_unit_test(test_psi_dep_closure),
        cmocka_unit_test(test_choices_reduced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
