# Issue 26.5: the two big cases end to end, 16 threads and 1 thread, on the H200's host.
for c in 'q4cts.adamw_step.custom.n268435459_t7_w1' 'q4cts.fused_ce.custom.r4097_v128256_p3.big_logits'; do
  for t in 16 1; do
    OMP_NUM_THREADS=$t /usr/bin/time -f "$c threads=$t: %e s wall, %U user, %S sys, %M KB" \
      build/harness/q4cts run --filter "$c" --json $OUT/big.json 2>&1 | grep -E "^(Pass|Fail|Warn|Not|Time|Crash|Internal)|wall"
    python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["q4cts"]["results"][0]; print(r["verdict"], "case %.2f s, inputs %.0f ms, truth %.0f ms, gpu %s ms" % (r["seconds"], r["input_ms"], r["truth_ms"], r["gpu_ms"]))' $OUT/big.json
  done
done
