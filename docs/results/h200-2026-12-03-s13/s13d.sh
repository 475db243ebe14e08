#!/usr/bin/env bash
# Session 13, H200 batch d: run --strict on perf.txt's largest training step (V = 128256).
set -u
OUT=${OUT:-/tmp}
c=q4cts.train.linear2.m4096_k4096_h4096_v128256_g128_t1_l10.random_labels
/usr/bin/time -f "process: %e s wall, %U s user, %S s sys, %M KB peak" \
  timeout 470 build/harness/q4cts run --strict --filter $c --json $OUT/judge-v128256.json >$OUT/judge.txt 2>&1
echo "rc $?"
grep -E '^(Pass|Fail|Qual|Crash|Internal|Resource|Timeout)|^result|process:' $OUT/judge.txt | cut -c1-250
python3 - $OUT/judge-v128256.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["q4cts"]["results"][0]
print(r["verdict"], "seconds %.1f input_ms %s gpu_ms %s" % (r["seconds"], r.get("input_ms"), r.get("gpu_ms")))
print("resident", r["train"].get("resident_steps"), "margins", r["train"]["steps"][0]["margins"])
PY
