/* Naming a counterexample from its shape (see explain.h):
 *   lost update  - T writes x; A and B both read that version of x and both
 *                  overwrite x;
 *   causality violation - a cycle with one anti-dependency R -RW(x)-> W and
 *                  otherwise only session order and reads-from: W is in R's
 *                  causal past, yet R misses W's write of x;
 *   long fork    - a cycle of reads-from/session order with two
 *                  non-adjacent anti-dependencies: two readers see two
 *                  writes in opposite orders;
 *   write skew   - (SER) two transactions each overwrite what the other read;
 *   G0 / G1c     - cycles of WW only / without anti-dependencies;
 *   G1a, G1b, INT and unwritten reads come straight from validation;
 *   anything else is a "cycle" with its shape spelled out. */
#include "interpret/describe.h"
#include "interpret/local.h"

#include <stdio.h>
#include <string.h>

static bool writes_key(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t key)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        if (h->ops[o].kind == PSI_OP_WRITE && h->ops[o].key == key &&
            (idx->op_info[o] & PSI_OI_FINAL_WRITE))
            return true;
    }
    return false;
}

/* The value of key written by t (its final write), for messages. */
static uint64_t written(const psi_history *h, uint32_t t, uint32_t key)
{
    const psi_txn *tx = &h->txns[t];
    uint64_t v = 0;
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        const psi_op *o = &h->ops[tx->first_op + i];
        if (o->kind == PSI_OP_WRITE && o->key == key)
            v = o->value;
    }
    return v;
}

static bool lost_update(const psi_history *h, const psi_index *idx, psi_cex *cex)
{
    for (uint32_t i = 0; i < cex->n_edges; i++) {
        const psi_cex_edge *a = &cex->edges[i];
        if (a->type != PSI_EDGE_WR || !writes_key(h, idx, a->to, a->key))
            continue;
        for (uint32_t j = i + 1; j < cex->n_edges; j++) {
            const psi_cex_edge *b = &cex->edges[j];
            if (b->type != PSI_EDGE_WR || b->from != a->from || b->key != a->key ||
                b->to == a->to || !writes_key(h, idx, b->to, b->key))
                continue;
            char t[64], x[64], y[64];
            psi_fmt_txn(h, a->from, t, sizeof t);
            psi_fmt_txn(h, a->to, x, sizeof x);
            psi_fmt_txn(h, b->to, y, sizeof y);
            unsigned long long key = (unsigned long long)h->keys[a->key];
            cex->kind = PSI_CEX_LOST_UPDATE;
            snprintf(cex->summary, sizeof cex->summary,
                     "lost update on key %llu: %s writes value %llu; %s and %s both read it and "
                     "both overwrite key %llu, so one of the two updates is lost",
                     key, t, (unsigned long long)written(h, a->from, a->key), x, y, key);
            return true;
        }
    }
    /* Generalized: an open pair A, B on key x where each read a version of
     * x the other overwrites (A -RW(x)-> B and B -RW(x)-> A). */
    for (uint32_t c = 0; c < cex->n_choices; c++) {
        const psi_cex_choice *ch = &cex->choices[c];
        if (ch->decided)
            continue;
        bool ab = false, ba = false;
        for (uint32_t i = 0; i < cex->n_edges; i++) {
            const psi_cex_edge *e = &cex->edges[i];
            if (e->type != PSI_EDGE_RW || e->key != ch->key)
                continue;
            ab |= e->from == ch->t && e->to == ch->s;
            ba |= e->from == ch->s && e->to == ch->t;
        }
        if (!ab || !ba)
            continue;
        char x[64], y[64];
        psi_fmt_txn(h, ch->t, x, sizeof x);
        psi_fmt_txn(h, ch->s, y, sizeof y);
        unsigned long long key = (unsigned long long)h->keys[ch->key];
        cex->kind = PSI_CEX_LOST_UPDATE;
        snprintf(cex->summary, sizeof cex->summary,
                 "lost update on key %llu: %s and %s both read key %llu and both overwrite it, "
                 "each missing the other's write, so one of the two updates is lost",
                 key, x, y, key);
        return true;
    }
    return false;
}

typedef struct shape {
    uint32_t n, rw, ww, wr, so;
    bool adjacent_rw;
} shape;

static shape cycle_shape(const psi_cex *cex, const psi_cex_cycle *c)
{
    shape s = {.n = c->len};
    for (uint32_t i = 0; i < c->len; i++) {
        const psi_cex_edge *e = &cex->edges[cex->idx[c->first + i]];
        const psi_cex_edge *nx = &cex->edges[cex->idx[c->first + (i + 1) % c->len]];
        s.rw += e->type == PSI_EDGE_RW;
        s.ww += e->type == PSI_EDGE_WW;
        s.wr += e->type == PSI_EDGE_WR;
        s.so += e->type == PSI_EDGE_SO;
        if (c->len > 1 && e->type == PSI_EDGE_RW && nx->type == PSI_EDGE_RW)
            s.adjacent_rw = true;
    }
    return s;
}

static psi_cex_kind cycle_kind(const shape *s)
{
    if (s->adjacent_rw)
        return s->rw == 2 && s->n == 2 ? PSI_CEX_WRITE_SKEW : PSI_CEX_CYCLE;
    if (s->rw == 0)
        return s->ww == s->n ? PSI_CEX_G0 : PSI_CEX_G1C;
    if (s->rw == 1 && s->ww == 0)
        return PSI_CEX_CAUSALITY;
    if (s->rw == 2 && s->ww == 0)
        return PSI_CEX_LONG_FORK;
    return PSI_CEX_CYCLE;
}

static int rank(psi_cex_kind k)
{
    switch (k) {
    case PSI_CEX_G0:
        return 0;
    case PSI_CEX_CAUSALITY:
        return 1;
    case PSI_CEX_LONG_FORK:
        return 2;
    case PSI_CEX_G1C:
        return 3;
    case PSI_CEX_WRITE_SKEW:
        return 4;
    default:
        return 5;
    }
}

/* "(1,2) -WW(0)-> (1,3) -RW(0)-> (1,2)" into buf. */
static void fmt_cycle(const psi_history *h, const psi_cex *cex, const psi_cex_cycle *c, char *buf,
                      size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < c->len && used < n; i++) {
        const psi_cex_edge *e = &cex->edges[cex->idx[c->first + i]];
        char a[64];
        psi_fmt_txn(h, e->from, a, sizeof a);
        int k;
        if (e->type == PSI_EDGE_SO)
            k = snprintf(buf + used, n - used, "%s -SO-> ", a);
        else
            k = snprintf(buf + used, n - used, "%s -%s(%llu)-> ", a,
                         psi_edge_type_name((psi_edge_type)e->type),
                         (unsigned long long)h->keys[e->key]);
        used += k > 0 ? (size_t)k : 0;
    }
    if (used < n && c->len) {
        char a[64];
        psi_fmt_txn(h, cex->edges[cex->idx[c->first]].from, a, sizeof a);
        snprintf(buf + used, n - used, "%s", a);
    }
}

static void name_cycle(const psi_history *h, const psi_index *idx, psi_cex *cex,
                       const psi_cex_cycle *c, psi_cex_kind k)
{
    cex->kind = k;
    char cyc[512];
    fmt_cycle(h, cex, c, cyc, sizeof cyc);
    const psi_cex_edge *rw[2] = {NULL, NULL};
    uint32_t nrw = 0;
    for (uint32_t i = 0; i < c->len; i++) {
        const psi_cex_edge *e = &cex->edges[cex->idx[c->first + i]];
        if (e->type == PSI_EDGE_RW && nrw < 2)
            rw[nrw++] = e;
    }
    char r[64], w[64], r2[64], w2[64];
    switch (k) {
    case PSI_CEX_CAUSALITY: {
        psi_fmt_txn(h, rw[0]->from, r, sizeof r);
        psi_fmt_txn(h, rw[0]->to, w, sizeof w);
        snprintf(cex->summary, sizeof cex->summary,
                 "causality violation: %s reads key %llu but misses the write of %s, which its "
                 "session or causal past had already seen: %s",
                 r, (unsigned long long)h->keys[rw[0]->key], w, cyc);
        break;
    }
    case PSI_CEX_LONG_FORK:
        psi_fmt_txn(h, rw[0]->from, r, sizeof r);
        psi_fmt_txn(h, rw[0]->to, w, sizeof w);
        psi_fmt_txn(h, rw[1]->from, r2, sizeof r2);
        psi_fmt_txn(h, rw[1]->to, w2, sizeof w2);
        snprintf(cex->summary, sizeof cex->summary,
                 "long fork: %s and %s see the writes of %s and %s in opposite orders (%s misses "
                 "%s, %s misses %s): %s",
                 r, r2, w, w2, r, w, r2, w2, cyc);
        break;
    case PSI_CEX_WRITE_SKEW:
        psi_fmt_txn(h, rw[0]->from, r, sizeof r);
        psi_fmt_txn(h, rw[0]->to, w, sizeof w);
        snprintf(cex->summary, sizeof cex->summary,
                 "write skew: %s and %s each overwrite a key the other read (keys %llu and %llu); "
                 "snapshot isolation allows it, serializability does not: %s",
                 r, w, (unsigned long long)h->keys[rw[0]->key],
                 (unsigned long long)h->keys[rw[1]->key], cyc);
        break;
    case PSI_CEX_G0:
        snprintf(cex->summary, sizeof cex->summary, "G0 write cycle: %s", cyc);
        break;
    case PSI_CEX_G1C:
        snprintf(cex->summary, sizeof cex->summary, "G1c circular information flow: %s", cyc);
        break;
    default: {
        shape s = cycle_shape(cex, c);
        const char *what = s.adjacent_rw ? " (two of them adjacent RW: forbidden by SER only)"
                           : s.rw == 1   ? " (a single anti-dependency: Elle's G-single)"
                                         : "";
        /* Name the open writer pair the cycle depends on. */
        char pair[320] = "";
        for (uint32_t j = 0; j < c->len; j++) {
            const psi_cex_edge *ce = &cex->edges[cex->idx[c->first + j]];
            if (ce->origin != PSI_CEX_EITHER && ce->origin != PSI_CEX_OR)
                continue;
            const psi_cex_choice *ch = &cex->choices[ce->choice];
            char x[64], y[64];
            psi_fmt_txn(h, ch->t, x, sizeof x);
            psi_fmt_txn(h, ch->s, y, sizeof y);
            snprintf(pair, sizeof pair,
                     "; %s and %s both write key %llu, and either order of the two closes a "
                     "forbidden cycle",
                     x, y, (unsigned long long)h->keys[ch->key]);
            break;
        }
        snprintf(cex->summary, sizeof cex->summary,
                 "cycle of %u dependencies (%u SO, %u WR, %u WW, %u RW)%s: %s%s", s.n, s.so, s.wr,
                 s.ww, s.rw, what, cyc, pair);
        break;
    }
    }
    (void)idx;
}

static void name_anomaly(const psi_history *h, const psi_index *idx, psi_cex *cex)
{
    const psi_anomaly *an = &idx->anomalies[0];
    static const psi_cex_kind kinds[] = {PSI_CEX_INT, PSI_CEX_G1A, PSI_CEX_G1B, PSI_CEX_UNWRITTEN};
    cex->kind = an->kind <= PSI_ANOM_UNWRITTEN ? kinds[an->kind] : PSI_CEX_CYCLE;
    char t[64], o[128], ot[64], oo[128];
    psi_fmt_txn(h, an->txn, t, sizeof t);
    psi_fmt_op(h, an->op, o, sizeof o);
    if (an->other_op == PSI_SRC_NONE) {
        snprintf(cex->summary, sizeof cex->summary,
                 "%s: %s in %s reads a value no transaction wrote", psi_cex_kind_name(cex->kind), o,
                 t);
        return;
    }
    psi_fmt_txn(h, an->other_txn, ot, sizeof ot);
    psi_fmt_op(h, an->other_op, oo, sizeof oo);
    switch (an->kind) {
    case PSI_ANOM_INT:
        if (an->other_op > an->op)
            snprintf(cex->summary, sizeof cex->summary,
                     "INT violation: %s in %s reads the value its own transaction writes only "
                     "later, in %s",
                     o, t, oo);
        else
            snprintf(cex->summary, sizeof cex->summary,
                     "INT violation: %s in %s disagrees with its own earlier %s", o, t, oo);
        break;
    case PSI_ANOM_G1A:
        snprintf(cex->summary, sizeof cex->summary,
                 "G1a aborted read: %s in %s observes %s of %s, which aborted", o, t, oo, ot);
        break;
    case PSI_ANOM_G1B:
        snprintf(cex->summary, sizeof cex->summary,
                 "G1b intermediate read: %s in %s observes %s of %s, which that transaction later "
                 "overwrote",
                 o, t, oo, ot);
        break;
    default:
        snprintf(cex->summary, sizeof cex->summary, "%s: %s in %s", psi_cex_kind_name(cex->kind), o,
                 t);
    }
}

static bool is_reason(const psi_cex *cex, const psi_cex_cycle *c)
{
    for (uint32_t i = 0; i < c->n_cond; i++)
        if (cex->choices[cex->conds[c->cond_first + i].choice].decided)
            return true;
    return false;
}

/* Does the cycle rely on the decided order of some choice (a DECIDED
 * edge)? */
static bool uses_decided(const psi_cex *cex, const psi_cex_cycle *c)
{
    for (uint32_t i = 0; i < c->len; i++)
        if (cex->edges[cex->idx[c->first + i]].origin == PSI_CEX_DECIDED)
            return true;
    return false;
}

/* Is some condition of cycle r a choice whose decided order cycle c's
 * DECIDED edges rely on (r is a reason behind c)? */
static bool explains(const psi_cex *cex, const psi_cex_cycle *r, const psi_cex_cycle *c)
{
    for (uint32_t i = 0; i < r->n_cond; i++) {
        uint32_t ch = cex->conds[r->cond_first + i].choice;
        for (uint32_t j = 0; j < c->len; j++) {
            const psi_cex_edge *e = &cex->edges[cex->idx[c->first + j]];
            if (e->origin == PSI_CEX_DECIDED && e->choice == ch)
                return true;
        }
    }
    return false;
}

/* Does the cycle have a WW edge the history does not show by itself? */
static bool uncertain_ww(const psi_cex *cex, const psi_cex_cycle *c)
{
    for (uint32_t i = 0; i < c->len; i++) {
        const psi_cex_edge *e = &cex->edges[cex->idx[c->first + i]];
        if (e->type == PSI_EDGE_WW && e->origin != PSI_CEX_CERTAIN)
            return true;
    }
    return false;
}

/* A cycle without anti-dependencies names G0/G1c only when its WW edges
 * are certain. An open pair's order is no evidence of a write cycle: its
 * other order closes another cycle, which the loop below ranks on its own. If one was decided, the
 * violation really is the reason for that decision (the other order closes a cycle, typically with
 * RW edges: an SI history checked under SER shows a write skew this way), so name the best-ranked
 * reason cycle instead, or fall back to a plain "cycle". */
static psi_cex_kind reason_kind(const psi_cex *cex, const psi_cex_cycle *named, bool ser,
                                const psi_cex_cycle **out)
{
    psi_cex_kind best = PSI_CEX_CYCLE;
    int br = 99;
    *out = NULL;
    for (uint32_t i = 0; i < cex->n_cycles; i++) {
        const psi_cex_cycle *c = &cex->cycles[i];
        if (!explains(cex, c, named) || uses_decided(cex, c))
            continue;
        shape sh = cycle_shape(cex, c);
        psi_cex_kind k = cycle_kind(&sh);
        if (k == PSI_CEX_WRITE_SKEW && !ser)
            k = PSI_CEX_CYCLE;
        if (k == PSI_CEX_CYCLE || k == PSI_CEX_G0 || k == PSI_CEX_G1C)
            continue;
        if (rank(k) < br) {
            br = rank(k);
            best = k;
            *out = c;
        }
    }
    return best;
}

/* Does the cycle use an edge the history does not show by itself? */
static bool uncertain(const psi_cex *cex, const psi_cex_cycle *c)
{
    for (uint32_t i = 0; i < c->len; i++)
        if (cex->edges[cex->idx[c->first + i]].origin != PSI_CEX_CERTAIN)
            return true;
    return false;
}

void psi_cex_classify(const psi_history *h, const psi_index *idx, bool ser, psi_cex *cex)
{
    if (cex->anomaly_op != UINT32_MAX) {
        name_anomaly(h, idx, cex);
        return;
    }
    if (lost_update(h, idx, cex))
        return;
    int best = 99;
    const psi_cex_cycle *bc = NULL;
    psi_cex_kind bk = PSI_CEX_CYCLE;
    /* Reasons for decisions (cycles conditioned on a decided pair's
     * excluded order) explain; the remaining cycles are the violation. */
    bool any_final = false;
    for (uint32_t i = 0; i < cex->n_cycles; i++)
        any_final |= !is_reason(cex, &cex->cycles[i]);
    for (uint32_t i = 0; i < cex->n_cycles; i++) {
        if (any_final && is_reason(cex, &cex->cycles[i]))
            continue;
        shape s = cycle_shape(cex, &cex->cycles[i]);
        psi_cex_kind k = cycle_kind(&s);
        if (k == PSI_CEX_WRITE_SKEW && !ser)
            k = PSI_CEX_CYCLE;
        const psi_cex_cycle *named = &cex->cycles[i];
        bool dec = uses_decided(cex, named);
        if ((k == PSI_CEX_G0 || k == PSI_CEX_G1C) && uncertain_ww(cex, named)) {
            const psi_cex_cycle *rc = NULL;
            k = dec ? reason_kind(cex, named, ser, &rc) : PSI_CEX_CYCLE;
            if (rc)
                named = rc;
        }
        /* Under SER, an SI-style shape (causality, long fork, G0, G1c) that
         * needs a version order the history does not fix is no evidence of
         * an SI anomaly: that order may be forced only by SER's stricter
         * rule. Name the write skew behind the decision if there is one,
         * else call it a cycle and show its shape. */
        if (ser && k != PSI_CEX_WRITE_SKEW && k != PSI_CEX_CYCLE && uncertain(cex, named)) {
            const psi_cex_cycle *rc = NULL;
            psi_cex_kind rk = dec ? reason_kind(cex, named, ser, &rc) : PSI_CEX_CYCLE;
            if (rc && rk == PSI_CEX_WRITE_SKEW) {
                k = rk;
                named = rc;
            } else {
                k = PSI_CEX_CYCLE;
            }
        }
        int r = 2 * rank(k);
        if (r < best) {
            best = r;
            bc = named;
            bk = k;
        }
    }
    if (bc)
        name_cycle(h, idx, cex, bc, bk);
    else
        snprintf(cex->summary, sizeof cex->summary, "violation without a cycle to show");
}
