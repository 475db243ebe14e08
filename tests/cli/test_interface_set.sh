#!/usr/bin/env bash
# test_interface_set.sh: kernel sets (docs/interface-format.md, "Kernel sets"): one
# --interface file describing several ops. The build's et_vk.json (the seven examples
# of tests/interfaces/ as one set) is described op by op, each malformed set is
# refused with exit 2 and "FILE: KEY: sentence" whose key names the op's place
# (ops[I].), an op described twice (in a set, or in a set and a file) is refused
# naming both; on a device the set runs its ops' cases and a training step, mixed
# with a one-op file, and a mutant in one op of the set fails that op's cases only
# (and the training step, which runs it).
#   usage: test_interface_set.sh Q4CTS SOURCE_DIR WORK_DIR IFACE_BIN
# IFACE_BIN: build/tests/interfaces (et_vk.json, its modules, mutants/, webgpu/).
set -uo pipefail
q4cts=$1 src=$2 work=$3 bin=$4
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
also() { checks=$((checks + 1)); grep -qE -- "$1" out.txt || fail "no line of the last output matches '$1'"; }
# edit IN OUT PYTHON: OUT is the JSON of IN with the statement PYTHON applied to `f`.
edit() {
  python3 -c "import json,sys,copy; f=json.load(open(sys.argv[1])); $3; json.dump(f, open(sys.argv[2], 'w'))" "$1" "$2" ||
    fail "editing $1 into $2 failed"
}
# set.json: et_vk.json with its modules by absolute path, so that copies here find them
edit "$bin/et_vk.json" set.json "
for o in f['ops']:
    for s in o['steps']: s['spirv'] = '$bin/' + s['spirv']"
ops=$(python3 -c "import json; print(' '.join(o['op'] for o in json.load(open('set.json'))['ops']))")
[ "$ops" = "adamw_step dequantize fused_ce linear_dW linear_q4gsw linear_q4gsw_backward q4gsw_requant" ] ||
  fail "et_vk.json holds the ops '$ops', not the seven examples in the order this test names them"
# the set is the one-op files, op by op (made from them at build time, never by hand)
checks=$((checks + 1))
python3 - "$bin/et_vk.json" "$src/tests/interfaces" <<'EOF' || fail "et_vk.json differs from the one-op files"
import json, sys
s = json.load(open(sys.argv[1]))
for o in s["ops"]:
    one = json.load(open(f"{sys.argv[2]}/{o['op']}/{o['op']}.json"))
    for st in one["steps"]:
        st["spirv"] = f"{o['op']}/{st['spirv']}"
    assert o == one, o["op"]
EOF
run() { "$q4cts" run --filter "$1" --interface "$2"; }

# ---- what a set describes: a line per op, naming its place ----
expect 0 '^interface set.json \(ops\[0\]\): op adamw_step, kernel adamw_step.adamw; no preconditions$' -- \
  "$q4cts" kernels --interface set.json
also '^interface set.json \(ops\[6\]\): op q4gsw_requant, kernels q4gsw_requant.pack, q4gsw_requant.pack_flat; '
checks=$((checks + 1)); [ "$(grep -c '^interface set.json (ops\[[0-6]\]): op ' out.txt)" -eq 7 ] ||
  fail "kernels --interface set.json does not describe the 7 ops"

# ---- refused before any case: the set ----
a='q4cts.adamw_step.*'
edit set.json s_obj.json 'f["ops"] = {}'
expect 2 '^q4cts: s_obj.json: ops: expected an array, got object$' -- run "$a" s_obj.json
edit set.json s_empty.json 'f["ops"] = []'
expect 2 '^q4cts: s_empty.json: ops: an empty kernel set: describe at least one op$' -- run "$a" s_empty.json
edit set.json s_many.json 'f["ops"] = f["ops"] * 5'
expect 2 '^q4cts: s_many.json: ops: 35 ops; a kernel set describes at most 32$' -- run "$a" s_many.json
edit set.json s_key.json 'f["name"] = "et_vk"'
expect 2 '^q4cts: s_key.json: \(top level\): unknown key "name" \(expected: format, ops\)$' -- run "$a" s_key.json
edit set.json s_noops.json 'del f["ops"]'
expect 2 '^q4cts: s_noops.json: \(top level\): missing key "ops"$' -- run "$a" s_noops.json
edit set.json s_nested.json 'f["ops"][1] = {"format": "q4cts-interface-set-1", "ops": [f["ops"][1]]}'
expect 2 '^q4cts: s_nested.json: ops\[1\].format: a kernel set holds descriptions of ops \("q4cts-interface-1"\), not another set$' -- run "$a" s_nested.json
edit set.json s_str.json 'f["ops"][2] = "fused_ce.json"'
expect 2 '^q4cts: s_str.json: ops\[2\]: expected an object, got string$' -- run "$a" s_str.json
edit set.json s_fmt.json 'f["ops"][3]["format"] = "q4cts-interface-2"'
expect 2 '^q4cts: s_fmt.json: ops\[3\].format: expected "q4cts-interface-1"$' -- run "$a" s_fmt.json
edit set.json s_opkey.json 'f["ops"][4]["requirs"] = []'
expect 2 '^q4cts: s_opkey.json: ops\[4\]: unknown key "requirs" \(expected: format, op, requires, scratch, steps\)$' -- run "$a" s_opkey.json
# a one-op file with the set's key, or a set with an op's: each refused as what it says it is
edit set.json s_one.json 'f["format"] = "q4cts-interface-1"'
expect 2 '^q4cts: s_one.json: \(top level\): unknown key "ops" \(expected: format, op, requires, scratch, steps\)$' -- run "$a" s_one.json
edit set.json s_fmt_top.json 'f["format"] = "q4cts-interface-set-2"'
expect 2 '^q4cts: s_fmt_top.json: \(top level\): unknown key "ops"' -- run "$a" s_fmt_top.json
# every key path below an op starts with its place
edit set.json s_layout.json 'f["ops"][2]["steps"][1]["bindings"][0]["layout"] = "w4x8"'
expect 2 '^q4cts: s_layout.json: ops\[2\].steps\[1\].bindings\[0\].layout: tensor dlogits of op fused_ce cannot have layout "w4x8" \(expected "fp32"\)$' -- run "$a" s_layout.json
edit set.json s_step.json 'f["ops"][2]["steps"][1]["folds"] = True'
expect 2 '^q4cts: s_step.json: ops\[2\].steps\[1\]: unknown key "folds"' -- run "$a" s_step.json
edit set.json s_expr.json 'f["ops"][0]["steps"][0]["workgroups"][0] = "ceil_div(numel, 64"'
expect 2 '^q4cts: s_expr.json: ops\[0\].steps\[0\].workgroups\[0\]: bad expression: ' -- run "$a" s_expr.json
edit set.json s_req.json 'f["ops"][5]["requires"] = [{"condition": "lr > 0"}]'
expect 2 "^q4cts: s_req.json: ops\[5\].requires\[0\].condition: bad expression: at character 1: unknown name 'lr'" -- run "$a" s_req.json
edit set.json s_scratch.json 'f["ops"][1]["scratch"] = [{"name": "tmp", "bytes": 64}]'
expect 2 '^q4cts: s_scratch.json: ops\[1\].scratch\[0\]: scratch buffer "tmp" is never bound$' -- run "$a" s_scratch.json
edit set.json s_unbound.json 'del f["ops"][0]["steps"][0]["bindings"][3]'
expect 2 '^q4cts: s_unbound.json: ops\[0\].steps: no step binds tensor ' -- run "$a" s_unbound.json
edit set.json s_float.json 'f["ops"][0]["steps"][0]["push_constants"][0]["value"] = 1e39; f["ops"][0]["steps"][0]["push_constants"][0]["type"] = "float"'
expect 2 '^q4cts: s_float.json: ops\[0\].steps\[0\].push_constants\[0\].value: the value 1e\+39 is beyond the range of fp32' -- run "$a" s_float.json
# the modules are checked after the whole set's own keys, and named by the op's place
edit set.json s_entry.json 'f["ops"][3]["steps"][0]["entry"] = "nope"'
expect 2 '^q4cts: s_entry.json: ops\[3\].steps\[0\].entry: the module does not match: it has no GLCompute entry point "nope"$' -- run "$a" s_entry.json
edit set.json s_spirv.json 'f["ops"][6]["steps"][1]["spirv"] = "set.json"'
expect 2 '^q4cts: s_spirv.json: ops\[6\].steps\[1\].spirv: .*set.json is not a SPIR-V module' -- run "$a" s_spirv.json
# modules relative to the set file's own folder: a copy elsewhere does not find them
mkdir -p away && cp "$bin/et_vk.json" away/et_vk.json
expect 2 '^q4cts: away/et_vk.json: ops\[0\].steps\[0\].spirv: cannot read away/adamw_step/adamw_step.spv' -- run "$a" away/et_vk.json
# a set of WGSL ops under Vulkan, naming the op's place
expect 2 '^q4cts: .*et_webgpu.json: ops\[0\].steps\[0\].wgsl: a WGSL step runs only with --api webgpu' -- \
  run "$a" "$bin/webgpu/et_webgpu.json"

# ---- an op described twice ----
edit set.json s_dup.json 'f["ops"].append(copy.deepcopy(f["ops"][1]))'
expect 2 '^q4cts: s_dup.json: ops\[7\].op: op dequantize is described at ops\[1\] too; a kernel set describes each op once$' -- run "$a" s_dup.json
edit set.json one_adamw.json 'f = f["ops"][0]'
expect 2 '^q4cts: --interface: set.json \(ops\[0\]\) and one_adamw.json both describe op adamw_step; give one description per op$' -- \
  "$q4cts" run --filter "$a" --interface set.json --interface one_adamw.json
expect 2 '^q4cts: --interface: one_adamw.json and set.json \(ops\[0\]\) both describe op adamw_step; ' -- \
  "$q4cts" run --filter "$a" --interface one_adamw.json --interface set.json
expect 2 '^q4cts: --interface: set.json \(ops\[0\]\) and set.json \(ops\[0\]\) both describe op adamw_step; ' -- \
  "$q4cts" run --filter "$a" --interface set.json --interface set.json

# ---- which ops a run must use: a set's unused ops are no error; a set none of whose
# ops runs is, as a one-op file of an op no case runs ----
edit set.json two.json 'f["ops"] = f["ops"][1:3]'
expect 2 '^q4cts: --interface two.json is a kernel set none of whose 2 ops \(dequantize, \.\.\.\) a selected case runs; ' -- \
  run "$a" two.json
expect 2 '^q4cts: --interface one_adamw.json is for op adamw_step, which no selected case runs' -- \
  "$q4cts" run --filter 'q4cts.dequantize.*' --interface two.json --interface one_adamw.json

if "$q4cts" devices >/dev/null 2>&1; then
  # ---- the set runs its ops' cases, mixed with a one-op file ----
  edit set.json no_dq.json 'del f["ops"][1]'
  expect 0 'result: PASS' -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.adamw_step.*' --filter 'q4cts.dequantize.*' --filter 'q4cts.fused_ce.*' \
    --interface no_dq.json --interface "$bin/dequantize/dequantize.json" --shader-coverage cov.info
  also '^interface no_dq.json \(ops\[0\]\): op adamw_step, '
  also '^interface .*dequantize.json: op dequantize, '
  also '^Pass +q4cts.dequantize.'
  also '^Pass +q4cts.fused_ce.'
  # coverage names each module's op in a set: two ops may name a step alike
  also '^ *adamw_step.adamw .*\(interface kernel no_dq.json:adamw_step.adamw\)$'
  also '^ *fused_ce.grad .*\(interface kernel no_dq.json:fused_ce.grad\)$'
  also '^ *dequantize.dequant .*\(interface kernel dequantize.json:dequant\)$'
  # a training step through the set: every op of every step is the set's kernel
  tc=q4cts.train.linear1.m32_k32_v8_g16_t8_l300
  expect 0 "^Pass +$tc " -- run 'q4cts.train.*' set.json
  also 'result: PASS'
  # an expression that fails on a case's values names the op's place
  edit set.json s_zero.json 'f["ops"][0]["steps"][0]["workgroups"][0] = "numel / (step - step)"'
  expect 1 'message: invalid argument: s_zero.json: ops\[0\].steps\[0\].workgroups\[0\]: division by zero' -- \
    run q4cts.adamw_step.wd_on.n1024_t1_w1 s_zero.json
  # ---- a mutant in one op of the set: its op's cases fail, the others' pass, and
  # the training step that runs it fails ----
  mut="$bin/mutants/adamw_bias_correction_swapped/adamw_step.spv"
  [ -f "$mut" ] || fail "no $mut"
  edit set.json mutant.json "f['ops'][0]['steps'][0]['spirv'] = '$mut'"
  expect 1 '^Fail +q4cts.adamw_step.wd_on.n1024_t1_w1 ' -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.adamw_step.wd_on.*' --filter 'q4cts.dequantize.*' --filter 'q4cts.linear_dW.*' \
    --filter "$tc" --interface mutant.json
  also '^Fail +q4cts.train.linear1.m32_k32_v8_g16_t8_l300 '
  checks=$((checks + 1))
  ! grep -E '^(Fail|QualityWarning|InternalError) +q4cts\.(dequantize|linear_dW)\.' out.txt ||
    fail "the mutant of adamw_step failed another op's cases"
  also '^Pass +q4cts.dequantize.'
  also '^Pass +q4cts.linear_dW.'
else
  echo "no Vulkan device: the sets are not run"
fi
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
