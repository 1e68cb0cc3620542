/* The polynomial levels with a choice of writers (see level_choice.h).
 * level_poly.c is given a view: the index with read_src (and op_info for
 * RC/PL-2 repeat reads) swapped for this file's arrays of the choice. */
#include "check/level_choice_ctx.h"
#include "check/level_lattice.h"
#include "check/level_outcome.h"

#include "core/vec.h"
#include "solver/sat.h"
#include "solver/theory.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A repeat read's candidates: the initial value when it read it, and the
 * committed final writes of the value by other transactions, through the
 * write map's chain. Appends them to out->cand; returns how many, or
 * NONE out of memory. */
static uint32_t repeat_candidates(const psi_history *h, const psi_index *idx, uint32_t o,
                                  psi_level_choices *out, size_t *cap)
{
    const psi_op *op = &h->ops[o];
    uint32_t t = idx->op_txn[o], n = 0;
    uint32_t w = psi_index_writer(idx, op->key, op->value);
    if (op->flags & PSI_OPF_INIT) {
        if (!psi_grow((void **)&out->cand, cap, out->n_cand + 1, sizeof *out->cand))
            return NONE;
        out->cand[out->n_cand++] = PSI_SRC_INIT;
        n++;
    }
    for (; w != PSI_SRC_NONE; w = idx->dup_prev ? idx->dup_prev[w] : PSI_SRC_NONE) {
        uint8_t in = idx->op_info[w];
        if (!(in & PSI_OI_LIVE) || !(in & PSI_OI_FINAL_WRITE) || idx->op_txn[w] == t)
            continue;
        if (!psi_grow((void **)&out->cand, cap, out->n_cand + 1, sizeof *out->cand))
            return NONE;
        out->cand[out->n_cand++] = w;
        n++;
    }
    return n;
}

/* Whether repeat read o (live, RC or PL-2) has a choice of writers: its
 * value was written more than once, or it is the initial value and
 * someone wrote 0. */
static bool repeat_ambiguous(const psi_history *h, const psi_index *idx, uint32_t o)
{
    const psi_op *op = &h->ops[o];
    uint32_t w = psi_index_writer(idx, op->key, op->value);
    if (w == PSI_SRC_NONE)
        return false; /* the initial value alone, or no writer (reported) */
    return (op->flags & PSI_OPF_INIT) || (idx->dup_prev && idx->dup_prev[w] != PSI_SRC_NONE);
}

static bool live_repeat(const psi_index *idx, uint32_t o)
{
    uint8_t in = idx->op_info[o];
    return (in & PSI_OI_REPEAT_READ) && (in & PSI_OI_LIVE);
}

uint32_t psi_level_choice_reads(const psi_history *h, const psi_index *idx, psi_level l)
{
    uint32_t n = idx->n_amb;
    if (l == PSI_LEVEL_RC || l == PSI_LEVEL_PL2)
        for (uint32_t o = 0; o < h->n_ops; o++)
            n += live_repeat(idx, o) && repeat_ambiguous(h, idx, o);
    return n;
}

static int by_op(const void *a, const void *b)
{
    uint32_t x = ((const psi_rf_read *)a)->op, y = ((const psi_rf_read *)b)->op;
    return x < y ? -1 : x > y;
}

/* The choice reads with their candidates, sorted by operation. */
static bool collect(cctx *c)
{
    const psi_history *h = c->h;
    const psi_index *idx = c->idx;
    psi_level_choices *out = c->out;
    size_t cap_r = 0, cap_c = 0;
    for (uint32_t a = 0; a < idx->n_amb; a++) {
        const psi_amb_read *am = &idx->amb[a];
        psi_rf_read r = {.op = am->op,
                         .txn = am->txn,
                         .key = am->key,
                         .n = am->n,
                         .left = am->n,
                         .first = out->n_cand};
        if (!psi_grow((void **)&out->cand, &cap_c, out->n_cand + am->n, sizeof *out->cand) ||
            !psi_grow((void **)&out->reads, &cap_r, out->n_reads + 1, sizeof *out->reads))
            return false;
        memcpy(out->cand + out->n_cand, idx->amb_cand + am->first, am->n * sizeof *out->cand);
        out->n_cand += am->n;
        out->reads[out->n_reads++] = r;
    }
    for (uint32_t o = 0; c->per_read && o < h->n_ops; o++) {
        if (!live_repeat(idx, o) || !repeat_ambiguous(h, idx, o))
            continue;
        psi_rf_read r = {
            .op = o, .txn = idx->op_txn[o], .key = h->ops[o].key, .first = out->n_cand};
        r.n = repeat_candidates(h, idx, o, out, &cap_c);
        if (r.n == NONE)
            return false;
        if (r.n == 0)
            continue; /* no writer it may have read: the default's (reported) */
        r.repeat = true;
        r.left = r.n;
        if (!psi_grow((void **)&out->reads, &cap_r, out->n_reads + 1, sizeof *out->reads))
            return false;
        out->reads[out->n_reads++] = r;
    }
    if (out->n_reads) /* none: only outcomes to decide (level_outcome.h) */
        qsort(out->reads, out->n_reads, sizeof *out->reads, by_op);
    out->excluded = calloc(out->n_cand ? out->n_cand : 1, 1);
    return out->excluded != NULL;
}

/* The choice read of op o, or NONE. */
static uint32_t read_of(const cctx *c, uint32_t o)
{
    const psi_level_choices *out = c->out;
    uint32_t lo = 0, hi = out->n_reads;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (out->reads[mid].op < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < out->n_reads && out->reads[lo].op == o ? lo : NONE;
}

/* Appends lit to c->clause (0-terminated). false: out of memory. */
static bool push_lit(cctx *c, int lit)
{
    size_t n = 0;
    while (n < c->cap_clause && c->clause[n])
        n++;
    if (!psi_grow((void **)&c->clause, &c->cap_clause, n + 2, sizeof *c->clause))
        return false;
    c->clause[n] = lit;
    c->clause[n + 1] = 0;
    return true;
}

/* Marks o's choice read when the search chose it. false: out of memory. */
static bool depend(cctx *c, uint32_t o)
{
    if (o == NONE)
        return true;
    uint32_t r = read_of(c, o);
    if (r == NONE || c->out->reads[r].how != PSI_RFC_OPEN || c->stamp[r] == c->stamp_now)
        return true;
    c->stamp[r] = c->stamp_now;
    const psi_rf_read *rd = &c->out->reads[r];
    int v = c->var[rd->first + rd->chosen];
    assert(v > 0);
    return push_lit(c, -v);
}

/* Marks t's outcome when t is optional: the violation needs it committed
 * (every edge at t exists only then). false: out of memory. */
static bool depend_txn(cctx *c, uint32_t t)
{
    if (!c->out_var || t == NONE || !c->out_var[t] || c->tstamp[t] == c->stamp_now)
        return true;
    c->tstamp[t] = c->stamp_now;
    assert(!c->absent[t]);
    return push_lit(c, -c->out_var[t]);
}

/* The committed predecessor of v (not the initial transaction) in its
 * session, in the view: the initial transaction if none. */
static uint32_t so_prev(const cctx *c, uint32_t v)
{
    const psi_history *h = c->h;
    const psi_txn *tx = &h->txns[v];
    for (uint32_t p = tx->pos; p-- > 0;) {
        uint32_t q = h->sessions[tx->session].first_txn + p;
        if (psi_lc_committed(h, q) && !(c->absent && c->absent[q]))
            return q;
    }
    return PSI_INIT_TXN;
}

/* CC's premise from →(SO ∪ WR)+ to: a path in the view (BFS backwards
 * from `to`), whose WR edges' reads are dependencies. */
static bool causal_deps(cctx *c, uint32_t from, uint32_t to)
{
    const psi_history *h = c->h;
    memset(c->next, 0xff, (size_t)h->n_txns * sizeof *c->next);
    uint32_t head = 0, tail = 0;
    c->queue[tail++] = to;
    c->next[to] = to;
    while (head < tail && c->next[from] == NONE) {
        uint32_t v = c->queue[head++];
        if (v == PSI_INIT_TXN)
            continue;
        uint32_t p = so_prev(c, v);
        if (c->next[p] == NONE) {
            c->next[p] = v;
            c->next_op[p] = NONE;
            c->queue[tail++] = p;
        }
        const psi_txn *tx = &h->txns[v];
        for (uint32_t j = 0; j < tx->n_ops; j++) {
            uint32_t o = tx->first_op + j, w = psi_lc_view_src_txn(c, o);
            if (w == NONE || w == v || c->next[w] != NONE || (c->absent && c->absent[w]))
                continue;
            c->next[w] = v;
            c->next_op[w] = o;
            c->queue[tail++] = w;
        }
    }
    /* the level found the path, so it is there */
    assert(c->next[from] != NONE);
    for (uint32_t v = from; v != to && c->next[v] != NONE; v = c->next[v])
        if (!depend(c, c->next_op[v]) || !depend_txn(c, v))
            return false;
    return true;
}

/* c->clause gets "not all of the choices the cycle depends on" (reads'
 * writers and optional transactions' outcomes),
 * 0-terminated. false: out of memory. */
static bool violation_clause(cctx *c, const psi_level_result *res, size_t *n)
{
    c->stamp_now++;
    if (!psi_grow((void **)&c->clause, &c->cap_clause, 1, sizeof *c->clause))
        return false;
    c->clause[0] = 0;
    for (uint32_t i = 0; i < res->cycle_len; i++) {
        const psi_level_edge *e = &res->cycle[i];
        /* the edge's ends, and a forced edge's reader, must commit */
        if (!depend_txn(c, e->from) || !depend_txn(c, e->to) ||
            (e->why == PSI_LW_FORCED && !depend_txn(c, e->reader)))
            return false;
        if (e->why == PSI_LW_WR) {
            if (!depend(c, e->read_op))
                return false;
        } else if (e->why == PSI_LW_FORCED) {
            if (!depend(c, e->read_op) || !depend(c, e->read_op2))
                return false;
            if (e->premise == PSI_LP_CAUSAL && !causal_deps(c, e->from, e->reader))
                return false;
        }
    }
    *n = 0;
    while (c->clause[*n])
        (*n)++;
    return true;
}

/* The open reads' variables with exactly-one constraints (an at-least-one
 * clause, and at-most-one by a sequential counter: 3 clauses and one
 * helper variable per candidate, so 10^5 candidates stay linear), and
 * phases: the candidate latest in the known graph's order first, as a
 * store that reads the latest committed version would. */
static bool encode(cctx *c, psi_sat *s)
{
    psi_level_choices *out = c->out;
    int nv = 0;
    for (uint64_t ci = 0; ci < out->n_cand; ci++)
        c->var[ci] = 0;
    uint32_t n_open_cand = 0;
    for (uint32_t r = 0; r < out->n_reads; r++)
        if (out->reads[r].how == PSI_RFC_OPEN)
            for (uint32_t j = 0; j < out->reads[r].n; j++)
                n_open_cand += !out->excluded[out->reads[r].first + j];
    c->var_cand = malloc(((size_t)n_open_cand + 1) * sizeof *c->var_cand);
    if (!c->var_cand)
        return false;
    int aux = (int)n_open_cand;
    /* candidates, one counter variable per candidate, then outcomes */
    c->n_vars = 2 * (int)n_open_cand;
    c->n_cand_vars = (int)n_open_cand;
    if (c->out_var && !psi_lc_outcome_vars(c, s))
        return false;
    for (uint32_t r = 0; r < out->n_reads; r++) {
        psi_rf_read *rd = &out->reads[r];
        if (rd->how != PSI_RFC_OPEN)
            continue;
        size_t m = 0;
        uint32_t best = NONE, best_rank = 0;
        if (!psi_grow((void **)&c->clause, &c->cap_clause, rd->n + 2, sizeof *c->clause))
            return false;
        for (uint32_t j = 0; j < rd->n; j++) {
            uint64_t ci = rd->first + j;
            if (out->excluded[ci])
                continue;
            c->var[ci] = ++nv;
            c->var_cand[nv] = ci;
            c->clause[m++] = nv;
            uint32_t rk = c->topo_rank[psi_lc_cand_txn(c, out->cand[ci])];
            if (best == NONE || (rk != NONE && rk > best_rank)) {
                best = j;
                best_rank = rk == NONE ? 0 : rk;
            }
        }
        assert(m >= 2 && best != NONE);
        /* at least one, when the reader commits (level_outcome.h) */
        int ot = c->out_var ? c->out_var[rd->txn] : 0;
        if (ot)
            c->clause[m] = -ot;
        if (psi_sat_reserve(s, aux + (int)m) != 0 ||
            psi_sat_add_clause(s, c->clause, m + (ot != 0)) != 0)
            return false;
        /* sequential counter: s_i = "one of x_1..x_i is true" */
        for (size_t i = 0; i < m; i++) {
            int x = c->clause[i], si = aux + 1 + (int)i, sp = aux + (int)i;
            int c1[2] = {-x, si}, c2[2] = {-sp, si}, c3[2] = {-x, -sp};
            if (psi_sat_add_clause(s, c1, 2) != 0 || psi_sat_observe(s, x) != 0 ||
                (i && (psi_sat_add_clause(s, c2, 2) != 0 || psi_sat_add_clause(s, c3, 2) != 0)))
                return false;
        }
        aux += (int)m;
        for (uint32_t j = 0; j < rd->n; j++) {
            int v = c->var[rd->first + j];
            if (v && psi_sat_set_phase(s, j == best ? v : -v) != 0)
                return false;
        }
    }
    return !c->out_var || psi_lc_outcome_clauses(c, s);
}

/* The theory: each candidate that becomes true is its read's writer in
 * the view, and the level is checked on the partial read-from (reads not
 * yet chosen contribute no edge). Sound because a read-from's graph only
 * grows as reads get writers: a cycle now is a cycle in every
 * completion, and the conflict clause names the choices it uses. */
typedef struct lc_note {
    uint32_t read; /* NONE: an optional transaction committed */
    uint32_t txn;
    unsigned level;
} lc_note;

/* The level on the view after the notification of read r's writer or of
 * transaction t's commit (undo() takes it back on a conflict). */
static void undo(cctx *c, uint32_t r, uint32_t t)
{
    if (r != NONE)
        c->src[c->out->reads[r].op] = PSI_SRC_NONE;
    else
        c->absent[t] = 1;
}

static int th_notify(void *ctx, int lit, unsigned level, psi_theory_out *tout)
{
    cctx *c = ctx;
    psi_level_choices *out = c->out;
    if (lit < 0)
        return PSI_THEORY_OK;
    uint32_t r = NONE, t = NONE;
    if (lit <= c->n_cand_vars) {
        uint64_t ci = c->var_cand[lit];
        r = c->cand_read[ci];
        psi_rf_read *rd = &out->reads[r];
        assert(rd->how == PSI_RFC_OPEN && c->src[rd->op] == PSI_SRC_NONE);
        rd->chosen = (uint32_t)(ci - rd->first);
        c->src[rd->op] = out->cand[ci];
    } else {
        assert(c->var_txn && lit <= c->n_vars && c->var_txn[lit] != NONE);
        t = c->var_txn[lit];
        assert(c->absent[t]);
        c->absent[t] = 0;
    }
    if (!psi_grow((void **)&c->notes, &c->cap_notes, c->n_notes + 1, sizeof *c->notes)) {
        undo(c, r, t);
        return PSI_THEORY_ENOMEM;
    }
    psi_level_result_free(&c->scratch);
    out->models++;
    psi_status st = psi_level_check_in(c->h, &c->view, c->absent, c->level, &c->scratch, c->d);
    if (st != PSI_OK) {
        undo(c, r, t);
        c->th_status = st;
        return PSI_THEORY_ENOMEM; /* the solver stops; th_status says why */
    }
    if (c->scratch.accept) {
        c->notes[c->n_notes++] = (lc_note){r, t, level};
        return PSI_THEORY_OK;
    }
    size_t n;
    bool ok = violation_clause(c, &c->scratch, &n);
    undo(c, r, t);
    if (!ok)
        return PSI_THEORY_ENOMEM;
    if (n > out->depends_max)
        out->depends_max = n;
    out->clauses++;
    /* keep the violation: the reject's report when no choice avoids it */
    psi_level_result_free(&c->last_bad);
    c->last_bad = c->scratch;
    memset(&c->scratch, 0, sizeof c->scratch);
    for (size_t i = 0; i < n; i++)
        if (!psi_lits_push(&tout->clause, c->clause[i]))
            return PSI_THEORY_ENOMEM;
    return PSI_THEORY_CONFLICT;
}

static int th_explain(void *ctx, int lit, psi_theory_out *tout)
{
    (void)ctx, (void)lit, (void)tout;
    assert(!"the choice theory implies nothing");
    return PSI_THEORY_OK;
}

static void th_backtrack(void *ctx, unsigned level)
{
    cctx *c = ctx;
    size_t m = 0;
    for (size_t i = 0; i < c->n_notes; i++) {
        if (c->notes[i].level <= level) {
            c->notes[m++] = c->notes[i];
            continue;
        }
        undo(c, c->notes[i].read, c->notes[i].txn);
    }
    c->n_notes = m;
}

static psi_status search(cctx *c, psi_level level, psi_level_result *res)
{
    const psi_history *h = c->h;
    psi_level_choices *out = c->out;
    psi_status st = PSI_OK;
    psi_sat *s = psi_sat_new();
    c->var = calloc(out->n_cand ? out->n_cand : 1, sizeof *c->var);
    c->cand_read = malloc((out->n_cand ? out->n_cand : 1) * sizeof *c->cand_read);
    c->stamp = calloc(out->n_reads ? out->n_reads : 1, sizeof *c->stamp);
    c->next = malloc((size_t)h->n_txns * sizeof *c->next);
    c->next_op = malloc((size_t)h->n_txns * sizeof *c->next_op);
    c->queue = malloc((size_t)h->n_txns * sizeof *c->queue);
    if (!s || !c->var || !c->cand_read || !c->stamp || !c->next || !c->next_op || !c->queue)
        goto nomem;
    for (uint32_t r = 0; r < out->n_reads; r++)
        for (uint32_t j = 0; j < out->reads[r].n; j++)
            c->cand_read[out->reads[r].first + j] = r;
    /* open reads start with no writer in the view */
    for (uint32_t r = 0; r < out->n_reads; r++)
        if (out->reads[r].how == PSI_RFC_OPEN)
            c->src[out->reads[r].op] = PSI_SRC_NONE;
    /* the theory first: a unit clause's literal (an outcome a committed
     * read needs) is fixed as it is added, and reaches the theory only
     * if it is set by then (solver/theory.h, psi_sat_observe) */
    psi_theory th = {
        .ctx = c, .notify = th_notify, .explain = th_explain, .backtrack = th_backtrack};
    psi_sat_set_theory(s, &th);
    if (!encode(c, s))
        goto nomem;
    /* The theory checks the view only when a literal becomes true, so a
     * model that sets none (every optional transaction absent, so no read
     * needs a writer) was never checked: the fuzz_cobra input
     * tests/fuzz_regress/cobra/choice-model-refused.log has a cycle of
     * fixed edges and such a model. The view with no choice made has
     * every model's edges' subset (each level's graph only grows as reads
     * get writers and transactions commit, level_outcome.h), so its
     * violation is every model's: the search is unsatisfiable. */
    st = psi_level_check_in(h, &c->view, c->absent, level, &c->last_bad, c->d);
    if (st != PSI_OK)
        goto done;
    bool base_bad = !c->last_bad.accept;
    int r = PSI_SAT_UNSAT;
    if (!base_bad) {
        psi_level_result_free(&c->last_bad);
        memset(&c->last_bad, 0, sizeof c->last_bad);
        r = psi_sat_solve(s);
    }
    if (c->th_status != PSI_OK) {
        st = c->th_status;
        goto done;
    }
    if (r == PSI_SAT_SAT) {
        /* the model: every open read of a committed transaction has one
         * writer (the solver ends at level 0, so it is read from the
         * model, not the theory's state); the theory checked this
         * read-from when its last choice was made, or it is the base
         * view checked above */
        if (c->out_var)
            psi_lc_outcome_take(c, s);
        for (uint32_t i = 0; i < out->n_reads; i++) {
            psi_rf_read *rd = &out->reads[i];
            if (rd->how != PSI_RFC_OPEN)
                continue;
            if (c->absent && c->absent[rd->txn]) {
                rd->how = PSI_RFC_ABSENT;
                c->src[rd->op] = PSI_SRC_NONE;
                continue;
            }
            uint32_t j = 0;
            while (j + 1 < rd->n &&
                   (!c->var[rd->first + j] || psi_sat_value(s, c->var[rd->first + j]) <= 0))
                j++;
            assert(c->var[rd->first + j] && psi_sat_value(s, c->var[rd->first + j]) > 0);
            rd->chosen = j;
            c->src[rd->op] = out->cand[rd->first + j];
        }
        st = psi_level_check_in(h, &c->view, c->absent, level, res, c->d);
        if (st == PSI_OK && !res->accept) {
            /* Unreachable: the theory checked the view at the model's
             * last true literal, or above (no true literal) the base
             * view. Should the incremental check ever miss something,
             * no verdict rather than one that may be wrong (tests treat
             * this error as a failure). */
            psi_level_result_free(res);
            memset(res, 0, sizeof *res);
            st = psi_diag_set(c->d, PSI_ERR_LIMIT,
                              "cannot decide %s: the search's read-from was refused by the "
                              "level's own check (unknown-outcome writers); no verdict",
                              psi_level_name(level));
        }
    } else if (r == PSI_SAT_UNSAT) {
        /* every read-from violates: the last violation found shows one;
         * its reads' writers are the ones it used */
        for (uint32_t i = 0; i < out->n_reads; i++)
            if (out->reads[i].how == PSI_RFC_OPEN)
                c->src[out->reads[i].op] = out->cand[out->reads[i].first + out->reads[i].chosen];
        if (base_bad || c->last_bad.cycle) {
            *res = c->last_bad;
            memset(&c->last_bad, 0, sizeof c->last_bad);
        } else {
            /* the clauses alone refuse every outcome (a read of a
             * committed transaction whose writers' own reads have no
             * candidate): with every optional transaction committed and
             * any writer, a cycle shows one reason (level_outcome.h) */
            assert(c->out_var);
            st = psi_level_check_in(h, &c->view, NULL, level, res, c->d);
            assert(st != PSI_OK || !res->accept);
        }
    } else {
        goto nomem;
    }
    goto done;
nomem:
    st = psi_diag_nomem(c->d, "searching the reads' writers");
done:
    psi_sat_free(s);
    psi_level_result_free(&c->scratch);
    psi_level_result_free(&c->last_bad);
    return st;
}

psi_status psi_level_check_choices(const psi_history *h, psi_index *idx, psi_level level,
                                   const uint32_t *hint, psi_level_result *res,
                                   psi_level_choices *out, psi_diag *d)
{
    assert(psi_level_is_polynomial(level));
    memset(res, 0, sizeof *res);
    memset(out, 0, sizeof *out);
    cctx c = {.h = h,
              .idx = idx,
              .per_read = level == PSI_LEVEL_RC || level == PSI_LEVEL_PL2,
              .level = level,
              .out = out,
              .d = d};
    psi_status st = PSI_OK;
    c.src = malloc((h->n_ops ? h->n_ops : 1) * sizeof *c.src);
    c.topo_rank = malloc((h->n_txns ? h->n_txns : 1) * sizeof *c.topo_rank);
    if (!c.src || !c.topo_rank || !collect(&c))
        goto nomem;
    memcpy(c.src, idx->read_src, (size_t)h->n_ops * sizeof *c.src);
    memset(c.topo_rank, 0xff, (size_t)h->n_txns * sizeof *c.topo_rank);
    c.view = *idx;
    c.view.read_src = c.src;
    /* A repeat read with a choice is read through read_src in the view:
     * under RC and PL-2 (per read) an external read and a repeat read are
     * read events alike, so marking it external changes nothing else. */
    for (uint32_t r = 0; r < out->n_reads; r++) {
        if (!out->reads[r].repeat)
            continue;
        if (!c.info) {
            if (!(c.info = malloc(h->n_ops ? h->n_ops : 1)))
                goto nomem;
            memcpy(c.info, idx->op_info, h->n_ops);
            c.view.op_info = c.info;
        }
        c.info[out->reads[r].op] |= PSI_OI_EXTERNAL_READ;
    }
    if (idx->n_opt && !psi_lc_outcome_init(&c))
        goto nomem;
    if (hint)
        psi_level_choices_take(out, hint); /* SI's read-from, for one check */
    else if (!psi_lc_prune(&c))
        goto nomem;
    /* reads pruning settled use their one writer; reads with none left,
     * any (every choice violates, and the check shows one violation),
     * unless their transaction is optional (it is then absent) */
    bool open = false, dead = false;
    for (uint32_t r = 0; r < out->n_reads; r++) {
        psi_rf_read *rd = &out->reads[r];
        if (rd->n == 1 && rd->how == PSI_RFC_OPEN)
            rd->how = PSI_RFC_FORCED;
        if (rd->how == PSI_RFC_FORCED || rd->how == PSI_RFC_LATTICE)
            c.src[rd->op] = out->cand[rd->first + rd->chosen];
        else if (rd->how == PSI_RFC_NO_WRITER)
            dead |= !psi_index_optional(idx, rd->txn);
        else
            open = true;
    }
    if (hint) {
        /* SI's outcomes: the optional transactions its read-from needs
         * (level_lattice.h); a read SI gave no writer must be one of
         * those left out, else the search decides */
        bool taken = true;
        if (c.absent)
            psi_lc_outcome_closure(&c);
        for (uint32_t r = 0; r < out->n_reads; r++)
            if (out->reads[r].how == PSI_RFC_OPEN && !(c.absent && c.absent[out->reads[r].txn]))
                taken = false;
        out->models = 1;
        if (taken)
            st = psi_level_check_in(h, &c.view, c.absent, level, res, d);
    } else if (dead || (!open && !c.absent)) {
        /* one read-from decides: the open reads (if any) take the first
         * candidate pruning left; every optional transaction commits */
        for (uint32_t r = 0; r < out->n_reads; r++) {
            psi_rf_read *rd = &out->reads[r];
            if (rd->how == PSI_RFC_OPEN) {
                rd->chosen = 0;
                while (rd->chosen + 1 < rd->n && out->excluded[rd->first + rd->chosen])
                    rd->chosen++;
            }
            if (rd->how != PSI_RFC_FORCED)
                c.src[rd->op] = out->cand[rd->first + rd->chosen];
        }
        out->models = 1;
        st = psi_level_check(h, &c.view, level, res, d);
        assert(st != PSI_OK || !dead || !res->accept);
    } else {
        st = search(&c, level, res);
    }
    /* the resolved writers, for reports and witnesses (level_choice.h) */
    for (uint32_t r = 0; st == PSI_OK && r < out->n_reads; r++)
        if (!out->reads[r].repeat)
            idx->read_src[out->reads[r].op] = c.src[out->reads[r].op];
    goto done;
nomem:
    st = psi_diag_nomem(d, "checking the reads' choice of writers");
done:
    free(c.src);
    free(c.info);
    free(c.topo_rank);
    free(c.var);
    free(c.clause);
    free(c.stamp);
    free(c.next);
    free(c.next_op);
    free(c.queue);
    free(c.woff);
    free(c.wt);
    free(c.var_cand);
    free(c.cand_read);
    free(c.notes);
    free(c.absent);
    free(c.out_var);
    free(c.var_txn);
    free(c.tstamp);
    return st;
}

void psi_level_choices_free(psi_level_choices *c)
{
    free(c->reads);
    free(c->cand);
    free(c->excluded);
    memset(c, 0, sizeof *c);
}
