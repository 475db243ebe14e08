# Session 5, run 7: ce_alloc with q4cts perf's length of warm-up (1500 calls, about 0.5 s),
# three processes of three rounds; then q4cts perf CE-only twice for the same minutes.
Q=build/harness/q4cts; S=ab-speed/s5; R=$OUT/r7; mkdir -p $R
for i in 1 2 3; do timeout 60 $S/ce_alloc warm 2>&1 | head -3 > $R/ce-warm-$i.txt; done
for i in 1 2 3; do timeout 30 $Q perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --reps 10 2>&1 | grep -E "^q4cts" >> $R/ce-only.txt; done
cp $S/run7.sh $S/ce_alloc.c $R/; tar -czf $OUT/r7.tgz -C $OUT r7 && rm -rf $R
for f in ce-warm-1 ce-warm-2 ce-warm-3 ce-only; do echo "== $f"; tar -xzOf $OUT/r7.tgz r7/$f.txt; done
