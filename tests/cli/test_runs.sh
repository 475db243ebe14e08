#!/usr/bin/env bash
# test_runs.sh: runs that scale, on the default device (issue 15): --jobs and
# --devices give the reports of a serial run, shards merged give them too,
# --flake-retries against a planted flaky kernel (--inject-fault flaky@N: every GPU run
# of a worker but each N-th reads back a wrong element, so flaky@2 fails every other
# run), --baseline's expected, unexpectedly passing and unexpectedly failing cases in
# console, JSON and JUnit, and the progress line on a terminal only. Exit 77: no device.
#   usage: test_runs.sh Q4CTS SOURCE_DIR WORK_DIR
set -uo pipefail
q4cts=$1 src=$2 work=$3
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# ---- the baseline file: malformed lines are named by FILE:LINE, exit 2, nothing runs ----
one=q4cts.dequantize.odd_n4.n12_k32_g32
a=q4cts.adamw_step.unaligned.n1023_t5_w1 c=q4cts.fused_ce.unaligned_v.r3_v7_p0
three=(--filter "$one" --filter "$a" --filter "$c")   # in this order: a, one, c
printf '# known\n\n%s,Fail\nq4cts.fused_ce.basic.r4_v128_p0 Fail\n' "$one" >nocomma.txt
expect 2 "nocomma.txt:4: 'q4cts.fused_ce.basic.r4_v128_p0 Fail' has no comma; expected CASE,VERDICT" -- "$q4cts" run --filter "$one" --baseline nocomma.txt
printf '%s,Failed\n' "$one" >verdict.txt
expect 2 "verdict.txt:1: 'Failed' is not a verdict; expected one of Pass, Fail, .*Flake" -- "$q4cts" run --filter "$one" --baseline verdict.txt
printf '%s,Fail\nq4cts.nosuchop.basic.n4,Fail\n' "$one" >op.txt
expect 2 "op.txt:2: case name 'q4cts.nosuchop.basic.n4': unknown op 'nosuchop'" -- "$q4cts" run --filter "$one" --baseline op.txt
printf '%s,Fail # a comment\n  %s , Crash\n' "$one" "$one" >twice.txt
expect 2 "twice.txt:2: case $one is listed again \(first on line 1\)" -- "$q4cts" run --filter "$one" --baseline twice.txt
printf '%s,Fail\x1b[2J\n' "$one" >esc.txt
expect 2 "esc.txt:1: '.*\\\\x1B\\[2J' has the byte 0x1B at column" -- "$q4cts" run --filter "$one" --baseline esc.txt
checks=$((checks + 1))
grep -q $'\x1b' out.txt && fail "a baseline's escape byte reached the terminal raw"
printf '%s,Fail\n\0\n' "$one" >nul.txt
expect 2 'nul.txt:2: the line holds a NUL byte' -- "$q4cts" run --filter "$one" --baseline nul.txt
expect 2 'cannot read the baseline missing.txt: No such file or directory' -- "$q4cts" run --filter "$one" --baseline missing.txt
# Option errors of this page's flags.
expect 2 "--jobs expects at least 1, got 0" -- "$q4cts" run --jobs 0
expect 2 "--jobs expects a whole number up to 256, got '300'" -- "$q4cts" run --jobs 300
expect 2 "--devices expects device selectors separated by commas \(as 0,1\), got '0,,1' with an empty one" -- "$q4cts" run --devices 0,,1
expect 2 'give --device or --devices, not both' -- "$q4cts" run --device 0 --devices 0,0
expect 2 "--devices '0,0,.*' is 1101 bytes; at most 1023" -- "$q4cts" run --devices "0$(printf ',0%.0s' $(seq 550))"
expect 2 '--devices names more than 64 devices' -- "$q4cts" run --devices "0$(printf ',0%.0s' $(seq 64))"
expect 2 "--flake-retries expects a whole number up to 100, got '-1'" -- "$q4cts" run --flake-retries -1
expect 2 "--inject-fault expects .* or flaky@N with N >= 2, got 'flaky@1'" -- "$q4cts" run --inject-fault flaky@1
expect 2 '--jobs, --devices, --flake-retries and --inject-fault flaky@N apply to run only, not list' -- "$q4cts" list --jobs 2
# WebGPU runs take --jobs and --flake-retries through the backend seam
# (harness.webgpu_seam); --devices it refuses, saying why.
expect 2 '--devices is not available with --api webgpu: Dawn picks the adapter' -- "$q4cts" run --api webgpu --devices 0,1

# A device is needed from here on.
"$q4cts" devices >devices.txt 2>&1
if ! grep -q '^0: ' devices.txt; then
  echo "no Vulkan device: skipping the runs"; echo "$checks checks, $failures failures"
  [ "$failures" -eq 0 ] && exit 77 || exit 1
fi

# results.json's results without what differs from run to run (times) and, with
# strip_repro, the --device the repro lines of a --devices run name.
results() { python3 - "$@" <<'PY'
import json, sys
rs = json.load(open(sys.argv[1]))["q4cts"]["results"]
for r in rs:
    for k in ("seconds", "gpu_ms", "truth_ms", "input_ms", "upload_ms", "readback_ms",
              "judge_ms", "truth_fused"): r.pop(k)
    if len(sys.argv) > 2: r["repro"] = r["repro"].split(" --device")[0]
print(json.dumps(rs, sort_keys=True, indent=0))
PY
}
# The JUnit document without times, the timestamp, the host and the run's properties.
junit_cases() { sed -e 's/ time="[^"]*"//g' -e 's/ timestamp="[^"]*"//; s/ hostname="[^"]*"//' \
  -e '/<property /d' -e '/^wall: /d; /^gpu: /d; /^truth: /d; /^inputs: /d' \
  -e '/^upload: /d; /^readback: /d; /^judge: /d' "$1"; }

# ---- --jobs and --devices: the reports of a serial run ----
list=$src/cases/smoke.txt
expect 0 'result: PASS, 0 of 12 cases not ok' -- "$q4cts" run --caselist "$list" --json serial.json --junit serial.xml
expect 0 'result: PASS, 0 of 12 cases not ok' -- "$q4cts" run --caselist "$list" --jobs 3 --json jobs.json --junit jobs.xml
checks=$((checks + 1))
diff <(results serial.json) <(results jobs.json) >/dev/null || fail "--jobs 3 results differ from the serial run's: $(diff <(results serial.json) <(results jobs.json) | head -5)"
checks=$((checks + 1))
diff <(junit_cases serial.xml) <(junit_cases jobs.xml) >/dev/null || fail "--jobs 3 JUnit differs from the serial run's: $(diff <(junit_cases serial.xml) <(junit_cases jobs.xml) | head -5)"
grep -q '<property name="workers" value="3"/>' jobs.xml || fail "the JUnit of --jobs 3 does not say workers 3"
expect 0 'validates' -- "$src/reports/validate-junit" jobs.xml
expect 0 'result: PASS, 0 of 12 cases not ok' -- "$q4cts" run --caselist "$list" --devices 0,0 --json devices.json
checks=$((checks + 1))
diff <(results serial.json strip) <(results devices.json strip) >/dev/null || fail "--devices 0,0 results differ from the serial run's"
grep -q "\"repro\": \"q4cts run --filter $one --seed 0 --device '0'\"" devices.json || fail "a --devices run's repro line does not name the device"
# A device that is not there stops the run before any case (the second worker's).
expect 2 'no Vulkan device matches "99"' -- "$q4cts" run "${three[@]}" --devices 0,99

# SIGTERM stops every worker; the reports are finished, say why, and hold the cases
# that were done.
checks=$((checks + 1))
"$q4cts" run --filter 'q4cts.*' --jobs 2 --json sig.json >sig.out 2>&1 &
pid=$!
await '"name"' sig.json $pid || fail "SIGTERM of --jobs 2: the run ended before it finished a case"
workers=$(pgrep -P $pid)
kill -TERM $pid; wait $pid; rc=$?
[ $rc -eq 143 ] || fail "SIGTERM of --jobs 2: exit $rc, expected 143"
grep -q '"complete": false, "stopped": "interrupted by SIGTERM"' sig.json || fail "SIGTERM of --jobs 2: sig.json does not say it was stopped"
grep -q '"name"' sig.json || fail "SIGTERM of --jobs 2: sig.json holds no case"
[ "$(echo $workers | wc -w)" -eq 2 ] || fail "--jobs 2 ran $(echo $workers | wc -w) workers"
for w in $workers; do alive "$w" && fail "SIGTERM of --jobs 2: the worker $w outlived the run"; done

# ---- --shard and merge: the reports of a serial run ----
for i in 1 2 3; do
  expect 0 'result: PASS' -- "$q4cts" run --caselist "$list" --shard $i/3 --json shard$i.json
done
expect 0 'merged 3 reports: 12 cases, 0 not ok$' -- "$q4cts" merge shard3.json shard1.json shard2.json --json merged.json --junit merged.xml
checks=$((checks + 1))
diff <(results serial.json) <(results merged.json) >/dev/null || fail "merged shards differ from the serial run"
checks=$((checks + 1))
diff <(junit_cases serial.xml) <(junit_cases merged.xml) >/dev/null || fail "merged JUnit differs from the serial run's: $(diff <(junit_cases serial.xml) <(junit_cases merged.xml) | head -5)"

# ---- flakes: flaky@2 fails a worker's 1st, 3rd, ... GPU run ----
verdicts() { python3 -c 'import json,sys; print(" ".join("%s/%s" % (r["verdict"], r["tries"]) for r in json.load(open(sys.argv[1]))["q4cts"]["results"]))' "$1"; }
# Without retries: runs 1 and 3 fail.
expect 1 'result: FAIL, 2 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --json noretry.json
checks=$((checks + 1))
[ "$(verdicts noretry.json)" = "Fail/1 Pass/1 Fail/1" ] || fail "flaky@2 without retries: $(verdicts noretry.json)"
# One retry: each case fails its first run and passes its second: three Flakes, a pass.
expect 0 'result: PASS, 0 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --flake-retries 1 --json flaky.json --junit flaky.xml
checks=$((checks + 1))
[ "$(verdicts flaky.json)" = "Flake/2 Flake/2 Flake/2" ] || fail "flaky@2 with a retry: $(verdicts flaky.json)"
grep -q '^flaky (failed, then passed on a retry):' out.txt || fail "the summary does not list the flakes"
grep -q '^  Flake           q4cts.dequantize.odd_n4.n12_k32_g32' out.txt || fail "the flaky case is not listed"
grep -q '"message": "passed on try 2 of 2; try 1 was Fail: ' flaky.json || fail "a Flake does not say which try passed"
grep -q '"Flake": 3' flaky.json || fail "the JSON summary does not count 3 Flake"
expect 0 'validates' -- "$src/reports/validate-junit" flaky.xml
grep -q 'tries: 2' flaky.xml || fail "the JUnit does not give a flake's tries"
# The same with two workers: each worker's runs fail alternately, the retry stays on it.
expect 0 'result: PASS, 0 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --flake-retries 1 --jobs 2 --json flaky2.json
checks=$((checks + 1))
[ "$(verdicts flaky2.json)" = "Flake/2 Flake/2 Flake/2" ] || fail "flaky@2 with a retry on 2 workers: $(verdicts flaky2.json)"
# A flake fails a strict run; a case that fails every try fails (flaky@3: runs 1, 2 fail).
expect 1 'result: FAIL, 3 of 3 cases not ok \(strict' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --flake-retries 1 --strict
expect 1 'failed all 2 tries' -- "$q4cts" run "${three[@]}" --inject-fault flaky@3 --flake-retries 1 --json three.json
checks=$((checks + 1))
[ "$(verdicts three.json)" = "Fail/2 Pass/1 Fail/2" ] || fail "flaky@3 with a retry: $(verdicts three.json)"
# A worker that crashes is replaced, and the case retried on the new one (whose device
# has no injected fault): a Flake whose first try was a Crash.
expect 0 'result: PASS' -- "$q4cts" run --filter "$one" --inject-fault crash@1 --flake-retries 2 --json crash.json
grep -q '"verdict": "Flake".*"message": "passed on try 2 of 3; try 1 was Crash: the worker died of signal' crash.json || fail "a crash then a pass is not a Flake"
# A lost device is reopened in the same worker and the case retried there.
expect 0 'result: PASS' -- "$q4cts" run --filter "$one" --inject-fault lost@1 --flake-retries 1 --json lost.json
grep -q '"verdict": "Flake".*try 1 was Crash: device lost: ' lost.json || fail "a lost device then a pass is not a Flake: $(grep -o '"message": "[^"]*"' lost.json)"

# ---- baselines: flaky@2 without retries gives Fail, Pass, Fail ----
printf '# the two that fail\n%s,Fail\n%s,Fail\n' "$a" "$c" >expected.txt
expect 0 'baseline: 3 as expected \(2 expected failures\), 0 unexpected pass, 0 unexpected fail' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --baseline expected.txt --json b0.json --junit b0.xml
grep -q 'result: PASS, 0 of 3 cases not ok against the baseline' out.txt || fail "a run matching its baseline does not pass"
grep -q "^Fail            $a .*(expected: baseline)" out.txt || fail "an expected failure is not marked"
expect 0 'validates' -- "$src/reports/validate-junit" b0.xml
grep -q '<skipped message="expected Fail (baseline): ' b0.xml || fail "an expected failure is not skipped in JUnit"
grep -q '<testsuite name="q4cts" tests="3" failures="0" errors="0" skipped="2"' b0.xml || fail "JUnit counts of a matching baseline: $(grep '<testsuite ' b0.xml)"
grep -q '"unexpected_pass": 0, "unexpected_fail": 0' b0.json || fail "JSON counts of a matching baseline"
grep -q '"baseline": "Fail", "surprise": null' b0.json || fail "JSON lacks a case's expected verdict"
# Only one expected: the other failure is unexpected.
printf '%s,Fail\n' "$a" >one.txt
expect 1 'baseline: 2 as expected \(1 expected failures\), 0 unexpected pass, 1 unexpected fail' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --baseline one.txt --json b1.json
grep -q "^unexpected fail:" out.txt && grep -q "^  Fail            $c  (baseline: Pass)" out.txt || fail "the unexpected failure is not listed"
grep -q '"surprise": "unexpected fail"' b1.json || fail "JSON does not mark the unexpected failure"
# All three expected to fail: the one that passes is an unexpected pass, and fails the run.
printf '%s,Fail\n%s,Fail\n%s,Crash\n' "$a" "$c" "$one" >all.txt
expect 1 'baseline: 2 as expected \(2 expected failures\), 1 unexpected pass, 0 unexpected fail' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --baseline all.txt --json b2.json --junit b2.xml
grep -q "^unexpected pass:" out.txt && grep -q "^  Pass            $one  (baseline: Crash)" out.txt || fail "the unexpected pass is not listed"
grep -q "UNEXPECTED PASS (baseline: Crash)" out.txt || fail "the unexpected pass's line does not say so"
grep -q '"unexpected_pass": 1, "unexpected_fail": 0' b2.json || fail "JSON counts of an unexpected pass"
grep -q '<failure message="unexpected pass: the baseline expects Crash, got Pass" type="UnexpectedPass">' b2.xml || fail "JUnit does not fail the unexpected pass"
expect 0 'validates' -- "$src/reports/validate-junit" b2.xml
# A listed Flake accepts a pass; compare reads the reports of baseline runs.
printf '%s,Flake\n%s,Fail\n%s,Fail\n' "$one" "$a" "$c" >flake.txt
expect 0 'result: PASS, 0 of 3 cases not ok against the baseline' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --baseline flake.txt
expect 1 'REGRESSION Pass -> Flake' -- "$q4cts" compare noretry.json flaky.json

# ---- progress: a live line with done/total, failures and an ETA on a terminal only ----
expect 1 'result: FAIL' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2
checks=$((checks + 1))
if grep -q $'\r\|\x1b\|ETA' out.txt; then fail "the output to a pipe has a live line"; fi
# On a terminal (on_tty.py: 200 columns, every byte read back however slow the machine):
# when the second case begins the first has failed (flaky@2 fails a worker's first
# run), so that case's live line counts one failure and has an ETA. The times on it
# are checked for their form only.
checks=$((checks + 1))
python3 "$src/tests/cli/on_tty.py" 200 "$q4cts" run "${three[@]}" --inject-fault flaky@2 >tty.txt 2>&1
grep -q $'\r\\[1/3\\] pass 0 fail 1 skip 0  [0-9.]*s  ETA [0-9hms]*  '"$one"$'\x1b\\[K' tty.txt ||
  fail "no live line [1/3] with failures and an ETA on a terminal: $(tr '\r' '\n' <tty.txt | grep ETA | head -3)"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
