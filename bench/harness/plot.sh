#!/usr/bin/env bash
# Plots and tables from a harness run: bench/harness/plot.sh DIR
# (DIR holds fig5.csv, fig8.csv, fig9.csv, fig10.csv as written by run.sh;
# missing ones are skipped). Writes DIR/plots/*.svg and *.png (gnuplot) and
# DIR/summary.md (markdown tables, including Table 3 next to the paper's).
set -euo pipefail
dir=${1:?usage: plot.sh DIR}
mkdir -p "$dir/plots" "$dir/data"
P=$dir/plots
D=$dir/data
# CSV columns (1-based), as in run.sh's HEADER
# 1 experiment 2 point 3 x 4 source 5 isolation 6 variant 7 verdict 8 cpu_s
# 9 wall_s 10 maxrss_mb 11 peak_mb 12 load_s 13 validate_s 14 construct_s
# 15 prune_s 16 encode_s 17 solve_s 18 txns 19 ops 20 known_before
# 21 known_after 22 constraints_before 23 constraints_generated
# 24 constraints_after 25 unknown_before 26 unknown_after 27 conflicts 28 gen_cpu_s

# render NAME WIDTH HEIGHT < gnuplot-body: NAME.svg and NAME.png
render() {
    local name=$1 w=$2 h=$3 body
    body=$(cat)
    gnuplot <<EOF
set terminal svg size $w,$h dynamic enhanced font "Helvetica,13" background rgb "white"
set output "$P/$name.svg"
$body
EOF
    gnuplot <<EOF
set terminal pngcairo size $w,$h enhanced font "Helvetica,11" background rgb "white"
set output "$P/$name.png"
$body
EOF
}

summary=$dir/summary.md
{
    echo "# Harness results"
    echo
    sed 's/^# /    /' "$dir/machine.txt" 2>/dev/null || true
    echo
} >"$summary"

ok='$7 == "accept" || $7 == "reject"'

# ---------------------------------------------------------------- Fig. 5/6
if [ -s "$dir/fig5.csv" ] && [ "$(wc -l <"$dir/fig5.csv")" -gt 1 ]; then
    for axis in sessions txns ops reads keys dist; do
        for src in corpus generated; do
            awk -F, -v a=$axis -v s=$src "NR > 1 && \$6 == a && \$4 == s && ($ok) {
                x = \$3; lab = \$3
                if (a == \"dist\") x = (\$3 == \"uniform\" ? 0 : \$3 == \"zipf\" ? 1 : 2)
                print x, \$8, \$10, \$9, lab }" "$dir/fig5.csv" | sort -g >"$D/fig5_${axis}_$src.dat"
        done
    done
    panels() { # column, y label
        local col=$1 ylab=$2 axis title xl
        for axis in sessions txns ops reads keys dist; do
            case $axis in
            sessions) title="(a) sessions"; xl="#sessions" ;;
            txns) title="(b) transactions per session"; xl="#txns/session" ;;
            ops) title="(c) operations per transaction"; xl="#ops/txn" ;;
            reads) title="(d) read proportion"; xl="fraction of reads" ;;
            keys) title="(e) keys"; xl="#keys" ;;
            dist) title="(f) key distribution"; xl="distribution" ;;
            esac
            echo "set title '$title'; set xlabel '$xl'; set ylabel '$ylab'"
            # one legend, in panel (a), whose top left stays empty (times grow)
            if [ $axis = sessions ]; then echo "set key top left box opaque"; else echo "unset key"; fi
            if [ $axis = dist ]; then
                echo "set xrange [-0.5:2.5]; set xtics ('uniform' 0, 'zipf' 1, 'hotspot' 2)"
            else
                echo "set autoscale x; set xtics autofreq"
            fi
            echo "plot '$D/fig5_${axis}_corpus.dat' using 1:$col with linespoints lw 2 pt 7 title 'PostgreSQL history (artifact)', \\"
            echo "     '$D/fig5_${axis}_generated.dat' using 1:$col with linespoints lw 2 pt 5 dt 2 title 'generated (our SI store)'"
        done
    }
    {
        echo "set multiplot layout 2,3 title 'polysi-solve: checking time under SI (cf. PolySI Fig. 5); CPU time, user+sys'"
        echo "set grid; set yrange [0:*]"
        panels 2 "CPU time (s)"
        echo "unset multiplot"
    } | render fig5_time 1500 1000
    {
        echo "set multiplot layout 2,3 title 'polysi-solve: memory under SI (cf. PolySI Fig. 6); peak resident set size'"
        echo "set grid; set yrange [0:*]"
        panels 3 "peak RSS (MB)"
        echo "unset multiplot"
    } | render fig6_memory 1500 1000
    {
        echo "## Fig. 5/6: time and memory against workload parameters (SI)"
        echo
        echo "| point (S_T_O_K_R_D) | axis | source | verdict | CPU s | wall s | peak RSS MB | constraints after pruning |"
        echo "|---|---|---|---|---:|---:|---:|---:|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $6, $4, $7, $8, $9, $10, $24 }' "$dir/fig5.csv"
        echo
    } >>"$summary"
fi

# ---------------------------------------------------------------- Fig. 8 and Table 3
if [ -s "$dir/fig8.csv" ] && [ "$(wc -l <"$dir/fig8.csv")" -gt 1 ]; then
    for iso in si ser; do
        awk -F, -v i=$iso "NR > 1 && \$5 == i && ($ok) { print \$2, \$12, \$13, \$14, \$15, \$16, \$17 }" \
            "$dir/fig8.csv" >"$D/fig8_$iso.dat"
    done
    {
        echo "set multiplot layout 1,2 title 'polysi-solve: time per stage (cf. PolySI Fig. 8); wall time of each stage'"
        echo "set style data histograms; set style histogram rowstacked; set style fill solid 0.85 border -1"
        echo "set boxwidth 0.7; set grid y; set ylabel 'time (s)'; set yrange [0:*]; set xtics rotate by -30"
        echo "set key top left"
        for iso in si ser; do
            echo "set title '$( [ $iso = si ] && echo 'snapshot isolation' || echo 'serializability')'"
            echo "plot '$D/fig8_$iso.dat' using 2:xtic(1) title 'load', '' using 3 title 'validate', '' using 4 title 'construct', '' using 5 title 'prune', '' using 6 title 'encode', '' using 7 title 'solve'"
        done
        echo "unset multiplot"
    } | render fig8_stages 1400 600
    {
        echo "## Fig. 8: stage decomposition (seconds, checker's own stage clocks)"
        echo
        echo "| history | isolation | verdict | load | validate | construct | prune | encode | solve | total CPU s | peak RSS MB |"
        echo "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %s | %s |\n", $2, $5, $7, $12, $13, $14, $15, $16, $17, $8, $10 }' "$dir/fig8.csv"
        echo
        echo "## Table 3: pruning effectiveness (SI)"
        echo
        echo "Ours: constraints = writer pairs of the polygraph (constraints_before) ->"
        echo "constraints left after pruning; unknown dependencies before -> after."
        echo "Paper (PolySI Table 3) in brackets."
        echo
        echo "| history | constraints before | after | unknown deps before | after | paper constraints | paper unknown deps |"
        echo "|---|---:|---:|---:|---:|---|---|"
        awk -F, 'BEGIN {
                p["TPC-C"] = "386k -> 0|3628k -> 0"; p["GeneralRH"] = "4k -> 29|39k -> 77"
                p["RUBiS"] = "14k -> 149|171k -> 839"; p["C-Twitter"] = "59k -> 277|307k -> 776"
                p["GeneralRW"] = "90k -> 2565|401k -> 5435"; p["GeneralWH"] = "167k -> 6962|468k -> 14376" }
            NR > 1 && $5 == "si" { printf "| %s | %s | %s | %s | %s | %s |\n", $2, $22, $24, $25, $26, p[$2] }' "$dir/fig8.csv"
        echo
    } >>"$summary"
fi

# ---------------------------------------------------------------- Fig. 9
if [ -s "$dir/fig9.csv" ] && [ "$(wc -l <"$dir/fig9.csv")" -gt 1 ]; then
    # one row per history: CPU seconds of default, no-P, no-C-no-P, then a
    # label per bar ("T/O" when the run hit the time limit: its bar shows the
    # CPU time spent until then, a lower bound)
    awk -F, 'NR > 1 { v = $8 < 0.01 ? 0.01 : $8
                      if (!($2 in seen)) { seen[$2] = 1; order[++n] = $2 }
                      t[$2, $6] = v; l[$2, $6] = ($7 == "accept" || $7 == "reject") ? "\"\"" : "\"" ($7 == "timeout" ? "T/O" : $7) "\"" }
             END { for (i = 1; i <= n; i++) { h = order[i]
                     printf "%s %s %s %s %s %s %s\n", h, t[h, "default"], t[h, "no-P"], t[h, "no-C-no-P"],
                            l[h, "default"], l[h, "no-P"], l[h, "no-C-no-P"] } }' \
        "$dir/fig9.csv" >"$D/fig9.dat"
    {
        echo 'set title "polysi-solve: effect of pruning (P) and coalescing (C) under SI (cf. PolySI Fig. 9)\nT/O: the run hit the time limit; its bar is the CPU time spent until then"'
        echo "set style data histograms; set style histogram clustered gap 1; set style fill solid 0.85 border -1"
        echo "set logscale y; set yrange [0.005:*]; set grid y; set ylabel 'CPU time (s, log scale; floor 0.01)'"
        echo "set xlabel 'history'; set key top left"
        echo "plot '$D/fig9.dat' using 2:xtic(1) title 'polysi-solve', '' using 3 title 'without P', '' using 4 title 'without C and P', \\"
        echo "     '' using (\$0 - 0.25):(\$2 * 1.3):5 with labels notitle, '' using (\$0):(\$3 * 1.3):6 with labels notitle, '' using (\$0 + 0.25):(\$4 * 1.3):7 with labels notitle"
    } | render fig9_pruning 1100 600
    {
        echo "## Fig. 9: with and without pruning (P) and coalescing (C), SI"
        echo
        echo "| history | variant | verdict | CPU s | wall s | peak RSS MB | constraints to solver | solve s |"
        echo "|---|---|---|---:|---:|---:|---:|---:|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $6, $7, $8, $9, $10, $24, $17 }' "$dir/fig9.csv"
        echo
    } >>"$summary"
fi

# ---------------------------------------------------------------- Fig. 10
if [ -s "$dir/fig10.csv" ] && [ "$(wc -l <"$dir/fig10.csv")" -gt 1 ]; then
    for v in default long reads; do
        awk -F, -v v=$v "NR > 1 && \$6 == v && ($ok) { print \$3, \$8, \$10, \$18, \$19 }" \
            "$dir/fig10.csv" | sort -g >"$D/fig10_$v.dat"
    done
    {
        echo "set multiplot layout 1,3 title 'polysi-solve: scalability under SI (cf. PolySI Fig. 10); generated, 20 sessions, zipfian over 10^6 keys'"
        echo "set grid; set ytics nomirror; set y2tics; set key below; set bmargin 6"
        echo "set ylabel 'CPU time (s)'; set y2label 'peak RSS (MB)'; set yrange [0:*]; set y2range [0:*]"
        echo "set title '(a) committed transactions (15 ops/txn)'; set xlabel '#committed transactions'; set logscale x"
        echo "plot '$D/fig10_default.dat' using 1:2 with linespoints lw 2 pt 7 title 'time', '' using 1:3 axes x1y2 with linespoints lw 2 pt 5 dt 2 title 'memory'"
        echo "unset logscale x"
        echo "set title '(b) long transactions (10% of them)'; set xlabel 'operations per long transaction'"
        echo "plot '$D/fig10_long.dat' using 1:2 with linespoints lw 2 pt 7 title 'time', '' using 1:3 axes x1y2 with linespoints lw 2 pt 5 dt 2 title 'memory'"
        echo "set title '(c) read proportion (a missing point hit the time limit)'; set xlabel 'fraction of reads'"
        echo "plot '$D/fig10_reads.dat' using 1:2 with linespoints lw 2 pt 7 title 'time', '' using 1:3 axes x1y2 with linespoints lw 2 pt 5 dt 2 title 'memory'"
        echo "unset multiplot"
    } | render fig10_scalability 1600 620
    {
        echo "## Fig. 10: scalability (generated, SI store, zipfian over 10^6 keys, 20 sessions)"
        echo
        echo "| point | verdict | recorded txns (with aborted attempts) | operations | generate CPU s | check CPU s | wall s | peak RSS MB | constraints after pruning |"
        echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
        awk -F, 'NR > 1 { printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $2, $7, $18, $19, $28, $8, $9, $10, $24 }' "$dir/fig10.csv"
        echo
    } >>"$summary"
fi
echo "plots in $P, tables in $summary" >&2
