#!/usr/bin/env bash
# Session 11, final H200 run: the gates at the final build.
q=build/harness/q4cts
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/r/gpu.txt 2>&1
( time bash tests/coverage/test_shader_coverage.sh $q $PWD $OUT/r/cov ) > $OUT/r/coverage-gate.log 2>&1
rm -rf $OUT/r/cov
( time $q run --caselist cases/mustpass.txt --race-check --strict --junit $OUT/r/race-junit.xml ) > $OUT/r/race-check-mustpass.log 2>&1
( time $q run --caselist cases/mustpass.txt --strict ) > $OUT/r/mustpass.log 2>&1
( time $q run --strict --caselist cases/mustpass.txt --interface build/tests/interfaces/et_vk.json --timeout 600 ) > $OUT/r/kernel-set-et_vk.log 2>&1
p=build/tests/mutations/w4x8_blocks_reversed_pair
$q run --strict --filter 'q4cts.train.*' --kernel q4gsw_requant_w4x8=$p.q4gsw_requant_w4x8.spv \
  --kernel linear_q4gsw_gemv=$p.linear_q4gsw_gemv.spv --kernel linear_q4gsw_tiled=$p.linear_q4gsw_tiled.spv > $OUT/r/reversed-pair.log 2>&1
for m in ce_max_barrier_dropped ce_sum_barrier_dropped gemm_stage_barrier_dropped gemm_step_barrier_dropped; do
  f=tests/mutations/$m.mutation
  k=$(sed -n 's/^kernel: *//p' $f); fl=$(sed -n 's/^filter: *//p' $f); ex=$(sed -n 's/^expect: *//p' $f)
  caught=0
  for i in 1 2 3 4 5 6 7 8 9 10; do
    $q run --strict --race-check --timeout 300 --kernel $k=build/tests/mutations/$m.spv --filter "$fl" > /tmp/m.log 2>&1
    [ $? -eq 1 ] && grep -qE "(Fail|QualityWarning) +$ex" /tmp/m.log && caught=$((caught+1))
  done
  echo "$m: caught $caught of 10" >> $OUT/r/barrier-mutants.txt
done
grep -H "^result\|^real\|gate" $OUT/r/*.log | tail -20; cat $OUT/r/barrier-mutants.txt
cd $OUT && tar czf r.tgz r && rm -rf r
