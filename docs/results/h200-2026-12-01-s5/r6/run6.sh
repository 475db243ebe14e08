# Session 5, run 6 (same warm machine): what makes q4cts perf's CE slow where ce_alloc
# is not? CE alone in q4cts perf; ce_alloc with the harness's guard words; ce_alloc
# right after a dequantize-only q4cts perf process.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r6; mkdir -p $R
for i in 1 2 3; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --reps 10 2>&1 | grep -E "^q4cts" >> $R/ce-only.txt; done
for i in 1 2; do timeout 60 $S/ce_alloc guard > $R/ce-guard-$i.txt 2>&1; done
for i in 1 2; do timeout 30 $Q perf --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10 2>&1 | grep -E "^q4cts" >> $R/after-dq.txt; timeout 60 $S/ce_alloc >> $R/after-dq.txt 2>&1; done
for i in 1 2; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10 2>&1 | grep -E "^q4cts" >> $R/ce-dq.txt; done
cp $S/run6.sh $S/ce_alloc.c $R/; tar -czf $OUT/r6.tgz -C $OUT r6 && rm -rf $R
for f in ce-only ce-guard-1 ce-guard-2 after-dq ce-dq; do echo "== $f"; tar -xzOf $OUT/r6.tgz r6/$f.txt; done
