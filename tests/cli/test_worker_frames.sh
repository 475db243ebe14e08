#!/usr/bin/env bash
# test_worker_frames.sh: what the harness reads from the WebGPU worker is checked before
# it is used or memory is taken for it, with a fake worker (fake_worker.py, run by
# python3 in place of Node.js; no GPU needed): a hello of another protocol, without its
# limits or with limits out of range, or that is not strictly JSON stops the run with
# exit 2 and a sentence; a result whose blob claims 2^62 bytes, or more than the buffer
# sent, is that case's InternalError, not an allocation of that size.
#   usage: test_worker_frames.sh Q4CTS SOURCE_DIR WORK_DIR
set -uo pipefail
q4cts=$1 src=$2 work=$3
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work/fake" && cd "$work" || exit 1
cp "$src/tests/cli/fake_worker.py" fake/worker.mjs
export Q4CTS_NODE=python3 Q4CTS_WEBGPU_DIR=$PWD/fake Q4CTS_WGSL_DIR=$src/gpu/wgsl
case=q4cts.dequantize.odd_n4.n12_k32_g32
run() { FAKE_WORKER=$1 "$q4cts" run --api webgpu --timeout 300 --filter $case; }

# the fake itself, behaving: the case runs through it (its outputs are the sentinel)
expect 1 "^Fail +$case" -- run ok
expect 2 'the WebGPU worker could not start: the WebGPU worker speaks protocol 2, not 1' -- run protocol2
expect 2 'the WebGPU worker could not start: the WebGPU worker speaks protocol none, not 1' -- run no-protocol
expect 2 "the WebGPU worker's hello has no limits.maxComputeWorkgroupsPerDimension from 1 to 4294967295" -- run bad-limit
expect 2 "the WebGPU worker's hello has no limits.maxStorageBufferBindingSize from 16 to 9007199254740992" -- run huge-limit
expect 2 "the WebGPU worker's frame header is not valid JSON: .*NaN and Infinity are not JSON" -- run nan
expect 2 "the WebGPU worker's frame header is not valid JSON here: .* has the key \"protocol\" twice" -- run dup-key
expect 2 "the WebGPU worker speaks protocol 2, not 1" -- env FAKE_WORKER=protocol2 "$q4cts" devices --api webgpu
for m in big-blob long-blob; do
  expect 1 "^InternalError +$case " -- run $m
  checks=$((checks + 1))
  grep -qE "message: the WebGPU worker sent a [0-9]+-byte blob; no buffer of the exchange is larger than [0-9]+ bytes" out.txt ||
    fail "$m: the blob's length is not refused: $(cat out.txt)"
done
grep -q "sent a 4611686018427387904-byte blob" <(FAKE_WORKER=big-blob "$q4cts" run --api webgpu --timeout 300 --filter $case 2>&1) ||
  fail "big-blob: the length 2^62 is not named"

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
