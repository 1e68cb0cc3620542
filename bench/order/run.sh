#!/usr/bin/env bash
# Ordering information (issue 15), two experiments:
#
#  1. The King Cobra ablation (../shared/papers/bringing-order-emme-enne-
#     kingcobra.txt): time to check a history when 0, 10, 25, 50, 75 or 100 %
#     of its version order is given (check --version-order), the order taken
#     from our own witness (check --witness) and thinned per key with a fixed
#     seed, on PolySI-artifact histories and generated ones. CSV + a gnuplot
#     plot (CPU seconds and constraints left after pruning against %).
#  2. SI from complete start/commit timestamps (check --timestamps, the
#     Chronos replay) on generated histories of 10^4..10^6 transactions
#     (generate --timestamps writes the store's true ones), beside the plain
#     check where it is affordable, and a complete version order's check
#     beside plain loading.
#
#   bench/order/run.sh [--sizes "10000 100000 1000000"] [--plain-max N] [--quick]
#                      [--no-sizes]
#
# The ablation includes a write-heavy 10^5 history (generate --sessions 50
# --txns 2000 --ops 8 --reads 0.25 --keys 10000 --dist zipf --format dbcop
# --seed 3; about 15 s CPU hint-free), whose pruning and solving the order
# removes, so the effect shows (the artifact histories are easy: flat).
# --no-sizes runs the ablation only.
#
# CPU time is user+sys of the whole run (/usr/bin/time), loading included;
# peak RSS from the same. Writes bench/results/order-ablation.csv,
# order-timestamps.csv and order-ablation.gp (+ .svg when gnuplot is
# installed). State the commit and `uptime` with the numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="10000 100000 1000000"
plain_max=100000
quick=0
no_sizes=0
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --plain-max) plain_max=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --no-sizes) no_sizes=1; shift ;;
    *) echo "usage: $0 [--sizes LIST] [--plain-max N] [--quick] [--no-sizes]" >&2; exit 2 ;;
    esac
done
# PSI_BENCH_BIN: an already built Release polysi-solve to use instead.
. bench/order/bin.sh
corpus=${PSI_CORPUS:-$PWD/../shared/corpus}
work=${TMPDIR:-/tmp}/psi-bench-order
res=bench/results
mkdir -p "$work" "$res"
echo "commit $(git rev-parse --short HEAD), $(uptime)"

num() { grep -o "\"$1\":[0-9.e+-]*" <<<"$2" | head -1 | cut -d: -f2; }
# run OUT_VAR CMD...: CPU seconds and peak MiB of CMD into $cpu and $mb,
# its stdout into $json.
run() {
    local tf
    tf=$(mktemp)
    json=$(/usr/bin/time -f "%U %S %M" -o "$tf" "$@" || true)
    read -r u s m <"$tf"
    rm -f "$tf"
    cpu=$(echo "$u + $s" | bc)
    mb=$((m / 1024))
}

# Thins a witness to PCT % of each key's writers (a subsequence, so still
# true), as chain lines.
thin() {
    awk -v pct="$2" -v seed=7 'BEGIN { srand(seed); print "polysi-witness 3" }
        $1 == "key" { line = "chain " $2; for (i = 3; i <= NF; i++) if (rand() * 100 < pct) line = line " " $i; print line }' "$1"
}

# ---- 1. ablation ----
hist=()
gen=$work/gen-hot.txt
[ -f "$gen" ] || "$bin" generate --sessions 20 --txns 200 --ops 10 --keys 500 --dist zipf \
    --seed 3 "$gen" 2>/dev/null
hist+=("$gen")
for d in fig8_9_10/25_400_8_10000_0.5_uniform fig8_9_10/25_400_8_10000_0.3_uniform \
    fig7/20_100_15_10000_0.5_zipf; do
    f=$corpus/polysi-artifact/$d/history.bincode
    [ -f "$f" ] && hist+=("$f")
done
wh=$work/write-heavy-1e5.dbcop
if [ "$quick" != 1 ]; then
    [ -f "$wh" ] || "$bin" generate --sessions 50 --txns 2000 --ops 8 --reads 0.25 --keys 10000 \
        --dist zipf --format dbcop --seed 3 "$wh" 2>/dev/null
    hist+=("$wh")
fi
[ "$quick" = 1 ] && hist=("${hist[0]}")
abl=$res/order-ablation.csv
echo "history,pct,verdict,cpu_s,constraints_generated,constraints_after,peak_mb" >"$abl"
printf "%-40s %4s %-7s %8s %10s %8s %7s\n" history pct verdict cpu_s generated after peak_MB
for h in "${hist[@]}"; do
    name=$(basename "$(dirname "$h")")
    [ "$h" = "$gen" ] && name=generated-hot
    [ "$h" = "$wh" ] && name=write-heavy-1e5
    w=$work/$name.witness
    "$bin" check --witness "$w" "$h" >/dev/null
    for pct in 0 10 25 50 75 100; do
        args=(check --json --stats)
        if [ "$pct" != 0 ]; then
            thin "$w" "$pct" >"$work/$name.$pct.hints"
            args+=(--version-order "$work/$name.$pct.hints")
        fi
        run "$bin" "${args[@]}" "$h"
        verdict=$(grep -o '"verdict":"[a-z]*"' <<<"$json" | cut -d'"' -f4)
        printf "%-40s %4s %-7s %8s %10s %8s %7s\n" "$name" "$pct" "$verdict" "$cpu" \
            "$(num constraints_generated "$json")" "$(num constraints_after "$json")" "$mb"
        echo "$name,$pct,$verdict,$cpu,$(num constraints_generated "$json"),$(num constraints_after "$json"),$mb" >>"$abl"
    done
done
gp=$res/order-ablation.gp
cat >"$gp" <<GP
set datafile separator ","
set terminal svg size 800,500
set output "$res/order-ablation.svg"
set xlabel "version order given (%)"
set ylabel "CPU seconds (check, loading included)"
set key top right
plot for [h in "$(for h in "${hist[@]}"; do n=$(basename "$(dirname "$h")"); [ "$h" = "$gen" ] && n=generated-hot; [ "$h" = "$wh" ] && n=write-heavy-1e5; printf '%s ' "$n"; done)"] \\
  "$abl" using (strcol(1) eq h ? \$2 : 1/0):4 with linespoints title h
GP
command -v gnuplot >/dev/null && gnuplot "$gp" && echo "plot: $res/order-ablation.svg"

if [ "$no_sizes" = 1 ]; then
    echo "CSV: $abl"
    exit 0
fi
# ---- 2. timestamps, and a complete version order, by size ----
tsv=$res/order-timestamps.csv
echo "txns,mode,verdict,cpu_s,peak_mb" >"$tsv"
printf "%8s %-22s %-7s %8s %7s\n" txns mode verdict cpu_s peak_MB
[ "$quick" = 1 ] && sizes="10000"
for n in $sizes; do
    h=$work/ts$n.txt
    [ -f "$h" ] || "$bin" generate --sessions 50 --txns $((n / 50)) --ops 10 --keys 100000 \
        --dist zipf --seed 1 --timestamps "$h.ts" "$h" 2>/dev/null
    modes=(timestamps)
    [ "$n" -le "$plain_max" ] && modes+=(plain version-order)
    for mode in "${modes[@]}"; do
        case $mode in
        timestamps) run "$bin" check --json --timestamps "$h.ts" "$h" ;;
        plain) run "$bin" check --json --witness "$h.witness" "$h" ;;
        version-order) run "$bin" check --json --stats --version-order "$h.witness" "$h" ;;
        esac
        verdict=$(grep -o '"verdict":"[a-z]*"' <<<"$json" | cut -d'"' -f4)
        printf "%8s %-22s %-7s %8s %7s\n" "$n" "$mode" "$verdict" "$cpu" "$mb"
        echo "$n,$mode,$verdict,$cpu,$mb" >>"$tsv"
    done
done
echo "CSV: $abl $tsv"
