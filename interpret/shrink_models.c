/* Shrinking a violation under SER with the accepts' models (see
 * shrink_models.h). */
#include "interpret/shrink_models.h"

#include "core/vec.h"
#include "encode/local.h"
#include "interpret/local.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* A chunk's accept says which of its members are needed (each one whose
 * deletion alone the model, with the others put back, shows accepted)
 * only for chunks up to this size: each member costs a model extension
 * per other member. */
#define LEARN_MAX_CHUNK 8u
/* The chunk size deletions start with, and the largest they grow to. */
#define START_CHUNK 4u
#define MAX_CHUNK   64u
/* Models kept besides the last one: a deletion one fails to explain is
 * often one another does (rotation finds hundreds). */
#define POOL 16u
/* Models waiting to be rotated, at most (a need found without its own
 * rotation is still needed: only what that rotation would show is lost). */
#define MAX_QUEUE 256u
/* Transactions replayed by model extensions in one shrink, at most
 * (about a second); past it deletions go to the pipeline alone. 10k
 * values 1..4 under SER replays about 3 million. */
#define MAX_REPLAYED (1u << 26)
/* The cores' sub-polygraph: writer pairs at most (psi_sub_polygraph_build) */
#define CORE_MAX_CONS (1u << 22)
/* The cores' solver: solves per member of the first S (and at most what
 * the budget of re-checks has left), and conflicts per solve (10k values
 * 1..4 under SER: about 140 solves of 566 members, the first core's
 * solve the longest); past either, the pipeline decides. */
#define CORES_PER_TXN   8u
#define CORES_CONFLICTS 100000

typedef struct sm {
    psi_shrink_io *io;
    const psi_history *h;
    uint32_t *S; /* the violation, in the order chunks are tried in */
    uint32_t nS;
    uint8_t *in_s;         /* [n_txns] member of S */
    uint8_t *need;         /* [n_txns] needed: S minus it is accepted */
    uint8_t *in_c;         /* [n_txns] in the chunk being deleted */
    uint32_t *mark, stamp; /* [n_txns] scratch set */
    uint32_t *M;           /* the last model: a serial order of an accepted set */
    uint32_t nM;
    uint8_t *core; /* [n_txns] the cores' solver's last core */
    /* The first S's sub-polygraph and its cores' solver (NULL when it
     * could not be built: shrinking goes on without), a presence and a
     * core flag per local node. */
    psi_sub_polygraph L;
    psi_sub_cores *cores;
    uint8_t *l_in, *l_core;
    uint32_t *l_order;
    /* cores' solves left (CORES_PER_TXN per member of the first S) and
     * deletions they decided */
    uint64_t cores_left, cores_rejects;
    uint32_t *a, *b, *srt; /* scratch, room nS + 1 each */
    /* Models to rotate: (order, the transaction it lacks), orders of room
     * nS each in q. */
    uint32_t *q, *q_t;
    size_t nq, cap_q, cap_qt;
    uint64_t work;        /* transactions replayed by extensions (MAX_REPLAYED) */
    psi_serord_causes cz; /* rotate's candidates */
    /* The last POOL models found (serial orders of accepted sets), tried
     * after M on each deletion. */
    uint32_t *pool, pool_n[POOL], pool_next;
    size_t stride; /* the room of each: the first size of S, plus one */
} sm;

/* Keeps order[0..n) among the pool's models. */
static void pool_add(sm *m, const uint32_t *order, uint32_t n)
{
    uint32_t *p = m->pool + (size_t)m->pool_next * m->stride;
    memcpy(p, order, n * sizeof *order);
    m->pool_n[m->pool_next] = n;
    m->pool_next = (m->pool_next + 1) % POOL;
}

static void new_mark(sm *m)
{
    if (++m->stamp == 0) {
        memset(m->mark, 0, m->h->n_txns * sizeof *m->mark);
        m->stamp = 1;
    }
}

/* The members of `order` in S, not in the chunk and not `skip`, into out;
 * returns how many. */
static uint32_t restrict_to(const sm *m, const uint32_t *order, uint32_t n, uint32_t skip,
                            uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t t = order[i];
        if (m->in_s[t] && !m->in_c[t] && t != skip)
            out[k++] = t;
    }
    return k;
}

/* A serial order of S minus the chunk minus `skip` from `order` (a serial
 * order of an accepted set): restricted, with every member it lacks put
 * in. The result in m->a; false when some member finds no place. The
 * replay's set is S before and after (it follows each step between). */
static bool extend(sm *m, const uint32_t *order, uint32_t n, uint32_t skip, uint32_t *n_out)
{
    psi_serord *so = m->io->so;
    uint32_t k = restrict_to(m, order, n, skip, m->b);
    new_mark(m);
    for (uint32_t i = 0; i < k; i++)
        m->mark[m->b[i]] = m->stamp;
    /* The set down to the restricted order: what it lacks comes back one
     * at a time, each put in at a place of its own. */
    for (uint32_t i = 0; i < m->nS; i++)
        if (m->mark[m->S[i]] != m->stamp)
            psi_serord_remove(so, m->S[i]);
    uint32_t *cur = m->b, *nxt = m->a, i = 0;
    bool ok = true;
    for (; i < m->nS && ok; i++) {
        uint32_t t = m->S[i];
        if (m->in_c[t] || t == skip || m->mark[t] == m->stamp)
            continue;
        m->work += k + 1;
        psi_serord_add(so, t);
        m->mark[t] = m->stamp;
        ok = psi_serord_insert(so, cur, k, t, nxt);
        if (ok) {
            k++;
            uint32_t *sw = cur;
            cur = nxt;
            nxt = sw;
        }
    }
    assert(!ok || psi_serord_valid(so, cur, k));
    for (uint32_t j = 0; j < m->nS; j++)
        if (m->mark[m->S[j]] != m->stamp)
            psi_serord_add(so, m->S[j]);
    if (!ok)
        return false;
    if (cur != m->a)
        memcpy(m->a, cur, k * sizeof *cur);
    *n_out = k;
    return true;
}

static bool push_model(sm *m, const uint32_t *order, uint32_t n, uint32_t lacks)
{
    if (m->nq >= MAX_QUEUE)
        return true;
    if (!psi_grow((void **)&m->q, &m->cap_q, (m->nq + 1) * (size_t)m->nS, sizeof *m->q) ||
        !psi_grow((void **)&m->q_t, &m->cap_qt, m->nq + 1, sizeof *m->q_t))
        return false;
    assert(n + 1 == m->nS); /* S minus `lacks` */
    (void)n;
    memcpy(m->q + m->nq * (size_t)m->nS, order, (m->nS - 1) * sizeof *order);
    m->q_t[m->nq++] = lacks;
    return true;
}

/* `lacks` is needed; the models queued (each a serial order of S minus
 * its transaction) are rotated: for every member u not known to be
 * needed, the model without u with its transaction put back is one of S
 * minus u, and u is needed too. False only when out of memory. */
static bool rotate(sm *m)
{
    while (m->nq && m->work < MAX_REPLAYED) {
        m->nq--;
        uint32_t t = m->q_t[m->nq];
        /* the order moves out of the queue: pushes may move q */
        memcpy(m->srt, m->q + m->nq * (size_t)m->nS, (m->nS - 1) * sizeof *m->srt);
        /* Only the causes of t's places being ruled out in S are worth a
         * try: without any other member the same places are. */
        m->cz.n = 0;
        m->work += m->nS;
        if (psi_serord_insert_causes(m->io->so, m->srt, m->nS - 1, t, m->a, &m->cz)) {
            /* S, a violation, has a serial order: the replay and the
             * pipeline disagree. Nothing to learn from this model. */
            assert(!"a violation with a serial order");
            m->cz.n = 0;
        }
        for (uint32_t i = 0; i < m->cz.n; i++)
            m->cz.flag[m->cz.list[i]] = 0;
        for (uint32_t i = 0; i < m->cz.n && m->work < MAX_REPLAYED; i++) {
            uint32_t u = m->cz.list[i];
            if (u == t || m->need[u] || !m->in_s[u])
                continue;
            uint32_t k = restrict_to(m, m->srt, m->nS - 1, u, m->b);
            m->work += k + 1;
            psi_serord_remove(m->io->so, u);
            bool ok = psi_serord_insert(m->io->so, m->b, k, t, m->a);
            assert(!ok || psi_serord_valid(m->io->so, m->a, k + 1));
            psi_serord_add(m->io->so, u);
            if (!ok)
                continue;
            m->need[u] = 1;
            m->io->rotated++;
            pool_add(m, m->a, k + 1);
            if (!push_model(m, m->a, k + 1, u))
                return false;
        }
    }
    m->nq = 0;
    return true;
}

/* S minus the chunk is accepted, order[0..n) a serial order of it: the
 * chunk's members it shows needed are marked, and rotated. */
static bool learn(sm *m, const uint32_t *order, uint32_t n, const uint32_t *c, uint32_t nc)
{
    if (order != m->M) {
        memcpy(m->M, order, n * sizeof *order);
        m->nM = n;
    }
    if (nc == 1) {
        m->need[c[0]] = 1;
        return push_model(m, order, n, c[0]) && rotate(m);
    }
    if (nc > LEARN_MAX_CHUNK)
        return true;
    for (uint32_t j = 0; j < nc; j++) {
        /* S minus c[j]: the chunk's others put back */
        uint32_t k;
        m->in_c[c[j]] = 1;
        bool ok =
            !m->need[c[j]] && m->work < MAX_REPLAYED && extend(m, m->M, m->nM, UINT32_MAX, &k);
        m->in_c[c[j]] = 0;
        if (!ok)
            continue;
        m->need[c[j]] = 1;
        m->io->rotated++;
        if (!push_model(m, m->a, k, c[j]) || !rotate(m))
            return false;
    }
    return true;
}

/* S minus the chunk (marked in in_c) by the cores' solver: 1 when it
 * finds a model whose order the replay accepts as a serial order of that
 * sub-history (in m->a[0..*k)), 2 when it refutes it, 0 when it does not
 * tell (no solver, its bounds reached, or an order the replay refuses:
 * never seen), -1 on error. */
static int by_cores(sm *m, uint32_t *k)
{
    if (!m->cores || !m->cores_left)
        return 0;
    m->cores_left--;
    for (uint32_t v = 0; v < m->L.n_nodes; v++) {
        uint32_t t = m->L.node_txn[v];
        m->l_in[v] = t == PSI_INIT_TXN || (m->in_s[t] && !m->in_c[t]);
    }
    bool violation = false, decided = false;
    uint32_t n = 0;
    psi_diag d = {0};
    if (psi_sub_cores_solve(m->cores, m->l_in, &decided, &violation, m->l_core, m->l_order, &n,
                            &d) != PSI_OK)
        return -1;
    if (!decided)
        return 0;
    if (violation)
        return 2;
    *k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (m->L.node_txn[m->l_order[i]] != PSI_INIT_TXN)
            m->a[(*k)++] = m->L.node_txn[m->l_order[i]];
    for (uint32_t i = 0; i < m->nS; i++)
        if (m->in_c[m->S[i]])
            psi_serord_remove(m->io->so, m->S[i]);
    bool ok = psi_serord_valid(m->io->so, m->a, *k);
    for (uint32_t i = 0; i < m->nS; i++)
        if (m->in_c[m->S[i]])
            psi_serord_add(m->io->so, m->S[i]);
    assert(ok); /* the encoding is the sub-history's (encode/local.h) */
    return ok;
}

/* The pipeline's verdict on the sub-history over S minus the chunk
 * (marked in in_c): 1 a violation, 0 not, -1 out of memory. */
static int pipeline_rejects(sm *m)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < m->nS; i++)
        if (!m->in_c[m->S[i]])
            m->srt[k++] = m->S[i];
    qsort(m->srt, k, sizeof *m->srt, psi_u32_cmp);
    psi_diag d = {0};
    bool violation = false;
    psi_status st = psi_subcheck_run(m->io->sc, m->srt, k, &violation, NULL, &d);
    return st == PSI_ERR_NOMEM ? -1 : violation;
}

/* Is S minus the chunk (marked in in_c) a violation? 1 yes, 0 no (then
 * m->M is a serial order of it when *model), -1 on error or when
 * the budget is out. */
static int test_marked(sm *m, bool *model)
{
    uint32_t k;
    for (uint32_t p = 0; p <= POOL; p++) {
        /* the last model first, then the pool's, newest first */
        uint32_t slot = (m->pool_next + POOL - p) % POOL;
        const uint32_t *base = p ? m->pool + (size_t)slot * m->stride : m->M;
        uint32_t nb = p ? m->pool_n[slot] : m->nM;
        if (!nb || m->work >= MAX_REPLAYED || !extend(m, base, nb, UINT32_MAX, &k))
            continue;
        m->io->rotated++;
        memcpy(m->M, m->a, k * sizeof *m->a);
        m->nM = k;
        *model = true;
        return 0;
    }
    /* The cores' solver next: its models replayed are accepts, its
     * refutations rejects (the final set is checked by the pipeline) */
    int cr = by_cores(m, &k);
    if (cr < 0)
        return -1;
    if (cr == 2) {
        m->cores_rejects++;
#ifndef NDEBUG /* the pipeline agrees */
        int pr = pipeline_rejects(m);
        assert(pr != 0);
        if (pr < 0)
            return -1;
#endif
        return 1;
    }
    if (cr == 1) {
        m->io->rotated++;
        memcpy(m->M, m->a, k * sizeof *m->a);
        m->nM = k;
        pool_add(m, m->M, k);
        *model = true;
        return 0;
    }
    if (*m->io->calls >= m->io->budget) {
        m->io->out_of_budget = true;
        return -1;
    }
    ++*m->io->calls;
    k = 0;
    for (uint32_t i = 0; i < m->nS; i++)
        if (!m->in_c[m->S[i]])
            m->srt[k++] = m->S[i];
    qsort(m->srt, k, sizeof *m->srt, psi_u32_cmp);
    psi_subrun r = {0};
    psi_diag d = {0};
    bool violation = false;
    m->io->sc->keep_model = true;
    psi_status st = psi_subcheck_run(m->io->sc, m->srt, k, &violation, &r, &d);
    m->io->sc->keep_model = false;
    if (st == PSI_ERR_NOMEM)
        return -1;
    if (st != PSI_OK) /* refused as input: no violation, no model */
        return 0;
    uint32_t nm = 0;
    if (!violation && psi_subrun_ser_order(&r, m->a, &nm, &d) == PSI_OK) {
#ifndef NDEBUG /* the pipeline's model is a serial order by the replay too */
        for (uint32_t i = 0; i < m->nS; i++)
            if (m->in_c[m->S[i]])
                psi_serord_remove(m->io->so, m->S[i]);
        assert(psi_serord_valid(m->io->so, m->a, nm));
        for (uint32_t i = 0; i < m->nS; i++)
            if (m->in_c[m->S[i]])
                psi_serord_add(m->io->so, m->S[i]);
#endif
        memcpy(m->M, m->a, nm * sizeof *m->a);
        m->nM = nm;
        pool_add(m, m->M, nm);
        *model = true;
    }
    psi_subrun_free(&r);
    return violation ? 1 : 0;
}

/* Is S minus the chunk c[0..nc) a violation? 1 yes, 0 no (and what its
 * model shows is learned), -1 on error or when the budget is out. */
static int test(sm *m, const uint32_t *c, uint32_t nc)
{
    for (uint32_t i = 0; i < nc; i++)
        m->in_c[c[i]] = 1;
    bool model = false;
    int r = test_marked(m, &model);
    for (uint32_t i = 0; i < nc; i++)
        m->in_c[c[i]] = 0;
    if (r == 0 && nc == 1)
        m->need[c[0]] = 1; /* S minus it is accepted, with a model or not */
    if (r == 0 && model && !learn(m, m->M, m->nM, c, nc))
        return -1;
    return r;
}

/* c[0..nc) leave S for good. */
static void drop(sm *m, const uint32_t *c, uint32_t nc)
{
    for (uint32_t k = 0; k < nc; k++) {
        m->in_s[c[k]] = 0;
        psi_serord_remove(m->io->so, c[k]);
    }
    uint32_t w = 0;
    for (uint32_t k = 0; k < m->nS; k++)
        if (m->in_s[m->S[k]])
            m->S[w++] = m->S[k];
    m->nS = w;
}

/* The cores' solver over S (the first S: every later one is a subset). */
static int cores_init(sm *m)
{
    const psi_subcheck *sc = m->io->sc;
    uint32_t n = m->nS + 1, *txns = malloc((size_t)n * sizeof *txns);
    uint32_t *local = malloc((size_t)m->h->n_txns * sizeof *local);
    int ret = -1;
    if (!txns || !local)
        goto out;
    txns[0] = PSI_INIT_TXN;
    for (uint32_t i = 0; i < m->nS; i++)
        txns[i + 1] = m->S[i];
    qsort(txns + 1, m->nS, sizeof *txns, psi_u32_cmp);
    memset(local, 0xff, m->h->n_txns * sizeof *local);
    psi_diag d = {0};
    psi_status st = psi_sub_polygraph_build(m->h, &sc->res->idx, &sc->res->g, txns, n,
                                            CORE_MAX_CONS, local, &m->L, &d);
    if (st == PSI_OK)
        st = psi_sub_cores_new(&m->L, m->h, CORES_CONFLICTS, &m->cores, &d);
    /* and no more than the re-checks' budget has left: a small budget
     * bounds them too */
    uint64_t left = m->io->budget > *m->io->calls ? m->io->budget - *m->io->calls : 0;
    m->cores_left = (uint64_t)CORES_PER_TXN * m->nS;
    m->cores_left = m->cores_left < left ? m->cores_left : left;
    m->l_in = malloc(n);
    m->l_core = malloc(n);
    m->l_order = malloc((size_t)n * sizeof *m->l_order);
    if (st == PSI_ERR_NOMEM || !m->l_in || !m->l_core || !m->l_order)
        goto out;
    ret = 0; /* too big (PSI_ERR_LIMIT): no cores */
out:
    free(txns);
    free(local);
    return ret;
}

/* While the cores' solver shows a core of S that leaves out members not
 * known to be needed, S without them is tried (test) and they go when it
 * is a violation: a violation of hundreds of transactions found by the
 * reasons loses most of what it does not need at once (10k values 1..4
 * under SER: 566 -> 409). c: scratch of room nS. 0, or -1 on error or
 * when the budget is out. */
static int drop_outside_core(sm *m, uint32_t *c)
{
    while (m->cores && m->cores_left) {
        m->cores_left--;
        for (uint32_t v = 0; v < m->L.n_nodes; v++) {
            uint32_t t = m->L.node_txn[v];
            m->l_in[v] = t == PSI_INIT_TXN || m->in_s[t];
            m->l_core[v] = 0;
        }
        bool violation = false, decided = false;
        psi_diag d = {0};
        if (psi_sub_cores_solve(m->cores, m->l_in, &decided, &violation, m->l_core, NULL, NULL,
                                &d) != PSI_OK)
            return -1;
        if (!decided || !violation) /* S is a violation: never seen */
            return 0;
        for (uint32_t v = 0; v < m->L.n_nodes; v++)
            m->core[m->L.node_txn[v]] = m->l_core[v];
        uint32_t nc = 0;
        for (uint32_t i = 0; i < m->nS; i++)
            if (!m->core[m->S[i]] && !m->need[m->S[i]])
                c[nc++] = m->S[i];
        for (uint32_t v = 0; v < m->L.n_nodes; v++)
            m->core[m->L.node_txn[v]] = 0;
        if (!nc)
            return 0;
        int r = test(m, c, nc);
        if (r != 1)
            return r;
        drop(m, c, nc);
    }
    return 0;
}

/* psi_shrink_by_models, with the cores' solver when use_cores; *refuted:
 * the pipeline does not reject the result, which rests on a refutation
 * of that solver (never seen). */
static uint32_t shrink(psi_shrink_io *io, uint32_t *v, uint32_t n, bool *complete, bool use_cores,
                       bool *refuted)
{
    const psi_history *h = io->sc->h;
    sm m = {.io = io, .h = h, .S = v, .nS = n, .stride = (size_t)n + 1};
    uint32_t nt = h->n_txns, ret = UINT32_MAX;
    *complete = false;
    m.in_s = calloc(nt, 1);
    m.need = calloc(nt, 1);
    m.in_c = calloc(nt, 1);
    m.mark = calloc(nt, sizeof *m.mark);
    m.M = malloc(((size_t)n + 1) * sizeof *m.M);
    m.a = malloc(((size_t)n + 1) * sizeof *m.a);
    m.b = malloc(((size_t)n + 1) * sizeof *m.b);
    m.srt = malloc(((size_t)n + 1) * sizeof *m.srt);
    uint32_t *c = malloc(((size_t)n + 1) * sizeof *c);
    m.cz.flag = calloc(nt, 1);
    m.pool = malloc((size_t)POOL * (n + 1) * sizeof *m.pool);
    m.cz.list = malloc((size_t)nt * sizeof *m.cz.list);
    m.core = calloc(nt, 1);
    if (!m.in_s || !m.need || !m.in_c || !m.mark || !m.M || !m.a || !m.b || !m.srt || !c ||
        !m.cz.flag || !m.cz.list || !m.pool || !m.core)
        goto out;
    assert(io->so->n_in == 0);
    for (uint32_t i = 0; i < n; i++) {
        m.in_s[v[i]] = 1;
        psi_serord_add(io->so, v[i]);
    }
    /* Chunks of the members not known to be needed, their size adapting
     * (doubled after a deletion, halved after an accept, down to single
     * ones, whose accept marks them needed): big chunks of a violation
     * made of hundreds of needed transactions rarely go, and the models
     * of the small ones' accepts (learn) show most needed ones. */
    uint32_t chunk = START_CHUNK;
    if ((use_cores && cores_init(&m) < 0) || drop_outside_core(&m, c) < 0) {
        if (!io->out_of_budget)
            goto out;
        goto done;
    }
    for (bool more = true; more;) {
        more = false;
        for (uint32_t i = 0; i < m.nS;) {
            uint32_t nc = 0, j = i;
            for (; j < m.nS && nc < chunk; j++)
                if (!m.need[m.S[j]])
                    c[nc++] = m.S[j];
            if (!nc)
                break;
            more = true;
            int r = test(&m, c, nc);
            if (r < 0) {
                if (!io->out_of_budget)
                    goto out;
                goto done;
            }
            if (r == 1) { /* the chunk goes; what followed it is at i now */
                drop(&m, c, nc);
                chunk = chunk < MAX_CHUNK ? 2 * chunk : chunk;
            } else if (nc > 1) {
                chunk = nc / 2; /* the same place again, smaller */
            } else {
                i = j; /* needed (learn marked it) */
            }
        }
    }
    *complete = true;
done:
    ret = m.nS;
    if (m.cores_rejects) { /* the result is the pipeline's violation too */
        ++*io->calls;
        int pr = pipeline_rejects(&m);
        if (pr < 0)
            ret = UINT32_MAX;
        *refuted = pr == 0;
    }
out:
    for (uint32_t i = 0; m.in_s && i < m.nS; i++) /* the set empty again for the next caller */
        if (io->so->in[m.S[i]])
            psi_serord_remove(io->so, m.S[i]);
    if (ret != UINT32_MAX)
        qsort(v, m.nS, sizeof *v, psi_u32_cmp);
    free(m.in_s);
    free(m.need);
    free(m.in_c);
    free(m.mark);
    free(m.M);
    free(m.a);
    free(m.b);
    free(m.srt);
    free(m.q);
    free(m.q_t);
    free(c);
    free(m.cz.flag);
    free(m.cz.list);
    free(m.pool);
    free(m.core);
    psi_sub_cores_free(m.cores);
    psi_sub_polygraph_free(&m.L);
    free(m.l_in);
    free(m.l_core);
    free(m.l_order);
    return ret;
}

uint32_t psi_shrink_by_models(psi_shrink_io *io, uint32_t *v, uint32_t n, bool *complete)
{
    uint32_t *v0 = malloc(((size_t)n + 1) * sizeof *v0);
    if (!v0)
        return UINT32_MAX;
    memcpy(v0, v, n * sizeof *v);
    bool refuted = false;
    uint32_t r = shrink(io, v, n, complete, true, &refuted);
    if (r != UINT32_MAX && refuted) {
        /* A refutation of the cores' solver that the pipeline does not
         * share: shrink again by the pipeline alone. */
        assert(!"the cores' solver and the pipeline disagree");
        memcpy(v, v0, n * sizeof *v);
        r = shrink(io, v, n, complete, false, &refuted);
    }
    free(v0);
    return r;
}
