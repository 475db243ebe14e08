q=build/harness/q4cts
for v in cur A B D; do
  k=""; [ $v != cur ] && k="--kernel adamw_step=ab-adamw/$v.spv"
  echo "== $v"; $q run --strict --filter q4cts.adamw_step.late_step.n1024_t10000_w1.huge_grad --filter 'q4cts.adamw_step.*.*.tiny_grad' --filter 'q4cts.adamw_step.large.*' $k 2>&1 | grep -E "^(Pass|Fail|result)|message|rror|usage" | cut -c1-300
done
