#!/usr/bin/env bash
# test_wgsl_checks.sh: WGSL steps of interface files (docs/interface-format.md): the
# file's rules (exit 2, "FILE: KEY: why"), the WebGPU worker's checks of each module
# before any case (compilation, entry point, overrides, bindings against the
# pipeline's layout; each op of a kernel set, its keys starting "ops[I]."), and a
# case's grid folded or refused against lowered limits.
#   usage: test_wgsl_checks.sh Q4CTS SOURCE_DIR WORK_DIR ICD
# Exit 77 only when Node.js, Dawn's package or Mesa 25's lavapipe is missing outside CI
# (tests/needs.sh).
set -uo pipefail
q4cts=$1 src=$2 work=$3 icd=$4
. "$src/tests/needs.sh" webgpu "$src" "$icd"
. "$src/tests/cli/expect.sh"
export VK_DRIVER_FILES=$icd
unset LD_PRELOAD   # see tests/webgpu/test_webgpu.sh
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
ex=$src/tests/interfaces/webgpu/dequantize
cp "$ex/q4gsw_dequantize_flat.wgsl" k.wgsl
one=(--filter 'q4cts.dequantize.odd_n4.n4_k16_g16')

# file BINDINGS [STEP-KEYS] [WGSL]: f.json, the dequantize example with these bindings,
# extra keys in its step and its module (default k.wgsl).
file() {
  cat >f.json <<JSON
{ "format": "q4cts-interface-1", "op": "dequantize",
  "steps": [ { "name": "dequant", "wgsl": "${3:-k.wgsl}", ${2:-}
    "overrides": [ { "name": "WG_SIZE", "type": "uint", "value": 64 } ],
    "bindings": [ $1 ],
    "workgroups": ["ceil_div(K / 2, 64)", "N", 1] } ] }
JSON
}
b0='{ "binding": 0, "tensor": "wf", "layout": "fp32", "access": "write" }'
b1='{ "binding": 1, "tensor": "w", "layout": "flat", "access": "read" }'
b2='{ "binding": 2, "tensor": "scales", "layout": "scales", "access": "read" }'
u3='{ "binding": 3, "uniform": [ { "name": "N", "type": "uint", "value": "N" },
     { "name": "K", "type": "uint", "value": "K" }, { "name": "group_size", "type": "uint", "value": "gs" },
     { "name": "scales_stride", "type": "uint", "value": "N" } ] }'
run() { "$q4cts" run --api webgpu --strict "${one[@]}" --interface f.json "$@"; }

# ---- the file's own rules (no worker needed) ----
file "$b0, $b1, $b2, $u3"
expect 0 'Pass +q4cts.dequantize.odd_n4.n4_k16_g16' -- run
expect 2 'f.json: steps\[0\].wgsl: a WGSL step runs only with --api webgpu' -- \
  "$q4cts" run "${one[@]}" --interface f.json
file "$b0, $b1, $b2, $u3" '"spirv": "k.spv",'
expect 2 'steps\[0\]: a step has one module: "spirv" or "wgsl", not both' -- run
file "$b0, $b1, $b2, $u3" '"local_size": [64, 1, 1],'
expect 2 'steps\[0\].local_size: "local_size" is a SPIR-V step.s key' -- run
file "$b0, $b1, $b2, $u3" '"push_constants": [],'
expect 2 'steps\[0\].push_constants: "push_constants" is a SPIR-V step.s key' -- run
file '{ "set": 0, "binding": 0, "tensor": "wf", "layout": "fp32", "access": "write" }'
expect 2 'steps\[0\].bindings\[0\].set: "set" is a SPIR-V step.s key; a WGSL binding names its "group"' -- run
file '{ "group": 4, "binding": 0, "tensor": "wf", "layout": "fp32", "access": "write" }'
expect 2 'steps\[0\].bindings\[0\].group: expected an integer from 0 to 3' -- run
file "$b0, $b1, $b2, $u3, { \"group\": 0, \"binding\": 1, \"tensor\": \"w\", \"layout\": \"flat\", \"access\": \"read\" }"
expect 2 'steps\[0\].bindings\[4\].binding: @group\(0\) @binding\(1\) is described twice' -- run
# a vector field where the module has two scalars: the struct's size differs
file "$b0, $b1, $b2, { \"binding\": 3, \"uniform\": [ { \"name\": \"NK\", \"type\": \"uvec2\", \"value\": [\"N\", \"K\"] } ] }"
expect 2 'steps\[0\].bindings\[3\]: the module.s uniform struct at @group\(0\) @binding\(3\) is 16 bytes; the file.s fields fill 8' -- run
file "$b0, $b1, $b2, $u3" '' missing.wgsl
expect 2 'steps\[0\].wgsl: cannot read .*missing.wgsl' -- run
printf 'fn main() {}\0' >nul.wgsl
file "$b0, $b1, $b2, $u3" '' nul.wgsl
expect 2 'steps\[0\].wgsl: .*nul.wgsl is not WGSL source: it holds a NUL byte' -- run
cat >g.json <<'JSON'
{ "format": "q4cts-interface-1", "op": "adamw_step",
  "steps": [ { "name": "a", "spirv": "a.spv", "local_size": [64, 1, 1],
    "overrides": [ { "name": "X", "type": "uint", "value": 1 } ],
    "bindings": [ { "binding": 0, "group": 0, "tensor": "param", "layout": "fp32", "access": "read_write" } ],
    "workgroups": [1, 1, 1] } ] }
JSON
expect 2 'g.json: steps\[0\].overrides: "overrides" is a WGSL step.s key' -- "$q4cts" run --interface g.json
sed -i 's/"overrides": \[[^]]*\],//' g.json
expect 2 'g.json: steps\[0\].bindings\[0\].group: "group" is a WGSL step.s key' -- "$q4cts" run --interface g.json
cat >h.json <<JSON
{ "format": "q4cts-interface-1", "op": "dequantize",
  "steps": [ { "name": "a", "wgsl": "k.wgsl", "bindings": [ $b0, $b1, $b2, $u3 ], "workgroups": [1, 1, 1] },
             { "name": "b", "spirv": "k.spv", "local_size": [1, 1, 1], "bindings": [ $b0 ], "workgroups": [1, 1, 1] } ] }
JSON
expect 2 'h.json: steps\[1\]: a SPIR-V step in a file of WGSL steps: one file runs on one API' -- \
  "$q4cts" run --api webgpu --interface h.json
for bad in '"name": "9lives"' '"name": "a-b"'; do
  sed "s/\"name\": \"WG_SIZE\"/$bad/" f.json >o.json
  expect 2 'o.json: steps\[0\].overrides\[0\].name: expected the name of a WGSL override' -- \
    "$q4cts" run --api webgpu --interface o.json
done
sed 's/{ "name": "WG_SIZE", "type": "uint", "value": 64 }/{ "name": "7", "type": "uint", "value": 64 }, { "name": "7", "type": "int", "value": 1 }/' \
  f.json >o.json
expect 2 'o.json: steps\[0\].overrides\[1\].name: override "7" is given twice' -- \
  "$q4cts" run --api webgpu --interface o.json

# ---- the worker's checks of the module, before any case ----
echo 'fn main( {' >broken.wgsl
file "$b0, $b1, $b2, $u3" '' broken.wgsl
expect 2 'f.json: steps\[0\].wgsl: the module does not compile: line 1:' -- run
file "$b0, $b1, $b2, $u3" '"entry": "nowhere",'
expect 2 'f.json: steps\[0\].entry: Dawn cannot make the pipeline: Entry point ""nowhere"" doesn.t exist' -- run
sed 's/"WG_SIZE"/"WG"/' f.json >o.json && mv o.json f.json
file "$b0, $b1, $b2, $u3"
sed -i 's/"WG_SIZE"/"WG"/' f.json
expect 2 'f.json: steps\[0\].overrides: Dawn cannot make the pipeline: Pipeline overridable constant ""WG"" not found' -- run
file "$b0, $b1, $b2"
expect 2 'f.json: steps\[0\].bindings: the entry point uses @group\(0\) @binding\(3\) \(a uniform buffer\), which the file does not describe' -- run
file "$b0, $b1, $b2, $u3, { \"group\": 1, \"binding\": 0, \"scratch\": \"s\" }"
sed -i 's/"steps"/"scratch": [ { "name": "s", "bytes": 16 } ], "steps"/' f.json
expect 2 'f.json: steps\[0\].bindings\[4\]: the entry point does not use @group\(1\) @binding\(0\)' -- run
file "$b0, $b1, $b2, { \"binding\": 3, \"scratch\": \"s\" }"
sed -i 's/"steps"/"scratch": [ { "name": "s", "bytes": 16 } ], "steps"/' f.json
expect 2 'f.json: steps\[0\].bindings\[3\]: @group\(0\) @binding\(3\) is a uniform buffer in the module; the file makes it a storage buffer' -- run
sed 's/var<storage, read_write> t_out/var<storage, read> t_out/; s/^  t_out\[\(.*\)\] = /  _ = t_out[\1] + /' k.wgsl >ro.wgsl
file "$b0, $b1, $b2, $u3" '' ro.wgsl
expect 2 'f.json: steps\[0\].bindings\[0\]: @group\(0\) @binding\(0\) is var<storage, read> in the module, but the file writes it' -- run
file "$b0, $b1, $b2, { \"binding\": 3, \"uniform\": [ { \"name\": \"N\", \"type\": \"uint\", \"value\": \"N\" } ] }"
expect 2 'f.json: steps\[0\].bindings\[3\]: the module.s uniform struct at @group\(0\) @binding\(3\) is 16 bytes; the file.s fields fill 4' -- run

# the uniform struct's members, read from the source: names, types, count; a struct
# each field against the module's struct member of its place, by name and type
file "$b0, $b1, $b2, ${u3/group_size/gs}"
expect 2 'f.json: steps\[0\].bindings\[3\].uniform\[2\]: the field is "gs" \(uint\); member 2 of the module.s struct Sizes is "group_size" \(uint\)' -- run
file "$b0, $b1, $b2, ${u3/\"uint\", \"value\": \"K\"/\"float\", \"value\": \"K\"}"
expect 2 'f.json: steps\[0\].bindings\[3\].uniform\[1\]: the field is "K" \(float\); member 1 of the module.s struct Sizes is "K" \(uint\)' -- run
u5="${u3%\] \}}, { \"name\": \"pad\", \"type\": \"uint\", \"value\": 0 } ] }"
file "$b0, $b1, $b2, $u5"
expect 2 'f.json: steps\[0\].bindings\[3\].uniform: the module.s struct Sizes has 4 members \(N: uint, K: uint, group_size: uint, scales_stride: uint\); the file gives 5 fields' -- run
# a vector member: described by a vector field of the same type, named by member
sed 's/^  group_size: u32,/  gk: vec2<u32>,/; /^  scales_stride: u32,/d; s/sizes.group_size/sizes.gk.x/; s/sizes.scales_stride/sizes.gk.y/' k.wgsl >v2.wgsl
uv='{ "binding": 3, "uniform": [ { "name": "N", "type": "uint", "value": "N" },
     { "name": "K", "type": "uint", "value": "K" }, { "name": "gk", "type": "uvec2", "value": ["gs", "N"] } ] }'
file "$b0, $b1, $b2, $uv" '' v2.wgsl
expect 0 'Pass +q4cts.dequantize.odd_n4.n4_k16_g16' -- run
file "$b0, $b1, $b2, $u3" '' v2.wgsl
expect 2 'f.json: steps\[0\].bindings\[3\].uniform: the module.s struct Sizes has 3 members \(N: uint, K: uint, gk: uvec2\); the file gives 4 fields' -- run
file "$b0, $b1, $b2, ${uv/uvec2/ivec2}" '' v2.wgsl
expect 2 'f.json: steps\[0\].bindings\[3\].uniform\[2\]: the field is "gk" \(ivec2\); member 2 of the module.s struct Sizes is "gk" \(uvec2\)' -- run
# a member the file cannot describe (an attribute): the struct's size is checked only
sed 's/^  group_size: u32,/  @size(4) group_size: u32,/' k.wgsl >attr.wgsl
file "$b0, $b1, $b2, $u3" '' attr.wgsl
expect 0 'Pass +q4cts.dequantize.odd_n4.n4_k16_g16' -- run

# a binding Dawn's layout message does not list as a buffer (a sampler): Dawn's own
# validation of the bind group decides
sed 's/^override WG_SIZE: u32 = 64u;/&\n@group(0) @binding(4) var smp: sampler;/; s/^  let j = gid.x;/  _ = smp;\n&/' k.wgsl >smp.wgsl
file "$b0, $b1, $b2, $u3, { \"binding\": 4, \"scratch\": \"s\" }" '' smp.wgsl
sed -i 's/"steps"/"scratch": [ { "name": "s", "bytes": 16 } ], "steps"/' f.json
expect 2 'f.json: steps\[0\].bindings: Dawn refuses the bindings of @group\(0\) against the module.s layout: ' -- run

# ---- a worker that fails the check message: it ends, or answers with another frame
# (a stand-in worker.mjs that says hello, then does as FAKE says) ----
mkdir -p fake
cat >fake/worker.mjs <<'JS'
import fs from 'node:fs';
const frame = (type, json) => {
    const body = Buffer.from(JSON.stringify(json));
    const head = Buffer.alloc(16);
    head.writeUInt32LE(0x47573451, 0); head.writeUInt32LE(type, 4);
    head.writeUInt32LE(body.length, 8); head.writeUInt32LE(0, 12);
    fs.writeSync(4, Buffer.concat([head, body]));
};
frame(1, { protocol: 1, adapter: {}, features: [], timestamps: false, node: 'fake', webgpu: 'fake',
           limits: { maxStorageBufferBindingSize: 1 << 27, maxBufferSize: 1 << 28,
                     maxComputeWorkgroupsPerDimension: 65535,
                     maxComputeWorkgroupStorageSize: 16384,
                     maxComputeInvocationsPerWorkgroup: 256 } });
fs.readSync(3, Buffer.alloc(16), 0, 16, null);   // the check message's head
if (process.env.FAKE === 'hello')
    frame(1, { protocol: 1 });
process.exit(0);
JS
file "$b0, $b1, $b2, $u3"
expect 2 'the WebGPU worker did not check f.json: it ended' -- env Q4CTS_WEBGPU_DIR="$PWD/fake" FAKE=gone \
  Q4CTS_WGSL_DIR="$src/gpu/wgsl" "$q4cts" run --api webgpu "${one[@]}" --interface f.json
expect 2 'the WebGPU worker did not check f.json: it answered with another frame' -- \
  env Q4CTS_WEBGPU_DIR="$PWD/fake" FAKE=hello Q4CTS_WGSL_DIR="$src/gpu/wgsl" \
  "$q4cts" run --api webgpu "${one[@]}" --interface f.json

# ---- overrides of every type, constant or not (the check gives 1 to those that
# depend on the case) ----
sed 's/^override WG_SIZE: u32 = 64u;/&\noverride ONE: f32;\noverride HALF: f32;\noverride ZERO: i32;/; s/) \* s;$/) * s * ONE * (2.0 * HALF) + f32(ZERO);/' \
  k.wgsl >ov.wgsl
grep -q 'ONE \* (2.0 \* HALF) + f32(ZERO)' ov.wgsl || fail "ov.wgsl was not made"
file "$b0, $b1, $b2, $u3" '' ov.wgsl
sed -i 's/{ "name": "WG_SIZE", "type": "uint", "value": 64 }/{ "name": "WG_SIZE", "type": "uint", "value": 64 }, { "name": "ONE", "type": "float", "value": "1.0 * N \/ N" }, { "name": "HALF", "type": "float", "value": 0.5 }, { "name": "ZERO", "type": "int", "value": "N - N" }/' f.json
expect 0 'Pass +q4cts.dequantize.odd_n4.n4_k16_g16' -- run

# ---- a case's values: an override the check could not know, the grid and its limits ----
file "$b0, $b1, $b2, $u3"
sed -i 's/"uint", "value": 64/"uint", "value": "N * 1000"/' f.json
expect 1 'InternalError +q4cts.dequantize.odd_n4.n4_k16_g16' -- run
grep -q 'workgroup_size(4000' out.txt || fail "the pipeline's refusal does not name the workgroup size"
sed -i 's/"N \* 1000"/"N - 100"/' f.json
expect 1 'steps\[0\].overrides\[0\].value: the value -96 is outside \[0, 4294967295\] for this case' -- run
ex_bwd=$src/tests/interfaces/webgpu/linear_q4gsw_backward/linear_q4gsw_backward.json
expect 0 'Pass +q4cts.linear_q4gsw_backward.small_device.m65_n32_k64_g32_groups8 ' -- \
  "$q4cts" run --api webgpu --strict --interface "$ex_bwd" \
  --filter q4cts.linear_q4gsw_backward.small_device.m65_n32_k64_g32_groups8
expect 0 'exceed maxComputeWorkgroupsPerDimension = 4 even folded over y' -- \
  "$q4cts" run --api webgpu --strict --interface "$ex_bwd" \
  --filter q4cts.linear_q4gsw_backward.small_device.m130_n64_k192_g32_groups4
# the example's precondition says what its grid needs (the adapter's limit, lowered by
# the case); without it, the grid itself is refused
expect 0 'NotSupported +q4cts.dequantize.small_device.n64_k512_g32_groups3 .*dequantize.json: requires\[0\]: one weight row per workgroup in y, never folded' -- \
  "$q4cts" run --api webgpu --strict --interface "$ex/dequantize.json" \
  --filter q4cts.dequantize.small_device.n64_k512_g32_groups3
python3 -c "import json,sys; f=json.load(open(sys.argv[1])); del f['requires']; f['steps'][0]['wgsl'] = sys.argv[1].rsplit('/', 1)[0] + '/' + f['steps'][0]['wgsl']; json.dump(f, open('noreq.json', 'w'))" "$ex/dequantize.json" || fail "noreq.json was not made"
expect 0 'exceed maxComputeWorkgroupsPerDimension = 3 \(the kernel does not accept a folded grid\)' -- \
  "$q4cts" run --api webgpu --strict --interface noreq.json \
  --filter q4cts.dequantize.small_device.n64_k512_g32_groups3
expect 0 'buffer wf.fp32 needs [0-9]+ bytes; the case.s lowered limit binds at most 8192' -- \
  "$q4cts" run --api webgpu --strict --interface "$ex/dequantize.json" \
  --filter q4cts.dequantize.small_device.n64_k512_g32_binding8192

# ---- a written flat weight with padded rows, read back from the worker's bytes: the
# example requant kernel made to write rows of K rounded up to 8 codes, padding them
# with code 8 (bytes 0x88, the file's "padding") ----
rqx=$src/tests/interfaces/webgpu/q4gsw_requant
sed -e 's/^  words: u32,/&\n  row_bytes: u32,/' \
    -e 's/^  let row_bytes = sizes.K \/ 2u;/  let row_bytes = sizes.row_bytes;/' \
    -e 's/^    let k = 2u \* (b % row_bytes) + i % 2u;/&\n    if (k >= sizes.K) {\n      word |= 8u << (4u * i);   \/\/ the row.s padding: code 8\n      continue;\n    }/' \
    "$rqx/q4gsw_requant_flat.wgsl" >rows.wgsl
grep -q 'word |= 8u << (4u \* i);' rows.wgsl || fail "rows.wgsl was not made"
python3 -c "
import json, sys
f = json.load(open(sys.argv[1]))
s = f['steps'][0]
s['wgsl'] = sys.argv[2]
f['requires'][0]['condition'] = 'ceil_div(N * align(K, 8) / 8, 64) <= max_workgroups_x'
w = [b for b in s['bindings'] if b.get('tensor') == 'w'][0]
w['row_stride'] = 'align(K, 8) / 2'
w['padding'] = 136
u = [b for b in s['bindings'] if 'uniform' in b][0]['uniform']
u[4]['value'] = 'N * align(K, 8) / 8'
u.append({'name': 'row_bytes', 'type': 'uint', 'value': 'align(K, 8) / 2'})
s['workgroups'][0] = 'ceil_div(N * align(K, 8) / 8, 64)'
json.dump(f, open(sys.argv[3], 'w'))" "$rqx/q4gsw_requant.json" rows.wgsl rows.json || fail "rows.json was not made"
expect 0 'result: PASS' -- "$q4cts" run --api webgpu --strict --caselist "$src/cases/mustpass.txt" \
  --filter 'q4cts.q4gsw_requant.*' --interface rows.json
also '^Pass +q4cts.q4gsw_requant.odd_n4.n12_k36_g12 '
# the padding written (code 0): the case fails, naming the binding, row and byte
sed 's/word |= 8u << (4u \* i);/word |= 0u;/' rows.wgsl >rows0.wgsl
sed 's/"rows.wgsl"/"rows0.wgsl"/' rows.json >rows0.json
expect 1 'message: the padding of steps\[0\].bindings\[0\] \(tensor w, layout flat, rows of 20 bytes\) was written: row n=0, byte 18 of its 20 \(data: bytes 0 to 17\) is 0x00, not the padding 0x88 it held before the run$' -- \
  "$q4cts" run --api webgpu --filter q4cts.q4gsw_requant.odd_n4.n12_k36_g12 --interface rows0.json
# the kernel told the packed pitch while the file says the padded one: wrong codes
sed 's/"value": "align(K, 8) \/ 2"}\]/"value": "K \/ 2"}]/' rows.json >rows_pitch.json
grep -q '"value": "K / 2"}]' rows_pitch.json || fail "rows_pitch.json was not made"
expect 1 '^Fail +q4cts.q4gsw_requant.odd_n4.n12_k36_g12 .*margin inf' -- \
  "$q4cts" run --api webgpu --filter q4cts.q4gsw_requant.odd_n4.n12_k36_g12 --interface rows_pitch.json

# ---- a kernel set (docs/interface-format.md, "Kernel sets"): the worker checks every
# op of it, and its refusals name the op's place ----
python3 - "$src/tests/interfaces/webgpu" >wset.json <<'EOF2' || fail "making wset.json failed"
import json, sys
ops = []
for op in ("adamw_step", "dequantize"):
    f = json.load(open(f"{sys.argv[1]}/{op}/{op}.json"))
    for s in f["steps"]:
        s["wgsl"] = f"{sys.argv[1]}/{op}/{s['wgsl']}"
    ops.append(f)
ops[1]["steps"][0]["entry"] = "nowhere"
print(json.dumps({"format": "q4cts-interface-set-1", "ops": ops}))
EOF2
expect 2 'wset.json: ops\[1\].steps\[0\].entry: Dawn cannot make the pipeline: Entry point ""nowhere"" doesn.t exist' -- \
  "$q4cts" run --api webgpu "${one[@]}" --interface wset.json

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
