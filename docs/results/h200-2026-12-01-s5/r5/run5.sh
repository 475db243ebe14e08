# Session 5, run 5, on the machine run 4 left warm (after the whole perf list and PyTorch):
# does CE's and dequantize's slow mode persist in new processes there?
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r5; mkdir -p $R
for i in 1 2; do timeout 60 $S/ce_alloc > $R/ce-freed-$i.txt 2>&1; done
for i in 1 2 3; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10 2>&1 | grep -E "^q4cts|^ceil" >> $R/ce-perf.txt; done
nvidia-smi --query-gpu=memory.used,memory.total,clocks.sm,clocks.mem --format=csv > $R/smi.txt 2>&1
cp $S/run5.sh $R/; tar -czf $OUT/r5.tgz -C $OUT r5 && rm -rf $R
for f in ce-freed-1 ce-freed-2 ce-perf smi; do echo "== $f"; tar -xzOf $OUT/r5.tgz r5/$f.txt; done
