# S1 command 3: WGSL perf (the pack now holds interface.mjs), WebGPU mustpass --strict,
# the WGSL interface examples. Few files: the device tool returns a limited count.
Q=build/harness/q4cts; R=$OUT; L=$R/r3.log
tar -xJf ab-speed/q4cts-webgpu.tar.xz -C /tmp && . /tmp/q4cts-webgpu/env.sh
timeout 230 $Q perf --api webgpu --caselist cases/perf.txt --reps 10 --json $R/h200-webgpu-perf.json > $R/webgpu-perf.txt 2>&1; echo "webgpu perf rc=$?" >> $L
timeout 100 $Q run --api webgpu --strict --caselist cases/mustpass.txt --json $R/webgpu-mustpass.json > /tmp/wm.txt 2>&1
echo "webgpu mustpass rc=$? $(grep '^device:' /tmp/wm.txt) $(grep '^result:' /tmp/wm.txt)" >> $L
for op in dequantize linear_q4gsw linear_q4gsw_backward linear_dW fused_ce adamw_step q4gsw_requant; do
  timeout 25 $Q run --api webgpu --strict --caselist cases/mustpass.txt --filter "q4cts.$op.*" --interface tests/interfaces/webgpu/$op/$op.json > /tmp/wi.txt 2>&1
  echo "wgsl interface $op rc=$? $(grep '^result:' /tmp/wi.txt)" >> $L
done
cat $L; tail -3 $R/webgpu-perf.txt
