#!/usr/bin/env bash
# test_train.sh: training cases, q4cts.train.* (docs/training.md): names listed and
# refused with a clear sentence; the shipped ones pass under --strict with a trajectory
# per step in the JSON report; each planted integration bug (--inject-fault
# train_<kind>@N) fails the op it corrupts at step N, while the single-op cases of that
# op pass with the same fault; --kernel overrides and interface files replace an op's
# kernel in every step (a planted bug in one fails); the HTML report draws a trajectory.
# Exit 77: no device.
#   usage: test_train.sh Q4CTS GLSLANG_VALIDATOR SOURCE_DIR WORK_DIR
set -uo pipefail
q4cts=$1 glslang=$2 src=$3 work=$4
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# ---- names: listed like any case; a malformed one is an error naming what is wrong ----
expect 0 '^q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300$' -- "$q4cts" list --filter 'q4cts.train.*'
[ "$(grep -c '^q4cts.train.' out.txt)" -eq 7 ] || fail "expected 7 generated training cases: $(cat out.txt)"
expect 2 "missing parameter h: family linear2 has hidden layers of width h" -- "$q4cts" run --filter q4cts.train.linear2.m8_k32_v8_g8_t2_l1
expect 2 "family linear1 has no hidden layer: leave h out" -- "$q4cts" run --filter q4cts.train.linear1.m8_k32_h8_v8_g8_t2_l1
# the nightly's long cases (cases/train-long.txt) are valid names of 200 steps
expect 0 '^q4cts.train.linear3.m8_k32_h16_v8_g8_t200_l300$' -- "$q4cts" list --caselist "$src/cases/train-long.txt"
[ "$(grep -c '^q4cts.train.*_t200_' out.txt)" -eq 3 ] || fail "expected 3 cases of 200 steps: $(cat out.txt)"
expect 2 "t = 201 steps: a training case takes 1..200 steps" -- "$q4cts" run --filter q4cts.train.linear1.m8_k32_v8_g8_t201_l1
expect 2 "layer 2 \(N = 8, K = 12\): .*gs" -- "$q4cts" run --filter q4cts.train.linear2.m8_k32_h12_v8_g8_t2_l1
expect 2 "unknown family 'mlp' for op train \(families: linear1, linear2, linear3\)" -- "$q4cts" run --filter q4cts.train.mlp.m8_k32_v8_g8_t2_l1
expect 2 "l = 0: the learning rate is l \* 1e-4" -- "$q4cts" run --filter q4cts.train.linear1.m8_k32_v8_g8_t2_l0
expect 2 "M above 65535 or a width above 65535: a training case of value class ordinary is a small model \\(value classes random_labels and outlier take widths up to 262144\\)" -- "$q4cts" run --filter q4cts.train.linear1.m8_k32_v65540_g8_t2_l1
expect 0 "^q4cts.train.linear1.m8_k32_v65540_g8_t2_l1.random_labels$" -- "$q4cts" list --filter q4cts.train.linear1.m8_k32_v65540_g8_t2_l1.random_labels
expect 2 "a width above 262144: a training case of value class random_labels is a real model's layer at most" -- "$q4cts" run --filter q4cts.train.linear1.m8_k32_v262148_g8_t2_l1.random_labels
expect 2 "--inject-fault expects .*train_mv_reset" -- "$q4cts" run --filter q4cts.train.linear1.m8_k32_v8_g8_t2_l1 --inject-fault train_mv_reset@201

"$q4cts" devices >devices.txt 2>&1
if ! grep -q '^0: ' devices.txt; then
  echo "no Vulkan device: skipping the runs"; echo "$checks checks, $failures failures"
  [ "$failures" -eq 0 ] && exit 77 || exit 1
fi

# ---- the shipped cases pass under --strict; the JSON report has each step ----
expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --strict --filter 'q4cts.train.*' --json train.json
python3 - train.json <<'PY' || fail "the JSON report's training trajectory is not as expected"
import json, math, sys
res = json.load(open(sys.argv[1]))["q4cts"]["results"]
assert len(res) == 7, len(res)
for r in res:
    t = r["train"]
    steps = int(r["name"].split(".")[3].split("_t")[1].split("_")[0])
    assert len(t["steps"]) == steps, (r["name"], len(t["steps"]))
    assert t["resident_steps"] == steps, ("not every step device-resident", r["name"], t)
    # random labels (random_labels, outlier): the ops alone are judged, no trajectory
    judged = len(r["name"].split(".")) == 4
    assert (t["codes_margin"] == 0) if judged else t["codes_margin"] is None, (r["name"], t)
    for s in t["steps"]:
        if not judged:
            assert s["loss_ref"] is None and s["envelope"] is None, s
        else:
            assert abs(s["loss_gpu"] - s["loss_ref"]) <= s["envelope"], s
            assert 0 < s["envelope"] < 1e-3, s
        m = s["margins"]
        for op in ("linear_q4gsw", "fused_ce", "linear_dW", "adamw_step", "q4gsw_requant"):
            assert m[op] is not None and m[op] <= 1, (op, s)
        layers = int(r["name"].split(".")[2][-1])
        assert (m["linear_q4gsw_backward"] is None) == (layers == 1), (r["name"], m)
    first, last = t["steps"][0]["loss_ref"], t["steps"][-1]["loss_ref"]
    if judged and ("linear1" in r["name"] or "m32" in r["name"]):
        assert last < first, ("the loss does not fall", r["name"], first, last)
PY

# a lost device in a step: that case Crashes, naming its step (a step is one submission
# on Vulkan: the first case, of 2 steps, takes submissions 1 and 2, so the fifth is the
# second case's third step); the next case runs on a new device and passes
expect 1 "message: step 3: .*VK_ERROR_DEVICE_LOST .*injected fault at submit 5" -- \
  "$q4cts" run --strict --filter 'q4cts.train.linear1.*' --inject-fault lost@5
grep -qE "^Crash +q4cts.train.linear1.m16_k32_v16_g16_t8_l1000 " out.txt ||
  fail "the case that lost its device is not a Crash: $(cat out.txt)"
grep -qE "^Pass +q4cts.train.linear1.m32_k32_v8_g16_t8_l300 " out.txt ||
  fail "the case after a lost device did not pass: $(cat out.txt)"

# ---- planted integration bugs: each fails the op it corrupts, at its step ----
l2=q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300
expect 1 "step 2, layer 1, adamw_step: .* outside their bound" -- "$q4cts" run --strict --filter $l2 --inject-fault train_mv_reset@2 --json mv.json
grep -q '"output": "m"\|"output": "v"\|"output": "param"' mv.json || fail "mv_reset: the worst output is not AdamW's"
grep -q '"repro": "q4cts run --filter q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300 --seed 0 --strict --inject-fault train_mv_reset@2"' mv.json ||
  fail "mv_reset: the repro line does not plant the bug: $(grep -o '"repro": "[^"]*"' mv.json)"
expect 1 "step 3, layer 2, linear_dW: .* outside their bound" -- "$q4cts" run --strict --filter $l2 --inject-fault train_dw_stale@3
expect 1 "step 3, layer 1, linear_q4gsw: .* outside their bound" -- "$q4cts" run --strict --filter $l2 --inject-fault train_stale_w@3
expect 1 "step 4, layer 2, linear_q4gsw_backward: .* outside their bound" -- "$q4cts" run --strict --filter $l2 --inject-fault train_bwd_stale_w@4
# the trajectory alone catches it too: the loss leaves the envelope after the bug
python3 - mv.json <<'PY' || fail "mv_reset: the trajectory does not leave its envelope"
import json, sys
r = json.load(open(sys.argv[1]))["q4cts"]["results"][0]
s = r["train"]["steps"]
assert any(abs(x["loss_gpu"] - x["loss_ref"]) > x["envelope"] for x in s[2:]), s
assert all(abs(x["loss_gpu"] - x["loss_ref"]) <= x["envelope"] for x in s[:2]), s
assert s[1]["margins"]["adamw_step"] > 1 and s[0]["margins"]["adamw_step"] <= 1, s
PY
# random labels: no trajectory, but every op is judged, so the same bug fails its op
rl=q4cts.train.linear1.m16_k128_v40_g64_t2_l300.random_labels
expect 1 "step 2, layer 1, adamw_step: .* outside their bound" -- "$q4cts" run --strict --filter $rl --inject-fault train_mv_reset@2

# ---- perf times a training step: one submission of step 1, again and again ----
expect 0 "result: PASS, 2 of 2 cases timed, 0 errors" -- "$q4cts" perf --filter $rl --filter $l2 \
  --reps 3 --warmup 1 --warmup-ms 0 --json perf-train.json
python3 - perf-train.json <<'PY' || fail "perf's rows of training cases are not as expected"
import json, sys
rows = json.load(open(sys.argv[1]))["q4cts_perf"]["results"]
assert [r["op"] for r in rows] == ["train", "train"], rows
for r in rows:
    assert r["median_ms"] > 0 and r["gbs"] > 0 and r["tflops"] > 0, r
PY
# a step that is not one submission is an error row naming why, and the run goes on
expect 1 "$l2 +error: an op of the step reads its results back mid-op" -- env Q4CTS_TEST_UNRECORDABLE=linear_q4gsw_backward \
  "$q4cts" perf --filter $rl --filter $l2 --reps 2 --warmup 1 --warmup-ms 0
grep -q "result: FAIL, 1 of 2 cases timed, 1 errors" out.txt || fail "the other case was not timed: $(cat out.txt)"
expect 1 "error: perf times a training step kept on the device" -- \
  "$q4cts" perf --filter $rl --reps 2 --warmup 1 --warmup-ms 0 --inject-fault train_mv_reset@1

# --dump-dir saves the first op that is not ok as a case of its own: replay judges it again
# (Fail); --rerun runs that op alone on the inputs it was handed, where the kernel is right
# (Pass: the stack, not the kernel, handed it zeros for m and v)
rm -rf dumps && mkdir dumps
expect 1 "dumped: $l2/q4cts.adamw_step.custom.n512_t2_w1; q4cts replay" -- "$q4cts" run --strict \
  --filter $l2 --inject-fault train_mv_reset@2 --dump-dir dumps
dump=dumps/$l2/q4cts.adamw_step.custom.n512_t2_w1
expect 1 "Fail +q4cts.adamw_step.custom.n512_t2_w1 " -- "$q4cts" replay "$dump"
expect 0 "Pass +q4cts.adamw_step.custom.n512_t2_w1 " -- "$q4cts" replay "$dump" --rerun
# (a kernel's bug: the dump of a --kernel mutant's step fails again under --rerun with
# that kernel, below)

# a case longer than the trace's 16 rows: each row is the worst step of a run of steps
# (its number in "step"), its margins the worst over the run; a bug at step 30 is named
long=q4cts.train.linear1.m8_k32_v8_g8_t40_l300
expect 0 'result: PASS, 0 of 1 cases not ok' -- "$q4cts" run --strict --filter $long --json long.json
python3 - long.json <<'PY' || fail "a 40-step case's trace is not 16 rows of its runs' worst steps"
import json, sys
t = json.load(open(sys.argv[1]))["q4cts"]["results"][0]["train"]
steps = [s["step"] for s in t["steps"]]
assert len(steps) == 16, steps
for i, s in enumerate(steps):   # row i covers steps i*40//16+1 .. (i+1)*40//16
    assert i * 40 // 16 < s <= (i + 1) * 40 // 16, (i, s)
    assert all(m is not None and m <= 1 for m in t["steps"][i]["margins"].values() if m is not None)
assert all(abs(x["loss_gpu"] - x["loss_ref"]) <= x["envelope"] for x in t["steps"])
PY
expect 1 "step 30, layer 1, adamw_step: .* outside their bound" -- "$q4cts" run --strict --filter $long \
  --inject-fault train_mv_reset@30
# the HTML report draws the trajectory (where Chromium and the chart libraries are)
if (. "$src/tests/needs.sh" chromium "$src") >/dev/null 2>&1; then
  expect 0 "report: mv.html, 1 cases" -- "$q4cts" report mv.json -o mv.html
  checks=$((checks + 1))
  python3 "$src/tests/report/render.py" mv.html mv-shots --histograms 1 --trajectories 1 >render.txt 2>&1 ||
    fail "the training trajectory is not drawn: $(cat render.txt)"
else
  echo "no Chromium or chart libraries: the report's trajectory is not drawn"
fi
# a missing barrier in a device-resident step: each dW may start before the backward
# that writes its gradient has ended. lavapipe runs dispatches one after another, so
# only the validation layer's synchronisation checks see it there; with no fault they
# see no hazard, and a 1-layer model's dW, whose gradient CE's own last barrier orders,
# has none either
expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --strict --validation --filter 'q4cts.train.*'
expect 1 "step 2: a hazard between the step's dispatches: validation layer, kernel linear_dw.*SYNC-HAZARD-READ-AFTER-WRITE" -- \
  "$q4cts" run --strict --validation --filter $l2 --inject-fault train_no_barrier@2
expect 0 'result: PASS' -- "$q4cts" run --strict --validation \
  --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 --inject-fault train_no_barrier@2
# an op that cannot be recorded (as the tensor-core forward on a GPU) sends the case back
# to host-staged steps from the step that meets it, that step's recording dropped unrun:
# the cases pass, none device-resident, and the missing barrier has nothing to leave out
for op in linear_q4gsw_backward adamw_step; do
  expect 0 'result: PASS, 0 of 7 cases not ok' -- env Q4CTS_TEST_UNRECORDABLE=$op "$q4cts" run \
    --strict --validation --filter 'q4cts.train.*' --inject-fault train_no_barrier@1 --json unrec.json
  python3 - unrec.json $op <<'PY' || fail "Q4CTS_TEST_UNRECORDABLE=$op: the steps are not as expected"
import json, sys
for r in json.load(open(sys.argv[1]))["q4cts"]["results"]:
    layers = int(r["name"].split(".")[2][-1])
    # a 1-layer model has no backward: with it unrecordable, its steps stay on the device
    want = len(r["train"]["steps"]) if sys.argv[2] == "linear_q4gsw_backward" and layers == 1 else 0
    assert r["train"]["resident_steps"] == want, (r["name"], r["train"]["resident_steps"], want)
PY
done
# the host-side faults and interface files keep host-staged steps, where there is no
# barrier to leave out: the fault changes nothing
expect 0 'result: PASS' -- "$q4cts" run --strict --validation --filter $l2 \
  --interface "$(dirname "$work")/interfaces/adamw_step/adamw_step.json" --inject-fault train_no_barrier@2
# the same faults leave every single-op case alone: each kernel is right
for f in train_mv_reset@2 train_dw_stale@2 train_stale_w@2 train_bwd_stale_w@2 train_no_barrier@2; do
  expect 0 'result: PASS' -- "$q4cts" run --strict --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.adamw_step.wd_*' --filter 'q4cts.linear_dW.grouped*' \
    --filter 'q4cts.linear_q4gsw.tile_aligned*' --filter 'q4cts.linear_q4gsw_backward.grouped*' \
    --exclude 'q4cts.train.*' --inject-fault "$f"
done

# ---- --kernel and --interface apply to every step: the op's kernel is replaced ----
"$glslang" --target-env vulkan1.1 -V --quiet -I"$src/gpu/shaders" -o adamw.spv \
  "$src/gpu/shaders/adamw_step.comp" || fail "adamw_step.comp does not compile"
expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --strict --filter 'q4cts.train.*' \
  --kernel adamw_step=adamw.spv
# a planted bug in the override: the first step's AdamW fails
mut=$(dirname "$work")/mutations/adamw_no_bias_correction.spv
if [ -f "$mut" ]; then
  expect 1 "step 1, layer 1, adamw_step: .* outside their bound" -- "$q4cts" run --strict \
    --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 --kernel adamw_step="$mut"
  # its dump: the op alone fails again with that kernel and passes with the built-in one
  rm -rf kdumps && mkdir kdumps
  expect 1 "dumped: " -- "$q4cts" run --strict --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 \
    --kernel adamw_step="$mut" --dump-dir kdumps
  kd=kdumps/q4cts.train.linear1.m32_k32_v8_g16_t8_l300/q4cts.adamw_step.custom.n256_t1_w1
  expect 1 "Fail +q4cts.adamw_step.custom.n256_t1_w1 " -- "$q4cts" replay "$kd" --rerun --kernel adamw_step="$mut"
  expect 0 "Pass +q4cts.adamw_step.custom.n256_t1_w1 " -- "$q4cts" replay "$kd" --rerun
else
  fail "no mutant $mut (built with the tests)"
fi
# the probes see a device-resident step's dispatches as a single op's: a shared-memory
# race and a read past the data, each in an override of one op, fail the step
muts=$(dirname "$work")/mutations
expect 1 "message: step 1: shared-memory race: kernel fused_ce \(override\)" -- "$q4cts" run \
  --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 --race-check --kernel fused_ce="$muts/ce_sum_barrier_dropped.spv"
expect 1 "message: step 1: out-of-bounds access: kernel adamw_step \(override\) read past the data of binding 1" -- \
  "$q4cts" run --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 --bounds-check \
  --kernel adamw_step="$muts/adamw_reads_past_grad.spv"
# a dW that leaves its first vec4 unwritten: in a device-resident step its buffer was
# poisoned, so the elements read NaN and dW fails; the requant that later meets the NaN
# latent cannot take it, and dW stays the cause
sed 's|    dw4\[(row \* pc.K + col) / 4u\] = v;|    if (row + col > 0u) dw4[(row * pc.K + col) / 4u] = v;|' \
  "$src/gpu/shaders/linear_dw_tiled.comp" >dw_hole.comp
grep -q 'row + col > 0u' dw_hole.comp || fail "the dW store to plant a hole in was not found"
"$glslang" --target-env vulkan1.1 -V --quiet -I"$src/gpu/shaders" -o dw_hole.spv dw_hole.comp ||
  fail "the dW with a hole does not compile"
expect 1 "message: step 1, layer 2, linear_dW: 4 of 128 elements outside their bound; worst dw\[n=0, k=0\]: got nan.*; then step 1, layer 1, q4gsw_requant could not take its inputs" -- \
  "$q4cts" run --filter q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300 --kernel linear_dw_tiled=dw_hole.spv
grep -qE '^Fail +q4cts.train.linear2.m32_k32_h16_v8_g16_t8_l300 ' out.txt ||
  fail "a dW leaving elements unwritten is not a Fail: $(cat out.txt)"
# the static checks cover the kernels a training case's steps ran: a requant override
# that rounds with GLSL round() is a QualityWarning naming it (a failure under --strict)
sed 's/roundEven(xp \/ c.sp)/round(xp \/ c.sp)/' "$src/gpu/shaders/q4gsw_requant.glsl" >q4gsw_requant.glsl
cp "$src/gpu/shaders/q4gsw_requant_w4x8.comp" "$src/gpu/shaders/q4_w4x8.glsl" "$src/gpu/shaders/q4_fold.glsl" .
"$glslang" --target-env vulkan1.1 -V --quiet -I. -o rounding.spv q4gsw_requant_w4x8.comp ||
  fail "the round() requant does not compile"
expect 0 'note: +static check of kernel q4gsw_requant_w4x8 .*round' -- \
  "$q4cts" run --filter q4cts.train.linear1.m32_k32_v8_g16_t8_l300 --kernel q4gsw_requant_w4x8=rounding.spv
grep -qE '^QualityWarning +q4cts.train.linear1.m32_k32_v8_g16_t8_l300 ' out.txt ||
  fail "a static check's finding did not make the training case a QualityWarning: $(cat out.txt)"
# an interface file: the example requant (tests/interfaces/q4gsw_requant) runs every step;
# its mutant that zeroes W_4X8's padding fails the case whose K leaves padding
ifaces=$(dirname "$work")/interfaces
expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --strict --filter 'q4cts.train.*' \
  --interface "$ifaces/q4gsw_requant/q4gsw_requant.json"
expect 1 "Fail +q4cts.train.linear2.m12_k64_h24_v12_g8_t6_l300 " -- "$q4cts" run --strict \
  --filter 'q4cts.train.*' --interface "$ifaces/mutants/requant_padding_zeroed/q4gsw_requant.json"
# a whole kernel set: every op of the step from interface files, as a runtime ships them
all=()
for op in linear_q4gsw fused_ce linear_dW linear_q4gsw_backward adamw_step q4gsw_requant; do
  all+=(--interface "$ifaces/$op/$op.json")
done
expect 0 'result: PASS, 0 of 7 cases not ok' -- "$q4cts" run --strict --filter 'q4cts.train.*' "${all[@]}"
# an interface file for an op the training cases run counts as used; one they do not
# run is refused as for any selection
expect 2 "is for op dequantize, which no selected case runs" -- "$q4cts" run \
  --filter 'q4cts.train.*' --interface "$ifaces/dequantize/dequantize.json"
# (WebGPU's training runs: tests/webgpu, mode train)

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
