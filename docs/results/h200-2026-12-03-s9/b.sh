# H200 batch B (session 9): the WGSL AdamW variants against NVIDIA's reassociation; GLSL vs WGSL perf.
Q=build/harness/q4cts; R=$OUT; S=$R/summary.txt
tar -xJf build/webgpu-pack/q4cts-webgpu.tar.xz -C /tmp && . /tmp/q4cts-webgpu/env.sh
echo "build $(cat h200s9/rev)" > $S
for v in fma sel; do
  $Q run --api webgpu --strict --caselist cases/mustpass.txt --filter 'q4cts.adamw_step.*' --kernel adamw_step=h200s9/k/adamw_$v.wgsl > $R/adamw-$v.txt 2>&1
  echo "webgpu adamw mustpass with $v rc=$? $(grep '^result:' $R/adamw-$v.txt)" >> $S
done
$Q perf --caselist cases/perf.txt --filter 'q4cts.linear*' --reps 5 --json $R/vk-perf.json > $R/vk-perf.txt 2>&1; echo "vk perf rc=$?" >> $S
$Q perf --api webgpu --caselist cases/perf.txt --filter 'q4cts.linear*' --reps 5 --json $R/wg-perf.json > $R/wg-perf.txt 2>&1; echo "wg perf rc=$?" >> $S
cat $S
