#!/usr/bin/env bash
# PC and PSI against SI on the six PolySI artifact histories of fig8_9_10
# (issue 14 item 6: "PC/PSI no slower than SI"): median of 3 runs, CPU
# seconds (user+sys), and the exit code (0 accept) of each check.
#
#   B=path/to/polysi-solve bench/levels/pc_psi.sh [CORPUS]
#
# B defaults to build/rel/polysi-solve; CORPUS to ../shared/corpus. State
# the commit and the load (printed per line) with the numbers: the machine
# is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build/rel/polysi-solve}
C=${1:-../shared/corpus}/polysi-artifact/fig8_9_10
[ -d "$C" ] || { echo "corpus not found at $C" >&2; exit 2; }
t=$(mktemp)
trap 'rm -f "$t"' EXIT
for h in 25_400_8_10000_0.95_uniform 25_400_8_10000_0.5_uniform 25_400_8_10000_0.3_uniform \
    rubis-10000 tpcc-10000 twitter-10000; do
    line="$h"
    for lv in si pc psi; do
        ts=()
        for r in 1 2 3; do
            /usr/bin/time -o "$t" -f "%U %S" "$B" check --isolation $lv "$C/$h" >/dev/null 2>&1 || true
            ts+=("$(tail -1 "$t" | awk '{printf "%.2f", $1 + $2}')")
        done
        med=$(printf "%s\n" "${ts[@]}" | sort -n | sed -n 2p)
        v=0
        "$B" check --isolation $lv "$C/$h" >/dev/null 2>&1 || v=$?
        line="$line $lv=$med(v$v)"
    done
    echo "$line load=$(cut -d' ' -f1 /proc/loadavg)"
done
