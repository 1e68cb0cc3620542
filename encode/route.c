/* Routing conditional readers' RW edges through relay nodes (route.h). */
#include "encode/route.h"

#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* One RW target of a write's conditional readers: an open constraint's
 * side (c = constraint << 1 | either) or a shared conditional edge
 * (c = CSUCC). w is the write op, or INIT_W | key for a key's initial
 * value. */
#define CSUCC  UINT32_MAX
#define INIT_W (1ull << 32)

typedef struct route_rec {
    uint64_t w;
    uint32_t to, key, c, seq;
} route_rec;

struct psi_route {
    route_rec *rec; /* sorted by (w, seq) */
    uint64_t n_rec;
    uint64_t *relay_w; /* [n_relay] the write of each relay node */
    uint32_t *stamp;   /* [n_nodes] scratch for SER's self targets */
    bool ser;
};

static const psi_cread *readers_of(const psi_polygraph *g, uint64_t w, uint32_t *n)
{
    return w & INIT_W ? psi_polygraph_cinit(g, (uint32_t)w, n)
                      : psi_polygraph_creaders(g, (uint32_t)w, n);
}

/* The readers routed into w's relay: those whose choice pruning did not
 * exclude (a forced one's edges are certain, as the direct encoding's). */
static uint32_t live_readers(const psi_polygraph *g, uint64_t w)
{
    uint32_t n, k = 0;
    const psi_cread *cr = readers_of(g, w, &n);
    for (uint32_t r = 0; r < n; r++)
        k += g->choice_state[cr[r].choice] != PSI_CH_EXCLUDED;
    return k;
}

static int rec_cmp(const void *a, const void *b)
{
    const route_rec *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static bool push_rec(struct psi_route *r, size_t *cap, route_rec rec)
{
    if (!psi_grow((void **)&r->rec, cap, (size_t)r->n_rec + 1, sizeof *r->rec))
        return false;
    rec.seq = (uint32_t)r->n_rec;
    r->rec[r->n_rec++] = rec;
    return true;
}

static bool routed(const psi_polygraph *g, uint64_t w, uint64_t n_targets)
{
    return n_targets >= 2 && live_readers(g, w) >= 2;
}

psi_status psi_route_plan(const psi_polygraph *g, psi_encoding *enc, bool ser, psi_diag *d)
{
    enc->n_relay = 0;
    struct psi_route *r = calloc(1, sizeof *r);
    if (!r)
        goto nomem;
    enc->route = r;
    r->ser = ser;
    size_t cap = 0;
    for (uint32_t c = 0; c < g->n_cons; c++) {
        const psi_constraint *con = &g->cons[c];
        if (con->state != PSI_C_OPEN)
            continue; /* pruning recorded the resolved side's edges */
        const psi_ckey *ks = g->ckeys + con->first;
        for (uint32_t i = 0, nk = psi_constraint_n_keys(g, con); i < nk; i++)
            for (uint32_t either = 0; either < 2; either++) {
                uint32_t op = either ? ks[i].op_t : ks[i].op_s, n;
                if (!psi_polygraph_creaders(g, op, &n) || !n)
                    continue;
                route_rec rec = {.w = op,
                                 .to = either ? con->s : con->t,
                                 .key = ks[i].key,
                                 .c = c << 1 | either};
                if (!push_rec(r, &cap, rec))
                    goto nomem;
            }
    }
    for (uint64_t i = 0; i < g->n_csucc; i++) {
        const psi_cond_succ *e = &g->csucc[i];
        route_rec rec = {.w = e->op == PSI_CSUCC_INIT ? INIT_W | e->key : e->op,
                         .to = e->to,
                         .key = e->key,
                         .c = CSUCC};
        if (!push_rec(r, &cap, rec))
            goto nomem;
    }
    if (r->n_rec)
        qsort(r->rec, r->n_rec, sizeof *r->rec, rec_cmp);
    size_t cap_w = 0;
    for (uint64_t i = 0, j; i < r->n_rec; i = j) {
        for (j = i; j < r->n_rec && r->rec[j].w == r->rec[i].w;)
            j++;
        if (!routed(g, r->rec[i].w, j - i))
            continue;
        if (enc->n_relay >= UINT32_MAX / 4 ||
            !psi_grow((void **)&r->relay_w, &cap_w, (size_t)enc->n_relay + 1, sizeof *r->relay_w))
            goto nomem;
        r->relay_w[enc->n_relay++] = r->rec[i].w;
    }
    r->stamp = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *r->stamp);
    if (!r->stamp)
        goto nomem;
    return PSI_OK;
nomem:
    return psi_diag_nomem(d, "routing read-from choices' edges");
}

/* The label of target rec: its constraint side's selector, none for a
 * shared conditional edge (its write's transaction precedes `to`). */
static int target_lit(const psi_encoding *enc, const route_rec *rec)
{
    if (rec->c == CSUCC)
        return 0;
    int v = enc->cons_var[rec->c >> 1];
    assert(v);
    return rec->c & 1 ? v : -v;
}

/* The direct edges of one target: from every reader but `to` (the
 * encoding's self-loop), labelled by its choice and the target's label.
 * A shared conditional edge's forced readers are known edges already. */
static bool direct_edges(const psi_polygraph *g, psi_encoding *enc, const route_rec *rec)
{
    uint32_t n;
    const psi_cread *cr = readers_of(g, rec->w, &n);
    int tl = target_lit(enc, rec);
    for (uint32_t x = 0; x < n; x++) {
        uint8_t st = g->choice_state[cr[x].choice];
        if (st == PSI_CH_EXCLUDED || (rec->c == CSUCC && st != PSI_CH_OPEN))
            continue;
        int lit = enc->choice_var[cr[x].choice];
        if (!psi_encode_choice_edge(enc, cr[x].txn, rec->to, PSI_EDGE_RW, false, rec->key,
                                    lit ? lit : tl, lit ? tl : 0))
            return false;
    }
    return true;
}

bool psi_route_emit(const psi_polygraph *g, psi_encoding *enc)
{
    struct psi_route *r = enc->route;
    uint32_t relay = 0, epoch = 0;
    for (uint64_t i = 0, j; i < r->n_rec; i = j) {
        uint64_t w = r->rec[i].w;
        for (j = i; j < r->n_rec && r->rec[j].w == w;)
            j++;
        if (!routed(g, w, j - i)) {
            for (uint64_t k = i; k < j; k++)
                if (!direct_edges(g, enc, &r->rec[k]))
                    return false;
            continue;
        }
        assert(relay < enc->n_relay && r->relay_w[relay] == w);
        uint32_t node = enc->n_txn_nodes + relay++, n;
        const psi_cread *cr = readers_of(g, w, &n);
        epoch++;
        for (uint32_t x = 0; x < n; x++) {
            if (g->choice_state[cr[x].choice] == PSI_CH_EXCLUDED)
                continue;
            r->stamp[cr[x].txn] = epoch;
            if (!psi_encode_choice_edge(enc, cr[x].txn, node, PSI_EDGE_RW, false, r->rec[i].key,
                                        enc->choice_var[cr[x].choice], 0))
                return false;
        }
        for (uint64_t k = i; k < j; k++) {
            const route_rec *rec = &r->rec[k];
            bool ok = r->ser && r->stamp[rec->to] == epoch
                          ? direct_edges(g, enc, rec)
                          : psi_encode_choice_edge(enc, node, rec->to, PSI_EDGE_RW, true, rec->key,
                                                   target_lit(enc, rec), 0);
            if (!ok)
                return false;
        }
    }
    assert(relay == enc->n_relay);
    return true;
}

uint32_t psi_route_hint(const psi_polygraph *g, const psi_encoding *enc, const uint32_t *key,
                        uint32_t i)
{
    uint64_t w = enc->route->relay_w[i];
    return w & INIT_W ? 0 : key[g->op_txn[(uint32_t)w]];
}

static bool is_relay(const psi_encoding *enc, uint32_t node)
{
    return node >= enc->n_txn_nodes;
}

static void reverse(psi_edge *e, uint32_t lo, uint32_t hi)
{
    for (; hi > lo + 1; lo++, hi--) {
        psi_edge t = e[lo];
        e[lo] = e[hi - 1];
        e[hi - 1] = t;
    }
}

uint32_t psi_route_join(const psi_encoding *enc, psi_edge *cycle, uint32_t n)
{
    if (!n)
        return 0;
    /* Rotate so that the cycle does not start with a relay's edge out. */
    uint32_t s = 0;
    while (s < n && is_relay(enc, cycle[s].from))
        s++;
    assert(s < n);        /* a relay node is entered from a transaction */
    reverse(cycle, 0, s); /* rotated left by s: three reversals */
    reverse(cycle, s, n);
    reverse(cycle, 0, n);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        psi_edge e = cycle[i];
        if (is_relay(enc, e.to)) {
            assert(i + 1 < n && cycle[i + 1].from == e.to);
            e.to = cycle[++i].to;
            e.type = PSI_EDGE_RW;
            e.origin = PSI_FROM_CONSTRAINT;
            if (e.from == e.to)
                continue;
        }
        cycle[k++] = e;
    }
    return k;
}

psi_status psi_encoding_model_choice_edges(const psi_encoding *enc, psi_edge **edges, uint64_t *n,
                                           psi_diag *d)
{
    uint64_t base = enc->n_known_edges + enc->n_constraint_edges, m = 0;
    uint32_t nr = enc->n_relay;
    /* Active halves per relay node: counts, then CSR of in- and out-halves. */
    uint64_t *in_off = calloc((size_t)nr + 1, sizeof *in_off);
    uint64_t *out_off = calloc((size_t)nr + 1, sizeof *out_off);
    uint64_t *in = NULL, *out = NULL;
    psi_edge *e = NULL;
    if (!in_off || !out_off)
        goto nomem;
    uint64_t total = 0;
    for (uint64_t i = 0; i < enc->n_choice_edges; i++) {
        if (!psi_acyc_edge_active(enc->graph, (uint32_t)(base + i)))
            continue;
        const psi_edge *c = &enc->choice_edge[i];
        if (is_relay(enc, c->to))
            in_off[c->to - enc->n_txn_nodes + 1]++;
        else if (is_relay(enc, c->from))
            out_off[c->from - enc->n_txn_nodes + 1]++;
        else
            total++;
    }
    for (uint32_t r = 0; r < nr; r++) {
        total += in_off[r + 1] * out_off[r + 1];
        in_off[r + 1] += in_off[r];
        out_off[r + 1] += out_off[r];
    }
    in = malloc((in_off[nr] ? in_off[nr] : 1) * sizeof *in);
    out = malloc((out_off[nr] ? out_off[nr] : 1) * sizeof *out);
    e = malloc((total ? total : 1) * sizeof *e);
    if (!in || !out || !e)
        goto nomem;
    for (uint64_t i = 0; i < enc->n_choice_edges; i++) {
        if (!psi_acyc_edge_active(enc->graph, (uint32_t)(base + i)))
            continue;
        const psi_edge *c = &enc->choice_edge[i];
        if (is_relay(enc, c->to))
            in[in_off[c->to - enc->n_txn_nodes]++] = i;
        else if (is_relay(enc, c->from))
            out[out_off[c->from - enc->n_txn_nodes]++] = i;
        else
            e[m++] = *c;
    }
    /* The cursors now point at each list's end: walk back to its start. */
    for (uint32_t r = 0; r < nr; r++) {
        uint64_t i0 = r ? in_off[r - 1] : 0, o0 = r ? out_off[r - 1] : 0;
        for (uint64_t a = i0; a < in_off[r]; a++)
            for (uint64_t b = o0; b < out_off[r]; b++) {
                psi_edge x = enc->choice_edge[in[a]];
                x.to = enc->choice_edge[out[b]].to;
                if (x.from != x.to)
                    e[m++] = x;
            }
    }
    free(in_off);
    free(out_off);
    free(in);
    free(out);
    *edges = e;
    *n = m;
    return PSI_OK;
nomem:
    free(in_off);
    free(out_off);
    free(in);
    free(out);
    free(e);
    return psi_diag_nomem(d, "keeping the model");
}

void psi_route_free(struct psi_route *r)
{
    if (!r)
        return;
    free(r->rec);
    free(r->relay_w);
    free(r->stamp);
    free(r);
}
