/* Encoding the pruned polygraph into the solver (see encode.h). */
#include "encode/encode.h"

#include "core/graph.h"
#include "core/vec.h"
#include "encode/reduce.h"
#include "encode/route.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* PSI: theory edge id's polygraph edge and labels (psi_encoding.psi_edges,
 * psi_lits). Apart from theory_edge, which every SI and SER edge passes
 * too, so that it stays small enough to be inlined into their loops. */
static bool psi_record(psi_encoding *enc, int64_t id, uint32_t from, uint32_t to,
                       psi_edge_type type, uint32_t key, int a, int b)
{
    /* psi_lits holds two entries per edge: its capacity is 2 * cap_psi
     * (starting it at cap_psi re-grew it, a realloc to the same size, on
     * every edge past half of each capacity: ~8 M instructions of PSI's
     * encode on GeneralRW) */
    size_t need = (size_t)id + 1, c1 = enc->cap_psi, c2 = 2 * enc->cap_psi;
    if (!psi_grow((void **)&enc->psi_edges, &c1, need, sizeof *enc->psi_edges) ||
        !psi_grow((void **)&enc->psi_lits, &c2, 2 * need, sizeof *enc->psi_lits))
        return false;
    enc->cap_psi = c1 < c2 / 2 ? c1 : c2 / 2;
    enc->psi_edges[id] = (psi_edge){.from = from, .to = to, .key = key, .type = (uint8_t)type};
    enc->psi_lits[2 * id] = a;
    enc->psi_lits[2 * id + 1] = b;
    return true;
}

/* Every theory edge goes through here: PC moves some targets (encode.h)
 * and notes which twins they enter, PSI records each edge and its
 * labels. */
static bool theory_edge(psi_encoding *enc, uint32_t from, uint32_t to, psi_edge_type type,
                        bool relay, uint32_t key, int a, int b)
{
    uint32_t n = enc->n_txn_nodes, tgt = to;
    if (enc->pc && type == PSI_EDGE_WW) {
        tgt = n + to;
        enc->pc_twin_in[to] = 1;
    }
    psi_edge_kind kind = relay                    ? PSI_EDGE_RELAY
                         : psi_edge_is_anti(type) ? PSI_EDGE_ANTI
                                                  : PSI_EDGE_DEP;
    uint32_t tf = from;
    if (enc->node_map) {
        /* compact_nodes marked every endpoint this can be given */
        assert(!enc->pc && !enc->psi && !enc->n_relay && from < n && tgt < n);
        tf = enc->node_map[from];
        tgt = enc->node_map[tgt];
        assert(tf != UINT32_MAX && tgt != UINT32_MAX);
    }
    int64_t id = psi_acyc_add_edge(enc->graph, tf, tgt, kind, a, b);
    return id >= 0 && (!enc->psi || psi_record(enc, id, from, to, type, key, a, b));
}

typedef struct edge_sink {
    psi_encoding *enc;
    int lit;
    uint64_t n;
    bool failed;
} edge_sink;

static bool add_labelled(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    (void)key;
    edge_sink *s = ctx;
    int gate = s->enc->outcome_var ? s->enc->outcome_var[from] : 0;
    if (!theory_edge(s->enc, from, to, type, false, key, s->lit, gate)) {
        s->failed = true;
        return false;
    }
    s->n++;
    return true;
}

/* One edge of a choice (route.h), remembered for mapping theory edge
 * ids back. */
bool psi_encode_choice_edge(psi_encoding *enc, uint32_t from, uint32_t to, psi_edge_type type,
                            bool relay, uint32_t key, int a, int b)
{
    if (from == to)
        return true;
    size_t cap = (size_t)enc->cap_choice_edge;
    if (!psi_grow((void **)&enc->choice_edge, &cap, (size_t)enc->n_choice_edges + 1,
                  sizeof *enc->choice_edge))
        return false;
    enc->cap_choice_edge = cap;
    if (!theory_edge(enc, from, to, type, relay, key, a, b))
        return false;
    enc->choice_edge[enc->n_choice_edges++] = (psi_edge){
        .from = from, .to = to, .key = key, .type = (uint8_t)type, .origin = PSI_FROM_CONSTRAINT};
    return true;
}

/* The label of choice `choice`'s edges: its variable, 0 when pruning
 * forced it (the edges are certain: no unit clauses are needed). Callers
 * leave out the edges of choices pruning excluded (choice_out). */
static int choice_lit(const psi_polygraph *g, const psi_encoding *enc, uint32_t choice)
{
    (void)g;
    return enc->choice_var[choice];
}

static bool choice_out(const psi_polygraph *g, uint32_t choice)
{
    return g->choice_state[choice] == PSI_CH_EXCLUDED;
}

/* The conditional readers' RW edges of one side of open constraint c. */
static bool constraint_choice_edges(const psi_polygraph *g, psi_encoding *enc, uint32_t c,
                                    bool either)
{
    const psi_constraint *con = &g->cons[c];
    if (con->state != PSI_C_OPEN)
        return true; /* pruning recorded the resolved side's edges (as known or conditional) */
    int sel = either ? enc->cons_var[c] : -enc->cons_var[c];
    uint32_t to = either ? con->s : con->t;
    const psi_ckey *ks = g->ckeys + con->first;
    for (uint32_t i = 0, nk = psi_constraint_n_keys(g, con); i < nk; i++) {
        uint32_t n;
        const psi_cread *cr = psi_polygraph_creaders(g, either ? ks[i].op_t : ks[i].op_s, &n);
        for (uint32_t r = 0; r < n; r++) {
            if (choice_out(g, cr[r].choice))
                continue;
            int lit = choice_lit(g, enc, cr[r].choice);
            if (!psi_encode_choice_edge(enc, cr[r].txn, to, PSI_EDGE_RW, false, ks[i].key,
                                        lit ? lit : sel, lit ? sel : 0))
                return false;
        }
    }
    return true;
}

static psi_status encode_choices(const psi_polygraph *g, psi_encoding *enc, psi_diag *d)
{
    if (g->n_choices > (uint32_t)INT32_MAX - 1 - enc->n_vars)
        return psi_diag_set(d, PSI_ERR_LIMIT, "%u read-from choices exceed the solver's variables",
                            g->n_choices);
    /* Only open choices get a variable: a forced one's edges are certain,
     * an excluded one's are left out, and a variable no edge or clause
     * mentions would still be decided after every restart. */
    enc->choice_var = calloc(g->n_choices, sizeof *enc->choice_var);
    if (!enc->choice_var)
        goto nomem;
    int next_var = (int)enc->n_vars;
    for (uint32_t c = 0; c < g->n_choices; c++)
        if (g->choice_state[c] == PSI_CH_OPEN)
            enc->choice_var[c] = ++next_var;
    if (psi_sat_reserve(enc->sat, next_var) != 0)
        goto nomem;
    /* The conditional readers' RW edges: routed under SI and SER
     * (route.h), one per reader and target under PC and PSI. */
    if (enc->route && !psi_route_emit(g, enc))
        goto nomem;
    for (uint32_t c = 0; !enc->route && c < g->n_cons; c++)
        if (!constraint_choice_edges(g, enc, c, true) || !constraint_choice_edges(g, enc, c, false))
            goto nomem;
    for (uint64_t i = 0; i < g->n_cond; i++) {
        const psi_cond_edge *e = &g->cond[i];
        if (!choice_out(g, e->choice) &&
            !psi_encode_choice_edge(enc, e->from, e->to, (psi_edge_type)e->type, false, e->key,
                                    choice_lit(g, enc, e->choice), 0))
            goto nomem;
    }
    for (uint64_t i = 0; !enc->route && i < g->n_csucc; i++) {
        const psi_cond_succ *e = &g->csucc[i];
        uint32_t n;
        const psi_cread *cr = psi_polygraph_csucc_readers(g, e, &n);
        for (uint32_t k = 0; k < n; k++)
            if (g->choice_state[cr[k].choice] == PSI_CH_OPEN &&
                !psi_encode_choice_edge(enc, cr[k].txn, e->to, PSI_EDGE_RW, false, e->key,
                                        choice_lit(g, enc, cr[k].choice), 0))
                goto nomem;
    }
    /* The WR edge of every choice of a writer (the initial transaction
     * precedes everyone already), and "at least one" per read. */
    int *clause = NULL;
    size_t cap = 0;
    for (uint32_t a = 0; a < g->n_amb; a++) {
        const psi_amb_read *r = &g->amb[a];
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t w = g->amb_cand[r->first + j], ch = (uint32_t)(r->first + j);
            if (w != PSI_SRC_INIT && !choice_out(g, ch) &&
                !psi_encode_choice_edge(enc, g->op_txn[w], r->txn, PSI_EDGE_WR, false, r->key,
                                        choice_lit(g, enc, ch), 0))
                goto nomem;
        }
    }
    for (uint32_t a = 0; a < g->n_amb; a++) {
        const psi_amb_read *r = &g->amb[a];
        if (!psi_grow((void **)&clause, &cap, (size_t)r->n + 1, sizeof *clause)) {
            free(clause);
            goto nomem;
        }
        size_t n = 0;
        bool forced = false;
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t ch = (uint32_t)(r->first + j);
            forced |= g->choice_state[ch] == PSI_CH_FORCED;
            if (!choice_out(g, ch))
                clause[n++] = choice_lit(g, enc, ch);
        }
        /* An optional reader needs a writer only if it commits. */
        if (enc->outcome_var && enc->outcome_var[r->txn])
            clause[n++] = -enc->outcome_var[r->txn];
        /* A forced read needs no clause (its edges are certain). */
        if (!forced && psi_sat_add_clause(enc->sat, clause, n) != 0) {
            free(clause);
            goto nomem;
        }
    }
    free(clause);
    enc->n_vars = (uint32_t)next_var;
    return PSI_OK;
nomem:
    return psi_diag_nomem(d, "encoding read-from choices");
}

/* Phases of the read-from choices: each read with open choices starts on
 * one candidate, the latest writer before the reader in a topological
 * order of the known graph (the writer a store would most likely have
 * shown it), and off every other one; with no writer before it, on the
 * initial value if that is a candidate, else on the earliest writer. The
 * known graph's vote (psi_acyc_suggest_phases) would switch on every
 * candidate that precedes the reader, and each extra choice only adds
 * edges, hence conflicts. A hint only: any phase is sound. */
static psi_status choice_phases(const psi_polygraph *g, const psi_encoding *enc, bool ser,
                                psi_diag *d)
{
    psi_graph kg;
    psi_edge_view known = {.first = g->known, .n = g->n_known};
    psi_status st = psi_graph_build(&kg, g->n_nodes, &known, ser ? 0 : PSI_GRAPH_SI, d);
    if (st != PSI_OK)
        return st;
    uint32_t *order = malloc((kg.n_nodes ? kg.n_nodes : 1) * sizeof *order);
    uint32_t *pos = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *pos);
    uint32_t n_ordered = 0;
    if (!order || !pos)
        st = psi_diag_nomem(d, "choosing initial phases");
    if (st == PSI_OK)
        st = psi_graph_topo(&kg, !ser, order, &n_ordered, d);
    if (st == PSI_OK) {
        /* Nodes on a cycle (pruning found none, but --no-pruning does not
         * look) keep UINT32_MAX: last. */
        memset(pos, 0xff, g->n_nodes * sizeof *pos);
        for (uint32_t i = 0; i < n_ordered; i++)
            if (ser || order[i] % 2 == 0)
                pos[ser ? order[i] : order[i] / 2] = i;
    }
    for (uint32_t a = 0; a < g->n_amb && st == PSI_OK; a++) {
        const psi_amb_read *r = &g->amb[a];
        uint32_t best = UINT32_MAX, best_pos = 0, first = UINT32_MAX, first_pos = UINT32_MAX;
        uint32_t init = UINT32_MAX, rpos = pos[r->txn];
        bool forced = false;
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t ch = (uint32_t)(r->first + j), w = g->amb_cand[ch];
            forced |= g->choice_state[ch] == PSI_CH_FORCED;
            if (g->choice_state[ch] != PSI_CH_OPEN)
                continue;
            if (w == PSI_SRC_INIT) {
                init = ch;
                continue;
            }
            uint32_t p = pos[g->op_txn[w]];
            if (p < rpos && (best == UINT32_MAX || p > best_pos)) {
                best = ch;
                best_pos = p;
            }
            if (p < first_pos || first == UINT32_MAX) {
                first = ch;
                first_pos = p;
            }
        }
        if (forced)
            continue;
        uint32_t pick = best != UINT32_MAX ? best : init != UINT32_MAX ? init : first;
        for (uint32_t j = 0; j < r->n && st == PSI_OK; j++) {
            uint32_t ch = (uint32_t)(r->first + j);
            if (g->choice_state[ch] != PSI_CH_OPEN)
                continue;
            int lit = enc->choice_var[ch];
            if (psi_sat_set_phase(enc->sat, ch == pick ? lit : -lit) != 0)
                st = psi_diag_nomem(d, "choosing initial phases");
        }
    }
    free(order);
    free(pos);
    psi_graph_free(&kg);
    return st;
}

/* PC: each constraint's initial phase by the vote of its sides' edges
 * against a topological order of the known DEP graph over the
 * transactions. The theory's own vote (psi_acyc_suggest_phases) compares
 * a WW edge's source with its target's twin (encode.h), whose place in the
 * theory's order says little about the target's: on the PolySI histories
 * that cost PC 80 times SI's conflicts. PSI takes the same vote: its
 * theory sends every RW edge to the sink, so the theory's vote never sees
 * them, and each RW edge against the order is a violation the refinement
 * (level_psi.c) finds one model at a time (GeneralWH: 83 models, 45 with
 * the vote). A hint only: any phase is sound. */
typedef struct pc_vote {
    const uint32_t *pos;
    int64_t v;
    bool either;
} pc_vote;

static bool pc_vote_edge(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    (void)type;
    (void)key;
    pc_vote *pv = ctx;
    if (pv->pos[from] != UINT32_MAX && pv->pos[to] != UINT32_MAX && from != to)
        pv->v += (pv->pos[from] < pv->pos[to]) == pv->either ? 1 : -1;
    return true;
}

static psi_status pc_phases(const psi_polygraph *g, const psi_encoding *enc, psi_diag *d)
{
    psi_graph kg;
    uint8_t *dep = malloc(g->n_known ? g->n_known : 1);
    if (!dep)
        return psi_diag_nomem(d, "choosing initial phases");
    for (uint64_t i = 0; i < g->n_known; i++)
        dep[i] = !psi_edge_is_anti((psi_edge_type)g->known[i].type);
    psi_edge_view known = {.first = g->known, .n = g->n_known, .active = dep};
    psi_status st = psi_graph_build(&kg, g->n_nodes, &known, 0, d);
    free(dep);
    if (st != PSI_OK)
        return st;
    uint32_t *order = malloc((kg.n_nodes ? kg.n_nodes : 1) * sizeof *order);
    uint32_t *pos = malloc((g->n_nodes ? g->n_nodes : 1) * sizeof *pos);
    uint32_t n_ordered = 0;
    if (!order || !pos)
        st = psi_diag_nomem(d, "choosing initial phases");
    if (st == PSI_OK)
        st = psi_graph_topo(&kg, false, order, &n_ordered, d);
    if (st == PSI_OK) {
        /* nodes on a DEP cycle (only with --no-pruning) have no say */
        memset(pos, 0xff, g->n_nodes * sizeof *pos);
        for (uint32_t i = 0; i < n_ordered; i++)
            pos[order[i]] = i;
    }
    for (uint32_t c = 0; c < g->n_cons && st == PSI_OK; c++) {
        const psi_constraint *con = &g->cons[c];
        if (con->state != PSI_C_OPEN)
            continue;
        pc_vote pv = {.pos = pos, .either = true};
        psi_constraint_for_each(g, con, true, pc_vote_edge, &pv);
        pv.either = false;
        psi_constraint_for_each(g, con, false, pc_vote_edge, &pv);
        int var = enc->cons_var[c];
        if (pv.v && psi_sat_set_phase(enc->sat, pv.v > 0 ? var : -var) != 0)
            st = psi_diag_nomem(d, "choosing initial phases");
    }
    free(order);
    free(pos);
    psi_graph_free(&kg);
    return st;
}

/* The known edges, unlabelled: those psi_reduce_known keeps (reduce.c
 * proves the theory finds the same cycles; PC and PSI, whose targets move
 * (encode.h), by rules of their own there), or all of them on request.
 * Theory ids 0 .. n_known_edges-1 follow known order; known_id maps them
 * back. */
/* PC: the kept edges pruning handed over (psi_encode_opts.pc_kept) as
 * psi_reduce_known_pc would give them: NULL when none was dropped. */
static psi_status take_pc_kept(const psi_polygraph *g, const psi_encode_opts *o, uint32_t **kept,
                               uint64_t *n, psi_diag *d)
{
    *kept = NULL;
    *n = g->n_known;
    if (o->n_pc_kept < g->n_known) {
        *kept = malloc((o->n_pc_kept ? o->n_pc_kept : 1) * sizeof **kept);
        if (!*kept)
            return psi_diag_nomem(d, "reducing the known edges");
        memcpy(*kept, o->pc_kept, o->n_pc_kept * sizeof **kept);
        *n = o->n_pc_kept;
    }
#ifndef NDEBUG
    /* the same rules on the same graph: check that they agree */
    uint32_t *fresh = NULL;
    uint64_t m = 0;
    if (psi_reduce_known_pc(g, &fresh, &m, d) == PSI_OK) {
        assert(m == *n && !fresh == !*kept);
        assert(!fresh || memcmp(fresh, *kept, m * sizeof *fresh) == 0);
        free(fresh);
    }
#endif
    return PSI_OK;
}

/* PSI: the known edges kept (*kept, *n; *kept NULL: all of them) less
 * those marked in drop (psi_encode_opts.psi_rw_drop), in the same order. */
static psi_status psi_drop_rw(const psi_polygraph *g, const uint8_t *drop, uint32_t **kept,
                              uint64_t *n, psi_diag *d)
{
    if (!*kept) {
        assert(*n == g->n_known && g->n_known <= UINT32_MAX);
        *kept = malloc((*n ? *n : 1) * sizeof **kept);
        if (!*kept)
            return psi_diag_nomem(d, "encoding the known edges");
        for (uint64_t i = 0; i < *n; i++)
            (*kept)[i] = (uint32_t)i;
    }
    uint64_t w = 0;
    for (uint64_t i = 0; i < *n; i++)
        if (!drop[(*kept)[i]])
            (*kept)[w++] = (*kept)[i];
    *n = w;
    return PSI_OK;
}

static psi_status encode_known(const psi_polygraph *g, psi_encoding *enc, bool ser, bool all,
                               const psi_encode_opts *opts, psi_diag *d)
{
    uint64_t n = g->n_known;
    /* Optional transactions: the reduction's replacement paths run
     * through session order, and session order out of an optional
     * transaction is gated, so a path through one may vanish; hand the
     * theory every known edge then (such histories are rare).
     * The theory orders its nodes by the whole known graph under SI and
     * SER (reduce.h: the solver's phases and decision order come from
     * that order), so reads with a choice of writers are reduced there.
     * PC's and PSI's reductions (their own rules) hand over no order, and
     * with a choice of writers the order from the reduced graph is far
     * worse (10k transactions, values 1..4 under SI: 0.5 M -> 7 M
     * decisions), so those keep every edge there. */
    if (!all && !g->opt && (!g->n_amb || (!enc->pc && !enc->psi))) {
        uint32_t *key = NULL;
        /* PC and PSI move edge targets (encode.h): rules of their own */
        bool handed = enc->pc && opts && opts->pc_kept && opts->pc_kept_of == g->n_known;
        psi_status st = handed     ? take_pc_kept(g, opts, &enc->known_id, &n, d)
                        : enc->pc  ? psi_reduce_known_pc(g, &enc->known_id, &n, d)
                        : enc->psi ? psi_reduce_known_dep(g, &enc->known_id, &n, d)
                                   : psi_reduce_known(g, ser, &enc->known_id, &n, &key, d);
        if (st == PSI_OK && enc->psi && opts && opts->psi_rw_drop &&
            opts->psi_rw_drop_of == g->n_known)
            st = psi_drop_rw(g, opts->psi_rw_drop, &enc->known_id, &n, d);
        if (st != PSI_OK)
            return st;
        /* Relay nodes go where their write's transaction goes. */
        uint32_t *k2 = key && enc->n_relay
                           ? realloc(key, ((size_t)g->n_nodes + enc->n_relay) * sizeof *key)
                           : key;
        if (key && !k2) {
            free(key);
            return psi_diag_nomem(d, "ordering the known edges");
        }
        key = k2;
        for (uint32_t i = 0; key && i < enc->n_relay; i++)
            key[g->n_nodes + i] = psi_route_hint(g, enc, key, i);
        /* The hint is per theory node: move each key to its node (the map
         * is monotone, so in place, front to back). */
        for (uint32_t v = 0; key && enc->node_map && v < g->n_nodes; v++)
            if (enc->node_map[v] != UINT32_MAX)
                key[enc->node_map[v]] = key[v];
        int rc = key ? psi_acyc_set_order_hint(enc->graph, key) : 0;
        free(key);
        if (rc)
            return psi_diag_nomem(d, "ordering the known edges");
    }
    for (uint64_t i = 0; i < n; i++) {
        const psi_edge *e = &g->known[enc->known_id ? enc->known_id[i] : i];
        if (!theory_edge(enc, e->from, e->to, (psi_edge_type)e->type, false, e->key, 0, 0))
            return psi_diag_nomem(d, "encoding the known edges");
    }
    enc->n_known_edges = n;
    return PSI_OK;
}

/* Optional transactions: outcome variables first + 1 .. first + n, in
 * transaction order (encode.h). */
static bool outcome_vars(const psi_polygraph *g, psi_encoding *enc, int first, uint32_t *n)
{
    enc->outcome_var = calloc(g->n_nodes ? g->n_nodes : 1, sizeof *enc->outcome_var);
    if (!enc->outcome_var)
        return false;
    *n = 0;
    for (uint32_t t = 0; t < g->n_nodes; t++)
        if (g->opt[t])
            enc->outcome_var[t] = first + (int)++*n;
    return *n == 0 || psi_sat_reserve(enc->sat, first + (int)*n) == 0;
}

static bool add_clause2(psi_encoding *enc, int a, int b)
{
    int c[2] = {a, b};
    return psi_sat_add_clause(enc->sat, c, b ? 2 : 1) == 0;
}

/* The outcomes' edges and clauses (encode.h): the gated edges, labelled
 * by their tail's outcome; a choice of an optional writer implies its
 * outcome (a forced one: the reader's outcome does, or it is a unit); a
 * choice of an optional reader implies the reader's; a fixed read of an
 * optional writer (its reader is optional: the index commits the writer
 * of a committed read) likewise. */
static psi_status encode_outcomes(const psi_polygraph *g, psi_encoding *enc, psi_diag *d)
{
    const int *ov = enc->outcome_var;
    for (uint64_t i = 0; i < g->n_gated; i++) {
        const psi_edge *e = &g->gated[i];
        assert(ov[e->from]);
        size_t cap = (size_t)enc->cap_choice_edge;
        if (e->from == e->to)
            continue;
        if (!psi_grow((void **)&enc->choice_edge, &cap, (size_t)enc->n_choice_edges + 1,
                      sizeof *enc->choice_edge))
            goto nomem;
        enc->cap_choice_edge = cap;
        if (!theory_edge(enc, e->from, e->to, (psi_edge_type)e->type, false, e->key, ov[e->from],
                         0))
            goto nomem;
        enc->choice_edge[enc->n_choice_edges++] = *e;
    }
    for (uint32_t a = 0; a < g->n_amb; a++) {
        const psi_amb_read *r = &g->amb[a];
        int o_r = ov[r->txn];
        for (uint32_t j = 0; j < r->n; j++) {
            uint32_t ch = (uint32_t)(r->first + j), w = g->amb_cand[ch];
            if (g->choice_state[ch] == PSI_CH_EXCLUDED)
                continue;
            int lit = enc->choice_var ? enc->choice_var[ch] : 0;
            int o_w = w == PSI_SRC_INIT ? 0 : ov[g->op_txn[w]];
            if (lit && o_r && !add_clause2(enc, -lit, o_r))
                goto nomem;
            if (o_w && !add_clause2(enc, lit ? -lit : o_r ? -o_r : o_w, lit || o_r ? o_w : 0))
                goto nomem;
        }
    }
    for (uint32_t k = 0; k < g->n_keys; k++)
        for (uint32_t i = g->w_off[k]; i < g->w_off[k + 1]; i++) {
            uint32_t op = g->w_op[i], n;
            int o_w = ov[g->op_txn[op]];
            const uint32_t *rd = o_w ? psi_polygraph_readers(g, op, &n) : NULL;
            for (uint32_t x = 0; rd && x < n; x++)
                if (!add_clause2(enc, ov[rd[x]] ? -ov[rd[x]] : o_w, ov[rd[x]] ? o_w : 0))
                    goto nomem;
        }
    return PSI_OK;
nomem:
    return psi_diag_nomem(d, "encoding outcomes of transactions");
}

static bool mark_node(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    (void)type;
    (void)key;
    uint32_t *map = ctx;
    map[from] = map[to] = 0;
    return true;
}

/* enc->node_map (encode.h) for the plain SI and SER encodings: marks the
 * endpoints of every edge encode_known and the constraint loop can add
 * (all known edges, a superset of the reduced ones, and both sides of the
 * open constraints), then numbers the marked transactions in transaction
 * order. The numbering is monotone, so the theory's static order (Kahn,
 * ties by node number) places the touched nodes in the same relative order
 * as before: the unmarked ones have no edge and only interleaved with
 * them. Leaves node_map NULL (the identity) when compacting saves little. */
static bool compact_nodes(const psi_polygraph *g, psi_encoding *enc)
{
    size_t n = g->n_nodes;
    uint32_t *map = malloc((n ? n : 1) * sizeof *map);
    if (!map)
        return false;
    memset(map, 0xff, n * sizeof *map);
    for (uint64_t i = 0; i < g->n_known; i++)
        map[g->known[i].from] = map[g->known[i].to] = 0;
    for (uint32_t c = 0; c < g->n_cons; c++)
        if (g->cons[c].state == PSI_C_OPEN) {
            psi_constraint_for_each(g, &g->cons[c], true, mark_node, map);
            psi_constraint_for_each(g, &g->cons[c], false, mark_node, map);
        }
    uint32_t k = 0;
    for (size_t v = 0; v < n; v++)
        if (map[v] != UINT32_MAX)
            map[v] = k++;
    /* Under a tenth saved: not worth a lookup per edge. */
    if ((uint64_t)k * 10 > (uint64_t)n * 9) {
        free(map);
        return true;
    }
    enc->node_map = map;
    enc->n_theory_nodes = k;
    return true;
}

psi_status psi_encode(const psi_polygraph *g, const psi_encode_opts *opts, psi_encoding *enc,
                      psi_diag *d)
{
    memset(enc, 0, sizeof *enc);
    enc->pc = opts && opts->pc;
    enc->psi = opts && opts->psi && !enc->pc;
    enc->n_txn_nodes = g->n_nodes;
    enc->aux_edge0 = UINT64_MAX;
    bool ser = (opts && opts->ser && !enc->pc) || enc->psi;
    /* Relay nodes for the conditional readers' RW edges (route.h) */
    if (g->n_choices && !enc->pc && !enc->psi && !(opts && opts->no_routing)) {
        psi_status st = psi_route_plan(g, enc, ser, d);
        if (st != PSI_OK) {
            psi_encoding_free(enc);
            return st;
        }
    }
    if (!enc->pc && !enc->psi && !enc->n_relay && !g->n_choices && !g->opt &&
        !compact_nodes(g, enc)) {
        psi_encoding_free(enc);
        return psi_diag_nomem(d, "numbering the solver's nodes");
    }
    /* PC: a twin per node (PSI's sink is the theory's own, acyclic.h) */
    uint64_t nodes = enc->node_map ? enc->n_theory_nodes
                     : enc->pc     ? 2 * (uint64_t)g->n_nodes
                                   : g->n_nodes + (uint64_t)enc->n_relay;
    if (nodes > UINT32_MAX - 1) {
        psi_encoding_free(enc);
        return psi_diag_set(d, PSI_ERR_LIMIT, "%u transactions are too many for the encoding",
                            g->n_nodes);
    }
    enc->sat = psi_sat_new();
    if (enc->sat && opts->stable_only) {
        int rc = psi_sat_set_option(enc->sat, "modes", 2);
        assert(rc == 0);
        (void)rc;
    }
    if (enc->pc && !(enc->pc_twin_in = calloc(g->n_nodes ? g->n_nodes : 1, 1)))
        goto nomem;
    enc->cons_var = calloc(g->n_cons ? g->n_cons : 1, sizeof *enc->cons_var);
    enc->cons_edge = calloc(g->n_cons ? g->n_cons : 1, sizeof *enc->cons_edge);
    if (!enc->sat || !enc->cons_var || !enc->cons_edge)
        goto nomem;
    enc->graph = psi_acyc_new(enc->sat, (uint32_t)nodes,
                              enc->psi ? PSI_ACYC_PSI
                              : ser    ? PSI_ACYC_SER
                                       : PSI_ACYC_SI);
    if (!enc->graph)
        goto nomem;
    if (opts && opts->no_theory_propagation)
        psi_acyc_set_propagation(enc->graph, false);

    psi_status kst = encode_known(g, enc, ser, opts && opts->no_known_reduction, opts, d);
    if (kst != PSI_OK) {
        psi_encoding_free(enc);
        return kst;
    }

    uint32_t open = 0;
    for (uint32_t c = 0; c < g->n_cons; c++)
        open += g->cons[c].state == PSI_C_OPEN;
    if (open > (uint32_t)INT32_MAX - 1)
        return psi_diag_set(d, PSI_ERR_LIMIT, "%u constraints exceed the solver's variables", open);
    if (open && psi_sat_reserve(enc->sat, (int)open) != 0)
        goto nomem;
    uint64_t next = enc->n_known_edges;
    int var = 0;
    uint32_t n_outcomes = 0;
    if (g->opt && !outcome_vars(g, enc, (int)open, &n_outcomes))
        goto nomem;
    for (uint32_t c = 0; c < g->n_cons; c++) {
        const psi_constraint *con = &g->cons[c];
        /* theory ids are 32-bit (psi_acyc_add_edge refuses more edges) */
        assert(next <= UINT32_MAX);
        enc->cons_edge[c] = (uint32_t)next;
        if (con->state != PSI_C_OPEN)
            continue;
        enc->cons_var[c] = ++var;
        edge_sink s = {.enc = enc, .lit = var};
        psi_constraint_for_each(g, con, true, add_labelled, &s);
        s.lit = -var;
        if (!s.failed)
            psi_constraint_for_each(g, con, false, add_labelled, &s);
        if (s.failed)
            goto nomem;
        next += s.n;
        enc->n_constraint_edges += s.n;
    }
    enc->n_vars = (uint32_t)var + n_outcomes;
    if (g->n_choices) {
        psi_status st = encode_choices(g, enc, d);
        if (st != PSI_OK) {
            psi_encoding_free(enc);
            return st;
        }
    }
    if (g->opt) {
        psi_status st = encode_outcomes(g, enc, d);
        if (st != PSI_OK) {
            psi_encoding_free(enc);
            return st;
        }
    }
    if (enc->pc) {
        /* the twins' way out, after every mapped edge (encode.h): only
         * for twins a WW edge enters, as no cycle can pass through the
         * others (RUBiS: 9,358 twins, most without one) */
        enc->aux_edge0 = psi_acyc_num_edges(enc->graph);
        for (uint32_t v = 0; v < g->n_nodes; v++)
            if (enc->pc_twin_in[v] &&
                psi_acyc_add_edge(enc->graph, g->n_nodes + v, v, PSI_EDGE_ANTI, 0, 0) < 0)
                goto nomem;
        free(enc->pc_twin_in);
        enc->pc_twin_in = NULL;
    }
    /* Start each selector on the side the known graph's order suggests:
     * the history's real version order mostly agrees with it. */
    if (!(opts && opts->no_phase_hints) && psi_acyc_suggest_phases(enc->graph) != 0)
        goto nomem;
    if ((enc->pc || enc->psi) && !(opts && opts->no_phase_hints)) {
        psi_status st = pc_phases(g, enc, d);
        if (st != PSI_OK) {
            psi_encoding_free(enc);
            return st;
        }
    }
    if (g->n_choices && !(opts && opts->no_phase_hints)) {
        psi_status st = choice_phases(g, enc, ser, d);
        if (st != PSI_OK) {
            psi_encoding_free(enc);
            return st;
        }
    }
    return PSI_OK;

nomem:
    psi_encoding_free(enc);
    return psi_diag_nomem(d, "encoding constraints for the solver");
}

void psi_encoding_free(psi_encoding *enc)
{
    psi_acyc_free(enc->graph);
    psi_sat_free(enc->sat);
    free(enc->cons_var);
    free(enc->cons_edge);
    free(enc->known_id);
    free(enc->choice_edge);
    free(enc->choice_var);
    free(enc->outcome_var);
    free(enc->psi_edges);
    free(enc->psi_lits);
    free(enc->pc_twin_in);
    psi_route_free(enc->route);
    free(enc->node_map);
    memset(enc, 0, sizeof *enc);
}

void psi_encoding_edge_origin(const psi_encoding *enc, const psi_polygraph *g, uint64_t edge,
                              bool *is_known, uint32_t *index, bool *either)
{
    if (edge < enc->n_known_edges) {
        *is_known = true;
        *index = enc->known_id ? enc->known_id[edge] : (uint32_t)edge;
        *either = false;
        return;
    }
    *is_known = false;
    /* The owner is the last constraint whose first edge is <= edge: a
     * resolved constraint owns no edges and starts where the next open one
     * starts, and an open one owns at least its WW edge, so the last such
     * constraint is always the open owner. */
    uint32_t lo = 0, hi = g->n_cons;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (enc->cons_edge[mid] <= edge)
            lo = mid;
        else
            hi = mid;
    }
    *index = lo;
    *either = edge - enc->cons_edge[lo] < psi_constraint_side_size(g, &g->cons[lo], true);
}

typedef struct nth_edge {
    uint64_t left; /* edges still to skip */
    psi_edge edge;
} nth_edge;

static bool pick_nth(void *ctx, uint32_t from, uint32_t to, psi_edge_type type, uint32_t key)
{
    nth_edge *n = ctx;
    if (n->left--)
        return true;
    n->edge = (psi_edge){
        .from = from, .to = to, .key = key, .type = (uint8_t)type, .origin = PSI_FROM_CONSTRAINT};
    return false;
}

psi_edge psi_encoding_edge(const psi_encoding *enc, const psi_polygraph *g, uint64_t edge)
{
    uint64_t first_choice = enc->n_known_edges + enc->n_constraint_edges;
    if (edge >= first_choice) {
        assert(edge - first_choice < enc->n_choice_edges);
        return enc->choice_edge[edge - first_choice];
    }
    bool known, either;
    uint32_t index;
    psi_encoding_edge_origin(enc, g, edge, &known, &index, &either);
    if (known)
        return g->known[index];
    /* psi_encode added each side's edges in psi_constraint_for_each's
     * order, so walking it again finds the edge at that position. */
    const psi_constraint *c = &g->cons[index];
    uint64_t pos = edge - enc->cons_edge[index];
    if (!either)
        pos -= psi_constraint_side_size(g, c, true);
    assert(pos < psi_constraint_side_size(g, c, either));
    nth_edge ne = {.left = pos};
    psi_constraint_for_each(g, c, either, pick_nth, &ne);
    return ne.edge;
}

psi_status psi_encoding_conflict_cycle(const psi_encoding *enc, const psi_polygraph *g,
                                       psi_edge **cycle, uint32_t *len, psi_diag *d)
{
    size_t n = 0;
    const uint32_t *ids = psi_acyc_conflict_cycle(enc->graph, &n);
    *cycle = NULL;
    *len = 0;
    if (!n)
        return PSI_OK;
    *cycle = malloc(n * sizeof **cycle);
    if (!*cycle)
        return psi_diag_nomem(d, "recording a cycle");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] < enc->aux_edge0) /* PC's twin edges are not the history's */
            (*cycle)[k++] = psi_encoding_edge(enc, g, ids[i]);
    *len = enc->n_relay ? psi_route_join(enc, *cycle, (uint32_t)k) : (uint32_t)k;
    return PSI_OK;
}
