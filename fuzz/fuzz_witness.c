/* Fuzz target: the witness parser (formats/witness.c) and checker
 * (interpret/witness_check.c).
 *
 * Input: byte 0 bit 0 chooses SER (else SI), bit 1 gives the history's
 * keys names (keywords, strings and integer spellings by turns, as EDN and
 * JSON histories have: witness version 4 spells them); bytes 1-2 seed a
 * tiny generated history (fuzz_gen.c); the rest is the witness text. Besides
 * never crashing on any text, a witness the checker calls VALID must be
 * right: the brute-force oracle must accept the history at that level
 * (a VALID witness for a violating history is a soundness bug). The same
 * text is then a version-order hint (check --version-order): any hint is
 * refused with a message or checked, and a history the check accepts with
 * hints the oracle must accept without them (hints only add edges); read
 * as `check` reads it (resolved for the history) the text must give the
 * same answers; and what PL-2 accepts with the hints it accepts without. */
#include "fuzz.h"
#include "fuzz_check.h"

#include "check/check.h"
#include "interpret/hint_file.h"
#include "interpret/witness.h"
#include "interpret/witness_check.h"
#include "oracle/oracle.h"
#include "workload/gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static psi_history *history_for(uint16_t seed)
{
    psi_gen_opts o;
    psi_fuzz_gen_config(seed, &o);
    psi_history *h = NULL;
    psi_diag d;
    if (psi_generate(&o, &h, NULL, &d) != PSI_OK)
        return NULL;
    return h;
}

/* Gives h's keys names by turns: `:kX`, `"s X"` and `X` for external key
 * X, so the named keys are distinct; keys[k] becomes k, as
 * core/history.h wants with names. False when out of memory (h is then
 * unchanged). */
static bool name_keys(psi_history *h)
{
    char **names = calloc(h->n_keys ? h->n_keys : 1, sizeof *names);
    if (!names)
        return false;
    for (uint32_t k = 0; k < h->n_keys; k++) {
        char buf[48];
        unsigned long long x = (unsigned long long)h->keys[k];
        if (k % 3 == 0)
            snprintf(buf, sizeof buf, ":k%llu", x);
        else if (k % 3 == 1)
            snprintf(buf, sizeof buf, "\"s %llu\"", x);
        else
            snprintf(buf, sizeof buf, "%llu", x);
        names[k] = strdup(buf);
        if (!names[k]) {
            for (uint32_t j = 0; j < k; j++)
                free(names[j]);
            free(names);
            return false;
        }
    }
    for (uint32_t k = 0; k < h->n_keys; k++)
        h->keys[k] = k;
    h->key_names = names;
    return true;
}

/* The generated history of `seed`, its keys named when `named`. */
static psi_history *fuzz_history(uint16_t seed, bool named)
{
    psi_history *h = history_for(seed);
    if (h && named && !name_keys(h)) {
        psi_history_free(h);
        return NULL;
    }
    return h;
}

int psi_fuzz_witness(const uint8_t *data, size_t size)
{
    if (size < 3)
        return 0;
    bool ser = data[0] & 1;
    psi_history *h = fuzz_history((uint16_t)(data[1] | data[2] << 8), data[0] & 2);
    if (!h)
        return 0;
    psi_wverdict v;
    char *why = NULL;
    psi_diag d = {0};
    psi_status st =
        psi_witness_verify(h, "fuzz.witness", (const char *)data + 3, size - 3, ser, &v, &why, &d);
    if (st != PSI_OK) {
        FUZZ_REQUIRE(memchr(d.msg, '\0', sizeof d.msg) && d.msg[0], "error without a message");
    } else if (v == PSI_WITNESS_VALID) {
        oracle_result r;
        oracle_check_limit(h, ser, 200000, &r);
        if (r.verdict == ORACLE_REJECT || r.verdict == ORACLE_INVALID) {
            fprintf(stderr, "witness judged VALID for %s but the oracle says %s (%s)\n",
                    ser ? "SER" : "SI", oracle_verdict_name(r.verdict), oracle_reason_name(r.why));
            abort();
        }
    } else {
        FUZZ_REQUIRE(why && why[0], "refusal without a reason");
    }
    free(why);
    psi_hint_file hf;
    psi_status pst = psi_hint_file_parse("fuzz.hints", (const char *)data + 3, size - 3, &hf, &d);
    /* The same text read as `check` reads it (resolved for h while it is
     * parsed): the same parse errors, and below the same answers. */
    psi_hint_file hn;
    psi_diag dn = {0};
    psi_status nst =
        psi_hint_file_parse_for("fuzz.hints", (const char *)data + 3, size - 3, h, &hn, &dn);
    FUZZ_REQUIRE(nst == pst, "the resolved parse and the plain one disagree on the status");
    FUZZ_REQUIRE(pst == PSI_OK || strcmp(d.msg, dn.msg) == 0,
                 "the resolved parse and the plain one disagree on the message");
    if (pst == PSI_OK) {
        psi_check_opts co = {.ser = ser, .version_order = &hf.vo};
        psi_check_result res;
        st = psi_check(h, &co, &res, &d);
        psi_check_opts cn = {.ser = ser, .version_order = &hn.vo};
        psi_check_result rn;
        nst = psi_check(h, &cn, &rn, &dn);
        FUZZ_REQUIRE(nst == st, "resolved chains change the check's status");
        FUZZ_REQUIRE(st != PSI_OK ? strcmp(d.msg, dn.msg) == 0
                                  : rn.verdict == res.verdict && rn.reason == res.reason,
                     "resolved chains change the check's answer");
        psi_check_result_free(&rn);
        /* PL-2 takes the order too (check/level.h): hints only add
         * edges, so an accept with them is an accept without */
        psi_check_opts pl = {.level = PSI_LEVEL_PL2, .version_order = &hn.vo};
        if (psi_check(h, &pl, &rn, &dn) == PSI_OK && rn.verdict == PSI_ACCEPT) {
            psi_check_opts pl0 = {.level = PSI_LEVEL_PL2};
            psi_check_result r0;
            FUZZ_REQUIRE(psi_check(h, &pl0, &r0, &dn) == PSI_OK && r0.verdict == PSI_ACCEPT,
                         "PL-2 accepts with hints what it rejects without");
            psi_check_result_free(&r0);
        }
        psi_check_result_free(&rn);
        psi_hint_file_free(&hn);
        if (st != PSI_OK) {
            FUZZ_REQUIRE(memchr(d.msg, '\0', sizeof d.msg) && d.msg[0], "error without a message");
        } else if (res.verdict == PSI_ACCEPT) {
            oracle_result r;
            oracle_check_limit(h, ser, 200000, &r);
            if (r.verdict == ORACLE_REJECT || r.verdict == ORACLE_INVALID) {
                fprintf(stderr, "accepted with hints under %s but the oracle says %s (%s)\n",
                        ser ? "SER" : "SI", oracle_verdict_name(r.verdict),
                        oracle_reason_name(r.why));
                abort();
            }
        }
        psi_check_result_free(&res);
        psi_hint_file_free(&hf);
    }
    psi_history_free(h);
    return 0;
}

size_t psi_fuzz_witness_seed(uint16_t seed, bool ser, bool named, uint8_t *buf, size_t cap)
{
    psi_history *h = fuzz_history(seed, named);
    if (!h)
        return 0;
    size_t n = 0;
    psi_check_opts co = {.ser = ser, .keep_model = true};
    psi_check_result res;
    psi_diag d;
    if (psi_check(h, &co, &res, &d) == PSI_OK) {
        psi_witness w;
        if (res.verdict == PSI_ACCEPT && psi_witness_build(h, &res, ser, &w, &d) == PSI_OK) {
            char *text = NULL;
            size_t len = 0;
            FILE *f = open_memstream(&text, &len);
            bool ok = f && psi_witness_write(&w, h->source, f, "fuzz.witness", &d) == PSI_OK;
            if (f)
                ok = fclose(f) == 0 && ok;
            if (ok && len + 3 <= cap) {
                buf[0] = (uint8_t)(ser | named << 1), buf[1] = (uint8_t)seed,
                buf[2] = (uint8_t)(seed >> 8);
                memcpy(buf + 3, text, len);
                n = len + 3;
            }
            free(text);
            psi_witness_free(&w);
        }
        psi_check_result_free(&res);
    }
    psi_history_free(h);
    return n;
}

#ifdef PSI_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return psi_fuzz_witness(data, size);
}
#endif
