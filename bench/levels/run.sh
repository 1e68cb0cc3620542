#!/usr/bin/env bash
# Time and memory of the weak levels (PL-2, RC, RA, CC; SI for reference
# up to --si-max) on generated histories of 10^4, 10^5 and 10^6
# transactions: 50 sessions, zipfian keys (100,000 keys), 10 operations per
# transaction, the simulated SI store (so every level accepts and the whole
# history is checked).
#
#   bench/levels/run.sh [--sizes "10000 100000 1000000"] [--si-max N] [--out FILE.csv]
#
# Prints a table and writes CSV (default bench/results/levels.csv): CPU time
# (user+sys of the whole run, loading included), the stages from --json,
# and peak RSS. The growth rate is the CPU ratio between consecutive sizes
# (10x more transactions each step: ~10 means linear). State the commit and
# `uptime` with the numbers: the machine is shared.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="10000 100000 1000000"
si_max=100000
out=bench/results/levels.csv
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --si-max) si_max=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes LIST] [--si-max N] [--out FILE]" >&2; exit 2 ;;
    esac
done
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DPSI_TESTS=OFF >/dev/null
cmake --build build/release -j2 --target polysi-solve >/dev/null
bin=build/release/polysi-solve
work=${TMPDIR:-/tmp}/psi-bench-levels
mkdir -p "$work" "$(dirname "$out")"
echo "commit $(git rev-parse --short HEAD), $(uptime)"
echo "txns,level,verdict,cpu_s,load_s,validate_s,construct_s,prune_s,solve_s,peak_mb" >"$out"
printf "%8s %-5s %-7s %8s %7s %9s %10s %8s %8s %7s\n" txns level verdict cpu_s load_s validate_s construct_s prune_s solve_s peak_MB
num() { grep -o "\"$1\":[0-9.e+-]*" <<<"$2" | head -1 | cut -d: -f2; }
declare -A prev
for n in $sizes; do
    h=$work/h$n.txt
    [ -f "$h" ] || "$bin" generate --sessions 50 --txns $((n / 50)) --ops 10 --keys 100000 \
        --dist zipf --seed 1 "$h" 2>/dev/null
    for level in pl2 rc ra cc si; do
        [ "$level" = si ] && [ "$n" -gt "$si_max" ] && continue
        tf=$(mktemp)
        json=$(/usr/bin/time -f "%U %S %M" -o "$tf" "$bin" check --json --stats --isolation "$level" "$h" || true)
        read -r u s m <"$tf"
        rm -f "$tf"
        cpu=$(echo "$u + $s" | bc)
        verdict=$(grep -o '"verdict":"[a-z]*"' <<<"$json" | cut -d'"' -f4)
        mb=$((m / 1024))
        growth=""
        [ -n "${prev[$level]:-}" ] && growth=$(echo "scale=1; $cpu / ${prev[$level]}" | bc)
        prev[$level]=$cpu
        printf "%8s %-5s %-7s %8s %7.2f %9.2f %10.2f %8.2f %8.2f %7s %s\n" "$n" "$level" "$verdict" "$cpu" \
            "$(num load "$json")" "$(num validate "$json")" "$(num construct "$json")" \
            "$(num prune "$json")" "$(num solve "$json")" "$mb" "${growth:+x$growth}"
        echo "$n,$level,$verdict,$cpu,$(num load "$json"),$(num validate "$json"),$(num construct "$json"),$(num prune "$json"),$(num solve "$json"),$mb" >>"$out"
    done
done
