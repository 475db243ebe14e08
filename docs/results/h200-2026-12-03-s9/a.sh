# H200 batch A (session 9): correctness of the merged WGSL kernels and training paths.
Q=build/harness/q4cts; R=$OUT; S=$R/summary.txt
tar -xJf build/webgpu-pack/q4cts-webgpu.tar.xz -C /tmp && . /tmp/q4cts-webgpu/env.sh
echo "build $(cat h200s9/rev)" > $S
$Q devices > $R/devices.txt 2>&1; $Q devices --api webgpu >> $R/devices.txt 2>&1
$Q run --strict --caselist cases/mustpass.txt --junit $R/vk-mustpass.xml --json $R/vk-mustpass.json > $R/vk-mustpass.txt 2>&1
echo "vulkan mustpass --strict rc=$? $(grep '^result:' $R/vk-mustpass.txt)" >> $S
$Q run --api webgpu --strict --caselist cases/mustpass.txt --junit $R/wg-mustpass.xml --json $R/wg-mustpass.json > $R/wg-mustpass.txt 2>&1
echo "webgpu mustpass --strict rc=$? $(grep '^result:' $R/wg-mustpass.txt)" >> $S
env Q4CTS_WGSL_BIG_TILES_MIN=1 Q4CTS_WGSL_GEMV_GROUPS_MIN=1 $Q run --api webgpu --strict --caselist cases/mustpass.txt --filter 'q4cts.linear_*' > $R/wg-paths.txt 2>&1
echo "webgpu forced big tiles + gemv S8, linears --strict rc=$? $(grep '^result:' $R/wg-paths.txt)" >> $S
$Q run --strict --caselist cases/train-long.txt --seed 0 --json $R/vk-train-long.json > $R/vk-train-long.txt 2>&1
echo "vulkan train-long --strict rc=$? $(grep '^result:' $R/vk-train-long.txt)" >> $S
$Q run --api webgpu --strict --caselist cases/train-long.txt --seed 0 --json $R/wg-train-long.json > $R/wg-train-long.txt 2>&1
echo "webgpu train-long --strict rc=$? $(grep '^result:' $R/wg-train-long.txt)" >> $S
$Q run --api webgpu --strict --caselist cases/perf.txt --json $R/wg-perfshapes.json > $R/wg-perfshapes.txt 2>&1
echo "webgpu perf shapes judged --strict rc=$? $(grep '^result:' $R/wg-perfshapes.txt)" >> $S
cat $S
