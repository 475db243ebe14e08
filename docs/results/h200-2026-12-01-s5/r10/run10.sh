# Session 5, the final table run (build in ab-speed/s5/rev: perf makes each case's inputs
# before its context): mustpass, the whole perf list through q4cts and PyTorch in one
# session, and CE/dequantize in 5 fresh processes.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r10; mkdir -p $R
echo "build $(cat $S/rev)" > $R/summary.txt
timeout 120 $Q run --strict --caselist cases/mustpass.txt > $R/mustpass.txt 2>&1
echo "mustpass rc=$? $(grep '^result:' $R/mustpass.txt)" >> $R/summary.txt
timeout 240 $Q perf --caselist cases/perf.txt --reps 10 --json $R/h200-perf.json > $R/perf.txt 2>&1; echo "perf rc=$?" >> $R/summary.txt
timeout 150 python3 scripts/bench-torch.py --caselist cases/perf.txt --reps 10 --json $R/h200-torch.json > $R/torch.txt 2>&1; echo "torch rc=$?" >> $R/summary.txt
for i in 1 2 3 4 5; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10 2>&1 | grep -E "^q4cts|^ceil" >> $R/ce5.txt; done
cp $S/run10.sh $R/; tar -czf $OUT/r10.tgz -C $OUT r10 && rm -rf $R
tar -xzOf $OUT/r10.tgz r10/summary.txt; tar -xzOf $OUT/r10.tgz r10/ce5.txt; tar -xzOf $OUT/r10.tgz r10/perf.txt | grep -E "fused_ce|dequantize"
