# S1 command 2 (final build): Vulkan mustpass --strict, then the whole perf list through
# GLSL, PyTorch and WGSL in one session, then CE with the NVIDIA shader disk cache off.
Q=build/harness/q4cts; R=$OUT/r2; mkdir -p $R; echo "build $(cat ab-speed/rev)" > $R/summary.txt
tar -xJf ab-speed/q4cts-webgpu.tar.xz -C /tmp && . /tmp/q4cts-webgpu/env.sh
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 >$R/clocks.csv & S=$!
timeout 150 $Q run --strict --caselist cases/mustpass.txt --junit $R/mustpass.xml --json $R/mustpass.json > $R/mustpass.txt 2>&1
echo "vulkan mustpass rc=$? $(grep '^result:' $R/mustpass.txt)" >> $R/summary.txt
timeout 240 $Q perf --caselist cases/perf.txt --reps 10 --json $R/h200-perf.json > $R/perf.txt 2>&1; echo "perf rc=$?" >> $R/summary.txt
timeout 120 python3 scripts/bench-torch.py --caselist cases/perf.txt --reps 10 --json $R/h200-torch.json > $R/torch.txt 2>&1; echo "torch rc=$?" >> $R/summary.txt
timeout 240 $Q perf --api webgpu --caselist cases/perf.txt --reps 10 --json $R/h200-webgpu-perf.json > $R/webgpu-perf.txt 2>&1; echo "webgpu perf rc=$?" >> $R/summary.txt
for i in 1 2 3 4; do __GL_SHADER_DISK_CACHE=0 timeout 20 $Q perf --caselist cases/perf.txt --filter 'q4cts.fused_ce.custom.r4096_v32000*' --reps 10 2>&1 | grep '^q4cts' >> $R/ce-nocache.txt; done
for i in 1 2 3 4; do timeout 20 $Q perf --caselist cases/perf.txt --filter 'q4cts.fused_ce.custom.r4096_v32000*' --reps 10 2>&1 | grep '^q4cts' >> $R/ce-cache.txt; done
kill $S; cat $R/summary.txt; tail -2 $R/perf.txt $R/webgpu-perf.txt $R/torch.txt; cat $R/ce-*.txt
