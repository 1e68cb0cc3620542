#!/bin/bash
# Runs the acyclicity-theory benchmark (bench_acyclic) on workload-shaped
# instances of growing size, SI and SER, with theory propagation on and off.
# usage: bench/solver/run_acyclic.sh [BUILD_DIR]
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-bench}
B=$BUILD/bench_acyclic
[ -x "$B" ] || { echo "$B not built" >&2; exit 2; }
#        nodes  sessions fwd    constraints noise seed
CONFIGS="10000  20       10000  4000        0     1
30000  30       30000  12000       0     1
100000 50       100000 40000       0     1
100000 50       100000 40000       0     2"
echo "$CONFIGS" | while read -r n s f c z seed; do
    for mode in --si --ser; do
        "$B" $mode --prop both "$n" "$s" "$f" "$c" "$z" "$seed"
    done
done
