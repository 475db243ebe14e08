#!/usr/bin/env bash
# Does transparent huge pages' malloc (glibc.malloc.hugetlb=1) cut the big cases' page faults?
set -u
R=$OUT/r; mkdir -p $R
cat /sys/kernel/mm/transparent_hugepage/enabled /sys/kernel/mm/transparent_hugepage/defrag > $R/thp.txt 2>&1
ldd --version | head -1 >> $R/thp.txt
for i in 1 2; do
  OUT=$R bash devrun/H200-BIGCASES2.sh > $R/big-plain-$i.txt 2>&1
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1 OUT=$R bash devrun/H200-BIGCASES2.sh > $R/big-thp-$i.txt 2>&1
done
grep -h AnonHugePages /proc/meminfo >> $R/thp.txt
cd $OUT && tar czf r.tgz r && rm -rf r
