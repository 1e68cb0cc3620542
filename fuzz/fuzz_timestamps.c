/* Fuzz target: the timestamp hint reader (formats/timestamps.c) and the
 * checks that use it (check/timestamps.c: the complete replay and the
 * partial timestamps' edges).
 *
 * Input: byte 0 bit 0 chooses SER (else SI); bytes 1-2 seed a tiny
 * generated history (fuzz_gen.c); the rest is the timestamp text. Any text
 * is refused with a message or checked; and a history the check accepts
 * with timestamps the brute-force oracle must accept without them
 * (timestamps only constrain: an accept with them is an accept). */
#include "fuzz.h"
#include "fuzz_check.h"

#include "check/check.h"
#include "interpret/hint_file.h"
#include "oracle/oracle.h"
#include "workload/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static psi_history *history_for(uint16_t seed, psi_gen_opts *o)
{
    psi_fuzz_gen_config(seed, o);
    psi_history *h = NULL;
    psi_diag d;
    if (psi_generate(o, &h, NULL, &d) != PSI_OK)
        return NULL;
    return h;
}

int psi_fuzz_timestamps(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    bool ser = data[0] & 1;
    psi_gen_opts go;
    psi_history *h = history_for((uint16_t)(data[1] | data[2] << 8), &go);
    if (!h)
        return 0;
    psi_ts_file f;
    psi_diag d = {0};
    if (psi_ts_file_parse("fuzz.ts", (const char *)data + 3, size - 3, &f, &d) != PSI_OK) {
        FUZZ_REQUIRE(memchr(d.msg, '\0', sizeof d.msg) && d.msg[0], "error without a message");
        psi_history_free(h);
        return 0;
    }
    psi_check_opts co = {.ser = ser, .timestamps = &f.ts};
    psi_check_result res;
    psi_status st = psi_check(h, &co, &res, &d);
    if (st != PSI_OK) {
        FUZZ_REQUIRE(memchr(d.msg, '\0', sizeof d.msg) && d.msg[0], "error without a message");
    } else if (res.verdict == PSI_ACCEPT) {
        oracle_result r;
        oracle_check_limit(h, ser, 200000, &r);
        if (r.verdict == ORACLE_REJECT || r.verdict == ORACLE_INVALID) {
            fprintf(stderr, "accepted with timestamps under %s but the oracle says %s (%s)\n",
                    ser ? "SER" : "SI", oracle_verdict_name(r.verdict), oracle_reason_name(r.why));
            abort();
        }
    }
    psi_check_result_free(&res);
    psi_ts_file_free(&f);
    psi_history_free(h);
    return 0;
}

/* The generator's true timestamps, as text. */
typedef struct sink {
    FILE *f;
} sink;

static void put(void *ctx, uint64_t s, uint64_t id, int64_t start, int64_t commit)
{
    sink *k = ctx;
    fprintf(k->f, "(%llu,%llu) %lld %lld\n", (unsigned long long)s, (unsigned long long)id,
            (long long)start, (long long)commit);
}

size_t psi_fuzz_timestamps_seed(uint16_t seed, bool ser, uint8_t *buf, size_t cap)
{
    psi_gen_opts go;
    psi_fuzz_gen_config(seed, &go);
    char *text = NULL;
    size_t len = 0;
    sink k = {open_memstream(&text, &len)};
    if (!k.f)
        return 0;
    go.on_timestamps = put;
    go.timestamps_ctx = &k;
    psi_history *h = NULL;
    psi_diag d;
    psi_status st = psi_generate(&go, &h, NULL, &d);
    bool ok = fclose(k.f) == 0 && st == PSI_OK;
    psi_history_free(h);
    size_t n = 0;
    if (ok && len + 3 <= cap) {
        buf[0] = ser, buf[1] = (uint8_t)seed, buf[2] = (uint8_t)(seed >> 8);
        memcpy(buf + 3, text, len);
        n = len + 3;
    }
    free(text);
    return n;
}

#ifdef PSI_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return psi_fuzz_timestamps(data, size);
}
#endif
