#!/usr/bin/env bash
# As devrun/H200-BIGCASES.sh, with the finer phases of the JSON (upload_ms,
# readback_ms, judge_ms) and what is left (launch, dumps, freeing).
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
keys = ["input_ms", "truth_ms", "upload_ms", "gpu_ms", "readback_ms", "judge_ms"]
print("%s %s\n  case %10.0f ms" % (r["verdict"], r["name"], case_ms))
for k in keys:
    print("  %-11s %8.1f ms" % (k[:-3], ms(k)))
print("  rest %10.0f ms (launch, dumps, freeing)" % (case_ms - sum(ms(k) for k in keys)))
PY
done
