# Session 5, run 11: the perf fix on one machine. q4cts perf before it (b215c29: the
# context, then the inputs) and after it (the inputs, then the context), interleaved
# five times on CE R = 4096 V = 32000 and dequantize 16384^2; first, ce_alloc with a
# 3 s idle context, to see whether this machine shows the slow mode at all.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r11; mkdir -p $R
echo "after = $(cat $S/rev), before = b215c29" > $R/perf.txt
timeout 60 $S/ce_alloc idle 2>&1 | head -3 > $R/ce-idle.txt
P="--filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10"
for i in 1 2 3 4 5; do
  for v in before after; do
    b=$Q; [ $v = before ] && b=$S/q4cts-before
    timeout 40 $b perf $P 2>&1 | grep -E "^q4cts" | awk -v v=$v '{print v, $1, $2}' >> $R/perf.txt
  done
done
cp $S/run11.sh $R/; tar -czf $OUT/r11.tgz -C $OUT r11 && rm -rf $R
tar -xzOf $OUT/r11.tgz r11/ce-idle.txt; tar -xzOf $OUT/r11.tgz r11/perf.txt
