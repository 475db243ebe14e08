#!/usr/bin/env bash
# test_overrides.sh: --kernel modules are checked before the run (issue 11, defect 5):
# each broken copy of a built-in kernel is refused with exit 2 and a sentence naming
# what differs; the unchanged kernel is accepted (that part needs a device).
#   usage: test_overrides.sh Q4CTS GLSLANG_VALIDATOR SOURCE_DIR WORK_DIR
set -uo pipefail
q4cts=$1 glslang=$2 src=$3 work=$4
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
shaders="$src/gpu/shaders"
compile() {  # compile NAME SED_SCRIPT [glslang flags]: adamw_step.comp edited by SED_SCRIPT
  local name=$1 script=$2; shift 2
  sed "$script" "$shaders/adamw_step.comp" >"$name.comp"
  [ -z "$script" ] || ! cmp -s "$shaders/adamw_step.comp" "$name.comp" ||
    fail "$name: the edit changed nothing"
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" "$@" -o "$name.spv" "$name.comp" ||
    fail "$name.comp does not compile"
}
run() { "$q4cts" run --filter 'q4cts.adamw_step.*' --kernel "adamw_step=$1.spv"; }

compile push 's/float lr, beta1, beta2, eps, wd, bc1, bc2;/float lr, beta1, beta2, eps, wd, bc1, bc2, extra;/'
expect 2 'adamw_step=push.spv: .*push-constant block is 36 bytes, expected 32' -- run push
compile bind 's/binding = 3)/binding = 4)/'
expect 2 'set 0 binding 3 \(a storage buffer\) is missing; set 0 binding 4 \(a storage buffer\) is not in the interface' -- run bind
compile type 's/^layout(push_constant)/layout(set = 0, binding = 3) uniform U3 { vec4 u3; };\nlayout(push_constant)/; s/p4\[i\] = p;/p4[i] = p + u3;/'
expect 2 'set 0 binding 3 is a uniform buffer, expected a storage buffer' -- run type
compile spec 's/^layout(push_constant)/layout(constant_id = 9) const float X = 1.0;\nlayout(push_constant)/; s/p4\[i\] = p;/p4[i] = p * X;/'
expect 2 'specialisation constant id 9 is never set by the launcher' -- run spec
compile local 's/local_size_x = 256/local_size_x = 128/'
expect 2 'local size x is 128, expected 256' -- run local
compile entry '' -e kern --source-entrypoint main
expect 2 "no GLCompute entry point named 'main' \(it has 'kern'\)" -- run entry
compile good ''
head -c 400 good.spv >trunc.spv
# (where the cut falls decides the validator's words: inside an instruction or after one)
expect 2 'adamw_step=trunc.spv is not valid SPIR-V for Vulkan: (End of input|The following forward referenced IDs have not been defined)' -- run trunc
# A well-formed header over words that are no instructions.
{ head -c 20 good.spv; printf '\377\377\377\377%.0s' 1 2 3 4; } >junk.spv
expect 2 'adamw_step=junk.spv is not valid SPIR-V for Vulkan' -- run junk

# A repro line is never cut short: options too long for one are refused before any case.
deep=$(printf 'd%.0s' {1..250})
mkdir -p "$deep/$deep/$deep/$deep/$deep/$deep" && cp good.spv "$deep/$deep/$deep/$deep/$deep/$deep/"
expect 2 "repro line .* more than 1279: shorten the paths" -- \
  "$q4cts" run --filter 'q4cts.adamw_step.*' --kernel "adamw_step=$deep/$deep/$deep/$deep/$deep/$deep/good.spv"

if "$q4cts" devices >/dev/null 2>&1; then
  one=$("$q4cts" list --filter 'q4cts.adamw_step.*' | head -1)
  expect 0 'Pass' -- "$q4cts" run --filter "$one" --kernel adamw_step=good.spv
  # A long path (over 256 characters, where repro lines used to end) stays whole in it,
  # and the line runs.
  long="$deep/$deep/good.spv"
  cp good.spv "$deep/$deep/"
  "$q4cts" run --filter "$one" --kernel "adamw_step=$long" --json long.json >/dev/null ||
    fail "the run with a long --kernel path failed"
  repro=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["q4cts"]["results"][0]["repro"])' long.json)
  [[ "$repro" == *"--kernel adamw_step=$long" ]] || fail "the repro line lost the path: $repro"
  expect 0 'Pass' -- bash -c "${repro/q4cts/$q4cts}"
  # An override that no selected case runs (issue 11, defect 4): exit 2 before any case,
  # naming the kernel and a case that runs it.
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o dequantize.spv "$shaders/dequantize.comp"
  expect 2 'dequantize=dequantize.spv: no selected case runs kernel dequantize on this device.*a case that runs it: q4cts\.dequantize\.' -- \
    "$q4cts" run --filter "$one" --kernel dequantize=dequantize.spv
  grep -q "$one" out.txt && fail "a case ran although the override was refused"
  # requant's flat kernel runs only where K % 8 == 4; no tile_aligned case has one.
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o flat.spv "$shaders/q4gsw_requant_flat.comp"
  expect 2 'no selected case runs kernel q4gsw_requant_flat' -- \
    "$q4cts" run --filter 'q4cts.q4gsw_requant.tile_aligned.*' --kernel q4gsw_requant_flat=flat.spv
  expect 0 'Pass' -- "$q4cts" run --filter q4cts.q4gsw_requant.custom.n16_k36_g4 \
    --kernel q4gsw_requant_flat=flat.spv
  # The plan sees a small_device case's own limits: split-K's reduce runs for this
  # shape, but not when the case's binding limit splits x by rows.
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o reduce.spv "$shaders/linear_splitk_reduce.comp"
  split=q4cts.linear_q4gsw.small_device.m24_n128_k1040_g16_b1
  expect 2 'no selected case runs kernel linear_splitk_reduce' -- \
    "$q4cts" run --filter ${split}_binding98304 --kernel linear_splitk_reduce=reduce.spv
  expect 0 'Pass' -- "$q4cts" run --filter ${split}_groups2 --kernel linear_splitk_reduce=reduce.spv
  expect 0 'Pass' -- "$q4cts" run --filter ${split}_binding98304
  # Static checks (issue 10 §3): a planted round() in the requant kernel is a
  # QualityWarning naming it, a failure under --strict.
  sed 's/roundEven(xp \/ c.sp)/round(xp \/ c.sp)/' "$shaders/q4gsw_requant.glsl" >q4gsw_requant.glsl
  cmp -s q4gsw_requant.glsl "$shaders/q4gsw_requant.glsl" && fail "the round() edit changed nothing"
  cp "$shaders/q4gsw_requant_w4x8.comp" "$shaders/q4_w4x8.glsl" "$shaders/q4_fold.glsl" .
  "$glslang" --target-env vulkan1.1 -V --quiet -I. -o rounding.spv q4gsw_requant_w4x8.comp
  req=q4cts.q4gsw_requant.custom.n16_k64_g16
  expect 0 'static check of kernel q4gsw_requant_w4x8 .*round: GLSL round\(\)' -- \
    "$q4cts" run --filter $req --kernel q4gsw_requant_w4x8=rounding.spv
  grep -q '^QualityWarning' out.txt || fail "the planted round() is not a QualityWarning"
  expect 1 'QualityWarning' -- "$q4cts" run --filter $req --kernel q4gsw_requant_w4x8=rounding.spv --strict
  expect 0 'Pass' -- "$q4cts" run --filter $req
  # perf --kernel (issue 14): the module is checked and timed in place of the built-in,
  # and the report says so.
  perf() { "$q4cts" perf --filter "$one" --reps 2 --warmup 1 --warmup-ms 0 "$@"; }
  expect 0 "^kernels replaced: adamw_step=good.spv$" -- perf --kernel adamw_step=good.spv --json perf.json
  grep -q "^$one .* bandwidth" out.txt || fail "perf --kernel timed no row for $one"
  grep -q '"kernel_overrides": "adamw_step=good.spv"' perf.json || fail "perf.json does not name the override"
  # A module over every device's shared-memory limit proves it is the one perf runs:
  # the validation layer refuses its pipeline, and the case is an error row naming it.
  sed 's/^void main()$/void adamw_main()/' "$shaders/adamw_step.comp" >big.comp
  printf 'shared vec4 big[4096];\nvoid main()\n{\n    big[gl_LocalInvocationID.x] = vec4(1.0);\n    barrier();\n    adamw_main();\n    if (pc.n == 0u) p4[0] = big[255u - gl_LocalInvocationID.x];\n}\n' >>big.comp
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o big.spv big.comp || fail "big.comp does not compile"
  expect 1 "^$one +error: validation layer, pipeline of kernel adamw_step from its override module" -- \
    perf --kernel adamw_step=big.spv --validation
  expect 2 'adamw_step=push.spv: .*push-constant block is 36 bytes, expected 32' -- perf --kernel adamw_step=push.spv
  expect 2 'no selected case runs kernel dequantize on this device' -- perf --kernel dequantize=dequantize.spv
  grep -q "^$one " out.txt && fail "perf timed a case although the override was refused"
  # perf --dense-min-m (issue 14) moves the q4 linears' dense-path threshold, so that
  # one session times both paths of a shape: M = 16 takes the dense path's GEMM from
  # M = 9 (an override of it is then run), not by default; the report says so.
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o tn.spv "$shaders/linear_tn_tiled.comp"
  lin=q4cts.linear_q4gsw.custom.m16_n64_k64_g32
  expect 0 '^linear dense path from M = 9$' -- "$q4cts" perf --filter $lin --reps 2 --warmup 1 \
    --warmup-ms 0 --dense-min-m 9 --kernel linear_tn_tiled=tn.spv --json dense.json
  grep -q "^$lin " out.txt || fail "perf --dense-min-m timed no row for $lin"
  grep -q '"linear_dense_min_m": "9"' dense.json || fail "dense.json does not name the threshold"
  expect 2 'no selected case runs kernel linear_tn_tiled on this device' -- \
    "$q4cts" perf --filter $lin --reps 2 --kernel linear_tn_tiled=tn.spv
  expect 2 '--dense-min-m applies to perf only, not run' -- "$q4cts" run --filter $lin --dense-min-m 9
  expect 2 '--dense-min-m expects at least 1, got 0' -- "$q4cts" perf --filter $lin --dense-min-m 0
  # --mma-min-m (issue 14): the tensor-core path's threshold, for run and perf; an
  # override of its kernels on a device without int8 cooperative matrices says why no
  # case runs it
  expect 2 "--mma-min-m expects a number of rows from 1 to 4294967295, or off; got '0'" -- \
    "$q4cts" run --filter $lin --mma-min-m 0
  expect 2 "--mma-min-m expects a number of rows from 1 to 4294967295, or off; got 'never'" -- \
    "$q4cts" perf --filter $lin --mma-min-m never
  expect 2 '--mma-min-m applies to run and perf only, not list' -- "$q4cts" list --mma-min-m 9
  expect 0 '^result: PASS' -- "$q4cts" run --filter $lin --mma-min-m 9 --json mma.json
  grep -q '"repro": "[^"]*--mma-min-m 9' mma.json || fail "--mma-min-m is not in the repro line"
  if ! "$q4cts" devices | grep -q 'cooperative matrices.*: yes'; then
    "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o mma.spv "$shaders/linear_q4gsw_mma.comp"
    expect 2 'tensor-core path, which needs int8 cooperative matrices; this device has none' -- \
      "$q4cts" run --filter $lin --mma-min-m 9 --kernel linear_q4gsw_mma=mma.spv
  fi
else
  echo "no Vulkan device: the accepted module is not run"
fi
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
