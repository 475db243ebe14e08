# Session 4: the staging-order layout of the int8 operands: correctness, mutants, speed.
Q=build/harness/q4cts; R=$OUT/r8.txt
timeout 120 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' > $OUT/mp.txt 2>&1; echo "forward mustpass --mma-min-m 1 rc=$? $(grep '^result:' $OUT/mp.txt)" >> $R
grep -E "^(Fail|Crash|Error|Q)" $OUT/mp.txt | head -5 >> $R; rm $OUT/mp.txt
timeout 200 bash ab-speed/s4/mutants.sh >> $R 2>&1
F="--filter q4cts.linear_q4gsw.custom.m4096_n4096_k4096_g128 --filter q4cts.linear_q4gsw.custom.m4096_n11008_k4096_g128 --filter q4cts.linear_q4gsw.custom.m4096_n4096_k11008_g128 --filter q4cts.linear_q4gsw.custom.m4096_n2048_k2048_g128 --filter q4cts.linear_q4gsw.custom.m512_n4096_k4096_g128"
timeout 60 $Q perf $F --reps 5 --warmup-ms 200 2>&1 | grep -E "^q4cts|rror" >> $R
cat $R
