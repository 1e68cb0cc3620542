#!/usr/bin/env bash
# VeriStrong's duplicate-value workloads, reproduced with our generator
# (issue 11 item 7): CPU time and peak memory of the Release binary under
# SER and SI, several seeds each.
#
#   bench/repeated/veristrong.sh [--seeds "1 2 3"] [--sets "RH BL ..."]
#                                [--names "NAME[:zipf] ..."]
#                                [--timeout S] [--out FILE.csv]
#
# --names measures any history of VeriStrong's naming scheme instead of
# the sets below (keys uniform unless the name ends in :zipf), e.g.
# --names "25_400_8_5000_0.5_r_0.75_10 20_100_20_5000_0.5_r_0.2_0.5_100".
#
# VeriStrong's histories are named S_T_O_K_R_r_[DUP_]ZS_ZN (its artifact,
# github.com/CzxingcHen/VeriStrong, history/ and its generation scripts):
# S sessions, T transactions per session, O operations per transaction, K
# keys, R read ratio, 'r' = repeated values (dbcop-plus generate
# --repeat_value -s ZS -N ZN: written values zipfian with exponent ZS over
# 1..ZN), DUP (later sets) = the share of writes that draw a repeated value.
# They were recorded from PostgreSQL at SERIALIZABLE (dbcop run --db
# postgres-ser), so ours come from the SER store and satisfy SER and SI.
# Each set below maps those parameters onto generate's options; the key
# distribution follows the script that generated the set (uniform for the
# "General" sets, zipf for the 20_500_10_8000 one).
#
# Prints one line per run and a per-set summary (median CPU over seeds),
# writes CSV (default bench/results/veristrong.csv). CPU = user + sys of
# /usr/bin/time; the machine is shared, so the load average is printed
# first and belongs with the numbers.
set -euo pipefail
cd "$(dirname "$0")/../.."
seeds="1 2 3"
sets="RH BL WH HD BLZ WHZ HDZ BIG20K LIST10K FIG10 FIG10DUP1 FIG10T250"
timeout_s=300
names=
out=bench/results/veristrong.csv
while [ $# -gt 0 ]; do
    case "$1" in
    --seeds) seeds=$2; shift 2 ;;
    --sets) sets=$2; shift 2 ;;
    --names) names=$2; shift 2 ;;
    --timeout) timeout_s=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "usage: $0 [--seeds LIST] [--sets LIST] [--names LIST] [--timeout S] [--out FILE]" >&2; exit 2 ;;
    esac
done
bin=${PSI_BIN:-build/rel/polysi-solve}
[ -x "$bin" ] || { cmake -S . -B build/rel -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build build/rel -j2 --target polysi-solve >/dev/null; }

# A VeriStrong history name S_T_O_K_R_r_[DUP_]ZS_ZN[:zipf] -> generate's
# options (see above); exits 2 on anything else.
from_name() {
    local name=${1%:*} dist=uniform
    [ "$1" != "${1%:zipf}" ] && dist=zipf
    local IFS=_ f
    read -r -a f <<<"$name"
    if [ ${#f[@]} -eq 8 ] && [ "${f[5]}" = r ]; then
        echo "$1|--sessions ${f[0]} --txns ${f[1]} --ops ${f[2]} --keys ${f[3]} --reads ${f[4]} --dist $dist --value-range ${f[7]} --value-zipf ${f[6]}"
    elif [ ${#f[@]} -eq 9 ] && [ "${f[5]}" = r ]; then
        echo "$1|--sessions ${f[0]} --txns ${f[1]} --ops ${f[2]} --keys ${f[3]} --reads ${f[4]} --dist $dist --value-range ${f[8]} --value-zipf ${f[7]} --value-repeat-ratio ${f[6]}"
    else
        echo "not a VeriStrong duplicate-value history name: $1" >&2
        exit 2
    fi
}

# set -> "VeriStrong name|generate options"
spec() {
    case $1 in
    N:*) from_name "${1#N:}" ;;
    # The "General" family (25 x 400 x 8, 5000 keys): read-heavy, balanced,
    # write-heavy, and the heavily duplicated one (values over 1..10).
    RH) echo "25_400_8_5000_0.95_r_0.5_100|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.95 --dist uniform --value-range 100 --value-zipf 0.5" ;;
    BL) echo "25_400_8_5000_0.5_r_0.5_100|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.5 --dist uniform --value-range 100 --value-zipf 0.5" ;;
    WH) echo "25_400_8_5000_0.3_r_0.5_100|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.3 --dist uniform --value-range 100 --value-zipf 0.5" ;;
    HD) echo "25_400_8_5000_0.5_r_0.75_10|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.5 --dist uniform --value-range 10 --value-zipf 0.75" ;;
    # The same with zipfian keys (exponent 0.5, dbcop's): the artifact's
    # generation scripts use uniform keys for this family in one version
    # and zipf in another, so both are measured.
    BLZ) echo "25_400_8_5000_0.5_r_0.5_100 (zipf keys)|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.5 --dist zipf --value-range 100 --value-zipf 0.5" ;;
    WHZ) echo "25_400_8_5000_0.3_r_0.5_100 (zipf keys)|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.3 --dist zipf --value-range 100 --value-zipf 0.5" ;;
    HDZ) echo "25_400_8_5000_0.5_r_0.75_10 (zipf keys)|--sessions 25 --txns 400 --ops 8 --keys 5000 --reads 0.5 --dist zipf --value-range 10 --value-zipf 0.75" ;;
    BIG20K) echo "50_400_8_10000_0.5_r_0.75_10|--sessions 50 --txns 400 --ops 8 --keys 10000 --reads 0.5 --dist uniform --value-range 10 --value-zipf 0.75" ;;
    # 20 x 500 x 10 on 8000 zipfian keys (the largest of its list-append
    # comparison sets that is 10k transactions).
    LIST10K) echo "20_500_10_8000_0.5_r_0.5_100|--sessions 20 --txns 500 --ops 10 --keys 8000 --reads 0.5 --dist zipf --value-range 100 --value-zipf 0.5" ;;
    # Fig. 10's hyper-polygraph sets (default 20 x 100 x 20 on 5000 keys,
    # half the writes repeat): the default, all writes repeating, and the
    # largest of its transaction sweep.
    FIG10) echo "20_100_20_5000_0.5_r_0.5_0.5_100|--sessions 20 --txns 100 --ops 20 --keys 5000 --reads 0.5 --dist uniform --value-range 100 --value-zipf 0.5 --value-repeat-ratio 0.5" ;;
    FIG10DUP1) echo "20_100_20_5000_0.5_r_1.0_0.5_100|--sessions 20 --txns 100 --ops 20 --keys 5000 --reads 0.5 --dist uniform --value-range 100 --value-zipf 0.5 --value-repeat-ratio 1" ;;
    FIG10T250) echo "20_250_20_5000_0.5_r_0.5_0.5_100|--sessions 20 --txns 250 --ops 20 --keys 5000 --reads 0.5 --dist uniform --value-range 100 --value-zipf 0.5 --value-repeat-ratio 0.5" ;;
    *) echo "unknown set $1" >&2; exit 2 ;;
    esac
}

if [ -n "$names" ]; then
    sets=
    for n in $names; do
        from_name "$n" >/dev/null
        sets="$sets N:$n"
    done
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$(dirname "$out")"
echo "# commit $(git rev-parse --short HEAD), $(uptime)"
echo "set,veristrong_name,seed,isolation,verdict,cpu_s,peak_mb,prune_s,encode_s,solve_s,ambiguous_reads" >"$out"
printf "%-10s %-4s %-4s %-8s %7s %7s %7s %7s %7s %9s\n" set seed iso verdict cpu_s peak_MB prune encode solve ambiguous
for set in $sets; do
    spec "$set" >/dev/null # exits on an unknown set or name
    IFS='|' read -r name opts < <(spec "$set")
    for seed in $seeds; do
        f=$work/$set-$seed.txt
        # shellcheck disable=SC2086
        "$bin" generate $opts --isolation ser --seed "$seed" "$f" 2>/dev/null
        # Reads whose (key, value) has two or more writing transactions:
        # the hyper-polygraph's uncertain read-froms (own-write reads
        # included; the checker resolves those itself).
        amb=$(awk -F'[(,)]' '/^w\(/ {if (!seen[$2 "," $3 "," $4 "," $5]++) n[$2 "," $3]++}
            /^r\(/ {r[$2 "," $3]++} END {for (k in r) if (n[k] >= 2) a += r[k]; print a + 0}' "$f")
        for iso in ser si; do
            set +e
            /usr/bin/time -f "%U %S %M" -o "$work/t" timeout "$timeout_s" "$bin" check \
                --isolation "$iso" --no-progress --stats "$f" >"$work/o" 2>&1
            rc=$?
            set -e
            case $rc in 0) verdict=accept ;; 1) verdict=reject ;; 124) verdict=timeout ;; *) verdict="error$rc" ;; esac
            read -r u s m < <(tail -1 "$work/t")
            cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
            mb=$(awk -v m="$m" 'BEGIN{printf "%.0f", m/1024}')
            read -r pr en so < <(awk '/^  time \(s\)/ {for (i = 1; i < NF; i++) t[$i] = $(i + 1)}
                END {printf "%s %s %s\n", t["prune"] ? t["prune"] : "-", t["encode"] ? t["encode"] : "-",
                     t["solve"] ? t["solve"] : "-"}' "$work/o")
            printf "%-10s %-4s %-4s %-8s %7s %7s %7s %7s %7s %9s\n" "$set" "$seed" "$iso" "$verdict" \
                "$cpu" "$mb" "$pr" "$en" "$so" "${amb:--}"
            echo "$set,$name,$seed,$iso,$verdict,$cpu,$mb,$pr,$en,$so,${amb:--}" >>"$out"
        done
    done
done
echo
echo "# median CPU s over seeds (max peak MiB)"
awk -F, 'NR > 1 {k = $1 "," $4; c[k] = c[k] " " $6; if ($7 > m[k]) m[k] = $7; n[k] = $2; v[k] = v[k] " " $5}
    END {for (k in c) {split(c[k], a, " "); asort(a); printf "%-30s %-10s %s median %s s, %s MiB;%s\n",
         n[k], substr(k, 1, index(k, ",") - 1), substr(k, index(k, ",") + 1), a[int((length(a) + 1) / 2)], m[k], v[k]}}' \
    "$out" | sort
