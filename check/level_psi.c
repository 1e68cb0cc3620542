/* PSI refinement (see level_psi.h).
 *
 * Per call: the model's active DEP edges as a CSR graph over the
 * transactions, a topological order (Kahn; the theory kept DEP acyclic),
 * and per transaction the earliest position it reaches in every session
 * (as pruning's frontiers: a session's present transactions form an SO
 * chain, so one number per session says everything). An RW edge a -> b then violates PSI iff b's
 * frontier in a's session is at or before a. Cost O((n + E) · k) for n
 * transactions, E edges, k sessions, plus one BFS per violation reported
 * (at most MAX_CLAUSES per call). */
#include "check/level_psi.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Violations turned into clauses per model: enough to cut many bad
 * models at once, few enough that the BFSs stay cheap. */
#define MAX_CLAUSES 64u
#define NONE        UINT32_MAX

typedef struct rctx {
    const psi_history *h;
    const psi_encoding *enc;
    uint32_t n, k;
    uint64_t *off; /* [n + 1] active DEP out-edges */
    uint32_t *to, *eid;
    uint32_t *front; /* [n * k] earliest reached position + 0, NONE when none */
    uint32_t *par;   /* BFS: edge id into each node */
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

static bool is_dep_active(const psi_encoding *enc, uint32_t e)
{
    return !psi_edge_is_anti((psi_edge_type)enc->psi_edges[e].type) &&
           psi_acyc_edge_active(enc->graph, e);
}

static bool build(rctx *c, uint32_t n_edges)
{
    const psi_encoding *enc = c->enc;
    uint32_t n = c->n;
    c->off = calloc((size_t)n + 1, sizeof *c->off);
    if (!c->off)
        return false;
    uint64_t m = 0;
    for (uint32_t e = 0; e < n_edges; e++)
        if (is_dep_active(enc, e)) {
            c->off[enc->psi_edges[e].from + 1]++;
            m++;
        }
    for (uint32_t v = 0; v < n; v++)
        c->off[v + 1] += c->off[v];
    c->to = malloc((m ? m : 1) * sizeof *c->to);
    c->eid = malloc((m ? m : 1) * sizeof *c->eid);
    uint64_t *pos = malloc(((size_t)n + 1) * sizeof *pos);
    if (!c->to || !c->eid || !pos) {
        free(pos);
        return false;
    }
    memcpy(pos, c->off, ((size_t)n + 1) * sizeof *pos);
    for (uint32_t e = 0; e < n_edges; e++)
        if (is_dep_active(enc, e)) {
            uint64_t p = pos[enc->psi_edges[e].from]++;
            c->to[p] = enc->psi_edges[e].to;
            c->eid[p] = e;
        }
    free(pos);
    return true;
}

/* Whether the model commits transaction t (every transaction but an
 * optional one whose outcome variable is false). */
static bool present(const rctx *c, uint32_t t)
{
    const int *ov = c->enc->outcome_var;
    return !ov || !ov[t] || psi_sat_value(c->enc->sat, ov[t]) > 0;
}

/* Frontiers in reverse topological order. false: out of memory. */
static bool frontiers(rctx *c)
{
    uint32_t n = c->n, k = c->k;
    uint32_t *indeg = calloc(n ? n : 1, sizeof *indeg), *order = c->queue;
    size_t cells = (size_t)n * k;
    c->front = malloc((cells ? cells : 1) * sizeof *c->front);
    if (!indeg || !c->front) {
        free(indeg);
        return false;
    }
    for (uint64_t i = 0; i < c->off[n]; i++)
        indeg[c->to[i]]++;
    uint32_t head = 0, tail = 0;
    for (uint32_t v = 0; v < n; v++)
        if (!indeg[v])
            order[tail++] = v;
    while (head < tail) {
        uint32_t v = order[head++];
        for (uint64_t i = c->off[v]; i < c->off[v + 1]; i++)
            if (--indeg[c->to[i]] == 0)
                order[tail++] = c->to[i];
    }
    free(indeg);
    /* the theory keeps the active DEP edges acyclic */
    assert(tail == n);
    memset(c->front, 0xff, (size_t)n * k * sizeof *c->front);
    for (uint32_t i = n; i-- > 0;) {
        uint32_t v = order[i];
        uint32_t *row = c->front + (size_t)v * k;
        for (uint64_t j = c->off[v]; j < c->off[v + 1]; j++) {
            uint32_t w = c->to[j];
            const uint32_t *rw = c->front + (size_t)w * k;
            for (uint32_t s = 0; s < k; s++)
                if (rw[s] < row[s])
                    row[s] = rw[s];
            /* Reaching w reaches every later transaction of its session
             * only if w is present: session order out of an optional
             * transaction the model leaves absent is gated off, while
             * edges into it (a WR into its observed reads) stay. */
            const psi_txn *tx = &c->h->txns[w];
            if (tx->session != PSI_NO_SESSION && tx->pos < row[tx->session] && present(c, w))
                row[tx->session] = tx->pos;
        }
    }
    return true;
}

/* Shortest DEP path b -> a as edge ids into out (reversed order written
 * forwards); returns its length (>= 1: a is reached). Every node of a
 * path to a reaches a's session at a's position or before (its frontier
 * says so), so the search skips the others: it visits the same nodes in
 * the same order, minus those that lead nowhere, and finds the same path
 * as a full BFS at a fraction of the cost. c->par is NONE everywhere on
 * entry and again on return (only the visited nodes are reset). */
static uint32_t path(rctx *c, uint32_t b, uint32_t a, uint32_t *out)
{
    uint32_t k = c->k, s = c->h->txns[a].session, pa = c->h->txns[a].pos;
    uint32_t head = 0, tail = 0;
    c->queue[tail++] = b;
    bool found = false;
    while (head < tail && !found) {
        uint32_t v = c->queue[head++];
        for (uint64_t i = c->off[v]; i < c->off[v + 1]; i++) {
            uint32_t w = c->to[i];
            if (w == b || c->par[w] != NONE || (w != a && c->front[(size_t)w * k + s] > pa))
                continue;
            c->par[w] = c->eid[i];
            if (w == a) {
                found = true;
                break;
            }
            c->queue[tail++] = w;
        }
    }
    assert(found);
    uint32_t len = 0;
    for (uint32_t v = a; v != b; v = c->enc->psi_edges[c->par[v]].from)
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
    rctx c = {.h = h, .enc = enc, .n = enc->n_txn_nodes, .k = h->n_sessions ? h->n_sessions : 1};
    uint32_t *p = NULL;
    psi_status st = PSI_OK;
    c.queue = malloc((c.n ? c.n : 1) * sizeof *c.queue);
    c.par = malloc((c.n ? c.n : 1) * sizeof *c.par);
    p = malloc(((size_t)c.n + 1) * sizeof *p);
    c.clause = malloc(2 * ((size_t)c.n + 1) * sizeof *c.clause);
    if (!c.queue || !c.par || !p || !c.clause || n_edges > UINT32_MAX ||
        !build(&c, (uint32_t)n_edges) || !frontiers(&c))
        goto nomem;
    memset(c.par, 0xff, (size_t)c.n * sizeof *c.par);
    for (uint32_t e = 0; e < n_edges && *added < MAX_CLAUSES; e++) {
        const psi_edge *rw = &enc->psi_edges[e];
        if (!psi_edge_is_anti((psi_edge_type)rw->type) || !psi_acyc_edge_active(enc->graph, e))
            continue;
        const psi_txn *ta = &h->txns[rw->from];
        if (rw->from == rw->to || ta->session == PSI_NO_SESSION)
            continue;
        if (c.front[(size_t)rw->to * c.k + ta->session] > ta->pos)
            continue; /* b does not reach a */
        uint32_t len = path(&c, rw->to, rw->from, p);
        /* a DEP path of distinct nodes has at most n - 1 edges */
        assert(len >= 1 && len < c.n);
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
    free(c.front);
    free(c.par);
    free(c.queue);
    free(c.clause);
    free(c.pend);
    free(p);
    return st;
}
