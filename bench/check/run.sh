#!/usr/bin/env bash
# Checking speed on the PolySI artifact histories (the issue's table):
# every fig7 and fig8_9_10 history, under SI and SER, median of N runs of
# the Release binary, with the stage breakdown from --json and peak memory.
#
#   bench/check/run.sh [--runs N] [--corpus DIR] [--out FILE.csv] [--filter REGEX]
#
# Prints a table and writes CSV (default bench/results/check.csv). Wall time
# is the issue's measure; CPU time (user+sys, median too) is reported beside
# it because it stays meaningful on a shared, busy machine.
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
echo "history,isolation,verdict,wall_s,cpu_s,load_s,validate_s,construct_s,prune_s,encode_s,solve_s,constraints_before,constraints_after,unknown_before,unknown_after,conflicts,peak_mb" >"$out"
printf "%-34s %-4s %-7s %8s %7s %7s %7s %7s %7s %7s %9s %8s\n" history iso verdict wall_s cpu_s load prune encode solve cons_left conflicts peak_MB
# Pull one number out of the flat JSON the checker prints.
num() { grep -o "\"$1\":[0-9.e+-]*" <<<"$2" | head -1 | cut -d: -f2; }
for d in "$corpus"/polysi-artifact/fig7/* "$corpus"/polysi-artifact/fig8_9_10/*; do
    name=$(basename "$d")
    [[ "$name" =~ $filter ]] || continue
    path=$d
    [ -f "$d/history.bincode" ] && path=$d/history.bincode
    for iso in si ser; do
        walls=()
        cpus=()
        json=
        for _ in $(seq "$runs"); do
            # bash's time keyword: real, user, sys without extra packages.
            tf=$(mktemp)
            { TIMEFORMAT='%R %U %S'; time "$bin" check --json --interpret-budget 0 \
                --isolation "$iso" "$path" >"$tf.out" || true; } 2>"$tf"
            json=$(cat "$tf.out")
            read -r real user sys <"$tf"
            rm -f "$tf" "$tf.out"
            walls+=("$real")
            cpus+=("$(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.3f", u + s}')")
        done
        median() { printf "%s\n" "$@" | sort -g | awk -v n="$#" 'NR==int((n+1)/2){print}'; }
        wall=$(median "${walls[@]}")
        cpu=$(median "${cpus[@]}")
        verdict=$(grep -o '"verdict":"[a-z]*"' <<<"$json" | cut -d'"' -f4)
        peak=$(num peak_memory_bytes "$json")
        peak_mb=$(awk -v p="$peak" 'BEGIN{printf "%.1f", p / 1048576}')
        row=("$name" "$iso" "$verdict" "$wall" "$cpu" "$(num load "$json")" "$(num validate "$json")"
            "$(num construct "$json")" "$(num prune "$json")" "$(num encode "$json")"
            "$(num solve "$json")" "$(num constraints_before "$json")"
            "$(num constraints_after "$json")" "$(num unknown_deps_before "$json")"
            "$(num unknown_deps_after "$json")" "$(num conflicts "$json")" "$peak_mb")
        (IFS=,; echo "${row[*]}") >>"$out"
        printf "%-34s %-4s %-7s %8.3f %7.3f %7.3f %7.3f %7.3f %7.3f %7s %9s %8.1f\n" "$name" \
            "$iso" "$verdict" "$wall" "$cpu" "${row[5]}" "${row[8]}" "${row[9]}" "${row[10]}" \
            "${row[12]}" "${row[15]}" "$peak_mb"
    done
done
echo "CSV: $out"
