Q=build/harness/q4cts; R=/tmp/r; mkdir -p $R
git_rev=$(cat ab-speed/rev 2>/dev/null); echo "build of $git_rev" > $R/a-summary.txt
for s in $(seq 0 19); do $Q run --strict --caselist cases/mustpass.txt --seed $s --json $R/mp-$s.json > $R/mp-$s.txt 2>&1; echo "seed $s rc=$? $(grep '^result:' $R/mp-$s.txt)" >> $R/a-summary.txt; done
for op in dequantize linear_q4gsw linear_q4gsw_backward linear_dW fused_ce adamw_step q4gsw_requant; do
  $Q run --strict --interface build/tests/interfaces/$op/$op.json --caselist cases/mustpass.txt --filter "q4cts.$op.*" --json $R/if-$op.json > $R/if-$op.txt 2>&1
  echo "interface $op rc=$? $(grep '^verdicts:' $R/if-$op.txt) | $(grep '^result:' $R/if-$op.txt)" >> $R/a-summary.txt
done
head -3 $R/mp-0.txt >> $R/a-summary.txt
cat $R/a-summary.txt
tar czf $OUT/a.tgz -C $R .
