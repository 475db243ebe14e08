# Session 5, run 8: (1) CE's slow mode: ce_alloc with a 3 s idle GPU before timing (as
# q4cts perf's input generation), and with q4cts perf's own inputs, beside q4cts perf;
# (2) the fp32 GEMM core for the backward's dense path and dW: linear_tn_tiled at BK 16
# (q4cts-tn16) and every big tile at 128 x 256 with 8 x 16 per invocation (q4cts-t256),
# against the built-in, interleaved; each variant's linear mustpass.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r8; mkdir -p $R
for i in 1 2; do
  timeout 60 $S/ce_alloc idle 2>&1 | head -3 >> $R/ce.txt
  timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --reps 10 2>&1 | grep -E "^q4cts" >> $R/ce.txt
  timeout 90 $S/ce_alloc harness 2>&1 | head -3 >> $R/ce.txt
  timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --reps 10 2>&1 | grep -E "^q4cts" >> $R/ce.txt
done
F="--filter q4cts.linear_q4gsw_backward.custom.m4096* --filter q4cts.linear_dW.custom.m4096* --filter q4cts.linear_q4gsw.custom.m4096*"
for v in base tn16 t256 base tn16 t256; do
  b=$Q; [ $v != base ] && b=$S/q4cts-$v
  timeout 150 $b perf --caselist cases/perf.txt $F --mma-min-m off --reps 10 > $R/perf-$v.txt 2>&1
  grep -E "^q4cts" $R/perf-$v.txt | awk -v v=$v '{print v, $1, $2, $6}' >> $R/summary.txt
done
for v in tn16 t256; do timeout 100 $S/q4cts-$v run --strict --caselist cases/mustpass.txt --filter 'q4cts.linear*' > $R/mustpass-$v.txt 2>&1; echo "$v linear mustpass rc=$? $(grep '^result:' $R/mustpass-$v.txt)" >> $R/summary.txt; done
cp $S/run8.sh $S/ce_alloc.c $R/; tar -czf $OUT/r8.tgz -C $OUT r8 && rm -rf $R
tar -xzOf $OUT/r8.tgz r8/ce.txt; tar -xzOf $OUT/r8.tgz r8/summary.txt
