/* Fuzz targets: one entry point per input parser, plus the end-to-end
 * verdict target, each a plain function so the same code runs under
 * libFuzzer (fuzz/, -DPSI_FUZZ=ON) and in the regression test that replays
 * saved inputs (tests/fuzz_regress/). Every function returns 0 and aborts
 * (through a failed check or a sanitizer) on a bug. */
#ifndef PSI_FUZZ_FUZZ_H
#define PSI_FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Readers get at most this many operations: enough for every structure the
 * formats have, small enough that one input stays fast. */
#define PSI_FUZZ_MAX_OPS 4096u

int psi_fuzz_text(const uint8_t *data, size_t size);
int psi_fuzz_dbcop(const uint8_t *data, size_t size);
int psi_fuzz_edn(const uint8_t *data, size_t size);
int psi_fuzz_json(const uint8_t *data, size_t size);
int psi_fuzz_cobra(const uint8_t *data, size_t size);
int psi_fuzz_awdit(const uint8_t *data, size_t size);
int psi_fuzz_dimacs(const uint8_t *data, size_t size);
int psi_fuzz_verdict(const uint8_t *data, size_t size);

int psi_fuzz_witness(const uint8_t *data, size_t size);
int psi_fuzz_timestamps(const uint8_t *data, size_t size);

/* The libFuzzer entry point each fuzz program defines. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Builds the verdict target's input for a small generated history
 * (fuzz_seeds uses it): writes at most cap bytes to buf, returns the size. */
size_t psi_fuzz_verdict_seed(uint64_t seed, uint8_t *buf, size_t cap);
/* Same for the witness target: the witness psi_check's accept yields for
 * the generated history of `seed`, its keys named when `named` (0 when it
 * is rejected). */
size_t psi_fuzz_witness_seed(uint16_t seed, bool ser, bool named, uint8_t *buf, size_t cap);
/* Same for the timestamps target: the store's true timestamps of the
 * generated history of `seed` (empty for stores without them). */
size_t psi_fuzz_timestamps_seed(uint16_t seed, bool ser, uint8_t *buf, size_t cap);

/* A tiny workload configuration derived from a seed alone (the
 * differential test's mix: 2-4 sessions, 1-4 transactions each, 1-4
 * operations, 1-3 keys; SI/SER stores, with faults, or random reads). */
struct psi_gen_opts;
void psi_fuzz_gen_config(uint64_t seed, struct psi_gen_opts *o);

#endif
