#!/usr/bin/env bash
# fuzz/run.sh as the test command's fuzz phase uses it, with stub targets
# (no libFuzzer build needed): it prints one line per target as the target
# starts, before any finishes, and one summary line per target at the end.
set -euo pipefail
src=${1:?usage: run_lines.sh SOURCE_ROOT}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/build/fuzz"
cat >"$work/build/fuzz/fuzz_seeds" <<'STUB'
#!/bin/sh
mkdir -p "$1"
STUB
for t in text dbcop edn; do
    # A stub target: waits a moment, prints libFuzzer's final stats.
    cat >"$work/build/fuzz/fuzz_$t" <<'STUB'
#!/bin/sh
sleep 1
echo "stat::number_of_executed_units: 42"
echo "Done 42 runs in 1 second(s)"
STUB
done
chmod +x "$work/build/fuzz/"*
out=$("$src/fuzz/run.sh" "$work/build" 1 text dbcop edn)
echo "$out"
for t in text dbcop edn; do
    echo "$out" | grep -q "^fuzz: $t: started (1 s" || { echo "FAIL: no start line for $t"; exit 1; }
    echo "$out" | grep -q "^fuzz: $t: 42 executions" || { echo "FAIL: no end line for $t"; exit 1; }
done
# Each target's start line comes before the first end line of a target
# started after it (two run at a time): 'edn' starts after 'text' ends.
first_end=$(echo "$out" | grep -n "executions" | head -1 | cut -d: -f1)
text_start=$(echo "$out" | grep -n "^fuzz: text: started" | cut -d: -f1)
[ "$text_start" -lt "$first_end" ] || { echo "FAIL: start lines not printed as targets start"; exit 1; }
echo "ok"
