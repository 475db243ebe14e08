#!/usr/bin/env bash
# test_webgpu_seam.sh: what the backend seam gives WebGPU runs that only Vulkan runs had:
# the supervisor's --jobs, --flake-retries and --inject-fault flaky@N, judged as
# tests/cli/test_runs.sh judges them on Vulkan (same cases, same verdicts), with
# --baseline and --shard; dumps that
# name their API and replay on it; and the options WebGPU still refuses, each with its
# reason.
#   usage: test_webgpu_seam.sh Q4CTS SOURCE_DIR WORK_DIR ICD
# Exit 77 only when Node.js, Dawn's package or Mesa 25's lavapipe is missing outside CI
# (tests/needs.sh).
set -uo pipefail
q4cts=$1 src=$2 work=$3 icd=$4
. "$src/tests/needs.sh" webgpu "$src" "$icd"
. "$src/tests/cli/expect.sh"
export VK_DRIVER_FILES=$icd
unset LD_PRELOAD   # Mesa 25's lavapipe in the worker, not a preloaded Debian 12 one
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

one=q4cts.dequantize.odd_n4.n12_k32_g32
a=q4cts.adamw_step.unaligned.n1023_t5_w1 c=q4cts.fused_ce.unaligned_v.r3_v7_p0
three=(--api webgpu --filter "$one" --filter "$a" --filter "$c")   # in this order: a, one, c
# seen PATTERN: a line of the last command's output (out.txt) matches PATTERN.
seen() {
  checks=$((checks + 1))
  grep -qE -- "$1" out.txt || { fail "no line of the output matches '$1'"; sed 's/^/    /' out.txt | tail -20; }
}
verdicts() { python3 -c 'import json,sys; print(" ".join("%s/%s" % (r["verdict"], r["tries"]) for r in json.load(open(sys.argv[1]))["q4cts"]["results"]))' "$1"; }
names() { python3 -c 'import json,sys; print(" ".join("%s:%s:%s" % (r["name"], r["verdict"], r["worst_margin"]) for r in json.load(open(sys.argv[1]))["q4cts"]["results"]))' "$1"; }

# ---- --jobs: two WebGPU workers, the same results in the same order as one ----
expect 0 'result: PASS, 0 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --json serial.json
expect 0 'result: PASS, 0 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --jobs 2 --json two.json
checks=$((checks + 2))
[ "$(names serial.json)" = "$(names two.json)" ] || fail "--jobs 2 on WebGPU: $(names two.json), serially $(names serial.json)"
grep -q '"workers": "2"' two.json || fail "the report of --jobs 2 does not give its workers"

# ---- flakes: flaky@2 fails a worker's 1st, 3rd, ... GPU run, on WebGPU as on Vulkan ----
expect 1 'result: FAIL, 2 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --json noretry.json
checks=$((checks + 1))
[ "$(verdicts noretry.json)" = "Fail/1 Pass/1 Fail/1" ] || fail "flaky@2 without retries: $(verdicts noretry.json)"
expect 0 'result: PASS, 0 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --flake-retries 1 --json flaky.json
checks=$((checks + 2))
[ "$(verdicts flaky.json)" = "Flake/2 Flake/2 Flake/2" ] || fail "flaky@2 with a retry: $(verdicts flaky.json)"
grep -q '"message": "passed on try 2 of 2; try 1 was Fail: ' flaky.json || fail "a Flake does not say which try passed"
expect 0 'result: PASS, 0 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --flake-retries 1 --jobs 2 --json flaky2.json
checks=$((checks + 1))
[ "$(verdicts flaky2.json)" = "Flake/2 Flake/2 Flake/2" ] || fail "flaky@2 with a retry on 2 workers: $(verdicts flaky2.json)"
expect 1 'failed all 2 tries' -- "$q4cts" run "${three[@]}" --inject-fault flaky@3 --flake-retries 1 --json three.json
checks=$((checks + 1))
[ "$(verdicts three.json)" = "Fail/2 Pass/1 Fail/2" ] || fail "flaky@3 with a retry: $(verdicts three.json)"

# ---- baselines and shards: expected failures, and shards merged into the serial run ----
printf '# the two that fail\n%s,Fail\n%s,Fail\n' "$a" "$c" >expected.txt
expect 0 'baseline: 3 as expected \(2 expected failures\), 0 unexpected pass, 0 unexpected fail' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --baseline expected.txt
for i in 1 2; do
  expect 0 'result: PASS' -- "$q4cts" run "${three[@]}" --shard $i/2 --json shard$i.json
done
expect 0 'merged 2 reports: 3 cases, 0 not ok$' -- "$q4cts" merge shard1.json shard2.json --json merged.json
checks=$((checks + 1))
[ "$(names serial.json)" = "$(names merged.json)" ] || fail "merged WebGPU shards: $(names merged.json), serially $(names serial.json)"

# ---- dumps: a failing WebGPU case dumped, re-judged, and rerun on WebGPU ----
expect 1 'result: FAIL, 2 of 3 cases not ok' -- "$q4cts" run "${three[@]}" --inject-fault flaky@2 --dump-dir dumps
checks=$((checks + 2))
grep -q '"api": "webgpu"' "dumps/$a/case.json" || fail "a WebGPU dump does not name its API"
[ ! -e "dumps/$one" ] || fail "a passing case was dumped"
expect 1 "^Fail .*$a" -- "$q4cts" replay "dumps/$a"
seen 'the same verdict and margins as dumped'
expect 0 "^Pass .*$a" -- "$q4cts" replay --rerun "dumps/$a"
seen '^device: .*\(WebGPU\), driver Dawn'
# A Vulkan dump says so too (dumps from before "api" are Vulkan's).
expect 1 'result: FAIL, 2 of 3 cases not ok' -- "$q4cts" run --filter "$one" --filter "$a" --filter "$c" --inject-fault flaky@2 --dump-dir vkdumps
checks=$((checks + 1))
grep -q '"api": "vulkan"' "vkdumps/$a/case.json" || fail "a Vulkan dump does not name its API"

# ---- what WebGPU cannot do, and why ----
expect 2 '--bounds-check is not available with --api webgpu: .*no SPIR-V to instrument' -- "$q4cts" run --api webgpu --bounds-check
expect 2 '--race-check is not available with --api webgpu: .*no SPIR-V to instrument' -- "$q4cts" run --api webgpu --race-check
expect 2 '--shader-coverage is not available with --api webgpu: .*no SPIR-V to instrument' -- "$q4cts" run --api webgpu --shader-coverage cov.info
expect 2 '--devices is not available with --api webgpu: Dawn picks the adapter' -- "$q4cts" run --api webgpu --devices 0,1
expect 2 '--validation is not available with --api webgpu: it is the Vulkan validation layer' -- "$q4cts" run --api webgpu --validation
expect 2 'replay is not available with --api webgpu: replay takes the API from the dump' -- "$q4cts" replay dumps --api webgpu
expect 2 '--mma-min-m is not available with --api webgpu: it picks the Vulkan tensor-core path' -- "$q4cts" run --api webgpu --mma-min-m 1

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
