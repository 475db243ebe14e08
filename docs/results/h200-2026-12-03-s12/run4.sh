#!/usr/bin/env bash
# The device-resident driver's way back to host-staged steps, on the device where it is
# real: the tensor-core forward (int8 cooperative matrices) reads its lossy flag back
# mid-op, so a step that meets it cannot be recorded.
set -u
R=$OUT/r; mkdir -p $R
q=build/harness/q4cts
c=q4cts.train.linear2.m16_k64_h64_v16_g64_t3_l300
$q run --strict --mma-min-m 1 --filter $c --json $R/mma.json > $R/mma.txt 2>&1
$q run --strict --filter $c --json $R/plain.json > $R/plain.txt 2>&1
$q run --strict --mma-min-m 1 --validation --filter 'q4cts.train.*' --filter $c --json $R/mma-all.json > $R/mma-all.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
