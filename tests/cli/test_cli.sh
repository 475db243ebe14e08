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
  expect 2 "--shard expects I/N with 1 <= I <= N <= 1000000, got '0/2'" -- "$q4cts" list --shard 0/2
  # --shard never wraps around; a shard past the end of the list runs nothing and passes.
  expect 2 "--shard expects I/N with 1 <= I <= N <= 1000000, got '1/4294967297'" -- "$q4cts" list --shard 1/4294967297
  expect 2 "--shard expects .* got '4294967297/3'" -- "$q4cts" list --shard 4294967297/3
  expect 2 "--shard expects .* got ' 1/2'" -- "$q4cts" list --shard ' 1/2'
  checks=$((checks + 1))
  "$q4cts" list --shard 100000/100000 >out.txt 2>&1 || fail "an empty shard is an error: $(cat out.txt)"
  [ -s out.txt ] && fail "an empty shard lists cases"
  expect 0 'result: PASS, 0 of 0 cases not ok' -- "$q4cts" run --shard 1000000/1000000 --json empty-shard.json
  checks=$((checks + 1))
  grep -q '"planned": 0, "complete": true' empty-shard.json || fail "an empty shard's report is not complete with 0 planned"
  # Option errors name what the user typed.
  expect 2 "unknown option '-xyz'; options are long" -- "$q4cts" run -xyz
  expect 2 "option --strict takes no value, got '--strict=1'" -- "$q4cts" run --strict=1
  expect 2 "option '--s' is ambiguous: it could be --seed, --shard, --strict" -- "$q4cts" list --s 1
  expect 2 "unknown command 'frobnicate'" -- "$q4cts" frobnicate --help
  expect 0 'Usage: q4cts COMMAND' -- "$q4cts" run --help
  expect 0 '--inject-fault KIND@N' -- "$q4cts" --help
  expect 0 'OMP_NUM_THREADS=N in the environment sets the count' -- "$q4cts" --help
  expect 2 "--inject-fault expects KIND@N .* 1 <= N <= 2147483647, or flaky@N with N >= 2, got 'alloc@99999999999'" -- "$q4cts" run --inject-fault alloc@99999999999
  expect 0 'q4cts.adamw_step' -- "$q4cts" list --filter=q4cts.adamw_step.* --shard=1/1
  # Reports: one file each, and a name that is a name.
  expect 2 '--junit and --json name the same file x.xml' -- "$q4cts" run --junit x.xml --json x.xml
  expect 2 '--junit expects a file name, got an empty string' -- "$q4cts" run --junit ''
  # --dump-dir is made and checked before the run.
  : >afile
  expect 2 '--dump-dir afile is not a directory' -- "$q4cts" run --filter 'q4cts.adamw_step.*' --dump-dir afile
  expect 2 'cannot create --dump-dir afile/sub: Not a directory' -- "$q4cts" run --filter 'q4cts.adamw_step.*' --dump-dir afile/sub
  # Case lists: a leading byte-order mark is fine; a NUL, a mid-file mark or binary bytes
  # are named by file:line, escaped, never written raw to the terminal.
  printf '\xEF\xBB\xBFq4cts.adamw_step.*\n' >bom.txt
  expect 0 'q4cts.adamw_step' -- "$q4cts" list --caselist bom.txt
  printf 'q4cts.fused_ce.*\n\xEF\xBB\xBFq4cts.adamw_step.*\n' >bom2.txt
  expect 2 'bom2.txt:2: .\\uFEFFq4cts.adamw_step.\*. has the byte 0xEF at column 1' -- "$q4cts" list --caselist bom2.txt
  printf 'q4cts.adamw_step.*\0q4cts.fused_ce.*\n' >nul.txt
  expect 2 'nul.txt:1: the line holds a NUL byte at column 19' -- "$q4cts" list --caselist nul.txt
  printf 'q4cts.\x1b[31mred\x07\n' >esc.txt
  expect 2 "esc.txt:1: 'q4cts.\\\\x1B\\[31mred\\\\x07' has the byte 0x1B at column 7" -- "$q4cts" list --caselist esc.txt
  checks=$((checks + 1))
  grep -q $'\x1b' out.txt && fail "a case list's escape byte reached the terminal raw"
  expect 2 "--filter 'q4cts.\\\\x1B.*' has the byte 0x1B" -- "$q4cts" list --filter $'q4cts.\x1b*'
  expect 2 "--seed expects a whole number" -- "$q4cts" list --seed -3
  expect 2 "--repeat expects at least 1" -- "$q4cts" run --repeat 0
  expect 2 "unknown op 'nosuchop'" -- "$q4cts" list --filter q4cts.nosuchop.basic.m1
  expect 2 'N = 10 must be a multiple of 4' -- "$q4cts" list --filter q4cts.linear_q4gsw.custom.m5_n10_k16_g16
  # out-of-contract value classes: the contract's sentence, exit 2, nothing runs (SPEC §1, §2)
  expect 2 'scales\[14\] = 5.87747e-39 is denormal; a scale must be 0 or at least 2\^-126' -- "$q4cts" run --filter q4cts.dequantize.custom.n16_k32_g32.scale_denormal
  expect 2 'scales\[2\] = -inf must be finite' -- "$q4cts" run --filter q4cts.linear_q4gsw.custom.m2_n16_k32_g32.scale_inf
  expect 2 'scales\[.*\] = nan must be finite' -- "$q4cts" run --filter q4cts.q4gsw_requant.custom.n16_k32_g32.scale_nan
  expect 2 'labels\[1\] = 8 is out of range: expected a class below V = 8' -- "$q4cts" run --filter q4cts.fused_ce.custom.r4_v8_p0.label_v
  expect 2 'n_valid = 0 must be a finite number greater than 0' -- "$q4cts" run --filter q4cts.fused_ce.custom.r4_v8_p0.n_valid_zero
  expect 2 'n_valid = -1 must be' -- "$q4cts" run --filter q4cts.fused_ce.custom.r4_v8_p0.n_valid_negative
  expect 2 'n_valid = nan must be' -- "$q4cts" run --filter q4cts.fused_ce.custom.r4_v8_p0.n_valid_nan
  expect 2 'n_valid = inf must be' -- "$q4cts" run --filter q4cts.fused_ce.custom.r4_v8_p0.n_valid_inf
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
  # A folder where a file is expected: "Is a directory", exit 2, for every file option.
  mkdir adir
  expect 2 'cannot read .*adir: Is a directory' -- "$q4cts" run --filter q4cts.dequantize.odd_n4.n12_k32_g32 --kernel dequantize=adir
  expect 2 "cannot read case list 'adir': Is a directory" -- "$q4cts" list --caselist adir
  expect 2 'cannot read the baseline adir: Is a directory' -- "$q4cts" perf --baseline adir
  # perf --baseline takes only a perf report it can compare with, checked before any run.
  # baseline_refused FILE PRINTF_FORMAT PATTERN [OPTION...]: perf --baseline FILE, FILE
  # written by printf, exits 2 with PATTERN.
  baseline_refused() {
    local file=$1 format=$2 pattern=$3; shift 3
    # shellcheck disable=SC2059  # the format is the file's bytes, escapes included
    printf "$format" >"$file"
    expect 2 "$pattern" -- "$q4cts" perf --baseline "$file" "$@"
  }
  baseline_refused empty.json '' 'the baseline empty.json is empty; expected the --json of a .q4cts perf. run'
  baseline_refused random.json '\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR' 'the baseline random.json is not JSON'
  baseline_refused run.json '{"q4cts": {"format": 1, "results": []}}\n' "the baseline run.json is a 'q4cts run' report"
  baseline_refused nomedian.json '{"q4cts_perf": {"format": 1, "results": [{"name": "q4cts.adamw_step.wd_on.n1"}]}}\n' \
    'result 1 has no "median_ms" number'
  baseline_refused other.json '{"q4cts_perf": {"format": 1, "results": [{"name": "q4cts.nosuch.x.y", "median_ms": 1.5}]}}\n' \
    'times none of the 1 selected cases' --filter q4cts.dequantize.odd_n4.n12_k32_g32
  # A long argument is shortened in the message, so the reason stays in it.
  long=$(printf 'long%.0s' $(seq 1 800))
  expect 2 "cannot open case list 'longlong.*\.\.\..*longlong/c\.txt': File name too long" -- "$q4cts" list --caselist "$long/c.txt"
  expect 2 'cannot read the baseline longlong.*: File name too long' -- "$q4cts" perf --baseline "$long"
  expect 2 'cannot read longlong.*: File name too long' -- "$q4cts" run --kernel "adamw_step=$long"
  expect 2 "--filter 'q4cts.adamw_step.longlong.*\\.\\.\\..*longlong' is 3217 bytes; a name or glob is at most 256" -- "$q4cts" list --filter "q4cts.adamw_step.$long"
  printf 'q4cts.adamw_step.%s\n' "$long" >longline.txt
  expect 2 "longline.txt:1: 'q4cts.adamw_step.longlong.*' is 3217 bytes; a name or glob is at most 256" -- "$q4cts" list --caselist longline.txt
  expect 2 "--kernel expects OP=FILE.spv, got 'adamw_steplonglong.*\\.\\.\\..*longlong'" -- "$q4cts" run --kernel "adamw_step$long"
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
  # junit_valid FILE [WHO]: FILE validates against the committed JUnit schema.
  junit_valid() {
    xmllint --noout --schema "$src/reports/junit-10.xsd" "$1" 2>/dev/null || fail "${2:+$2: }$1 does not validate"
  }
  expect 0 'Pass' -- "$q4cts" run --caselist "$smoke" --junit j.xml --json r.json
  checks=$((checks + 1))
  junit_valid j.xml
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
  # --shader-coverage: each kernel's figures go into the JUnit properties and the JSON
  # too, the same as the lcov file's (and the JUnit still validates).
  expect 0 'adamw_step +[0-9.]+% of +[0-9]+ lines' -- env LP_NUM_THREADS=1 "$q4cts" run --filter "$one" \
    --shader-coverage cov.info --junit cov.xml --json cov.json
  checks=$((checks + 1))
  junit_valid cov.xml
  read -r hit lines < <(awk '/^SF:/ { own = $0 ~ /adamw_step.comp$/ }
    own && /^DA:/ { n++; split(substr($0, 4), d, ","); if (d[2] > 0) h++ } END { print h + 0, n + 0 }' cov.info)
  [ "$lines" -gt 0 ] && [ "$hit" -gt 0 ] || fail "cov.info has no line of adamw_step.comp that ran"
  # The kernel's figures count its included files too (q4_fold.glsl): at least the
  # .comp file's own lines, and the same in the JUnit and the JSON.
  read -r khit klines < <(sed -n 's/.*"kernel": "adamw_step", "override": false, "lines": \([0-9]*\), "lines_hit": \([0-9]*\), .*/\2 \1/p' cov.json)
  [ -n "$klines" ] && [ "$klines" -ge "$lines" ] && [ "$khit" -ge "$hit" ] \
    || fail "cov.json has no shader_coverage entry for adamw_step with at least $hit/$lines lines"
  grep -qE "<property name=\"shader_coverage.adamw_step\" value=\"lines $khit/$klines, branches [0-9]+/[0-9]+, blocks [0-9]+/[0-9]+\"/>" cov.xml \
    || fail "cov.xml has no shader_coverage.adamw_step property of $khit/$klines lines"
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
  grep -q 'watchdog of 60000 ms' out.txt || fail "the default watchdog is not 60 s: $(cat out.txt)"
  # the race probes slow dispatches down: their default watchdog is 300 s; --timeout rules
  expect 1 'watchdog of 300000 ms' -- "$q4cts" run --filter "$one" --race-check --inject-fault timeout@1
  expect 1 'watchdog of 7000 ms' -- "$q4cts" run --filter "$one" --race-check --timeout 7 --inject-fault timeout@1
  expect 1 'ResourceError' -- "$q4cts" run --filter "$one" --inject-fault alloc@1
  # A worker that dies of a signal is a Crash for its case; a fresh worker runs the next.
  expect 1 'signal 11' -- "$q4cts" run --filter "$one" --filter 'q4cts.adamw_step.wd_off.*' --inject-fault crash@1
  grep -q 'Pass' out.txt || fail "no case passed after the worker crashed"
  # A worker that crashes releasing the device after its last case: every case keeps its
  # verdict, but the run is an ERROR (exit 1) and its reports say it did not end cleanly.
  expect 1 'result: ERROR \(the worker died of signal 11 .* after the last case, releasing the device\)' -- \
    "$q4cts" run --filter "$one" --inject-fault teardown@1 --junit td.xml --json td.json
  checks=$((checks + 1))
  grep -q '^Pass ' out.txt || fail "the cases before a teardown crash lost their verdicts"
  grep -q '"complete": false, "stopped": "the worker died of signal 11' td.json || fail "td.json does not say the worker crashed"
  grep -q '<property name="stopped" value="the worker died of signal 11' td.xml || fail "td.xml does not say the worker crashed"
  junit_valid td.xml
  # A run killed midway leaves a valid JUnit file holding the finished cases.
  checks=$((checks + 1))
  "$q4cts" run --junit killed.xml --filter 'q4cts.*' >/dev/null 2>&1 &
  pid=$!
  await '<testcase ' killed.xml $pid || fail "the run ended before it finished a case"
  kill -9 $pid; wait $pid 2>/dev/null
  junit_valid killed.xml
  grep -q '<testcase ' killed.xml || fail "killed.xml holds no finished case"
  grep -q '<property name="complete" value="false"/>' killed.xml || fail "killed.xml does not say it is incomplete"
  [ "$(ls | grep -c 'killed\.xml\.')" -eq 0 ] || fail "a temp file of killed.xml was left behind"
  # SIGINT and SIGTERM: the worker is stopped, the reports are finished and say why,
  # the summary is printed, and the exit status is 128 + the signal.
  for sig in INT TERM; do
    checks=$((checks + 1))
    rm -f sig.xml sig.json
    "$q4cts" run --filter 'q4cts.*' --junit sig.xml --json sig.json >sig.out 2>&1 &
    pid=$!
    await '<testcase ' sig.xml $pid || fail "SIG$sig: the run ended before it finished a case"
    worker=$(pgrep -P $pid | head -1)
    kill -$sig $pid; wait $pid; rc=$?
    want=$([ $sig = INT ] && echo 130 || echo 143)
    [ $rc -eq "$want" ] || fail "SIG$sig: exit $rc, expected $want"
    grep -q "^result: INCOMPLETE (interrupted by SIG$sig)" sig.out || fail "SIG$sig: no INCOMPLETE summary"
    grep -q "\"complete\": false, \"stopped\": \"interrupted by SIG$sig\"" sig.json || fail "SIG$sig: sig.json does not say it was stopped"
    grep -q "<property name=\"stopped\" value=\"interrupted by SIG$sig\"/>" sig.xml || fail "SIG$sig: sig.xml does not say it was stopped"
    junit_valid sig.xml "SIG$sig"
    [ -n "$worker" ] && alive "$worker" && fail "SIG$sig: the worker $worker outlived the run"
  done
  # A parent killed outright takes its worker with it, even mid-case (a case of seconds):
  # on a terminal (on_tty.py), the live line of the case says that the worker began it.
  checks=$((checks + 1))
  python3 "$src/tests/cli/on_tty.py" 200 "$q4cts" run --filter q4cts.linear_q4gsw.custom.m512_n2048_k4096_g32 >kill9.txt 2>&1 &
  tty=$!
  await '\[0/1\]' kill9.txt $tty
  pid=$(pgrep -P $tty | head -1)
  worker=$([ -n "$pid" ] && pgrep -P "$pid" | head -1)
  if [ -z "$worker" ]; then fail "no worker found under the run: $(tr '\r' '\n' <kill9.txt | tail -3)"
  else
    kill -9 "$pid"
    gone "$worker" || { fail "the worker $worker outlived its killed parent"; kill -9 "$worker"; }
  fi
  wait $tty 2>/dev/null
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
