# Session 4: the folded-grid tails of the tensor-core path (case small_device ...groups5):
# shader coverage of the forward's mustpass through the path, and all its mutants.
Q=build/harness/q4cts; R=$OUT/r12.txt
timeout 200 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --shader-coverage $OUT/mma-cov.info > $OUT/cov.txt 2>&1; echo "coverage run rc=$?" >> $R
grep -E "^result:|mma|slice_i8|unpack" $OUT/cov.txt >> $R; rm $OUT/cov.txt
timeout 200 bash ab-speed/s4/mutants.sh >> $R 2>&1
cat $R
