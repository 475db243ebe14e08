#!/usr/bin/env bash
# Issue 26.5 ("big cases in seconds"): the two big cases end to end on the H200's host,
# every core (OMP_NUM_THREADS unset: q4cts uses every online core). Run from the repo
# root of a built tree (build/harness/q4cts); writes $OUT/big.json (one case at a time,
# copied to $OUT/big-<op>.json). Prints per case: the process's wall, user, sys and peak
# memory; the case's own time and its phases from the JSON (inputs, truth, GPU kernels,
# and the rest: uploads, read-backs, judging, freeing); the targets are 6 s (adamw) and
# 5 s (fused_ce) end to end.
set -u
OUT=${OUT:-/tmp}
q4cts=build/harness/q4cts
echo "nproc: $(nproc)  OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
grep -m1 'model name' /proc/cpuinfo
free -g | head -2
for c in 'q4cts.adamw_step.custom.n268435459_t7_w1' \
         'q4cts.fused_ce.custom.r4097_v128256_p3.big_logits'; do
  op=$(echo "$c" | cut -d. -f2)
  /usr/bin/time -f "process: %e s wall, %U s user, %S s sys, %M KB peak" \
    "$q4cts" run --filter "$c" --json "$OUT/big.json" 2>&1 |
    grep -E '^(Pass|Fail|QualityWarning|NotSupported|Crash|Timeout|InternalError|ResourceError)|process:'
  cp "$OUT/big.json" "$OUT/big-$op.json"
  python3 - "$OUT/big.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["q4cts"]["results"][0]
ms = lambda k: r[k] if r.get(k) is not None else float("nan")
case_ms = 1e3 * r["seconds"]
rest = case_ms - ms("input_ms") - ms("truth_ms")
print("%s %s\n  case %8.0f ms\n  inputs %6.0f ms\n  truth %7.0f ms\n  gpu %9.1f ms (kernels)\n"
      "  rest %8.0f ms (uploads, kernels, read-backs, judge, free)"
      % (r["verdict"], r["name"], case_ms, ms("input_ms"),
         ms("truth_ms"), ms("gpu_ms"), rest))
PY
done
