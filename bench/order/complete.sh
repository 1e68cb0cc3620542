#!/usr/bin/env bash
# Issue 15's complete-order target: "with a complete version order, no
# slower than loading plus one graph pass". Per size, a SI store's and a
# SER store's history (generate --sessions 50 --ops 10 --dist zipf --seed 1
# --timestamps; 10^5: --txns 2000 --keys 10000, 10^6: --txns 20000 --keys
# 100000), and the order each implies: the check's own witness (check
# --witness, SI store under SI, SER store under SER), or with --order ts
# the one its true timestamps imply (check --timestamps --witness, which
# is cheap where the plain check is not). Then, RUNS times each: `stats`
# (load only), `check --isolation pl2` (load plus one graph pass),
# `check --version-order` under SI and SER, and under SI with two adjacent
# versions of one key swapped (a reject and its counterexample): CPU s
# (user+sys), peak MiB, the load average when it started.
#
#   bench/order/complete.sh [--sizes "100000 1000000"] [--runs N] [--order witness|ts]
#
# PSI_BENCH_BIN: the polysi-solve to measure (else build/release is built);
# PSI_BENCH_BASE: a second one to measure beside it ("before"). Histories
# and orders are kept in $TMPDIR/psi-bench-complete (10^6: ~212 MB each).
# Writes bench/results/order-complete.csv. State commit and uptime.
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="100000"
runs=3
order=witness
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --order) order=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes LIST] [--runs N] [--order witness|ts]" >&2; exit 2 ;;
    esac
done
. bench/order/bin.sh
bins=("after=$bin")
[ -n "${PSI_BENCH_BASE:-}" ] && bins=("before=$PSI_BENCH_BASE" "${bins[@]}")
work=${TMPDIR:-/tmp}/psi-bench-complete
res=bench/results
mkdir -p "$work" "$res"
csv=$res/order-complete.csv
echo "commit $(git rev-parse --short HEAD), $(uptime)"
echo "txns,build,mode,verdict_rc,cpu_s,peak_mb,load" | tee "$csv"
# run LABEL BIN ARGS...: one measured run, a CSV line
run() {
    local label=$1 b=$2 tf load rc u s m
    shift 2
    tf=$(mktemp)
    load=$(cut -d' ' -f1 /proc/loadavg)
    rc=0
    /usr/bin/time -f "%U %S %M" -o "$tf" "$b" "$@" >/dev/null 2>&1 || rc=$?
    # a reject exits 1: time then writes "Command exited ..." first
    read -r u s m < <(tail -n 1 "$tf")
    rm -f "$tf"
    echo "$label,$rc,$(echo "$u + $s" | bc),$((m / 1024)),$load" | tee -a "$csv"
}
for n in $sizes; do
    keys=$((n / 10))
    [ "$keys" -gt 100000 ] && keys=100000
    for store in si ser; do
        h=$work/h$n$store.txt
        [ -f "$h" ] || "$bin" generate --sessions 50 --txns $((n / 50)) --ops 10 --keys $keys \
            --dist zipf --seed 1 --isolation $store --timestamps "$h.ts" "$h" 2>/dev/null
        w=$h.$order.wit
        if [ ! -f "$w" ]; then
            if [ "$order" = ts ]; then
                "$bin" check --isolation $store --timestamps "$h.ts" --witness "$w" "$h" >/dev/null
            else
                "$bin" check --isolation $store --witness "$w" "$h" >/dev/null
            fi
        fi
        # the same order with two adjacent versions of the first key line
        # swapped (its 3rd and 4th entries): a reject, with its
        # counterexample (issue 15: a contradicting order is a violation)
        [ -f "$w.swap" ] || awk '!done && $1 == "key" { t = $5; $5 = $6; $6 = t; done = 1 } 1' \
            "$w" >"$w.swap"
    done
    for r in $(seq "$runs"); do
        for nb in "${bins[@]}"; do
            name=${nb%%=*} b=${nb#*=}
            run "$n,$name,stats" "$b" stats "$work/h${n}si.txt"
            run "$n,$name,pl2" "$b" check --isolation pl2 "$work/h${n}si.txt"
            run "$n,$name,si-order" "$b" check --isolation si --version-order \
                "$work/h${n}si.txt.$order.wit" "$work/h${n}si.txt"
            run "$n,$name,ser-order" "$b" check --isolation ser --version-order \
                "$work/h${n}ser.txt.$order.wit" "$work/h${n}ser.txt"
            run "$n,$name,si-order-reject" "$b" check --isolation si --version-order \
                "$work/h${n}si.txt.$order.wit.swap" "$work/h${n}si.txt"
        done
    done
done
echo "CSV: $csv"
