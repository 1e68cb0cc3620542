#!/usr/bin/env bash
# SI and PSI before and after, back to back, on the six PolySI artifact
# histories of fig8_9_10 (issue 14 item 6: "PSI no slower than SI"). Runs
# interleave the two binaries (A B A B A B) so both see the same load;
# prints the median of 3 CPU seconds (user+sys) per binary and level, the
# exit codes, and from one --stats run each the solver's decisions and
# PSI's refinement models (binaries older than the "refinement" stats
# line print "-").
#
#   A=before/polysi-solve B=after/polysi-solve bench/levels/psi_before_after.sh [CORPUS]
#
# B defaults to build/rel/polysi-solve; CORPUS to ../shared/corpus. State
# the commits and the load (printed per line) with the numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
A=${A:?set A to the binary before}
B=${B:-build/rel/polysi-solve}
C=${1:-../shared/corpus}/polysi-artifact/fig8_9_10
[ -d "$C" ] || { echo "corpus not found at $C" >&2; exit 2; }
t=$(mktemp)
trap 'rm -f "$t"' EXIT
cpu() { # binary level history -> CPU seconds
    /usr/bin/time -o "$t" -f "%U %S" "$1" check --isolation "$2" "$3" >/dev/null 2>&1 || true
    tail -1 "$t" | awk '{printf "%.2f", $1 + $2}'
}
med() { printf "%s\n" "$@" | sort -n | sed -n 2p; }
stats() { # binary level history -> "exit decisions models"
    local out v=0
    out=$("$1" check --isolation "$2" --stats "$3" 2>&1) || v=$?
    local dec mod
    dec=$(printf "%s\n" "$out" | sed -n 's/.* \([0-9]*\) decisions.*/\1/p' | head -1)
    mod=$(printf "%s\n" "$out" | sed -n 's/.*refinement *\([0-9]*\) models.*/\1/p' | head -1)
    echo "v$v dec=${dec:--} models=${mod:--}"
}
printf "%-28s %-5s %-22s %-22s %s\n" history level "before (cpu s, stats)" "after" load
for h in 25_400_8_10000_0.95_uniform 25_400_8_10000_0.5_uniform 25_400_8_10000_0.3_uniform \
    rubis-10000 tpcc-10000 twitter-10000; do
    for lv in si psi; do
        ta=() tb=()
        for r in 1 2 3; do
            ta+=("$(cpu "$A" $lv "$C/$h")")
            tb+=("$(cpu "$B" $lv "$C/$h")")
        done
        printf "%-28s %-5s %s %-30s %s %-30s load=%s\n" "$h" $lv "$(med "${ta[@]}")" \
            "($(stats "$A" $lv "$C/$h"))" "$(med "${tb[@]}")" "($(stats "$B" $lv "$C/$h"))" \
            "$(cut -d' ' -f1 /proc/loadavg)"
    done
done
