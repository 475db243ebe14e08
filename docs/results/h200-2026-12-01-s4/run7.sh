# Session 4: where linear_q4gsw_mma's time goes (diagnostic variants through --kernel),
# dedicated allocations A/B (q4cts-nd: the same build without them), and 20 seeds of the
# forward mustpass through the tensor cores.
Q=build/harness/q4cts; R=$OUT/r7.txt
F="--filter q4cts.linear_q4gsw.custom.m4096_n4096_k4096_g128 --filter q4cts.linear_q4gsw.custom.m4096_n11008_k4096_g128"
for v in base unroll noepi nomma nofetch; do echo "== $v" >> $R; timeout 60 $Q perf $F --reps 5 --warmup-ms 200 --kernel linear_q4gsw_mma=ab-speed/s4/var/$v.spv 2>&1 | grep -E "^q4cts|rror" >> $R; done
for i in 1 2 3 4; do for b in $Q ab-speed/s4/q4cts-nd; do echo "== $b" >> $R; timeout 30 $b perf --filter q4cts.fused_ce.custom.r4096_v32000_p0 --filter q4cts.dequantize.custom.n16384_k16384_g128 --reps 10 2>&1 | grep -E "^q4cts" >> $R; done; done
for s in $(seq 1 20); do echo "seed $s $(timeout 60 $Q run --strict --seed $s --mma-min-m 1 --filter 'q4cts.linear_q4gsw.*' --json $OUT/s.json 2>&1 | grep '^result:')" >> $R; python3 -c "
import json;r=json.load(open('$OUT/s.json'))['q4cts']['results'];w=max(r,key=lambda x:x['stat_margin'] or 0);m=max(r,key=lambda x:x['worst_margin'] or 0);print('  worst margin %.3g %s, worst stat %.3g %s'%(m['worst_margin'],m['name'],w['stat_margin'],w['name']))" >> $R; done
rm -f $OUT/s.json; cat $R
