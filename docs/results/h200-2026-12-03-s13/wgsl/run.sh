#!/usr/bin/env bash
# wgsl2 (issue 26 item 4) on the H200: the register-tiled WGSL GEMMs (branch wgsl2) judged
# and timed against GLSL. From the repository root, after ". .gl/prologue.sh":
#   bash devrun/wgsl2/run.sh        (about 6 minutes; each step has its own timeout)
# Writes under $OUT: summary.txt, ratio.txt (WGSL / GLSL per linear shape of
# cases/perf.txt, also with Dawn's SPIR-V reconvergence mode and Vulkan memory model off),
# and each step's text and JSON.
set -u
D=devrun/wgsl2; Q=$D/q4cts; R=$OUT; S=$R/summary.txt
tar -xJf $D/q4cts-webgpu.tar.xz -C /tmp && . /tmp/q4cts-webgpu/env.sh
echo "build $(cat $D/rev)" > $S
$Q devices > $R/devices.txt 2>&1; $Q devices --api webgpu >> $R/devices.txt 2>&1
timeout 170 $Q run --api webgpu --strict --jobs 4 --caselist cases/mustpass.txt --json $R/wg-mustpass.json > $R/wg-mustpass.txt 2>&1
echo "webgpu mustpass --strict rc=$? $(grep '^result:' $R/wg-mustpass.txt)" >> $S
grep "^q4cts.linear" cases/perf.txt > /tmp/linears.txt
P="--caselist /tmp/linears.txt --reps 5"
timeout 80 $Q perf $P --json $R/vk-perf.json > $R/vk-perf.txt 2>&1; echo "vk perf rc=$?" >> $S
timeout 100 $Q perf --api webgpu $P --json $R/wg-perf.json > $R/wg-perf.txt 2>&1; echo "wg perf rc=$?" >> $S
# Dawn's SPIR-V for NVIDIA: is its FMA ceiling (36 vs GLSL's 56 TFLOP/s in session 9) the
# maximal-reconvergence execution mode or the Vulkan memory model that Dawn turns on?
Q4CTS_DAWN_DISABLE=use_spirv_reconvergence_mode,use_vulkan_memory_model \
  timeout 100 $Q perf --api webgpu $P --json $R/wg-perf-plain.json > $R/wg-perf-plain.txt 2>&1
echo "wg perf (reconvergence, memory model off) rc=$?" >> $S
"$Q4CTS_NODE" $D/ratio.mjs $R/vk-perf.json wgsl=$R/wg-perf.json wgsl-plain=$R/wg-perf-plain.json > $R/ratio.txt 2>&1
cat $S $R/ratio.txt
