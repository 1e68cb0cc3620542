#!/usr/bin/env bash
# Runs the fuzz targets of a -DPSI_FUZZ=ON build, two at a time.
#
#   fuzz/run.sh BUILD_DIR SECONDS [TARGET...]     (default: every target)
#
# Seeds are (re)written by BUILD_DIR/fuzz/fuzz_seeds into
# BUILD_DIR/fuzz-seeds/; each target's growing corpus lives in
# BUILD_DIR/fuzz-corpus/TARGET/ and crashers land in
# BUILD_DIR/fuzz-artifacts/TARGET/. Logs: BUILD_DIR/fuzz-logs/TARGET.log.
# PSI_FUZZ_WORK puts seeds, corpora, artifacts and logs elsewhere;
# PSI_FUZZ_RUNS also stops a target after that many executions.
# Prints a line as each target starts and one per target at the end.
# Exits 1 if any target found a crash, a leak or a disagreement.
set -euo pipefail
build=${1:?usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
secs=${2:?usage: fuzz/run.sh BUILD_DIR SECONDS [TARGET...]}
shift 2
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(text dbcop edn json cobra awdit dimacs verdict witness timestamps)
work=${PSI_FUZZ_WORK:-$build}
src=$(cd "$(dirname "$0")/.." && pwd)

mkdir -p "$work/fuzz-logs"
"$build/fuzz/fuzz_seeds" "$work/fuzz-seeds"

run_one() {
    local t=$1
    local corpus=$work/fuzz-corpus/$t art=$work/fuzz-artifacts/$t
    mkdir -p "$corpus" "$art"
    local extra=() regress=()
    # Saved crashers (tests/fuzz_regress) are replayed first, under clang's
    # sanitizers too.
    [ -d "$src/tests/fuzz_regress/$t" ] && regress+=("$src/tests/fuzz_regress/$t")
    [ -n "${PSI_FUZZ_RUNS:-}" ] && extra+=(-runs="$PSI_FUZZ_RUNS")
    # -timeout: one input taking this long is a hang; -rss_limit_mb: the
    # readers refuse big inputs, so a fuzz input never needs more.
    ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=20 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -artifact_prefix="$art/" "${extra[@]}" \
        "$corpus" "$work/fuzz-seeds/$t" "${regress[@]}" >"$work/fuzz-logs/$t.log" 2>&1
}

fail=0
running=0
for t in "${targets[@]}"; do
    if [ $running -ge 2 ]; then
        wait -n || fail=1
        running=$((running - 1))
    fi
    # One line per target as it starts, so a long fuzz phase shows where it is.
    echo "fuzz: $t: started ($secs s${PSI_FUZZ_RUNS:+, at most $PSI_FUZZ_RUNS runs}; log $work/fuzz-logs/$t.log)"
    run_one "$t" &
    running=$((running + 1))
done
while [ $running -gt 0 ]; do
    wait -n || fail=1
    running=$((running - 1))
done
for t in "${targets[@]}"; do
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz-logs/$t.log" | grep -o '[0-9]*$' || true)
    secs_run=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$work/fuzz-logs/$t.log" | grep -o 'in [0-9]*' | grep -o '[0-9]*' || true)
    if grep -qE 'ERROR|DISAGREEMENT|fuzz check failed' "$work/fuzz-logs/$t.log"; then
        echo "fuzz: $t: FAILED after ${runs:-?} executions (log: $work/fuzz-logs/$t.log)"
    else
        echo "fuzz: $t: ${runs:-?} executions in ${secs_run:-?} s, no findings"
    fi
done
if [ $fail -ne 0 ]; then
    for t in "${targets[@]}"; do
        # The assertion or check message and the crasher itself (libFuzzer
        # prints small inputs in Base64): CI keeps only this output, so a
        # finding must be reproducible from it alone.
        grep -E 'ERROR|SUMMARY|DISAGREEMENT|fuzz check failed|Assertion|runtime error|^Base64:' \
            "$work/fuzz-logs/$t.log" | head -8 || true
    done
fi
exit $fail
