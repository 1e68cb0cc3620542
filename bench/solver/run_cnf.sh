#!/bin/bash
# Compares the built-in solver with Debian's minisat on generated families
# (random 3-SAT at ratio 4.26, pigeonhole, graph colouring) and on
# ../shared/corpus/cnf. Prints one line per instance, per-family median time
# ratios (ours / minisat), and the median ratio over the instances minisat
# solves in 1-60 s (the acceptance metric). Answers must agree; a mismatch
# is reported and makes the script exit 1. Times are CPU seconds.
#
# usage: bench/solver/run_cnf.sh [BUILD_DIR] [TIMEOUT_SECONDS]
#   BUILD_DIR: where bench/solver was built (default build-bench, made with
#   cmake -S bench/solver -B build-bench -DCMAKE_BUILD_TYPE=Release
#         -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG")
# Environment: OURS (solver command, default BUILD_DIR/bench_sat),
#   FAMILIES (default "rand3 php color corpus"), CORPUS (../shared/corpus).
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:-$ROOT/build-bench}
TO=${2:-100}
OURS=${OURS:-$BUILD/bench_sat}
CORPUS=${CORPUS:-$ROOT/../shared/corpus}
FAMILIES=${FAMILIES:-rand3 php color corpus}
OUT=$ROOT/bench/results/solver-$(date +%Y%m%d-%H%M%S)
mkdir -p "$OUT/cnf"
command -v minisat >/dev/null || { echo "minisat not found" >&2; exit 2; }
[ -x "$OURS" ] || { echo "solver $OURS not built" >&2; exit 2; }

gen() { # family name command...
    local fam=$1 name=$2
    shift 2
    "$@" > "$OUT/cnf/$fam-$name.cnf"
}
for fam in $FAMILIES; do
    case $fam in
    rand3)
        for n in 250 275 300; do
            for seed in 1 2 3 4; do
                gen rand3 "n$n-s$seed" "$BUILD/gen_random3sat" $n $((n * 426 / 100)) $seed
            done
        done ;;
    php)
        for h in 8 9 10; do gen php "h$h" "$BUILD/gen_php" $h; done ;;
    color)
        for seed in 1 2 3 4 5 6; do gen color "v120-e1000-k6-s$seed" "$BUILD/gen_coloring" 120 1000 6 $seed; done ;;
    corpus)
        for f in "$CORPUS"/cnf/*.cnf; do
            b=$(basename "$f" .cnf)
            [ "$b" = ph11 ] && continue # beyond both solvers
            cp "$f" "$OUT/cnf/corpus-$b.cnf"
        done ;;
    esac
done

# run CMD... -> prints "cpu-seconds exitcode". CPU time (user + system)
# rather than wall time, because the benchmark machine may be shared; the
# limit is a CPU-time limit too (ulimit -t), and any exit code other than
# 10/20 counts as a timeout (124).
run() {
    local rc
    /usr/bin/time -f "%U %S" -o "$OUT/.time" \
        bash -c 'ulimit -t "$0"; exec "$@"' "$TO" "$@" > /dev/null 2>&1
    rc=$?
    case $rc in 10 | 20) ;; *) rc=124 ;; esac
    echo "$(tail -1 "$OUT/.time" | awk '{print $1 + $2}') $rc"
}

status=0
printf "%-34s %10s %10s %8s %s\n" instance minisat ours ratio answer | tee "$OUT/table.txt"
for f in "$OUT"/cnf/*.cnf; do
    name=$(basename "$f" .cnf)
    read -r tm rm < <(run minisat -verb=0 "$f")
    read -r to ro < <(run "$OURS" "$f")
    ans=$rm
    if [ "$rm" != 124 ] && [ "$ro" != 124 ] && [ "$rm" != "$ro" ]; then
        ans="MISMATCH(minisat=$rm,ours=$ro)"
        status=1
    fi
    ratio=-
    if [ "$rm" = 124 ]; then tm=timeout; else tm=$(printf "%.2f" "$tm"); fi
    if [ "$tm" != timeout ] && [ "$(echo "$tm >= 0.01" | bc)" = 1 ]; then
        ratio=$(echo "scale=3; $to / $tm" | bc)
        [ "$ro" = 124 ] && ratio=">$ratio"
    fi
    printf "%-34s %10s %10.2f %8s %s\n" "$name" "$tm" "$to" "$ratio" "$ans" | tee -a "$OUT/table.txt"
done

# Medians: per family over all instances minisat solved in 1-60 s, and overall.
awk -v to="$TO" '
function median(arr, n,    i, j, t) {
    for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (arr[j] < arr[i]) { t = arr[i]; arr[i] = arr[j]; arr[j] = t }
    return n % 2 ? arr[(n + 1) / 2] : (arr[n / 2] + arr[n / 2 + 1]) / 2
}
NR > 1 && $2 != "timeout" && $2 >= 1 && $2 <= 60 {
    split($1, p, "-"); fam = p[1]
    r = $4; sub(/^>/, "", r)
    n[fam]++; v[fam, n[fam]] = r + 0
    all[++na] = r + 0
}
END {
    print ""
    print "median ratio (ours/minisat) on instances minisat solves in 1-60 s:"
    for (f in n) {
        delete a; for (i = 1; i <= n[f]; i++) a[i] = v[f, i]
        printf "  %-8s %6.3f  (%d instances)\n", f, median(a, n[f]), n[f]
    }
    if (na) printf "  %-8s %6.3f  (%d instances)\n", "ALL", median(all, na), na
}' "$OUT/table.txt" | tee -a "$OUT/table.txt"
echo "results in $OUT/table.txt"
exit $status
