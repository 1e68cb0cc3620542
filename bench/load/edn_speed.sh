#!/usr/bin/env bash
# EDN reader speed, before and after a change: CPU seconds (user+sys),
# MB/s and bytes per operation of `polysi-solve stats` (load + count) on a
# large generated EDN history, and callgrind instruction counts on a
# smaller one. Usage:
#   bench/load/edn_speed.sh OLD_BIN NEW_BIN [SIZE_TXNS_PER_SESSION]
# OLD_BIN/NEW_BIN: two Release builds of polysi-solve. The history is
# generated once (by NEW_BIN) into $PSI_BENCH_TMP (default /tmp) and kept.
# Default: 50 sessions x 40000 transactions x 15 ops (about 1 GB of EDN).
set -euo pipefail
old=$1 new=$2 txns=${3:-40000}
tmp=${PSI_BENCH_TMP:-/tmp}
big=$tmp/psi-edn-bench-$txns.edn
small=$tmp/psi-edn-bench-small.edn
[ -s "$big" ] || "$new" generate --sessions 50 --txns "$txns" --ops 15 --keys 1000000 \
    --dist uniform --format edn "$big" 2>/dev/null
[ -s "$small" ] || "$new" generate --sessions 20 --txns 500 --ops 15 --keys 10000 \
    --format edn "$small" 2>/dev/null
bytes=$(stat -c %s "$big")
ops=$("$new" stats --json "$big" | tr ',' '\n' | grep -m1 '"operations"' | tr -dc 0-9)
echo "input: $big, $bytes bytes, $ops operations ($((bytes / ops)) bytes/op); load: $(uptime | sed 's/.*load average: //')"
for bin in "$old" "$new"; do
    # PSI_BENCH_WARM=1: a first run warms the page cache (the input is
    # read once either way; CPU time barely depends on it).
    [ -z "${PSI_BENCH_WARM:-}" ] || "$bin" stats "$big" >/dev/null
    t=$( { /usr/bin/time -f "%U %S %M" "$bin" stats "$big" >/dev/null; } 2>&1 | tail -1)
    read -r u s m <<<"$t"
    cpu=$(echo "$u + $s" | bc)
    echo "$bin: CPU $cpu s (user $u, sys $s), $(echo "scale=1; $bytes / 1000000 / $cpu" | bc) MB/s, peak RSS $((m / 1024)) MB"
done
if command -v valgrind >/dev/null; then
    for bin in "$old" "$new"; do
        out=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" stats "$small" 2>&1 >/dev/null |
              grep -o 'refs: *[0-9,]*' | tr -dc 0-9)
        echo "$bin: callgrind $out instructions on $small ($(stat -c %s "$small") bytes)"
    done
fi
