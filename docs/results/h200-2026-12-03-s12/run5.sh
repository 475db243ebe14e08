#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
q=build/harness/q4cts
c=q4cts.train.linear2.m16_k64_h64_v16_g64_t3_l300
{ time $q run --strict --mma-min-m 1 --validation --caselist cases/mustpass.txt --jobs 4 --json $R/mma-val.json; } > $R/mma-val.txt 2>&1
$q run --strict --mma-min-m 1 --validation --filter $c --json $R/mma-val-train.json > $R/mma-val-train.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
