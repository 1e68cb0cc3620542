/* Writes the fuzzers' seed corpora, all produced by the project itself:
 *
 *     fuzz_seeds OUTDIR
 *
 * creates OUTDIR/{text,dbcop,edn,json,cobra,awdit,dimacs,verdict,witness}/ with small
 * histories from the workload generator (workload/) written by the
 * project's own writers (as `polysi-solve generate` / `convert` do), Cobra
 * logs encoded from generated histories, list-append EDN lines, small CNF
 * and GNF formulas, verdict-target inputs, and the witnesses psi_check
 * writes for accepted generated histories. Deterministic. */
#include "fuzz.h"

#include "formats/read.h"
#include "formats/write.h"
#include "workload/gen.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *outdir;

static void mkdir_sub(const char *sub)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, sub);
    if (mkdir(path, 0777) && errno != EEXIST) {
        perror(path);
        exit(2);
    }
}

static FILE *open_seed(const char *target, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", outdir, target, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

static void write_seed(const char *target, const char *name, const void *p, size_t n)
{
    FILE *f = open_seed(target, name);
    fwrite(p, 1, n, f);
    if (fclose(f)) {
        perror(name);
        exit(2);
    }
}

static void put_be64(FILE *f, uint64_t x)
{
    for (int i = 7; i >= 0; i--)
        fputc((int)(x >> (8 * i)) & 0xff, f);
}

/* One Cobra log holding every session of h (the single-log reader sees
 * one session; reads name their writer by write id = txn * 64 + op). */
static void write_cobra(const psi_history *h, const char *name)
{
    FILE *f = open_seed("cobra", name);
    uint32_t *op_txn = calloc(h->n_ops + 1, sizeof *op_txn);
    for (uint32_t t = 1; t < h->n_txns; t++)
        for (uint32_t i = 0; i < h->txns[t].n_ops; i++)
            op_txn[h->txns[t].first_op + i] = t;
    for (uint32_t t = 1; t < h->n_txns; t++) {
        const psi_txn *x = &h->txns[t];
        fputc('S', f), put_be64(f, x->id);
        for (uint32_t i = 0; i < x->n_ops; i++) {
            const psi_op *op = &h->ops[x->first_op + i];
            uint64_t key = h->keys[op->key];
            if (op->kind == PSI_OP_WRITE) {
                fputc('W', f), put_be64(f, (uint64_t)(x->first_op + i) + 1);
                put_be64(f, key), put_be64(f, op->value);
                continue;
            }
            uint64_t wtxn = 0xbebeebee, wid = 0xbebeebee;
            for (uint32_t o = 0; o < h->n_ops && op->value; o++)
                if (h->ops[o].kind == PSI_OP_WRITE && h->ops[o].key == op->key &&
                    h->ops[o].value == op->value) {
                    wtxn = h->txns[op_txn[o]].id, wid = (uint64_t)o + 1;
                    break;
                }
            fputc('R', f), put_be64(f, wtxn), put_be64(f, wid);
            put_be64(f, key), put_be64(f, op->value);
        }
        if (x->status == PSI_TXN_COMMITTED)
            fputc('C', f), put_be64(f, x->id);
    }
    free(op_txn);
    fclose(f);
}

/* AWDIT's test format (no writer in formats/: the checker only reads it):
 * committed transactions, ----- between them, ===== between sessions;
 * initial-value reads as reads of 0. */
static void write_awdit(const psi_history *h, const char *name)
{
    FILE *f = open_seed("awdit", name);
    for (uint32_t s = 0; s < h->n_sessions; s++) {
        if (s)
            fputs("=====\n", f);
        const psi_session *se = &h->sessions[s];
        bool first = true;
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns; t++) {
            const psi_txn *tx = &h->txns[t];
            if (tx->status != PSI_TXN_COMMITTED)
                continue;
            if (!first)
                fputs("-----\n", f);
            first = false;
            for (uint32_t i = 0; i < tx->n_ops; i++) {
                const psi_op *op = &h->ops[tx->first_op + i];
                fprintf(f, "%c %llu %llu\n", op->kind == PSI_OP_WRITE ? 'w' : 'r',
                        (unsigned long long)h->keys[op->key], (unsigned long long)op->value);
            }
        }
    }
    fclose(f);
}

/* h with every key renamed to a keyword (:k<N>), values odd-numbered by
 * seed turned into symbols (v<N>), so the EDN seeds exercise interning by
 * spelling (issue 12). NULL on failure. */
static psi_history *with_names(const psi_history *h, bool symbols)
{
    psi_builder *b = psi_builder_new(h->source, PSI_FMT_EDN);
    psi_diag d;
    psi_status st = b ? PSI_OK : PSI_ERR_NOMEM;
    uint64_t *vals = malloc((h->n_list_vals + 1) * sizeof *vals);
    char buf[32];
    for (uint32_t s = 0; s < h->n_sessions && st == PSI_OK && vals; s++) {
        const psi_session *se = &h->sessions[s];
        for (uint32_t t = se->first_txn; t < se->first_txn + se->n_txns && st == PSI_OK; t++) {
            const psi_txn *tx = &h->txns[t];
            st = psi_builder_begin(b, se->id, tx->id, tx->src, &d);
            for (uint32_t i = 0; i < tx->n_ops && st == PSI_OK; i++) {
                uint32_t o = tx->first_op + i;
                const psi_op *op = &h->ops[o];
                uint64_t key, value = 0;
                int n = snprintf(buf, sizeof buf, ":k%llu", (unsigned long long)h->keys[op->key]);
                st = psi_builder_key_named(b, buf, (size_t)n, &key, &d);
                uint32_t len = 0;
                const uint64_t *lv = psi_history_list(h, o, &len);
                for (uint32_t j = 0; j < len && st == PSI_OK; j++) {
                    n = snprintf(buf, sizeof buf, "v%llu", (unsigned long long)lv[j]);
                    st = symbols ? psi_builder_value_named(b, buf, (size_t)n, &vals[j], &d)
                                 : psi_builder_value_int(b, lv[j], &vals[j], &d);
                }
                if (st == PSI_OK && (op->flags & PSI_OPF_LIST)) {
                    st = psi_builder_list_read(b, key, vals, len, &d);
                    continue;
                }
                if (st == PSI_OK && !(op->flags & PSI_OPF_INIT)) {
                    n = snprintf(buf, sizeof buf, "v%llu", (unsigned long long)op->value);
                    st = symbols ? psi_builder_value_named(b, buf, (size_t)n, &value, &d)
                                 : psi_builder_value_int(b, op->value, &value, &d);
                }
                if (st == PSI_OK)
                    st = psi_builder_op(b, (psi_op_kind)op->kind, key, value, op->flags, &d);
            }
            if (st == PSI_OK)
                st = psi_builder_end(b, (psi_txn_status)tx->status, &d);
        }
    }
    free(vals);
    psi_history *out = NULL;
    if (st == PSI_OK && b)
        st = psi_builder_finish(b, &out, &d);
    else
        psi_builder_free(b);
    return st == PSI_OK ? out : NULL;
}

static void histories(void)
{
    for (uint64_t seed = 1; seed <= 24; seed++) {
        psi_gen_opts o;
        psi_gen_opts_default(&o);
        o.seed = seed;
        o.sessions = 1 + (uint32_t)(seed % 4);
        o.txns_per_session = 1 + (uint32_t)(seed % 5);
        o.ops_per_txn = 1 + (uint32_t)(seed % 4);
        o.keys = 1 + (uint32_t)(seed % 6);
        o.store = seed % 3 == 0 ? PSI_STORE_SER : seed % 3 == 1 ? PSI_STORE_SI : PSI_STORE_RANDOM;
        o.mix = seed % 2 ? PSI_MIX_POLYSI : PSI_MIX_RMW;
        if (seed % 4 == 0)
            o.faults = PSI_FAULT_BIT(PSI_FAULT_LOST_UPDATE) | PSI_FAULT_BIT(PSI_FAULT_STALE_READ);
        if (o.store == PSI_STORE_RANDOM)
            o.abort_ratio = 0.2;
        o.unknown_ratio = seed % 5 == 0 ? 0.2 : 0.0;
        psi_history *h;
        psi_diag d;
        if (psi_generate(&o, &h, NULL, &d) != PSI_OK) {
            fprintf(stderr, "fuzz_seeds: %s\n", d.msg);
            exit(2);
        }
        char path[4096], name[64];
        snprintf(name, sizeof name, "gen-%02u", (unsigned)seed);
        /* The text format cannot express aborted or unknown outcomes. */
        snprintf(path, sizeof path, "%s/text/%s.txt", outdir, name);
        (void)psi_write_text(h, path, &d);
        snprintf(path, sizeof path, "%s/dbcop/%s.bincode", outdir, name);
        (void)psi_write_dbcop(h, path, &d); /* no unknown outcomes in dbcop */
        snprintf(path, sizeof path, "%s/edn/%s.edn", outdir, name);
        if (psi_write_edn(h, path, &d) != PSI_OK)
            fprintf(stderr, "fuzz_seeds: edn: %s\n", d.msg);
        snprintf(path, sizeof path, "%s/json/%s.json", outdir, name);
        if (psi_write_json(h, path, &d) != PSI_OK)
            fprintf(stderr, "fuzz_seeds: json: %s\n", d.msg);
        psi_history *named = with_names(h, seed % 2 == 1);
        snprintf(path, sizeof path, "%s/edn/%s-names.edn", outdir, name);
        if (!named || psi_write_edn(named, path, &d) != PSI_OK)
            fprintf(stderr, "fuzz_seeds: edn with names failed\n");
        psi_history_free(named);
        snprintf(name, sizeof name, "T%u.log", (unsigned)seed);
        write_cobra(h, name);
        snprintf(name, sizeof name, "gen-%02u.txt", (unsigned)seed);
        write_awdit(h, name);
        psi_history_free(h);
    }
}

static void handwritten(void)
{
    static const char text[] = "# a lost update\nw(1,1,0,1)\nr(1,1,1,2)\nw(1,2,1,2)\n\n"
                               "r(1,1,2,3)\nw(1,3,2,3)\nr(18446744073709551615,0,3,4)\n";
    write_seed("text", "lost-update.txt", text, sizeof text - 1);
    /* IsoVista: TXN -1 is an aborted write, here read (G1a) and interleaved
     * with a committed transaction's lines. */
    static const char isovista[] = "w(1,1,1000,7)\nw(2,5,99,-1)\nr(2,5,1000,7)\n"
                                   "w(3,4,1000,-1)\nr(1,1,5,2)\nw(2,6,1000,7)\n";
    write_seed("text", "isovista-aborted.txt", isovista, sizeof isovista - 1);
    static const char edn[] =
        "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:append 1 1] [:r 2 nil]]}\n"
        "{:index 1, :type :ok, :process 0, :f :txn, :value [[:append 1 1] [:r 2 []]]}\n"
        "{:index 2, :type :info, :process :nemesis, :f :start, :value [:isolated {\"n1\" "
        "#{\"n2\"}}]}\n"
        "{:index 3, :type :invoke, :process 1, :f :txn, :value [[:r 1 nil] [:append 2 1]]}\n"
        "{:index 4, :type :info, :process 1, :f :txn, :value [[:r 1 nil] [:append 2 1]], "
        ":error :timeout}\n"
        "{:index 5, :type :ok, :process 2, :f :txn, :value [[:r 1 [1]] [:r 2 (1)] [:w 3 "
        "0x10N]], :time #inst \"2020-01-01T00:00:00Z\"}\n"
        "{:index 6, :type :fail, :process 3, :f :txn, :value [[:w 4 7] [:r 4 nil]], "
        ":error [:abort \"conflict\"]} ; a comment\n";
    write_seed("edn", "list-append.edn", edn, sizeof edn - 1);
    /* Real time: a stale read after a completed write, an :info write whose
     * invoke follows a read of it, overlapping transactions. */
    static const char rt[] =
        "{:index 0, :type :invoke, :process 0, :f :txn, :value [[:w :x 1]]}\n"
        "{:index 1, :type :ok, :process 0, :f :txn, :value [[:w :x 1]]}\n"
        "{:index 2, :type :invoke, :process 1, :f :txn, :value [[:r :x nil] [:r :y nil]]}\n"
        "{:index 3, :type :invoke, :process 2, :f :txn, :value [[:w :y 2]]}\n"
        "{:index 4, :type :ok, :process 1, :f :txn, :value [[:r :x nil] [:r :y 3]]}\n"
        "{:index 5, :type :info, :process 2, :f :txn, :value [[:w :y 2]]}\n"
        "{:index 6, :type :invoke, :process 3, :f :txn, :value [[:w :y 3]], :time 17}\n"
        "{:index 7, :type :info, :process 3, :f :txn, :value [[:w :y 3]], :time 18}\n";
    write_seed("edn", "realtime.edn", rt, sizeof rt - 1);
    static const char vec[] = "[{:type :ok, :process 0, :value [[:w 1 1]]}\n"
                              " {:type :ok, :process 1, :value [[:r 1 1] #_ [:r 9 9]]}]\n";
    write_seed("edn", "vector.edn", vec, sizeof vec - 1);
    /* pretty-printed, no :process, :f :read micro-ops */
    static const char pretty[] = "; Elle-style\n[{:type :ok,\n  :value [[:append :x 1]\n"
                                 "          [:r 2 [1 2]]]}\n {:type :fail, :f :read,\n"
                                 "  :value [[:r 3 nil]], :polysi/reads :observed}]\n";
    write_seed("edn", "pretty.edn", pretty, sizeof pretty - 1);
    /* Jepsen JSON: one array, pretty-printed, string keys with escapes. */
    static const char json[] =
        "[{\"type\": \"invoke\", \"f\": \"txn\", \"value\": [[\"append\", \"x\", 1], [\"r\", "
        "\"y\", null]], \"process\": 0, \"index\": 0},\n {\"type\": \"ok\", \"f\": \"txn\", "
        "\"value\": [[\"append\", \"\\u0078\", 1], [\"r\", \"y\", []]], \"process\": 0, "
        "\"index\": 1},\n {\"type\": \"info\", \"f\": \"start\", \"process\": \"nemesis\"}]\n";
    write_seed("json", "array.json", json, sizeof json - 1);
    static const char json_rt[] =
        "{\"index\": 0, \"type\": \"invoke\", \"process\": 0, \"f\": \"txn\", \"value\": "
        "[[\"w\", \"x\", 1]]}\n"
        "{\"index\": 1, \"type\": \"ok\", \"process\": 0, \"f\": \"txn\", \"value\": [[\"w\", "
        "\"x\", 1]]}\n"
        "{\"index\": 2, \"type\": \"invoke\", \"process\": 1, \"f\": \"txn\", \"value\": "
        "[[\"r\", \"x\", null]], \"time\": 5}\n"
        "{\"index\": 3, \"type\": \"ok\", \"process\": 1, \"f\": \"txn\", \"value\": [[\"r\", "
        "\"x\", null]], \"time\": 9}\n";
    write_seed("json", "realtime.json", json_rt, sizeof json_rt - 1);
    /* keys and values by spelling: integer 1 and keyword :1 are two keys */
    static const char names[] =
        "{:type :ok, :process 0, :value [[:w :x a] [:w \"acct 1\" -5] [:append sym :e]]}\n"
        "{:type :ok, :process 1, :value [[:r :x a] [:r 1 nil] [:r :1 nil] [:r sym [:e]] "
        "[:r \"acct 1\" true]]}\n";
    write_seed("edn", "names.edn", names, sizeof names - 1);
    static const char awdit[] = "w 0 0\nw 1 0\n=====\nw 0 1\n-----\nr 0 1\nr 1 0\n=====\n"
                                "w 1 1\n-----\n\nr 1 1\r\nr 0 0\n";
    write_seed("awdit", "long-fork.txt", awdit, sizeof awdit - 1);

    static const char *cnf[] = {
        "c tiny\np cnf 3 4\n1 -2 0\n2 3 0\n-1 -3 0\n-2 0\n",
        "p cnf 2 4\n1 2 0 -1 2 0 1 -2 0 -1 -2 0\n",
        "p cnf 0 0\n",
        "p cnf 5 3\n1 2 3 4 5 0\n-1 -2 0\n-3\n-4 0\n",
    };
    static const char *gnf[] = {
        "p cnf 4 2\n4 0\n1 2 0\ndigraph int 3 3 0\nedge 0 0 1 1\nedge 0 1 2 2\n"
        "edge 0 2 0 3\nacyclic 0 4\n",
        "p cnf 5 2\n5 0\n-1 2 0\ndigraph 2 2 7\nedge 7 0 1 1\nedge 7 1 0 2 3\n"
        "digraph long 2 1 8\nedge 8 0 1 3\nacyclic 7 5\n",
        "p cnf 4 1\n4 0\ndigraph int 3 3 0\nantiedge 0 0 1 1\nantiedge 0 1 2 2\n"
        "edge 0 2 0 3\nacyclic_si 0 4\n",
        "p cnf 6 4\n6 0\n1 0\n2 0\n3 -5 0\ndigraph int 3 5 1\nedge 1 0 1 1\nantiedge 1 1 2 2\n"
        "antiedge 1 2 0 3\nedge 1 2 1 4\nedge 1 1 0 5\nacyclic_si 1 6\n",
    };
    char name[64];
    for (size_t i = 0; i < sizeof cnf / sizeof cnf[0]; i++) {
        snprintf(name, sizeof name, "cnf-%zu.cnf", i);
        write_seed("dimacs", name, cnf[i], strlen(cnf[i]));
    }
    for (size_t i = 0; i < sizeof gnf / sizeof gnf[0]; i++) {
        snprintf(name, sizeof name, "gnf-%zu.gnf", i);
        write_seed("dimacs", name, gnf[i], strlen(gnf[i]));
    }
}

/* Random 3-SAT near the threshold, a few sizes. */
static void random_cnf(void)
{
    psi_gen_rng r;
    psi_gen_rng_seed(&r, 7);
    for (int i = 0; i < 6; i++) {
        char name[64];
        snprintf(name, sizeof name, "3sat-%d.cnf", i);
        FILE *f = open_seed("dimacs", name);
        int vars = 5 + 4 * i, clauses = (int)(vars * 4.26);
        fprintf(f, "p cnf %d %d\n", vars, clauses);
        for (int c = 0; c < clauses; c++) {
            for (int k = 0; k < 3; k++) {
                int v = 1 + (int)psi_gen_rng_below(&r, (uint64_t)vars);
                fprintf(f, "%d ", psi_gen_rng_chance(&r, 0.5) ? v : -v);
            }
            fprintf(f, "0\n");
        }
        fclose(f);
    }
}

static void verdict(void)
{
    uint8_t buf[64];
    char name[64];
    for (uint64_t seed = 1; seed <= 48; seed++) {
        size_t n = psi_fuzz_verdict_seed(seed, buf, sizeof buf);
        snprintf(name, sizeof name, "gen-%02u", (unsigned)seed);
        write_seed("verdict", name, buf, n);
    }
    /* Direct mode: a lost update, and a write skew. */
    static const uint8_t lost[] = {0, 0x10, 0x03, 0x11, 0x09, 0x03, 0x12, 0x09, 0x03};
    static const uint8_t skew[] = {1, 0x10, 0x00, 0x03, 0x11, 0x02, 0x05, 0x02, 0x10, 0x00, 0x03};
    write_seed("verdict", "direct-lost-update", lost, sizeof lost);
    write_seed("verdict", "direct-write-skew", skew, sizeof skew);
}

static void witness(void)
{
    static uint8_t buf[1 << 16];
    char name[64];
    for (uint16_t seed = 1; seed <= 40; seed++) {
        size_t n = psi_fuzz_witness_seed(seed, seed % 2, false, buf, sizeof buf);
        if (n == 0)
            continue;
        snprintf(name, sizeof name, "gen-%02u-%s", (unsigned)seed, seed % 2 ? "ser" : "si");
        write_seed("witness", name, buf, n);
    }
    /* named keys: version-4 witnesses with keyword, string and integer
     * spellings */
    for (uint16_t seed = 1; seed <= 20; seed++) {
        size_t n = psi_fuzz_witness_seed(seed, seed % 2, true, buf, sizeof buf);
        if (n == 0)
            continue;
        snprintf(name, sizeof name, "named-%02u-%s", (unsigned)seed, seed % 2 ? "ser" : "si");
        write_seed("witness", name, buf, n);
    }
}

static void timestamps(void)
{
    static uint8_t buf[1 << 16];
    char name[64];
    for (uint16_t seed = 1; seed <= 40; seed++) {
        size_t n = psi_fuzz_timestamps_seed(seed, seed % 2, buf, sizeof buf);
        if (n <= 3)
            continue;
        snprintf(name, sizeof name, "gen-%02u-%s", (unsigned)seed, seed % 2 ? "ser" : "si");
        write_seed("timestamps", name, buf, n);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    const char *targets[] = {"text",  "dbcop",  "edn",     "json",    "cobra",
                             "awdit", "dimacs", "verdict", "witness", "timestamps"};
    if (mkdir(outdir, 0777) && errno != EEXIST) {
        perror(outdir);
        return 2;
    }
    for (size_t i = 0; i < sizeof targets / sizeof targets[0]; i++)
        mkdir_sub(targets[i]);
    histories();
    handwritten();
    random_cnf();
    verdict();
    witness();
    timestamps();
    return 0;
}
