# Session 5, run 2: is head's 13% slower tensor-core forward (run 1 against session 4)
# the unguarded stage or the machine? The session-4 kernel, head, hi/lo accumulators with
# and without the guard, interleaved twice, M >= 512 gs 128 shapes.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r2; mkdir -p $R
F="--filter q4cts.linear_q4gsw.custom.m4096_*_g128 --filter q4cts.linear_q4gsw.custom.m512_*_g128"
for v in head s4 hilo hilo_g head s4 hilo_g hilo; do
  k=""; [ $v != head ] && k="--kernel linear_q4gsw_mma=$S/mma_$v.spv"
  timeout 150 $Q perf --caselist cases/perf.txt $F --reps 10 $k > $R/perf-$v.txt 2>&1
  grep -E "^q4cts" $R/perf-$v.txt | awk -v v=$v '{print v, $1, $2}' >> $R/summary.txt
done
for v in s4 hilo_g; do timeout 60 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --kernel linear_q4gsw_mma=$S/mma_$v.spv > $R/mustpass-$v.txt 2>&1; echo "$v mma mustpass rc=$? $(grep '^result:' $R/mustpass-$v.txt)" >> $R/summary.txt; done
tar -czf $OUT/r2.tgz -C $OUT r2 && rm -rf $R
tar -xzOf $OUT/r2.tgz r2/summary.txt
