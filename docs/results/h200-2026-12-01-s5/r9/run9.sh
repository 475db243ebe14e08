# Session 5, run 9: CE's slow mode after an idle context. ce_alloc: 3 s of sleep, of CPU
# busy-wait, or of sleep and then a fresh context, before timing; and q4cts perf with the
# inputs made before the context (q4cts-late, the candidate fix) against the built-in,
# interleaved, on CE R = 4096 V = 32000 and dequantize 16384^2.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r9; mkdir -p $R
for m in idle spin recreate idle spin recreate; do timeout 60 $S/ce_alloc $m 2>&1 | head -3 >> $R/ce.txt; done
P="--filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10"
for i in 1 2 3 4 5; do
  for v in base late; do
    b=$Q; [ $v = late ] && b=$S/q4cts-late
    timeout 40 $b perf $P 2>&1 | grep -E "^q4cts" | awk -v v=$v '{print v, $1, $2}' >> $R/perf.txt
  done
done
cp $S/run9.sh $S/ce_alloc.c $R/; tar -czf $OUT/r9.tgz -C $OUT r9 && rm -rf $R
tar -xzOf $OUT/r9.tgz r9/ce.txt; tar -xzOf $OUT/r9.tgz r9/perf.txt
