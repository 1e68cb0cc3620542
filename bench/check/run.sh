#!/usr/bin/env bash
# Checking speed on the PolySI artifact histories (the issue's table):
# every fig7 and fig8_9_10 history, under SI and SER, median of N runs of
# the Release binary, with the stage breakdown from --json and peak memory.
#
#   bench/check/run.sh [--runs N] [--corpus DIR] [--out FILE.csv] [--filter REGEX]
#
# Prints a table and writes CSV (default bench/results/check.csv).
set -euo pipefail
cd "$(dirname "$0")/../.."
runs=3
corpus=../shared/corpus
out=bench/results/check.csv
filter=.
while [ $# -gt 0 ]; do
    case "$1" in
    --runs) runs=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    *) echo "usage: $0 [--runs N] [--corpus DIR] [--out FILE] [--filter REGEX]" >&2; exit 2 ;;
    esac
done
[ -d "$corpus/polysi-artifact" ] || { echo "corpus not found at $corpus" >&2; exit 2; }
./dev.sh build >/dev/null
bin=build/release/polysi-solve
mkdir -p "$(dirname "$out")"
echo "history,isolation,verdict,wall_s,load_s,validate_s,construct_s,prune_s,encode_s,solve_s,constraints_before,constraints_after,unknown_before,unknown_after,conflicts,peak_mb" >"$out"
printf "%-34s %-4s %-7s %8s %7s %7s %7s %7s %7s %9s %8s\n" history iso verdict wall_s load prune encode solve cons_left conflicts peak_MB
# Pull one number out of the flat JSON the checker prints.
num() { grep -o "\"$1\":[0-9.e+-]*" <<<"$2" | head -1 | cut -d: -f2; }
for d in "$corpus"/polysi-artifact/fig7/* "$corpus"/polysi-artifact/fig8_9_10/*; do
    name=$(basename "$d")
    [[ "$name" =~ $filter ]] || continue
    path=$d
    [ -f "$d/history.bincode" ] && path=$d/history.bincode
    for iso in si ser; do
        walls=()
        json=
        for _ in $(seq "$runs"); do
            t0=$(date +%s.%N)
            json=$("$bin" check --json --isolation "$iso" "$path" || true)
            t1=$(date +%s.%N)
            walls+=("$(echo "$t1 - $t0" | bc -l)")
        done
        wall=$(printf "%s\n" "${walls[@]}" | sort -g | awk -v n="$runs" 'NR==int((n+1)/2){print}')
        verdict=$(grep -o '"verdict":"[a-z]*"' <<<"$json" | cut -d'"' -f4)
        peak=$(num peak_memory_bytes "$json")
        peak_mb=$(echo "$peak / 1048576" | bc -l)
        row=("$name" "$iso" "$verdict" "$wall" "$(num load "$json")" "$(num validate "$json")"
            "$(num construct "$json")" "$(num prune "$json")" "$(num encode "$json")"
            "$(num solve "$json")" "$(num constraints_before "$json")"
            "$(num constraints_after "$json")" "$(num unknown_deps_before "$json")"
            "$(num unknown_deps_after "$json")" "$(num conflicts "$json")" "$peak_mb")
        (IFS=,; echo "${row[*]}") >>"$out"
        printf "%-34s %-4s %-7s %8.3f %7.3f %7.3f %7.3f %7.3f %7s %9s %8.1f\n" "$name" "$iso" \
            "$verdict" "$wall" "${row[4]}" "${row[7]}" "${row[8]}" "${row[9]}" "${row[11]}" \
            "${row[14]}" "$peak_mb"
    done
done
echo "CSV: $out"
