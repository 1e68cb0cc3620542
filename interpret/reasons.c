/* Growth of a counterexample's sub-history along pruning's reasons (see
 * local.h, psi_reasons_grow).
 *
 * Pruning keeps no proof of its decisions, but every decision it took is
 * a forbidden cycle the other way round in the known graph its round
 * began with (prune.h, round_known): a version order W before S holds
 * because S before W would close one (a path from W to S, or to a reader
 * of S's write: its anti-dependency to W), and a read's candidate was
 * excluded because its WR edge (a path from the reader to the candidate)
 * or an anti-dependency it implies (a path to the reader from a writer
 * the candidate precedes, found with the path from the candidate to that
 * writer in one search over every writer of the key, or from any writer
 * for the initial value; from the reader to the candidate's other
 * readers when the reader writes the key too) would close one. Under SI
 * a path counts only when its cycle is one SI forbids (no two RW edges
 * in a row, the doubled graph pruning decides on). The cheapest such
 * path among the edges of the earlier rounds, leaving out the edge being
 * explained and its own consequences, is taken as the reason; its
 * decided edges are explained in turn, so reasons are never circular and
 * end with the history's edges. When every reason is found (complete),
 * the set is a violation by construction; before the search through a
 * writer (s29) a candidate excluded through a writer beyond the nearest
 * eight it precedes went unexplained, and 10k values 1..4 under SER was
 * no violation at any depth. The caller re-checks the sub-history from
 * the history alone all the same and falls back to blind growth when it
 * is no violation (reasons cut short by their bounds). */
#include "core/vec.h"
#include "interpret/local.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Bounds: edges explained, and known edges scanned per path search, so
 * that a history whose reasons are long costs a bounded time before the
 * fallback takes over. */
#define MAX_EXPLAINED    512u
#define MAX_SCAN_PER_BFS (1u << 22)
/* And known edges scanned by all the searches of one growth together.
 * Where session order is free and the history long, every search spreads
 * over all of it: 10^5 transactions with values 1..4 under SER (8 M known
 * edges) scanned 155 M edges in 443 searches, 4-5 s, and still had gaps,
 * so that the set was no violation at any depth and the cycle was shown
 * as found. The 10k histories' growths scan 4 M, 10^5 values 1..16 under
 * SER 8.2 M. */
#define MAX_SCAN_PER_GROWTH (1u << 24)
/* A path costing more than this (paths_to_targets) is no reason worth
 * taking: a sub-history it explains is too big to re-check anyway, and
 * searches that find nothing stop here instead of walking the whole
 * graph. */
#define MAX_PATH_COST 64u

/* A known edge as its tail's out-list holds it: what the searches read of
 * it, next to its neighbours (the known edges' own array is in known
 * order, so a node's out-edges are scattered over it, a cache miss each:
 * at 10^5 transactions and 8 M known edges the searches read 155 M of
 * them). Its tail is the node whose list it is in. */
typedef struct rslot {
    uint32_t to, key;
    uint32_t idx; /* in g->known (edge ids are 32-bit: graph.h) */
    uint8_t type, origin;
} rslot;

typedef struct rctx {
    const psi_history *h;
    const psi_index *idx;
    const psi_polygraph *g;
    const psi_prune_result *pr; /* its round marks (round_limit) */
    uint32_t n;                 /* nodes = transactions */
    /* Out-edges of the known graph (CSR), the initial transaction's left
     * out: it has no in-edges, so no cycle uses it. */
    uint64_t *off;
    rslot *out;
    /* Path search scratch: the search's stamp, targets marked with it,
     * the queue (the states' scratch is below). */
    uint32_t *target, stamp;
    uint64_t *heap;
    size_t n_heap, cap_heap;
    /* Edges queued for explanation (bit per known edge), the worklist. */
    uint8_t *queued;
    uint64_t *work;
    uint32_t *work_depth; /* [cap_work] how many reasons deep each queued edge is */
    uint32_t depth;       /* the depth of the edge being explained */
    size_t n_work, cap_work;
    uint8_t *read_in; /* [n_amb] the read is in the read set */
    uint8_t *in_set;  /* [n] the transaction is in out_set */
    uint32_t *hits;   /* [n] targets reached by the last search, in order reached */
    uint32_t n_hits;
    /* The level whose forbidden cycles the searches follow: SER's are any
     * cycle, SI's need no two consecutive anti-dependencies. */
    bool ser;
    /* A decision whose reason no search found (within its bounds): the
     * set may then be no violation. */
    bool gap;
    /* Known edges the growth's searches scanned so far; past
     * MAX_SCAN_PER_GROWTH the growth stops (spent: every search after it
     * finds nothing, and deepening follows no more reasons). */
    uint64_t scanned;
    uint64_t scan_limit; /* MAX_SCAN_PER_GROWTH unless a test lowers it */
    bool spent;
    /* Search scratch per state (STATE: node, phase, entered by an RW
     * edge; 4 per node): seen in search `stamp`, its cost, the state and
     * known edge it was reached by. */
    uint32_t *seen4, *dist4, *prev4;
    uint64_t *via4;
    uint32_t *hit_state; /* [n] the state each of hits was reached in */
    /* [n_ops] each read's index in idx->amb, UINT32_MAX for none:
     * edge costs ask it on every relaxation (psi_amb_of searches). */
    uint32_t *amb_idx;
    /* [n] path_via_writer's writers of its key: wkey[t] == wkey_stamp. */
    uint32_t *wkey, wkey_stamp;
    psi_reasons *out_set;
} rctx;

static bool add_txn(rctx *x, uint32_t t)
{
    psi_reasons *R = x->out_set;
    if (t != PSI_INIT_TXN) {
        if (x->in_set[t])
            return true;
        x->in_set[t] = 1;
    }
    if (!psi_grow((void **)&R->txns, &R->cap_txns, (size_t)R->n_txns + 1, sizeof *R->txns))
        return false;
    R->txns[R->n_txns++] = t;
    return true;
}

static bool push_edge(rctx *x, uint64_t e)
{
    if (x->queued[e])
        return true;
    x->queued[e] = 1;
    size_t cap = x->cap_work;
    if (!psi_grow((void **)&x->work, &x->cap_work, x->n_work + 1, sizeof *x->work))
        return false;
    if (cap != x->cap_work) {
        uint32_t *wd = realloc(x->work_depth, x->cap_work * sizeof *wd);
        if (!wd)
            return false;
        x->work_depth = wd;
    }
    x->work_depth[x->n_work] = x->depth + 1;
    x->work[x->n_work++] = e;
    return true;
}

/* The known edges a decision taken as known edge `at` may rest on: those
 * known when its pruning round began (prune.h, round_known). Explaining
 * it by an edge of its own round or later could go round in circles and
 * grows reasons without end; `at` itself bounds the edges of rounds past
 * the recorded marks, and edges known before the first round (the
 * history's) are never explained. */
static uint64_t round_limit(const rctx *x, uint64_t at)
{
    const psi_prune_result *p = x->pr;
    uint32_t lo = 0, hi = p->n_round_known; /* the marks only grow */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (p->round_known[mid] <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || (lo == p->n_round_known && p->round_marks_full))
        return at;
    return p->round_known[lo - 1];
}

/* t's external read of key, or UINT32_MAX. */
static uint32_t read_of(const rctx *x, uint32_t t, uint32_t key)
{
    const psi_txn *tx = &x->h->txns[t];
    for (uint32_t k = 0; k < tx->n_ops; k++) {
        uint32_t o = tx->first_op + k;
        if (x->h->ops[o].key == key && (x->idx->op_info[o] & PSI_OI_EXTERNAL_READ))
            return o;
    }
    return UINT32_MAX;
}

/* Binary min-heap of (distance << 32 | node). */
static void heap_up(uint64_t *hp, size_t i)
{
    while (i && hp[(i - 1) / 2] > hp[i]) {
        uint64_t t = hp[i];
        hp[i] = hp[(i - 1) / 2];
        hp[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static uint64_t heap_pop(uint64_t *hp, size_t *n)
{
    uint64_t top = hp[0];
    hp[0] = hp[--*n];
    for (size_t i = 0;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < *n && hp[l] < hp[m])
            m = l;
        if (l + 1 < *n && hp[l + 1] < hp[m])
            m = l + 1;
        if (m == i)
            break;
        uint64_t t = hp[i];
        hp[i] = hp[m];
        hp[m] = t;
        i = m;
    }
    return top;
}

#define DERIVED_COST 2u

/* What explaining the derived edge e adds besides its head: a resolved
 * read it rests on (its WR edge, or the read an anti-dependency leaves
 * from) brings every candidate writer with it, so a path through it costs
 * them all, unless the read is in already; any other decision costs
 * DERIVED_COST - 1 (its own reasons). */
static uint32_t derived_cost(const rctx *x, uint32_t from, const rslot *e)
{
    uint32_t t = e->type == PSI_EDGE_WR ? e->to : e->type == PSI_EDGE_RW ? from : UINT32_MAX;
    if (t == UINT32_MAX || t == PSI_INIT_TXN || !x->idx->n_amb)
        return DERIVED_COST - 1;
    uint32_t o = read_of(x, t, e->key);
    if (o == UINT32_MAX || !(x->idx->op_info[o] & PSI_OI_AMBIG))
        return DERIVED_COST - 1;
    uint32_t a = x->amb_idx[o];
    if (a == UINT32_MAX || x->read_in[a])
        return DERIVED_COST - 1;
    return DERIVED_COST - 1 + x->idx->amb[a].n;
}

/* What following known edge e out of `from` adds to the sub-history
 * (paths_to_targets says why): nothing for session order, else its head
 * when not in it yet and, for a derived edge not queued yet,
 * derived_cost. */
static uint32_t edge_cost(const rctx *x, uint32_t from, const rslot *e)
{
    if (e->type == PSI_EDGE_SO)
        return 0;
    uint32_t c = x->in_set[e->to] ? 0u : 1u;
    if (e->origin != PSI_FROM_HISTORY && !x->queued[e->idx])
        c += derived_cost(x, from, e);
    return c;
}

/* Whether state `next` is settled at cost du or less already: then no
 * edge into it from a state at cost du can improve it (costs are never
 * negative), and edge_cost need not be asked (relax would refuse it). */
static bool settled(const rctx *x, uint32_t next, uint32_t du)
{
    return x->seen4[next] == x->stamp && x->dist4[next] <= du;
}

/* The searches' states: node v in phase p (path_via_writer: 0 from the
 * candidate to a writer, 1 from that writer to the reader; always 0
 * elsewhere), entered by an RW edge or not (under SI a path whose cycle
 * is forbidden has no two in a row: the doubled graph of prune.h). */
#define STATE(v, p, rw) (((v) << 2) | ((uint32_t)(p) << 1) | (uint32_t)(rw))
#define VIA_SWITCH      (UINT64_MAX - 1) /* path_via_writer's phase changes at a writer */

/* The known edges the next search may scan: its own bound, or what is
 * left of the growth's (none once spent). */
static uint64_t scan_bound(const rctx *x)
{
    if (x->scanned >= x->scan_limit)
        return 0;
    uint64_t left = x->scan_limit - x->scanned;
    return left < MAX_SCAN_PER_BFS ? left : MAX_SCAN_PER_BFS;
}

/* Counts a search's scanned edges against the growth's bound (a search
 * checks its bound once per state, so it may pass it by one node's
 * out-edges); reaching it spends the growth. */
static void scan_spend(rctx *x, uint64_t scanned)
{
    x->scanned += scanned;
    if (x->scanned >= x->scan_limit)
        x->spent = x->gap = true;
}

/* Relaxes state `next` reached from `from` at cost du by known edge (or
 * VIA_SWITCH) `via`. False only when out of memory. */
static bool relax(rctx *x, uint32_t from, uint32_t next, uint32_t du, uint64_t via)
{
    if (x->seen4[next] == x->stamp && x->dist4[next] <= du)
        return true;
    if (!psi_grow((void **)&x->heap, &x->cap_heap, x->n_heap + 1, sizeof *x->heap))
        return false;
    x->seen4[next] = x->stamp;
    x->dist4[next] = du;
    x->via4[next] = via;
    x->prev4[next] = from;
    x->heap[x->n_heap++] = (uint64_t)du << 32 | next;
    heap_up(x->heap, x->n_heap - 1);
    return true;
}

/* Whether known edge e may follow a state entered by an RW edge or not
 * (rw) under the level's rule, and whether it enters its head by one. */
static bool rw_step(const rctx *x, uint8_t type, uint32_t rw, uint32_t *next_rw)
{
    *next_rw = type == PSI_EDGE_RW && !x->ser;
    return !(*next_rw && rw);
}

/* Queues the edges of the path that ends in state st (known order, via4
 * and prev4 of the last search) and adds its transactions: every one but
 * those it passes by session order alone (a sub-history orders a
 * session's transactions anyway), a phase switch's writer included. */
static bool trace_path(rctx *x, uint32_t st, uint64_t limit)
{
    bool so_out = false; /* the path leaves the node by session order */
    for (; x->via4[st] != UINT64_MAX; st = x->prev4[st]) {
        uint32_t v = st >> 2;
        if (x->via4[st] == VIA_SWITCH) {
            if (!add_txn(x, v))
                return false;
            so_out = false;
            continue;
        }
        const psi_edge *in = &x->g->known[x->via4[st]];
        assert(in->to == v && x->via4[st] < limit);
        (void)limit;
        bool so_in = in->type == PSI_EDGE_SO;
        if (!(so_in && so_out) && !add_txn(x, v))
            return false;
        if (!so_in && !push_edge(x, x->via4[st]))
            return false;
        so_out = so_in;
    }
    return add_txn(x, st >> 2); /* the source the path starts from */
}

/* Cheapest paths in the known graph among the edges known before
 * `limit` from the sources src[0..ns) to nodes marked in x->target with
 * the current stamp (n_targets of them; the search stops at the first
 * one reached when `all` is false, else when all are), skipping the WW
 * edge skip_from -> skip_to on skip_key and every RW edge on skip_key
 * into skip_to (the explained order and its consequences). Under SI the
 * path has no two RW edges in a row, and with dep_ends (it closes a
 * cycle with an RW edge: target -RW-> source) neither starts nor ends
 * with one, so that its cycle is one SI forbids. The cost is
 * what a path adds to the sub-history: a transaction not in it yet costs
 * 1, a derived edge not queued yet derived_cost more (it needs
 * reasons of its own); session order costs nothing (a sub-history orders
 * a session's transactions anyway, so the ones a path passes by session
 * order alone are left out). One search serves many targets, so their
 * paths share what they can. Lists the targets reached in x->hits and,
 * when `trace`, queues the paths' edges and adds their transactions.
 * False only when out of memory. */
static bool paths_to_targets(rctx *x, const uint32_t *src, uint32_t ns, uint32_t n_targets,
                             bool all, bool trace, bool dep_ends, uint32_t skip_from,
                             uint32_t skip_to, uint32_t skip_key, uint64_t limit)
{
    uint32_t stamp = x->stamp;
    uint64_t scanned = 0;
    x->n_heap = 0;
    x->n_hits = 0;
    /* With dep_ends under SI, a source counts as entered by an RW edge:
     * a dependency must come first. */
    uint32_t rw0 = dep_ends && !x->ser;
    for (uint32_t i = 0; i < ns; i++)
        if (src[i] != PSI_INIT_TXN && !relax(x, UINT32_MAX, STATE(src[i], 0, rw0), 0, UINT64_MAX))
            return false;
    uint64_t max_scan = scan_bound(x);
    while (x->n_heap && scanned < max_scan && x->n_hits < n_targets) {
        uint64_t top = heap_pop(x->heap, &x->n_heap);
        uint32_t st = (uint32_t)top, dv = (uint32_t)(top >> 32), v = st >> 2, rw = st & 1u;
        if (dv > x->dist4[st])
            continue;
        if (dv > MAX_PATH_COST)
            break; /* no reason worth taking: nothing reached */
        if (x->target[v] == stamp && !(dep_ends && rw)) {
            x->target[v] = 0; /* reached once */
            x->hit_state[x->n_hits] = st;
            x->hits[x->n_hits++] = v;
            if (!all)
                break;
        }
        for (uint64_t i = x->off[v]; i < x->off[v + 1]; i++) {
            const rslot *e = &x->out[i];
            if (e->idx >= limit)
                break; /* a node's out-edges are in known order (rctx_init) */
            scanned++;
            if (e->key == skip_key && e->to == skip_to &&
                (e->type == PSI_EDGE_RW || (e->type == PSI_EDGE_WW && v == skip_from)))
                continue;
            uint32_t nrw;
            if (!rw_step(x, e->type, rw, &nrw) || settled(x, STATE(e->to, 0, nrw), dv))
                continue;
            if (!relax(x, st, STATE(e->to, 0, nrw), dv + edge_cost(x, v, e), e->idx))
                return false;
        }
    }
    scan_spend(x, scanned);
    for (uint32_t k = 0; k < x->n_hits && trace; k++)
        if (!trace_path(x, x->hit_state[k], limit))
            return false;
    return true;
}

/* The cheapest path to the one target marked (paths_to_targets); *reached
 * is it when found, else UINT32_MAX. */
static bool path_to_target(rctx *x, const uint32_t *src, uint32_t ns, bool dep_ends,
                           uint32_t skip_from, uint32_t skip_to, uint32_t skip_key, uint64_t limit,
                           uint32_t *reached)
{
    if (!paths_to_targets(x, src, ns, 1, false, true, dep_ends, skip_from, skip_to, skip_key,
                          limit))
        return false;
    *reached = x->n_hits ? x->hits[0] : UINT32_MAX;
    return true;
}

/* Starts a new search: a fresh stamp (the arrays are cleared on wrap). */
static void new_search(rctx *x)
{
    if (++x->stamp == 0) {
        memset(x->seen4, 0, (size_t)x->n * 4 * sizeof *x->seen4);
        memset(x->target, 0, x->n * sizeof *x->target);
        x->stamp = 1;
    }
}

/* Does t write key (any of its writes)? */
static bool writes_key(const psi_history *h, uint32_t t, uint32_t key)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t k = 0; k < tx->n_ops; k++)
        if (h->ops[tx->first_op + k].kind == PSI_OP_WRITE && h->ops[tx->first_op + k].key == key)
            return true;
    return false;
}

/* Why `from` installs key before `to`: the other order's side (pruning's
 * constraint, coalesced over the keys both write) has the WW edge
 * to -> from and an anti-dependency R -> from from every reader R of
 * to's writes of those keys, and one of them closes a cycle: a path from
 * `from` to `to`, or to such a reader (then the WR edge to -> R, which
 * may itself be a resolved read, is explained too). Following only the
 * WW edge misses every order decided by a reader. */
static bool explain_order(rctx *x, uint32_t from, uint32_t to, uint32_t key, uint64_t limit)
{
    if (from == PSI_INIT_TXN || from == to)
        return true;
    uint32_t hit = UINT32_MAX;
    /* Under SI the two kinds of cycle differ (paths_to_targets, dep_ends):
     * the WW edge's first, then the readers'. */
    for (int pass = x->ser; pass < 2 && hit == UINT32_MAX; pass++) {
        new_search(x);
        if (pass == 0 || x->ser)
            x->target[to] = x->stamp;
        for (uint64_t i = x->off[to]; pass == 1 && i < x->off[to + 1]; i++) {
            const rslot *e = &x->out[i];
            if (e->type == PSI_EDGE_WR && e->idx < limit && e->to != from &&
                e->to != PSI_INIT_TXN && writes_key(x->h, from, e->key))
                x->target[e->to] = x->stamp;
        }
        if (!path_to_target(x, &from, 1, pass == 1 && !x->ser, from, to, key, limit, &hit))
            return false;
    }
    if (hit == UINT32_MAX)
        x->gap = true;
    if (hit == UINT32_MAX || hit == to)
        return true;
    for (uint64_t i = x->off[to]; i < x->off[to + 1]; i++) {
        const rslot *e = &x->out[i];
        if (e->type == PSI_EDGE_WR && e->idx < limit && e->to == hit &&
            writes_key(x->h, from, e->key))
            return add_txn(x, to) && push_edge(x, e->idx);
    }
    assert(!"a reader target has its WR edge");
    return true;
}

/* Why the read r->txn of key excludes candidate c through a writer W that
 * c installs the key before: the cheapest path c ~> W (W -> c would close
 * a cycle with it, so c precedes W in the version order) continued by
 * W ~> reader (reading c then implies the anti-dependency reader -> W,
 * which closes a cycle with it), in one search over edges known before
 * `limit`, every writer of the key a possible W. Pruning's conditional
 * edges for c (prune/choices.c, cond_impossible) are exactly such
 * anti-dependencies, to the writers the known graph puts after c. Under
 * SI both halves must be SI's forbidden cycles (the doubled graph of
 * prune.h): no two consecutive RW edges, and the second half starts and
 * ends with a dependency (the anti-dependency reader -> W comes before
 * and after it). Traces the path (queues its edges, adds its
 * transactions and W); *found says whether one was. False only when out
 * of memory. */
static bool path_via_writer(rctx *x, uint32_t c, uint32_t reader, uint32_t key, uint64_t limit,
                            bool *found)
{
    *found = false;
    new_search(x);
    /* The key's writers, marked once: the search asks at every state. */
    if (++x->wkey_stamp == 0) {
        memset(x->wkey, 0, x->n * sizeof *x->wkey);
        x->wkey_stamp = 1;
    }
    /* (the known graph's nodes are committed: a writer of the key has a
     * final write of it among the polygraph's) */
    for (uint32_t i = x->g->w_off[key]; i < x->g->w_off[key + 1]; i++)
        x->wkey[x->g->op_txn[x->g->w_op[i]]] = x->wkey_stamp;
    uint32_t goal = STATE(reader, 1, 0);
    uint64_t scanned = 0;
    x->n_heap = 0;
    if (!relax(x, UINT32_MAX, STATE(c, 0, 0), 0, UINT64_MAX))
        return false;
    uint64_t max_scan = scan_bound(x);
    while (x->n_heap && scanned < max_scan) {
        uint64_t top = heap_pop(x->heap, &x->n_heap);
        uint32_t st = (uint32_t)top, dv = (uint32_t)(top >> 32);
        if (dv > x->dist4[st])
            continue;
        if (dv > MAX_PATH_COST)
            break;
        if (st == goal) {
            *found = true;
            break;
        }
        uint32_t v = st >> 2, phase = (st >> 1) & 1u, rw = st & 1u;
        /* The phase switch at a writer, as if by the RW edge reader -> v:
         * under SI a dependency must follow. */
        if (!phase && v != c && v != reader && x->wkey[v] == x->wkey_stamp &&
            !relax(x, st, STATE(v, 1, !x->ser), dv, VIA_SWITCH))
            return false;
        for (uint64_t i = x->off[v]; i < x->off[v + 1]; i++) {
            const rslot *e = &x->out[i];
            if (e->idx >= limit)
                break; /* a node's out-edges are in known order (rctx_init) */
            scanned++;
            uint32_t nrw;
            if (!rw_step(x, e->type, rw, &nrw) || (phase && e->to == reader && nrw))
                continue; /* the last one before reader -> W must be a dependency */
            if (settled(x, STATE(e->to, phase, nrw), dv))
                continue;
            if (!relax(x, st, STATE(e->to, phase, nrw), dv + edge_cost(x, v, e), e->idx))
                return false;
        }
    }
    scan_spend(x, scanned);
    return !*found || trace_path(x, goal, limit);
}
#undef STATE

/* The read with a choice of writers x->idx->amb[a] joins the read set
 * with all its candidates; each excluded candidate is explained as
 * pruning excluded it (prune.c, choice_impossible and cond_impossible):
 * by a path from the reader to it (its WR edge would close a cycle); for
 * the initial value, by a path from a writer of the key to the reader
 * (the anti-dependency reader -> writer would); failing those, by a path
 * from a writer it precedes to the reader (an anti-dependency its choice
 * implies would). */
static bool explain_read(rctx *x, uint32_t a, uint64_t limit)
{
    if (x->read_in[a])
        return true;
    x->read_in[a] = 1;
    const psi_amb_read *r = &x->idx->amb[a];
    const uint32_t *cand = x->idx->amb_cand + r->first;
    uint32_t hit = UINT32_MAX;
    for (uint32_t j = 0; j < r->n; j++) {
        bool excluded = x->g->choice_state && x->g->choice_state[r->first + j] == PSI_CH_EXCLUDED;
        if (cand[j] == PSI_SRC_INIT) {
            if (!excluded)
                continue;
            /* Every writer of the key is a source: the one reaching the
             * reader soonest is the anti-dependency's head. */
            const psi_polygraph *g = x->g;
            uint32_t b = g->w_off[r->key], e = g->w_off[r->key + 1], ns = 0;
            uint32_t *src = malloc((e - b ? e - b : 1) * sizeof *src);
            if (!src)
                return false;
            for (uint32_t i = b; i < e; i++)
                if (g->op_txn[g->w_op[i]] != r->txn)
                    src[ns++] = g->op_txn[g->w_op[i]];
            new_search(x);
            x->target[r->txn] = x->stamp;
            bool ok =
                path_to_target(x, src, ns, true, UINT32_MAX, UINT32_MAX, UINT32_MAX, limit, &hit);
            free(src);
            if (!ok)
                return false;
            x->gap |= hit == UINT32_MAX;
            continue;
        }
        if (!add_txn(x, x->idx->op_txn[cand[j]]))
            return false;
    }
    /* The excluded candidates' WR edges: one search from the reader to
     * all of them, so that their paths share what they can. */
    new_search(x);
    uint32_t n_t = 0;
    for (uint32_t j = 0; j < r->n; j++) {
        uint32_t c = cand[j] == PSI_SRC_INIT ? PSI_INIT_TXN : x->idx->op_txn[cand[j]];
        if (c == PSI_INIT_TXN || c == r->txn || x->target[c] == x->stamp || !x->g->choice_state ||
            x->g->choice_state[r->first + j] != PSI_CH_EXCLUDED)
            continue;
        x->target[c] = x->stamp;
        n_t++;
    }
    uint32_t *left = malloc((n_t ? n_t : 1) * sizeof *left), n_left = 0;
    if (!left)
        return false;
    if (n_t && !paths_to_targets(x, &r->txn, 1, n_t, true, true, false, UINT32_MAX, UINT32_MAX,
                                 UINT32_MAX, limit)) {
        free(left);
        return false;
    }
    for (uint32_t j = 0; j < r->n && n_t; j++) {
        uint32_t c = cand[j] == PSI_SRC_INIT ? PSI_INIT_TXN : x->idx->op_txn[cand[j]];
        if (c != PSI_INIT_TXN && x->target[c] == x->stamp) { /* not reached */
            x->target[c] = 0;
            left[n_left++] = c;
        }
    }
    bool ok = true;
    for (uint32_t k = 0; k < n_left && ok; k++) {
        uint32_t c = left[k];
        bool found = false;
        ok = path_via_writer(x, c, r->txn, r->key, limit, &found);
        if (ok && !found && writes_key(x->h, r->txn, r->key)) {
            /* The reader writes the key too: reading c would order it
             * right after c, before c's other readers R2 (known WR edges
             * c -> R2), whose anti-dependencies R2 -> reader close a
             * cycle with a path from the reader to R2. */
            new_search(x);
            for (uint64_t i = x->off[c]; i < x->off[c + 1]; i++) {
                const rslot *e = &x->out[i];
                if (e->type == PSI_EDGE_WR && e->key == r->key && e->idx < limit && e->to != r->txn)
                    x->target[e->to] = x->stamp;
            }
            ok = path_to_target(x, &r->txn, 1, true, UINT32_MAX, UINT32_MAX, UINT32_MAX, limit,
                                &hit);
            for (uint64_t i = x->off[c]; ok && hit != UINT32_MAX && i < x->off[c + 1]; i++) {
                const rslot *e = &x->out[i];
                if (e->type == PSI_EDGE_WR && e->key == r->key && e->to == hit)
                    ok = push_edge(x, e->idx);
            }
            found = hit != UINT32_MAX;
        }
        x->gap |= !found;
    }
    free(left);
    return ok;
}

/* The known WR edge from -> to on key, or UINT64_MAX. */
static uint64_t wr_edge(const rctx *x, uint32_t from, uint32_t to, uint32_t key)
{
    if (from == PSI_INIT_TXN)
        return UINT64_MAX;
    for (uint64_t i = x->off[from]; i < x->off[from + 1]; i++) {
        const rslot *e = &x->out[i];
        if (e->type == PSI_EDGE_WR && e->key == key && e->to == to)
            return e->idx;
    }
    return UINT64_MAX;
}

/* The writer t's read of key observed or was resolved to (PSI_INIT_TXN
 * for the initial value, UINT32_MAX when unknown); a read with a choice
 * is explained (explain_read) by edges known before its resolution (its
 * WR edge) and before `limit`. */
static bool writer_read(rctx *x, uint32_t t, uint32_t key, uint64_t limit, uint32_t *w)
{
    *w = UINT32_MAX;
    uint32_t o = read_of(x, t, key);
    if (o == UINT32_MAX)
        return true;
    if (!(x->idx->op_info[o] & PSI_OI_AMBIG)) {
        uint32_t src = x->idx->read_src[o];
        *w = src == PSI_SRC_INIT ? PSI_INIT_TXN : src < PSI_SRC_INIT ? x->idx->op_txn[src] : *w;
        return true;
    }
    uint32_t a = x->amb_idx[o];
    if (a == UINT32_MAX)
        return true;
    const psi_amb_read *r = &x->idx->amb[a];
    for (uint32_t j = 0; j < r->n && x->g->choice_state; j++)
        if (x->g->choice_state[r->first + j] == PSI_CH_FORCED) {
            uint32_t c = x->idx->amb_cand[r->first + j];
            *w = c == PSI_SRC_INIT ? PSI_INIT_TXN : x->idx->op_txn[c];
        }
    uint64_t wr = *w == UINT32_MAX ? UINT64_MAX : wr_edge(x, *w, t, key);
    return explain_read(x, a, wr < limit ? round_limit(x, wr) : limit);
}

/* One edge of the cycle or of a reason (known[at], or at == UINT64_MAX
 * for a cycle's edge): what it rests on, among the edges known before
 * it. */
static bool explain_edge(rctx *x, const psi_edge *e, uint64_t at)
{
    if (e->from == PSI_INIT_TXN || e->type == PSI_EDGE_SO)
        return true;
    if (!add_txn(x, e->from) || !add_txn(x, e->to))
        return false;
    uint32_t w;
    at = at == UINT64_MAX ? at : round_limit(x, at);
    switch ((psi_edge_type)e->type) {
    case PSI_EDGE_WR:
        return writer_read(x, e->to, e->key, at, &w);
    case PSI_EDGE_WW:
        if (e->origin == PSI_FROM_HISTORY || e->origin >= PSI_FROM_CONSTRAINT)
            return true;
        return explain_order(x, e->from, e->to, e->key, at);
    case PSI_EDGE_RW:
        if (!writer_read(x, e->from, e->key, at, &w))
            return false;
        if (w == UINT32_MAX || w == PSI_INIT_TXN)
            return true;
        return add_txn(x, w) && explain_order(x, w, e->to, e->key, at);
    default:
        return true;
    }
}

static psi_status rctx_init(rctx *x, psi_diag *d)
{
    const psi_polygraph *g = x->g;
    x->off = calloc((size_t)x->n + 2, sizeof *x->off);
    x->out = malloc((g->n_known ? g->n_known : 1) * sizeof *x->out);
    size_t m = (size_t)x->n * 4;
    assert(x->n < (1u << 30)); /* STATE fits */
    x->seen4 = calloc(m ? m : 1, sizeof *x->seen4);
    x->dist4 = malloc((m ? m : 1) * sizeof *x->dist4);
    x->prev4 = malloc((m ? m : 1) * sizeof *x->prev4);
    x->via4 = malloc((m ? m : 1) * sizeof *x->via4);
    x->hit_state = malloc((x->n ? x->n : 1) * sizeof *x->hit_state);
    x->target = calloc(x->n, sizeof *x->target);
    x->queued = calloc(g->n_known ? g->n_known : 1, 1);
    x->read_in = calloc(x->idx->n_amb ? x->idx->n_amb : 1, 1);
    x->in_set = calloc(x->n ? x->n : 1, 1);
    x->hits = malloc((x->n ? x->n : 1) * sizeof *x->hits);
    x->amb_idx = malloc((x->h->n_ops ? x->h->n_ops : 1) * sizeof *x->amb_idx);
    x->wkey = calloc(x->n ? x->n : 1, sizeof *x->wkey);
    if (!x->off || !x->out || !x->seen4 || !x->dist4 || !x->prev4 || !x->via4 || !x->hit_state ||
        !x->target || !x->queued || !x->read_in || !x->in_set || !x->hits || !x->amb_idx ||
        !x->wkey)
        return psi_diag_nomem(d, "interpreting");
    memset(x->amb_idx, 0xff, x->h->n_ops * sizeof *x->amb_idx);
    for (uint32_t a = 0; a < x->idx->n_amb; a++)
        x->amb_idx[x->idx->amb[a].op] = a;
    for (uint64_t i = 0; i < g->n_known; i++)
        if (g->known[i].from != PSI_INIT_TXN)
            x->off[g->known[i].from + 2]++;
    for (uint32_t v = 0; v < x->n; v++)
        x->off[v + 2] += x->off[v + 1];
    /* In known order per node: searches stop at a round's limit. */
    assert(g->n_known <= UINT32_MAX); /* rslot.idx */
    for (uint64_t i = 0; i < g->n_known; i++) {
        const psi_edge *e = &g->known[i];
        if (e->from != PSI_INIT_TXN)
            x->out[x->off[e->from + 1]++] = (rslot){.to = e->to,
                                                    .key = e->key,
                                                    .idx = (uint32_t)i,
                                                    .type = e->type,
                                                    .origin = e->origin};
    }
    return PSI_OK;
}

static void rctx_free(rctx *x)
{
    free(x->off);
    free(x->out);
    free(x->target);
    free(x->heap);
    free(x->queued);
    free(x->read_in);
    free(x->in_set);
    free(x->hits);
    free(x->work);
    free(x->work_depth);
    free(x->seen4);
    free(x->dist4);
    free(x->prev4);
    free(x->via4);
    free(x->hit_state);
    free(x->amb_idx);
    free(x->wkey);
}

/* What a growth keeps between deepenings (psi_reasons.x). */
struct psi_reasons_ctx {
    rctx x;
    size_t wi; /* the worklist's next edge */
};

uint32_t psi_reported_cycles(const psi_check_result *res, const psi_edge *cyc[2], uint32_t len[2])
{
    uint32_t nc = 0;
    if (res->reason == PSI_BY_SOLVER) {
        cyc[nc] = res->solver_cycle;
        len[nc++] = res->solver_cycle_len;
    } else {
        for (int c = 0; c < 2; c++)
            if (res->prune.cycle_len[c]) {
                cyc[nc] = res->prune.cycle[c];
                len[nc++] = res->prune.cycle_len[c];
            }
    }
    return nc;
}

psi_status psi_reasons_start(const psi_history *h, const psi_check_result *res, bool ser,
                             const psi_edge *const *cycles, const uint32_t *lens, uint32_t n_cycles,
                             psi_reasons *R, psi_diag *d)
{
    memset(R, 0, sizeof *R);
    struct psi_reasons_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return psi_diag_nomem(d, "interpreting");
    R->ctx = c;
    c->x = (rctx){.h = h,
                  .idx = &res->idx,
                  .g = &res->g,
                  .pr = &res->prune,
                  .n = h->n_txns,
                  .out_set = R,
                  .ser = ser,
                  .scan_limit = MAX_SCAN_PER_GROWTH};
    psi_status st = rctx_init(&c->x, d);
    /* A solver's cycle rests on its choices among open constraints too,
     * which no reason explains (the solver refuted every choice, not
     * this one): its set is never a violation by construction. */
    c->x.gap = res->reason == PSI_BY_SOLVER;
    /* The cycles' own edges, depth 0 (they queue their reasons at 1). */
    for (uint32_t k = 0; k < n_cycles && st == PSI_OK; k++)
        for (uint32_t i = 0; i < lens[k] && st == PSI_OK; i++)
            if (!explain_edge(&c->x, &cycles[k][i], UINT64_MAX))
                st = psi_diag_nomem(d, "interpreting");
    if (st != PSI_OK)
        psi_reasons_free(R);
    return st;
}

void psi_reasons_limit_scan(psi_reasons *R, uint64_t max_scanned)
{
    assert(R->ctx && max_scanned > 0);
    R->ctx->x.scan_limit = max_scanned;
}

psi_status psi_reasons_deepen(psi_reasons *R, uint32_t max_depth, psi_diag *d)
{
    struct psi_reasons_ctx *c = R->ctx;
    rctx *x = &c->x;
    assert(x->out_set == R);
    bool ok = true;
    for (; ok && !x->spent && c->wi < x->n_work && c->wi < MAX_EXPLAINED; c->wi++) {
        if (x->work_depth[c->wi] > max_depth)
            break; /* depths only grow along the worklist */
        x->depth = x->work_depth[c->wi];
        ok = explain_edge(x, &x->g->known[x->work[c->wi]], x->work[c->wi]);
    }
    R->complete = c->wi == x->n_work && !x->gap;
    R->spent = x->spent;
    R->n_reads = 0; /* every read in, in operation order */
    for (uint32_t a = 0; a < x->idx->n_amb && ok; a++) {
        if (!x->read_in[a])
            continue;
        ok = psi_grow((void **)&R->reads, &R->cap_reads, (size_t)R->n_reads + 1, sizeof *R->reads);
        if (ok)
            R->reads[R->n_reads++] = x->idx->amb[a].op;
    }
    return ok ? PSI_OK : psi_diag_nomem(d, "interpreting");
}

psi_status psi_reasons_grow(const psi_history *h, const psi_check_result *res, bool ser,
                            const psi_edge *const *cycles, const uint32_t *lens, uint32_t n_cycles,
                            uint32_t max_depth, psi_reasons *R, psi_diag *d)
{
    psi_status st = psi_reasons_start(h, res, ser, cycles, lens, n_cycles, R, d);
    if (st == PSI_OK)
        st = psi_reasons_deepen(R, max_depth, d);
    if (st != PSI_OK)
        psi_reasons_free(R);
    return st;
}

void psi_reasons_free(psi_reasons *R)
{
    if (R->ctx) {
        rctx_free(&R->ctx->x);
        free(R->ctx);
    }
    free(R->txns);
    free(R->reads);
    memset(R, 0, sizeof *R);
}
