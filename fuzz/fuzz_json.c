/* Fuzz target: the Jepsen JSON reader (formats/json_scan.c, read_edn.c) on arbitrary
 * bytes. */
#include "fuzz.h"
#include "fuzz_check.h"

#include "formats/read.h"

int psi_fuzz_json(const uint8_t *data, size_t size)
{
    psi_history *h = NULL;
    psi_diag d = {0};
    psi_status st =
        psi_read_json_buf("fuzz.json", (const char *)data, size, PSI_FUZZ_MAX_OPS, &h, &d);
    psi_fuzz_after_read(st, h, &d);
    return 0;
}

#ifdef PSI_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return psi_fuzz_json(data, size);
}
#endif
