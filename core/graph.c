/* The dependency-graph kernel (see graph.h): rows by counting sort, Kahn's
 * algorithm, depth-first and backward cycle search, breadth-first paths. */
#include "core/graph.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

static bool is_si(const psi_graph *g)
{
    return (g->flags & PSI_GRAPH_SI) != 0;
}

static bool edge_anti(const psi_edge *e)
{
    return psi_edge_is_anti((psi_edge_type)e->type);
}

/* One part of a row array: the edges of one kind (or all), by source (out)
 * or by target (in), into rows row0 + vertex. */
typedef struct part {
    bool by_target;
    int kind; /* 0 DEP, 1 RW, 2 every edge */
    uint64_t row0;
    uint32_t n_vertices;
} part;

/* The parts a graph's rows are made from (SI: DEP rows of every vertex,
 * then RW rows; see graph.h), for graph_build and psi_graph_extend alike:
 * out and in have n_parts each; in_anti is the RW-only in-index. */
typedef struct graph_parts {
    part out[2], in[2], in_anti;
    int n_parts;
} graph_parts;

static graph_parts parts_of(uint32_t n_vertices, bool si)
{
    uint64_t n = n_vertices;
    if (si)
        return (graph_parts){.out = {{false, 0, 0, n_vertices}, {false, 1, n, n_vertices}},
                             .in = {{true, 0, 0, n_vertices}, {true, 1, n, n_vertices}},
                             .in_anti = {true, 1, 0, n_vertices},
                             .n_parts = 2};
    return (graph_parts){.out = {{false, 2, 0, n_vertices}},
                         .in = {{true, 2, 0, n_vertices}},
                         .in_anti = {true, 1, 0, n_vertices},
                         .n_parts = 1};
}

/* Edge ids are 32 bits: a view with more edges is refused (and g freed). */
static psi_status edge_ids_fit(psi_graph *g, const psi_edge_view *v, psi_diag *d)
{
    if (v->n <= UINT32_MAX)
        return PSI_OK;
    psi_graph_free(g);
    return psi_diag_set(d, PSI_ERR_LIMIT, "%llu dependencies exceed the graph's edge ids",
                        (unsigned long long)v->n);
}

/* The loops below keep the view and the part in locals: the row counts
 * are uint64_t stores, which the compiler must otherwise assume may change
 * the view's uint64_t/size_t fields, and reload them every edge. */
static void count_part(uint64_t *off, const psi_edge_view *v, const part *p)
{
    const char *first = (const char *)v->first;
    size_t stride = v->stride ? v->stride : sizeof(psi_edge);
    const uint8_t *active = v->active;
    uint64_t n = v->n, row0 = p->row0 + 2;
    bool by_target = p->by_target;
    int kind = p->kind;
    for (uint64_t i = 0; i < n; i++) {
        const psi_edge *e = (const psi_edge *)(const void *)(first + i * stride);
        if ((active && !active[i]) || (kind != 2 && (int)edge_anti(e) != kind))
            continue;
        assert(e->from < p->n_vertices && e->to < p->n_vertices);
        off[row0 + (by_target ? e->to : e->from)]++;
    }
}

static void fill_part(uint64_t *off, uint32_t *other, uint32_t *eid, const psi_edge_view *v,
                      const part *p)
{
    const char *first = (const char *)v->first;
    size_t stride = v->stride ? v->stride : sizeof(psi_edge);
    const uint8_t *active = v->active;
    uint64_t n = v->n, row0 = p->row0 + 1;
    bool by_target = p->by_target;
    int kind = p->kind;
    for (uint64_t i = 0; i < n; i++) {
        const psi_edge *e = (const psi_edge *)(const void *)(first + i * stride);
        if ((active && !active[i]) || (kind != 2 && (int)edge_anti(e) != kind))
            continue;
        uint64_t at = off[row0 + (by_target ? e->to : e->from)]++;
        other[at] = by_target ? e->from : e->to;
        eid[at] = (uint32_t)i;
    }
}

/* Room for `need` entries of `elem` bytes in *p (holding *room), kept
 * when it has it (contents not kept: every entry is written before it is
 * read), else fresh with room for max(need, want). */
static bool room_for(void **p, uint64_t *room, uint64_t need, uint64_t want, size_t elem)
{
    if (need <= *room && *p)
        return true;
    free(*p);
    *room = 0;
    uint64_t n = want > need ? want : need;
    if (!n)
        n = 1;
    if (n > SIZE_MAX / elem)
        return false;
    *p = malloc((size_t)n * elem);
    if (!*p)
        return false;
    psi_hint_huge(*p, (size_t)n * elem);
    *room = n;
    return true;
}

/* build_rows' arrays to reuse (psi_graph_rebuild): the room of off and
 * of other and eid, in entries, and the edge room to give arrays that
 * grow. */
typedef struct rows_room {
    uint64_t *off, *edges;
    uint64_t edge_room;
} rows_room;

/* Rows of one array (out or in) from its parts: a counting sort with one
 * pass over the edges per part and step, so that each pass writes into one
 * part of the arrays only (the edges are read sequentially; the row
 * writes are what costs at scale). Counts go to off[row + 2] so that
 * after the prefix sum off[row + 1] is row's start, and filling advances it
 * to row's end: the array is then the finished CSR. room: NULL for fresh
 * exact arrays, else what to reuse. */
static bool build_rows(uint64_t **off, uint32_t **other, uint32_t **eid, uint64_t *m, size_t rows,
                       const psi_edge_view *v, const part *parts, int n_parts,
                       const rows_room *room)
{
    if (!room) {
        *off = calloc(rows + 2, sizeof **off);
        if (!*off)
            return false;
    } else {
        if (!room_for((void **)off, room->off, rows + 2, 0, sizeof **off))
            return false;
        memset(*off, 0, (rows + 2) * sizeof **off);
    }
    for (int k = 0; k < n_parts; k++)
        count_part(*off, v, &parts[k]);
    for (size_t r = 0; r < rows; r++)
        (*off)[r + 2] += (*off)[r + 1];
    *m = (*off)[rows + 1];
    if (!room) {
        *other = malloc((*m ? *m : 1) * sizeof **other);
        *eid = malloc((*m ? *m : 1) * sizeof **eid);
    } else {
        /* other and eid always have the same room */
        uint64_t r2 = *room->edges;
        if (!room_for((void **)other, room->edges, *m, room->edge_room, sizeof **other) ||
            !room_for((void **)eid, &r2, *m, room->edge_room, sizeof **eid))
            return false;
        assert(r2 == *room->edges);
    }
    if (!*other || !*eid)
        return false;
    for (int k = 0; k < n_parts; k++)
        fill_part(*off, *other, *eid, v, &parts[k]);
    return true;
}

/* Frees one direction's rows (offsets, endpoints, edge ids) and forgets
 * their room, for a rebuild that no longer fills them. */
static void drop_rows(uint64_t **off, uint32_t **node, uint32_t **eid, uint64_t *room_off,
                      uint64_t *room_edges)
{
    free(*off);
    free(*node);
    free(*eid);
    *off = NULL;
    *node = *eid = NULL;
    *room_off = *room_edges = 0;
}

/* psi_graph_build (keep: into g's arrays, psi_graph_rebuild). */
static psi_status graph_build(psi_graph *g, uint32_t n_vertices, const psi_edge_view *v,
                              unsigned flags, bool keep, uint64_t edge_room, psi_diag *d)
{
    if (!keep)
        memset(g, 0, sizeof *g);
    /* The RW-only in-index is an SI notion; a plain graph indexes all. */
    assert(!(flags & PSI_GRAPH_IN_ANTI) || (flags & PSI_GRAPH_SI));
    assert(!(flags & PSI_GRAPH_IN_ONLY) || ((flags & PSI_GRAPH_IN) && !(flags & PSI_GRAPH_SI)));
    bool si = flags & PSI_GRAPH_SI;
    if (si && n_vertices > UINT32_MAX / 2) {
        psi_graph_free(g);
        return psi_diag_set(d, PSI_ERR_LIMIT, "%u transactions exceed the doubled graph's nodes",
                            n_vertices);
    }
    psi_status fit = edge_ids_fit(g, v, d);
    if (fit != PSI_OK)
        return fit;
    g->n_vertices = n_vertices;
    g->n_nodes = si ? 2 * n_vertices : n_vertices;
    g->flags = flags;
    g->n_edges = 0;
    uint64_t n = n_vertices;
    graph_parts gp = parts_of(n_vertices, si);
    rows_room ro = {&g->room_off, &g->room_edges, edge_room},
              ri = {&g->room_in_off, &g->room_in_edges, edge_room};
    bool want_in = flags & (PSI_GRAPH_IN | PSI_GRAPH_IN_ANTI);
    if (keep) {
        /* arrays this build does not fill go (an earlier build's kind) */
        if (flags & PSI_GRAPH_IN_ONLY)
            drop_rows(&g->off, &g->dst, &g->eid, &g->room_off, &g->room_edges);
        if (!want_in)
            drop_rows(&g->in_off, &g->in_src, &g->in_eid, &g->room_in_off, &g->room_in_edges);
    }
    uint64_t m_in = 0;
    if (!(flags & PSI_GRAPH_IN_ONLY) &&
        !build_rows(&g->off, &g->dst, &g->eid, &g->n_edges, si ? 2 * n : n, v, gp.out, gp.n_parts,
                    keep ? &ro : NULL))
        goto nomem;
    if ((flags & PSI_GRAPH_IN) &&
        !build_rows(&g->in_off, &g->in_src, &g->in_eid, &m_in, si ? 2 * n : n, v, gp.in, gp.n_parts,
                    keep ? &ri : NULL))
        goto nomem;
    if (flags & PSI_GRAPH_IN_ONLY)
        g->n_edges = m_in;
    if ((flags & PSI_GRAPH_IN_ANTI) && !(flags & PSI_GRAPH_IN) &&
        !build_rows(&g->in_off, &g->in_src, &g->in_eid, &m_in, n, v, &gp.in_anti, 1,
                    keep ? &ri : NULL))
        goto nomem;
    if (!keep) {
        /* exact arrays: their room is what they hold */
        g->room_off = g->off ? (si ? 2 * n : n) + 2 : 0;
        g->room_edges = g->off ? (g->n_edges ? g->n_edges : 1) : 0;
        g->room_in_off = !g->in_off ? 0 : ((si && (flags & PSI_GRAPH_IN)) ? 2 * n : n) + 2;
        g->room_in_edges = g->in_off ? (m_in ? m_in : 1) : 0;
    }
    return PSI_OK;
nomem:
    psi_graph_free(g);
    return psi_diag_nomem(d, "building a dependency graph");
}

psi_status psi_graph_build(psi_graph *g, uint32_t n_vertices, const psi_edge_view *v,
                           unsigned flags, psi_diag *d)
{
    return graph_build(g, n_vertices, v, flags, false, 0, d);
}

psi_status psi_graph_rebuild(psi_graph *g, uint32_t n_vertices, const psi_edge_view *v,
                             unsigned flags, uint64_t edge_room, psi_diag *d)
{
    return graph_build(g, n_vertices, v, flags, true, edge_room, d);
}

/* The row part p gives edge e (UINT64_MAX: none of p's). */
static uint64_t part_row(const part *p, const psi_edge *e)
{
    if (p->kind != 2 && (int)edge_anti(e) != p->kind)
        return UINT64_MAX;
    return p->row0 + (p->by_target ? e->to : e->from);
}

/* One array's rows (as build_rows made them, m entries) extended by edges
 * [from, v->n): each row's old entries move right by the new entries of
 * the rows before it (from the last row back, so nothing is overwritten
 * before it moves), then the new edges fill the rows' ends in edge
 * order. add: scratch of rows entries. */
static bool extend_rows(uint64_t *off, uint32_t **other, uint32_t **eid, uint64_t *m, size_t rows,
                        const psi_edge_view *v, uint64_t from, const part *parts, int n_parts,
                        const rows_room *room, uint64_t *add)
{
    memset(add, 0, rows * sizeof *add);
    uint64_t n_new = 0;
    for (uint64_t i = from; i < v->n; i++) {
        if (v->active && !v->active[i])
            continue;
        const psi_edge *e = psi_edge_view_at(v, i);
        for (int k = 0; k < n_parts; k++) {
            uint64_t r = part_row(&parts[k], e);
            if (r != UINT64_MAX) {
                add[r]++;
                n_new++;
            }
        }
    }
    if (!n_new)
        return true;
    uint64_t need = *m + n_new;
    if (need > *room->edges) {
        uint64_t want = room->edge_room > need ? room->edge_room : need;
        if (want > SIZE_MAX / sizeof **other)
            return false;
        uint32_t *o = realloc(*other, (size_t)want * sizeof *o);
        if (o)
            *other = o;
        uint32_t *id = o ? realloc(*eid, (size_t)want * sizeof *id) : NULL;
        if (id)
            *eid = id;
        if (!o || !id)
            return false;
        *room->edges = want;
    }
    uint32_t *ot = *other, *id = *eid;
    /* off[r] (r <= rows) is row r's start and off[rows + 1] the total
     * (build_rows); row r moves right by the new entries of the rows
     * before it, shift(r). */
    uint64_t shift = n_new, old_next = off[rows];
    off[rows] = off[rows + 1] = *m + n_new;
    for (size_t r = rows; r-- > 0;) {
        uint64_t b = off[r], e = old_next;
        shift -= add[r];
        for (uint64_t j = e; shift && j-- > b;) {
            ot[j + shift] = ot[j];
            id[j + shift] = id[j];
        }
        add[r] = e + shift; /* where row r's new entries go */
        old_next = b;
        off[r] = b + shift;
    }
    assert(shift == 0);
    for (uint64_t i = from; i < v->n; i++) {
        if (v->active && !v->active[i])
            continue;
        const psi_edge *e = psi_edge_view_at(v, i);
        for (int k = 0; k < n_parts; k++) {
            uint64_t r = part_row(&parts[k], e);
            if (r == UINT64_MAX)
                continue;
            uint64_t at = add[r]++;
            ot[at] = parts[k].by_target ? e->from : e->to;
            id[at] = (uint32_t)i;
        }
    }
    *m += n_new;
    return true;
}

psi_status psi_graph_extend(psi_graph *g, const psi_edge_view *v, uint64_t from, uint64_t edge_room,
                            psi_diag *d)
{
    assert(from <= v->n);
    psi_status fit = edge_ids_fit(g, v, d);
    if (fit != PSI_OK)
        return fit;
    unsigned flags = g->flags;
    bool si = is_si(g);
    uint32_t n_vertices = g->n_vertices;
    uint64_t n = n_vertices;
    graph_parts gp = parts_of(n_vertices, si); /* those graph_build used */
    rows_room ro = {&g->room_off, &g->room_edges, edge_room},
              ri = {&g->room_in_off, &g->room_in_edges, edge_room};
    size_t rows = si ? 2 * (size_t)n : (size_t)n;
    uint64_t *add = malloc((rows ? rows : 1) * sizeof *add);
    bool ok = add != NULL;
    if (ok && g->off)
        ok = extend_rows(g->off, &g->dst, &g->eid, &g->n_edges, rows, v, from, gp.out, gp.n_parts,
                         &ro, add);
    if (ok && g->in_off) {
        bool anti_only = (flags & PSI_GRAPH_IN_ANTI) && !(flags & PSI_GRAPH_IN);
        uint64_t m_in = g->in_off[anti_only ? n : rows];
        ok = anti_only ? extend_rows(g->in_off, &g->in_src, &g->in_eid, &m_in, (size_t)n, v, from,
                                     &gp.in_anti, 1, &ri, add)
                       : extend_rows(g->in_off, &g->in_src, &g->in_eid, &m_in, rows, v, from, gp.in,
                                     gp.n_parts, &ri, add);
        if (flags & PSI_GRAPH_IN_ONLY)
            g->n_edges = m_in;
    }
    free(add);
    if (ok)
        return PSI_OK;
    psi_graph_free(g);
    return psi_diag_nomem(d, "building a dependency graph");
}

void psi_graph_free(psi_graph *g)
{
    free(g->off);
    free(g->dst);
    free(g->eid);
    free(g->in_off);
    free(g->in_src);
    free(g->in_eid);
    memset(g, 0, sizeof *g);
}

size_t psi_graph_bytes(const psi_graph *g)
{
    if (!g->off && !g->in_off)
        return 0;
    size_t rows = is_si(g) ? 2 * (size_t)g->n_vertices : g->n_vertices;
    size_t b = !g->off ? 0
                       : (rows + 2) * sizeof *g->off +
                             (size_t)g->n_edges * (sizeof *g->dst + sizeof *g->eid);
    if (g->in_off) {
        size_t in_rows = is_si(g) && (g->flags & PSI_GRAPH_IN) ? rows : g->n_vertices;
        b += (in_rows + 2) * sizeof *g->in_off +
             (size_t)g->in_off[in_rows] * (sizeof *g->in_src + sizeof *g->in_eid);
    }
    return b;
}

void psi_graph_succ_begin(psi_graph_succ *it, const psi_graph *g, uint32_t x)
{
    assert(x < g->n_nodes);
    *it = (psi_graph_succ){.g = g};
    if (!is_si(g)) {
        psi_graph_out(g, x, false, &it->i, &it->i_end);
        return;
    }
    /* u0 and u1 both take u's DEP edges; only u0 takes its RW edges. */
    psi_graph_out(g, x / 2, false, &it->i, &it->i_end);
    if (!(x & 1u))
        psi_graph_out(g, x / 2, true, &it->j, &it->j_end);
}

bool psi_graph_succ_next(psi_graph_succ *it, uint32_t *y, uint32_t *eid)
{
    const psi_graph *g = it->g;
    bool dep = it->i < it->i_end, anti = it->j < it->j_end;
    if (dep && anti && (g->flags & PSI_GRAPH_EDGE_ORDER))
        dep = g->eid[it->i] < g->eid[it->j];
    if (dep) {
        *y = is_si(g) ? 2 * g->dst[it->i] : g->dst[it->i];
        *eid = g->eid[it->i++];
        return true;
    }
    if (anti) {
        *y = 2 * g->dst[it->j] + 1;
        *eid = g->eid[it->j++];
        return true;
    }
    return false;
}

psi_status psi_graph_topo(const psi_graph *g, bool free_edge, uint32_t *order, uint32_t *n_ordered,
                          psi_diag *d)
{
    return psi_graph_topo_scratch(g, free_edge, order, n_ordered, NULL, d);
}

psi_status psi_graph_topo_scratch(const psi_graph *g, bool free_edge, uint32_t *order,
                                  uint32_t *n_ordered, uint32_t *scratch, psi_diag *d)
{
    uint32_t n = g->n_nodes;
    free_edge = free_edge && is_si(g);
    uint32_t *indeg = scratch;
    if (indeg)
        memset(indeg, 0, n * sizeof *indeg);
    else if (!(indeg = calloc(n ? n : 1, sizeof *indeg)))
        return psi_diag_nomem(d, "ordering a dependency graph");
    uint32_t nv = g->n_vertices;
    for (uint32_t u = 0; u < nv; u++) {
        uint64_t b, e;
        psi_graph_out(g, u, false, &b, &e);
        /* SI: a DEP edge enters v0 from u1, and from u0 too unless the free
         * edge stands in for it. */
        uint32_t dep_in = is_si(g) && !free_edge ? 2 : 1;
        for (uint64_t i = b; i < e; i++)
            indeg[is_si(g) ? 2 * g->dst[i] : g->dst[i]] += dep_in;
        if (!is_si(g))
            continue;
        if (free_edge)
            indeg[2 * u + 1]++;
        psi_graph_out(g, u, true, &b, &e);
        for (uint64_t i = b; i < e; i++)
            indeg[2 * g->dst[i] + 1]++;
    }
    uint32_t head = 0, tail = 0;
    for (uint32_t x = 0; x < n; x++)
        if (indeg[x] == 0)
            order[tail++] = x;
    while (head < tail) {
        uint32_t x = order[head++];
        if (free_edge) {
            /* u0: the free edge, then RW; u1: the DEP edges. */
            uint32_t u = x / 2;
            uint64_t b, e;
            if (!(x & 1u)) {
                if (--indeg[x + 1] == 0)
                    order[tail++] = x + 1;
                psi_graph_out(g, u, true, &b, &e);
                for (uint64_t i = b; i < e; i++)
                    if (--indeg[2 * g->dst[i] + 1] == 0)
                        order[tail++] = 2 * g->dst[i] + 1;
            } else {
                psi_graph_out(g, u, false, &b, &e);
                for (uint64_t i = b; i < e; i++)
                    if (--indeg[2 * g->dst[i]] == 0)
                        order[tail++] = 2 * g->dst[i];
            }
            continue;
        }
        psi_graph_succ it;
        uint32_t y, eid;
        psi_graph_succ_begin(&it, g, x);
        while (psi_graph_succ_next(&it, &y, &eid))
            if (--indeg[y] == 0)
                order[tail++] = y;
    }
    if (!scratch)
        free(indeg);
    *n_ordered = tail;
    return PSI_OK;
}

psi_status psi_graph_cycle_node(const psi_graph *g, const uint32_t *order, uint32_t n_ordered,
                                uint32_t *node, psi_diag *d)
{
    uint32_t n = g->n_nodes;
    uint8_t *color = calloc(n ? n : 1, 1); /* 0 white, 1 on the stack, 2 done or ordered */
    uint32_t *stack = malloc((n ? n : 1) * sizeof *stack);
    psi_graph_succ *its = malloc((n ? n : 1) * sizeof *its);
    if (!color || !stack || !its) {
        free(color);
        free(stack);
        free(its);
        return psi_diag_nomem(d, "finding a cycle");
    }
    /* Ordered nodes reach no cycle, so the search skips them. */
    for (uint32_t i = 0; i < n_ordered; i++)
        color[order[i]] = 2;
    *node = PSI_NO_NODE;
    for (uint32_t s = 0; s < n && *node == PSI_NO_NODE; s++) {
        if (color[s])
            continue;
        uint32_t sp = 0;
        stack[sp] = s;
        psi_graph_succ_begin(&its[sp++], g, s);
        color[s] = 1;
        while (sp && *node == PSI_NO_NODE) {
            uint32_t u = stack[sp - 1], v, eid;
            if (!psi_graph_succ_next(&its[sp - 1], &v, &eid)) {
                color[u] = 2;
                sp--;
                continue;
            }
            if (color[v] == 1) {
                *node = v;
            } else if (color[v] == 0) {
                color[v] = 1;
                stack[sp] = v;
                psi_graph_succ_begin(&its[sp++], g, v);
            }
        }
    }
    free(color);
    free(stack);
    free(its);
    return PSI_OK;
}

/* The first unordered predecessor of node x: through in-edge *eid from
 * node *p. Every unordered node has one (else Kahn would have ordered it). */
static bool back_step(const psi_graph *g, const uint8_t *ordered, uint32_t x, uint32_t *p,
                      uint32_t *eid)
{
    uint64_t b, e;
    if (!is_si(g)) {
        psi_graph_in(g, x, false, &b, &e);
        for (uint64_t i = b; i < e; i++) {
            if (!ordered[g->in_src[i]]) {
                *p = g->in_src[i];
                *eid = g->in_eid[i];
                return true;
            }
        }
        return false;
    }
    uint32_t v = x / 2;
    if (x & 1u) {
        psi_graph_in(g, v, true, &b, &e); /* v1 is entered by RW from u0 */
        for (uint64_t i = b; i < e; i++) {
            if (!ordered[2 * g->in_src[i]]) {
                *p = 2 * g->in_src[i];
                *eid = g->in_eid[i];
                return true;
            }
        }
        return false;
    }
    psi_graph_in(g, v, false, &b, &e); /* v0 is entered by DEP from u0 and u1 */
    for (uint64_t i = b; i < e; i++) {
        for (uint32_t layer = 0; layer < 2; layer++) {
            if (!ordered[2 * g->in_src[i] + layer]) {
                *p = 2 * g->in_src[i] + layer;
                *eid = g->in_eid[i];
                return true;
            }
        }
    }
    return false;
}

psi_status psi_graph_cycle_back(const psi_graph *g, const uint32_t *order, uint32_t n_ordered,
                                uint32_t *cyc, uint32_t *len, psi_diag *d)
{
    assert(g->flags & PSI_GRAPH_IN);
    uint32_t n = g->n_nodes;
    *len = 0;
    if (n_ordered >= n)
        return PSI_OK;
    uint8_t *ordered = calloc(n, 1), *mark = calloc(n, 1);
    uint32_t *via_node = malloc(n * sizeof *via_node), *via_edge = malloc(n * sizeof *via_edge);
    if (!ordered || !mark || !via_node || !via_edge) {
        free(ordered);
        free(mark);
        free(via_node);
        free(via_edge);
        return psi_diag_nomem(d, "finding a cycle");
    }
    for (uint32_t i = 0; i < n_ordered; i++)
        ordered[order[i]] = 1;
    uint32_t x = 0;
    while (ordered[x])
        x++;
    /* Walk backwards until a node repeats: the walk from there is a loop. */
    while (!mark[x]) {
        mark[x] = 1;
        bool found = back_step(g, ordered, x, &via_node[x], &via_edge[x]);
        assert(found);
        (void)found;
        x = via_node[x];
    }
    /* x is on the cycle; collect it backwards, then reverse. */
    uint32_t m = 0, u = x;
    do {
        cyc[m++] = via_edge[u];
        u = via_node[u];
    } while (u != x && m < n);
    for (uint32_t i = 0; i < m / 2; i++) {
        uint32_t t = cyc[i];
        cyc[i] = cyc[m - 1 - i];
        cyc[m - 1 - i] = t;
    }
    *len = m;
    free(ordered);
    free(mark);
    free(via_node);
    free(via_edge);
    return PSI_OK;
}

psi_status psi_graph_bfs_init(psi_graph_bfs *w, uint32_t n_nodes, psi_diag *d)
{
    size_t n = n_nodes ? n_nodes : 1;
    w->n = n_nodes;
    w->pnode = malloc(n * sizeof *w->pnode);
    w->pedge = malloc(n * sizeof *w->pedge);
    w->queue = malloc(n * sizeof *w->queue);
    w->path = malloc(n * sizeof *w->path);
    w->seen = malloc(n);
    if (w->pnode && w->pedge && w->queue && w->path && w->seen)
        return PSI_OK;
    psi_graph_bfs_free(w);
    return psi_diag_nomem(d, "searching a path");
}

void psi_graph_bfs_free(psi_graph_bfs *w)
{
    free(w->pnode);
    free(w->pedge);
    free(w->queue);
    free(w->path);
    free(w->seen);
    memset(w, 0, sizeof *w);
}

uint32_t psi_graph_path(const psi_graph *g, psi_graph_bfs *w, uint32_t from, uint32_t to_a,
                        uint32_t to_b, uint32_t *path)
{
    assert(g->n_nodes <= w->n && from < g->n_nodes);
    memset(w->seen, 0, g->n_nodes);
    /* A target counts when an edge reaches it, so from == to_a is a cycle;
     * FIFO order makes the first target reached a nearest one. */
    uint32_t head = 0, tail = 0, hit_edge = 0, hit_pred = 0;
    bool found = false;
    w->queue[tail++] = from;
    w->seen[from] = 1;
    while (head < tail && !found) {
        uint32_t u = w->queue[head++], v, eid;
        psi_graph_succ it;
        psi_graph_succ_begin(&it, g, u);
        while (psi_graph_succ_next(&it, &v, &eid)) {
            if (v == to_a || v == to_b) {
                found = true;
                hit_edge = eid;
                hit_pred = u;
                break;
            }
            if (!w->seen[v]) {
                w->seen[v] = 1;
                w->pedge[v] = eid;
                w->pnode[v] = u;
                w->queue[tail++] = v;
            }
        }
    }
    if (!found)
        return 0;
    uint32_t n = 1;
    for (uint32_t u = hit_pred; u != from; u = w->pnode[u])
        n++;
    path[n - 1] = hit_edge;
    uint32_t i = n - 1;
    for (uint32_t u = hit_pred; u != from; u = w->pnode[u])
        path[--i] = w->pedge[u];
    return n;
}

uint32_t psi_graph_closing_path(const psi_graph *g, psi_graph_bfs *w, uint32_t u, uint32_t v,
                                bool anti, uint32_t *path)
{
    if (!is_si(g))
        return psi_graph_path(g, w, v, u, PSI_NO_NODE, path);
    return psi_graph_path(g, w, 2 * v + anti, 2 * u, anti ? PSI_NO_NODE : 2 * u + 1, path);
}

uint32_t psi_graph_shortest_cycle(const psi_graph *g, psi_graph_bfs *w, const psi_edge_view *v,
                                  const uint8_t *through, uint32_t *out)
{
    uint32_t best = 0;
    for (uint64_t c = 0; c < v->n; c++) {
        if ((v->active && !v->active[c]) || (through && !through[c]))
            continue;
        const psi_edge *e = psi_edge_view_at(v, c);
        /* The first path lands in place; later ones in scratch, copied
         * only when shorter. */
        uint32_t *slot = best ? w->path : out + 1;
        uint32_t m = psi_graph_closing_path(g, w, e->from, e->to, edge_anti(e), slot);
        if (!m || (best && m + 1 >= best))
            continue;
        if (slot != out + 1)
            memcpy(out + 1, slot, m * sizeof *out);
        out[0] = (uint32_t)c;
        best = m + 1;
    }
    return best;
}
