/* Tiny generated workloads for the verdict and witness targets. */
#include "fuzz.h"

#include "workload/gen.h"

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

void psi_fuzz_gen_config(uint64_t seed, struct psi_gen_opts *o)
{
    psi_gen_opts_default(o);
    uint64_t r = mix64(seed);
    o->seed = seed;
    o->sessions = 2 + (uint32_t)(r % 3), r /= 3;
    o->txns_per_session = 1 + (uint32_t)(r % 4), r /= 4;
    o->ops_per_txn = 1 + (uint32_t)(r % 4), r /= 4;
    o->keys = 1 + (uint32_t)(r % 3), r /= 3;
    o->read_ratio = (double)(r % 5) / 5.0 + 0.1, r /= 5;
    o->dist = PSI_DIST_UNIFORM;
    o->mix = (r % 4 == 0) ? PSI_MIX_RMW : PSI_MIX_POLYSI, r /= 4;
    switch (r % 8) {
    case 0:
    case 1:
        o->store = PSI_STORE_SI;
        break;
    case 2:
        o->store = PSI_STORE_SER;
        break;
    case 3:
    case 4:
    case 5:
        o->store = r % 2 ? PSI_STORE_SI : PSI_STORE_SER;
        o->faults = (unsigned)(mix64(seed ^ 0x5eed) % 15) + 1;
        o->fault_prob = 0.3;
        break;
    default:
        o->store = PSI_STORE_RANDOM;
        o->abort_ratio = (r / 8) % 2 ? 0.1 : 0.0;
        break;
    }
    r /= 8;
    o->unknown_ratio = (r % 6 == 0) ? 0.15 : 0.0;
}
