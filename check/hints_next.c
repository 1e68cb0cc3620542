/* A complete version order in the form the polygraph-free pass walks, and
 * the writers read lines name for choice reads (see hints.h:
 * psi_hints_next, psi_hints_choices). */
#include "check/hints.h"

#include "check/hints_resolver.h"
#include "core/prefetch.h"
#include "core/vec.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* Whether op o is the final write of its key by a transaction that takes
 * part (committed): the writers a complete order must name. */
static bool named_write(const psi_index *idx, uint32_t o)
{
    return (idx->op_info[o] & (PSI_OI_LIVE | PSI_OI_FINAL_WRITE)) ==
           (PSI_OI_LIVE | PSI_OI_FINAL_WRITE);
}

/* Transactions with more operations than this are looked up in
 * psi_key_writers instead of scanned: a chain per key naming a transaction
 * that writes every key would make scanning quadratic. */
#define BIG_TXN 64

bool psi_key_writers_build(const psi_history *h, const psi_index *idx, psi_key_writers *kw)
{
    kw->off = calloc((size_t)h->n_keys + 2, sizeof *kw->off);
    uint64_t n = 0;
    for (uint32_t o = 0; kw->off && o < h->n_ops; o++)
        if (named_write(idx, o)) {
            kw->off[h->ops[o].key + 2]++;
            n++;
        }
    if (kw->off && n < UINT32_MAX) {
        kw->wop = malloc((n ? n : 1) * sizeof *kw->wop);
        kw->wtx = malloc((n ? n : 1) * sizeof *kw->wtx);
    }
    if (!kw->wop || !kw->wtx)
        return false;
    for (uint32_t k = 0; k < h->n_keys; k++)
        kw->off[k + 2] += kw->off[k + 1];
    /* Transaction by transaction, so each key's list is sorted by
     * transaction: operations need not be in transaction order (a
     * generated history keeps them in the order they ran). */
    for (uint32_t t = 0; t < h->n_txns; t++)
        for (uint32_t o = h->txns[t].first_op; o < h->txns[t].first_op + h->txns[t].n_ops; o++)
            if (named_write(idx, o)) {
                uint32_t i = kw->off[h->ops[o].key + 1]++;
                kw->wop[i] = o;
                kw->wtx[i] = t;
            }
    return true;
}

void psi_key_writers_free(psi_key_writers *kw)
{
    free(kw->off);
    free(kw->wop);
    free(kw->wtx);
    memset(kw, 0, sizeof *kw);
}

/* Committed transaction t's final write of key k, UINT32_MAX when it has
 * none (or when out of memory: *nomem set). */
static uint32_t write_of(const psi_resolver *r, psi_key_writers *kw, uint32_t t, uint32_t k,
                         bool *nomem)
{
    const psi_txn *tx = &r->h->txns[t];
    if (tx->n_ops <= BIG_TXN) {
        for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++)
            if (r->h->ops[o].key == k && named_write(r->idx, o))
                return o;
        return UINT32_MAX;
    }
    if (!kw->off && !psi_key_writers_build(r->h, r->idx, kw)) {
        *nomem = true;
        return UINT32_MAX;
    }
    uint32_t b = kw->off[k], e = kw->off[k + 1];
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (kw->wtx[m] == t)
            return kw->wop[m];
        if (kw->wtx[m] < t)
            b = m + 1;
        else
            e = m;
    }
    return UINT32_MAX;
}

/* A final write no chain has named yet (psi_hints_next's marker). */
#define UNNAMED (UINT32_MAX - 1)

/* How many entries ahead psi_hints_next fetches the id table slot of an
 * entry (its transaction record is fetched half as far ahead): far
 * enough for a line from memory on a loaded machine. */
#define AHEAD 64

/* A place in the order's entries, chain after chain: the entries fetched
 * ahead run on across the end of a chain (most chains of a skewed
 * history are shorter than AHEAD). */
typedef struct cursor {
    size_t c, i;
} cursor;

/* The entry at *u, moving *u to the next one; NULL past the last. */
static inline const psi_hint_txn *cursor_next(const psi_version_order *vo, cursor *u)
{
    while (u->c < vo->n_chains && u->i >= vo->chains[u->c].n)
        u->c++, u->i = 0;
    return u->c < vo->n_chains ? &vo->chains[u->c].tx[u->i++] : NULL;
}

/* cursor_next of a resolved order (vo->named_in): the entry's
 * transaction, UINT32_MAX past the last. */
static inline uint32_t cursor_next_txn(const psi_version_order *vo, cursor *u)
{
    while (u->c < vo->n_chains && u->i >= vo->chains[u->c].n)
        u->c++, u->i = 0;
    return u->c < vo->n_chains ? vo->chains[u->c].txn[u->i++] : UINT32_MAX;
}

/* What psi_hints_next keeps per transaction, in one 16-byte record so a
 * chain entry costs one random line, not the transaction, its operations
 * and their flags (the chains visit transactions in version order, which
 * is all over the history). */
typedef struct txn_rec {
    uint32_t first_op, n_ops;
    uint32_t sess; /* its session; REC_INITIAL, REC_UNNAMEABLE instead */
    uint32_t used; /* slots taken: entries naming it so far */
} txn_rec;

#define REC_INITIAL    UINT32_MAX       /* the recorded initial state */
#define REC_UNNAMEABLE (UINT32_MAX - 1) /* not committed: no chain names it */

/* The transaction the id table names for entry x without a doubt,
 * UINT32_MAX when it does not say (find_txn decides those). */
static inline uint32_t table_txn(const psi_resolver *r, const psi_hint_txn *x)
{
    if (!r->by_tid || x->tid - r->tid_min >= r->tid_span)
        return UINT32_MAX;
    uint32_t t = r->by_tid[x->tid - r->tid_min];
    return t < r->h->n_txns ? t : UINT32_MAX;
}

/* The transaction chain entry x names, UINT32_MAX when none (find_txn's
 * answer, from the records when the id table says). */
static inline uint32_t entry_txn(psi_resolver *r, const txn_rec *rec, const psi_hint_txn *x,
                                 bool *nomem)
{
    uint32_t t = table_txn(r, x);
    if (t == UINT32_MAX)
        return psi_hints_find_txn(r, x->sid, x->tid, nomem);
    uint32_t s = rec[t].sess;
    if (s == REC_INITIAL)
        return r->h->sessions[r->h->txns[t].session].id == x->sid ? t : UINT32_MAX;
    return s < r->h->n_sessions && r->h->sessions[s].id == x->sid ? t : UINT32_MAX;
}

/* One chain of psi_hints_next, for key k, first pass: each
 * entry takes a slot in its transaction's range of nx[] (its j-th slot at
 * first_op + j), nx[slot] = {the transaction of the chain's next entry
 * (PSI_HINT_LAST after the last), k}: written once the next entry is
 * known, so each entry costs one random line of nx, not one for the key
 * and one for the successor. False when the chain cannot be complete: an
 * entry that names no committed transaction, the initial state after the
 * first entry, more entries naming a transaction than it has operations.
 * (Naming each of k's writers once is settle_txn's to check.) */
static bool place_chain(psi_resolver *r, txn_rec *rec, const psi_hint_chain *c, uint32_t k,
                        psi_hint_slot *nx, uint32_t *first, cursor *far, cursor *near, bool *nomem)
{
    uint32_t prev = UINT32_MAX;
    bool named = c->txn != NULL; /* resolved as the file was read */
    for (size_t i = 0; i < c->n; i++) {
        /* Independent loads, fetched ahead: the id slot of the entry far
         * points at, the record of near's (its id slot fetched by now);
         * for a resolved entry (no id slot) far's record and the nx[]
         * slot near's will take (its record fetched by now). Here, not
         * in a function of their own: GCC finds such a function pure and
         * drops its calls. */
        uint32_t t;
        if (named) {
            uint32_t ta = cursor_next_txn(r->vo, far), tn = cursor_next_txn(r->vo, near);
            if (ta != UINT32_MAX)
                PSI_PREFETCH_W(&rec[ta]);
            if (tn != UINT32_MAX)
                PSI_PREFETCH_W(&nx[rec[tn].first_op + rec[tn].used]);
            /* the one transaction of that name: committed and named
             * if its record says so (REC_UNNAMEABLE below) */
            t = c->txn[i];
        } else {
            const psi_hint_txn *xf = cursor_next(r->vo, far), *xn = cursor_next(r->vo, near);
            if (r->by_tid && xf && xf->tid - r->tid_min < r->tid_span)
                PSI_PREFETCH(&r->by_tid[xf->tid - r->tid_min]);
            uint32_t ta = xn ? table_txn(r, xn) : UINT32_MAX;
            if (ta != UINT32_MAX)
                PSI_PREFETCH_W(&rec[ta]);
            t = entry_txn(r, rec, &c->tx[i], nomem);
        }
        if (t == UINT32_MAX || rec[t].sess == REC_UNNAMEABLE)
            return false;
        if (rec[t].sess == REC_INITIAL) {
            if (i == 0)
                continue; /* the initial version comes first anyway */
            return false;
        }
        txn_rec *x = &rec[t];
        if (x->used == x->n_ops)
            return false;
        uint32_t slot = x->first_op + x->used++;
        if (prev == UINT32_MAX)
            first[k] = t;
        else
            nx[prev] = (psi_hint_slot){.next = t, .txn = k};
        prev = slot;
    }
    if (prev != UINT32_MAX)
        nx[prev] = (psi_hint_slot){.next = PSI_HINT_LAST, .txn = k};
    return true;
}

/* psi_hints_next's mark per key: whether a chain names its writers, or
 * (no chain) whether settle_txn has met its one writer. */
enum { KEY_BARE = 0, KEY_CHAIN = 1, KEY_LONE = 2 };

/* The second pass, over transactions in order: transaction t's slots
 * (place_chain) become nx[].next of its final writes of their keys, and
 * every operation of t gets t as its nx[].txn. A committed writer of a
 * key without a chain is that key's only version (first[k] = t, next
 * PSI_HINT_LAST; mark[k] KEY_LONE). False when a slot's key has no final
 * write in t, two slots name one (a writer named twice), a chain misses
 * a final write of t, or a key without a chain has a second writer: so
 * when every transaction has settled, each chain names each of its key's
 * committed writers exactly once. scratch: room for 3 * t's operations. */
static bool settle_txn(psi_resolver *r, psi_key_writers *kw, const txn_rec *x, uint32_t t,
                       psi_hint_slot *nx, uint32_t *first, uint8_t *mark, uint32_t *scratch,
                       bool *nomem)
{
    uint32_t b = x->first_op, m = x->used;
    for (uint32_t j = 0; j < m; j++) {
        scratch[2 * j] = nx[b + j].txn; /* the slot's key */
        scratch[2 * j + 1] = nx[b + j].next;
    }
    if (x->n_ops <= BIG_TXN) {
        /* A small transaction, no lookup: each final write takes the
         * first untaken slot of its key (a key's slots past the first
         * stay untaken: named twice); one without a slot is its key's
         * only writer, or the order misses it. Taken slots' keys become
         * NO_KEY (keys are dense). */
        const uint32_t NO_KEY = UINT32_MAX;
        /* The final writes first, without a branch per operation (which
         * operations write is not predictable): wo[0 .. n_w). */
        uint32_t *wo = scratch + 2 * m, n_w = 0, taken = 0;
        for (uint32_t o = b; o < b + x->n_ops; o++) {
            nx[o] = (psi_hint_slot){.next = UNNAMED, .txn = t};
            wo[n_w] = o;
            n_w += named_write(r->idx, o);
        }
        for (uint32_t i = 0; i < n_w; i++) {
            uint32_t o = wo[i], k = r->h->ops[o].key, j = m, next;
            /* the first untaken slot of k, m when none: every slot looked
             * at, the same number of steps for each write of t */
            for (uint32_t jj = m; jj-- > 0;)
                j = scratch[2 * jj] == k ? jj : j;
            if (j < m) {
                next = scratch[2 * j + 1];
                scratch[2 * j] = NO_KEY;
                taken++;
            } else if (mark[k] != KEY_BARE) {
                return false; /* left out of k's chain, or k's second writer */
            } else {
                mark[k] = KEY_LONE;
                first[k] = t;
                next = PSI_HINT_LAST;
            }
            nx[o].next = next;
        }
        return taken == m;
    }
    for (uint32_t o = b; o < b + x->n_ops; o++)
        nx[o] = (psi_hint_slot){.next = UNNAMED, .txn = t};
    for (uint32_t j = 0; j < m; j++) {
        uint32_t o = write_of(r, kw, t, scratch[2 * j], nomem);
        if (o == UINT32_MAX || nx[o].next != UNNAMED)
            return false;
        nx[o].next = scratch[2 * j + 1];
    }
    for (uint32_t o = b; o < b + x->n_ops; o++) {
        if (nx[o].next != UNNAMED || !named_write(r->idx, o))
            continue;
        uint32_t k = r->h->ops[o].key;
        if (mark[k] != KEY_BARE)
            return false; /* left out of k's chain, or k's second writer */
        mark[k] = KEY_LONE;
        first[k] = t;
        nx[o].next = PSI_HINT_LAST;
    }
    return true;
}

psi_status psi_hints_next(const psi_history *h, const psi_index *idx, const psi_version_order *vo,
                          psi_hint_slot *nx, uint32_t *first, bool *complete, psi_diag *d)
{
    *complete = false;
    assert(!vo->named_in || vo->named_in == h);
    /* a resolved order's entries need no id table (keys only) */
    psi_resolver r = {.h = h, .idx = idx, .vo = vo, .d = d, .keys_only = vo->named_in != NULL};
    psi_key_writers kw = {0};
    uint8_t *mark = calloc((size_t)h->n_keys + 1, 1); /* KEY_BARE ... */
    /* scratch: settle_txn's */
    txn_rec *rec = malloc(((size_t)h->n_txns + 1) * sizeof *rec);
    psi_hint_huge(rec, ((size_t)h->n_txns + 1) * sizeof *rec); /* visited at random */
    uint32_t *scratch = NULL, max_ops = 0;
    for (uint32_t t = 0; t < h->n_txns; t++)
        max_ops = h->txns[t].n_ops > max_ops ? h->txns[t].n_ops : max_ops;
    scratch = malloc((3 * (size_t)max_ops + 2) * sizeof *scratch);
    psi_status st = PSI_OK;
    if (!mark || !rec || !scratch)
        st = psi_diag_nomem(d, "reading the version order");
    else
        st = psi_hints_open(&r);
    bool ok = st == PSI_OK, nomem = false;
    if (ok) {
        memset(first, 0xff, (size_t)h->n_keys * sizeof *first);
        for (uint32_t t = 0; t < h->n_txns; t++) {
            const psi_txn *tx = &h->txns[t];
            uint32_t s = tx->status == PSI_TXN_INITIAL     ? REC_INITIAL
                         : tx->status == PSI_TXN_COMMITTED ? tx->session
                                                           : REC_UNNAMEABLE;
            /* the initial transaction (t 0) is named only as the
             * recorded initial state, which is another transaction */
            rec[t] = (txn_rec){.first_op = tx->first_op,
                               .n_ops = tx->n_ops,
                               .sess = t ? s : REC_UNNAMEABLE,
                               .used = 0};
        }
    }
    /* the entries fetched ahead, AHEAD and AHEAD / 2 past the first */
    cursor far = {0, 0}, near = {0, 0};
    for (int i = 0; i < AHEAD; i++) {
        if (vo->named_in) {
            (void)cursor_next_txn(vo, &far);
            if (i < AHEAD / 2)
                (void)cursor_next_txn(vo, &near);
            continue;
        }
        (void)cursor_next(vo, &far);
        if (i < AHEAD / 2)
            (void)cursor_next(vo, &near);
    }
    for (size_t c = 0; c < vo->n_chains && ok; c++) {
        uint32_t k = psi_hints_chain_key(&r, &vo->chains[c]);
        /* one chain per key: several are the general resolution's */
        ok = k != UINT32_MAX && mark[k] == KEY_BARE;
        if (ok) {
            mark[k] = KEY_CHAIN;
            ok = place_chain(&r, rec, &vo->chains[c], k, nx, first, &far, &near, &nomem);
        }
    }
    /* Every operation's nx[] is set here, chained or not; a key with one
     * writer needs no line, one with more does. */
    for (uint32_t t = 0; t < h->n_txns && ok; t++)
        ok = settle_txn(&r, &kw, &rec[t], t, nx, first, mark, scratch, &nomem);
    if (nomem && st == PSI_OK)
        st = psi_diag_nomem(d, "reading the version order");
    *complete = ok && st == PSI_OK;
    psi_hints_close(&r);
    psi_key_writers_free(&kw);
    free(mark);
    free(rec);
    free(scratch);
    return st;
}

/* The choice read (index into idx->amb) of transaction t on key k,
 * UINT32_MAX when t's read of k has no choice: amb is in operation order
 * and t's operations are one range. */
static uint32_t amb_of(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t k)
{
    uint32_t b = 0, e = idx->n_amb, lo = h->txns[t].first_op, hi = lo + h->txns[t].n_ops;
    while (b < e) {
        uint32_t m = b + (e - b) / 2;
        if (idx->amb[m].op < lo)
            b = m + 1;
        else
            e = m;
    }
    for (; b < idx->n_amb && idx->amb[b].op < hi; b++)
        if (idx->amb[b].key == k)
            return b;
    return UINT32_MAX;
}

/* The candidate of choice read a that read line x names, UINT32_MAX when
 * none (or out of memory: *nomem). */
static uint32_t named_candidate(psi_resolver *r, const psi_amb_read *a, const psi_hint_read *x,
                                bool *nomem)
{
    const psi_index *idx = r->idx;
    bool init = x->init;
    uint32_t w = UINT32_MAX;
    if (!init) {
        w = psi_hints_find_txn(r, x->writer.sid, x->writer.tid, nomem);
        if (w == UINT32_MAX)
            return UINT32_MAX;
        /* the recorded initial state is merged into the initial value */
        init = r->h->txns[w].status == PSI_TXN_INITIAL;
    }
    for (uint32_t j = 0; j < a->n; j++) {
        uint32_t c = idx->amb_cand[a->first + j];
        if (init ? c == PSI_SRC_INIT : c != PSI_SRC_INIT && idx->op_txn[c] == w)
            return c;
    }
    return UINT32_MAX;
}

psi_status psi_hints_choices(const psi_history *h, const psi_index *idx,
                             const psi_version_order *vo, uint32_t *src, bool *all, psi_diag *d)
{
    *all = false;
    if (!idx->n_amb) {
        *all = true;
        return PSI_OK;
    }
    if (!vo->n_reads)
        return PSI_OK;
    psi_resolver r = {.h = h, .idx = idx, .vo = vo, .d = d};
    uint8_t *seen = calloc(idx->n_amb, 1);
    psi_status st = seen ? psi_hints_open(&r) : psi_diag_nomem(d, "reading the version order");
    bool ok = st == PSI_OK, nomem = false;
    for (size_t i = 0; ok && i < vo->n_reads; i++) {
        const psi_hint_read *x = &vo->reads[i];
        /* Only a reader's first read of a key has a writer under SI and
         * SER; lines that name no choice read of the history are not this
         * pass's to judge (nothing else reads them). */
        if (x->event)
            continue;
        uint32_t t = psi_hints_find_txn(&r, x->reader.sid, x->reader.tid, &nomem);
        uint32_t k = t == UINT32_MAX || h->txns[t].status != PSI_TXN_COMMITTED ? UINT32_MAX
                     : x->key_name ? psi_key_lookup_name(&r.keys, x->key_name)
                                   : psi_key_lookup_ext(&r.keys, x->key);
        uint32_t a = k == UINT32_MAX ? UINT32_MAX : amb_of(h, idx, t, k);
        if (a == UINT32_MAX)
            continue;
        /* one line per read, naming one of its candidates */
        uint32_t c = seen[a] ? UINT32_MAX : named_candidate(&r, &idx->amb[a], x, &nomem);
        ok = c != UINT32_MAX;
        seen[a] = 1;
        src[a] = c;
    }
    for (uint32_t a = 0; ok && a < idx->n_amb; a++)
        ok = seen[a];
    if (nomem && st == PSI_OK)
        st = psi_diag_nomem(d, "reading the version order");
    *all = ok && st == PSI_OK;
    psi_hints_close(&r);
    free(seen);
    return st;
}

/* Orders hint edges by key, then endpoints. */
static int edge_cmp(const void *a, const void *b)
{
    const psi_hint_edge *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    return x->to < y->to ? -1 : x->to > y->to;
}

/* The writer of the version transaction t's read of key k returned,
 * UINT32_MAX when it read none (or its own write). */
static uint32_t read_writer(const psi_history *h, const psi_index *idx, uint32_t t, uint32_t k)
{
    const psi_txn *tx = &h->txns[t];
    for (uint32_t o = tx->first_op; o < tx->first_op + tx->n_ops; o++) {
        uint32_t src = idx->read_src[o];
        if (h->ops[o].key == k && src < PSI_SRC_INIT && idx->op_txn[src] != t)
            return idx->op_txn[src];
    }
    return UINT32_MAX;
}

psi_status psi_hints_of_cycle(const psi_history *h, const psi_index *idx,
                              const psi_version_order *vo, const psi_edge *cycle, uint32_t n,
                              psi_hints *out, psi_diag *d)
{
    memset(out, 0, sizeof *out);
    const char *name = vo->name ? vo->name : "";
    out->file = malloc(strlen(name) + 1);
    out->e = malloc((n ? n : 1) * sizeof *out->e);
    if (!out->file || !out->e) {
        psi_hints_free(out);
        return psi_diag_nomem(d, "reading the version order");
    }
    strcpy(out->file, name);
    /* a complete order has one chain per key, no pair twice */
    for (size_t c = 0; c < vo->n_chains; c++)
        out->n_all += vo->chains[c].n ? vo->chains[c].n - 1 : 0;
    for (uint32_t i = 0; i < n; i++) {
        const psi_edge *e = &cycle[i];
        uint32_t from = UINT32_MAX;
        if (e->type == PSI_EDGE_WW && e->origin == PSI_FROM_VERSION_ORDER)
            from = e->from;
        else if (e->type == PSI_EDGE_RW && e->origin == PSI_FROM_SEEDING)
            from = read_writer(h, idx, e->from, e->key);
        if (from != UINT32_MAX)
            out->e[out->n++] = (psi_hint_edge){.from = from, .to = e->to, .key = e->key};
    }
    qsort(out->e, out->n, sizeof *out->e, edge_cmp);
    uint64_t m = 0;
    for (uint64_t i = 0; i < out->n; i++)
        if (!m || edge_cmp(&out->e[m - 1], &out->e[i]))
            out->e[m++] = out->e[i];
    out->n = m;
    /* Each edge's line: its key's chain (a complete order has one). */
    psi_key_lookup keys;
    psi_status st = m ? psi_key_lookup_init(&keys, h, d) : PSI_OK;
    if (st != PSI_OK) {
        psi_hints_free(out);
        return st;
    }
    for (size_t c = 0; m && c < vo->n_chains; c++) {
        const psi_hint_chain *ch = &vo->chains[c];
        uint32_t k = ch->key_name ? psi_key_lookup_name(&keys, ch->key_name)
                                  : psi_key_lookup_ext(&keys, ch->key);
        uint64_t b = 0, e = m;
        while (b < e) {
            uint64_t mid = b + (e - b) / 2;
            if (out->e[mid].key < k)
                b = mid + 1;
            else
                e = mid;
        }
        for (; b < m && out->e[b].key == k; b++)
            if (!out->e[b].line)
                out->e[b].line = ch->line;
    }
    if (m)
        psi_key_lookup_free(&keys);
    return PSI_OK;
}
