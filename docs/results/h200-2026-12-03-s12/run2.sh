#!/usr/bin/env bash
set -u
R=$OUT/r; mkdir -p $R
q=build/harness/q4cts
for s in 1 2 3; do
  $q run --strict --filter 'q4cts.train.*' --inject-fault train_no_barrier@$s > $R/nobarrier-$s.txt 2>&1
done
{ time $q run --strict --caselist cases/mustpass.txt --jobs 4 --json $R/mustpass.json; } > $R/mustpass.txt 2>&1
$q run --strict --filter 'q4cts.train.*' --json $R/train.json > $R/train.txt 2>&1
OUT=$R bash devrun/H200-BIGCASES2.sh > $R/big.txt 2>&1
OUT=$R bash devrun/H200-BIGCASES2.sh > $R/big2.txt 2>&1
cd $OUT && tar czf r.tgz r && rm -rf r
