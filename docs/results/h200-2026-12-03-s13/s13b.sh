#!/usr/bin/env bash
# Session 13, H200 batch b: the planted launcher bugs again (a gs-64 case of ordinary x
# now takes the tensor-core GEMM), and `run --strict` on perf.txt's whole training steps:
# what is timed is judged; how long judging a real model's step takes.
set -u
OUT=${OUT:-/tmp}
q=build/harness/q4cts
t0=$SECONDS
$q run --strict --filter 'q4cts.train.*' --mma-min-m 1 >$OUT/train-mma.txt 2>&1; echo "main rc $?"
grep -E '^result:' $OUT/train-mma.txt
for v in A B; do
  devrun/plant$v/q4cts run --strict --filter 'q4cts.train.*' --mma-min-m 1 >$OUT/plant$v.txt 2>&1; echo "plant $v rc $?"
  grep -E '^result:|^(Fail|Crash|Internal)' $OUT/plant$v.txt | cut -c1-220
done
nproc; free -g | head -2
for c in $(grep '^q4cts.train' cases/perf.txt); do
  echo "== run --strict $c (t = $((SECONDS - t0)) s)"
  /usr/bin/time -f "process: %e s wall, %U s user, %S s sys, %M KB peak" \
    timeout $((560 - (SECONDS - t0))) $q run --strict --filter "$c" --json $OUT/judge.json >$OUT/judge.txt 2>&1
  echo "rc $?"
  grep -E '^(Pass|Fail|Qual|Crash|Internal|Resource|Timeout)|^result|process:' $OUT/judge.txt | cut -c1-250
  python3 - $OUT/judge.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["q4cts"]["results"][0]
print(r["verdict"], "seconds %.1f input_ms %s truth_ms %s gpu_ms %s" % (r["seconds"], r.get("input_ms"), r.get("truth_ms"), r.get("gpu_ms")))
print("resident", r["train"].get("resident_steps"), "margins", r["train"]["steps"][0]["margins"])
PY
  cp $OUT/judge.json "$OUT/judge-$(echo $c | cut -d. -f4).json"
  [ $((SECONDS - t0)) -gt 400 ] && { echo "stopping: time"; break; }
done
echo "done in $((SECONDS - t0)) s"
