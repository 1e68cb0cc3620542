/* Resolve and Finalize (Algorithm 3) on a minimized violation: settle every
 * writer pair one of whose orders closes a forbidden cycle with what is
 * certain or already settled, to a fixpoint; then present what remains:
 * certain and decided edges, the writer pair(s) that can be ordered
 * neither way, and the cycle each of their orders closes. */
#include "interpret/local.h"

#include "core/graph.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Cycles shown at most when several open pairs need a case split. */
#define MAX_CASES 16u

enum { OPEN = 0, EITHER = 1, OR = 2 };

typedef struct pres {
    const psi_sub_polygraph *L;
    bool ser;
    uint8_t *act, *thr;
    uint32_t *cyc;
    psi_graph_bfs bfs;
    uint8_t *state; /* per constraint, as the replay goes */
    uint8_t *fin;   /* per constraint, after the fixpoint */
    uint32_t *cho;  /* per constraint: choice index, UINT32_MAX if none */
    uint32_t *map;  /* sub-history edge -> cex edge, UINT32_MAX */
    /* Reads with a choice of writers (L->reads): */
    uint8_t *rin;   /* per read: takes part (each candidate has an edge still on;
                       a candidate without one is free to take, so the read
                       then constrains nothing) */
    uint32_t *rst;  /* per read: the choice it is resolved to, as the replay
                       goes; UINT32_MAX while open */
    uint32_t *rfin; /* per read, after the fixpoint */
    uint8_t *ex;    /* per choice: excluded, as the replay goes */
    uint8_t *exfin; /* per choice, after the fixpoint */
    uint32_t *rmap; /* per choice: its cex rcand, UINT32_MAX */
    psi_cex *cex;
    size_t cap_idx, cap_cycles, cap_conds, cap_rconds;
} pres;

/* Is the constraint part of edge e active now? */
static bool cons_on(const pres *p, const psi_sub_edge *e)
{
    return e->cons < 0 || p->state[e->cons] == (e->side ? OR : EITHER);
}

/* Is the read-from part of edge e active now? */
static bool rc_on(const pres *p, const psi_sub_edge *e)
{
    if (!e->rc)
        return true;
    uint32_t r = p->L->ch[e->rc - 1].read;
    return p->rin[r] && p->rst[r] == e->rc - 1;
}

static void set_active(pres *p)
{
    const psi_sub_polygraph *L = p->L;
    for (uint32_t i = 0; i < L->n_e; i++) {
        const psi_sub_edge *e = &L->e[i];
        p->act[i] = e->on && cons_on(p, e) && rc_on(p, e);
        p->thr[i] = 0;
    }
}

/* A shortest forbidden cycle among the edges p->act marks, through one
 * that `through` marks (any when NULL), as edge indices in p->cyc. Returns
 * its length, 0 when there is none, -1 when out of memory. */
static int find_cycle(pres *p, const uint8_t *through)
{
    const psi_sub_polygraph *L = p->L;
    psi_edge_view v = {
        .first = L->n_e ? &L->e[0].e : NULL, .stride = sizeof *L->e, .n = L->n_e, .active = p->act};
    /* Edge-list order of successors: which of several shortest cycles is
     * shown depends on it. */
    psi_graph g;
    unsigned flags = (p->ser ? 0u : PSI_GRAPH_SI) | PSI_GRAPH_EDGE_ORDER;
    if (psi_graph_build(&g, L->n_nodes, &v, flags, NULL) != PSI_OK)
        return -1;
    uint32_t len = psi_graph_shortest_cycle(&g, &p->bfs, &v, through, p->cyc);
    psi_graph_free(&g);
    return (int)len;
}

/* Does side `side` of constraint c close a forbidden cycle now? */
static int side_cycle(pres *p, uint32_t c, int side)
{
    const psi_sub_polygraph *L = p->L;
    set_active(p);
    bool any = false;
    for (uint32_t i = 0; i < L->n_e; i++)
        if (L->e[i].on && L->e[i].cons == (int32_t)c && L->e[i].side == side && rc_on(p, &L->e[i]))
            p->act[i] = p->thr[i] = 1, any = true;
    if (!any)
        return 0;
    return find_cycle(p, p->thr);
}

/* Does taking read-from choice j close a forbidden cycle now? */
static int choice_cycle(pres *p, uint32_t j)
{
    const psi_sub_polygraph *L = p->L;
    set_active(p);
    bool any = false;
    for (uint32_t i = 0; i < L->n_e; i++)
        if (L->e[i].on && L->e[i].rc == j + 1 && cons_on(p, &L->e[i]))
            p->act[i] = p->thr[i] = 1, any = true;
    if (!any)
        return 0;
    return find_cycle(p, p->thr);
}

/* The candidates of read r not excluded (p->ex): how many, and the last. */
static uint32_t cands_left(const pres *p, uint32_t r, uint32_t *last)
{
    const psi_sub_read *rd = &p->L->reads[r];
    uint32_t n = 0;
    for (uint32_t j = rd->first; j < rd->first + rd->n; j++)
        if (!p->ex[j])
            n++, *last = j;
    return n;
}

/* Edge i's origin and pair choice, from the final states. */
static uint8_t edge_origin(const pres *p, uint32_t i, uint32_t *choice)
{
    const psi_sub_edge *e = &p->L->e[i];
    uint8_t o = PSI_CEX_CERTAIN;
    *choice = UINT32_MAX;
    if (e->cons >= 0) {
        uint8_t f = p->fin[e->cons];
        *choice = p->cho[e->cons];
        if (f == OPEN)
            o = e->side ? PSI_CEX_OR : PSI_CEX_EITHER;
        else
            o = f == (e->side ? OR : EITHER) ? PSI_CEX_DECIDED : PSI_CEX_EXCLUDED;
    }
    if (!e->rc || o == PSI_CEX_EXCLUDED)
        return o;
    uint32_t j = e->rc - 1, r = p->L->ch[j].read;
    if (p->exfin[j])
        return PSI_CEX_EXCLUDED;
    if (p->rfin[r] == j)
        return o == PSI_CEX_CERTAIN ? PSI_CEX_DECIDED : o;
    return o == PSI_CEX_CERTAIN || o == PSI_CEX_DECIDED ? PSI_CEX_READ_FROM : o;
}

/* The cex edge of sub-history edge i (added on first use). */
static uint32_t cex_edge(pres *p, uint32_t i)
{
    if (p->map[i] != UINT32_MAX)
        return p->map[i];
    const psi_sub_edge *e = &p->L->e[i];
    psi_cex *cex = p->cex;
    uint32_t choice;
    uint8_t origin = edge_origin(p, i, &choice);
    cex->edges[cex->n_edges] = (psi_cex_edge){.from = p->L->node_txn[e->e.from],
                                              .to = p->L->node_txn[e->e.to],
                                              .key = e->e.key,
                                              .type = e->e.type,
                                              .origin = origin,
                                              .side = e->side,
                                              .choice = choice,
                                              .rcand = e->rc ? p->rmap[e->rc - 1] + 1 : 0};
    return p->map[i] = cex->n_edges++;
}

/* Appends the cycle c[0..len) (sub-history edge indices) that exists under
 * the conditions cond[0..n_cond) and the read-from choices rc[0..n_rc)
 * (sub-history choices). Returns its index, UINT32_MAX when out of
 * memory. */
static uint32_t add_cycle(pres *p, const uint32_t *c, int len, const psi_cex_cond *cond,
                          uint32_t n_cond, const uint32_t *rc, uint32_t n_rc)
{
    psi_cex *cex = p->cex;
    if (!psi_grow((void **)&cex->cycles, &p->cap_cycles, (size_t)cex->n_cycles + 1,
                  sizeof *cex->cycles) ||
        !psi_grow((void **)&cex->idx, &p->cap_idx, (size_t)cex->n_idx + (size_t)len,
                  sizeof *cex->idx) ||
        !psi_grow((void **)&cex->conds, &p->cap_conds, (size_t)cex->n_conds + n_cond + 1,
                  sizeof *cex->conds) ||
        !psi_grow((void **)&cex->rconds, &p->cap_rconds, (size_t)cex->n_rconds + n_rc + 1,
                  sizeof *cex->rconds))
        return UINT32_MAX;
    cex->cycles[cex->n_cycles] = (psi_cex_cycle){.first = cex->n_idx,
                                                 .len = (uint32_t)len,
                                                 .cond_first = cex->n_conds,
                                                 .n_cond = n_cond,
                                                 .rcond_first = cex->n_rconds,
                                                 .n_rcond = n_rc};
    if (n_cond)
        memcpy(cex->conds + cex->n_conds, cond, n_cond * sizeof *cond);
    cex->n_conds += n_cond;
    for (uint32_t i = 0; i < n_rc; i++)
        cex->rconds[cex->n_rconds++] = p->rmap[rc[i]];
    for (int i = 0; i < len; i++)
        cex->idx[cex->n_idx++] = cex_edge(p, c[i]);
    return cex->n_cycles++;
}

/* The cex reads and candidates of the reads that take part. */
static bool add_reads(pres *p)
{
    const psi_sub_polygraph *L = p->L;
    psi_cex *cex = p->cex;
    cex->reads = malloc((L->n_reads ? L->n_reads : 1) * sizeof *cex->reads);
    cex->rcands = malloc((L->n_ch ? L->n_ch : 1) * sizeof *cex->rcands);
    if (!cex->reads || !cex->rcands)
        return false;
    for (uint32_t r = 0; r < L->n_reads; r++) {
        if (!p->rin[r])
            continue;
        const psi_sub_read *rd = &L->reads[r];
        uint32_t ri = cex->n_reads++;
        cex->reads[ri] = (psi_cex_read){.op = rd->op,
                                        .txn = L->node_txn[rd->reader],
                                        .key = rd->key,
                                        .writer = UINT32_MAX,
                                        .how = PSI_RF_DECIDED,
                                        .first = cex->n_rcands,
                                        .n = rd->n};
        for (uint32_t j = rd->first; j < rd->first + rd->n; j++) {
            p->rmap[j] = cex->n_rcands;
            cex->rcands[cex->n_rcands++] = (psi_cex_rcand){
                .read = ri, .txn = L->node_txn[L->ch[j].writer], .cycle = UINT32_MAX};
        }
    }
    return true;
}

psi_status psi_cex_present(const psi_sub_polygraph *L, bool ser, psi_cex *cex, psi_diag *d)
{
    pres p = {.L = L, .ser = ser, .cex = cex};
    psi_status st = PSI_OK;
    uint32_t n = L->n_e ? L->n_e : 1, nc = L->n_c ? L->n_c : 1;
    uint32_t nr = L->n_reads ? L->n_reads : 1, nch = L->n_ch ? L->n_ch : 1;
    /* Room for the doubled graph's nodes; NULL diag: the message below
     * names this stage. */
    if (psi_graph_bfs_init(&p.bfs, 2 * L->n_nodes, NULL) != PSI_OK)
        return psi_diag_nomem(d, "presenting a counterexample");
    p.act = malloc(n);
    p.thr = malloc(n);
    p.cyc = malloc((2 * (size_t)n + 1) * sizeof *p.cyc);
    p.map = malloc(n * sizeof *p.map);
    p.state = calloc(nc, 1);
    p.fin = calloc(nc, 1);
    p.cho = malloc(nc * sizeof *p.cho);
    p.rin = calloc(nr, 1);
    p.rst = malloc(nr * sizeof *p.rst);
    p.rfin = malloc(nr * sizeof *p.rfin);
    p.ex = calloc(nch, 1);
    p.exfin = calloc(nch, 1);
    p.rmap = malloc(nch * sizeof *p.rmap);
    cex->edges = malloc(n * sizeof *cex->edges);
    /* Decisions in the order made: constraint c, or L->n_c + an excluded
     * read-from choice. */
    uint32_t *order = malloc(((size_t)nc + nch) * sizeof *order);
    uint32_t *open = malloc(nc * sizeof *open);
    psi_cex_cond *conds = malloc(nc * sizeof *conds);
    uint8_t *has = calloc(nc, 2), *chas = calloc(nch, 1);
    cex->choices = malloc(nc * sizeof *cex->choices);
    uint32_t n_order = 0;
    if (!p.act || !p.thr || !p.cyc || !p.map || !p.state || !p.fin || !p.cho || !p.rin || !p.rst ||
        !p.rfin || !p.ex || !p.exfin || !p.rmap || !cex->edges || !open || !order || !conds ||
        !has || !chas || !cex->choices)
        goto nomem;
    memset(p.map, 0xff, n * sizeof *p.map);
    memset(p.rst, 0xff, nr * sizeof *p.rst);
    memset(p.rmap, 0xff, nch * sizeof *p.rmap);
    /* Constraints left with no edges on a side take no part, nor do reads
     * with a candidate left with no edge. */
    for (uint32_t i = 0; i < L->n_e; i++) {
        if (L->e[i].on && L->e[i].cons >= 0)
            has[2 * L->e[i].cons + L->e[i].side] = 1;
        if (L->e[i].on && L->e[i].rc)
            chas[L->e[i].rc - 1] = 1;
    }
    for (uint32_t c = 0; c < L->n_c; c++) {
        p.cho[c] = UINT32_MAX;
        if (has[2 * c] && has[2 * c + 1]) {
            p.cho[c] = cex->n_choices;
            cex->choices[cex->n_choices++] =
                (psi_cex_choice){L->node_txn[L->c[c].t], L->node_txn[L->c[c].s], L->c[c].key, 0};
        }
    }
    for (uint32_t r = 0; r < L->n_reads; r++) {
        p.rin[r] = 1;
        for (uint32_t j = L->reads[r].first; j < L->reads[r].first + L->reads[r].n; j++)
            p.rin[r] &= chas[j];
    }
    if (!add_reads(&p))
        goto nomem;
    /* Resolve to a fixpoint: writer pairs one of whose orders closes a
     * cycle, and read-from candidates that close one (a read left with one
     * candidate takes it; with none, that is the conflict). */
    bool conflict = false;
    uint32_t conflict_c = UINT32_MAX, conflict_r = UINT32_MAX;
    for (bool changed = true; changed && !conflict;) {
        changed = false;
        for (uint32_t c = 0; c < L->n_c && !conflict; c++) {
            if (p.state[c] != OPEN || p.cho[c] == UINT32_MAX)
                continue;
            int ce = side_cycle(&p, c, 0), co = side_cycle(&p, c, 1);
            if (ce < 0 || co < 0)
                goto nomem;
            if (ce && co) {
                conflict = true;
                conflict_c = c;
            } else if (ce || co) {
                p.state[c] = ce ? OR : EITHER;
                order[n_order++] = c;
                changed = true;
            }
        }
        for (uint32_t r = 0; r < L->n_reads && !conflict; r++) {
            if (!p.rin[r] || p.rst[r] != UINT32_MAX)
                continue;
            const psi_sub_read *rd = &L->reads[r];
            for (uint32_t j = rd->first; j < rd->first + rd->n; j++) {
                if (p.ex[j])
                    continue;
                int len = choice_cycle(&p, j);
                if (len < 0)
                    goto nomem;
                if (len) {
                    p.ex[j] = 1;
                    order[n_order++] = L->n_c + j;
                    changed = true;
                }
            }
            uint32_t last = UINT32_MAX, left = cands_left(&p, r, &last);
            if (!left) {
                conflict = true;
                conflict_r = r;
            } else if (left == 1) {
                p.rst[r] = last;
            }
        }
    }
    memcpy(p.fin, p.state, nc);
    memcpy(p.rfin, p.rst, nr * sizeof *p.rfin);
    memcpy(p.exfin, p.ex, nch);
    for (uint32_t c = 0; c < L->n_c; c++)
        if (p.cho[c] != UINT32_MAX)
            cex->choices[p.cho[c]].decided = p.fin[c];
    for (uint32_t r = 0; r < L->n_reads; r++) {
        if (!p.rin[r])
            continue;
        const psi_sub_read *rd = &L->reads[r];
        psi_cex_read *cr = &cex->reads[cex->rcands[p.rmap[rd->first]].read];
        uint32_t last = UINT32_MAX, left = cands_left(&p, r, &last);
        for (uint32_t j = rd->first; j < rd->first + rd->n; j++)
            cex->rcands[p.rmap[j]].excluded = p.ex[j];
        if (!left) {
            cr->how = PSI_RF_EXCLUDED;
            continue;
        }
        cr->how = PSI_RF_FORCED;
        if (p.rfin[r] == UINT32_MAX) {
            /* Several candidates left: L is a violation whichever each
             * read takes, so take one (the latest writer left, the
             * initial state last) and show the cycles under it. */
            cr->how = PSI_RF_DECIDED;
            for (uint32_t j = rd->first; j < rd->first + rd->n; j++)
                if (!p.ex[j] && (p.rfin[r] == UINT32_MAX || L->ch[j].op != PSI_SRC_INIT))
                    p.rfin[r] = j;
        }
        cr->writer = L->node_txn[L->ch[p.rfin[r]].writer];
    }
    /* Certain and decided edges first, so they read before the rest. */
    for (uint32_t i = 0; i < L->n_e; i++) {
        if (!L->e[i].on || (L->e[i].rc && !p.rin[L->ch[L->e[i].rc - 1].read]))
            continue;
        uint32_t choice;
        uint8_t o = edge_origin(&p, i, &choice);
        if (o == PSI_CEX_CERTAIN || o == PSI_CEX_DECIDED)
            cex_edge(&p, i);
    }
    /* The reason of every decision, replayed in order: the cycle the
     * excluded order (or read-from candidate) closes with what was settled
     * before it. */
    memset(p.state, OPEN, nc);
    memset(p.rst, 0xff, nr * sizeof *p.rst);
    memset(p.ex, 0, nch);
    for (uint32_t k = 0; k < n_order; k++) {
        if (order[k] >= L->n_c) {
            uint32_t j = order[k] - L->n_c, r = L->ch[j].read;
            int len = choice_cycle(&p, j);
            if (len < 0)
                goto nomem;
            if (len > 0) {
                uint32_t ci = add_cycle(&p, p.cyc, len, NULL, 0, &j, 1);
                if (ci == UINT32_MAX)
                    goto nomem;
                cex->rcands[p.rmap[j]].cycle = ci;
            }
            p.ex[j] = 1;
            uint32_t last = UINT32_MAX;
            p.rst[r] = cands_left(&p, r, &last) == 1 ? last : UINT32_MAX;
            continue;
        }
        uint32_t c = order[k];
        int excluded = p.fin[c] == EITHER ? 1 : 0;
        int len = side_cycle(&p, c, excluded);
        if (len < 0)
            goto nomem;
        psi_cex_cond cond = {.choice = p.cho[c], .side = (uint8_t)excluded};
        if (len > 0 && add_cycle(&p, p.cyc, len, &cond, 1, NULL, 0) == UINT32_MAX)
            goto nomem;
        p.state[c] = p.fin[c];
    }
    memcpy(p.rst, p.rfin, nr * sizeof *p.rst); /* with the reads decided above */
    set_active(&p);
    int len = find_cycle(&p, NULL);
    if (len < 0)
        goto nomem;
    if (len > 0) {
        /* Certain and decided edges alone already close a cycle. */
        if (add_cycle(&p, p.cyc, len, NULL, 0, NULL, 0) == UINT32_MAX)
            goto nomem;
    } else if (conflict && conflict_r != UINT32_MAX) {
        /* Every candidate of one read closes a cycle: the replay above
         * already showed each candidate's. */
    } else if (conflict) {
        /* Both orders of one pair close a cycle with what is settled: the
         * cycles found when the conflict was seen are still there (the
         * settled state is the same), so len is never 0. */
        for (int side = 0; side < 2; side++) {
            len = side_cycle(&p, conflict_c, side);
            if (len < 0)
                goto nomem;
            assert(len > 0);
            psi_cex_cond cond = {.choice = p.cho[conflict_c], .side = (uint8_t)side};
            if (len > 0 && add_cycle(&p, p.cyc, len, &cond, 1, NULL, 0) == UINT32_MAX)
                goto nomem;
        }
    } else {
        /* Several open pairs together: one cycle per combination of the
         * first four (MAX_CASES), the others taking their either side. */
        uint32_t k = 0;
        for (uint32_t c = 0; c < L->n_c; c++)
            if (p.state[c] == OPEN && p.cho[c] != UINT32_MAX)
                open[k++] = c;
        for (uint32_t m = 0; m < (1u << (k < 4 ? k : 4)) && m < MAX_CASES; m++) {
            for (uint32_t i = 0; i < k; i++) {
                uint8_t side = i < 4 ? (m >> i) & 1 : 0;
                p.state[open[i]] = side ? OR : EITHER;
                conds[i] = (psi_cex_cond){.choice = p.cho[open[i]], .side = side};
            }
            set_active(&p);
            len = find_cycle(&p, NULL);
            for (uint32_t i = 0; i < k; i++)
                p.state[open[i]] = OPEN;
            if (len < 0 || (len > 0 && add_cycle(&p, p.cyc, len, conds, k, NULL, 0) == UINT32_MAX))
                goto nomem;
        }
    }
    /* Every remaining edge of the violation (e.g. an open pair's edges off
     * the cycles shown) is listed too, so the counterexample is complete. */
    for (uint32_t i = 0; i < L->n_e; i++) {
        const psi_sub_edge *e = &L->e[i];
        if (!e->on || p.map[i] != UINT32_MAX || (e->cons < 0 && !e->rc) ||
            (e->cons >= 0 && p.cho[e->cons] == UINT32_MAX) ||
            (e->rc && !p.rin[L->ch[e->rc - 1].read]))
            continue;
        cex_edge(&p, i);
    }
    /* Transactions: the endpoints of the edges kept. */
    cex->txns = malloc((L->n_nodes ? L->n_nodes : 1) * sizeof *cex->txns);
    if (!cex->txns)
        goto nomem;
    for (uint32_t v = 0; v < L->n_nodes; v++) {
        bool used = false;
        for (uint32_t i = 0; i < cex->n_edges && !used; i++)
            used = cex->edges[i].from == L->node_txn[v] || cex->edges[i].to == L->node_txn[v];
        if (used)
            cex->txns[cex->n_txns++] = L->node_txn[v];
    }
    cex->present = true;
    goto out;
nomem:
    st = psi_diag_nomem(d, "presenting a counterexample");
out:
    free(p.act);
    free(p.thr);
    free(p.cyc);
    free(p.map);
    free(p.state);
    free(p.fin);
    free(p.cho);
    free(p.rin);
    free(p.rst);
    free(p.rfin);
    free(p.ex);
    free(p.exfin);
    free(p.rmap);
    free(open);
    free(conds);
    free(order);
    free(has);
    free(chas);
    psi_graph_bfs_free(&p.bfs);
    return st;
}
