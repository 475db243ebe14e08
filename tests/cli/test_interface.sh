#!/usr/bin/env bash
# test_interface.sh: --interface files (docs/interface-format.md). The file that
# `kernels --interface` prints for each built-in single-dispatch kernel, run with our
# own SPIR-V, passes the mustpass cases of its op; an adamw_step variant in another
# runtime's conventions (local size and workgroup width by specialisation constants,
# the size in a uniform ivec4, a scratch buffer) passes through its own file; and each
# broken file is refused with exit 2 and a sentence naming the key, or, for an
# expression that fails on a case's values, gives that case InternalError.
#   usage: test_interface.sh Q4CTS GLSLANG_VALIDATOR SOURCE_DIR WORK_DIR SPV_DIR
set -uo pipefail
q4cts=$1 glslang=$2 src=$3 work=$4 spv=$5
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
shaders="$src/gpu/shaders"
# edit IN OUT PYTHON: OUT is the JSON of IN with the statement PYTHON applied to `f`.
edit() {
  python3 -c "import json,sys; f=json.load(open(sys.argv[1])); $3; json.dump(f, open(sys.argv[2], 'w'))" "$1" "$2" ||
    fail "editing $1 into $2 failed"
}
# also PATTERN: a line of the last expect's output matches PATTERN too.
also() { checks=$((checks + 1)); grep -qE -- "$1" out.txt || fail "no line of the last output matches '$1'"; }
for k in adamw_step dequantize q4gsw_requant_w4x8; do
  "$q4cts" kernels --interface $k >$k.json || fail "kernels --interface $k failed"
  cp "$spv/$k.spv" . || fail "no $spv/$k.spv"
done
expect 2 'no built-in kernel of that name is described by an interface file \(those that are: adamw_step, dequantize, q4gsw_requant_w4x8\)' -- \
  "$q4cts" kernels --interface linear_q4gsw_tiled
# run1 FILE: one adamw case (the device checks of a file's values)
run1() { "$q4cts" run --filter q4cts.adamw_step.wd_on.n1024_t1_w1 --interface "$1"; }
run() { "$q4cts" run --filter "q4cts.$1.*" --exclude 'q4cts.*.random.*' --interface "$2"; }
a=adamw_step.json d=dequantize.json

# ---- refused before any case: the file ----
echo '{"format": "q4cts-interface-1", "op": ' >trunc.json
expect 2 'trunc.json: \(top level\): the file is not valid JSON: it ends in the middle of a value' -- run adamw_step trunc.json
# strictly JSON (RFC 8259): what json-c alone would take is refused, saying where
sed 's/"op": "adamw_step"/"op": "dequantize", "op": "adamw_step"/' $a >dupkey.json
expect 2 'dupkey.json: \(top level\): the file is not valid JSON here: the object at line 1, column 1 has the key "op" twice' -- run adamw_step dupkey.json
sed "s/\"update\"/'update'/" $a >quote.json
expect 2 'quote.json: \(top level\): the file is not valid JSON: a string must be in double quotes \(line' -- run adamw_step quote.json
expect 2 'cannot read nowhere.json' -- run adamw_step nowhere.json
edit $a fmt.json 'f["format"] = "v2"'
expect 2 'fmt.json: format: expected "q4cts-interface-1"' -- run adamw_step fmt.json
edit $a key.json 'f["steps"][0]["folds"] = True'
expect 2 'key.json: steps\[0\]: unknown key "folds"' -- run adamw_step key.json
edit $a op.json 'f["op"] = "adam"'
expect 2 'op.json: op: unknown op "adam"' -- run adamw_step op.json
edit $a tensor.json 'f["steps"][0]["bindings"][1]["tensor"] = "gradient"'
expect 2 'tensor.json: steps\[0\].bindings\[1\].tensor: op adamw_step has no tensor "gradient" \(its tensors: param, grad, m, v\)' -- run adamw_step tensor.json
edit $d layout.json 'f["steps"][0]["bindings"][1]["layout"] = "fp32"'
expect 2 'layout.json: steps\[0\].bindings\[1\].layout: tensor scales of op dequantize cannot have layout "fp32" \(expected "scales"\)' -- run dequantize layout.json
edit $d stride.json 'f["steps"][0]["bindings"][0]["row_stride"] = "N"'
expect 2 'stride.json: steps\[0\].bindings\[0\].row_stride: only layouts "scales" and "flat" have a row stride' -- run dequantize stride.json
# a flat weight's row pitch and the padding's value: refused where they cannot apply
edit "$src/tests/interfaces/linear_q4gsw_backward/linear_q4gsw_backward.json" pad_nostride.json 'f["steps"][0]["bindings"][2]["padding"] = 0'
expect 2 'pad_nostride.json: steps\[0\].bindings\[2\].padding: padding fills the rows of a row stride: give "row_stride" too' -- run linear_q4gsw_backward pad_nostride.json
edit "$src/tests/interfaces/linear_q4gsw_backward/linear_q4gsw_backward.json" pad_byte.json 'f["steps"][0]["bindings"][2]["row_stride"] = "K"; f["steps"][0]["bindings"][2]["padding"] = 256'
expect 2 'pad_byte.json: steps\[0\].bindings\[2\].padding: a flat weight.s padding is a byte: an integer 0 to 255' -- run linear_q4gsw_backward pad_byte.json
edit "$src/tests/interfaces/linear_q4gsw_backward/linear_q4gsw_backward.json" pad_str.json 'f["steps"][0]["bindings"][3]["row_stride"] = "N + 1"; f["steps"][0]["bindings"][3]["padding"] = "nan"'
expect 2 'pad_str.json: steps\[0\].bindings\[3\].padding: expected a number, got string' -- run linear_q4gsw_backward pad_str.json
# a written flat weight may have padded rows, at one row stride: written at two, it
# would be two buffers for the one output judged; scales are never written
rq_wgsl="$src/tests/interfaces/webgpu/q4gsw_requant"
edit "$rq_wgsl/q4gsw_requant.json" two_pitch.json "import copy; s = f['steps'][0]; s['wgsl'] = '$rq_wgsl/q4gsw_requant_flat.wgsl'; t = copy.deepcopy(s); t['name'] = 'again'; t['bindings'][0]['row_stride'] = 'align(K, 8) / 2'; f['steps'].append(t)"
expect 2 'two_pitch.json: steps\[1\].bindings\[0\]: tensor w is written in layout flat here and at steps\[0\].bindings\[0\] with another row stride or padding; q4cts judges one buffer of each layout' -- \
  "$q4cts" run --api webgpu --filter 'q4cts.q4gsw_requant.*' --interface two_pitch.json
edit "$rq_wgsl/q4gsw_requant.json" scales_out.json 'f["steps"][0]["bindings"][2]["access"] = "write"'
expect 2 'scales_out.json: steps\[0\].bindings\[2\].access: tensor scales is an input of op q4gsw_requant: its access must be "read"' -- \
  "$q4cts" run --api webgpu --filter 'q4cts.q4gsw_requant.*' --interface scales_out.json
edit $a expr.json 'f["steps"][0]["workgroups"][0] = "ceil_div(numel, 4"'
expect 2 'expr.json: steps\[0\].workgroups\[0\]: bad expression: at character 18: expected .\). after the arguments of ceil_div' -- run adamw_step expr.json
edit $a name.json 'f["steps"][0]["push_constants"][0]["value"] = "N"'
expect 2 "name.json: steps\[0\].push_constants\[0\].value: bad expression: at character 1: unknown name 'N' \(this op has: numel step lr beta1 beta2 eps wd bc1 bc2;" -- run adamw_step name.json
edit $a real.json 'f["steps"][0]["push_constants"][0]["value"] = "numel * lr"'
expect 2 'real.json: steps\[0\].push_constants\[0\].value: the value is real where an integer is needed' -- run adamw_step real.json
edit $d unwritten.json 'f["steps"][0]["bindings"][2]["access"] = "read"'
expect 2 'unwritten.json: steps\[0\].bindings\[2\]: output wf \(layout fp32\) is bound but never written' -- run dequantize unwritten.json
edit $a inplace.json 'f["steps"][0]["bindings"][0]["access"] = "write"'
expect 2 'inplace.json: steps\[0\].bindings\[0\].access: op adamw_step updates tensor param in place: its access must be "read_write"' -- run adamw_step inplace.json
edit $a unbound.json 'del f["steps"][0]["bindings"][3]'
expect 2 'unbound.json: steps: no step binds tensor v of op adamw_step' -- run adamw_step unbound.json
edit $a gap.json 'f["steps"][0]["bindings"][3]["binding"] = 5'
expect 2 'gap.json: steps\[0\].bindings: bindings must be numbered 0 to n-1; binding 3 is missing' -- run adamw_step gap.json
edit $a set.json 'f["steps"][0]["bindings"][3]["set"] = 1'
expect 2 'set.json: steps\[0\].bindings\[3\].set: only descriptor set 0 is allowed' -- run adamw_step set.json
edit $a scratch.json 'f["scratch"] = [{"name": "tmp", "bytes": 64}]'
expect 2 'scratch.json: scratch\[0\]: scratch buffer "tmp" is never bound' -- run adamw_step scratch.json
expect 2 'adamw_step.json: steps\[0\].spirv: a SPIR-V step runs only with --api vulkan' -- \
  "$q4cts" run --api webgpu --filter 'q4cts.adamw_step.*' --interface $a
expect 2 '--interface is for run \(and kernels --interface NAME\); perf runs q4cts.s own kernels' -- \
  "$q4cts" perf --filter 'q4cts.adamw_step.*' --interface $a
cp $a two.json
expect 2 'adamw_step.json and two.json both describe op adamw_step' -- \
  "$q4cts" run --filter 'q4cts.adamw_step.*' --interface $a --interface two.json

# preconditions ("requires"): refused when malformed, naming the key
edit $a req_type.json 'f["requires"] = {"condition": "numel > 0"}'
expect 2 'req_type.json: requires: expected an array, got object' -- run adamw_step req_type.json
edit $a req_key.json 'f["requires"] = [{"condition": "numel > 0", "why": "x"}]'
expect 2 'req_key.json: requires\[0\]: unknown key "why" \(expected: condition, message\)' -- run adamw_step req_key.json
edit $a req_missing.json 'f["requires"] = [{"message": "x"}]'
expect 2 'req_missing.json: requires\[0\]: missing key "condition"' -- run adamw_step req_missing.json
edit $a req_real.json 'f["requires"] = [{"condition": "lr * 2"}]'
expect 2 'req_real.json: requires\[0\].condition: a condition is an integer \(0: false\), such as a comparison; this one is real' -- run adamw_step req_real.json
edit $a req_expr.json 'f["requires"] = [{"condition": "numel % 8 = 0"}]'
expect 2 "req_expr.json: requires\[0\].condition: bad expression: at character 11: '=' is not an operator: compare with ==" -- run adamw_step req_expr.json
edit $a req_name.json 'f["requires"] = [{"condition": "N % 8 == 0"}]'
expect 2 "req_name.json: requires\[0\].condition: bad expression: at character 1: unknown name 'N'" -- run adamw_step req_name.json
edit $a req_num.json 'f["requires"] = [{"condition": 1}]'
expect 2 'req_num.json: requires\[0\].condition: expected a string, got int' -- run adamw_step req_num.json
edit $a req_msg.json 'f["requires"] = [{"condition": "numel > 0", "message": "two\nlines"}]'
expect 2 'req_msg.json: requires\[0\].message: a message is one line of printable text' -- run adamw_step req_msg.json
edit $a req_many.json 'f["requires"] = [{"condition": "numel > 0"}] * 17'
expect 2 'req_many.json: requires: 17 preconditions; at most 16 are allowed' -- run adamw_step req_many.json
# what a file claims: its preconditions, and how many cases of its op they keep
edit $a req.json 'f["requires"] = [{"condition": "numel % 2048 == 0", "message": "needs whole blocks of 2048 elements"}, {"condition": "max_workgroups_x >= 1000000000"}]'
expect 0 '^interface req.json: op adamw_step, kernel adamw_step.update; requires numel % 2048 == 0 \([0-9]+ cases outside\); max_workgroups_x >= 1000000000 \(on the device\)' -- \
  "$q4cts" kernels --interface req.json

# field types of two and three components, and optional bindings: refused when misused
edit $a vec3n.json 'f["steps"][0]["push_constants"][1] = {"name": "eb", "type": "vec3", "value": ["eps", "wd"]}'
expect 2 'vec3n.json: steps\[0\].push_constants\[1\].value: a vec3 takes an array of 3 values' -- run adamw_step vec3n.json
edit $a ivec2r.json 'f["steps"][0]["push_constants"][0] = {"name": "ni", "type": "ivec2", "value": ["numel", "lr"]}'
expect 2 'ivec2r.json: steps\[0\].push_constants\[0\].value\[1\]: the value is real where an integer is needed' -- run adamw_step ivec2r.json
edit $a opt_in.json 'f["steps"][0]["bindings"][1]["optional"] = True'
expect 2 'opt_in.json: steps\[0\].bindings\[1\].optional: tensor grad of op adamw_step is not optional: every case has it' -- run adamw_step opt_in.json
lin_src="$src/tests/interfaces/linear_q4gsw/linear_q4gsw.json"
edit "$lin_src" opt_type.json 'f["steps"][0]["bindings"][4]["optional"] = "yes"'
expect 2 'opt_type.json: steps\[0\].bindings\[4\].optional: expected a boolean, got string' -- run linear_q4gsw opt_type.json

# ---- refused before any case: the module ----
edit $a push.json 'f["steps"][0]["push_constants"].pop()'
expect 2 'push.json: steps\[0\].push_constants: the module does not match: the file.s push constants fill 28 bytes, the module.s block is 32 bytes' -- run adamw_step push.json
edit $d readonly.json 'b = f["steps"][0]["bindings"]; b[0]["binding"], b[2]["binding"] = 2, 0'
expect 2 'readonly.json: steps\[0\].bindings\[2\]: the module does not match: binding 0 \(tensor wf\) is readonly in the module but the file writes it' -- run dequantize readonly.json
edit $a extra.json 'f["steps"][0]["bindings"].append({"binding": 4, "tensor": "grad", "layout": "fp32", "access": "read"})'
expect 2 'extra.json: steps\[0\].bindings\[4\]: the module does not match: binding 4 \(tensor grad\) is not declared by the module' -- run adamw_step extra.json
edit $a spec.json 'f["steps"][0]["spec_constants"] = [{"id": 7, "type": "uint", "value": 1}]'
expect 2 'spec.json: steps\[0\].spec_constants\[0\]: the module does not match: the module has no specialisation constant 7' -- run adamw_step spec.json
edit $a local.json 'f["steps"][0]["local_size"] = [128, 1, 1]'
expect 2 'local.json: steps\[0\].local_size: the module does not match: local_size\[0\] is 128, the module.s is 256' -- run adamw_step local.json
edit $a ids.json 'f["steps"][0]["local_size_ids"] = [0, 1, 2]'
expect 2 'ids.json: steps\[0\].local_size: the module does not match: local_size_ids\[0\] is 0, but the module.s local size in x is a literal' -- run adamw_step ids.json
edit $a entry.json 'f["steps"][0]["entry"] = "update"'
expect 2 'entry.json: steps\[0\].entry: the module does not match: it has no GLCompute entry point "update"' -- run adamw_step entry.json
edit $a spirv.json 'f["steps"][0]["spirv"] = "adamw_step.json"'
expect 2 'spirv.json: steps\[0\].spirv: .*adamw_step.json is not a SPIR-V module' -- run adamw_step spirv.json

# ---- another runtime's conventions, compiled here and refused when mis-described ----
sed -e 's/^layout(local_size_x = 256) in;/layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;\nlayout(constant_id = 3) const uint GROUP = 1u;\nlayout(set = 0, binding = 4) uniform Sizes { ivec4 sizes; } u;\nlayout(set = 0, binding = 5) buffer Scratch { uint seen[]; };/' \
    -e 's/\* 256u +/* GROUP +/' -e 's/pc\.n\b/uint(u.sizes.x)/g' \
    -e 's/        p4\[i\] = p;/        p4[i] = p;\n        if (i == 0u) seen[0] = 1u;/' "$shaders/adamw_step.comp" >et.comp
"$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o et.spv et.comp || fail "et.comp does not compile"
edit $a et.json 's = f["steps"][0]; s["spirv"] = "et.spv"; s["local_size"] = ["64", 1, 1]; s["local_size_ids"] = [0, 1, 2]; s["spec_constants"] = [{"id": 3, "type": "uint", "value": "min(64, 128)"}]; s["push_constants"][0]["value"] = 0; s["workgroups"][0] = "ceil_div(ceil_div(numel, 4), 64)"; s["bindings"] += [{"binding": 4, "uniform": [{"name": "sizes", "type": "ivec4", "value": ["numel", 1, 1, 1]}]}, {"binding": 5, "scratch": "seen"}]; f["scratch"] = [{"name": "seen", "bytes": "4 * 3 - 1"}]'
edit et.json et_type.json 'f["steps"][0]["bindings"][4] = {"binding": 4, "scratch": "seen"}'
expect 2 'et_type.json: steps\[0\].bindings\[4\]: the module does not match: binding 4 is a uniform buffer in the module; the file makes it scratch seen, which needs a storage buffer' -- run adamw_step et_type.json
edit et.json et_small.json 'f["steps"][0]["bindings"][4]["uniform"][0]["type"] = "int"; f["steps"][0]["bindings"][4]["uniform"][0]["value"] = "numel"'
expect 2 'et_small.json: steps\[0\].bindings\[4\]: the module does not match: binding 4: the module.s uniform block is 16 bytes; the file.s fields fill 4' -- run adamw_step et_small.json
edit et.json et_ids.json 'f["steps"][0]["local_size_ids"] = [1, 0, 2]'
expect 2 'et_ids.json: steps\[0\].local_size: the module does not match: local_size_ids\[0\] is 1, but the module.s local size in x comes from another specialisation constant' -- run adamw_step et_ids.json
edit et.json et_noids.json 'del f["steps"][0]["local_size_ids"]'
expect 2 'et_noids.json: steps\[0\].local_size: the module does not match: the module takes its local size in x from specialisation constant 0: give its id in local_size_ids' -- run adamw_step et_noids.json
edit $a varlocal.json 'f["steps"][0]["local_size"][0] = "min(numel, 256)"'
expect 2 'varlocal.json: steps\[0\].local_size: the module does not match: local_size\[0\] must be a constant: the module.s local size is a literal' -- run adamw_step varlocal.json

if "$q4cts" devices >/dev/null 2>&1; then
  # ---- the printed files pass their op's mustpass with our own SPIR-V ----
  for k in adamw_step dequantize q4gsw_requant_w4x8; do
    expect 0 "result: PASS" -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
      --filter "q4cts.${k%_w4x8}.*" --interface $k.json
  done
  # --shader-coverage probes the file's modules and names them OP.STEP, saying what ran
  expect 0 'adamw_step.update +[0-9.]+% of +[0-9]+ (lines|blocks).*\(interface kernel adamw_step.json:update\)$' -- \
    "$q4cts" run --filter q4cts.adamw_step.wd_on.n1024_t1_w1 --interface $a --shader-coverage cov.info
  # a wrong value fails the cases (the file is really what runs)
  edit $a lr.json 'f["steps"][0]["push_constants"][1]["value"] = "lr * 2"'
  expect 1 'Fail +q4cts.adamw_step.wd_on.n1024_t1_w1' -- run1 lr.json
  expect 0 "result: PASS" -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.adamw_step.*' --interface et.json --bounds-check
  # --bounds-check names what ran: the interface kernel FILE:STEP, not an "(override)"
  sed 's/        if (i == 0u) seen\[0\] = 1u;/        if (i < 8u) seen[i] = 1u;/' et.comp >et_oob.comp
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o et_oob.spv et_oob.comp || fail "et_oob.comp does not compile"
  edit et.json et_oob.json 'f["steps"][0]["spirv"] = "et_oob.spv"'
  expect 1 'message: .*interface kernel et_oob.json:update wrote past the data of binding 5: a 4-byte store at byte offset 12 ' -- \
    "$q4cts" run --filter q4cts.adamw_step.wd_on.n1024_t1_w1 --interface et_oob.json --bounds-check
  # and counts every access past it: invocations 3 to 7 each store one word too far
  also '; 5 out-of-bounds accesses in all: interface kernel et_oob.json:update binding 5: 5 at 1 site \(store at byte 12\)$'
  # the local size comes from the file: a wrong one skips elements and fails
  edit et.json et32.json 'f["steps"][0]["local_size"][0] = 32'
  expect 1 'Fail +q4cts.adamw_step' -- run1 et32.json
  # ---- errors of one case's values: InternalError naming the key ----
  edit $a zero.json 'f["steps"][0]["workgroups"][0] = "numel / (step - step)"'
  expect 1 'message: invalid argument: zero.json: steps\[0\].workgroups\[0\]: division by zero \(1024 / 0\)' -- run1 zero.json
  also '^InternalError +q4cts.adamw_step.wd_on.n1024_t1_w1 ' 
  edit $a range.json 'f["steps"][0]["push_constants"][0]["value"] = "0 - numel"'
  expect 1 'range.json: steps\[0\].push_constants\[0\].value: the value -[0-9]+ is outside \[0, 4294967295\]' -- run1 range.json
  # an x count above the device limit, folding not allowed: NotSupported naming the step
  edit $a nofold.json 'f["steps"][0]["fold"] = False; f["steps"][0]["workgroups"][0] = "numel * 100000"'
  expect 0 '^NotSupported +q4cts.adamw_step.wd_on.n1024_t1_w1 .*\(not supported: nofold.json: kernel adamw_step.update: [0-9]+ workgroups in x exceed the device.s maxComputeWorkGroupCount\[0\] = [0-9]+ \(the kernel does not accept a folded grid\)\)' -- run1 nofold.json
  # Sizes the file makes (a row stride up to 2^31-1, a scratch buffer's bytes) are
  # checked against the device's binding limit before any memory is taken for them:
  # NotSupported at once (a 1 GiB one took 40 s and 3.2 GB before it was refused).
  dq=q4cts.dequantize.odd_n4.n12_k32_g32
  for stride in 2147483647 268435456; do
    edit $d stride$stride.json "f['steps'][0]['bindings'][1]['row_stride'] = $stride"
    expect 0 "^NotSupported +$dq .*stride$stride.json: steps\[0\].bindings\[1\].row_stride: a row stride of $stride makes the scales buffer longer than the [0-9]+ bytes the device binds" -- \
      "$q4cts" run --filter $dq --interface stride$stride.json
  done
  # preconditions: a case outside them is NotSupported with the file's own sentence,
  # before anything is made for it; one naming a device limit is decided on the device
  expect 0 '^interface req.json: op adamw_step, kernel adamw_step.update; requires numel % 2048 == 0 \(1 case outside\); max_workgroups_x >= 1000000000 \(on the device\): 0 of the 1 selected cases of op adamw_step are within them, the others NotSupported' -- run1 req.json
  also '^NotSupported +q4cts.adamw_step.wd_on.n1024_t1_w1 .*\(not supported: req.json: requires\[0\]: needs whole blocks of 2048 elements\)'
  expect 0 '^NotSupported +q4cts.adamw_step.wd_on.n4096_t10_w1 .*\(not supported: req.json: requires\[1\]: requires max_workgroups_x >= 1000000000\)' -- \
    "$q4cts" run --filter q4cts.adamw_step.wd_on.n4096_t10_w1 --interface req.json
  # a condition that holds runs the case; the planted bug (a condition ignored or
  # inverted) would make this NotSupported or the ones above Pass
  edit $a req_ok.json 'f["requires"] = [{"condition": "numel % 1024 == 0 && max_workgroups_x >= 1 && (step > 0 ? 1 : 0)"}]'
  expect 0 '^Pass +q4cts.adamw_step.wd_on.n1024_t1_w1 ' -- run1 req_ok.json
  edit $a req_zero.json 'f["requires"] = [{"condition": "numel / (step - step) > 0"}]'
  expect 1 'message: invalid argument: req_zero.json: requires\[0\].condition: division by zero \(1024 / 0\)' -- run1 req_zero.json
  also '^InternalError +q4cts.adamw_step.wd_on.n1024_t1_w1 '
  # the activation's leading dims by name: rank and d0..d3 (outermost first, 1 past the
  # rank, M their product), here in preconditions of the ExecuTorch-style forward
  lin="$work/../interfaces/linear_q4gsw"
  edit "$lin/linear_q4gsw.json" dims.json "f['steps'][0]['spirv'] = '$lin/q4gsw_linear_tiled.spv'; f['requires'] = [{'condition': 'M == d0 * d1 * d2 * d3 && (rank < 4 ? d3 == 1 : 1) && (rank < 2 ? d1 == 1 : 1)', 'message': 'the dims are wrong'}, {'condition': 'rank <= 2 && (rank < 2 || d1 != 3)', 'message': 'takes no S of 3, nor more than [B, S, K]'}]"
  expect 0 '^Pass +q4cts.linear_q4gsw.leading_dims.d2x4_n32_k64_g32 ' -- \
    "$q4cts" run --filter 'q4cts.linear_q4gsw.leading_dims.*' --filter q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1 --interface dims.json
  also '^Pass +q4cts.linear_q4gsw.leading_dims.d1x1_n8_k16_g16 '
  also '^Pass +q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1 '
  also '^NotSupported +q4cts.linear_q4gsw.leading_dims.d2x3_n16_k32_g32 .*dims.json: requires\[1\]: takes no S of 3'
  also '^NotSupported +q4cts.linear_q4gsw.leading_dims.d3x5x2_n12_k32_g16 .*dims.json: requires\[1\]'
  also '^NotSupported +q4cts.linear_q4gsw.leading_dims.d2x2x2x2_n16_k64_g64 .*dims.json: requires\[1\]'
  checks=$((checks + 1)); ! grep -q 'the dims are wrong' out.txt || fail "the leading dims' values are wrong"
  edit et.json bigscratch.json 'f["scratch"][0]["bytes"] = 1073741824'
  expect 0 '^NotSupported +q4cts.adamw_step.wd_on.n1024_t1_w1 .*bigscratch.json: scratch\[0\].bytes: 1073741824 bytes of scratch are more than the [0-9]+ bytes the device binds' -- run1 bigscratch.json
  # push-constant fields of every vector type at their std430 offsets (a vec2 aligned to
  # 8, a vec3 or ivec3 to 16, a float packed after a vec3): adamw's block rewritten as
  # uint @0, vec2 @8, float @16, vec3 @32, float @44, ivec2 @48, uvec2 @56, ivec3 @64
  # (76 bytes), none at an offset a 4-byte alignment would give; a wrong offset or
  # component fails the cases
  sed -e '/^layout(push_constant) uniform Push {/,/^} pc;/c\layout(push_constant) uniform Push {\n    uint n0;\n    vec2 betas;\n    float lr;\n    vec3 eb;\n    float bc2;\n    ivec2 ni;\n    uvec2 nu;\n    ivec3 n3;\n} pc;\n#define PC_N (uint(pc.ni.y + pc.ni.x + pc.n3.z + pc.n3.y) + pc.nu.y - pc.nu.x + pc.n0)' \
      -e 's/pc\.n\b/PC_N/g' -e 's/pc\.beta1/pc.betas.x/g' -e 's/pc\.beta2/pc.betas.y/g' \
      -e 's/pc\.eps/pc.eb.x/g' -e 's/pc\.wd/pc.eb.y/g' -e 's/pc\.bc1/pc.eb.z/g' "$shaders/adamw_step.comp" >vec.comp
  "$glslang" --target-env vulkan1.1 -V --quiet -I"$shaders" -o vec.spv vec.comp || fail "vec.comp does not compile"
  edit $a vec.json 's = f["steps"][0]; s["spirv"] = "vec.spv"; s["push_constants"] = [{"name": "n0", "type": "uint", "value": 0}, {"name": "betas", "type": "vec2", "value": ["beta1", "beta2"]}, {"name": "lr", "type": "float", "value": "lr"}, {"name": "eb", "type": "vec3", "value": ["eps", "wd", "bc1"]}, {"name": "bc2", "type": "float", "value": "bc2"}, {"name": "ni", "type": "ivec2", "value": [-7, "numel"]}, {"name": "nu", "type": "uvec2", "value": [3, 3]}, {"name": "n3", "type": "ivec3", "value": [99, 2, 5]}]'
  expect 0 "result: PASS" -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.adamw_step.*' --interface vec.json
  # a component in the wrong place is the kernel's wrong value (the file is what runs)
  edit vec.json vec_swap.json 'f["steps"][0]["push_constants"][3]["value"] = ["wd", "eps", "bc1"]'
  expect 1 'Fail +q4cts.adamw_step.wd_on.n1024_t1_w1' -- run1 vec_swap.json
  edit vec.json vec_size.json 'f["steps"][0]["push_constants"].pop()'
  expect 2 'vec_size.json: steps\[0\].push_constants: the module does not match: the file.s push constants fill 64 bytes, the module.s block is 76 bytes' -- run adamw_step vec_size.json
  # an optional binding: the ExecuTorch-style forward with its bias always added
  # (has_bias 1): a case without a bias gets a bias of zeros, and passes; bound
  # "optional": false, such a case is NotSupported with the file's key
  lin="$work/../interfaces/linear_q4gsw"
  edit "$lin/linear_q4gsw.json" opt.json "f['steps'][0]['spirv'] = '$lin/q4gsw_linear_tiled.spv'; f['steps'][0]['spec_constants'][0]['value'] = 1"
  expect 0 "result: PASS" -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.linear_q4gsw.*' --exclude 'q4cts.*.random.*' --interface opt.json
  also '^Pass +q4cts.linear_q4gsw.grouped.m24_n32_k36_g12 '
  edit opt.json opt_req.json "f['steps'][0]['bindings'][4]['optional'] = False"
  expect 0 '^NotSupported +q4cts.linear_q4gsw.grouped.m24_n32_k36_g12 .*opt_req.json: steps\[0\].bindings\[4\].optional: the kernel needs a bias \(the file binds it "optional": false\), and this case has none' -- \
    "$q4cts" run --filter q4cts.linear_q4gsw.grouped.m24_n32_k36_g12 --filter q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1 --interface opt_req.json
  also '^Pass +q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1 '
  # a flat weight with padded rows (row_stride in bytes, here K rounded up past K to a
  # multiple of 8 nibbles): the ExecuTorch-style backward told the pitch by a
  # specialisation constant passes; told the packed pitch, it reads padding and fails
  bwd="$work/../interfaces/linear_q4gsw_backward"
  sed -e 's/^layout(constant_id = 3) const int group_size = 32;/&\nlayout(constant_id = 4) const int ROW_BYTES = 1;/' \
      -e 's/const int byte = n \* (K \/ 2) + 2 \* k4;/const int byte = n * ROW_BYTES + 2 * k4;/' \
      "$src/tests/interfaces/linear_q4gsw_backward/q4gsw_linear_bwd_flat.comp" >pitch.comp
  grep -q 'n \* ROW_BYTES' pitch.comp || fail "pitch.comp: the row pitch was not edited in"
  "$glslang" --target-env vulkan1.1 -V --quiet -o pitch.spv pitch.comp || fail "pitch.comp does not compile"
  edit "$bwd/linear_q4gsw_backward.json" pitch.json 's = f["steps"][0]; s["spirv"] = "pitch.spv"; s["spec_constants"].append({"id": 4, "type": "int", "value": "align(K + 1, 8) / 2"}); s["bindings"][2]["row_stride"] = "align(K + 1, 8) / 2"'
  expect 0 "result: PASS" -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.linear_q4gsw_backward.*' --exclude 'q4cts.*.random.*' --interface pitch.json
  edit pitch.json pitch_packed.json 'f["steps"][0]["spec_constants"][1]["value"] = "K / 2"'
  expect 1 'Fail +q4cts.linear_q4gsw_backward' -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.linear_q4gsw_backward.*' --exclude 'q4cts.*.random.*' --interface pitch_packed.json
  edit pitch.json pitch_big.json 'f["steps"][0]["bindings"][2]["row_stride"] = 2147483647'
  expect 0 '^NotSupported +q4cts.linear_q4gsw_backward.* pitch_big.json: steps\[0\].bindings\[2\].row_stride: a row stride of 2147483647 makes the flat weight longer than the [0-9]+ bytes the device binds' -- \
    "$q4cts" run --filter 'q4cts.linear_q4gsw_backward.grouped.*' --interface pitch_big.json
  # the padding holds the file's byte: a kernel that adds the first padding byte's low
  # nibble, less 8, to every weight passes with "padding": 136 (0x88, zero) and fails
  # with the default (0xff: 7), as a kernel that reads padding as data should
  sed 's/    return vec4(codes) - 8\.0;/    const int pb = n * ROW_BYTES + K \/ 2;\n    const float pad = float((t_weight[pb >> 2] >> (8 * (pb \& 3))) \& 0xFu) - 8.0;\n    return vec4(codes) - 8.0 + pad;/' pitch.comp >padread.comp
  grep -q 'float pad' padread.comp || fail "padread.comp: the padding read was not edited in"
  "$glslang" --target-env vulkan1.1 -V --quiet -o padread.spv padread.comp || fail "padread.comp does not compile"
  edit pitch.json padread.json 'f["steps"][0]["spirv"] = "padread.spv"; f["steps"][0]["bindings"][2]["padding"] = 136'
  expect 0 "result: PASS" -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.linear_q4gsw_backward.grouped.*' --interface padread.json
  edit padread.json padread_default.json 'del f["steps"][0]["bindings"][2]["padding"]'
  expect 1 'Fail +q4cts.linear_q4gsw_backward.grouped' -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.linear_q4gsw_backward.grouped.*' --interface padread_default.json
  # a written flat weight with padded rows (tests/interfaces/q4gsw_requant/: the
  # kernel pads each row with code 8, bytes 0x88, as the file's "padding" says): its
  # padding starts as the file's byte, 0xff without one, and must hold it after the
  # run, so the same kernel fails against the default, naming binding, row and byte;
  # a row stride beyond the device's binding is NotSupported before any memory
  rq="$work/../interfaces/q4gsw_requant"
  edit "$rq/q4gsw_requant.json" rq_default.json "f['steps'][0]['spirv'] = '$rq/q4gsw_requant_w4x8.spv'; f['steps'][1]['spirv'] = '$rq/q4gsw_requant_flat.spv'; del f['steps'][1]['bindings'][0]['padding']"
  expect 1 'message: the padding of steps\[1\].bindings\[0\] \(tensor w, layout flat, rows of 20 bytes\) was written: row n=0, byte 18 of its 20 \(data: bytes 0 to 17\) is 0x88, not the padding 0xff it held before the run$' -- \
    "$q4cts" run --filter q4cts.q4gsw_requant.odd_n4.n12_k36_g12 --interface rq_default.json
  also '^Fail +q4cts.q4gsw_requant.odd_n4.n12_k36_g12 '
  # the rows are compacted from the file's pitch: unpadded rows (K % 8 == 0) pass too
  expect 0 '^Pass +q4cts.q4gsw_requant.odd_n4.n12_k32_g32 ' -- \
    "$q4cts" run --filter q4cts.q4gsw_requant.odd_n4.n12_k32_g32 --interface rq_default.json
  # a kernel that leaves the padding bytes as it found them (the row's last word
  # merged in with atomics) passes with the default padding and with the file's: the
  # padding is filled before the run, not only compared after it
  sed -e 's/^layout(set = 0, binding = 0) writeonly buffer restrict PackedBuf/layout(set = 0, binding = 0) buffer PackedBuf/' \
      -e 's/^    t_packed\[n \* row_words + w\] = word;/    if (8 * w + 8 <= K) {\n&\n    } else {\n        const uint data = (1u << (4 * (K - 8 * w))) - 1u;\n        atomicAnd(t_packed[n * row_words + w], word | ~data);\n        atomicOr(t_packed[n * row_words + w], word \& data);\n    }/' \
      "$src/tests/interfaces/q4gsw_requant/q4gsw_requant_flat.comp" >keep.comp
  grep -q '^layout(set = 0, binding = 0) buffer PackedBuf' keep.comp && grep -q 'atomicOr(t_packed' keep.comp ||
    fail "keep.comp: the atomic merge was not edited in"
  "$glslang" --target-env vulkan1.1 -V --quiet -o keep.spv keep.comp || fail "keep.comp does not compile"
  edit rq_default.json rq_keep.json 'f["steps"][1]["spirv"] = "keep.spv"'
  expect 0 'result: PASS' -- "$q4cts" run --caselist "$src/cases/mustpass.txt" \
    --filter 'q4cts.q4gsw_requant.*' --interface rq_keep.json
  also '^Pass +q4cts.q4gsw_requant.odd_n4.n12_k36_g12 '
  edit rq_keep.json rq_keep88.json 'f["steps"][1]["bindings"][0]["padding"] = 136'
  expect 0 '^Pass +q4cts.q4gsw_requant.odd_n4.n12_k36_g12 ' -- \
    "$q4cts" run --filter q4cts.q4gsw_requant.odd_n4.n12_k36_g12 --interface rq_keep88.json
  edit rq_default.json rq_big.json 'f["steps"][1]["bindings"][0]["row_stride"] = 2147483647'
  expect 0 '^NotSupported +q4cts.q4gsw_requant.odd_n4.n12_k36_g12 .*rq_big.json: steps\[1\].bindings\[0\].row_stride: a row stride of 2147483647 makes the flat weight longer than the [0-9]+ bytes the device binds' -- \
    "$q4cts" run --filter q4cts.q4gsw_requant.odd_n4.n12_k36_g12 --interface rq_big.json
  # a pitch below the packed row is the case's InternalError naming the key
  edit pitch.json pitch_short.json 'f["steps"][0]["bindings"][2]["row_stride"] = "K / 2 - 1"'
  expect 1 'pitch_short.json: steps\[0\].bindings\[2\].row_stride: the value [0-9]+ is outside \[[0-9]+, 2147483647\] for this case' -- \
    "$q4cts" run --caselist "$src/cases/mustpass.txt" --filter 'q4cts.linear_q4gsw_backward.*' --exclude 'q4cts.*.random.*' --interface pitch_short.json
else
  echo "no Vulkan device: the files are not run"
fi
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
