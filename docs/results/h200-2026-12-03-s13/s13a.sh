#!/usr/bin/env bash
# Session 13, H200 batch a: training steps through the tensor-core path recorded
# (conditional fallback), the planted launcher bugs, and the whole-step perf vs PyTorch.
set -u
OUT=${OUT:-/tmp}
q=build/harness/q4cts
t0=$SECONDS
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader
echo "== train cases, --mma-min-m 1 --strict (recorded steps; outlier: the fp32 fallback under the flag)"
$q run --strict --filter 'q4cts.train.*' --mma-min-m 1 --json $OUT/train-mma.json >$OUT/train-mma.txt 2>&1; echo "rc $?"
grep -E '^result:|^(Fail|Crash|Internal|Quality)' $OUT/train-mma.txt
python3 - $OUT/train-mma.json <<'PY'
import json, sys
for r in json.load(open(sys.argv[1]))["q4cts"]["results"]:
    t = r["train"]
    print("%-62s %-6s resident %s of %d steps" % (r["name"], r["verdict"], t.get("resident_steps"), len(t["steps"])))
PY
echo "== the same under --validation (synchronisation checks too)"
$q run --strict --validation --filter 'q4cts.train.*' --mma-min-m 1 >$OUT/train-mma-val.txt 2>&1; echo "rc $?"
grep -E '^result:|^(Fail|Crash|Internal|Quality)' $OUT/train-mma-val.txt
echo "== planted: A (fallback recorded under the flag clear), B (GEMM under the flag set)"
for v in A B; do
  devrun/plant$v/q4cts run --strict --filter 'q4cts.train.*' --mma-min-m 1 >$OUT/plant$v.txt 2>&1; echo "plant $v rc $?"
  grep -E '^result:|^(Fail|Crash|Internal)' $OUT/plant$v.txt | cut -c1-220
done
echo "== the mma single-op outlier cases and the gemv/mma linears under --mma-min-m 1 (unchanged path when not recording)"
$q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' >$OUT/linear-mma.txt 2>&1; echo "rc $?"; grep -E '^result:' $OUT/linear-mma.txt
echo "== perf: the whole training steps (t = $((SECONDS - t0)) s)"
grep '^q4cts.train' cases/perf.txt >$OUT/train-perf.txt
$q perf --caselist $OUT/train-perf.txt --reps 10 --json $OUT/perf-train.json 2>&1 | tee $OUT/perf-train.txt
echo "== PyTorch (t = $((SECONDS - t0)) s)"
python3 scripts/bench-torch.py --caselist $OUT/train-perf.txt --reps 10 --json $OUT/torch-train.json 2>&1 | tail -5
python3 scripts/perf-join.py $OUT/perf-train.json $OUT/torch-train.json 2>&1 | tail -8
echo "done in $((SECONDS - t0)) s"
