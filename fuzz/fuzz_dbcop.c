/* Fuzz target: the dbcop bincode reader (formats/read_dbcop.c) on arbitrary bytes. */
#include "fuzz.h"
#include "fuzz_check.h"

#include "formats/read.h"

int psi_fuzz_dbcop(const uint8_t *data, size_t size)
{
    psi_history *h = NULL;
    psi_diag d = {0};
    psi_status st = psi_read_dbcop_buf("history.bincode", data, size, PSI_FUZZ_MAX_OPS, &h, &d);
    psi_fuzz_after_read(st, h, &d);
    return 0;
}

#ifdef PSI_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return psi_fuzz_dbcop(data, size);
}
#endif
