/* Local search for phases (as Kissat's "walk" rephasing, after Balint and
 * Schoening's ProbSAT, SAT 2012): starting from the saved phases, flip
 * variables of random falsified original clauses, choosing the variable
 * with probability cb^-break (break = clauses the flip would falsify), and
 * keep the assignment with the fewest falsified clauses as the new saved
 * and target phases. On satisfiable random-like instances (colouring,
 * random k-SAT) this often lands on a model or next to one, which CDCL then
 * reaches by deciding along the phases.
 *
 * Phases only steer decisions, so the walk cannot change an answer: a
 * "model" it finds is not trusted, the search still has to assign it. It
 * sees only the original clauses, so it is not used with a theory (whose
 * constraints it cannot see) and it runs at the root, where root values
 * are fixed and every other variable is free.
 *
 * Everything the walk allocates is freed before it returns; on allocation
 * failure it gives up and leaves the phases as they were. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct walker {
    psi_sat *s;
    uint32_t nclauses;
    uint32_t *cstart; /* per clause: offset of its literals in the arena */
    uint32_t *csize;  /* per clause */
    uint32_t *ntrue;  /* per clause: true literals under the walk's assignment */
    uint32_t *occ_at; /* per literal + 1: CSR offsets into occ */
    uint32_t *occ;    /* clause indices by literal */
    uint32_t *broken; /* falsified clauses, unordered */
    uint32_t *bpos;   /* per clause: its index in broken, UINT32_MAX if satisfied */
    uint32_t nbroken;
    uint8_t *val;   /* per var: 1 true, 0 false */
    uint8_t *fixed; /* per var: assigned at the root, never flipped */
    uint32_t *log;  /* variables flipped since the best assignment */
    uint32_t nlog, log_cap;
    uint64_t rng;
    double cb_pow[64]; /* cb^-k */
} walker;

static uint32_t next_rand(walker *w)
{
    /* xorshift64*: deterministic for a given solver run. */
    w->rng ^= w->rng >> 12;
    w->rng ^= w->rng << 25;
    w->rng ^= w->rng >> 27;
    return (uint32_t)((w->rng * 0x2545F4914F6CDD1Dull) >> 32);
}

static bool lit_true(const walker *w, lit_t l)
{
    return w->val[lit_var(l)] == !(l & 1u);
}

static void break_clause(walker *w, uint32_t c)
{
    w->bpos[c] = w->nbroken;
    w->broken[w->nbroken++] = c;
}

static void mend_clause(walker *w, uint32_t c)
{
    uint32_t i = w->bpos[c], last = w->broken[--w->nbroken];
    w->broken[i] = last;
    w->bpos[last] = i;
    w->bpos[c] = UINT32_MAX;
}

/* Flips v and keeps the true-literal counts and the broken list exact. */
static void flip(walker *w, uint32_t v)
{
    lit_t now_true = w->val[v] ? 2 * v + 1 : 2 * v; /* the literal that becomes true */
    w->val[v] ^= 1u;
    for (uint32_t i = w->occ_at[now_true]; i < w->occ_at[now_true + 1]; i++) {
        uint32_t c = w->occ[i];
        if (w->ntrue[c]++ == 0)
            mend_clause(w, c);
    }
    lit_t now_false = lit_neg(now_true);
    for (uint32_t i = w->occ_at[now_false]; i < w->occ_at[now_false + 1]; i++) {
        uint32_t c = w->occ[i];
        if (--w->ntrue[c] == 0)
            break_clause(w, c);
    }
}

/* Clauses that flipping v would falsify (it is their only true literal). */
static uint32_t break_count(const walker *w, uint32_t v)
{
    lit_t t = w->val[v] ? 2 * v : 2 * v + 1;
    uint32_t b = 0;
    for (uint32_t i = w->occ_at[t]; i < w->occ_at[t + 1]; i++)
        b += w->ntrue[w->occ[i]] == 1;
    return b;
}

/* One ProbSAT step on a random broken clause; returns the flipped variable. */
static uint32_t step(walker *w, double *score, uint32_t *cand)
{
    psi_sat *s = w->s;
    uint32_t c = w->broken[next_rand(w) % w->nbroken];
    const lit_t *lits = s->arena + w->cstart[c];
    uint32_t n = 0;
    double sum = 0;
    for (uint32_t k = 0; k < w->csize[c]; k++) {
        uint32_t v = lit_var(lits[k]);
        if (w->fixed[v])
            continue;
        uint32_t b = break_count(w, v);
        score[n] = w->cb_pow[b < 63 ? b : 63];
        sum += score[n];
        cand[n++] = v;
    }
    if (n == 0)
        return UINT32_MAX; /* false at the root: left to the search to find */
    double r = sum * ((double)next_rand(w) / 4294967296.0);
    uint32_t i = 0;
    while (i + 1 < n && r >= score[i])
        r -= score[i++];
    flip(w, cand[i]);
    return cand[i];
}

/* Breaking-point base by average clause length (ProbSAT's values, as
 * Kissat interpolates them). */
static double cb_for(double avg)
{
    static const double cbs[][2] = {{0, 2.0}, {3, 2.5}, {4, 2.85}, {5, 3.7}, {6, 5.1}, {7, 7.4}};
    size_t n = sizeof cbs / sizeof *cbs;
    if (avg <= cbs[0][0])
        return cbs[0][1];
    for (size_t i = 1; i < n; i++)
        if (avg <= cbs[i][0]) {
            double t = (avg - cbs[i - 1][0]) / (cbs[i][0] - cbs[i - 1][0]);
            return cbs[i - 1][1] + t * (cbs[i][1] - cbs[i - 1][1]);
        }
    return cbs[n - 1][1];
}

static void walker_free(walker *w)
{
    void *ptrs[] = {w->cstart, w->csize, w->ntrue, w->occ_at, w->occ,
                    w->broken, w->bpos,  w->val,   w->fixed,  w->log};
    for (size_t i = 0; i < sizeof ptrs / sizeof *ptrs; i++)
        free(ptrs[i]);
}

/* Builds the clause table, occurrence lists and the starting assignment
 * (root values, else the phase decisions would take). False on ENOMEM. */
static bool walker_init(walker *w, psi_sat *s, bool use_target)
{
    uint32_t nv = s->nvars, m = 0;
    size_t nl = 0;
    for (size_t i = 0; i < s->originals.n; i++) {
        uint32_t cref = s->originals.a[i];
        if (cl_flags(s, cref) & CL_DELETED)
            continue;
        m++;
        nl += cl_size(s, cref);
    }
    if (nl >= UINT32_MAX)
        return false;
    w->s = s;
    w->cstart = malloc((m ? m : 1) * sizeof *w->cstart);
    w->csize = malloc((m ? m : 1) * sizeof *w->csize);
    w->ntrue = calloc(m ? m : 1, sizeof *w->ntrue);
    w->bpos = malloc((m ? m : 1) * sizeof *w->bpos);
    w->broken = malloc((m ? m : 1) * sizeof *w->broken);
    w->occ_at = calloc(2 * (size_t)nv + 1, sizeof *w->occ_at);
    w->occ = malloc((nl ? nl : 1) * sizeof *w->occ);
    w->val = malloc(nv ? nv : 1);
    w->fixed = malloc(nv ? nv : 1);
    if (!w->cstart || !w->csize || !w->ntrue || !w->bpos || !w->broken || !w->occ_at || !w->occ ||
        !w->val || !w->fixed)
        return false;
    for (uint32_t v = 0; v < nv; v++) {
        w->fixed[v] = s->vals[2 * v] != 0;
        assert(!w->fixed[v] || s->level[v] == 0);
        w->val[v] = w->fixed[v] ? s->vals[2 * v] > 0 : !(use_target ? s->target[v] : s->phase[v]);
    }
    uint32_t c = 0;
    double lits = 0;
    for (size_t i = 0; i < s->originals.n; i++) {
        uint32_t cref = s->originals.a[i];
        if (cl_flags(s, cref) & CL_DELETED)
            continue;
        w->cstart[c] = cref + CL_HDR;
        w->csize[c] = cl_size(s, cref);
        lits += w->csize[c];
        for (uint32_t k = 0; k < w->csize[c]; k++)
            w->occ_at[s->arena[cref + CL_HDR + k] + 1]++;
        c++;
    }
    for (size_t l = 0; l < 2 * (size_t)nv; l++)
        w->occ_at[l + 1] += w->occ_at[l];
    for (c = 0; c < m; c++) {
        const lit_t *cl = s->arena + w->cstart[c];
        for (uint32_t k = 0; k < w->csize[c]; k++) {
            w->occ[w->occ_at[cl[k]]++] = c;
            w->ntrue[c] += lit_true(w, cl[k]);
        }
        w->bpos[c] = UINT32_MAX;
        if (!w->ntrue[c])
            break_clause(w, c);
    }
    /* The fill above advanced each literal's start to the next one's. */
    for (size_t l = 2 * (size_t)nv; l > 0; l--)
        w->occ_at[l] = w->occ_at[l - 1];
    w->occ_at[0] = 0;
    w->nclauses = m;
    double cb = cb_for(m ? lits / m : 0);
    w->cb_pow[0] = 1;
    for (int k = 1; k < 64; k++)
        w->cb_pow[k] = w->cb_pow[k - 1] / cb;
    w->rng = 0x9E3779B97F4A7C15ull ^ (s->st.conflicts * 0x100000001B3ull);
    return true;
}

bool psi_walk(psi_sat *s, uint64_t flips, bool use_target)
{
    assert(decision_level(s) == 0 && !s->has_theory);
    walker w;
    memset(&w, 0, sizeof w);
    uint32_t maxlen = 0;
    for (size_t i = 0; i < s->originals.n; i++)
        if (!(cl_flags(s, s->originals.a[i]) & CL_DELETED) &&
            cl_size(s, s->originals.a[i]) > maxlen)
            maxlen = cl_size(s, s->originals.a[i]);
    if (flips > (1u << 22))
        flips = 1u << 22; /* the undo log holds every flip: bound its memory */
    w.log_cap = (uint32_t)flips;
    w.log = malloc((flips ? flips : 1) * sizeof *w.log);
    double *score = malloc((maxlen ? maxlen : 1) * sizeof *score);
    uint32_t *cand = malloc((maxlen ? maxlen : 1) * sizeof *cand);
    bool ok = w.log && score && cand && walker_init(&w, s, use_target);
    if (ok) {
        s->st.walks++;
        /* The walk's best point is the current assignment minus the flips
         * logged since it was reached: logging instead of copying keeps an
         * improvement O(1). */
        uint32_t best = w.nbroken;
        for (uint64_t f = 0; f < flips && w.nbroken; f++) {
            assert(w.nlog < w.log_cap);
            uint32_t v = step(&w, score, cand);
            if (v != UINT32_MAX)
                w.log[w.nlog++] = v;
            if (w.nbroken < best) {
                best = w.nbroken;
                w.nlog = 0;
            }
        }
        while (w.nlog)
            flip(&w, w.log[--w.nlog]);
        assert(w.nbroken == best);
        for (uint32_t v = 0; v < s->nvars; v++)
            if (!w.fixed[v])
                s->phase[v] = s->target[v] = !w.val[v]; /* phase 1 = negative */
        s->walk_broken = best;
    }
    free(score);
    free(cand);
    walker_free(&w);
    return ok;
}
