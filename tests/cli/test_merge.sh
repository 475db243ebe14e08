#!/usr/bin/env bash
# test_merge.sh: `q4cts merge` on hand-written shard reports (no device): the merged
# JSON lists the cases in the unsharded order, its JUnit validates against the schema,
# planned and complete say whether every shard came back whole, and reports that are
# not the shards of one run (a case twice, a shard twice, another N or seed) exit 2.
#   usage: test_merge.sh Q4CTS SOURCE_DIR WORK_DIR
set -uo pipefail
q4cts=$1 src=$2 work=$3
here=$(dirname "${BASH_SOURCE[0]}")
. "$here/expect.sh"
. "$here/report_fixture.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

names() { python3 -c 'import json,sys; print(" ".join(r["name"].split(".")[-1] for r in json.load(open(sys.argv[1]))["q4cts"]["results"]))' "$1"; }
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["q4cts"]; print(eval(sys.argv[2]))' "$1" "$2"; }

# A run of cases c0..c6 in three shards: shard I holds c(I-1), c(I-1+3), ...
report s1.json --planned 3 --prop shard=1/3 --prop device=gpu0 -- q4cts.dequantize.basic.c0:Pass:0.1 q4cts.dequantize.basic.c3:Pass:0.2 q4cts.dequantize.basic.c6:Pass:0.3
report s2.json --planned 2 --prop shard=2/3 --prop device=gpu1 -- q4cts.dequantize.basic.c1:Fail:2 q4cts.dequantize.basic.c4:Pass:0.1
report s3.json --planned 2 --prop shard=3/3 --prop device=gpu0 -- q4cts.dequantize.basic.c2:Pass:0.1 q4cts.dequantize.basic.c5:NotSupported

# Any order of the inputs gives the unsharded order; a failing case exits 1.
expect 1 'merged 3 reports: 7 cases, 1 not ok$' -- "$q4cts" merge s3.json s1.json s2.json --json m.json --junit m.xml
checks=$((checks + 1))
[ "$(names m.json)" = "c0 c1 c2 c3 c4 c5 c6" ] || fail "merged order is $(names m.json), expected c0 .. c6"
checks=$((checks + 1))
[ "$(field m.json 'd["planned"], d["complete"], d["stopped"]')" = "(7, True, None)" ] ||
  fail "merged planned/complete: $(field m.json 'd["planned"], d["complete"], d["stopped"]')"
checks=$((checks + 1))
[ "$(field m.json 'd["properties"]["device"], "shard" in d["properties"], d["summary"]["Fail"]')" = "('gpu0; gpu1', False, 1)" ] ||
  fail "merged properties: $(field m.json 'd["properties"]')"
expect 0 'validates' -- "$src/reports/validate-junit" m.xml
checks=$((checks + 1))
grep -q '<testsuite name="q4cts" tests="7" failures="1" errors="0" skipped="1"' m.xml || fail "merged JUnit counts: $(grep '<testsuite ' m.xml)"
grep -q '<property name="planned" value="7"/>' m.xml && grep -q '<property name="complete" value="true"/>' m.xml ||
  fail "merged JUnit lacks planned 7 / complete true"
# The merge of a merge's JSON is the same report.
expect 1 'merged 1 report: 7 cases' -- "$q4cts" merge m.json --json again.json
checks=$((checks + 1))
[ "$(names again.json)" = "c0 c1 c2 c3 c4 c5 c6" ] || fail "re-merged order $(names again.json)"

# A shard missing or cut short: the merged report says incomplete, and the exit is 1.
report p3.json --planned 2 --prop shard=3/3 -- q4cts.dequantize.basic.c2:Pass:0.1 q4cts.dequantize.basic.c5:Pass
report p1.json --planned 3 --prop shard=1/3 -- q4cts.dequantize.basic.c0:Pass:0.1 q4cts.dequantize.basic.c3:Pass:0.2 q4cts.dequantize.basic.c6:Pass:0.3
expect 1 'merged 2 reports: 5 cases, 0 not ok; incomplete: shard 2/3 is missing' -- "$q4cts" merge p1.json p3.json --json part.json --junit part.xml
checks=$((checks + 1))
[ "$(field part.json 'd["complete"], d["stopped"]')" = "(False, 'shard 2/3 is missing')" ] || fail "a merge without shard 2 is complete"
grep -q '<property name="complete" value="false"/>' part.xml || fail "a merge without shard 2 says complete in JUnit"
report cut2.json --incomplete --planned 2 --prop shard=2/3 -- q4cts.dequantize.basic.c1:Pass:0.1
expect 1 'incomplete: cut2.json is incomplete' -- "$q4cts" merge p1.json cut2.json p3.json --json cut.json
report p2.json --planned 2 --prop shard=2/3 -- q4cts.dequantize.basic.c1:Pass:0.1 q4cts.dequantize.basic.c4:Pass:0.1
expect 0 'merged 3 reports: 7 cases, 0 not ok$' -- "$q4cts" merge p1.json p2.json p3.json --json ok.json --junit "$work/ok.xml"

# Reports without --shard (runs of different selections) are joined in the order given.
report x.json -- q4cts.fused_ce.basic.b:Pass:0.1 q4cts.fused_ce.basic.a:Pass:0.1
report y.json -- q4cts.adamw_step.basic.z:Pass:0.1
expect 0 'merged 2 reports: 3 cases, 0 not ok$' -- "$q4cts" merge y.json x.json --junit xy.xml --json xy.json
checks=$((checks + 1))
[ "$(names xy.json)" = "z b a" ] || fail "unsharded reports joined as $(names xy.json)"

# Not the shards of one run: exit 2, nothing written.
report d2.json --prop shard=2/3 -- q4cts.dequantize.basic.c1:Fail:2 q4cts.dequantize.basic.c3:Pass:0.2
expect 2 'duplicate case q4cts.dequantize.basic.c3: in s1.json and in d2.json' -- "$q4cts" merge s1.json d2.json --json bad.json
report c2.json --prop shard=2/3 -- q4cts.dequantize.basic.c1:Fail:2 q4cts.dequantize.basic.c3:Crash
expect 2 'conflicting results: case q4cts.dequantize.basic.c3 is Pass in s1.json and Crash in c2.json' -- "$q4cts" merge s1.json c2.json --json bad.json
expect 2 's2.json and s2.json are both shard 2/3' -- "$q4cts" merge s2.json s2.json --json bad.json
report n4.json --prop shard=2/4 -- q4cts.dequantize.basic.c1:Pass
expect 2 's1.json is a shard of 3 and n4.json of 4' -- "$q4cts" merge s1.json n4.json --json bad.json
expect 2 's1.json is a shard \(--shard\) and x.json is not' -- "$q4cts" merge s1.json x.json --json bad.json
report seed.json --prop shard=2/3 --prop seed=7 -- q4cts.dequantize.basic.c1:Pass
expect 2 's1.json has seed 0 and seed.json has seed 7' -- "$q4cts" merge s1.json seed.json --json bad.json
report badshard.json --prop shard=4/3 -- q4cts.dequantize.basic.c1:Pass
expect 2 "the report badshard.json has shard property '4/3'; expected I/N" -- "$q4cts" merge badshard.json --json bad.json
# Every report against every other, not only against the first: a report without a
# seed does not let seeds 9 and 0 through; a key one has and another lacks differs.
report ns1.json --prop shard=1/3 -- q4cts.dequantize.basic.c0:Pass
sed -i 's/, "seed": "0"//' ns1.json
report s9.json --prop shard=2/3 --prop seed=9 -- q4cts.dequantize.basic.c1:Pass
report s0.json --prop shard=3/3 -- q4cts.dequantize.basic.c2:Pass
expect 2 's9.json has seed 9 and ns1.json has none' -- "$q4cts" merge ns1.json s9.json s0.json --json bad.json
# The API: Vulkan shards (a report without "api" is Vulkan's) and WebGPU ones are not
# one run, nor is a report whose case ran on another API than the report says.
report w2.json --prop shard=2/3 --prop api=webgpu -- q4cts.dequantize.basic.c1:Pass
expect 2 'p1.json has api vulkan and w2.json has api webgpu' -- "$q4cts" merge p1.json w2.json --json bad.json
report v2.json --prop shard=2/3 --prop api=vulkan -- q4cts.dequantize.basic.c1:Pass
expect 1 'merged 2 reports: 4 cases, 0 not ok; incomplete: shard 3/3 is missing' -- "$q4cts" merge p1.json v2.json --json vk.json
sed 's/"repro": /"api": "webgpu", "repro": /' v2.json >mixed.json
expect 2 'the report mixed.json is of api vulkan but its case q4cts.dequantize.basic.c1 ran on webgpu' -- "$q4cts" merge mixed.json --json bad.json
# The shard property is read without overflow: 2^32+1 is not shard 1.
for sh in 4294967297/4294967298 2147483648/2147483648 +1/3 ' 1/3' 1/3x 0/3; do
  report ov.json --prop "shard=$sh" -- q4cts.dequantize.basic.c1:Pass
  expect 2 "the report ov.json has shard property '${sh/+/\\+}'; expected I/N with 1 <= I <= N <= 2147483647" -- "$q4cts" merge ov.json --json bad.json
done
# A shard from before reports said whether their run completed is read; the merged run
# cannot vouch for it, so it is not complete (exit 1).
grep -v '"planned"' p2.json >old2.json
expect 1 'incomplete: old2.json does not say whether its run completed' -- "$q4cts" merge p1.json old2.json p3.json --json old.json
checks=$((checks + 1))
[ "$(field old.json 'd["complete"]')" = "False" ] || fail "a merge with an old shard is complete"
# Strictly JSON: a duplicated key, NaN or a trailing comma is refused, naming the file.
sed 's/"format": 1,/"format": 1, "format": 1,/' p2.json >dup2.json
expect 2 'the report dup2.json is not valid JSON here: the object at line 1, column 11 has the key "format" twice' -- "$q4cts" merge p1.json dup2.json --json bad.json
sed 's/"worst_margin": 0.1/"worst_margin": NaN/' p2.json >nan2.json
expect 2 'the report nan2.json is not valid JSON: .*NaN and Infinity are not JSON' -- "$q4cts" merge p1.json nan2.json --json bad.json
sed 's/"strict": false/"strict": true/' s2.json >strict2.json
expect 2 'strict2.json was run with --strict and s1.json without' -- "$q4cts" merge s1.json strict2.json --json bad.json
checks=$((checks + 1))
[ -e bad.json ] && fail "a refused merge wrote a report"
expect 2 'merge needs the shards. --json reports and where to write the merged one' -- "$q4cts" merge s1.json
expect 2 'merge needs the shards' -- "$q4cts" merge --json bad.json
expect 2 'cannot read the report nosuch.json' -- "$q4cts" merge s1.json nosuch.json --json bad.json
printf '{"q4cts": []}' >arr.json
expect 2 'the report arr.json has no "q4cts" object' -- "$q4cts" merge arr.json --json bad.json
expect 2 '--junit and --json name the same file' -- "$q4cts" merge s1.json --json same --junit same
mkdir -p adir
expect 2 'report file adir is a directory' -- "$q4cts" merge s1.json --json adir

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
