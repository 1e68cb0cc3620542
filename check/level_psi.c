/* PSI refinement (see level_psi.h).
 *
 * Per call: the model's active DEP edges as a CSR graph over the
 * transactions, and the theory's order of the nodes (psi_acyc_node_order),
 * which is topological for exactly those edges (the theory keeps them
 * acyclic; RW edges go to its sink). An RW edge a -> b can only violate
 * PSI when b comes before a in that order, as b must reach a; on the
 * artifact histories about 2 % of the active RW edges do. For each of
 * those, a BFS from b over the nodes placed before a finds the shortest
 * DEP path to a, if any. Cost O(E) for the graph plus the searches, which
 * stay inside the order window between b and a (GeneralWH: about 3,500
 * nodes per model in all, against a frontier of n · k cells before).
 * At most MAX_CLAUSES violations are reported per call. */
#include "check/level_psi.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Violations turned into clauses per model: enough to cut many bad
 * models at once, few enough that the BFSs stay cheap. */
#define MAX_CLAUSES 64u
#define NONE        UINT32_MAX

enum { ACT_NO = 0, ACT_DEP = 1, ACT_RW = 2 };

typedef struct rctx {
    const psi_history *h;
    const psi_encoding *enc;
    uint32_t n;
    uint64_t *off; /* [n + 1] active DEP out-edges */
    uint32_t *to, *eid;
    uint8_t *act;  /* [theory edges] ACT_* in the model */
    uint64_t *ord; /* [n] the theory's order label of each node */
    uint32_t *par; /* BFS: edge id into each node */
    uint32_t *queue;
    int *clause;
    int *pend; /* clauses to add once the model is read: length, literals */
    size_t pend_n, pend_cap;
} rctx;

/* Appends the clause lits[0..n) to c->pend. false: out of memory. */
static bool pend_push(rctx *c, const int *lits, size_t n)
{
    if (c->pend_n + n + 1 > c->pend_cap) {
        size_t cap = c->pend_cap ? c->pend_cap : 256;
        while (cap < c->pend_n + n + 1)
            cap *= 2;
        int *p = realloc(c->pend, cap * sizeof *p);
        if (!p)
            return false;
        c->pend = p;
        c->pend_cap = cap;
    }
    assert(n <= (size_t)INT32_MAX);
    c->pend[c->pend_n++] = (int)n;
    memcpy(c->pend + c->pend_n, lits, n * sizeof *lits);
    c->pend_n += n;
    return true;
}

/* Whether theory edge e is active in the model: every label true (the
 * same answer as psi_acyc_edge_active, without a call for the known
 * edges, which have none and are most of them). */
static bool edge_active(const psi_encoding *enc, uint32_t e)
{
    for (int j = 0; j < 2; j++) {
        int l = enc->psi_lits[2 * (size_t)e + j];
        if (l && psi_sat_value(enc->sat, l) <= 0)
            return false;
    }
    return true;
}

/* c->act[e] := edge e's activity and kind, counting the active DEP edges
 * per source in the same pass; then the CSR graph of those edges, in
 * edge order per node (off[] serves as the fill cursors, then shifts
 * back). Two passes over the edges: this runs once per model over all
 * of the theory's edges. */
static bool build(rctx *c, uint32_t n_edges)
{
    const psi_encoding *enc = c->enc;
    uint32_t n = c->n;
    c->off = calloc((size_t)n + 2, sizeof *c->off);
    c->act = malloc(n_edges ? n_edges : 1);
    if (!c->off || !c->act)
        return false;
    uint64_t m = 0;
    for (uint32_t e = 0; e < n_edges; e++) {
        uint8_t a = !edge_active(enc, e)                                      ? ACT_NO
                    : psi_edge_is_anti((psi_edge_type)enc->psi_edges[e].type) ? ACT_RW
                                                                              : ACT_DEP;
        c->act[e] = a;
        if (a == ACT_DEP) {
            c->off[enc->psi_edges[e].from + 2]++;
            m++;
        }
    }
    /* off[v + 2] counted v's edges: prefix sums leave v's start in
     * off[v + 1], the cursor the fill advances to v's end, which is
     * v + 1's start, where off[v + 1] must end up. */
    for (uint32_t v = 0; v < n; v++)
        c->off[v + 2] += c->off[v + 1];
    c->to = malloc((m ? m : 1) * sizeof *c->to);
    c->eid = malloc((m ? m : 1) * sizeof *c->eid);
    if (!c->to || !c->eid)
        return false;
    for (uint32_t e = 0; e < n_edges; e++)
        if (c->act[e] == ACT_DEP) {
            uint64_t p = c->off[enc->psi_edges[e].from + 1]++;
            c->to[p] = enc->psi_edges[e].to;
            c->eid[p] = e;
        }
    assert(c->off[0] == 0 && c->off[n] == m);
    return true;
}

/* Shortest DEP path b -> a as edge ids into out (reversed order written
 * forwards); returns its length, 0 when b does not reach a. Every node
 * of a path to a lies before a in the theory's order, so the search skips
 * the others: it visits the same nodes that reach a in the same order as
 * a full BFS, hence finds the same path. c->par is NONE everywhere on
 * entry and again on return (only the visited nodes are reset). */
static uint32_t path(rctx *c, uint32_t b, uint32_t a, uint32_t *out)
{
    uint64_t oa = c->ord[a];
    uint32_t head = 0, tail = 0;
    c->queue[tail++] = b;
    bool found = false;
    while (head < tail && !found) {
        uint32_t v = c->queue[head++];
        for (uint64_t i = c->off[v]; i < c->off[v + 1]; i++) {
            uint32_t w = c->to[i];
            if (w == b || c->par[w] != NONE || (w != a && c->ord[w] > oa))
                continue;
            c->par[w] = c->eid[i];
            if (w == a) {
                found = true;
                break;
            }
            c->queue[tail++] = w;
        }
    }
    uint32_t len = 0;
    for (uint32_t v = a; found && v != b; v = c->enc->psi_edges[c->par[v]].from)
        out[len++] = c->par[v];
    c->par[a] = NONE;
    for (uint32_t i = 1; i < tail; i++)
        c->par[c->queue[i]] = NONE;
    /* reverse: out[0] leaves b */
    for (uint32_t i = 0; i < len / 2; i++) {
        uint32_t t = out[i];
        out[i] = out[len - 1 - i];
        out[len - 1 - i] = t;
    }
    return len;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

psi_status psi_psi_refine(const psi_history *h, psi_encoding *enc, uint32_t *added,
                          psi_edge **cycle, uint32_t *cycle_len, psi_diag *d)
{
    assert(enc->psi);
    *added = 0;
    *cycle = NULL;
    *cycle_len = 0;
    size_t n_edges = psi_acyc_num_edges(enc->graph);
    rctx c = {.h = h, .enc = enc, .n = enc->n_txn_nodes};
    uint32_t *p = NULL;
    psi_status st = PSI_OK;
    c.queue = malloc((c.n ? c.n : 1) * sizeof *c.queue);
    c.par = malloc((c.n ? c.n : 1) * sizeof *c.par);
    p = malloc(((size_t)c.n + 1) * sizeof *p);
    c.clause = malloc(2 * ((size_t)c.n + 1) * sizeof *c.clause);
    c.ord = malloc((c.n ? c.n : 1) * sizeof *c.ord);
    if (!c.queue || !c.par || !p || !c.clause || !c.ord || n_edges > UINT32_MAX ||
        !build(&c, (uint32_t)n_edges))
        goto nomem;
    for (uint32_t v = 0; v < c.n; v++)
        c.ord[v] = psi_acyc_node_order(enc->graph, v);
    memset(c.par, 0xff, (size_t)c.n * sizeof *c.par);
    for (uint32_t e = 0; e < n_edges && *added < MAX_CLAUSES; e++) {
        const psi_edge *rw = &enc->psi_edges[e];
        if (c.act[e] != ACT_RW)
            continue;
        if (rw->from == rw->to || c.ord[rw->to] > c.ord[rw->from])
            continue; /* b comes after a: it does not reach a */
        uint32_t len = path(&c, rw->to, rw->from, p);
        if (!len)
            continue;
        /* a DEP path of distinct nodes has at most n - 1 edges */
        assert(len < c.n);
        size_t nl = 0;
        for (int j = 0; j < 2; j++)
            if (enc->psi_lits[2 * (size_t)e + j])
                c.clause[nl++] = -enc->psi_lits[2 * (size_t)e + j];
        for (uint32_t i = 0; i < len; i++)
            for (int j = 0; j < 2; j++)
                if (enc->psi_lits[2 * (size_t)p[i] + j])
                    c.clause[nl++] = -enc->psi_lits[2 * (size_t)p[i] + j];
        qsort(c.clause, nl, sizeof *c.clause, cmp_int);
        size_t u = 0;
        for (size_t i = 0; i < nl; i++)
            if (!u || c.clause[u - 1] != c.clause[i])
                c.clause[u++] = c.clause[i];
        if (u == 0) {
            /* every edge is certain: the history violates PSI whatever
             * the choices (the RW edge first, then the path back) */
            *cycle = malloc(((size_t)len + 1) * sizeof **cycle);
            if (!*cycle)
                goto nomem;
            (*cycle)[0] = *rw;
            for (uint32_t i = 0; i < len; i++)
                (*cycle)[i + 1] = enc->psi_edges[p[i]];
            *cycle_len = len + 1;
            break;
        }
        /* Kept until the search is over: adding a clause ends the model,
         * which psi_acyc_edge_active reads for the next RW edges. */
        if (!pend_push(&c, c.clause, u))
            goto nomem;
        ++*added;
    }
    for (size_t i = 0; i < c.pend_n && !*cycle; i += 1 + (size_t)c.pend[i])
        if (psi_sat_add_clause(enc->sat, c.pend + i + 1, (size_t)c.pend[i]) != 0)
            goto nomem;
    goto done;
nomem:
    st = psi_diag_nomem(d, "checking parallel snapshot isolation");
done:
    free(c.off);
    free(c.to);
    free(c.eid);
    free(c.ord);
    free(c.act);
    free(c.par);
    free(c.queue);
    free(c.clause);
    free(c.pend);
    free(p);
    return st;
}
