# Session 5, run 3: the tensor-core forward without branches in its step (the last step
# fetches itself again), and with only the fetch made branch-free, against session 4's.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r3; mkdir -p $R
F="--filter q4cts.linear_q4gsw.custom.m4096_*_g128 --filter q4cts.linear_q4gsw.custom.m512_*_g128"
for v in s4 nobranch fetchclamp s4 nobranch fetchclamp; do
  timeout 150 $Q perf --caselist cases/perf.txt $F --reps 10 --kernel linear_q4gsw_mma=$S/mma_$v.spv > $R/perf-$v.txt 2>&1
  grep -E "^q4cts" $R/perf-$v.txt | awk -v v=$v '{print v, $1, $2}' >> $R/summary.txt
done
for v in nobranch fetchclamp; do timeout 60 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --bounds-check --kernel linear_q4gsw_mma=$S/mma_$v.spv > $R/mustpass-$v.txt 2>&1; echo "$v mma mustpass bounds-check rc=$? $(grep '^result:' $R/mustpass-$v.txt)" >> $R/summary.txt; done
tar -czf $OUT/r3.tgz -C $OUT r3 && rm -rf $R
tar -xzOf $OUT/r3.tgz r3/summary.txt
