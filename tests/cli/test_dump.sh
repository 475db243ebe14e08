#!/usr/bin/env bash
# test_dump.sh: dumps (--dump-dir, --dump) and `q4cts replay` as a user meets them.
#   usage: test_dump.sh Q4CTS WORK_DIR MUTATION_SPV_DIR PYTHON3
# Usage errors first (no device needed), then on the default device: a passing case
# dumped with --dump all replays to the same verdict and margins and loads in numpy
# with the shapes SPEC gives; a case failing under a mutant kernel replays to Fail
# and reruns to Pass on the built-in kernel; a failing case's dump is the same with
# the truth made tile by tile as with the whole truth; corrupted dumps exit 2 with
# one sentence.
# Exit 77 if no device.
set -uo pipefail
q4cts=$1 work=$2 mutations=$3 python=$4
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
# py CODE: a numpy check; its assertion message is the failure.
py() {
  checks=$((checks + 1))
  "$python" -c "import json, numpy as np
$1" >py.txt 2>&1 || { fail "numpy check: $(tail -1 py.txt)"; }
}

expect 2 "--dump expects all or failing, got 'some'" -- "$q4cts" run --dump some --dump-dir d
expect 2 '--dump all needs --dump-dir' -- "$q4cts" run --dump all
expect 2 'replay needs the folder of one dumped case' -- "$q4cts" replay
expect 2 "unexpected argument 'two'" -- "$q4cts" replay one two
expect 2 'cannot read nodump/case.json' -- "$q4cts" replay nodump

if ! "$q4cts" devices >devices.txt 2>&1; then
  echo "no Vulkan device found: $(cat devices.txt)"; exit 77
fi

# ---- a passing case of every op, dumped with --dump all ----
linear=q4cts.linear_q4gsw.bias.m1_n4_k16_g16_b1        # a one-row x and y stay 2-D
requant=q4cts.q4gsw_requant.clamp_edges.n12_k128_g32   # odd N4: W_4X8 padding words
ce=q4cts.fused_ce.all_masked.r1_v64_p100               # a scalar loss
adamw=q4cts.adamw_step.custom.n4100_t2_w1
lead=q4cts.linear_q4gsw.leading_dims.d2x2x2x2_n16_k64_g64   # x [*lead, K]: 5 dimensions
expect 0 'Pass' -- "$q4cts" run --filter $linear --filter $requant --filter $ce --filter $adamw --filter $lead \
  --dump=all --dump-dir all --json run.json
for c in $linear $requant $ce $adamw $lead; do
  expect 0 'the same verdict and margins as dumped' -- "$q4cts" replay all/$c --json replay-$c.json
  py "run = json.load(open('run.json'))['q4cts']['results']
r = [x for x in run if x['name'] == '$c'][0]
p = json.load(open('replay-$c.json'))['q4cts']['results'][0]
d = json.load(open('all/$c/case.json'))
assert p['verdict'] == r['verdict'] == d['result']['verdict'] == 'Pass', (p['verdict'], r['verdict'])
assert p['worst_margin'] == r['worst_margin'] == d['result']['worst_margin'], (p['worst_margin'], r['worst_margin'])
assert p['stat_margin'] == r['stat_margin'] == d['result']['stat_margin'], (p['stat_margin'], r['stat_margin'])"
done
py "d = 'all/$linear/'
assert np.load(d + 'x.npy').shape == (1, 16), np.load(d + 'x.npy').shape
assert np.load(d + 'y.got.npy').shape == (1, 4) and np.load(d + 'y.got.npy').dtype == np.float32
assert np.load(d + 'y.value.npy').dtype == np.float64 and np.load(d + 'bias.npy').shape == (4,)
assert np.load(d + 'scales.npy').shape == (1, 4)
c = json.load(open(d + 'case.json'))
assert c['params'] == {'m': 1, 'n': 4, 'k': 16, 'gs': 16, 'bias': 1}, c['params']
assert c['device']['name'] and c['seed'] == 0 and c['op'] == 'linear_q4gsw'"
py "d = 'all/$lead/'
assert np.load(d + 'x.npy').shape == (2, 2, 2, 2, 64), np.load(d + 'x.npy').shape
assert np.load(d + 'y.got.npy').shape == (2, 2, 2, 2, 16), np.load(d + 'y.got.npy').shape
assert json.load(open(d + 'case.json'))['outputs'][0]['dims'] == ['m', 'n']"
expect 0 '^Pass ' -- "$q4cts" replay --rerun all/$lead
py "d = 'all/$ce/'
assert np.load(d + 'loss.got.npy').shape == () and np.load(d + 'labels.npy').dtype == np.int32
assert np.load(d + 'dlogits.env_shr.npy').shape == (1, 64), 'the statistical envelope is dumped'
c = json.load(open(d + 'case.json'))
assert c['params']['n_valid'] == 1.0 and c['params']['r'] == 1 and c['params']['v'] == 64, c['params']"
py "d = 'all/$adamw/'
c = json.load(open(d + 'case.json'))
assert set(c['params']) == {'numel', 'step', 'lr', 'beta1', 'beta2', 'eps', 'wd', 'bc1', 'bc2'}, c['params']
assert np.float32(c['params']['lr']) == np.float32(0.001) and c['params']['step'] == 2
assert np.load(d + 'param.npy').shape == (4100,)"
# The packed outputs as the GPU wrote them: N = 12 is 2 blocks of 8 columns, the
# second half padding, so 128/4 * 2 * 4 words; the padding words are 0x88888888.
py "d = 'all/$requant/'
w = np.load(d + 'w4x8.raw.npy')
assert w.dtype == np.uint32 and w.shape == (256,), (w.dtype, w.shape)
assert (w.reshape(32, 2, 4)[:, 1, 2:] == 0x88888888).all(), 'padding words'
f = np.load(d + 'flat.raw.npy')
assert f.dtype == np.uint8 and f.shape == (12 * 128 // 2,), (f.dtype, f.shape)
assert (np.load(d + 'w4x8.got.npy') == np.load(d + 'w4x8.code.npy')).all()
c = json.load(open(d + 'case.json'))
assert c['outputs'][0]['raw'] == {'file': 'w4x8.raw.npy', 'dtype': '<u4', 'shape': [256]}, c['outputs'][0]"

# A whole --dump-dir replays case by case, with a summary and one report.
expect 0 'total +5 +0 ' -- "$q4cts" replay all --json multi.json
py "p = json.load(open('multi.json'))['q4cts']['results']
assert sorted(x['name'] for x in p) == sorted('$linear $requant $ce $adamw $lead'.split()), p"
# --rerun runs each case in a worker child, as `run` does: a kernel that crashes it
# is that case's Crash, and the replay goes on to the next case and its reports.
expect 1 'total +0 +0 +0 +0 +5 ' -- "$q4cts" replay all --rerun --inject-fault crash@1 --json crashed.json
checks=$((checks + 1))
grep -q 'message: the worker died of signal 11 (Segmentation fault) during the case' out.txt || fail "a crashing rerun is not a Crash naming the signal"
py "p = json.load(open('crashed.json'))['q4cts']
assert [x['verdict'] for x in p['results']] == ['Crash'] * 5, p['results']
assert all(x['repro'].endswith('--rerun') for x in p['results']), p['results']
assert p['complete'], p"

# ---- a failing case: dumped by default, judged again, rerun on the built-in kernel ----
checks=$((checks + 1))
"$q4cts" run --filter $linear --dump-dir failing >/dev/null 2>&1
[ ! -e failing ] || fail "--dump-dir without --dump all saved a passing case"
mutant=$mutations/adamw_no_bias_correction.spv
if [ -f "$mutant" ]; then
  expect 1 'Fail' -- "$q4cts" run --filter $adamw --kernel adamw_step=$mutant --dump-dir failing
  expect 1 '^Fail .*q4cts.adamw_step' -- "$q4cts" replay failing/$adamw
  grep -q 'the same verdict and margins as dumped' out.txt || fail "the failing replay differs from its dump"
  py "c = json.load(open('failing/$adamw/case.json'))
assert c['result']['verdict'] == 'Fail' and c['kernels'][0]['kernel'] == 'adamw_step', c['kernels']"
  expect 0 '^Pass .*q4cts.adamw_step' -- "$q4cts" replay --rerun failing/$adamw
  expect 1 '^Fail .*q4cts.adamw_step' -- "$q4cts" replay --rerun failing/$adamw --kernel adamw_step=$mutant
else
  fail "no mutant $mutant (build the q4_mutations target)"
fi

# ---- a tiled truth (judged as it is made) dumps the whole truth, as a whole one does ----
# same_dump CASE KERNEL=SPV: the failing case's dump with the tiled truth and with
# Q4CTS_WHOLE_TRUTH=1 hold the same arrays, byte for byte, and the same result.
same_dump() {
  local case=$1 kernel=$2
  rm -rf tiled whole
  expect 1 '^Fail' -- "$q4cts" run --filter "$case" --kernel "$kernel" --dump-dir tiled
  Q4CTS_WHOLE_TRUTH=1 expect 1 '^Fail' -- "$q4cts" run --filter "$case" --kernel "$kernel" --dump-dir whole
  checks=$((checks + 1))
  for f in whole/"$case"/*.npy; do
    cmp -s "$f" "tiled/$case/${f##*/}" || fail "$case: ${f##*/} differs between the tiled and the whole truth's dump"
  done
  [ "$(ls tiled/"$case")" = "$(ls whole/"$case")" ] || fail "$case: the two dumps hold other files"
  py "a, b = (json.load(open(d + '/$case/case.json')) for d in ('tiled', 'whole'))
for c in (a, b): c['result'].pop('gpu_ms')
assert a == b, (a['result'], b['result'])"
}
for mut in adamw_no_bias_correction:q4cts.adamw_step.custom.n70001_t7_w1:adamw_step \
           ce_softmax_bias:q4cts.fused_ce.custom.r3_v70001_p30:fused_ce; do
  IFS=: read -r spv case kernel <<<"$mut"
  if [ -f "$mutations/$spv.spv" ]; then
    same_dump "$case" "$kernel=$mutations/$spv.spv"
  else
    fail "no mutant $spv (build the q4_mutations target)"
  fi
done

# ---- a case that never got its results back: inputs and truth dumped, rerun works ----
expect 1 'Crash' -- "$q4cts" run --filter $linear --inject-fault lost@1 --dump-dir lost
expect 2 'holds no GPU result for output y .*replay --rerun' -- "$q4cts" replay lost/$linear
expect 0 '^Pass ' -- "$q4cts" replay --rerun lost/$linear

# ---- corrupted dumps: one sentence, exit 2, never a crash ----
corrupt() {  # corrupt NAME: a fresh copy of the linear case's dump in bad/NAME
  rm -rf "bad/$1" && mkdir -p bad && cp -r "all/$linear" "bad/$1"
}
corrupt truncated && head -c 100 all/$linear/y.got.npy >bad/truncated/y.got.npy
expect 2 'truncated|holds [0-9]+ data bytes' -- "$q4cts" replay bad/truncated
corrupt notnpy && echo 'plain text' >bad/notnpy/y.bound.npy
expect 2 'y.bound.npy is not a .npy file' -- "$q4cts" replay bad/notnpy
corrupt dtype && "$python" -c "import numpy as np; np.save('bad/dtype/y.got.npy', np.zeros((1, 4), np.float64))"
expect 2 'y.got.npy holds dtype <f8; expected <f4' -- "$q4cts" replay bad/dtype
corrupt shape && "$python" -c "import numpy as np; np.save('bad/shape/y.got.npy', np.zeros(4, np.float32))"
expect 2 'y.got.npy has shape \(4,\); expected \(1, 4\)' -- "$q4cts" replay bad/shape
corrupt json && head -c 300 all/$linear/case.json >bad/json/case.json
expect 2 'case.json is not valid JSON' -- "$q4cts" replay bad/json
corrupt path && sed -i 's/"name": "y"/"name": "..\/..\/y"/' bad/path/case.json
expect 2 'name must be letters, digits' -- "$q4cts" replay bad/path
corrupt noname && sed -i '0,/"name": "q4cts[^"]*"/s//"name": 7/' bad/noname/case.json
expect 2 'case.json: name must be a string' -- "$q4cts" replay bad/noname
corrupt badcase && sed -i 's/m1_n4_k16_g16_b1/m1_n5_k16_g16_b1/' bad/badcase/case.json
expect 2 'N = 5 must be a multiple of 4' -- "$q4cts" replay bad/badcase
corrupt huge && "$python" -c "import json; p = 'bad/huge/case.json'; c = json.load(open(p))
c['outputs'][0]['shape'] = [2**62, 2**62]; json.dump(c, open(p, 'w'))"
expect 2 'outputs\[0\].shape must be a shape of at most 2\^40 elements' -- "$q4cts" replay bad/huge
# Sizes from case.json are checked before memory is taken: a shape of 2^35 elements
# (under 2^40, so case.json reads) is not the case's, and is refused before anything
# is allocated for it (it was 3 x 256 GiB); so are outputs the case does not have, or
# none at all (which judged nothing: a Pass); a dot product of 2^62 terms is refused.
corrupt big && "$python" -c "import json; p = 'bad/big/case.json'; c = json.load(open(p))
c['outputs'][0]['shape'] = [32768, 1048576]; json.dump(c, open(p, 'w'))"
expect 2 "output y has shape \(32768, 1048576\); case $linear's is \(1, 4\)" -- "$q4cts" replay bad/big
corrupt none && "$python" -c "import json; p = 'bad/none/case.json'; c = json.load(open(p))
c['outputs'] = []; json.dump(c, open(p, 'w'))"
expect 2 "case.json lists 0 outputs; case $linear has 1 \(y\)" -- "$q4cts" replay bad/none
corrupt other && "$python" -c "import json; p = 'bad/other/case.json'; c = json.load(open(p))
c['outputs'][0]['name'] = 'z'; json.dump(c, open(p, 'w'))"
for f in bad/other/y.*; do mv "$f" "bad/other/z.${f#bad/other/y.}"; done
expect 2 "case.json lists 1 outputs; case $linear has 1 \(y\)" -- "$q4cts" replay bad/other
corrupt dot && "$python" -c "import json; p = 'bad/dot/case.json'; c = json.load(open(p))
c['outputs'][0]['dot_n'] = 2**62; json.dump(c, open(p, 'w'))"
expect 2 'outputs\[0\].dot_n must be an integer from 0 to 1099511627776 or null' -- "$q4cts" replay bad/dot
corrupt dot2 && "$python" -c "import json; p = 'bad/dot2/case.json'; c = json.load(open(p))
c['outputs'][0]['dot_n'] = 2**40; json.dump(c, open(p, 'w'))"
expect 2 "output y is a dot product of 1099511627776 terms of 3 factors; case $linear's is of 17 of 3" -- "$q4cts" replay bad/dot2
# case.json is strictly JSON: a repeated key or NaN is refused, saying where.
corrupt dupkey && sed -i '0,/"format": 1,/s//"format": 1, "format": 1,/' bad/dupkey/case.json
expect 2 'case.json is not valid JSON here: the object at line 1, column 1 has the key "format" twice' -- "$q4cts" replay bad/dupkey
corrupt nan && sed -i '0,/"margin": [^,]*,/s//"margin": NaN,/' bad/nan/case.json
expect 2 'case.json is not valid JSON: .*NaN and Infinity are not JSON\) \(line [0-9]+, column [0-9]+\)' -- "$q4cts" replay bad/nan
corrupt input && "$python" -c "import numpy as np; np.save('bad/input/x.npy', np.zeros((2, 16), np.float32))"
expect 2 'x.npy has shape \(2, 16\); expected \(1, 16\)' -- "$q4cts" replay --rerun bad/input
# A --dump-dir with one bad case among good ones: the good ones are judged, exit 2.
rm -rf mixed && mkdir mixed && cp -r all/$ce all/$adamw mixed/ && cp -r bad/json mixed/$linear
expect 2 'mixed/q4cts.linear_q4gsw[^ ]*/case.json is not valid JSON' -- "$q4cts" replay mixed
grep -q '^Pass .*q4cts.fused_ce' out.txt || fail "replay of mixed/ did not judge the good cases"
# Inputs edited out of the contract are the contract's error, not a verdict.
rm -rf bad/labels && cp -r all/$ce bad/labels
"$python" -c "import numpy as np; np.save('bad/labels/labels.npy', np.array([64], np.int32))"
expect 2 'label' -- "$q4cts" replay --rerun bad/labels

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
