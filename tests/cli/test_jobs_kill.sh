#!/usr/bin/env bash
# test_jobs_kill.sh: with --jobs, each case reaches the --json and --junit reports as
# soon as it is done, not only once every case before it is: a run killed (SIGKILL)
# while a slow case runs on one worker keeps the cases the other worker finished after
# it, in the order of the cases, in valid reports that say the run is incomplete. The
# slow case is adamw_step through a --kernel that spins (the built-in kernel with a
# loop of 2^32 x 8 loads put first in main, whose sum a store depends on, so no
# compiler drops it; lavapipe ends a shader's loops after 65535 iterations, so the case
# has a million invocations), so it is still running when the others are done.
#   usage: test_jobs_kill.sh Q4CTS GLSLANG_VALIDATOR SOURCE_DIR WORK_DIR
# Exit 77 if no device.
set -uo pipefail
q4cts=$1 glslang=$2 src=$3 work=$4
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
if ! "$q4cts" devices >devices.txt 2>&1; then
  echo "no Vulkan device found: $(cat devices.txt)"; exit 77
fi

# The spinning adamw_step: its interface is the built-in's, so --kernel takes it.
awk '{ print } /^void main\(\)$/ { getline; print
  print "    float q4_spin = 0.0;"
  print "    for (uint q4_i = 0u; q4_i < 0xFFFFFFFFu - pc.n; q4_i++)"
  print "        q4_spin += g1[q4_i % pc.n] + g1[(q4_i + 1u) % pc.n] + g1[(q4_i + 2u) % pc.n] +"
  print "                   g1[(q4_i + 3u) % pc.n] + g1[(q4_i + 4u) % pc.n] + g1[(q4_i + 5u) % pc.n] +"
  print "                   g1[(q4_i + 6u) % pc.n] + g1[(q4_i + 7u) % pc.n];"
  print "    if (q4_spin == pc.eps * 12345.0)"
  print "        p1[0] = q4_spin;" }' "$src/gpu/shaders/adamw_step.comp" >spin.comp
"$glslang" --target-env vulkan1.1 -V --quiet -I"$src/gpu/shaders" -o spin.spv spin.comp >glslang.txt 2>&1 ||
  { fail "the spinning kernel does not compile: $(cat glslang.txt)"; exit 1; }

slow=q4cts.adamw_step.large.n1048576_t50_w1
fast1=q4cts.dequantize.odd_n4.n12_k32_g32
fast2=q4cts.fused_ce.unaligned_v.r3_v7_p0
"$q4cts" run --jobs 2 --timeout 3600 --kernel adamw_step=spin.spv \
  --filter $slow --filter $fast1 --filter $fast2 --json r.json --junit r.xml >run.txt 2>&1 &
pid=$!
# The fast cases are done while the slow one spins: both are in the report now.
checks=$((checks + 1))
await "$fast2" r.json $pid && await "$fast1" r.json $pid ||
  fail "the run ended before its fast cases reached the report: $(cat run.txt)"
await "$fast2" r.xml $pid
kill -KILL $pid
gone $pid || fail "q4cts $pid outlived SIGKILL"
wait $pid 2>/dev/null
checks=$((checks + 1))
python3 - r.json "$slow $fast1 $fast2" <<'PY' || fail "the killed run's JSON report: $(cat r.json)"
import json, sys
q = json.load(open(sys.argv[1]))['q4cts']
slow, fast1, fast2 = sys.argv[2].split()
names = [r['name'] for r in q['results']]
assert names == [fast1, fast2], names          # the finished ones, in case order
assert q['complete'] is False and q['planned'] == 3, (q['complete'], q['planned'])
PY
checks=$((checks + 1))
python3 - r.xml "$slow" <<'PY' || fail "the killed run's JUnit report: $(cat r.xml)"
import sys, xml.etree.ElementTree as ET
suite = ET.parse(sys.argv[1]).getroot().find('testsuite')
names = [c.get('classname') + '.' + c.get('name') for c in suite.iter('testcase')]
assert len(names) == 2 and sys.argv[2] not in names, names
assert suite.get('tests') == '2', suite.get('tests')
PY

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
