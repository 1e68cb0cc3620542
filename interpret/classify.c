/* Naming a counterexample from its shape, in the vocabulary of
 * interpret/vocabulary.c (Elle's names wherever Elle has one):
 *   lost update   - two writers of a key that read the same version of it
 *                   (the initial one, or the same list prefix, included);
 *   G0 / G1c      - a cycle of write-write dependencies only / without
 *                   anti-dependencies;
 *   G-single      - exactly one anti-dependency (a causality violation when
 *                   the rest is session order and reads-from);
 *   long fork     - two non-adjacent anti-dependencies and otherwise only
 *                   reads-from and session order; G-nonadjacent otherwise;
 *   G2-item       - adjacent anti-dependencies (write skew with two
 *                   transactions): forbidden by SER only;
 *   graph-free anomalies (internal, G1a, G1b, unwritten read, incompatible
 *   order) come straight from validation.
 *
 * A violation rests on more than the cycle it shows: on the reasons for
 * the version orders it decided, and, when writer pairs stay open, on one
 * cycle per order. A history violates a level only if all of those are
 * forbidden there, so the violation is named after the weakest of them
 * (the one the fewest levels forbid: G2-item < long fork, G-nonadjacent <
 * G-single < G1c < G0). That is why the same counterexample gets the same
 * name under SI and SER, and why a history that satisfies SI is never
 * given an SI anomaly's name under SER: some part of it needs SER's rule,
 * a G2-item. */
#include "interpret/describe.h"
#include "interpret/local.h"

#include <stdio.h>
#include <string.h>

/* Does t write key (its final write)? */
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

/* t's external read of key (its first operation on it, a read), or
 * UINT32_MAX. */
static uint32_t external_read(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t key)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t i = 0; i < tx->n_ops; i++) {
        uint32_t o = tx->first_op + i;
        if (h->ops[o].key == key && (idx->op_info[o] & PSI_OI_EXTERNAL_READ))
            return o;
    }
    return UINT32_MAX;
}

/* ---- lost update ---- */

/* The writer read `op` (a read with several candidate writers) was
 * resolved to in the counterexample, UINT32_MAX if none. */
static uint32_t resolved_writer(const psi_cex *cex, uint32_t op)
{
    for (uint32_t i = 0; i < cex->n_reads; i++)
        if (cex->reads[i].op == op)
            return cex->reads[i].writer;
    return UINT32_MAX;
}

/* Two transactions a, b of the counterexample that both read the same
 * version of key (the same writer's, the initial one, the same list) and
 * both overwrite it: whichever installs second missed the first's write.
 * The counterexample must show a dependency between them on that key. */
static bool same_read_pair(const psi_history *h, const psi_index *idx, psi_cex *cex)
{
    for (uint32_t i = 0; i < cex->n_edges; i++) {
        const psi_cex_edge *e = &cex->edges[i];
        if (e->type == PSI_EDGE_SO || e->from == PSI_INIT_TXN || e->to == PSI_INIT_TXN ||
            e->type == PSI_EDGE_WR)
            continue;
        uint32_t a = e->from < e->to ? e->from : e->to, b = e->from < e->to ? e->to : e->from;
        uint32_t key = e->key;
        if (!writes_key(h, idx, a, key) || !writes_key(h, idx, b, key))
            continue;
        uint32_t ra = external_read(h, idx, a, key), rb = external_read(h, idx, b, key);
        if (ra == UINT32_MAX || rb == UINT32_MAX)
            continue;
        uint32_t src = idx->read_src[ra], wa = resolved_writer(cex, ra),
                 wb = resolved_writer(cex, rb);
        if (wa != UINT32_MAX && wa == wb) {
            /* reads of a repeated value, both resolved to one writer */
            char x[64], y[64], w[64];
            psi_fmt_txn(h, a, x, sizeof x);
            psi_fmt_txn(h, b, y, sizeof y);
            psi_fmt_txn(h, wa, w, sizeof w);
            const char *k = PSI_KEY_NAME(h, key);
            cex->kind = PSI_CEX_LOST_UPDATE;
            snprintf(cex->summary, sizeof cex->summary,
                     "lost update on key %s: %s writes value %s; %s and %s both read it and "
                     "both overwrite key %s, so one of the two updates is lost",
                     k, w, PSI_VALUE_NAME(h, h->ops[ra].value), x, y, k);
            return true;
        }
        if (src != idx->read_src[rb] || src == PSI_SRC_NONE)
            continue;
        char x[64], y[64], w[64], r[160];
        psi_fmt_txn(h, a, x, sizeof x);
        psi_fmt_txn(h, b, y, sizeof y);
        const char *k = PSI_KEY_NAME(h, key);
        cex->kind = PSI_CEX_LOST_UPDATE;
        if (h->ops[ra].flags & PSI_OPF_LIST) {
            psi_fmt_op(h, ra, r, sizeof r);
            snprintf(cex->summary, sizeof cex->summary,
                     "lost update on key %s: %s and %s both read %s and both append to key "
                     "%s, so one of the two updates is lost",
                     k, x, y, r, k);
        } else if (src == PSI_SRC_INIT) {
            snprintf(cex->summary, sizeof cex->summary,
                     "lost update on key %s: %s and %s both read its initial value and both "
                     "overwrite key %s, so one of the two updates is lost",
                     k, x, y, k);
        } else {
            psi_fmt_txn(h, idx->op_txn[src], w, sizeof w);
            snprintf(cex->summary, sizeof cex->summary,
                     "lost update on key %s: %s writes value %s; %s and %s both read it and "
                     "both overwrite key %s, so one of the two updates is lost",
                     k, w, PSI_VALUE_NAME(h, h->ops[src].value), x, y, k);
        }
        return true;
    }
    return false;
}

/* Generalized: an open pair a, b on key x where each read a version of x
 * the other overwrites (a -RW(x)-> b and b -RW(x)-> a). */
static bool crossed_pair(const psi_history *h, psi_cex *cex)
{
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
        const char *key = PSI_KEY_NAME(h, ch->key);
        cex->kind = PSI_CEX_LOST_UPDATE;
        snprintf(cex->summary, sizeof cex->summary,
                 "lost update on key %s: %s and %s both read key %s and both overwrite it, "
                 "each missing the other's write, so one of the two updates is lost",
                 key, x, y, key);
        return true;
    }
    return false;
}

/* ---- cycles ---- */

typedef struct shape {
    uint32_t n, rw, ww, wr, so;
    bool adjacent_rw;
} shape;

static const psi_cex_edge *cyc_edge(const psi_cex *cex, const psi_cex_cycle *c, uint32_t i)
{
    return &cex->edges[cex->idx[c->first + i % c->len]];
}

static shape cycle_shape(const psi_cex *cex, const psi_cex_cycle *c)
{
    shape s = {.n = c->len};
    for (uint32_t i = 0; i < c->len; i++) {
        const psi_cex_edge *e = cyc_edge(cex, c, i), *nx = cyc_edge(cex, c, i + 1);
        s.rw += e->type == PSI_EDGE_RW;
        s.ww += e->type == PSI_EDGE_WW;
        s.wr += e->type == PSI_EDGE_WR;
        s.so += e->type == PSI_EDGE_SO;
        if (c->len > 1 && e->type == PSI_EDGE_RW && nx->type == PSI_EDGE_RW)
            s.adjacent_rw = true;
    }
    return s;
}

static psi_cex_kind shape_kind(const shape *s)
{
    if (s->adjacent_rw)
        return PSI_CEX_G2_ITEM;
    if (s->rw == 0)
        return s->ww == s->n ? PSI_CEX_G0 : PSI_CEX_G1C;
    if (s->rw == 1)
        return PSI_CEX_G_SINGLE;
    return s->rw == 2 && s->ww == 0 ? PSI_CEX_LONG_FORK : PSI_CEX_G_NONADJACENT;
}

/* How weak an anomaly is: higher is forbidden by fewer levels (G2-item:
 * SER only). CYCLE: unknown, weaker than anything. */
static int weakness(psi_cex_kind k)
{
    switch (k) {
    case PSI_CEX_G0:
        return 0;
    case PSI_CEX_G1C:
        return 1;
    case PSI_CEX_G_SINGLE:
        return 2;
    case PSI_CEX_LONG_FORK:
        return 3;
    case PSI_CEX_G_NONADJACENT:
        return 4;
    case PSI_CEX_G2_ITEM:
        return 5;
    default:
        return 6;
    }
}

/* Is cycle c the reason of a decision (conditioned on a decided choice's
 * excluded order)? */
static bool is_reason(const psi_cex *cex, const psi_cex_cycle *c)
{
    for (uint32_t i = 0; i < c->n_cond; i++)
        if (cex->choices[cex->conds[c->cond_first + i].choice].decided)
            return true;
    /* or the reason a read was forced to another writer */
    for (uint32_t i = 0; i < c->n_rcond; i++) {
        const psi_cex_rcand *rc = &cex->rcands[cex->rconds[c->rcond_first + i]];
        if (rc->excluded && cex->reads[rc->read].how == PSI_RF_FORCED)
            return true;
    }
    return false;
}

/* Does cycle rc exclude a candidate of the read edge e needs (the reason
 * e's read was forced)? */
static bool excludes_read_of(const psi_cex *cex, const psi_cex_cycle *rc, const psi_cex_edge *e)
{
    if (!e->rcand)
        return false;
    uint32_t read = cex->rcands[e->rcand - 1].read;
    for (uint32_t k = 0; k < rc->n_rcond; k++)
        if (cex->rcands[cex->rconds[rc->rcond_first + k]].read == read)
            return true;
    return false;
}

typedef struct named {
    psi_cex_kind kind;
    const psi_cex_cycle *cycle; /* the cycle of that kind */
} named;

/* The weakest kind among cycle c and the reasons its decided edges rest
 * on (recursively). A decided edge with no reason shown (a raw cycle whose
 * interpretation ran out of budget) rests on the check's own rule: trusted
 * under SI, unknown (CYCLE) under SER. */
static named rests_on(const psi_cex *cex, const psi_cex_cycle *c, bool ser, int depth)
{
    shape sh = cycle_shape(cex, c);
    named w = {shape_kind(&sh), c};
    for (uint32_t i = 0; i < c->len; i++) {
        const psi_cex_edge *e = cyc_edge(cex, c, i);
        if (e->origin != PSI_CEX_DECIDED)
            continue;
        /* Its read taken as decided (not forced): the cycle holds in the
         * failing assignment shown, no reason to look for. */
        if (e->choice == UINT32_MAX && e->rcand &&
            cex->reads[cex->rcands[e->rcand - 1].read].how != PSI_RF_FORCED)
            continue;
        bool found = false;
        for (uint32_t r = 0; r < cex->n_cycles && depth < 8; r++) {
            const psi_cex_cycle *rc = &cex->cycles[r];
            bool on = false;
            for (uint32_t k = 0; k < rc->n_cond && !on; k++)
                on = cex->conds[rc->cond_first + k].choice == e->choice && rc != c;
            on = on || (rc != c && e->choice == UINT32_MAX && excludes_read_of(cex, rc, e));
            if (!on)
                continue;
            found = true;
            named rw = rests_on(cex, rc, ser, depth + 1);
            if (weakness(rw.kind) > weakness(w.kind))
                w = rw;
        }
        if (!found && ser && weakness(w.kind) < weakness(PSI_CEX_CYCLE))
            w = (named){PSI_CEX_CYCLE, c};
    }
    return w;
}

/* "(1,2) -WW(0)-> (1,3) -RW(0)-> (1,2)" into buf. */
static void fmt_cycle(const psi_history *h, const psi_cex *cex, const psi_cex_cycle *c, char *buf,
                      size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < c->len && used < n; i++) {
        const psi_cex_edge *e = cyc_edge(cex, c, i);
        char a[64];
        psi_fmt_txn(h, e->from, a, sizeof a);
        int k;
        if (e->type == PSI_EDGE_SO)
            k = snprintf(buf + used, n - used, "%s -SO-> ", a);
        else
            k = snprintf(buf + used, n - used, "%s -%s(%s)-> ", a,
                         psi_edge_type_name((psi_edge_type)e->type), PSI_KEY_NAME(h, e->key));
        used += k > 0 ? (size_t)k : 0;
    }
    if (used < n && c->len) {
        char a[64];
        psi_fmt_txn(h, cyc_edge(cex, c, 0)->from, a, sizeof a);
        snprintf(buf + used, n - used, "%s", a);
    }
}

/* "; (1,3) and (2,8) both write key 0, and either order of the two closes
 * a forbidden cycle" for a cycle that exists under an open pair's order. */
static void fmt_open_pair(const psi_history *h, const psi_cex *cex, const psi_cex_cycle *c,
                          char *buf, size_t n)
{
    buf[0] = '\0';
    for (uint32_t j = 0; j < c->len; j++) {
        const psi_cex_edge *ce = cyc_edge(cex, c, j);
        if (ce->origin != PSI_CEX_EITHER && ce->origin != PSI_CEX_OR)
            continue;
        const psi_cex_choice *ch = &cex->choices[ce->choice];
        char x[64], y[64];
        psi_fmt_txn(h, ch->t, x, sizeof x);
        psi_fmt_txn(h, ch->s, y, sizeof y);
        snprintf(buf, n,
                 "; %s and %s both write key %s, and either order of the two closes a "
                 "forbidden cycle",
                 x, y, PSI_KEY_NAME(h, ch->key));
        return;
    }
}

static void name_cycle(const psi_history *h, psi_cex *cex, const psi_cex_cycle *c, psi_cex_kind k)
{
    cex->kind = k;
    char cyc[512], pair[320];
    fmt_cycle(h, cex, c, cyc, sizeof cyc);
    fmt_open_pair(h, cex, c, pair, sizeof pair);
    const psi_cex_edge *rw[2] = {NULL, NULL};
    uint32_t nrw = 0;
    for (uint32_t i = 0; i < c->len; i++) {
        const psi_cex_edge *e = cyc_edge(cex, c, i);
        if (e->type == PSI_EDGE_RW && nrw < 2)
            rw[nrw++] = e;
    }
    shape s = cycle_shape(cex, c);
    char r[64], w[64], r2[64], w2[64];
    char *sum = cex->summary;
    size_t n = sizeof cex->summary;
    switch (k) {
    case PSI_CEX_G_SINGLE:
        psi_fmt_txn(h, rw[0]->from, r, sizeof r);
        psi_fmt_txn(h, rw[0]->to, w, sizeof w);
        if (s.ww == 0)
            snprintf(sum, n,
                     "G-single (a causality violation): %s reads key %s but misses the write "
                     "of %s, which its session or causal past had already seen: %s%s",
                     r, PSI_KEY_NAME(h, rw[0]->key), w, cyc, pair);
        else
            snprintf(sum, n,
                     "G-single (read skew): %s reads key %s but misses the write of %s, which "
                     "the rest of the cycle puts before it: %s%s",
                     r, PSI_KEY_NAME(h, rw[0]->key), w, cyc, pair);
        break;
    case PSI_CEX_LONG_FORK:
        psi_fmt_txn(h, rw[0]->from, r, sizeof r);
        psi_fmt_txn(h, rw[0]->to, w, sizeof w);
        psi_fmt_txn(h, rw[1]->from, r2, sizeof r2);
        psi_fmt_txn(h, rw[1]->to, w2, sizeof w2);
        snprintf(sum, n,
                 "long fork: %s and %s see the writes of %s and %s in opposite orders (%s misses "
                 "%s, %s misses %s): %s%s",
                 r, r2, w, w2, r, w, r2, w2, cyc, pair);
        break;
    case PSI_CEX_G_NONADJACENT:
        snprintf(sum, n,
                 "G-nonadjacent: a cycle of %u dependencies with %u anti-dependencies, no two "
                 "adjacent: %s%s",
                 s.n, s.rw, cyc, pair);
        break;
    case PSI_CEX_G2_ITEM:
        if (s.n == 2 && s.rw == 2) {
            psi_fmt_txn(h, rw[0]->from, r, sizeof r);
            psi_fmt_txn(h, rw[0]->to, w, sizeof w);
            snprintf(sum, n,
                     "G2-item (write skew): %s and %s each overwrite a key the other read (keys "
                     "%s and %s); snapshot isolation allows it, serializability does not: "
                     "%s%s",
                     r, w, PSI_KEY_NAME(h, rw[0]->key), PSI_KEY_NAME(h, rw[1]->key), cyc, pair);
        } else {
            snprintf(sum, n,
                     "G2-item: a cycle of %u dependencies with adjacent anti-dependencies "
                     "(serializability forbids it, snapshot isolation does not): %s%s",
                     s.n, cyc, pair);
        }
        break;
    case PSI_CEX_G0:
        snprintf(sum, n, "G0 (write cycle): %s%s", cyc, pair);
        break;
    case PSI_CEX_G1C:
        snprintf(sum, n, "G1c (circular information flow): %s%s", cyc, pair);
        break;
    default:
        snprintf(sum, n,
                 "cycle of %u dependencies (%u SO, %u WR, %u WW, %u RW) whose version orders "
                 "could not be established here: %s%s",
                 s.n, s.so, s.wr, s.ww, s.rw, cyc, pair);
        break;
    }
}

/* ---- graph-free anomalies ---- */

/* Where two list reads first disagree: "[1 2 5]" vs "[1 2 3 4]" at 3. */
static uint32_t first_difference(const psi_history *h, uint32_t a, uint32_t b, uint64_t *va,
                                 uint64_t *vb)
{
    uint32_t la, lb;
    const uint64_t *x = psi_history_list(h, a, &la), *y = psi_history_list(h, b, &lb);
    uint32_t i = 0;
    while (i < la && i < lb && x[i] == y[i])
        i++;
    *va = i < la ? x[i] : 0;
    *vb = i < lb ? y[i] : 0;
    return i;
}

/* The graph-free anomaly the counterexample shows (cex->anomaly). */
static void name_anomaly(const psi_history *h, psi_cex *cex)
{
    const psi_anomaly *an = &cex->anomaly;
    uint32_t op = an->op;
    psi_anomaly_kind ak = (psi_anomaly_kind)an->kind;
    cex->kind = psi_cex_kind_of_anomaly(ak);
    char t[64], o[160], ot[64], oo[160];
    psi_fmt_txn(h, an->txn, t, sizeof t);
    psi_fmt_op(h, op, o, sizeof o);
    char *sum = cex->summary;
    size_t n = sizeof cex->summary;
    if (an->other_op == PSI_SRC_NONE) {
        snprintf(sum, n, "unwritten read: %s in %s reads a value no transaction wrote", o, t);
        return;
    }
    psi_fmt_txn(h, an->other_txn, ot, sizeof ot);
    psi_fmt_op(h, an->other_op, oo, sizeof oo);
    switch (ak) {
    case PSI_ANOM_INT:
        if (an->nonrepeatable) {
            cex->kind = PSI_CEX_NONREPEATABLE_READ;
            snprintf(sum, n,
                     "non-repeatable read: %s in %s sees another committed version than its own "
                     "earlier %s (allowed under RC and PL-2 only)",
                     o, t, oo);
        } else if (an->other_op > op)
            snprintf(sum, n,
                     "internal: %s in %s reads the value its own transaction writes only later, "
                     "in %s",
                     o, t, oo);
        else
            snprintf(sum, n, "internal: %s in %s disagrees with its own earlier %s", o, t, oo);
        break;
    case PSI_ANOM_G1A:
        snprintf(sum, n, "G1a (aborted read): %s in %s observes %s of %s, which aborted", o, t, oo,
                 ot);
        break;
    case PSI_ANOM_G1B:
        snprintf(sum, n,
                 "G1b (intermediate read): %s in %s observes %s of %s, which that transaction "
                 "later overwrote",
                 o, t, oo, ot);
        break;
    case PSI_ANOM_INCOMPATIBLE_ORDER: {
        uint64_t va, vb;
        uint32_t at = first_difference(h, op, an->other_op, &va, &vb);
        snprintf(sum, n,
                 "incompatible order: %s in %s and %s in %s disagree at element %u (%s vs "
                 "%s): no order of key %s's appends gives both",
                 o, t, oo, ot, at + 1, PSI_VALUE_NAME(h, va), PSI_VALUE_NAME(h, vb),
                 PSI_KEY_NAME(h, h->ops[op].key));
        break;
    }
    default:
        snprintf(sum, n, "%s: %s in %s", psi_cex_kind_name(cex->kind), o, t);
    }
}

void psi_cex_classify(const psi_history *h, const psi_index *idx, bool ser, psi_cex *cex)
{
    if (cex->anomaly_op != UINT32_MAX) {
        name_anomaly(h, cex);
        return;
    }
    if (same_read_pair(h, idx, cex) || crossed_pair(h, cex))
        return;
    /* The violation: cycles that are not reasons. One without conditions
     * is a violation by itself (name the strongest); cycles conditioned on
     * open pairs are the cases of one violation (name the weakest). */
    named best = {PSI_CEX_CYCLE, NULL}, uncond = {PSI_CEX_CYCLE, NULL};
    bool any_case = false;
    for (uint32_t i = 0; i < cex->n_cycles; i++) {
        const psi_cex_cycle *c = &cex->cycles[i];
        if (is_reason(cex, c))
            continue;
        named w = rests_on(cex, c, ser, 0);
        if (c->n_cond == 0 && c->n_rcond == 0) {
            if (!uncond.cycle || weakness(w.kind) < weakness(uncond.kind))
                uncond = w;
        } else if (!any_case || weakness(w.kind) > weakness(best.kind)) {
            best = w;
            any_case = true;
        }
    }
    if (uncond.cycle)
        best = uncond;
    if (!best.cycle) {
        /* Only reasons (every pair decided, no cycle left open): the
         * reasons together are the violation. */
        for (uint32_t i = 0; i < cex->n_cycles; i++) {
            named w = rests_on(cex, &cex->cycles[i], ser, 0);
            if (!best.cycle || weakness(w.kind) > weakness(best.kind))
                best = w;
        }
    }
    if (best.cycle)
        name_cycle(h, cex, best.cycle, best.kind);
    else
        snprintf(cex->summary, sizeof cex->summary, "violation without a cycle to show");
}
