#!/usr/bin/env bash
# PC and PSI against SI on the six PolySI artifact histories of fig8_9_10
# (issue 14 item 6: "PC/PSI no slower than SI"): median of 3 runs, CPU
# seconds (user+sys), and the exit code (0 accept) of each check.
#
#   B=path/to/polysi-solve [K=10] bench/levels/pc_psi.sh [CORPUS]
#
# B defaults to build/rel/polysi-solve; CORPUS to ../shared/corpus. K
# (default 1): each timing runs the check K times and prints the CPU time
# per run, for histories checked in a few hundredths of a second, below
# what /usr/bin/time resolves. State the commit and the load (printed per
# line) with the numbers: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${B:-build/rel/polysi-solve}
K=${K:-1}
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
            /usr/bin/time -o "$t" -f "%U %S" sh -c 'for i in $(seq "$1"); do "$2" check --isolation "$3" "$4" >/dev/null 2>&1; done; true' \
                sh "$K" "$B" $lv "$C/$h"
            ts+=("$(tail -1 "$t" | awk -v k="$K" '{printf (k > 1 ? "%.3f" : "%.2f"), ($1 + $2) / k}')")
        done
        med=$(printf "%s\n" "${ts[@]}" | sort -n | sed -n 2p)
        v=0
        "$B" check --isolation $lv "$C/$h" >/dev/null 2>&1 || v=$?
        line="$line $lv=$med(v$v)"
    done
    echo "$line load=$(cut -d' ' -f1 /proc/loadavg)"
done
