/* How much memory the process holds, for the check's figures per stage
 * (check.h's psi_check_stats.mem_*): read from the operating system, so
 * they count everything the process has, not one structure. Internal. */
#ifndef PSI_CORE_MEMUSE_H
#define PSI_CORE_MEMUSE_H

#include <stdint.h>

/* The process's peak resident set so far, in bytes (getrusage); 0 when the
 * platform cannot say. It only grows. */
uint64_t psi_mem_peak(void);

/* The process's resident set now, in bytes (/proc/self/statm); 0 when the
 * platform cannot say. What a stage frees shows here, not in the peak. */
uint64_t psi_mem_resident(void);

#endif
