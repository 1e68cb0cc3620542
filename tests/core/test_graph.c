/* The graph kernel (core/graph.h) against a brute force on the
 * materialized graph: on random small edge lists, plain (SER) and doubled
 * (SI), every answer (is there an order, a node on a cycle, a cycle by
 * walking back, shortest paths and closing cycles) is checked against
 * all-pairs distances computed by Floyd–Warshall on explicit node
 * adjacency, plus the successor orders reports depend on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "core/graph.h"

#include <stdlib.h>
#include <string.h>

#define MAXV 7
#define MAXN (2 * MAXV)
#define MAXE 24
#define INF  1000

/* Explicit node graph: dist[a][b] = fewest edges from a to b (>= 1). */
typedef struct brute {
    uint32_t n;
    int dist[MAXN][MAXN];
} brute;

/* Node-level edges of input edge e (1 or 2 of them). */
static int node_edges(const psi_edge *e, bool si, uint32_t fx[2], uint32_t tx[2])
{
    if (!si) {
        fx[0] = e->from, tx[0] = e->to;
        return 1;
    }
    if (e->type == PSI_EDGE_RW) {
        fx[0] = 2 * e->from, tx[0] = 2 * e->to + 1;
        return 1;
    }
    fx[0] = 2 * e->from, tx[0] = 2 * e->to;
    fx[1] = 2 * e->from + 1, tx[1] = 2 * e->to;
    return 2;
}

static void brute_build(brute *b, uint32_t nv, const psi_edge *es, uint32_t m, bool si)
{
    b->n = si ? 2 * nv : nv;
    for (uint32_t i = 0; i < b->n; i++)
        for (uint32_t j = 0; j < b->n; j++)
            b->dist[i][j] = INF;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t fx[2], tx[2];
        int k = node_edges(&es[i], si, fx, tx);
        for (int j = 0; j < k; j++)
            b->dist[fx[j]][tx[j]] = 1;
    }
    for (uint32_t k = 0; k < b->n; k++)
        for (uint32_t i = 0; i < b->n; i++)
            for (uint32_t j = 0; j < b->n; j++)
                if (b->dist[i][k] + b->dist[k][j] < b->dist[i][j])
                    b->dist[i][j] = b->dist[i][k] + b->dist[k][j];
}

static bool brute_cyclic(const brute *b)
{
    for (uint32_t x = 0; x < b->n; x++)
        if (b->dist[x][x] < INF)
            return true;
    return false;
}

/* Does edge e lead from node x to node y? */
static bool edge_links(const psi_edge *e, bool si, uint32_t x, uint32_t y)
{
    uint32_t fx[2], tx[2];
    int k = node_edges(e, si, fx, tx);
    for (int j = 0; j < k; j++)
        if (fx[j] == x && tx[j] == y)
            return true;
    return false;
}

/* Follows a path of edge ids from node `from`; returns the node reached,
 * or PSI_NO_NODE if the ids do not chain. SI needs the node each edge
 * enters: DEP edges enter v0, RW edges v1, and an RW edge leaves u0 only. */
static uint32_t walk(const psi_edge *es, bool si, uint32_t from, const uint32_t *path, uint32_t len)
{
    uint32_t x = from;
    for (uint32_t i = 0; i < len; i++) {
        const psi_edge *e = &es[path[i]];
        uint32_t y = si ? 2 * e->to + (e->type == PSI_EDGE_RW) : e->to;
        if (!edge_links(e, si, x, y))
            return PSI_NO_NODE;
        x = y;
    }
    return x;
}

static uint32_t random_edges(psi_edge *es, uint32_t nv, uint32_t m, unsigned *seed)
{
    for (uint32_t i = 0; i < m; i++) {
        uint32_t f = (uint32_t)rand_r(seed) % nv, t = (uint32_t)rand_r(seed) % nv;
        if (t == f)
            t = (t + 1) % nv;
        es[i] = (psi_edge){.from = f, .to = t, .key = i, .type = (uint8_t)(rand_r(seed) % 4)};
    }
    return m;
}

static void check_one(const psi_edge *es, uint32_t nv, uint32_t m, bool si, unsigned extra)
{
    brute b;
    brute_build(&b, nv, es, m, si);
    psi_edge_view v = {.first = es, .n = m};
    psi_graph g;
    psi_diag d;
    unsigned flags = (si ? PSI_GRAPH_SI : 0u) | PSI_GRAPH_IN | extra;
    assert_int_equal(psi_graph_build(&g, nv, &v, flags, &d), PSI_OK);
    assert_int_equal(g.n_nodes, b.n);
    uint32_t order[MAXN], n_ordered;
    bool cyclic = brute_cyclic(&b);
    for (int fe = 0; fe < 2; fe++) {
        assert_int_equal(psi_graph_topo(&g, fe, order, &n_ordered, &d), PSI_OK);
        assert_int_equal(n_ordered < g.n_nodes, cyclic);
        /* Every node ordered comes after all its ordered predecessors. */
        uint32_t rank[MAXN];
        for (uint32_t x = 0; x < b.n; x++)
            rank[x] = UINT32_MAX;
        for (uint32_t i = 0; i < n_ordered; i++)
            rank[order[i]] = i;
        for (uint32_t x = 0; x < b.n; x++)
            for (uint32_t y = 0; y < b.n; y++)
                if (rank[x] != UINT32_MAX && rank[y] != UINT32_MAX && b.dist[x][y] < INF)
                    assert_true(rank[x] < rank[y]);
        if (fe && si && !cyclic)
            for (uint32_t u = 0; u < nv; u++)
                assert_true(rank[2 * u] < rank[2 * u + 1]);
        if (!cyclic)
            continue;
        uint32_t node;
        assert_int_equal(psi_graph_cycle_node(&g, order, n_ordered, &node, &d), PSI_OK);
        assert_true(node < b.n && b.dist[node][node] < INF);
        if (!fe) {
            uint32_t cyc[MAXN], len;
            assert_int_equal(psi_graph_cycle_back(&g, order, n_ordered, cyc, &len, &d), PSI_OK);
            assert_true(len > 0);
            /* The cycle chains back to where it started. */
            uint32_t x0 = UINT32_MAX;
            for (uint32_t x = 0; x < b.n && x0 == UINT32_MAX; x++)
                if (walk(es, si, x, cyc, len) == x)
                    x0 = x;
            assert_true(x0 != UINT32_MAX);
        }
    }
    psi_graph_bfs w;
    assert_int_equal(psi_graph_bfs_init(&w, g.n_nodes, &d), PSI_OK);
    uint32_t path[MAXN + 1];
    for (uint32_t x = 0; x < b.n; x++) {
        for (uint32_t y = 0; y < b.n; y++) {
            uint32_t len = psi_graph_path(&g, &w, x, y, PSI_NO_NODE, path);
            assert_int_equal(len, b.dist[x][y] < INF ? (uint32_t)b.dist[x][y] : 0u);
            if (len)
                assert_int_equal(walk(es, si, x, path, len), y);
        }
    }
    /* Closing cycles: shortest over the admissible tails, and the
     * shortest cycle through each edge is its closing cycle plus itself. */
    for (uint32_t i = 0; i < m; i++) {
        const psi_edge *e = &es[i];
        bool anti = e->type == PSI_EDGE_RW;
        uint32_t start = si ? 2 * e->to + anti : e->to;
        int want = si ? b.dist[start][2 * e->from] : b.dist[start][e->from];
        if (si && !anti && b.dist[start][2 * e->from + 1] < want)
            want = b.dist[start][2 * e->from + 1];
        uint32_t len = psi_graph_closing_path(&g, &w, e->from, e->to, anti, path);
        assert_int_equal(len, want < INF ? (uint32_t)want : 0u);
        uint8_t through[MAXE] = {0};
        through[i] = 1;
        uint32_t out[MAXN + 1];
        uint32_t cl = psi_graph_shortest_cycle(&g, &w, &v, through, out);
        assert_int_equal(cl, len ? len + 1 : 0u);
        if (cl) {
            /* The path ends at a node of the tail that may take the edge. */
            assert_int_equal(out[0], i);
            uint32_t end = walk(es, si, start, out + 1, cl - 1);
            if (!si)
                assert_int_equal(end, e->from);
            else
                assert_true(end == 2 * e->from || (!anti && end == 2 * e->from + 1));
        }
    }
    psi_graph_bfs_free(&w);
    psi_graph_free(&g);
}

static void test_random_graphs(void **state)
{
    (void)state;
    unsigned seed = 12345;
    for (int round = 0; round < 3000; round++) {
        psi_edge es[MAXE];
        uint32_t nv = 2 + (uint32_t)rand_r(&seed) % (MAXV - 1);
        uint32_t m = random_edges(es, nv, (uint32_t)rand_r(&seed) % MAXE, &seed);
        check_one(es, nv, m, false, 0);
        check_one(es, nv, m, true, 0);
        check_one(es, nv, m, true, PSI_GRAPH_EDGE_ORDER);
    }
}

/* A v0 node lists DEP then RW successors, or merges them in edge order. */
static void test_successor_order(void **state)
{
    (void)state;
    psi_edge es[] = {
        {.from = 0, .to = 1, .type = PSI_EDGE_RW},
        {.from = 0, .to = 2, .type = PSI_EDGE_WR},
        {.from = 0, .to = 3, .type = PSI_EDGE_RW},
        {.from = 0, .to = 1, .type = PSI_EDGE_SO},
    };
    psi_edge_view v = {.first = es, .n = 4};
    uint32_t want_kind[] = {1, 3, 0, 2}, want_edge[] = {0, 1, 2, 3};
    for (int merged = 0; merged < 2; merged++) {
        psi_graph g;
        unsigned flags = PSI_GRAPH_SI | (merged ? PSI_GRAPH_EDGE_ORDER : 0u);
        assert_int_equal(psi_graph_build(&g, 4, &v, flags, NULL), PSI_OK);
        psi_graph_succ it;
        uint32_t y, eid, k = 0;
        psi_graph_succ_begin(&it, &g, 0);
        while (psi_graph_succ_next(&it, &y, &eid)) {
            uint32_t want = merged ? want_edge[k] : want_kind[k];
            assert_int_equal(eid, want);
            assert_int_equal(y, 2 * es[want].to + (es[want].type == PSI_EDGE_RW));
            k++;
        }
        assert_int_equal(k, 4);
        /* u1 takes the DEP edges only. */
        psi_graph_succ_begin(&it, &g, 1);
        k = 0;
        while (psi_graph_succ_next(&it, &y, &eid))
            assert_int_equal(es[eid].type == PSI_EDGE_RW, false), k++;
        assert_int_equal(k, 2);
        psi_graph_free(&g);
    }
}

/* Inactive edges take no part; edges of larger records are read in place. */
static void test_view_active_and_stride(void **state)
{
    (void)state;
    typedef struct rec {
        uint64_t before;
        psi_edge e;
        uint32_t after;
    } rec;
    rec rs[3] = {{.e = {.from = 0, .to = 1, .type = PSI_EDGE_WW}},
                 {.e = {.from = 1, .to = 0, .type = PSI_EDGE_WW}},
                 {.e = {.from = 1, .to = 2, .type = PSI_EDGE_WW}}};
    uint8_t active[3] = {1, 0, 1};
    psi_edge_view v = {.first = &rs[0].e, .stride = sizeof *rs, .n = 3, .active = active};
    psi_graph g;
    assert_int_equal(psi_graph_build(&g, 3, &v, 0, NULL), PSI_OK);
    assert_int_equal(g.n_edges, 2);
    uint32_t order[3], n;
    assert_int_equal(psi_graph_topo(&g, false, order, &n, NULL), PSI_OK);
    assert_int_equal(n, 3);
    psi_graph_free(&g);
    active[1] = 1;
    assert_int_equal(psi_graph_build(&g, 3, &v, 0, NULL), PSI_OK);
    assert_int_equal(psi_graph_topo(&g, false, order, &n, NULL), PSI_OK);
    assert_true(n < 3);
    psi_graph_free(&g);
}

/* SI forbids a cycle only without two adjacent RW edges. */
static void test_si_semantics(void **state)
{
    (void)state;
    /* Write skew: two RW edges in a row, allowed under SI only. */
    psi_edge skew[] = {{.from = 1, .to = 2, .type = PSI_EDGE_RW},
                       {.from = 2, .to = 1, .type = PSI_EDGE_RW}};
    /* Lost update shape: WR then RW back. */
    psi_edge lost[] = {{.from = 1, .to = 2, .type = PSI_EDGE_WR},
                       {.from = 2, .to = 1, .type = PSI_EDGE_RW}};
    const psi_edge *cases[] = {skew, lost};
    bool forbidden_si[] = {false, true};
    for (int c = 0; c < 2; c++) {
        for (int si = 0; si < 2; si++) {
            psi_edge_view v = {.first = cases[c], .n = 2};
            psi_graph g;
            assert_int_equal(psi_graph_build(&g, 3, &v, si ? PSI_GRAPH_SI : 0u, NULL), PSI_OK);
            uint32_t order[6], n;
            assert_int_equal(psi_graph_topo(&g, true, order, &n, NULL), PSI_OK);
            assert_int_equal(n < g.n_nodes, si ? forbidden_si[c] : true);
            psi_graph_free(&g);
        }
    }
}

/* PSI_GRAPH_IN_ONLY (PC pruning's index by target): the same in-index as
 * a full build with PSI_GRAPH_IN, row for row, and no out-edges. */
static void test_in_only(void **state)
{
    (void)state;
    unsigned seed = 777;
    for (int round = 0; round < 500; round++) {
        psi_edge es[MAXE];
        uint8_t active[MAXE];
        uint32_t nv = 2 + (uint32_t)rand_r(&seed) % (MAXV - 1);
        uint32_t m = random_edges(es, nv, (uint32_t)rand_r(&seed) % MAXE, &seed);
        for (uint32_t i = 0; i < m; i++)
            active[i] = rand_r(&seed) % 3 != 0;
        psi_edge_view v = {.first = es, .n = m, .active = active};
        psi_graph full, in;
        psi_diag d;
        assert_int_equal(psi_graph_build(&full, nv, &v, PSI_GRAPH_IN, &d), PSI_OK);
        assert_int_equal(psi_graph_build(&in, nv, &v, PSI_GRAPH_IN | PSI_GRAPH_IN_ONLY, &d),
                         PSI_OK);
        assert_null(in.off);
        assert_null(in.dst);
        assert_null(in.eid);
        assert_int_equal(in.n_edges, full.n_edges);
        for (uint32_t x = 0; x < nv; x++) {
            uint64_t b, e, bi, ei;
            psi_graph_in(&full, x, false, &b, &e);
            psi_graph_in(&in, x, false, &bi, &ei);
            assert_int_equal(b, bi);
            assert_int_equal(e, ei);
            for (; b < e; b++) {
                assert_int_equal(full.in_src[b], in.in_src[b]);
                assert_int_equal(full.in_eid[b], in.in_eid[b]);
            }
        }
        assert_true(psi_graph_bytes(&in) > 0 && psi_graph_bytes(&in) < psi_graph_bytes(&full));
        psi_graph_free(&full);
        psi_graph_free(&in);
    }
}

/* psi_graph_rebuild into one graph again and again, of every kind, with
 * edge lists that grow and shrink: the same rows as a fresh build each
 * time, and psi_graph_topo_scratch with a dirty scratch the same order
 * as psi_graph_topo. */
static void same_rows(const uint64_t *off_a, const uint32_t *x_a, const uint32_t *e_a,
                      const uint64_t *off_b, const uint32_t *x_b, const uint32_t *e_b,
                      uint64_t rows)
{
    assert_true(!off_a == !off_b);
    if (!off_a)
        return;
    for (uint64_t r = 0; r <= rows; r++)
        assert_int_equal(off_a[r], off_b[r]);
    for (uint64_t i = 0; i < off_a[rows]; i++) {
        assert_int_equal(x_a[i], x_b[i]);
        assert_int_equal(e_a[i], e_b[i]);
    }
}

/* The graph kinds a rebuilt or extended graph is compared in. */
static const unsigned k_kinds[] = {0,
                                   PSI_GRAPH_IN,
                                   PSI_GRAPH_IN | PSI_GRAPH_IN_ONLY,
                                   PSI_GRAPH_SI,
                                   PSI_GRAPH_SI | PSI_GRAPH_IN,
                                   PSI_GRAPH_SI | PSI_GRAPH_IN_ANTI,
                                   PSI_GRAPH_SI | PSI_GRAPH_EDGE_ORDER};

/* g (rebuilt or extended in place) has exactly fresh's rows, both
 * directions, and room for its edges. */
static void same_graph(const psi_graph *g, const psi_graph *fresh, uint32_t nv, unsigned flags)
{
    assert_int_equal(g->flags, fresh->flags);
    assert_int_equal(g->n_edges, fresh->n_edges);
    assert_int_equal(psi_graph_bytes(g), psi_graph_bytes(fresh));
    uint64_t rows = flags & PSI_GRAPH_SI ? 2 * (uint64_t)nv : nv;
    uint64_t in_rows = (flags & PSI_GRAPH_SI) && !(flags & PSI_GRAPH_IN) ? nv : rows;
    same_rows(g->off, g->dst, g->eid, fresh->off, fresh->dst, fresh->eid, rows);
    same_rows(g->in_off, g->in_src, g->in_eid, fresh->in_off, fresh->in_src, fresh->in_eid,
              in_rows);
    if (g->off)
        assert_int_equal(g->off[rows + 1], fresh->off[rows + 1]);
    assert_true((g->off ? g->room_edges : g->room_in_edges) >= g->n_edges);
}

static void test_rebuild(void **state)
{
    (void)state;
    unsigned seed = 4242;
    psi_graph g = {0};
    for (int round = 0; round < 2000; round++) {
        psi_edge es[MAXE];
        uint32_t nv = 2 + (uint32_t)rand_r(&seed) % (MAXV - 1);
        uint32_t m = random_edges(es, nv, (uint32_t)rand_r(&seed) % MAXE, &seed);
        unsigned flags = k_kinds[(unsigned)rand_r(&seed) % (sizeof k_kinds / sizeof *k_kinds)];
        uint64_t room = (uint64_t)rand_r(&seed) % (2 * MAXE);
        psi_edge_view v = {.first = es, .n = m};
        psi_graph fresh;
        psi_diag d;
        assert_int_equal(psi_graph_build(&fresh, nv, &v, flags, &d), PSI_OK);
        assert_int_equal(psi_graph_rebuild(&g, nv, &v, flags, room, &d), PSI_OK);
        assert_int_equal(g.n_vertices, fresh.n_vertices);
        assert_int_equal(g.n_nodes, fresh.n_nodes);
        same_graph(&g, &fresh, nv, flags);
        if (!(flags & PSI_GRAPH_IN_ONLY)) {
            uint32_t o1[MAXN], o2[MAXN], scratch[MAXN], n1, n2;
            for (uint32_t x = 0; x < MAXN; x++)
                scratch[x] = (uint32_t)rand_r(&seed);
            bool fe = rand_r(&seed) % 2;
            assert_int_equal(psi_graph_topo(&fresh, fe, o1, &n1, &d), PSI_OK);
            assert_int_equal(psi_graph_topo_scratch(&g, fe, o2, &n2, scratch, &d), PSI_OK);
            assert_int_equal(n1, n2);
            assert_memory_equal(o1, o2, n1 * sizeof *o1);
        }
        psi_graph_free(&fresh);
    }
    psi_graph_free(&g);
}

/* psi_graph_extend: a graph of every kind, built from a prefix of an edge
 * list (with active marks or not) and extended in random steps, some with
 * no new edge, has after each step exactly the rows of a fresh build over
 * the edges so far; the steps also start from an earlier rebuild's arrays
 * with and without room. */
static void test_extend(void **state)
{
    (void)state;
    unsigned seed = 9091;
    psi_graph g = {0};
    uint32_t extended = 0;
    for (int round = 0; round < 1000; round++) {
        psi_edge es[MAXE];
        uint8_t active[MAXE];
        uint32_t nv = 2 + (uint32_t)rand_r(&seed) % (MAXV - 1);
        uint32_t m = random_edges(es, nv, (uint32_t)rand_r(&seed) % MAXE, &seed);
        unsigned flags = k_kinds[(unsigned)rand_r(&seed) % (sizeof k_kinds / sizeof *k_kinds)];
        bool masked = rand_r(&seed) % 3 == 0;
        for (uint32_t i = 0; i < m; i++)
            active[i] = rand_r(&seed) % 4 != 0;
        uint64_t room = (uint64_t)rand_r(&seed) % (2 * MAXE);
        psi_diag d;
        psi_edge_view v = {.first = es,
                           .n = m ? (uint32_t)rand_r(&seed) % m : 0,
                           .active = masked ? active : NULL};
        assert_int_equal(psi_graph_rebuild(&g, nv, &v, flags, room, &d), PSI_OK);
        while (v.n < m) {
            uint64_t from = v.n;
            v.n += (uint32_t)rand_r(&seed) % 4 == 0 ? 0 : 1 + (uint32_t)rand_r(&seed) % (m - from);
            if (v.n > m)
                v.n = m;
            assert_int_equal(psi_graph_extend(&g, &v, from, room, &d), PSI_OK);
            extended += v.n > from;
            psi_graph fresh;
            assert_int_equal(psi_graph_build(&fresh, nv, &v, flags, &d), PSI_OK);
            same_graph(&g, &fresh, nv, flags);
            psi_graph_free(&fresh);
        }
    }
    psi_graph_free(&g);
    assert_true(extended > 1000); /* the steps really added edges */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_graphs),
        cmocka_unit_test(test_successor_order),
        cmocka_unit_test(test_view_active_and_stride),
        cmocka_unit_test(test_si_semantics),
        cmocka_unit_test(test_in_only),
        cmocka_unit_test(test_rebuild),
        cmocka_unit_test(test_extend),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
