#!/usr/bin/env bash
# test_cli.sh: the q4cts command line as a user meets it.
#   usage: test_cli.sh Q4CTS SOURCE_DIR WORK_DIR MODE [MUTATION_SPV_DIR]
# MODE "usage": errors a user can cause (no device needed): one sentence, exit 2.
# MODE "run":   runs on the default device: reports, verdicts of injected faults,
#               a run killed midway, dumps and repro lines. Exit 77 if no device.
set -uo pipefail
q4cts=$1 src=$2 work=$3 mode=$4 mutations=${5:-}
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

if [ "$mode" = usage ]; then
  expect 0 '^q4cts [0-9]' -- "$q4cts" --version
  expect 0 'Usage: q4cts COMMAND' -- "$q4cts" --help
  expect 2 'no command given' -- "$q4cts"
  expect 2 "unknown command 'frobnicate'" -- "$q4cts" frobnicate
  expect 2 "unknown option '--bogus'" -- "$q4cts" run --bogus
  expect 2 'option --filter needs a value' -- "$q4cts" run --filter
  expect 2 "--shard expects I/N with 1 <= I <= N, got '0/2'" -- "$q4cts" list --shard 0/2
  expect 2 "--seed expects a whole number" -- "$q4cts" list --seed -3
  expect 2 "--repeat expects at least 1" -- "$q4cts" run --repeat 0
  expect 2 "unknown op 'nosuchop'" -- "$q4cts" list --filter q4cts.nosuchop.basic.m1
  expect 2 'N = 10 must be a multiple of 4' -- "$q4cts" list --filter q4cts.linear_q4gsw.custom.m5_n10_k16_g16
  expect 2 'no case matches the selection' -- "$q4cts" list --filter 'q4cts.fused_ce.*' --exclude 'q4cts.*'
  expect 2 'nonexistent.txt' -- "$q4cts" list --caselist nonexistent.txt
  printf 'q4cts.adamw_step.*\nthis is not a case\n' >bad.txt
  expect 2 'bad.txt:2' -- "$q4cts" list --caselist bad.txt
  expect 2 'runs several kernels' -- "$q4cts" run --kernel linear_q4gsw=x.spv
  expect 2 'no built-in kernel or op' -- "$q4cts" run --kernel nosuch=x.spv
  expect 2 'expects OP=FILE.spv' -- "$q4cts" run --kernel adamw_step
  printf 'not spirv at all, just text' >text.spv
  expect 2 'is not a SPIR-V module' -- "$q4cts" run --kernel adamw_step=text.spv
  expect 2 'cannot read missing.spv' -- "$q4cts" run --kernel adamw_step=missing.spv
  expect 2 'inject-fault expects' -- "$q4cts" run --inject-fault boom@1
  expect 0 'q4cts.linear_q4gsw_backward.odd_n4_partial_m.m5_n12_k16_g16' -- "$q4cts" list --caselist "$src/cases/smoke.txt"
  # Output that cannot be written is an error, not a silent exit 0.
  expect 2 'cannot write to standard output: No space left on device' -- bash -c "'$q4cts' list >/dev/full"
  # Shards are disjoint and their union is the whole list.
  checks=$((checks + 1))
  "$q4cts" list >all.txt && for i in 1 2 3; do "$q4cts" list --shard $i/3; done | sort >union.txt
  sort all.txt | cmp -s - union.txt || fail "the three shards' union differs from the whole list"
  [ "$(sort union.txt | uniq -d | wc -l)" -eq 0 ] || fail "shards overlap"
else
  if ! "$q4cts" devices >devices.txt 2>&1; then
    echo "no Vulkan device found: $(cat devices.txt)"; exit 77
  fi
  smoke="$src/cases/smoke.txt"
  expect 0 'Pass' -- "$q4cts" run --caselist "$smoke" --junit j.xml --json r.json
  checks=$((checks + 1))
  xmllint --noout --schema "$src/reports/junit-10.xsd" j.xml 2>/dev/null || fail "j.xml does not validate"
  n=$("$q4cts" list --caselist "$smoke" | wc -l)
  [ "$(grep -c '<testcase ' j.xml)" -eq "$n" ] || fail "j.xml does not hold $n testcases"
  if command -v python3 >/dev/null; then
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["q4cts"]["results"])==int(sys.argv[2])' r.json "$n" \
      || fail "r.json is not valid JSON with $n results"
  fi
  one='q4cts.adamw_step.wd_on.*'
  # A finished run's reports say how many cases were planned and that they are complete.
  checks=$((checks + 1))
  grep -q "\"planned\": $n, \"complete\": true" r.json || fail "r.json does not say planned $n, complete"
  grep -q '<property name="complete" value="true"/>' j.xml || fail "j.xml does not say complete"
  # A report path is never replaced by a file when it is not one: a link to a device is
  # written through (here a full one: the run is an ERROR, exit 2, never "result: PASS").
  ln -s /dev/full full.json
  expect 2 'JSON report could not be written: .*No space left on device' -- "$q4cts" run --filter "$one" --json full.json
  checks=$((checks + 1))
  grep -q '^result: PASS' out.txt && fail "a run whose report was lost says result: PASS"
  grep -q '^result: ERROR' out.txt || fail "a run whose report was lost does not say result: ERROR"
  [ -L full.json ] || fail "the link to /dev/full was replaced"
  mkdir adir
  expect 2 'report file adir is a directory' -- "$q4cts" run --filter "$one" --junit adir
  # Validation turned on from the environment shows in the reports and the repro line.
  expect 0 'Pass' -- env Q4CTS_VALIDATION=1 "$q4cts" run --filter "$one" --json v.json
  checks=$((checks + 1))
  grep -q '"validation": "on"' v.json || fail "Q4CTS_VALIDATION=1 is not in the report's properties"
  grep -q '"repro": "[^"]*--validation' v.json || fail "Q4CTS_VALIDATION=1 is not in the repro line"
  # A lost device is a Crash for its case only; the device is reopened for the next.
  expect 1 'Crash' -- "$q4cts" run --filter "$one" --filter 'q4cts.adamw_step.wd_off.*' --inject-fault lost@1
  grep -q 'Pass' out.txt || fail "no case passed after the device was lost and reopened"
  expect 1 'Timeout' -- "$q4cts" run --filter "$one" --inject-fault timeout@1
  expect 1 'ResourceError' -- "$q4cts" run --filter "$one" --inject-fault alloc@1
  # A worker that dies of a signal is a Crash for its case; a fresh worker runs the next.
  expect 1 'signal 11' -- "$q4cts" run --filter "$one" --filter 'q4cts.adamw_step.wd_off.*' --inject-fault crash@1
  grep -q 'Pass' out.txt || fail "no case passed after the worker crashed"
  # A run killed midway leaves a valid JUnit file holding the finished cases.
  checks=$((checks + 1))
  "$q4cts" run --junit killed.xml --filter 'q4cts.*' >/dev/null 2>&1 &
  pid=$!
  for _ in $(seq 1 600); do grep -q '<testcase ' killed.xml 2>/dev/null && break; sleep 0.1; done
  kill -9 $pid; wait $pid 2>/dev/null
  xmllint --noout --schema "$src/reports/junit-10.xsd" killed.xml 2>/dev/null || fail "killed.xml does not validate"
  grep -q '<testcase ' killed.xml || fail "killed.xml holds no finished case"
  grep -q '<property name="complete" value="false"/>' killed.xml || fail "killed.xml does not say it is incomplete"
  [ "$(ls | grep -c 'killed\.xml\.')" -eq 0 ] || fail "a temp file of killed.xml was left behind"
  # A failing case dumps .npy files and prints a repro line that fails again alone.
  if [ -n "$mutations" ] && [ -f "$mutations/adamw_no_bias_correction.spv" ]; then
    expect 1 'Fail' -- "$q4cts" run --filter "$one" --kernel "adamw_step=$mutations/adamw_no_bias_correction.spv" --dump-dir dumps
    checks=$((checks + 1))
    ls dumps/*/param.got.npy >/dev/null 2>&1 || fail "no dump of the failing case"
    head -c 6 "$(ls dumps/*/param.got.npy | head -1)" | grep -q NUMPY || fail "dump is not .npy"
    repro=$(grep -oE 'q4cts run --filter [^ ]+ --seed [0-9]+.*' out.txt | head -1)
    [ -n "$repro" ] || fail "no repro line"
    expect 1 'Fail' -- bash -c "${repro/q4cts/$q4cts}"
  fi
fi
echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
