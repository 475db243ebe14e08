# S1 command 1: GEMM A/B (built-in vs staging candidates vs the dense path), then CE.
Q=ab-speed/s1/q4cts-gemm; R=/tmp/r1; mkdir -p $R; echo "build $(cat ab-speed/rev)" > $R/summary.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 >$R/clocks.csv & S=$!
C="--caselist cases/perf.txt --reps 10"
S4='m4096_n4096_k4096_g128 m4096_n11008_k4096_g128 m4096_n4096_k11008_g128 m512_n4096_k4096_g128'
fl() { for s in $S4; do printf -- "--filter q4cts.%s.custom.%s " $1 $s; done; }
FW=$(fl linear_q4gsw); BW=$(fl linear_q4gsw_backward)
$Q perf $C $FW $BW --dense-min-m 1000000 --json $R/gemm-tiled.json > $R/gemm-tiled.txt 2>&1
$Q perf $C $FW $BW --dense-min-m 512 --json $R/gemm-dense.json > $R/gemm-dense.txt 2>&1
for f in ab-speed/gemm/*.spv; do
  b=$(basename $f .spv); k=${b#*__}
  case $k in linear_q4gsw_tiled) F=$FW;; *) F=$BW;; esac
  $Q perf $C $F --dense-min-m 1000000 --kernel $k=$f --json $R/gemm-$b.json > $R/gemm-$b.txt 2>&1
done
for f in $R/gemm-*.txt; do echo "== $f"; grep "^q4cts\|rror" $f | awk '{printf "%-60s %9s %5s %6s\n", $1, $2, $3, $6}'; done >> $R/summary.txt
bash ab-speed/s1/ce.sh $R/ce; cat $R/ce/ce-summary.txt >> $R/summary.txt
kill $S; cat $R/summary.txt
tar czf $OUT/r1.tgz -C $R .
