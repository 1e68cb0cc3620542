#!/usr/bin/env bash
# Real time on large histories (issue 15): generated EDN histories (the
# store's true invoke/completion order, generate --format edn) of 10^4..
# 10^6 transactions, checked under si/strong-si (SI store) and
# ser/strict-ser (SER store): CPU (user+sys), peak MiB, and the real-time
# edges added (known edges before pruning, real-time level minus plain
# level), which must stay <= transactions x sessions (the sweep's bound).
#
#   bench/order/realtime.sh [--sizes "10000 100000"]
#
# PSI_BENCH_BIN: a built Release polysi-solve (else build/release is built).
# Writes bench/results/order-realtime.csv. State commit and uptime.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="10000 100000"
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes LIST]" >&2; exit 2 ;;
    esac
done
. bench/order/bin.sh
work=${TMPDIR:-/tmp}/psi-bench-order
res=bench/results
mkdir -p "$work" "$res"
csv=$res/order-realtime.csv
echo "commit $(git rev-parse --short HEAD), $(uptime)"
echo "txns,store,level,verdict,cpu_s,peak_mb,known_edges_before,rt_edges,bound" | tee "$csv"
num() { grep -o "\"$1\":[0-9]*" <<<"$2" | head -1 | cut -d: -f2; }
for n in $sizes; do
    for store in si ser; do
        h=$work/rt$n$store.edn
        [ -f "$h" ] || "$bin" generate --sessions 50 --txns $((n / 50)) --ops 10 --keys 100000 \
            --dist zipf --seed 1 --isolation "$store" --format edn "$h" 2>/dev/null
        if [ "$store" = si ]; then levels="si strong-si"; else levels="ser strict-ser"; fi
        base=
        for l in $levels; do
            tf=$(mktemp)
            json=$(/usr/bin/time -f "%U %S %M" -o "$tf" "$bin" check --json --stats \
                --isolation "$l" "$h" || true)
            read -r u s m <"$tf"
            rm -f "$tf"
            k=$(num known_edges_before "$json")
            t=$(num transactions "$json")
            rt=0
            [ -z "$base" ] && base=$k || rt=$((k - base))
            v=$(grep -o '"verdict":"[a-z]*"' <<<"$json" | cut -d'"' -f4)
            echo "$n,$store,$l,$v,$(echo "$u + $s" | bc),$((m / 1024)),$k,$rt,$((t * 50))" |
                tee -a "$csv"
        done
    done
done
