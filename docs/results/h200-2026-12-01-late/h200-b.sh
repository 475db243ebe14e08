Q=build/harness/q4cts; R=/tmp/r; mkdir -p $R; rev=$(cat ab-speed/rev); echo "build of $rev" > $R/b-summary.txt
tar -xJf ab-speed/q4cts-webgpu.tar.xz -C /tmp && . /tmp/q4cts-webgpu/env.sh
$Q devices --api webgpu > $R/webgpu-devices.txt 2>&1; cat $R/webgpu-devices.txt >> $R/b-summary.txt
$Q run --api webgpu --strict --caselist cases/mustpass.txt --junit $R/webgpu-junit.xml --json $R/webgpu-results.json > $R/webgpu-mustpass.txt 2>&1
echo "webgpu mustpass rc=$? $(grep '^verdicts:' $R/webgpu-mustpass.txt) | $(grep '^result:' $R/webgpu-mustpass.txt)" >> $R/b-summary.txt
$Q run --strict --caselist cases/mustpass.txt --json $R/serial.json > $R/serial.txt 2>&1
echo "vulkan serial rc=$? $(grep '^result:' $R/serial.txt)" >> $R/b-summary.txt
$Q run --jobs 4 --strict --caselist cases/mustpass.txt --json $R/jobs4.json > $R/jobs4.txt 2>&1
echo "vulkan --jobs 4 rc=$? $(grep '^result:' $R/jobs4.txt)" >> $R/b-summary.txt
$Q compare $R/serial.json $R/jobs4.json > $R/compare.txt 2>&1; echo "compare serial jobs4 rc=$?" >> $R/b-summary.txt; tail -3 $R/compare.txt >> $R/b-summary.txt
$Q run --strict --caselist cases/mustpass.txt --bounds-check --json $R/bounds.json > $R/bounds.txt 2>&1
echo "vulkan --bounds-check rc=$? $(grep '^result:' $R/bounds.txt)" >> $R/b-summary.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 100 >$R/clocks.csv & S=$!
$Q perf --caselist cases/perf.txt --reps 10 --json $R/h200-perf.json > $R/perf.txt 2>&1; echo "perf rc=$?" >> $R/b-summary.txt
python3 scripts/bench-torch.py --caselist cases/perf.txt --reps 10 --json $R/h200-torch.json > $R/torch.txt 2>&1; echo "torch rc=$?" >> $R/b-summary.txt
$Q perf --api webgpu --caselist cases/perf.txt --reps 10 --json $R/h200-webgpu-perf.json > $R/webgpu-perf.txt 2>&1; echo "webgpu perf rc=$?" >> $R/b-summary.txt
kill $S
cat $R/b-summary.txt; tail -5 $R/perf.txt; tail -3 $R/webgpu-perf.txt; tail -3 $R/torch.txt
tar czf $OUT/b.tgz -C $R .
