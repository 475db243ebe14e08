#!/usr/bin/env bash
# test_resource_spec.sh: ctest -j gives each GPU test a device of its own. The resource
# spec harness/resource_spec.cmake writes from `q4cts devices` (faked here: two GPUs
# and a CPU device, a CPU device alone, none), the build's own spec, RESOURCE_GROUPS
# on every test that runs on a device (labels gpu, mutation, perf), and a run on the
# device ctest gives it
# (CTEST_RESOURCE_GROUP_0_GPUS).
#   usage: test_resource_spec.sh Q4CTS SOURCE_DIR BUILD_DIR WORK_DIR
set -uo pipefail
q4cts=$1 src=$2 build=$3 work=$4
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# The spec's gpus as "id/slots ..." .
gpus() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["version"]=={"major":1,"minor":0}; print(" ".join("%s/%d" % (g["id"], g["slots"]) for g in d["local"][0]["gpus"]))' "$1"; }
spec() { cmake -DQ4CTS="$1" -DOUT="$2" -P "$src/harness/resource_spec.cmake"; }
cores=$(nproc)

cat >two-gpus.sh <<'SH'
#!/bin/sh
echo '0: llvmpipe (LLVM 15.0.6, 256 bits) (cpu, vendor 0x10005)'
echo '   driver llvmpipe 0.0.1 (Mesa), Vulkan 1.3.230'
echo '1: NVIDIA H200 (discrete, vendor 0x10de)'
echo '2: NVIDIA H200 (discrete, vendor 0x10de)'
SH
cat >cpu-only.sh <<'SH'
#!/bin/sh
echo '0: llvmpipe (LLVM 15.0.6, 256 bits) (cpu, vendor 0x10005)'
SH
printf '#!/bin/sh\necho "q4cts: no Vulkan device found" >&2\nexit 2\n' >none.sh
chmod +x two-gpus.sh cpu-only.sh none.sh
checks=$((checks + 3))
spec ./two-gpus.sh two.json && [ "$(gpus two.json)" = "1/1 2/1" ] || fail "two GPUs and a CPU device: $(gpus two.json)"
spec ./cpu-only.sh cpu.json && [ "$(gpus cpu.json)" = "0/$cores" ] || fail "a CPU device alone: $(gpus cpu.json), expected 0/$cores"
spec ./none.sh none.json && [ "$(gpus none.json)" = "none/1000" ] || fail "no device: $(gpus none.json)"

# The build's spec exists and every GPU test takes one gpus slot.
checks=$((checks + 1))
gpus "$build/gpu-resources.json" >/dev/null || fail "the build wrote no valid $build/gpu-resources.json"
checks=$((checks + 1))
(cd "$build" && ctest --show-only=json-v1) >tests.json 2>/dev/null || fail "ctest --show-only failed"
report=$(python3 - tests.json <<'PY'
import json, sys
tests = json.load(open(sys.argv[1]))["tests"]
gpu, bad = 0, []
for t in tests:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if not {"gpu", "mutation", "perf"} & set(props.get("LABELS", [])):
        continue
    gpu += 1
    want = [{"requirements": [{".type": "gpus", "slots": 1}]}]
    if props.get("RESOURCE_GROUPS") != want:
        bad.append(t["name"])
print(gpu, " ".join(bad[:5]))
PY
)
read -r n_gpu missing <<<"$report"
[ "${n_gpu:-0}" -gt 60 ] && [ -z "$missing" ] || fail "device tests without RESOURCE_GROUPS gpus:1 ($n_gpu GPU tests): $missing"

# A run goes to the device ctest gave it; a device that is not there is an error.
if "$q4cts" devices 2>/dev/null | grep -q '^0: '; then
  n=$("$q4cts" devices | grep -c '^[0-9]*: ')
  CTEST_RESOURCE_GROUP_0_GPUS=id:0,slots:1 expect 0 'result: PASS' -- "$q4cts" run --filter 'q4cts.adamw_step.unaligned.*'
  CTEST_RESOURCE_GROUP_0_GPUS=id:$n,slots:1 expect 2 "ctest gave this test device $n \(CTEST_RESOURCE_GROUP_0_GPUS=id:$n,slots:1\) but there are $n devices" -- "$q4cts" run --filter 'q4cts.adamw_step.unaligned.*'
  CTEST_RESOURCE_GROUP_0_GPUS=id:none,slots:1 expect 0 'result: PASS' -- "$q4cts" run --filter 'q4cts.adamw_step.unaligned.*'
fi

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
