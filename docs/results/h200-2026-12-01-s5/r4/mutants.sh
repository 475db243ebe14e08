# The tensor-core path's mutants (tests/mutations/{mma,slice,unpack}_*.mutation), as
# tests/mutations/expect_fail.cmake runs them: q4cts must exit 1 and name the expected case.
Q=build/harness/q4cts; ok=0; bad=0
for m in tests/mutations/mma_*.mutation tests/mutations/slice_*.mutation tests/mutations/unpack_*.mutation; do
  grep -q "^test:" $m && continue   # run by ctest through gpu.mma_passes
  n=$(basename $m .mutation)
  k=$(sed -n 's/^kernel: *//p' $m); f=$(sed -n 's/^filter: *//p' $m); e=$(sed -n 's/^expect: *//p' $m); fl=$(sed -n 's/^flags: *//p' $m)
  out=$($Q run --strict --kernel $k=build/tests/mutations/$n.spv --filter "$f" $fl 2>&1); rc=$?
  if [ $rc = 1 ] && echo "$out" | grep -Eq "(Fail|QualityWarning) +$e"; then echo "caught $n: $(echo "$out" | grep -E "^(Fail|QualityWarning)" | head -1)"; ok=$((ok+1));
  else echo "MISSED $n rc=$rc: $(echo "$out" | tail -3)"; bad=$((bad+1)); fi
done
echo "mutants caught $ok, missed $bad"
