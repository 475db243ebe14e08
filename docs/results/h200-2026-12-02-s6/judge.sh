#!/usr/bin/env bash
# H200: the perf list and the big edge shapes judged under --strict (issue: judges that
# never cry wolf). Run from the repository root after `. .gl/prologue.sh`, as
#   bash docs/results/h200-2026-12-02-s6/judge.sh perf|edges|again
# (again: after the fixes the edges run found, the cases it failed and the new value
# classes of the mustpass)
# with carry .gl and build/harness; results under $OUT.
set -u
q=build/harness/q4cts
case "$1" in
  perf)  $q devices > "$OUT/devices.txt" 2>&1
         /usr/bin/time -v $q run --strict --caselist cases/perf.txt --json "$OUT/perf-strict.json" \
           > "$OUT/perf-strict.txt" 2> "$OUT/perf-strict.time" ;;
  edges) /usr/bin/time -v $q run --strict --caselist cases/big-edges.txt --json "$OUT/edges-strict.json" \
           > "$OUT/edges-strict.txt" 2> "$OUT/edges-strict.time" ;;
  again) /usr/bin/time -v $q run --strict --filter 'q4cts.adamw_step.*.*.huge_grad' \
           --filter q4cts.adamw_step.custom.n268435459_t10000_w1.huge_grad \
           --filter q4cts.dequantize.custom.n32736_k32768_g128 --filter 'q4cts.*.*.*.far_logits' \
           --filter 'q4cts.adamw_step.*.*.llm_hyper' --filter 'q4cts.adamw_step.*.*.tiny_grad' \
           --json "$OUT/again-strict.json" > "$OUT/again-strict.txt" 2> "$OUT/again-strict.time"
         $q run --strict --caselist cases/mustpass.txt --json "$OUT/mustpass-strict.json" \
           > "$OUT/mustpass-strict.txt" 2>&1 ;;
esac
tail -n 20 "$OUT"/*-strict.txt
