#!/usr/bin/env bash
# Repeated values and recorded initial states (issue 11): CPU time and peak
# memory of the Release binary on
#   - generated histories with values drawn from 1..R (R = 4, 16, 256), zipf
#     keys, 10k and 100k transactions, under SI and SER;
#   - PolySI artifact histories (fig7) converted to text with an explicit
#     initial transaction writing 0 to every key prepended.
#
#   bench/repeated/run.sh [--sizes "10000 100000"] [--ranges "4 16 256"]
#                         [--timeout S] [--corpus DIR] [--out FILE.csv]
#
# Prints a table and writes CSV (default bench/results/repeated.csv). CPU
# time is user+sys from /usr/bin/time (the machine is shared: state the load
# average, printed first, with the numbers).
set -euo pipefail
cd "$(dirname "$0")/../.."
sizes="10000 100000"
ranges="4 16 256"
timeout_s=120
corpus=../shared/corpus
out=bench/results/repeated.csv
while [ $# -gt 0 ]; do
    case "$1" in
    --sizes) sizes=$2; shift 2 ;;
    --ranges) ranges=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --corpus) corpus=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--sizes LIST] [--ranges LIST] [--timeout S] [--corpus DIR] [--out FILE]" >&2; exit 2 ;;
    esac
done
bin=${PSI_BIN:-build/rel/polysi-solve}
[ -x "$bin" ] || { cmake -S . -B build/rel -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build/rel -j2 --target polysi-solve >/dev/null; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
echo "# commit $(git rev-parse --short HEAD), $(uptime)"
echo "history,isolation,verdict,cpu_s,peak_mb,prune_s,encode_s,solve_s,rounds" >"$out"
printf "%-40s %-4s %-8s %8s %8s %7s %7s %7s %6s\n" history iso verdict cpu_s peak_MB prune encode solve rounds
run() { # name path iso
    local name=$1 path=$2 iso=$3 verdict rc
    set +e
    /usr/bin/time -f "%U %S %M" -o "$work/t" timeout "$timeout_s" "$bin" check --isolation "$iso" \
        --no-progress --stats "$path" >"$work/o" 2>&1
    rc=$?
    set -e
    case $rc in 0) verdict=accept ;; 1) verdict=reject ;; 124) verdict=timeout ;; *) verdict="error$rc" ;; esac
    read -r u s m < <(tail -1 "$work/t")
    local cpu mb
    cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
    mb=$(awk -v m="$m" 'BEGIN{printf "%.0f", m/1024}')
    # Stage times and rounds from --stats (absent after a timeout: "-").
    local pr en so ro
    read -r pr en so < <(awk '/^  time \(s\)/ {for (i = 1; i < NF; i++) t[$i] = $(i + 1)}
        END {printf "%s %s %s\n", t["prune"] ? t["prune"] : "-", t["encode"] ? t["encode"] : "-",
             t["solve"] ? t["solve"] : "-"}' "$work/o")
    ro=$(sed -n 's/.*after (\([0-9]*\) rounds).*/\1/p' "$work/o" | head -1)
    printf "%-40s %-4s %-8s %8s %8s %7s %7s %7s %6s\n" "$name" "$iso" "$verdict" "$cpu" "$mb" \
        "$pr" "$en" "$so" "${ro:--}"
    echo "$name,$iso,$verdict,$cpu,$mb,$pr,$en,$so,${ro:--}" >>"$out"
}
for n in $sizes; do
    sess=20
    txns=$((n / sess))
    for r in $ranges; do
        for store in si ser; do
            f=$work/gen-$n-$r-$store.txt
            "$bin" generate --sessions $sess --txns $txns --ops 8 --keys 2000 --dist zipf \
                --isolation $store --value-range "$r" --seed 7 "$f" 2>/dev/null
            run "gen n=$n range=$r store=$store" "$f" "$store"
        done
    done
done
if [ -d "$corpus/polysi-artifact/fig7" ]; then
    for d in "$corpus"/polysi-artifact/fig7/*; do
        name=$(basename "$d")
        t=$work/$name.txt
        "$bin" convert --to text "$d/history.bincode" "$work/raw.txt" >/dev/null 2>&1 || continue
        # An explicit initial transaction (session 999999, id 999999) on
        # line 1, writing 0 to every key the history uses.
        { grep -o '^[rw]([0-9]*' "$work/raw.txt" | cut -d'(' -f2 | sort -un |
              awk '{print "w(" $1 ",0,999999,999999)"}'; grep -v '^#' "$work/raw.txt"; } >"$t"
        for iso in si ser; do run "$name+init" "$t" "$iso"; done
    done
fi
