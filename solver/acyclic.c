/* The acyclicity theory: keeps the graph of active edges free of forbidden
 * cycles while the SAT solver assigns edge labels.
 *
 * Representation. User edges (what the caller added) map to one or two
 * internal edges over internal nodes: the user graph itself in SER mode, the
 * doubled graph in SI mode (see acyclic.h). The theory only ever checks plain
 * acyclicity of the internal graph.
 *
 * Incremental order. Every internal node has a position ord[] such that each
 * active edge goes from a lower to a higher position. Activating x->y with
 * ord[x] < ord[y] costs nothing. Otherwise (Pearce-Kelly) we search forward
 * from y among nodes positioned at most ord[x]; reaching x means a cycle.
 * If there is none, a backward search from x among nodes positioned at least
 * ord[y] finds the other side, and the positions of both sides are permuted
 * so the backward side comes first. Deactivation on backtrack keeps the
 * order valid, so backtracking only pops edges off per-node lists, which is
 * LIFO because the trail is.
 *
 * Short cycles. The forward search is a 0-1 BFS in which an edge costs 1 if
 * it contributes literals and 0 if it is known (or active since the root),
 * so a cycle found is one with the fewest labelled edges through the new
 * edge, and the conflict clause is as short as this edge allows.
 *
 * Known edges are ordered once by a static topological sort (Kahn) at the
 * first solve; a cycle among them is reported as UNSAT at the root.
 *
 * Theory propagation. After a reorder, both search sides are known: forward
 * side F (reached from y) and backward side B (reaching x). Any inactive
 * edge from F to B would now close a cycle, so its last unassigned label is
 * implied false. Its reason is computed only if asked: a path b->a among the
 * edges activated before the implication (activation stamps say which). */
#include "acyclic.h"
#include "theory.h"
#include "vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct adj {
    uint32_t node, edge;
} adj;

typedef struct adjvec {
    adj *a;
    uint32_t n, cap;
} adjvec;

typedef struct uedge {
    uint32_t from, to;
    int lit[2];  /* labels, 0 = none */
    uint32_t ie; /* first internal edge */
    uint8_t nie, need, cnt, kind;
    uint8_t active; /* all its internal edges are in the graph */
    uint8_t root;   /* activated at level 0: contributes no literal */
    uint8_t dead;   /* contradictory labels: never active */
} uedge;

typedef struct act_entry {
    uint32_t ie, level;
} act_entry;

typedef struct asg_entry {
    int lit;
    uint32_t level;
} asg_entry;

struct psi_acyc {
    psi_sat *s;
    psi_acyc_mode mode;
    uint32_t nodes, N; /* user nodes, internal nodes */
    bool propagate;

    uedge *ue;
    size_t ue_n, ue_cap;

    /* Internal edges. */
    uint32_t *ie_from, *ie_to, *ie_user, *ie_act; /* ie_act: activation index + 1 */
    size_t ie_n, ie_cap;

    adjvec *out, *in; /* active edges per internal node */
    uint32_t *ord;
    bool ordered;      /* static sort done */
    bool static_cycle; /* known edges are cyclic */
    size_t ue_done;    /* user edges already handled by prepare */

    /* Occurrences of literals in labels (CSR over literal index), and
     * labelled internal edges by source node (propagation candidates). */
    uint32_t *occ_start, *occ;
    size_t occ_lits;
    uint32_t *cand_start, *cand;
    bool tables_dirty;

    /* Per variable (index var-1). */
    int8_t *val;
    uint32_t *prop_edge, *prop_stamp, *lit_mark;
    size_t var_cap;
    uint32_t lit_epoch;

    act_entry *act;
    size_t act_n, act_cap;
    asg_entry *asg;
    size_t asg_n, asg_cap;

    /* Search scratch (per internal node). */
    uint32_t *fmark, *bmark, *dist, *parent;
    uint32_t epoch;
    u32vec fwd, bwd, cur, next, pool;
    uint64_t *sortbuf;
    size_t sortbuf_cap;

    u32vec cycle, known_cycle;
    psi_acyc_stats st;
};

/* --- small helpers ------------------------------------------------------ */

static size_t lit_index(int lit)
{
    return lit > 0 ? 2 * (size_t)(lit - 1) : 2 * (size_t)(-lit - 1) + 1;
}

static size_t lit_var0(int lit)
{
    return (size_t)(lit > 0 ? lit : -lit) - 1;
}

static bool adj_grow(adjvec *v)
{
    size_t cap = v->cap;
    if (cap >= UINT32_MAX / 2 || !psi_grow_array((void **)&v->a, &cap, cap + 1, sizeof *v->a))
        return false;
    v->cap = (uint32_t)cap;
    return true;
}

static inline bool adj_push(adjvec *v, uint32_t node, uint32_t edge)
{
    if (v->n == v->cap && !adj_grow(v))
        return false;
    v->a[v->n++] = (adj){node, edge};
    return true;
}

static bool ensure_vars(psi_acyc *g, size_t nvars)
{
    if (nvars <= g->var_cap)
        return true;
    size_t cap = g->var_cap ? g->var_cap : 64;
    while (cap < nvars)
        cap *= 2;
    void *p;
#define GROW(field)                                                                                \
    p = realloc(g->field, cap * sizeof *g->field);                                                 \
    if (!p)                                                                                        \
        return false;                                                                              \
    g->field = p;                                                                                  \
    memset(g->field + g->var_cap, 0, (cap - g->var_cap) * sizeof *g->field);
    GROW(val)
    GROW(prop_edge)
    GROW(prop_stamp)
    GROW(lit_mark)
#undef GROW
    g->var_cap = cap;
    return true;
}

/* Does internal edge e add literals to a clause? */
static bool labelled(const psi_acyc *g, uint32_t e)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    return u->need && !u->root;
}

/* Appends the negated labels of internal edge e to clause, once per literal. */
static bool add_labels(psi_acyc *g, uint32_t e, psi_lits *clause)
{
    const uedge *u = &g->ue[g->ie_user[e]];
    if (!u->need || u->root)
        return true;
    for (int k = 0; k < 2; k++) {
        int l = u->lit[k];
        if (!l)
            continue;
        size_t v = lit_var0(l);
        if (g->lit_mark[v] == g->lit_epoch)
            continue;
        g->lit_mark[v] = g->lit_epoch;
        if (!psi_lits_push(clause, -l))
            return false;
    }
    return true;
}

static void new_lit_epoch(psi_acyc *g)
{
    if (++g->lit_epoch == 0) {
        memset(g->lit_mark, 0, g->var_cap * sizeof *g->lit_mark);
        g->lit_epoch = 1;
    }
}

static void new_epoch(psi_acyc *g)
{
    if (++g->epoch == 0) {
        memset(g->fmark, 0, g->N * sizeof *g->fmark);
        memset(g->bmark, 0, g->N * sizeof *g->bmark);
        g->epoch = 1;
    }
}

/* --- construction --------------------------------------------------------- */

static int cb_prepare(void *ctx, psi_theory_out *out);
static int cb_notify(void *ctx, int lit, unsigned level, psi_theory_out *out);
static int cb_explain(void *ctx, int lit, psi_theory_out *out);
static void cb_backtrack(void *ctx, unsigned level);

psi_acyc *psi_acyc_new(psi_sat *s, uint32_t nodes, psi_acyc_mode mode)
{
    if (nodes > (UINT32_MAX - 16) / 2)
        return NULL;
    psi_acyc *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->s = s;
    g->mode = mode;
    g->nodes = nodes;
    g->N = mode == PSI_ACYC_SI ? 2 * nodes : nodes;
    g->propagate = true;
    size_t N = g->N ? g->N : 1;
    g->out = calloc(N, sizeof *g->out);
    g->in = calloc(N, sizeof *g->in);
    g->ord = calloc(N, sizeof *g->ord);
    g->fmark = calloc(N, sizeof *g->fmark);
    g->bmark = calloc(N, sizeof *g->bmark);
    g->dist = calloc(N, sizeof *g->dist);
    g->parent = calloc(N, sizeof *g->parent);
    if (!g->out || !g->in || !g->ord || !g->fmark || !g->bmark || !g->dist || !g->parent) {
        psi_acyc_free(g);
        return NULL;
    }
    psi_theory t = {g, cb_prepare, cb_notify, cb_explain, cb_backtrack};
    psi_sat_set_theory(s, &t);
    return g;
}

void psi_acyc_free(psi_acyc *g)
{
    if (!g)
        return;
    for (uint32_t v = 0; g->out && v < g->N; v++)
        free(g->out[v].a);
    for (uint32_t v = 0; g->in && v < g->N; v++)
        free(g->in[v].a);
    void *ptrs[] = {g->ue,         g->ie_from, g->ie_to,   g->ie_user,   g->ie_act,
                    g->out,        g->in,      g->ord,     g->occ_start, g->occ,
                    g->cand_start, g->cand,    g->val,     g->prop_edge, g->prop_stamp,
                    g->lit_mark,   g->act,     g->asg,     g->fmark,     g->bmark,
                    g->dist,       g->parent,  g->fwd.a,   g->bwd.a,     g->cur.a,
                    g->next.a,     g->pool.a,  g->sortbuf, g->cycle.a,   g->known_cycle.a};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        free(ptrs[i]);
    free(g);
}

static bool push_internal(psi_acyc *g, uint32_t from, uint32_t to, uint32_t user)
{
    if (g->ie_n == g->ie_cap) {
        size_t cap = g->ie_cap;
        if (g->ie_n >= UINT32_MAX - 16)
            return false;
        size_t c2 = cap, c3 = cap, c4 = cap;
        if (!psi_grow_array((void **)&g->ie_from, &cap, g->ie_n + 1, sizeof(uint32_t)) ||
            !psi_grow_array((void **)&g->ie_to, &c2, g->ie_n + 1, sizeof(uint32_t)) ||
            !psi_grow_array((void **)&g->ie_user, &c3, g->ie_n + 1, sizeof(uint32_t)) ||
            !psi_grow_array((void **)&g->ie_act, &c4, g->ie_n + 1, sizeof(uint32_t)))
            return false;
        if (c2 != cap || c3 != cap || c4 != cap)
            return false;
        g->ie_cap = cap;
    }
    g->ie_from[g->ie_n] = from;
    g->ie_to[g->ie_n] = to;
    g->ie_user[g->ie_n] = user;
    g->ie_act[g->ie_n] = 0;
    g->ie_n++;
    return true;
}

int64_t psi_acyc_add_edge(psi_acyc *g, uint32_t from, uint32_t to, psi_edge_kind kind, int lit_a,
                          int lit_b)
{
    if (from >= g->nodes || to >= g->nodes || (kind != PSI_EDGE_DEP && kind != PSI_EDGE_ANTI))
        return PSI_SAT_EINVAL;
    if (lit_a == INT32_MIN || lit_b == INT32_MIN)
        return PSI_SAT_EINVAL;
    if (!lit_a) {
        lit_a = lit_b;
        lit_b = 0;
    }
    if (lit_b == lit_a)
        lit_b = 0;
    if (g->ue_n >= UINT32_MAX - 16)
        return PSI_SAT_ENOMEM;
    if (!psi_grow_array((void **)&g->ue, &g->ue_cap, g->ue_n + 1, sizeof *g->ue))
        return PSI_SAT_ENOMEM;
    for (int k = 0; k < 2; k++) {
        int l = k ? lit_b : lit_a;
        if (!l)
            continue;
        int rc = psi_sat_observe(g->s, l > 0 ? l : -l);
        if (rc)
            return rc;
        if (!ensure_vars(g, lit_var0(l) + 1))
            return PSI_SAT_ENOMEM;
    }
    uint32_t id = (uint32_t)g->ue_n;
    uedge u = {0};
    u.from = from;
    u.to = to;
    u.kind = (uint8_t)kind;
    u.lit[0] = lit_a;
    u.lit[1] = lit_b;
    u.need = (uint8_t)((lit_a != 0) + (lit_b != 0));
    u.dead = lit_b && lit_b == -lit_a;
    u.ie = (uint32_t)g->ie_n;
    /* Labels already true at the root were notified before this edge. */
    for (int k = 0; k < u.need; k++)
        if (g->val[lit_var0(u.lit[k])] == (u.lit[k] > 0 ? 1 : -1))
            u.cnt++;
    bool ok = true;
    if (g->mode == PSI_ACYC_SER) {
        ok = push_internal(g, from, to, id);
        u.nie = 1;
    } else if (kind == PSI_EDGE_DEP) {
        ok = push_internal(g, 2 * from, 2 * to, id) && push_internal(g, 2 * from + 1, 2 * to, id);
        u.nie = 2;
    } else {
        ok = push_internal(g, 2 * from, 2 * to + 1, id);
        u.nie = 1;
    }
    if (!ok) {
        g->ie_n = u.ie;
        return PSI_SAT_ENOMEM;
    }
    g->ue[g->ue_n++] = u;
    g->tables_dirty = true;
    return id;
}

void psi_acyc_set_propagation(psi_acyc *g, bool on)
{
    g->propagate = on;
}

size_t psi_acyc_num_edges(const psi_acyc *g)
{
    return g->ue_n;
}

void psi_acyc_get_stats(const psi_acyc *g, psi_acyc_stats *out)
{
    *out = g->st;
}

const uint32_t *psi_acyc_conflict_cycle(const psi_acyc *g, size_t *n)
{
    *n = g->cycle.n;
    return g->cycle.a;
}

bool psi_acyc_edge_active(const psi_acyc *g, uint32_t e)
{
    if (e >= g->ue_n)
        return false;
    const uedge *u = &g->ue[e];
    if (u->dead)
        return false;
    for (int k = 0; k < u->need; k++)
        if (psi_sat_value(g->s, u->lit[k]) <= 0)
            return false;
    return true;
}

/* Rebuilds the literal occurrence lists and the candidate lists. */
static bool build_tables(psi_acyc *g)
{
    if (!g->tables_dirty)
        return true;
    size_t nl = 2 * g->var_cap;
    free(g->occ_start);
    free(g->occ);
    free(g->cand_start);
    free(g->cand);
    g->occ = g->cand = NULL;
    g->occ_start = calloc(nl + 1, sizeof *g->occ_start);
    g->cand_start = calloc((size_t)g->N + 1, sizeof *g->cand_start);
    if (!g->occ_start || !g->cand_start)
        return false;
    size_t nocc = 0, ncand = 0;
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->dead || !u->need)
            continue;
        for (int k = 0; k < u->need; k++)
            g->occ_start[lit_index(u->lit[k]) + 1]++, nocc++;
        for (uint32_t j = 0; j < u->nie; j++)
            g->cand_start[g->ie_from[u->ie + j] + 1]++, ncand++;
    }
    for (size_t i = 0; i < nl; i++)
        g->occ_start[i + 1] += g->occ_start[i];
    for (size_t i = 0; i < g->N; i++)
        g->cand_start[i + 1] += g->cand_start[i];
    g->occ = malloc((nocc ? nocc : 1) * sizeof *g->occ);
    g->cand = malloc((ncand ? ncand : 1) * sizeof *g->cand);
    if (!g->occ || !g->cand)
        return false;
    /* Fill using the start arrays as cursors, then shift them back. */
    for (size_t i = 0; i < g->ue_n; i++) {
        const uedge *u = &g->ue[i];
        if (u->dead || !u->need)
            continue;
        for (int k = 0; k < u->need; k++)
            g->occ[g->occ_start[lit_index(u->lit[k])]++] = (uint32_t)i;
        for (uint32_t j = 0; j < u->nie; j++)
            g->cand[g->cand_start[g->ie_from[u->ie + j]]++] = u->ie + j;
    }
    for (size_t i = nl; i > 0; i--)
        g->occ_start[i] = g->occ_start[i - 1];
    g->occ_start[0] = 0;
    for (size_t i = g->N; i > 0; i--)
        g->cand_start[i] = g->cand_start[i - 1];
    g->cand_start[0] = 0;
    g->occ_lits = nl;
    g->tables_dirty = false;
    return true;
}

/* --- static order of the known graph ------------------------------------ */

static void heap_push(uint32_t *h, uint32_t *n, uint32_t v)
{
    uint32_t i = (*n)++;
    while (i > 0 && h[(i - 1) / 2] > v) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n)
{
    uint32_t top = h[0], v = h[--*n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = v;
    return top;
}

/* Kahn's algorithm over the known internal edges only, on private CSR
 * arrays (so it can run at any time, whatever is active). Writes positions
 * to ord if given; on a cycle fills g->known_cycle with one (walking back
 * from a node Kahn could not place until a node repeats). Returns 1 if
 * cyclic, 0 if not, -1 on ENOMEM. */
static int known_sort(psi_acyc *g, uint32_t *ord)
{
    size_t N = g->N ? g->N : 1, m = 0;
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            m += g->ue[i].nie;
    uint32_t *ostart = calloc(N + 1, sizeof *ostart), *istart = calloc(N + 1, sizeof *istart);
    uint32_t *oe = malloc((m ? m : 1) * sizeof *oe), *ie = malloc((m ? m : 1) * sizeof *ie);
    uint32_t *indeg = calloc(N, sizeof *indeg), *queue = malloc(N * sizeof *queue);
    int res = -1;
    if (!ostart || !istart || !oe || !ie || !indeg || !queue)
        goto out;
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            for (uint32_t j = 0; j < g->ue[i].nie; j++) {
                uint32_t e = g->ue[i].ie + j;
                ostart[g->ie_from[e] + 1]++;
                istart[g->ie_to[e] + 1]++;
            }
    for (size_t v = 0; v < N; v++) {
        ostart[v + 1] += ostart[v];
        istart[v + 1] += istart[v];
    }
    for (size_t i = 0; i < g->ue_n; i++)
        if (!g->ue[i].need && !g->ue[i].dead)
            for (uint32_t j = 0; j < g->ue[i].nie; j++) {
                uint32_t e = g->ue[i].ie + j;
                oe[ostart[g->ie_from[e]]++] = e;
                ie[istart[g->ie_to[e]]++] = e;
            }
    for (size_t v = N; v > 0; v--) {
        ostart[v] = ostart[v - 1];
        istart[v] = istart[v - 1];
    }
    ostart[0] = istart[0] = 0;
    /* Ready nodes leave in order of their index (a min-heap), which keeps
     * v0 and v1 of a user node together and follows the caller's numbering
     * (usually close to time order), so later insertions rarely reorder. */
    uint32_t tail = 0, hn = 0;
    for (uint32_t v = 0; v < g->N; v++) {
        indeg[v] = istart[v + 1] - istart[v];
        if (!indeg[v])
            heap_push(queue, &hn, v);
    }
    while (hn) {
        uint32_t v = heap_pop(queue, &hn);
        if (ord)
            ord[v] = tail;
        tail++;
        for (uint32_t k = ostart[v]; k < ostart[v + 1]; k++)
            if (--indeg[g->ie_to[oe[k]]] == 0)
                heap_push(queue, &hn, g->ie_to[oe[k]]);
    }
    g->known_cycle.n = 0;
    res = tail < g->N;
    if (!res)
        goto out;
    uint32_t pos = tail, start = UINT32_MAX;
    for (uint32_t v = 0; v < g->N; v++)
        if (indeg[v]) {
            if (ord)
                ord[v] = pos++;
            if (start == UINT32_MAX)
                start = v;
        }
    /* Every unplaced node has an in-edge from another unplaced node. */
    new_epoch(g);
    g->fwd.n = 0;
    uint32_t v = start, step = 0;
    while (g->fmark[v] != g->epoch) {
        g->fmark[v] = g->epoch;
        g->dist[v] = step++;
        uint32_t pick = UINT32_MAX;
        for (uint32_t k = istart[v]; k < istart[v + 1] && pick == UINT32_MAX; k++)
            if (indeg[g->ie_from[ie[k]]])
                pick = ie[k];
        assert(pick != UINT32_MAX);
        if (pick == UINT32_MAX || !psi_u32_push(&g->fwd, pick)) {
            res = -1;
            goto out;
        }
        v = g->ie_from[pick];
    }
    /* The walk's edges from index dist[v] on form the cycle, backwards. */
    for (size_t i = g->fwd.n; i-- > g->dist[v];)
        if (!psi_u32_push(&g->known_cycle, g->ie_user[g->fwd.a[i]])) {
            res = -1;
            goto out;
        }
out:
    free(ostart);
    free(istart);
    free(oe);
    free(ie);
    free(indeg);
    free(queue);
    return res;
}

/* Puts every known internal edge into the graph and computes the initial
 * order by one topological sort. Returns false on ENOMEM. */
static bool static_setup(psi_acyc *g)
{
    if (g->ordered)
        return true;
    int cyc = known_sort(g, g->ord);
    if (cyc < 0)
        return false;
    g->static_cycle = cyc == 1;
    for (size_t i = 0; i < g->ue_n; i++) {
        uedge *u = &g->ue[i];
        if (u->need || u->dead)
            continue;
        for (uint32_t j = 0; j < u->nie; j++) {
            uint32_t e = u->ie + j;
            if (!adj_push(&g->out[g->ie_from[e]], g->ie_to[e], e) ||
                !adj_push(&g->in[g->ie_to[e]], g->ie_from[e], e))
                return false;
        }
        u->active = u->root = 1;
    }
    g->ordered = true;
    return true;
}

int psi_acyc_known_cycle(psi_acyc *g, const uint32_t **edges, size_t *n)
{
    int r = known_sort(g, NULL);
    if (r < 0)
        return PSI_SAT_ENOMEM;
    *edges = g->known_cycle.a;
    *n = g->known_cycle.n;
    return r;
}

/* --- activation ----------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* 0-1 BFS from src towards dst over active edges whose target is positioned
 * at most ord[dst] and, if stamp != 0, whose activation index is below the
 * stamp. Visited nodes (fmark == epoch) are listed in g->fwd. Returns true
 * if dst was reached; the path is then given by parent[]. */
static bool search_forward(psi_acyc *g, uint32_t src, uint32_t dst, uint32_t stamp, bool *nomem)
{
    uint32_t ub = g->ord[dst];
    g->fwd.n = g->cur.n = g->next.n = 0;
    g->fmark[src] = g->epoch;
    g->dist[src] = 0;
    if (!psi_u32_push(&g->fwd, src) || !psi_u32_push(&g->cur, src))
        return *nomem = true, false;
    uint32_t d = 0;
    while (g->cur.n) {
        while (g->cur.n) {
            uint32_t v = g->cur.a[--g->cur.n];
            if (g->dist[v] != d)
                continue; /* stale: improved later */
            if (v == dst)
                return true;
            g->st.visited++;
            const adjvec *o = &g->out[v];
            for (uint32_t i = 0; i < o->n; i++) {
                uint32_t w = o->a[i].node, e = o->a[i].edge;
                if (g->ord[w] > ub || (stamp && g->ie_act[e] > stamp))
                    continue;
                uint32_t nd = d + (labelled(g, e) ? 1u : 0u);
                if (g->fmark[w] == g->epoch) {
                    if (g->dist[w] <= nd)
                        continue;
                } else {
                    g->fmark[w] = g->epoch;
                    if (!psi_u32_push(&g->fwd, w))
                        return *nomem = true, false;
                }
                g->dist[w] = nd;
                g->parent[w] = e;
                if (!psi_u32_push(nd == d ? &g->cur : &g->next, w))
                    return *nomem = true, false;
            }
        }
        u32vec t = g->cur;
        g->cur = g->next;
        g->next = t;
        d++;
    }
    return false;
}

/* Nodes reaching dst among those positioned at least ord[src]; marks bmark
 * and lists them in g->bwd. */
static bool search_backward(psi_acyc *g, uint32_t src, uint32_t dst)
{
    uint32_t lb = g->ord[src];
    g->bwd.n = g->cur.n = 0;
    g->bmark[dst] = g->epoch;
    if (!psi_u32_push(&g->bwd, dst) || !psi_u32_push(&g->cur, dst))
        return false;
    while (g->cur.n) {
        uint32_t v = g->cur.a[--g->cur.n];
        g->st.visited++;
        const adjvec *in = &g->in[v];
        for (uint32_t i = 0; i < in->n; i++) {
            uint32_t w = in->a[i].node;
            if (g->ord[w] < lb || g->bmark[w] == g->epoch)
                continue;
            g->bmark[w] = g->epoch;
            if (!psi_u32_push(&g->bwd, w) || !psi_u32_push(&g->cur, w))
                return false;
        }
    }
    return true;
}

static bool sort_by_ord(psi_acyc *g, const u32vec *nodes, size_t at)
{
    for (size_t i = 0; i < nodes->n; i++)
        g->sortbuf[at + i] = ((uint64_t)g->ord[nodes->a[i]] << 32) | nodes->a[i];
    qsort(g->sortbuf + at, nodes->n, sizeof *g->sortbuf, cmp_u64);
    return true;
}

/* Pearce-Kelly reordering: backward side first, then forward side, reusing
 * the union of their positions. */
static bool reorder(psi_acyc *g)
{
    size_t nb = g->bwd.n, nf = g->fwd.n, n = nb + nf;
    if (!psi_grow_array((void **)&g->sortbuf, &g->sortbuf_cap, n, sizeof *g->sortbuf))
        return false;
    g->pool.n = 0;
    if (!psi_u32_reserve(&g->pool, n))
        return false;
    sort_by_ord(g, &g->bwd, 0);
    sort_by_ord(g, &g->fwd, nb);
    /* Both halves are sorted: merge their positions. */
    size_t i = 0, j = nb;
    while (i < nb || j < n) {
        uint64_t a = i < nb ? g->sortbuf[i] >> 32 : UINT64_MAX;
        uint64_t b = j < n ? g->sortbuf[j] >> 32 : UINT64_MAX;
        if (a < b)
            g->pool.a[g->pool.n++] = (uint32_t)a, i++;
        else
            g->pool.a[g->pool.n++] = (uint32_t)b, j++;
    }
    for (size_t k = 0; k < n; k++)
        g->ord[(uint32_t)g->sortbuf[k]] = g->pool.a[k];
    g->st.reorders++;
    return true;
}

/* Builds the conflict for cycle: new edge e (x->y) plus the BFS path y->x. */
static bool record_cycle(psi_acyc *g, uint32_t e, psi_lits *clause)
{
    uint32_t x = g->ie_from[e], y = g->ie_to[e];
    g->cycle.n = 0;
    new_lit_epoch(g);
    clause->n = 0;
    if (!psi_u32_push(&g->cycle, g->ie_user[e]) || !add_labels(g, e, clause))
        return false;
    size_t first = g->cycle.n;
    for (uint32_t v = x; v != y;) {
        uint32_t pe = g->parent[v];
        if (!psi_u32_push(&g->cycle, g->ie_user[pe]) || !add_labels(g, pe, clause))
            return false;
        v = g->ie_from[pe];
    }
    /* The path was collected backwards: reverse it into cycle order. */
    for (size_t i = first, j = g->cycle.n - 1; i < j; i++, j--) {
        uint32_t t = g->cycle.a[i];
        g->cycle.a[i] = g->cycle.a[j];
        g->cycle.a[j] = t;
    }
    g->st.conflicts++;
    g->st.conflict_lits += clause->n;
    return true;
}

/* Labels of inactive edges from the forward side into the backward side
 * would close a cycle: imply their last open label false. */
static bool propagate_candidates(psi_acyc *g, psi_theory_out *out)
{
    for (size_t i = 0; i < g->fwd.n; i++) {
        uint32_t a = g->fwd.a[i];
        for (uint32_t k = g->cand_start[a]; k < g->cand_start[a + 1]; k++) {
            uint32_t e = g->cand[k];
            if (g->bmark[g->ie_to[e]] != g->epoch)
                continue;
            const uedge *u = &g->ue[g->ie_user[e]];
            if (u->active || u->dead)
                continue;
            int open = 0, nopen = 0;
            bool blocked = false;
            for (int j = 0; j < u->need; j++) {
                int v = psi_sat_current_value(g->s, u->lit[j]);
                if (v < 0)
                    blocked = true;
                else if (v == 0)
                    open = u->lit[j], nopen++;
            }
            if (blocked || nopen != 1)
                continue;
            size_t var = lit_var0(open);
            if (!psi_lits_push(&out->implied, -open))
                return false;
            g->prop_edge[var] = e;
            g->prop_stamp[var] = (uint32_t)g->act_n;
            g->st.propagations++;
        }
    }
    return true;
}

/* Activates internal edge e at level. Returns PSI_THEORY_OK, CONFLICT (clause
 * in out) or ENOMEM. */
static int activate(psi_acyc *g, uint32_t e, uint32_t level, psi_theory_out *out)
{
    uint32_t x = g->ie_from[e], y = g->ie_to[e];
    bool searched = false, nomem = false;
    g->st.activations++;
    if (x == y) {
        g->parent[x] = e; /* unused: the path y->x is empty */
        return record_cycle(g, e, &out->clause) ? PSI_THEORY_CONFLICT : PSI_THEORY_ENOMEM;
    }
    if (g->ord[x] > g->ord[y]) {
        new_epoch(g);
        if (search_forward(g, y, x, 0, &nomem))
            return record_cycle(g, e, &out->clause) ? PSI_THEORY_CONFLICT : PSI_THEORY_ENOMEM;
        if (nomem || !search_backward(g, y, x) || !reorder(g))
            return PSI_THEORY_ENOMEM;
        searched = true;
    }
    if ((g->act_n == g->act_cap &&
         !psi_grow_array((void **)&g->act, &g->act_cap, g->act_n + 1, sizeof *g->act)) ||
        !adj_push(&g->out[x], y, e))
        return PSI_THEORY_ENOMEM;
    if (!adj_push(&g->in[y], x, e)) {
        g->out[x].n--;
        return PSI_THEORY_ENOMEM;
    }
    g->act[g->act_n++] = (act_entry){e, level};
    g->ie_act[e] = (uint32_t)g->act_n;
    if (searched && g->propagate && level > 0 && !propagate_candidates(g, out))
        return PSI_THEORY_ENOMEM;
    return PSI_THEORY_OK;
}

static int activate_user(psi_acyc *g, uint32_t id, uint32_t level, psi_theory_out *out)
{
    uedge *u = &g->ue[id];
    for (uint32_t j = 0; j < u->nie; j++) {
        int rc = activate(g, u->ie + j, level, out);
        if (rc != PSI_THEORY_OK)
            return rc;
    }
    u->active = 1;
    u->root = level == 0;
    return PSI_THEORY_OK;
}

/* --- theory callbacks ------------------------------------------------------ */

static int cb_prepare(void *ctx, psi_theory_out *out)
{
    psi_acyc *g = ctx;
    if (!build_tables(g))
        return PSI_THEORY_ENOMEM;
    bool first = !g->ordered;
    if (!static_setup(g))
        return PSI_THEORY_ENOMEM;
    if (g->static_cycle) {
        g->cycle.n = 0;
        for (size_t i = 0; i < g->known_cycle.n; i++)
            if (!psi_u32_push(&g->cycle, g->known_cycle.a[i]))
                return PSI_THEORY_ENOMEM;
        out->clause.n = 0;
        return PSI_THEORY_CONFLICT;
    }
    for (size_t i = first ? 0 : g->ue_done; i < g->ue_n; i++) {
        uedge *u = &g->ue[i];
        if (u->dead || u->active)
            continue;
        if (u->cnt == u->need) {
            int rc = activate_user(g, (uint32_t)i, 0, out);
            if (rc != PSI_THEORY_OK)
                return rc; /* a conflict here holds at the root: UNSAT */
        }
    }
    g->ue_done = g->ue_n;
    return PSI_THEORY_OK;
}

static int cb_notify(void *ctx, int lit, unsigned level, psi_theory_out *out)
{
    psi_acyc *g = ctx;
    size_t var = lit_var0(lit);
    if (var >= g->var_cap && !ensure_vars(g, var + 1))
        return PSI_THEORY_ENOMEM;
    if (g->asg_n == g->asg_cap &&
        !psi_grow_array((void **)&g->asg, &g->asg_cap, g->asg_n + 1, sizeof *g->asg))
        return PSI_THEORY_ENOMEM;
    g->val[var] = lit > 0 ? 1 : -1;
    g->asg[g->asg_n++] = (asg_entry){lit, level};
    size_t li = lit_index(lit);
    if (li >= g->occ_lits)
        return PSI_THEORY_OK;
    int rc = PSI_THEORY_OK;
    for (uint32_t k = g->occ_start[li]; k < g->occ_start[li + 1]; k++) {
        uedge *u = &g->ue[g->occ[k]];
        u->cnt++;
        /* After a conflict keep counting, so backtracking stays exact. */
        if (rc == PSI_THEORY_OK && u->cnt == u->need && !u->active)
            rc = activate_user(g, g->occ[k], level, out);
    }
    return rc;
}

static int cb_explain(void *ctx, int lit, psi_theory_out *out)
{
    psi_acyc *g = ctx;
    size_t var = lit_var0(lit);
    uint32_t e = g->prop_edge[var], stamp = g->prop_stamp[var];
    uint32_t a = g->ie_from[e], b = g->ie_to[e];
    const uedge *u = &g->ue[g->ie_user[e]];
    bool nomem = false;
    g->st.explanations++;
    new_epoch(g);
    /* stamp 0 would mean "no filter"; a stamp is always >= 1 here because the
     * edge whose activation triggered the implication was on the stack. */
    if (!search_forward(g, b, a, stamp, &nomem)) {
        assert(!"acyclic: explanation path missing");
        return PSI_THEORY_ENOMEM;
    }
    new_lit_epoch(g);
    out->clause.n = 0;
    if (!psi_lits_push(&out->clause, lit))
        return PSI_THEORY_ENOMEM;
    g->lit_mark[var] = g->lit_epoch;
    for (int k = 0; k < u->need; k++) {
        size_t v = lit_var0(u->lit[k]);
        if (g->lit_mark[v] != g->lit_epoch) {
            g->lit_mark[v] = g->lit_epoch;
            if (!psi_lits_push(&out->clause, -u->lit[k]))
                return PSI_THEORY_ENOMEM;
        }
    }
    for (uint32_t v = a; v != b;) {
        uint32_t pe = g->parent[v];
        if (!add_labels(g, pe, &out->clause))
            return PSI_THEORY_ENOMEM;
        v = g->ie_from[pe];
    }
    g->st.explanation_lits += out->clause.n;
    return PSI_THEORY_OK;
}

static void cb_backtrack(void *ctx, unsigned level)
{
    psi_acyc *g = ctx;
    while (g->act_n && g->act[g->act_n - 1].level > level) {
        uint32_t e = g->act[--g->act_n].ie;
        uint32_t x = g->ie_from[e], y = g->ie_to[e];
        assert(g->out[x].n && g->out[x].a[g->out[x].n - 1].edge == e);
        assert(g->in[y].n && g->in[y].a[g->in[y].n - 1].edge == e);
        g->out[x].n--;
        g->in[y].n--;
        g->ie_act[e] = 0;
        g->ue[g->ie_user[e]].active = 0;
    }
    while (g->asg_n && g->asg[g->asg_n - 1].level > level) {
        int lit = g->asg[--g->asg_n].lit;
        g->val[lit_var0(lit)] = 0;
        size_t li = lit_index(lit);
        if (li >= g->occ_lits)
            continue;
        for (uint32_t k = g->occ_start[li]; k < g->occ_start[li + 1]; k++)
            g->ue[g->occ[k]].cnt--;
    }
}
