#!/usr/bin/env bash
# Session 13, H200 batch c: the merged main (tiled truth, WGSL GEMMs, training perf):
# the big cases (helper's H200-CHUNK.sh), the Vulkan mustpass --strict, and the
# training cases under --mma-min-m 1.
set -u
OUT=${OUT:-/tmp}
q=build/harness/q4cts
t0=$SECONDS
bash devrun/H200-CHUNK.sh 2>&1 | tee $OUT/chunk.txt | grep -vE '^  (upload|readback|rest)'
echo "== mustpass --strict (t = $((SECONDS - t0)) s)"
$q run --strict --caselist cases/mustpass.txt --json $OUT/mustpass.json >$OUT/mustpass.txt 2>&1; echo "rc $?"
grep -E '^result:|^(Fail|Crash|Internal|Quality)' $OUT/mustpass.txt | head
$q run --strict --mma-min-m 1 --caselist cases/mustpass.txt >$OUT/mustpass-mma.txt 2>&1; echo "rc $?"
grep -E '^result:|^(Fail|Crash|Internal|Quality)' $OUT/mustpass-mma.txt | head
echo "done in $((SECONDS - t0)) s"
