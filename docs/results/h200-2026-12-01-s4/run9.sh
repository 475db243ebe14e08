# Session 4: banded tile order (8 row tiles; 4 and 16 as overrides), all forward shapes.
Q=build/harness/q4cts; R=$OUT/r9.txt
timeout 120 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' > $OUT/mp.txt 2>&1; echo "forward mustpass --mma-min-m 1 rc=$? $(grep '^result:' $OUT/mp.txt)" >> $R; rm $OUT/mp.txt
F="--filter q4cts.linear_q4gsw.custom.m4096* --filter q4cts.linear_q4gsw.custom.m512*"
echo "== band 8 (built in)" >> $R; timeout 90 $Q perf --caselist cases/perf.txt $F --reps 5 --warmup-ms 200 2>&1 | grep -E "^q4cts|rror" >> $R
for b in 4 16; do echo "== band $b" >> $R; timeout 90 $Q perf --caselist cases/perf.txt $F --reps 5 --warmup-ms 200 --kernel linear_q4gsw_mma=ab-speed/s4/var/band$b.spv 2>&1 | grep -E "^q4cts|rror" >> $R; done
cat $R
