# CE: the spread across fresh processes (built-in), then the experiment binary's knobs
# (Q4CE_GRID: persistent grid cap, Q4CE_WG: workgroup size, Q4CE_CACHE: vec4 in registers).
Q=ab-speed/s1/q4cts-gemm; X=ab-speed/s1/q4cts-ceexp; R=$1; mkdir -p $R
F='q4cts.fused_ce.custom.*'
for i in 1 2 3 4 5; do $Q perf --caselist cases/perf.txt --filter 'q4cts.fused_ce.custom.r4096_v32000*' --reps 10 > $R/ce-main-$i.txt 2>&1; done
for cfg in "132 0 8" "264 0 8" "66 0 8" "0 512 16"; do
  set -- $cfg; tag=g$1-w$2-c$3
  env Q4CE_GRID=$1 $( [ $2 != 0 ] && echo Q4CE_WG=$2 ) Q4CE_CACHE=$3 $X perf --caselist cases/perf.txt --filter "$F" --reps 10 > $R/ce-$tag.txt 2>&1
done
for f in $R/ce-main-*.txt $R/ce-g*.txt; do echo "== $f"; grep "^q4cts" $f | awk '{print $1, $2, $3, $6}'; done > $R/ce-summary.txt
