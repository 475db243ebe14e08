# H200 check of the 3-D grid fold (issue part 5): the tensor-core path's z folds, its
# mutants, the forward's mustpass through it, and the small_device sweep.
Q=build-fold/h200/q4cts; H=build-fold/h200; R=$OUT
$Q devices > $R/devices.txt 2>&1; tail -2 $R/devices.txt
Z="--filter q4cts.linear_q4gsw.small_device.m130_n768_k128_g64_groups4 --filter q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups5 --filter q4cts.linear_q4gsw.small_device.m130_n192_k192_g64_groups3 --filter q4cts.linear_q4gsw.small_device.m130_n384_k64_g64_groups5"
timeout 60 $Q run --strict --mma-min-m 1 $Z --bounds-check > $R/z.txt 2>&1; echo "z cases bounds-check rc=$?"; grep -E "^(Pass|Fail|Not|Int|Qual)" $R/z.txt | cut -c1-160
timeout 60 $Q run --strict --mma-min-m 1 $Z --shader-coverage $R/z-cov.info > $R/zcov.txt 2>&1; echo "z coverage rc=$?"; grep -E "mma|slice_i8|unpack" $R/zcov.txt | head
ok=0; bad=0
for m in tests/mutations/mma_*.mutation tests/mutations/slice_*.mutation tests/mutations/unpack_*.mutation; do
  grep -q "^test:" $m && continue
  n=$(basename $m .mutation)
  k=$(sed -n 's/^kernel: *//p' $m); f=$(sed -n 's/^filter: *//p' $m); e=$(sed -n 's/^expect: *//p' $m); fl=$(sed -n 's/^flags: *//p' $m)
  out=$(timeout 60 $Q run --strict --kernel $k=$H/mut/$n.spv --filter "$f" $fl 2>&1); rc=$?
  if [ $rc = 1 ] && echo "$out" | grep -Eq "(Fail|QualityWarning) +$e"; then echo "caught $n"; ok=$((ok+1));
  else echo "MISSED $n rc=$rc: $(echo "$out" | tail -3)"; bad=$((bad+1)); fi
done > $R/mutants.txt
cat $R/mutants.txt; echo "mutants caught $ok, missed $bad"
timeout 150 $Q run --strict --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --json $R/fwd-mma.json > $R/fwd-mma.txt 2>&1; echo "forward mustpass --mma-min-m 1 rc=$? $(grep '^result:' $R/fwd-mma.txt)"
timeout 150 $Q run --mma-min-m 1 --caselist $H/sweep.txt --json $R/sweep.json > $R/sweep.txt 2>&1; echo "sweep rc=$?"; grep -E "^verdicts|^result" $R/sweep.txt
grep -c "^InternalError" $R/sweep.txt
