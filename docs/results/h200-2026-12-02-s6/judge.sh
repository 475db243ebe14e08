#!/usr/bin/env bash
# H200: the perf list and the big edge shapes judged under --strict (issue: judges that
# never cry wolf). Run from the repository root after `. .gl/prologue.sh`, as
#   bash docs/results/h200-2026-12-02-s6/judge.sh perf|edges
# with carry .gl and build/harness; results under $OUT.
set -u
q=build/harness/q4cts
case "$1" in
  perf)  $q devices > "$OUT/devices.txt" 2>&1
         /usr/bin/time -v $q run --strict --caselist cases/perf.txt --json "$OUT/perf-strict.json" \
           > "$OUT/perf-strict.txt" 2> "$OUT/perf-strict.time" ;;
  edges) /usr/bin/time -v $q run --strict --caselist cases/big-edges.txt --json "$OUT/edges-strict.json" \
           > "$OUT/edges-strict.txt" 2> "$OUT/edges-strict.time" ;;
esac
tail -n 20 "$OUT"/*-strict.txt
