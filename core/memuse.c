/* The process's memory (see memuse.h). */
#include "core/memuse.h"

#include <stdio.h>
#include <sys/resource.h>
#include <unistd.h>

uint64_t psi_mem_peak(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0 || ru.ru_maxrss < 0)
        return 0;
#ifdef __APPLE__
    return (uint64_t)ru.ru_maxrss; /* bytes there */
#else
    return (uint64_t)ru.ru_maxrss * 1024u; /* KiB on Linux and the BSDs */
#endif
}

uint64_t psi_mem_resident(void)
{
    /* statm: total and resident size in pages; one small read. */
    FILE *f = fopen("/proc/self/statm", "r");
    if (!f)
        return 0;
    unsigned long long size = 0, resident = 0;
    int n = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    long page = sysconf(_SC_PAGESIZE);
    return n == 2 && page > 0 ? (uint64_t)resident * (uint64_t)page : 0;
}
