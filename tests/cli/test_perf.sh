#!/usr/bin/env bash
# test_perf.sh: `q4cts perf` on the default device with tiny shapes (smoke: times on a
# CPU device are noise, so nothing here judges speed): it runs every op, writes JSON,
# and --baseline flags a case slower than a saved run by more than 10% (exit 1).
#   usage: test_perf.sh Q4CTS SOURCE_DIR WORK_DIR      (exit 77: no Vulkan device)
set -uo pipefail
q4cts=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
"$q4cts" devices >/dev/null 2>&1 || { echo "no Vulkan device found"; exit 77; }
. "$src/tests/cli/expect.sh"

"$q4cts" perf --caselist "$src/cases/perf-smoke.txt" --reps 3 --warmup 1 --warmup-ms 20 --json perf.json >out.txt 2>&1
rc=$?
cat out.txt
[ $rc -eq 0 ] || fail "perf exited $rc"
grep -q '^ceilings: copy [0-9.]* GB/s, fp32 FMA [0-9.]* TFLOP/s, one dispatch [0-9.]* us (3 reps, warm-up 1 runs and 20 ms)' out.txt ||
    fail "no ceilings line naming the reps and the warm-up"
n=$(grep -cv '^#' "$src/cases/perf-smoke.txt")
[ "$(grep -c '"median_ms": ' perf.json)" -eq "$n" ] || fail "perf.json does not time all $n cases"
grep -q '"error"' perf.json && fail "a perf case reported an error"
grep -q "^result: PASS, $n of $n cases timed, 0 errors, 0 regressions" out.txt || fail "no PASS summary line"
# The docs' table script reads this JSON: one table row per case.
if command -v python3 >/dev/null; then
    rows=$(python3 "$src/scripts/perf-join.py" perf.json | grep -c '^| q4cts\.')
    [ "$rows" -eq "$n" ] || fail "perf-join.py printed $rows rows, expected $n"
    # Its WGSL-beside-GLSL table (docs/perf.md) reads the same format from --api webgpu.
    rows=$(python3 "$src/scripts/perf-join.py" --wgsl perf.json perf.json | grep -c '^| q4cts\..* | 1\.00 |')
    [ "$rows" -eq "$n" ] || fail "perf-join.py --wgsl printed $rows rows of ratio 1.00, expected $n"
fi
# A baseline 1000x faster than anything measurable: every case is a regression.
sed -E 's/"median_ms": [0-9.e+-]+/"median_ms": 1e-9/' perf.json >fast.json
"$q4cts" perf --caselist "$src/cases/perf-smoke.txt" --reps 3 --warmup 1 --warmup-ms 0 --baseline fast.json >base.txt 2>&1
rc=$?
[ $rc -eq 1 ] || fail "perf against a faster baseline exited $rc, expected 1"
grep -q 'REGRESSION' base.txt || fail "no REGRESSION line against a faster baseline"
"$q4cts" perf --baseline missing.json >/dev/null 2>&1
[ $? -eq 2 ] || fail "a missing baseline file is not a set-up error (exit 2)"
# Each case runs in a child of its own: one that fails or crashes is an error row, and
# the run goes on to time the rest and writes a complete report.
"$q4cts" perf --caselist "$src/cases/perf-smoke.txt" --reps 2 --warmup-ms 0 --inject-fault crash@2 \
    --json crash.json >crash.txt 2>&1
rc=$?
[ $rc -eq 1 ] || fail "perf with a crashing case exited $rc, expected 1"
[ "$(grep -c 'error: the worker died of signal 11' crash.txt)" -eq "$n" ] ||
    fail "not every crashed case is an error row naming the signal"
[ "$(grep -c '"error": ' crash.json)" -eq "$n" ] || fail "crash.json does not hold all $n cases"
"$q4cts" perf --caselist "$src/cases/perf-smoke.txt" --reps 2 --warmup-ms 0 --inject-fault lost@2 >lost.txt 2>&1
[ $? -eq 1 ] && [ "$(grep -c 'error: .*VK_ERROR_DEVICE_LOST' lost.txt)" -eq "$n" ] ||
    fail "a lost device is not an error row for each case"
# SIGINT and SIGTERM stop perf as they stop run: exit 128 + the signal, a report that
# says why, and the summary line INCOMPLETE.
for sig in INT TERM; do
    rm -f sig.json
    "$q4cts" perf --caselist "$src/cases/perf-smoke.txt" --reps 3 --warmup 1 --warmup-ms 20 --json sig.json >sig.txt 2>&1 &
    pid=$!
    await '"median_ms"' sig.json $pid || fail "perf ended before SIG$sig could stop it"
    kill -$sig $pid; wait $pid; rc=$?
    want=$([ $sig = INT ] && echo 130 || echo 143)
    [ $rc -eq "$want" ] || fail "perf stopped by SIG$sig exited $rc, expected $want"
    grep -q "^result: INCOMPLETE (interrupted by SIG$sig), [0-9]* of $n cases timed" sig.txt ||
        fail "perf stopped by SIG$sig prints no INCOMPLETE summary: $(tail -2 sig.txt)"
    grep -q "\"stopped\": \"interrupted by SIG$sig\"" sig.json || fail "SIG$sig: sig.json does not say it was stopped"
done
"$q4cts" perf --warmup-ms 1.5 >err.txt 2>&1
[ $? -eq 2 ] && grep -q -- '--warmup-ms' err.txt || fail "a malformed --warmup-ms is not a usage error naming it"
echo "$failures failed"
[ "$failures" -eq 0 ]
