/* An independent brute-force checker of the weak levels for tiny
 * histories: it enumerates every commit order co (a total order of the
 * participating transactions, the initial one first, containing SO ∪ WR)
 * and checks the axioms of check/level.h literally: for each read event
 * (a read not after its own transaction's write of the key; two reads of
 * a key are two events) in t of x from t1 and each other writer t2 of x with the level's premise
 * (RC: t2 wrote what an earlier read of t read; RA: t2 →SO t or t2 →WR t;
 * CC: t2 →(SO ∪ WR)+ t; PC: t2 →(co* ; (SO ∪ WR)) t; PSI: t2 →(SO ∪
 * WR ∪ WW_co)+ t, where WW_co is co on each key's writers; PL-2: none),
 * t2 co t1. PSI is Cerone et al.'s (CONCUR 2015) abstract executions
 * with co as the arbitration order: visibility must contain SO, WR and
 * (NOCONFLICT) co on writers of a common key, and be transitive; the
 * least such relation is the one above, and a larger one only makes more
 * writers visible, so it is the one to try. The graph-free anomalies
 * and input errors are the SI/SER oracle's (tests/oracle), which every
 * level shares, except that RC and PL-2 recheck its INT literally per
 * read (they allow non-repeatable reads). The SI/SER oracle refuses
 * list-append histories: for those the graph-free part is checked here
 * (lists_valid: elements appended by other committed transactions, the
 * lists of a key prefixes of one another, one list per key and
 * transaction except under RC and PL-2), a list read reads from its last
 * element's appender, and co must order the appenders of consecutive
 * elements. No code is shared with check/. */
#ifndef PSI_TESTS_LEVEL_ORACLE_H
#define PSI_TESTS_LEVEL_ORACLE_H

#include "core/history.h"

#include <stdint.h>

#define LEVEL_ORACLE_MAX_TXNS 12u

typedef enum lo_level { LO_PL2, LO_RC, LO_RA, LO_CC, LO_PC, LO_PSI } lo_level;
typedef enum lo_verdict { LO_ACCEPT, LO_REJECT, LO_INVALID, LO_TOO_BIG } lo_verdict;

/* cap bounds the commit orders tried (and the base oracle's version
 * orders); above it the answer is LO_TOO_BIG. */
lo_verdict level_oracle_check(const psi_history *h, lo_level level, uint64_t cap);

#endif
