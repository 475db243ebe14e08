# Session 4: the tensor-core path's kernels under the probe pass on the H200: line and
# branch coverage of the forward's mustpass through them, and the bounds check.
Q=build/harness/q4cts; R=$OUT/r11.txt
timeout 200 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --shader-coverage $OUT/mma-cov.info > $OUT/cov.txt 2>&1; echo "coverage run rc=$?" >> $R
grep -E "^result:|shader coverage|mma|slice|unpack|total" $OUT/cov.txt >> $R; rm $OUT/cov.txt
timeout 200 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --bounds-check > $OUT/bc.txt 2>&1; echo "bounds-check run rc=$? $(grep '^result:' $OUT/bc.txt)" >> $R
grep -E "^(Fail|Crash|Error)" $OUT/bc.txt | head -5 >> $R; rm $OUT/bc.txt
cat $R
