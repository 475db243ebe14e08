#!/usr/bin/env bash
# H200, the session's last build: the mustpass under --strict, the forward through the
# tensor cores (--mma-min-m 1: linear_slice_i8 changed), the 2^28 huge_grad edge case
# with both products precise, and --race-check on cases with shared memory.
#   . .gl/prologue.sh; bash docs/results/h200-2026-12-02-s6/r5/final.sh   (carry .gl build/harness)
set -u
q=build/harness/q4cts
$q run --strict --caselist cases/mustpass.txt --json "$OUT/mustpass.json" > "$OUT/mustpass.txt" 2>&1
$q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' > "$OUT/mma.txt" 2>&1
$q run --strict --filter q4cts.adamw_step.custom.n268435459_t10000_w1.huge_grad > "$OUT/huge.txt" 2>&1
timeout 150 $q run --race-check --filter 'q4cts.fused_ce.basic.*' --filter 'q4cts.linear_q4gsw.tile_aligned.*' \
  --filter 'q4cts.linear_dW.tile_aligned.*' --mma-min-m 1 > "$OUT/race.txt" 2>&1
tail -n 4 "$OUT"/*.txt
