/* Workload generation (see gen.h): options and their names, the seeded
 * random source, the per-transaction operation planner (key distributions
 * and operation mixes), the unconstrained "random reads" store, and the
 * psi_generate entry point. The SI/SER store lives in store.c.
 *
 * Workloads follow:
 *  - PolySI (VLDB'23 §5.1.1): #sessions, #txns/session, #ops/txn, %reads,
 *    #keys, distribution uniform / zipfian (default) / hotspot (80% of the
 *    operations touch 20% of the keys); defaults 20, 100, 15, 50%, 10k, zipf.
 *  - Emme / King Cobra ("Bringing Order to ...", §8.4): read-modify-write
 *    (25% reads, 25% writes, 50% read-modify-writes, an RMW being a read of
 *    a key followed by a write of the same key in the same transaction),
 *    read/write (50/50: PSI_MIX_POLYSI with read_ratio 0.5) and heavy write
 *    (10% reads, 10% RMWs, 80% writes).
 *  - Cobra (Tan et al., OSDI'20, §6) BlindW workloads, as the project's brief
 *    states them (the Cobra paper itself is not in ../shared/papers):
 *    read-only transactions and blind-write-only transactions, in 90/50/10 %
 *    read-only proportions for -RH / -RW / -WH.
 * An RMW takes two of a transaction's operation slots, so #ops/txn is always
 * the number of operations recorded. */
#include "workload/gen.h"

#include "core/vec.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- random source: xoshiro256** seeded through splitmix64 ---- */

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void psi_gen_rng_seed(psi_gen_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t psi_gen_rng_next(psi_gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

uint64_t psi_gen_rng_below(psi_gen_rng *r, uint64_t n)
{
    /* Lemire's multiply-shift; the tiny bias is irrelevant here. */
    __extension__ typedef unsigned __int128 u128;
    return (uint64_t)(((u128)psi_gen_rng_next(r) * n) >> 64);
}

static double rng_unit(psi_gen_rng *r)
{
    return (double)(psi_gen_rng_next(r) >> 11) * 0x1.0p-53;
}

bool psi_gen_rng_chance(psi_gen_rng *r, double p)
{
    return p > 0 && rng_unit(r) < p;
}

/* ---- options and names ---- */

void psi_gen_opts_default(psi_gen_opts *o)
{
    *o = (psi_gen_opts){
        .sessions = 20,
        .txns_per_session = 100,
        .ops_per_txn = 15,
        .read_ratio = 0.5,
        .keys = 10000,
        .dist = PSI_DIST_ZIPF,
        /* The PolySI paper's histories come from dbcop's generator, whose
         * zipfian exponent is 0.5 (its fig7 zipf history fits it: 8871 of
         * 10k keys touched by 30k operations). YCSB's 0.99 makes 15-op
         * transactions on 10k keys conflict so often that most attempts
         * abort. */
        .zipf_theta = 0.5,
        .hot_key_frac = 0.2,
        .hot_op_frac = 0.8,
        .long_txn_ratio = 0,
        .long_ops = 0,
        .mix = PSI_MIX_POLYSI,
        .store = PSI_STORE_SI,
        .faults = 0,
        .fault_prob = 0.1,
        .abort_ratio = 0,
        .unknown_ratio = 0,
        .keep_aborted = true,
        .retry_aborted = true,
        .seed = 1,
    };
}

static const char *const dist_names[] = {"uniform", "zipf", "hotspot"};
static const char *const mix_names[] = {"polysi",    "rmw",       "blindw-rh",
                                        "blindw-rw", "blindw-wh", "heavy-write"};
static const char *const store_names[] = {"si", "ser", "random", "read-committed"};
static const char *const fault_names[] = {"lost-update", "stale-read", "long-fork", "session-skip"};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int find_name(const char *const *names, size_t n, const char *s, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(names[i]) == len && strncasecmp(names[i], s, len) == 0)
            return (int)i;
    return -1;
}

const char *psi_gen_dist_name(psi_gen_dist x)
{
    return (unsigned)x < COUNT(dist_names) ? dist_names[x] : "?";
}

const char *psi_gen_mix_name(psi_gen_mix x)
{
    return (unsigned)x < COUNT(mix_names) ? mix_names[x] : "?";
}

const char *psi_gen_store_name(psi_gen_store x)
{
    return (unsigned)x < COUNT(store_names) ? store_names[x] : "?";
}

const char *psi_fault_name(psi_fault f)
{
    return (unsigned)f < COUNT(fault_names) ? fault_names[f] : "?";
}

bool psi_gen_dist_parse(const char *s, psi_gen_dist *out)
{
    int i = find_name(dist_names, COUNT(dist_names), s, strlen(s));
    if (i < 0 && strcmp(s, "zipfian") == 0)
        i = PSI_DIST_ZIPF;
    if (i < 0)
        return false;
    *out = (psi_gen_dist)i;
    return true;
}

bool psi_gen_mix_parse(const char *s, psi_gen_mix *out)
{
    int i = find_name(mix_names, COUNT(mix_names), s, strlen(s));
    if (i < 0)
        return false;
    *out = (psi_gen_mix)i;
    return true;
}

bool psi_gen_store_parse(const char *s, psi_gen_store *out)
{
    int i = find_name(store_names, COUNT(store_names), s, strlen(s));
    if (i < 0)
        return false;
    *out = (psi_gen_store)i;
    return true;
}

bool psi_gen_faults_parse(const char *list, unsigned *mask)
{
    *mask = 0;
    if (strcmp(list, "none") == 0 || *list == '\0')
        return true;
    const char *p = list;
    for (;;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int i = find_name(fault_names, COUNT(fault_names), p, len);
        if (i < 0)
            return false;
        *mask |= PSI_FAULT_BIT(i);
        if (!e)
            return true;
        p = e + 1;
    }
}

/* ---- the planner ---- */

/* A Walker/Vose alias table: O(1) per sample. Item k is taken when a
 * uniform slot k passes its threshold prob[k], else alias[k]. */
typedef struct alias_table {
    double *prob;
    uint32_t *alias;
} alias_table;

struct psi_gen_plan {
    psi_gen_opts o;
    alias_table zipf;   /* PSI_DIST_ZIPF: over key ranks */
    alias_table values; /* value_zipf > 0: over the values 1..value_range */
    uint32_t n_hot;     /* hot keys are [0, n_hot) for PSI_DIST_HOTSPOT */
};

/* Vose's alias method over weights 1/(k+1)^theta, k < n. */
static bool zipf_alias_build(alias_table *t, uint32_t n, double theta)
{
    t->prob = malloc((size_t)n * sizeof *t->prob);
    t->alias = malloc((size_t)n * sizeof *t->alias);
    uint32_t *small = malloc((size_t)n * sizeof *small);
    uint32_t *large = malloc((size_t)n * sizeof *large);
    bool ok = t->prob && t->alias && small && large;
    if (ok) {
        double sum = 0;
        for (uint32_t k = 0; k < n; k++)
            sum += t->prob[k] = 1.0 / pow((double)k + 1.0, theta);
        uint32_t ns = 0, nl = 0;
        for (uint32_t k = 0; k < n; k++) {
            t->prob[k] *= n / sum; /* mean 1 */
            t->alias[k] = k;
            if (t->prob[k] < 1.0)
                small[ns++] = k;
            else
                large[nl++] = k;
        }
        while (ns && nl) {
            uint32_t s = small[--ns], l = large[nl - 1];
            t->alias[s] = l;
            t->prob[l] -= 1.0 - t->prob[s];
            if (t->prob[l] < 1.0) {
                nl--;
                small[ns++] = l;
            }
        }
        /* leftovers are 1 up to rounding */
        while (nl)
            t->prob[large[--nl]] = 1.0;
        while (ns)
            t->prob[small[--ns]] = 1.0;
    }
    free(small);
    free(large);
    return ok;
}

psi_gen_plan *psi_gen_plan_new(const psi_gen_opts *o)
{
    psi_gen_plan *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->o = *o;
    /* check_opts bounds value_range by 2^20 when value_zipf is set. */
    if ((o->dist == PSI_DIST_ZIPF && !zipf_alias_build(&p->zipf, o->keys, o->zipf_theta)) ||
        (o->value_zipf > 0 &&
         !zipf_alias_build(&p->values, (uint32_t)o->value_range, o->value_zipf))) {
        psi_gen_plan_free(p);
        return NULL;
    }
    double hot = ceil(o->hot_key_frac * o->keys);
    p->n_hot = hot < 1 ? 1 : hot > o->keys ? o->keys : (uint32_t)hot;
    return p;
}

void psi_gen_plan_free(psi_gen_plan *p)
{
    if (!p)
        return;
    free(p->zipf.prob);
    free(p->zipf.alias);
    free(p->values.prob);
    free(p->values.alias);
    free(p);
}

static uint32_t pick_key(const psi_gen_plan *p, psi_gen_rng *r)
{
    uint32_t n = p->o.keys;
    switch (p->o.dist) {
    case PSI_DIST_UNIFORM:
        break;
    case PSI_DIST_ZIPF: {
        uint32_t k = (uint32_t)psi_gen_rng_below(r, n);
        return rng_unit(r) < p->zipf.prob[k] ? k : p->zipf.alias[k];
    }
    case PSI_DIST_HOTSPOT:
        if (p->n_hot >= n)
            break;
        if (psi_gen_rng_chance(r, p->o.hot_op_frac))
            return (uint32_t)psi_gen_rng_below(r, p->n_hot);
        return p->n_hot + (uint32_t)psi_gen_rng_below(r, n - p->n_hot);
    }
    return (uint32_t)psi_gen_rng_below(r, n);
}

/* Fills steps[0..n) for mixes made of reads, writes and RMWs. */
static void plan_mixed(const psi_gen_plan *p, psi_gen_rng *r, psi_gen_step *s, uint32_t n,
                       double p_read, double p_rmw)
{
    uint32_t i = 0;
    while (i < n) {
        double u = rng_unit(r);
        uint32_t k = pick_key(p, r);
        if (u < p_rmw && i + 1 < n) {
            s[i++] = (psi_gen_step){.key = k, .kind = PSI_OP_READ};
            s[i++] = (psi_gen_step){.key = k, .kind = PSI_OP_WRITE};
        } else {
            /* a lone slot left for an RMW goes to a read or a write in the
             * mix's proportion between the two */
            double pr = p_read / (1.0 - p_rmw);
            bool read = u < p_rmw ? rng_unit(r) < pr : u < p_rmw + p_read;
            s[i++] = (psi_gen_step){.key = k, .kind = read ? PSI_OP_READ : PSI_OP_WRITE};
        }
    }
}

uint32_t psi_gen_plan_txn(psi_gen_plan *p, psi_gen_rng *r, psi_gen_step **steps, size_t *cap)
{
    const psi_gen_opts *o = &p->o;
    uint32_t n = o->ops_per_txn;
    if (o->long_txn_ratio > 0 && psi_gen_rng_chance(r, o->long_txn_ratio))
        n = o->long_ops ? o->long_ops : 10 * o->ops_per_txn;
    if (!psi_grow((void **)steps, cap, n ? n : 1, sizeof **steps))
        return UINT32_MAX;
    psi_gen_step *s = *steps;
    switch (o->mix) {
    case PSI_MIX_POLYSI:
        plan_mixed(p, r, s, n, o->read_ratio, 0);
        break;
    case PSI_MIX_RMW:
        plan_mixed(p, r, s, n, 0.25, 0.5);
        break;
    case PSI_MIX_HEAVY_WRITE:
        plan_mixed(p, r, s, n, 0.1, 0.1);
        break;
    case PSI_MIX_BLINDW_RH:
    case PSI_MIX_BLINDW_RW:
    case PSI_MIX_BLINDW_WH: {
        double ro = o->mix == PSI_MIX_BLINDW_RH ? 0.9 : o->mix == PSI_MIX_BLINDW_RW ? 0.5 : 0.1;
        plan_mixed(p, r, s, n, psi_gen_rng_chance(r, ro) ? 1.0 : 0.0, 0);
        break;
    }
    }
    return n;
}

/* ---- the unconstrained store ----
 * Every transaction is planned first and its writes get fresh values; then
 * each external read returns a uniformly chosen value among all values ever
 * written to its key (by anyone, committed or not, earlier or later) and the
 * initial value. Internal reads (the key was touched earlier in the same
 * transaction) agree with the transaction's own past 9 times out of 10, so
 * that not every history fails on INT. Statuses: abort_ratio aborted,
 * unknown_ratio unknown, the rest committed. */

typedef struct rand_op {
    uint64_t value;
    uint32_t key;
    uint8_t kind;
} rand_op;

static psi_status run_random(const psi_gen_opts *o, psi_gen_plan *p, psi_gen_rng *r, psi_builder *b,
                             psi_gen_report *rep, psi_diag *d)
{
    psi_status st = PSI_OK;
    uint64_t n_txns = (uint64_t)o->sessions * o->txns_per_session;
    rand_op *ops = NULL;
    size_t n_ops = 0, cap_ops = 0;
    uint64_t *txn_end = malloc((n_txns + 1) * sizeof *txn_end);
    uint64_t *next_val = calloc(o->keys, sizeof *next_val);
    /* values of key k: vals[vfirst[k] .. vfirst[k+1]) */
    uint64_t *vfirst = calloc((size_t)o->keys + 1, sizeof *vfirst);
    uint64_t *vals = NULL;
    psi_gen_step *steps = NULL;
    size_t cap_steps = 0;
    if (!txn_end || !next_val || !vfirst) {
        st = psi_diag_nomem(d, "generating");
        goto done;
    }
    for (uint64_t t = 0; t < n_txns; t++) {
        uint32_t n = psi_gen_plan_txn(p, r, &steps, &cap_steps);
        if (n == UINT32_MAX || !psi_grow((void **)&ops, &cap_ops, n_ops + n, sizeof *ops)) {
            st = psi_diag_nomem(d, "generating");
            goto done;
        }
        for (uint32_t i = 0; i < n; i++) {
            rand_op *op = &ops[n_ops++];
            *op = (rand_op){.key = steps[i].key, .kind = steps[i].kind};
            if (op->kind == PSI_OP_WRITE) {
                op->value = ++next_val[op->key];
                vfirst[op->key + 1]++;
            }
        }
        txn_end[t] = n_ops;
    }
    for (uint32_t k = 0; k < o->keys; k++)
        vfirst[k + 1] += vfirst[k];
    vals = malloc((vfirst[o->keys] + 1) * sizeof *vals);
    if (!vals) {
        st = psi_diag_nomem(d, "generating");
        goto done;
    }
    for (uint32_t k = 0; k < o->keys; k++)
        for (uint64_t v = 0; v < next_val[k]; v++)
            vals[vfirst[k] + v] = v + 1;

    uint64_t begin = 0;
    for (uint64_t t = 0; t < n_txns; t++) {
        uint32_t s = (uint32_t)(t / o->txns_per_session);
        st = psi_builder_begin(b, s, t + 1, 0, d);
        for (uint64_t i = begin; st == PSI_OK && i < txn_end[t]; i++) {
            rand_op *op = &ops[i];
            unsigned flags = 0;
            if (op->kind == PSI_OP_READ) {
                bool internal = false;
                uint64_t own = 0;
                for (uint64_t j = i; j-- > begin;)
                    if (ops[j].key == op->key) {
                        internal = true;
                        own = ops[j].value;
                        break;
                    }
                if (internal && psi_gen_rng_chance(r, 0.9)) {
                    op->value = own;
                } else {
                    uint64_t nv = vfirst[op->key + 1] - vfirst[op->key];
                    uint64_t c = psi_gen_rng_below(r, nv + 1);
                    op->value = c == nv ? 0 : vals[vfirst[op->key] + c];
                }
                flags = op->value == 0 ? PSI_OPF_INIT : 0u;
                rep->reads++;
            } else {
                rep->writes++;
            }
            rep->ops++;
            st = psi_builder_op(b, (psi_op_kind)op->kind, op->key,
                                psi_gen_value(p, op->key, op->value), flags, d);
        }
        psi_txn_status ts = PSI_TXN_COMMITTED;
        if (psi_gen_rng_chance(r, o->abort_ratio))
            ts = PSI_TXN_ABORTED;
        else if (psi_gen_rng_chance(r, o->unknown_ratio))
            ts = PSI_TXN_UNKNOWN;
        if (st == PSI_OK)
            st = psi_builder_end(b, ts, d);
        if (st != PSI_OK)
            goto done;
        rep->txns++;
        rep->committed += ts == PSI_TXN_COMMITTED;
        rep->aborted += ts == PSI_TXN_ABORTED;
        rep->unknown += ts == PSI_TXN_UNKNOWN;
        rep->attempts++;
        rep->attempts_aborted += ts == PSI_TXN_ABORTED;
        rep->attempts_committed += ts != PSI_TXN_ABORTED;
        begin = txn_end[t];
    }
done:
    free(ops);
    free(txn_end);
    free(next_val);
    free(vfirst);
    free(vals);
    free(steps);
    return st;
}

/* ---- entry point ---- */

static psi_status check_opts(const psi_gen_opts *o, psi_diag *d)
{
    if (o->sessions == 0 || o->keys == 0)
        return psi_diag_set(d, PSI_ERR_USAGE, "generate: need at least one session and one key");
    if ((uint64_t)o->sessions * o->txns_per_session > PSI_MAX_TXNS)
        return psi_diag_set(d, PSI_ERR_LIMIT, "generate: more than %u transactions",
                            (unsigned)PSI_MAX_TXNS);
    uint32_t longest = o->ops_per_txn;
    if (o->long_txn_ratio > 0) {
        uint64_t lo = o->long_ops ? o->long_ops : 10ull * o->ops_per_txn;
        if (lo > UINT32_MAX / 2)
            return psi_diag_set(d, PSI_ERR_LIMIT, "generate: long transactions too long");
        longest = lo > longest ? (uint32_t)lo : longest;
    }
    if ((uint64_t)o->sessions * o->txns_per_session * longest > PSI_MAX_OPS)
        return psi_diag_set(d, PSI_ERR_LIMIT, "generate: more than %u operations",
                            (unsigned)PSI_MAX_OPS);
    const double fr[] = {o->read_ratio, o->hot_key_frac, o->hot_op_frac,  o->long_txn_ratio,
                         o->fault_prob, o->abort_ratio,  o->unknown_ratio};
    for (size_t i = 0; i < COUNT(fr); i++)
        if (!(fr[i] >= 0 && fr[i] <= 1))
            return psi_diag_set(d, PSI_ERR_USAGE, "generate: ratios must lie in [0, 1]");
    if (!(o->zipf_theta >= 0 && o->zipf_theta < 100) ||
        !(o->value_zipf >= 0 && o->value_zipf < 100))
        return psi_diag_set(d, PSI_ERR_USAGE, "generate: zipf exponent out of range");
    if (!(o->value_unique_ratio >= 0 && o->value_unique_ratio <= 1))
        return psi_diag_set(d, PSI_ERR_USAGE, "generate: ratios must lie in [0, 1]");
    if ((o->value_zipf > 0 || o->value_unique_ratio > 0) && !o->value_range)
        return psi_diag_set(d, PSI_ERR_USAGE,
                            "generate: the value distribution options need a value range");
    /* The alias table has one entry per value; unique values are
     * value_range + version and must not wrap. */
    if ((o->value_zipf > 0 && o->value_range > (1u << 20)) ||
        (o->value_unique_ratio > 0 && o->value_range > UINT64_MAX / 2))
        return psi_diag_set(d, PSI_ERR_LIMIT, "generate: value range too large");
    if ((unsigned)o->dist >= COUNT(dist_names) || (unsigned)o->mix >= COUNT(mix_names) ||
        (unsigned)o->store >= COUNT(store_names) || o->faults >> PSI_FAULT_COUNT)
        return psi_diag_set(d, PSI_ERR_USAGE, "generate: unknown distribution, mix or store");
    return PSI_OK;
}

static uint64_t splitmix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t psi_gen_value(const psi_gen_plan *p, uint32_t key, uint64_t v)
{
    const psi_gen_opts *o = &p->o;
    if (!o->value_range || v == 0)
        return v;
    /* splitmix64 of (key, version): repeats without touching the RNG
     * stream, so the store behaves exactly as with unique values. */
    uint64_t x = splitmix(((uint64_t)key << 40) ^ v ^ (o->seed * 0x2545f4914f6cdd1dull));
    if (o->value_unique_ratio == 0 && o->value_zipf == 0)
        return 1 + x % o->value_range; /* the uniform draw, as before the other options */
    /* Further words of the same (seed, key, version) for the other
     * choices, so that each option leaves the others' draws alone. */
    uint64_t y = splitmix(x ^ 0x5851f42d4c957f2dull);
    if ((double)(y >> 11) * 0x1.0p-53 < o->value_unique_ratio)
        return o->value_range + v; /* unique per key: versions are */
    if (o->value_zipf == 0)
        return 1 + x % o->value_range;
    __extension__ typedef unsigned __int128 u128;
    uint32_t k = (uint32_t)(((u128)x * o->value_range) >> 64);
    uint64_t z = splitmix(y);
    assert(k < o->value_range);
    return 1 + ((double)(z >> 11) * 0x1.0p-53 < p->values.prob[k] ? k : p->values.alias[k]);
}

psi_status psi_gen_explicit_init(const psi_gen_opts *o, psi_builder *b, psi_diag *d)
{
    if (!o->explicit_init)
        return PSI_OK;
    psi_status st = psi_builder_begin(b, 0, 0, 0, d);
    for (uint32_t k = 0; st == PSI_OK && k < o->keys; k++)
        st = psi_builder_op(b, PSI_OP_WRITE, k, 0, 0, d);
    return st == PSI_OK ? psi_builder_end(b, PSI_TXN_COMMITTED, d) : st;
}

psi_status psi_generate(const psi_gen_opts *o, psi_history **out, psi_gen_report *rep, psi_diag *d)
{
    *out = NULL;
    psi_gen_report local;
    if (!rep)
        rep = &local;
    memset(rep, 0, sizeof *rep);
    psi_status st = check_opts(o, d);
    if (st != PSI_OK)
        return st;
    psi_builder *b = psi_builder_new("<generated>", PSI_FMT_TEXT);
    psi_gen_plan *p = psi_gen_plan_new(o);
    if (!b || !p) {
        psi_builder_free(b);
        psi_gen_plan_free(p);
        return psi_diag_nomem(d, "starting the generator");
    }
    psi_gen_rng r;
    psi_gen_rng_seed(&r, o->seed);
    st = psi_gen_explicit_init(o, b, d);
    if (st != PSI_OK)
        ;
    else if (o->store == PSI_STORE_RANDOM)
        st = run_random(o, p, &r, b, rep, d);
    else
        st = psi_gen_store_run(o, p, &r, b, rep, d);
    psi_gen_plan_free(p);
    if (st != PSI_OK) {
        psi_builder_free(b);
        return st;
    }
    return psi_builder_finish(b, out, d);
}
