# Session 5, run 1 (build: git rev in ab-speed/s5/rev): the head's mustpass, tensor-core
# mustpass and mutants (5 new); two tensor-core GEMM variants (hi/lo accumulators; and
# 4 subgroups of 32 x 64) for correctness and speed; CE's slow mode: allocation or process?
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r1; mkdir -p $R
echo "build $(cat $S/rev)" > $R/summary.txt
$Q devices > $R/devices.txt 2>&1; tail -1 $R/devices.txt >> $R/summary.txt
timeout 200 $Q run --strict --caselist cases/mustpass.txt --json $R/mustpass.json > $R/mustpass.txt 2>&1
echo "mustpass rc=$? $(grep '^result:' $R/mustpass.txt)" >> $R/summary.txt
timeout 120 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' > $R/mustpass-mma.txt 2>&1
echo "mma mustpass rc=$? $(grep '^result:' $R/mustpass-mma.txt)" >> $R/summary.txt
timeout 120 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --bounds-check > $R/bc-mma.txt 2>&1
echo "mma mustpass bounds-check rc=$? $(grep '^result:' $R/bc-mma.txt)" >> $R/summary.txt
timeout 200 bash $S/mutants.sh > $R/mutants.txt 2>&1; tail -1 $R/mutants.txt >> $R/summary.txt
timeout 60 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --kernel linear_q4gsw_mma=$S/mma_hilo.spv > $R/mustpass-hilo.txt 2>&1
echo "hilo mma mustpass rc=$? $(grep '^result:' $R/mustpass-hilo.txt)" >> $R/summary.txt
timeout 60 $S/q4cts-w4 run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' > $R/mustpass-w4.txt 2>&1
echo "w4 mma mustpass rc=$? $(grep '^result:' $R/mustpass-w4.txt)" >> $R/summary.txt
F="--filter q4cts.linear_q4gsw.custom.m4096_*_g128 --filter q4cts.linear_q4gsw.custom.m512_*_g128"
for v in base hilo w4 base2; do
  case $v in base|base2) cmd="$Q perf";; hilo) cmd="$Q perf --kernel linear_q4gsw_mma=$S/mma_hilo.spv";; w4) cmd="$S/q4cts-w4 perf";; esac
  timeout 150 $cmd --caselist cases/perf.txt $F --reps 10 --json $R/perf-$v.json > $R/perf-$v.txt 2>&1; echo "perf $v rc=$?" >> $R/summary.txt
  grep -E "^q4cts" $R/perf-$v.txt | awk -v v=$v '{print v, $0}' >> $R/summary.txt
done
for i in 1 2 3; do timeout 60 $S/ce_alloc > $R/ce-freed-$i.txt 2>&1; done
for i in 1 2; do timeout 60 $S/ce_alloc keep > $R/ce-keep-$i.txt 2>&1; done
for i in 1 2 3; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --reps 10 2>&1 | grep -E "^q4cts" >> $R/ce-perf.txt; done
cp $S/run1.sh $S/mutants.sh $R/
tar -czf $OUT/r1.tgz -C $OUT r1 && rm -rf $R
tar -xzOf $OUT/r1.tgz r1/summary.txt; tar -xzOf $OUT/r1.tgz r1/mutants.txt | grep MISSED; for f in ce-freed-1 ce-freed-2 ce-freed-3 ce-keep-1 ce-keep-2; do echo "== $f"; tar -xzOf $OUT/r1.tgz r1/$f.txt; done; tar -xzOf $OUT/r1.tgz r1/ce-perf.txt
