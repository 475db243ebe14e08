#!/usr/bin/env bash
# Session 12's H200 batch: device-resident training (plain, validation, planted missing
# barrier, probes), the mustpass, the big cases.
set -u
R=$OUT/r; mkdir -p $R
q=build/harness/q4cts
$q devices > $R/devices.txt 2>&1
{ time $q run --strict --filter 'q4cts.train.*' --json $R/train.json; } > $R/train.txt 2>&1
{ time $q run --strict --caselist cases/train-long.txt --json $R/train-long.json; } > $R/train-long.txt 2>&1
{ time $q run --strict --validation --filter 'q4cts.train.*' --json $R/train-val.json; } > $R/train-val.txt 2>&1
for s in 1 2 3; do
  $q run --strict --validation --filter 'q4cts.train.*' --inject-fault train_no_barrier@$s --json $R/nobarrier-val-$s.json > $R/nobarrier-val-$s.txt 2>&1
done
# without the synchronisation checks: do the values show it on a GPU that overlaps dispatches?
for s in 1 2 3 4; do
  $q run --strict --filter 'q4cts.train.*' --inject-fault train_no_barrier@$s > $R/nobarrier-$s.txt 2>&1
  $q run --strict --caselist cases/train-long.txt --inject-fault train_no_barrier@$((s*40)) > $R/nobarrier-long-$s.txt 2>&1
done
$q run --strict --filter 'q4cts.train.*' --bounds-check > $R/train-bounds.txt 2>&1
$q run --strict --filter 'q4cts.train.*' --race-check > $R/train-race.txt 2>&1
$q run --strict --filter 'q4cts.train.*' --shader-coverage $R/train.info > $R/train-cov.txt 2>&1
{ time $q run --strict --caselist cases/mustpass.txt --jobs 4 --json $R/mustpass.json; } > $R/mustpass.txt 2>&1
{ time $q run --strict --validation --caselist cases/mustpass.txt --exclude 'q4cts.*.large.*' --jobs 4; } > $R/mustpass-val.txt 2>&1
OUT=$R bash devrun/H200-BIGCASES.sh > $R/big.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
