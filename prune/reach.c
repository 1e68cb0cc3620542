/* Reachability for pruning: the known graph in core's kernel, its
 * topological order with the free u0 -> u1 edge, per-session frontiers,
 * and shortest paths for counterexamples (see reach.h). */
#include "prune/reach.h"

#include "core/vec.h"

#include <assert.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static psi_status nomem(psi_diag *d)
{
    return psi_diag_nomem(d, "computing reachability");
}

/* Out-of-memory from the kernel is reported as this stage's. */
static psi_status stage_status(psi_status st, psi_diag *d)
{
    return st == PSI_ERR_NOMEM ? nomem(d) : st;
}

static bool live_txn(const psi_history *h, uint32_t t)
{
    return t == PSI_INIT_TXN || h->txns[t].status == PSI_TXN_COMMITTED;
}

/* Room for n nodes in k's row numbers (contents not kept). */
static bool keep_nodes(psi_reach_keep *k, uint32_t n)
{
    if (k->row_of && k->room_nodes >= n)
        return true;
    free(k->row_of);
    size_t b = (size_t)(n ? n : 1) * sizeof *k->row_of;
    k->row_of = malloc(b);
    k->room_nodes = k->row_of ? n : 0;
    psi_hint_huge(k->row_of, b);
    return k->row_of != NULL;
}

void psi_reach_keep_free(psi_reach_keep *k)
{
    psi_graph_free(&k->graph);
    free(k->row_of);
    free(k->row_map);
    memset(k, 0, sizeof *k);
}

/* Row numbers in the order of `order` (a topological order), kept in
 * k->row_map for the builds that reuse the frontier's rows (reuse: the
 * map is from such a build over the same nodes). */
static psi_status topo_rows(psi_reach *r, psi_reach_keep *k, const uint32_t *order, bool reuse,
                            psi_diag *d)
{
    if (!reuse || k->map_n != r->n) {
        if (k->room_map < r->n) {
            free(k->row_map);
            k->room_map = 0;
            k->row_map = malloc((r->n ? r->n : 1) * sizeof *k->row_map);
            if (!k->row_map)
                return nomem(d);
            k->room_map = r->n;
        }
        uint32_t rows = 0;
        for (uint32_t i = 0; i < r->n; i++) {
            uint32_t x = order[i];
            k->row_map[x] = live_txn(r->h, r->doubled ? x / 2 : x) ? rows++ : UINT32_MAX;
        }
        k->map_n = r->n;
        k->map_rows = rows;
    }
    r->row_of = k->row_map;
    r->n_rows = k->map_rows;
    return PSI_OK;
}

/* Huge pages from 2 MiB on (psi_hint_huge waits for 8 MiB, as a block
 * it did not align has only its aligned interior to give). */
#define HUGE_PAGE ((size_t)2 << 20)

/* A block of `bytes` aligned to huge pages and hinted to be backed by
 * them when it is large enough: the kept frontier is read at random
 * rows every round (constraint checks, seeding's writers), and on
 * VeriStrong's 20k set under SI it is 7.6 MiB, just under psi_hint_huge's
 * threshold. Freed with free(). */
static void *huge_alloc(size_t bytes)
{
    if (bytes < HUGE_PAGE || bytes > SIZE_MAX - HUGE_PAGE)
        return malloc(bytes ? bytes : 1);
    size_t room = (bytes + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, room) != 0)
        return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    (void)madvise(p, room, MADV_HUGEPAGE);
#endif
    return p;
}

static psi_status alloc_frontier(psi_reach *r, const psi_reach_cfg *cfg, const uint32_t *order,
                                 bool reuse, psi_diag *d)
{
    uint64_t rows = 0;
    if (r->keep && cfg->buf && !cfg->no_frontier) {
        psi_status st = topo_rows(r, r->keep, order, reuse, d);
        if (st != PSI_OK)
            return st;
        rows = r->n_rows;
    } else {
        /* with keep, reach_build made room for r->n nodes there */
        r->row_of = r->keep ? r->keep->row_of : malloc((r->n ? r->n : 1) * sizeof *r->row_of);
        if (!r->row_of)
            return nomem(d);
        for (uint32_t x = 0; x < r->n; x++)
            r->row_of[x] = live_txn(r->h, r->doubled ? x / 2 : x) ? (uint32_t)rows++ : UINT32_MAX;
        r->n_rows = rows;
    }
    if (cfg && cfg->no_frontier)
        return PSI_OK;
    if (rows && (uint64_t)r->n_sessions > SIZE_MAX / sizeof *r->frontier / rows)
        return nomem(d);
    size_t cells = (size_t)(rows ? rows : 1) * r->n_sessions;
    /* Frontier rows are read at random (constraint checks, seeding's
     * writers): huge pages spare most of their TLB misses, and the first
     * touch of the cells faults once per 2 MiB instead of per 4 KiB. */
    if (!cfg || !cfg->buf) {
        r->frontier = malloc(cells * sizeof *r->frontier);
        psi_hint_huge(r->frontier, cells * sizeof *r->frontier);
        return r->frontier ? PSI_OK : nomem(d);
    }
    if (*cfg->cap < cells) {
        /* Every cell is written before it is read (compute_frontier), so
         * the old contents need not move; they are gone for an
         * incremental build. */
        if (cfg->buf_edges)
            *cfg->buf_edges = 0;
        free(*cfg->buf);
        *cfg->cap = 0;
        *cfg->buf = huge_alloc(cells * sizeof **cfg->buf);
        if (!*cfg->buf)
            return nomem(d);
        *cfg->cap = cells;
    }
    r->frontier = *cfg->buf;
    r->borrowed = true;
    return PSI_OK;
}

static inline void row_min(uint32_t *restrict dst, const uint32_t *restrict src, uint32_t S)
{
    for (uint32_t s = 0; s < S; s++)
        dst[s] = src[s] < dst[s] ? src[s] : dst[s];
}

static inline uint32_t *row_ptr(const psi_reach *r, uint32_t x)
{
    return r->frontier + (uint64_t)r->row_of[x] * r->n_sessions;
}

/* One worker's share of the frontier: columns [s0, s1) of every row. */
typedef struct frontier_job {
    const psi_reach *r;
    const uint32_t *order;
    /* Incremental build (psi_reach_cfg.buf_edges), else NULL: fresh[x] when
     * node x has a new edge out; changed[x] (this slice's, zeroed) when
     * x's slice of its row changed; old: w cells of scratch. */
    const uint8_t *fresh;
    uint8_t *changed;
    uint32_t *old;
    uint32_t s0, s1;
} frontier_job;

/* Node x's slice of its row from scratch: u1 (or a SER node) from its DEP
 * successors, u0 from u1 and its RW successors. */
static void row_full(const frontier_job *job, uint32_t x, uint32_t *row)
{
    const psi_reach *r = job->r;
    const psi_graph *g = &r->graph;
    uint32_t s0 = job->s0, w = job->s1 - job->s0;
    uint32_t u = r->doubled ? x / 2 : x;
    uint64_t b, e;
    if (r->doubled && !(x & 1u)) {
        memcpy(row, row_ptr(r, x + 1) + s0, w * sizeof *row);
        psi_graph_out(g, u, true, &b, &e);
        for (; b < e; b++)
            row_min(row, row_ptr(r, 2 * g->dst[b] + 1) + s0, w);
        return;
    }
    memset(row, 0xff, w * sizeof *row);
    psi_graph_out(g, u, false, &b, &e);
    for (; b < e; b++) {
        uint32_t v = g->dst[b];
        row_min(row, row_ptr(r, psi_reach_node(r, v, 0)) + s0, w);
        const psi_txn *tx = &r->h->txns[v];
        uint32_t s = tx->session;
        /* an optional transaction's place says nothing of the
         * committed ones after it: its edges out are not known */
        if (s != PSI_NO_SESSION && s >= s0 && s - s0 < w && tx->pos < row[s - s0] &&
            !tx->open_outcome)
            row[s - s0] = tx->pos;
    }
}

/* Lowers row x's slice (from the last build, x has no new edge out) by
 * the rows it is computed from that changed; returns whether it changed.
 * Exact: the old row is the minimum over the same successors' old rows
 * (and positions), and a row only falls as edges are added, so the
 * unchanged successors add nothing the old row lacks. */
static bool row_delta(const frontier_job *job, uint32_t x, uint32_t *row)
{
    const psi_reach *r = job->r;
    const psi_graph *g = &r->graph;
    const uint8_t *changed = job->changed;
    uint32_t s0 = job->s0, w = job->s1 - job->s0;
    bool lowered = false;
    bool u0 = r->doubled && !(x & 1u);
    if (u0 && changed[x + 1]) {
        memcpy(job->old, row, w * sizeof *row);
        lowered = true;
        row_min(row, row_ptr(r, x + 1) + s0, w);
    }
    uint64_t b, e;
    psi_graph_out(g, r->doubled ? x / 2 : x, u0, &b, &e);
    for (; b < e; b++) {
        uint32_t y = u0 ? 2 * g->dst[b] + 1 : psi_reach_node(r, g->dst[b], 0);
        if (!changed[y])
            continue;
        if (!lowered)
            memcpy(job->old, row, w * sizeof *row);
        lowered = true;
        row_min(row, row_ptr(r, y) + s0, w);
    }
    return lowered && memcmp(job->old, row, w * sizeof *row) != 0;
}

/* Rows in reverse topological order of the ordering graph. A column
 * depends only on the same column of other rows, so a slice of columns is
 * computed alone, the same way whichever worker runs it. */
static void frontier_slice(const frontier_job *job)
{
    const psi_reach *r = job->r;
    const uint32_t *order = job->order;
    uint32_t s0 = job->s0, w = job->s1 - job->s0;
    for (uint32_t i = r->n; i-- > 0;) {
        uint32_t x = order[i];
        if (r->row_of[x] == UINT32_MAX)
            continue; /* takes no part, has no edges */
        uint32_t *row = row_ptr(r, x) + s0;
        if (!job->fresh) {
            row_full(job, x, row);
        } else if (job->fresh[x]) {
            memcpy(job->old, row, w * sizeof *row);
            row_full(job, x, row);
            job->changed[x] = memcmp(job->old, row, w * sizeof *row) != 0;
        } else {
            job->changed[x] = row_delta(job, x, row);
        }
    }
}

static void *frontier_worker(void *arg)
{
    frontier_slice(arg);
    return NULL;
}

/* Columns a worker gets at least: fewer would make the threads share
 * cache lines more than they compute. */
#define MIN_SLICE   16u
#define MAX_WORKERS 64u

/* Each job's scratch for an incremental build; false (nothing kept) when
 * memory is short: the caller then computes every row, same result. */
static bool jobs_scratch(frontier_job *jobs, uint32_t k, uint32_t n)
{
    bool ok = true;
    for (uint32_t j = 0; j < k; j++) {
        jobs[j].changed = calloc(n ? n : 1, 1);
        jobs[j].old = malloc((jobs[j].s1 - jobs[j].s0) * sizeof *jobs[j].old);
        ok = ok && jobs[j].changed && jobs[j].old;
    }
    return ok;
}

/* The frontier with up to `threads` workers (the calling thread is one),
 * from min_cells cells on (psi_reach_cfg.parallel_cells).
 * A worker that cannot be started leaves its slice to the calling thread,
 * so the result never depends on how many ran. fresh: as frontier_job's
 * (NULL: every row from scratch). */
static void compute_frontier(psi_reach *r, const uint32_t *order, uint32_t threads,
                             uint64_t min_cells, const uint8_t *fresh)
{
    assert(!r->changed);
    uint32_t S = r->n_sessions;
    uint32_t k = threads ? threads : 1;
    if (k > S / MIN_SLICE)
        k = S / MIN_SLICE;
    if (k > MAX_WORKERS)
        k = MAX_WORKERS;
    if (k < 2 || r->n_rows < 1024 || r->n_rows * S < min_cells)
        k = 1;
    frontier_job jobs[MAX_WORKERS];
    pthread_t tid[MAX_WORKERS];
    bool started[MAX_WORKERS] = {false};
    bool delta = false;
    for (uint32_t j = 0; j < k; j++)
        jobs[j] = (frontier_job){.r = r,
                                 .order = order,
                                 .s0 = (uint32_t)((uint64_t)S * j / k),
                                 .s1 = (uint32_t)((uint64_t)S * (j + 1) / k)};
    if (fresh && jobs_scratch(jobs, k, r->n)) {
        delta = true;
        for (uint32_t j = 0; j < k; j++)
            jobs[j].fresh = fresh;
    }
    for (uint32_t j = 1; j < k; j++)
        started[j] = pthread_create(&tid[j], NULL, frontier_worker, &jobs[j]) == 0;
    frontier_slice(&jobs[0]);
    for (uint32_t j = 1; j < k; j++) {
        if (started[j])
            pthread_join(tid[j], NULL);
        else
            frontier_slice(&jobs[j]);
    }
    /* The slices' accounts, merged: a row changed when any slice of it
     * did. The first slice's array becomes the reach's. */
    if (delta) {
        r->changed = jobs[0].changed;
        jobs[0].changed = NULL;
        for (uint32_t j = 1; j < k; j++)
            for (uint32_t x = 0; x < r->n; x++)
                r->changed[x] |= jobs[j].changed[x];
    }
    for (uint32_t j = 0; j < k; j++) {
        free(jobs[j].changed);
        free(jobs[j].old);
    }
}

/* For an incremental build: the nodes with an edge out among the known
 * edges past the first `done` (both copies of an SI source: conservative,
 * a stale mark only costs a recomputed row). NULL when short of memory. */
static uint8_t *fresh_nodes(const psi_reach *r, const psi_edge_view *v, uint64_t done)
{
    uint8_t *fresh = calloc(r->n ? r->n : 1, 1);
    if (!fresh)
        return NULL;
    const char *first = (const char *)v->first;
    size_t stride = v->stride ? v->stride : sizeof(psi_edge);
    for (uint64_t i = done; i < v->n; i++) {
        const psi_edge *e = (const psi_edge *)(const void *)(first + i * stride);
        if (r->doubled) {
            fresh[2 * (uint64_t)e->from] = 1;
            fresh[2 * (uint64_t)e->from + 1] = 1;
        } else {
            fresh[e->from] = 1;
        }
    }
    return fresh;
}

static psi_status reach_build(psi_reach *r, const psi_history *h, const psi_edge_view *known,
                              bool doubled, const psi_reach_cfg *cfg, uint32_t *cycle_node,
                              psi_diag *d)
{
    memset(r, 0, sizeof *r);
    r->h = h;
    r->doubled = doubled;
    r->n_txns = h->n_txns;
    r->n_sessions = h->n_sessions ? h->n_sessions : 1;
    *cycle_node = UINT32_MAX;
    unsigned flags = doubled ? PSI_GRAPH_SI | PSI_GRAPH_IN_ANTI : 0;
    psi_reach_keep *keep = cfg ? cfg->keep : NULL;
    psi_status st;
    if (keep) {
        /* borrowed until psi_reach_free gives it back */
        r->graph = keep->graph;
        memset(&keep->graph, 0, sizeof keep->graph);
        bool dep = known->active != NULL, append = cfg->append;
        /* the kept graph holds a prefix of these edges, of the same kind */
        bool extend = append && keep->graph_of && keep->graph_of <= known->n &&
                      keep->graph_dep == dep && r->graph.flags == flags &&
                      r->graph.n_vertices == h->n_txns;
        st = extend ? psi_graph_extend(&r->graph, known, keep->graph_of, keep->edge_room, d)
                    : psi_graph_rebuild(&r->graph, h->n_txns, known, flags, keep->edge_room, d);
        keep->graph_of = st == PSI_OK && append ? known->n : 0;
        keep->graph_dep = dep;
    } else {
        st = psi_graph_build(&r->graph, h->n_txns, known, flags, d);
    }
    if (st != PSI_OK)
        return stage_status(st, d);
    r->n = r->graph.n_nodes;
    /* The order is needed only while the frontier is computed, so it is
     * not kept: the rounds' peak would have it. The sort's in-degrees go
     * where the row numbers will (alloc_frontier writes them after). */
    uint32_t *order = malloc((r->n ? r->n : 1) * sizeof *order), *indeg = NULL;
    if (keep && keep_nodes(keep, r->n)) {
        r->keep = keep;
        indeg = keep->row_of;
    } else if (keep) {
        free(order);
        psi_graph_free(&r->graph);
        return nomem(d);
    }
    if (!order)
        st = nomem(d);
    uint32_t n_ordered = 0;
    if (st == PSI_OK)
        st = stage_status(psi_graph_topo_scratch(&r->graph, true, order, &n_ordered, indeg, d), d);

    if (st == PSI_OK && n_ordered < r->n) {
        st = stage_status(psi_graph_cycle_node(&r->graph, order, n_ordered, cycle_node, d), d);
    } else if (st == PSI_OK) {
        uint64_t *done = cfg && cfg->buf ? cfg->buf_edges : NULL;
        st = alloc_frontier(r, cfg, order, done && *done && *done <= known->n, d);
        if (st == PSI_OK && r->frontier) {
            /* the rows in the buffer are from a prefix of these edges */
            uint8_t *fresh =
                done && *done && *done <= known->n ? fresh_nodes(r, known, *done) : NULL;
            compute_frontier(r, order, cfg ? cfg->threads : 1, cfg ? cfg->parallel_cells : 0,
                             fresh);
            free(fresh);
            if (done)
                *done = known->n;
        }
    }
    free(order);
    if (st != PSI_OK)
        psi_reach_free(r);
    return st;
}

psi_status psi_reach_build(psi_reach *r, const psi_history *h, const psi_polygraph *g, bool doubled,
                           uint32_t *cycle_node, psi_diag *d)
{
    psi_edge_view known = {.first = g->known, .n = g->n_known};
    return reach_build(r, h, &known, doubled, NULL, cycle_node, d);
}

psi_status psi_reach_build_view(psi_reach *r, const psi_history *h, const psi_edge_view *v,
                                const psi_reach_cfg *cfg, uint32_t *cycle_node, psi_diag *d)
{
    return reach_build(r, h, v, false, cfg, cycle_node, d);
}

psi_status psi_reach_build_cfg(psi_reach *r, const psi_history *h, const psi_polygraph *g,
                               bool doubled, bool dep, const psi_reach_cfg *cfg,
                               uint32_t *cycle_node, psi_diag *d)
{
    psi_edge_view known = {.first = g->known, .n = g->n_known};
    if (!dep)
        return reach_build(r, h, &known, doubled, cfg, cycle_node, d);
    /* The mask is only read while the rows are built (edge ids stay the
     * known-edge indices, so paths map back unchanged). */
    uint8_t *mask = malloc(g->n_known ? g->n_known : 1);
    if (!mask)
        return nomem(d);
    for (uint64_t i = 0; i < g->n_known; i++)
        mask[i] = !psi_edge_is_anti((psi_edge_type)g->known[i].type);
    known.active = mask;
    psi_status st = reach_build(r, h, &known, false, cfg, cycle_node, d);
    free(mask);
    return st;
}

psi_status psi_reach_build_dep(psi_reach *r, const psi_history *h, const psi_polygraph *g,
                               uint32_t *cycle_node, psi_diag *d)
{
    return psi_reach_build_cfg(r, h, g, false, true, NULL, cycle_node, d);
}

void psi_reach_free(psi_reach *r)
{
    if (r->keep) {
        /* back to the keeper, which reach_build emptied when it lent it */
        assert(!r->keep->graph.off && !r->keep->graph.in_off);
        r->keep->graph = r->graph;
    } else {
        psi_graph_free(&r->graph);
        free(r->row_of);
    }
    if (!r->borrowed)
        free(r->frontier);
    free(r->changed);
    memset(r, 0, sizeof *r);
}

bool psi_reach_to_anti(const psi_reach *r, uint32_t u, uint32_t t)
{
    uint64_t b, e;
    psi_graph_in(&r->graph, t, true, &b, &e);
    for (; b < e; b++) {
        uint32_t x = r->graph.in_src[b];
        if (u == 2 * x || psi_reach_to(r, u, x))
            return true;
    }
    return false;
}

psi_status psi_reach_path(const psi_reach *r, uint32_t from, uint32_t to, uint32_t **path,
                          uint32_t *len, psi_diag *d)
{
    *path = NULL;
    *len = 0;
    psi_graph_bfs w;
    if (psi_graph_bfs_init(&w, r->n, d) != PSI_OK)
        return nomem(d);
    uint32_t *p = malloc((r->n ? r->n : 1) * sizeof *p);
    if (!p) {
        psi_graph_bfs_free(&w);
        return nomem(d);
    }
    uint32_t n = psi_graph_path(&r->graph, &w, from, to, PSI_NO_NODE, p);
    psi_graph_bfs_free(&w);
    if (!n) {
        free(p);
        return PSI_OK;
    }
    *path = p;
    *len = n;
    return PSI_OK;
}

psi_status psi_reach_cycle(const psi_reach *r, uint32_t u, uint32_t **path, uint32_t *len,
                           psi_diag *d)
{
    return psi_reach_path(r, u, u, path, len, d);
}

size_t psi_reach_bytes(const psi_reach *r)
{
    size_t b = psi_graph_bytes(&r->graph);
    if (r->frontier)
        b += (size_t)r->n_rows * r->n_sessions * sizeof *r->frontier + (size_t)r->n * 4 +
             (r->changed ? r->n : 0);
    return b;
}
