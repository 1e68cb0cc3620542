/* Load benchmark for the history readers.
 *
 *   bench_load [-n N] [-f FORMAT] PATH
 *       loads PATH (file or Cobra directory) N times (default 5) and prints
 *       ms per load (best and mean wall time, best CPU time: on a busy
 *       machine CPU time is the steadier figure), operations per second
 *       (best wall time), and peak
 *       memory per operation: peak RSS from getrusage, in total and above
 *       the RSS measured before the first load, plus the model's own bytes.
 *   bench_load --gen-dbcop PATH N_OPS [SEED]
 *       writes a random dbcop history of N_OPS operations to PATH (100
 *       sessions, 8 operations per transaction, 100000 keys, half reads;
 *       written values are unique and non-zero, reads see the key's latest
 *       write or the initial value), so load throughput can be measured at
 *       10^7 operations.
 *
 * Build it in Release: a sanitizer build measures the sanitizers. */
#include "formats/read.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024.0; /* Linux reports KiB */
}

/* Current RSS from /proc (0 where unavailable). */
static double rss_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long pages_total, pages_rss;
    int n = fscanf(f, "%lu %lu", &pages_total, &pages_rss);
    fclose(f);
    return n == 2 ? (double)pages_rss * 4096.0 : 0;
}

/* ---- generator ---- */

typedef struct gen_out {
    FILE *f;
    unsigned char buf[1 << 16];
    size_t n;
} gen_out;

static void out_bytes(gen_out *o, const void *p, size_t n)
{
    if (o->n + n > sizeof o->buf) {
        fwrite(o->buf, 1, o->n, o->f);
        o->n = 0;
    }
    memcpy(o->buf + o->n, p, n);
    o->n += n;
}

static void out_u64(gen_out *o, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    out_bytes(o, b, 8);
}

static void out_u8(gen_out *o, unsigned v)
{
    unsigned char c = (unsigned char)v;
    out_bytes(o, &c, 1);
}

static uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static int generate(const char *path, uint64_t n_ops, uint64_t seed)
{
    enum { SESSIONS = 100, OPS_PER_TXN = 8, KEYS = 100000 };
    uint64_t n_txns = (n_ops + OPS_PER_TXN - 1) / OPS_PER_TXN;
    uint64_t per_session = (n_txns + SESSIONS - 1) / SESSIONS;
    uint64_t *latest = calloc(KEYS, sizeof *latest);
    gen_out *o = malloc(sizeof *o);
    if (!latest || !o) {
        fprintf(stderr, "bench_load: out of memory\n");
        return 1;
    }
    o->n = 0;
    o->f = fopen(path, "wb");
    if (!o->f) {
        fprintf(stderr, "bench_load: %s: %s\n", path, strerror(errno));
        return 1;
    }
    uint64_t rng = seed ? seed : 0x9e3779b97f4a7c15ull, counter = 0, left = n_ops;
    out_u64(o, 0);
    out_u64(o, SESSIONS);
    out_u64(o, KEYS);
    out_u64(o, per_session);
    out_u64(o, OPS_PER_TXN);
    const char *strs[3] = {"bench_load random", "", ""};
    for (int i = 0; i < 3; i++) {
        out_u64(o, strlen(strs[i]));
        out_bytes(o, strs[i], strlen(strs[i]));
    }
    /* Transactions are dealt to sessions in file order (session-major), so
     * the values read are those of earlier sessions' writes. */
    out_u64(o, SESSIONS);
    for (uint64_t s = 0; s < SESSIONS; s++) {
        uint64_t txns = left == 0 ? 0 : (left + OPS_PER_TXN - 1) / OPS_PER_TXN;
        if (txns > per_session)
            txns = per_session;
        out_u64(o, txns);
        for (uint64_t t = 0; t < txns; t++) {
            uint64_t k = left < OPS_PER_TXN ? left : OPS_PER_TXN;
            left -= k;
            out_u64(o, k);
            for (uint64_t e = 0; e < k; e++) {
                uint64_t r = xorshift(&rng);
                uint64_t key = (r >> 1) % KEYS;
                bool write = r & 1;
                uint64_t value = write ? (latest[key] = ++counter) : latest[key];
                out_u8(o, write);
                out_u64(o, key);
                out_u64(o, value);
                out_u8(o, 1);
            }
            out_u8(o, 1);
        }
    }
    fwrite(o->buf, 1, o->n, o->f);
    int bad = ferror(o->f);
    if (fclose(o->f) != 0 || bad) {
        fprintf(stderr, "bench_load: %s: write failed\n", path);
        return 1;
    }
    free(o);
    free(latest);
    printf("wrote %s: %llu operations\n", path, (unsigned long long)n_ops);
    return 0;
}

/* ---- load benchmark ---- */

static int bench(const char *path, int runs, psi_format fmt)
{
    double base = rss_bytes(), best = 0, total = 0, best_cpu = 0;
    uint64_t ops = 0, txns = 0;
    size_t model = 0;
    psi_format got = PSI_FMT_AUTO;
    for (int i = 0; i < runs; i++) {
        psi_read_opts opts = {.format = fmt};
        psi_history *h;
        psi_diag d;
        psi_diag_clear(&d);
        double t0 = now_ms(), c0 = cpu_ms();
        if (psi_read_history(path, &opts, &h, &d) != PSI_OK) {
            fprintf(stderr, "bench_load: %s\n", d.msg);
            return 1;
        }
        double ms = now_ms() - t0, cpu = cpu_ms() - c0;
        ops = h->n_ops;
        txns = h->n_txns - 1;
        model = psi_history_bytes(h);
        got = h->format;
        psi_history_free(h);
        total += ms;
        if (i == 0 || ms < best)
            best = ms;
        if (i == 0 || cpu < best_cpu)
            best_cpu = cpu;
    }
    double peak = peak_rss_bytes();
    double per_op = ops ? 1.0 / (double)ops : 0;
    printf("%s (%s): %llu ops, %llu txns\n", path, psi_format_name(got), (unsigned long long)ops,
           (unsigned long long)txns);
    printf("  load: %.2f ms best, %.2f ms mean over %d runs (best CPU time %.2f ms); %.3g "
           "ops/s\n",
           best, total / runs, runs, best_cpu, best > 0 ? (double)ops / (best / 1e3) : 0.0);
    printf("  memory: peak RSS %.1f MiB = %.1f B/op (%.1f B/op above the %.1f MiB "
           "baseline); model %.1f B/op\n",
           peak / 1048576.0, peak * per_op, (peak - base) * per_op, base / 1048576.0,
           (double)model * per_op);
    return 0;
}

static void usage(void)
{
    fprintf(stderr, "usage: bench_load [-n RUNS] [-f FORMAT] PATH\n"
                    "       bench_load --gen-dbcop PATH N_OPS [SEED]\n");
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--gen-dbcop") == 0) {
        uint64_t n = strtoull(argv[3], NULL, 10);
        uint64_t seed = argc > 4 ? strtoull(argv[4], NULL, 10) : 0;
        if (n == 0) {
            usage();
            return 2;
        }
        return generate(argv[2], n, seed);
    }
    int runs = 5;
    psi_format fmt = PSI_FMT_AUTO;
    int i = 1;
    for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        if (strcmp(argv[i], "-n") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "-f") == 0)
            fmt = psi_format_from_name(argv[i + 1]);
        else
            break;
    }
    if (i + 1 != argc || runs < 1) {
        usage();
        return 2;
    }
    return bench(argv[i], runs, fmt);
}
