#!/usr/bin/env bash
# test_webgpu.sh: q4cts --api webgpu (docs/webgpu.md): the WGSL kernels through Dawn's
# Node.js worker on Mesa 25's lavapipe.
#   usage: test_webgpu.sh Q4CTS SOURCE_DIR WORK_DIR ICD MODE
# MODE "mustpass": cases/mustpass.txt under --strict; the reports name the API.
# MODE "train":    the training cases of the mustpass, a planted training fault (and its
#                  dump replayed alone), a WGSL kernel set from interface files and a
#                  --kernel mutant in the steps.
# MODE "paths":    below.
# MODE "worker":   perf; the worker's failures as verdicts (crash, hang, device loss, out of
#                  memory: the run goes on), no adapter, --kernel checks, usage errors.
# Exit 77 only when Node.js, Dawn's package or Mesa 25's lavapipe is missing outside CI
# (tests/needs.sh; scripts/setup webgpu installs them).
set -uo pipefail
q4cts=$1 src=$2 work=$3 icd=$4 mode=$5
. "$src/tests/needs.sh" webgpu "$src" "$icd"
. "$src/tests/cli/expect.sh"
export VK_DRIVER_FILES=$icd
# scripts/test's ASan stage preloads Debian 12's lavapipe (for LeakSanitizer); it would
# shadow Mesa 25's library of the same name in the worker, and q4cts itself loads no
# Vulkan driver with --api webgpu.
unset LD_PRELOAD
# seen PATTERN: a line of the last command's output (out.txt) matches PATTERN.
seen() {
  checks=$((checks + 1))
  grep -qE -- "$1" out.txt || { fail "no line of the output matches '$1'"; sed 's/^/    /' out.txt | tail -20; }
}
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

if [ "$mode" = mustpass ]; then
  expect 0 'result: PASS' -- "$q4cts" run --api webgpu --strict --caselist "$src/cases/mustpass.txt" \
    --junit junit.xml --json results.json
  checks=$((checks + 5))
  grep -q '<property name="api" value="webgpu"' junit.xml || fail "the JUnit report does not name the API"
  grep -q '<testsuite name="q4cts.webgpu"' junit.xml || fail "the JUnit suite is not named q4cts.webgpu"
  [ "$(grep -c '^api: webgpu' junit.xml)" -eq "$(grep -c '<testcase ' junit.xml)" ] ||
    fail "not every JUnit case says api: webgpu"
  grep -q '"api": "webgpu"' results.json || fail "the JSON report does not name the API"
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["q4cts"]["results"]; assert r and all(x["api"] == "webgpu" for x in r)' \
    results.json || fail "not every JSON result has api webgpu"
  grep -q '^device: .*(WebGPU), driver Dawn' out.txt || fail "the device line does not name WebGPU and Dawn"
fi

if [ "$mode" = train ]; then
  # the training cases of the mustpass through WGSL (docs/training.md): every op of every
  # step judged, the trajectory in its envelope; a planted integration bug is caught
  expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --api webgpu --strict \
    --caselist "$src/cases/mustpass.txt" --filter 'q4cts.train.*' --json train.json
  checks=$((checks + 1))
  python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["q4cts"]["results"]; assert len(r) == 7 and all(x["api"] == "webgpu" and x["train"]["steps"] for x in r)' \
    train.json || fail "the training results do not name WebGPU or have no steps"
  rm -rf dumps && mkdir dumps
  expect 1 "step 3, layer 2, linear_dW: .* outside their bound" -- "$q4cts" run --api webgpu \
    --strict --filter q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300 --inject-fault train_dw_stale@3 \
    --dump-dir dumps
  # its dump: that op alone, rerun through WebGPU on what it was handed, passes (the stack
  # added the stale dW, not the kernel)
  expect 0 "Pass +q4cts.linear_dW.custom.m32_n8_k16 " -- "$q4cts" replay --rerun \
    dumps/q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300/q4cts.linear_dW.custom.m32_n8_k16
  # a whole WGSL kernel set from interface files runs the step unchanged; a requant that
  # writes flat bytes hands its codes on as W_4X8
  all=()
  for op in linear_q4gsw fused_ce linear_dW linear_q4gsw_backward adamw_step q4gsw_requant; do
    all+=(--interface "$src/tests/interfaces/webgpu/$op/$op.json")
  done
  expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --api webgpu --strict \
    --filter 'q4cts.train.*' "${all[@]}"
  # a --kernel override with a planted bug fails the step that runs it
  expect 1 "step 1, layer 1, adamw_step: .* outside their bound" -- "$q4cts" run --api webgpu \
    --strict --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 \
    --kernel adamw_step="$(dirname "$work")/mutations/adamw_no_bias_correction.wgsl"
fi

# MODE "paths": the linears' mustpass on the kernel variant the worker keeps for large
# shapes (docs/webgpu.md, "Linear kernels"): the backward gemv at 8 k4 rows per workgroup.
if [ "$mode" = paths ]; then
  expect 0 'result: PASS' -- env Q4CTS_WGSL_GEMV_GROUPS_MIN=1 \
    "$q4cts" run --api webgpu --strict --caselist "$src/cases/mustpass.txt" --filter 'q4cts.linear_*'
  # A knob that is not a number stops the worker with its name, not a silent default.
  expect 2 "Q4CTS_WGSL_GEMV_GROUPS_MIN '-1' is not a whole number" -- env Q4CTS_WGSL_GEMV_GROUPS_MIN=-1 \
    "$q4cts" run --api webgpu --filter 'q4cts.linear_dW.tile_aligned.m8_n16_k32'
fi

if [ "$mode" = worker ]; then
  sel=(--filter 'q4cts.adamw_step.unaligned.*')
  # Each fault hits the first case; the run goes on with a new worker and the rest pass.
  expect 1 'Crash +q4cts.adamw_step.unaligned.n1023_t5_w1 ' -- "$q4cts" run --api webgpu "${sel[@]}" --inject-fault crash@1
  seen 'the WebGPU worker died of signal 11'
  seen 'verdicts: 4 Pass, 1 Crash'
  # The hang alone in its run: --timeout 1 gives every case of a run 4 s, which a case
  # that does not hang must never be held to (a loaded machine is not a hang). The run
  # going on with a new worker after one is killed is the crash's, above.
  expect 1 'Timeout +q4cts.adamw_step.unaligned.n1023_t5_w1 ' -- "$q4cts" run --api webgpu --filter q4cts.adamw_step.unaligned.n1023_t5_w1 --inject-fault timeout@1 --timeout 1
  seen 'ran past the 4 s watchdog; its WebGPU worker was killed'
  seen 'verdicts: 1 Timeout'
  expect 1 'ResourceError +q4cts.adamw_step.unaligned.n1023_t5_w1 ' -- "$q4cts" run --api webgpu "${sel[@]}" --inject-fault lost@1
  seen 'WebGPU lost: device lost'
  seen 'verdicts: 4 Pass, 1 ResourceError'
  expect 1 'ResourceError +q4cts.adamw_step.unaligned.n1_t1_w1 ' -- "$q4cts" run --api webgpu "${sel[@]}" --inject-fault alloc@3
  seen 'WebGPU oom: injected'
  # --repeat: the worst run counts, and the fault of the second run is that case's
  expect 1 'Crash +q4cts.adamw_step.unaligned.n1023_t5_w1 ' -- "$q4cts" run --api webgpu "${sel[@]}" --repeat 2 --inject-fault crash@2
  # No adapter: a set-up error, exit 2, before any case.
  expect 2 'the WebGPU worker could not start: Dawn found no WebGPU adapter' -- \
    env VK_DRIVER_FILES=/nonexistent/icd.json "$q4cts" run --api webgpu "${sel[@]}"
  expect 2 'the WebGPU worker could not start: .*cannot run /nonexistent/node' -- \
    env Q4CTS_NODE=/nonexistent/node "$q4cts" run --api webgpu "${sel[@]}"
  expect 0 'WebGPU adapter' -- "$q4cts" devices --api webgpu
  seen 'timestamps (yes|no), maxStorageBufferBindingSize [0-9]+'
  # perf: the ceilings and a row per case, GPU timestamps (the figures are not judged)
  expect 0 'ceilings: copy [0-9.]+ GB/s, fp32 FMA [0-9.]+ TFLOP/s' -- "$q4cts" perf --api webgpu \
    --filter 'q4cts.adamw_step.wd_on.n1024_t1_w1' --reps 3 --warmup 1 --warmup-ms 0 --json perf.json
  seen '^q4cts.adamw_step.wd_on.n1024_t1_w1 +[0-9.]+ +[0-9.]+ .* bandwidth'
  seen '^device: .*\(WebGPU\), driver Dawn'
  checks=$((checks + 1))
  grep -q '"api": "webgpu"' perf.json || fail "the perf report does not name the API"
  # a training step is timed as one device-resident submission, which WebGPU has not
  expect 1 'q4cts.train.linear1.m8_k32_v8_g8_t1_l10.random_labels +error: perf times a training step kept on the device' -- \
    "$q4cts" perf --api webgpu --filter q4cts.train.linear1.m8_k32_v8_g8_t1_l10.random_labels --reps 2 --warmup 1 --warmup-ms 0
  # --kernel: a WGSL kernel by name, a file that compiles.
  expect 2 "--kernel 'bogus=x.wgsl': with --api webgpu, NAME=FILE.wgsl where NAME is a WGSL kernel" -- \
    "$q4cts" run --api webgpu --kernel bogus=x.wgsl
  expect 2 "--kernel 'adamw_step=missing.wgsl': cannot read missing.wgsl" -- \
    "$q4cts" run --api webgpu --kernel adamw_step=missing.wgsl
  echo 'fn main( {' >broken.wgsl
  expect 2 'kernel adamw_step does not compile: line 1' -- \
    "$q4cts" run --api webgpu "${sel[@]}" --kernel adamw_step=broken.wgsl
  # Usage: the API's name, and Vulkan's options refused with WebGPU.
  expect 2 "--api expects vulkan or webgpu, got 'metal'" -- "$q4cts" run --api metal
  expect 2 '--device is not available with --api webgpu' -- "$q4cts" run --api webgpu --device 0
  expect 2 '--bounds-check is not available with --api webgpu' -- "$q4cts" run --api webgpu --bounds-check
  expect 2 'replay is not available with --api webgpu' -- "$q4cts" replay somewhere --api webgpu
  expect 2 'perf --kernel is not available with --api webgpu' -- "$q4cts" perf --api webgpu --kernel adamw_step=x.wgsl
fi

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
