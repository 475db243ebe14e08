#!/usr/bin/env bash
# The two big cases of issue 26 with the truth made tile by tile while judging
# (branch chunkjudge): each twice, then once with the whole truth
# (Q4CTS_WHOLE_TRUTH=1) to compare. Prints every phase of the JSON, the process's
# time and peak memory, and whether the tiled and the whole run agree on verdict,
# worst element and both margins (they must, bit for bit). Targets: adamw <= 6 s,
# fused_ce <= 5 s end to end.
set -u
OUT=${OUT:-/tmp}
q4cts=build/harness/q4cts
echo "nproc: $(nproc)  OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}"
grep -m1 'model name' /proc/cpuinfo
free -g | head -2
git log --oneline -1 2>/dev/null
one() {  # one LABEL CASE JSON [env...]
  local label=$1 c=$2 json=$3; shift 3
  env "$@" /usr/bin/time -f "process: %e s wall, %U s user, %S s sys, %M KB peak" \
    "$q4cts" run --filter "$c" --json "$json" 2>&1 |
    grep -E '^(Pass|Fail|QualityWarning|NotSupported|Crash|Timeout|InternalError|ResourceError)|process:'
  python3 - "$json" "$label" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["q4cts"]["results"][0]
ms = lambda k: r[k] if r.get(k) is not None else float("nan")
case_ms = 1e3 * r["seconds"]
keys = ["input_ms", "truth_ms", "upload_ms", "gpu_ms", "readback_ms", "judge_ms"]
print("%s: %s %s (truth_fused %s)\n  case %10.0f ms" % (sys.argv[2], r["verdict"], r["name"],
      r.get("truth_fused"), case_ms))
for k in keys:
    print("  %-11s %8.1f ms" % (k[:-3], ms(k)))
print("  rest %10.0f ms (launch, dumps, freeing)" % (case_ms - sum(ms(k) for k in keys)))
PY
}
for c in 'q4cts.adamw_step.custom.n268435459_t7_w1' \
         'q4cts.fused_ce.custom.r4097_v128256_p3.big_logits'; do
  op=$(echo "$c" | cut -d. -f2)
  one "tiled 1" "$c" "$OUT/chunk-$op-tiled1.json"
  one "tiled 2" "$c" "$OUT/chunk-$op-tiled2.json"
  one "whole" "$c" "$OUT/chunk-$op-whole.json" Q4CTS_WHOLE_TRUTH=1
  python3 - "$OUT/chunk-$op-tiled1.json" "$OUT/chunk-$op-whole.json" <<'PY'
import json, sys
a, b = (json.load(open(f))["q4cts"]["results"][0] for f in sys.argv[1:])
keys = ["verdict", "worst_margin", "stat_margin", "worst_err", "got", "expected", "bound",
        "output", "index", "where", "elements", "message"]
diff = [k for k in keys if a[k] != b[k]]
print("tiled vs whole: %s" % ("the same verdict, worst element and margins" if not diff
      else "DIFFER in " + ", ".join("%s (%r vs %r)" % (k, a[k], b[k]) for k in diff)))
PY
done
