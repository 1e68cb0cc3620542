/* polysi.h: the public API of libpolysi, the checker library behind
 * polysi-solve, in one include. A program checks a history with
 *
 *     psi_read_history   (formats/read.h)      a file -> psi_history
 *     psi_check          (check/check.h)       psi_history -> accept / reject
 *     psi_cex_build      (interpret/explain.h) a reject -> its counterexample
 *     psi_witness_build  (interpret/witness.h) an accept -> its version orders
 *
 * and frees what each step returns (every header says who owns what).
 * solver/ is the SAT solver with its acyclicity theory, usable on its own.
 * examples/check_history.c is a complete program.
 *
 * Installed as <prefix>/include/polysi/polysi.h, next to the headers below,
 * which keep the project's folders (core/, formats/, check/, ...) because
 * they include one another as "core/history.h" and so on. pkg-config
 * polysi gives -I<prefix>/include/polysi and -I<prefix>/include, so both
 * <polysi.h> and <polysi/polysi.h> work. In the source tree this file sits
 * at the project root because the root is the project's include path: the
 * headers are then at the same relative paths as when installed.
 *
 * It includes exactly the installed headers, PSI_PUBLIC_HEADERS in
 * cmake/Install.cmake (tests/layout checks that the two agree). */
#ifndef POLYSI_H
#define POLYSI_H

#include "core/clock.h"
#include "core/diag.h"
#include "core/history.h"
#include "core/index.h"
#include "core/polygraph.h"
#include "core/progress.h"

#include "formats/locate.h"
#include "formats/read.h"
#include "formats/timestamps.h"
#include "formats/witness.h"
#include "formats/write.h"

#include "prune/prune.h"

#include "check/check.h"
#include "check/hints.h"
#include "check/level.h"
#include "check/level_choice.h"
#include "check/realtime.h"
#include "check/timestamps.h"

#include "interpret/all.h"
#include "interpret/describe.h"
#include "interpret/explain.h"
#include "interpret/hint_file.h"
#include "interpret/render.h"
#include "interpret/summary.h"
#include "interpret/witness.h"
#include "interpret/witness_check.h"
#include "interpret/witness_level.h"

#include "solver/acyclic.h"
#include "solver/dimacs.h"
#include "solver/sat.h"
#include "solver/theory.h"

#endif
