# Session 5, the table run (build in ab-speed/s5/rev): mustpass (default policy; and the
# tensor-core forward on every eligible case, plain, with --bounds-check and with shader
# coverage), the path's mutants, the whole perf list through q4cts and PyTorch in one
# session, the forward shapes again with the tensor cores off, and CE/dequantize in 5 fresh
# processes. Everything lands in one tarball.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/s5; mkdir -p $R
echo "build $(cat $S/rev)" > $R/summary.txt
$Q devices > $R/devices.txt 2>&1; tail -1 $R/devices.txt >> $R/summary.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 500 > $R/clocks.csv & P=$!
timeout 200 $Q run --strict --caselist cases/mustpass.txt --junit $R/mustpass.xml --json $R/mustpass.json > $R/mustpass.txt 2>&1
echo "mustpass (default policy) rc=$? $(grep '^result:' $R/mustpass.txt)" >> $R/summary.txt
timeout 120 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --json $R/mustpass-mma.json > $R/mustpass-mma.txt 2>&1
echo "forward mustpass --mma-min-m 1 rc=$? $(grep '^result:' $R/mustpass-mma.txt)" >> $R/summary.txt
timeout 120 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --bounds-check > $R/bc-mma.txt 2>&1
echo "forward mustpass --mma-min-m 1 --bounds-check rc=$? $(grep '^result:' $R/bc-mma.txt)" >> $R/summary.txt
timeout 200 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --shader-coverage $R/mma-cov.info > $R/cov.txt 2>&1
echo "forward coverage rc=$?" >> $R/summary.txt; grep -E "mma|slice_i8|unpack" $R/cov.txt >> $R/summary.txt
timeout 200 bash $S/mutants.sh > $R/mutants.txt 2>&1; tail -1 $R/mutants.txt >> $R/summary.txt
timeout 240 $Q perf --caselist cases/perf.txt --reps 10 --json $R/h200-perf.json > $R/perf.txt 2>&1; echo "perf rc=$?" >> $R/summary.txt
timeout 150 python3 scripts/bench-torch.py --caselist cases/perf.txt --reps 10 --json $R/h200-torch.json > $R/torch.txt 2>&1; echo "torch rc=$?" >> $R/summary.txt
timeout 120 $Q perf --caselist cases/perf.txt --filter 'q4cts.linear_q4gsw.custom.m4096*' --filter 'q4cts.linear_q4gsw.custom.m512*' --reps 10 --mma-min-m off --json $R/h200-perf-fp32.json > $R/perf-fp32.txt 2>&1; echo "perf fp32 forward rc=$?" >> $R/summary.txt
for i in 1 2 3 4 5; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10 2>&1 | grep -E "^q4cts|^ceil" >> $R/ce5.txt; done
kill $P
cp $S/run4.sh $S/mutants.sh $R/
tar -czf $OUT/s5.tgz -C $OUT s5 && rm -rf $R
tar -xzOf $OUT/s5.tgz s5/summary.txt; tar -xzOf $OUT/s5.tgz s5/ce5.txt; tar -xzOf $OUT/s5.tgz s5/mutants.txt | grep MISSED
