#!/usr/bin/env bash
# test_compare.sh: `q4cts compare A.json B.json` on hand-written reports (no device):
# verdict changes, a regression's exit 1, margins past --factor, cases in one run
# only, and every malformed input an exit 2 with one sentence.
#   usage: test_compare.sh Q4CTS WORK_DIR
set -uo pipefail
q4cts=$1 work=$2
here=$(dirname "${BASH_SOURCE[0]}")
. "$here/expect.sh"
. "$here/report_fixture.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

A=q4cts.linear_q4gsw.basic.m1 B=q4cts.fused_ce.basic.r4 C=q4cts.dequantize.basic.n16
D=q4cts.adamw_step.basic.n4 E=q4cts.linear_dW.basic.m3
report a.json -- $A:Pass:0.01 $B:Fail:3 $C:Pass:0:0.2 $D:Pass:0.5 $E:Pass:0.1
report same.json -- $A:Pass:0.01 $B:Fail:3 $C:Pass:0:0.2 $D:Pass:0.5 $E:Pass:0.1

expect 0 'result: no regression, 0 changed verdicts, 0 margins moved' -- "$q4cts" compare a.json same.json

# A fix is a change, not a regression; margins under the floor (0 -> 0.0009) are not news.
report fixed.json -- $A:Pass:0.01 $B:Pass:0.5 $C:Pass:0.0009:0.2 $D:Pass:0.5 $E:Pass:0.1
expect 0 'better +Fail -> Pass +q4cts.fused_ce.basic.r4' -- "$q4cts" compare a.json fixed.json
expect 0 'result: no regression, 1 changed verdicts, 1 margins moved' -- "$q4cts" compare a.json fixed.json

# Pass -> worse is a regression (exit 1), also Pass -> NotSupported (less coverage);
# Fail -> Crash is not.
report worse.json -- $A:Fail:7 $B:Crash $C:NotSupported $D:Pass:0.5 $E:Pass:0.1
expect 1 'REGRESSION Pass -> Fail +q4cts.linear_q4gsw.basic.m1' -- "$q4cts" compare a.json worse.json
expect 1 'REGRESSION Pass -> NotSupported +q4cts.dequantize.basic.n16' -- "$q4cts" compare a.json worse.json
expect 1 'changed +Fail -> Crash +q4cts.fused_ce.basic.r4' -- "$q4cts" compare a.json worse.json
expect 1 'result: REGRESSION, 2 of 3 changed verdicts got worse' -- "$q4cts" compare a.json worse.json
report warn.json -- $A:QualityWarning:0.01 $B:Fail:3 $C:Pass:0:0.2 $D:Pass:0.5 $E:Pass:0.1
expect 1 'REGRESSION Pass -> QualityWarning' -- "$q4cts" compare a.json warn.json

# Margins: x3 is listed at the default factor 2, not at --factor 4; a shrink counts too.
report moved.json -- $A:Pass:0.03 $B:Fail:3 $C:Pass:0:0.05 $D:Pass:0.5 $E:Pass:0.1
expect 0 'margin 0.01 +-> 0.03 +\(x3\) +q4cts.linear_q4gsw.basic.m1' -- "$q4cts" compare a.json moved.json
expect 0 'stat +0.2 +-> 0.05 +\(x0.25\) +q4cts.dequantize.basic.n16' -- "$q4cts" compare a.json moved.json
expect 0 'result: no regression, 0 changed verdicts, 2 margins moved' -- "$q4cts" compare a.json moved.json
expect 0 'result: no regression, 0 changed verdicts, 1 margins moved' -- "$q4cts" compare a.json moved.json --factor 3.5
expect 0 'result: no regression, 0 changed verdicts, 0 margins moved' -- "$q4cts" compare --factor=4.5 a.json moved.json

# Cases in one run only are listed; the incomplete run is said. B losing cases that A
# has is no "no regression" (it covers less: a killed run's report holds only the cases
# before the kill), nor is B's run incomplete; A's incomplete run is only said.
report fewer.json --incomplete -- $A:Pass:0.01 $B:Fail:3 $C:Pass:0:0.2 q4cts.adamw_step.basic.n8:Pass
expect 1 'cases only in A: 2, only in B: 1' -- "$q4cts" compare a.json fewer.json
expect 1 'only in B: q4cts.adamw_step.basic.n8' -- "$q4cts" compare a.json fewer.json
expect 1 'B: fewer.json: 4 cases \(incomplete run\), fixture' -- "$q4cts" compare a.json fewer.json
expect 1 "result: REGRESSION, 0 of 0 changed verdicts got worse, 2 of A's cases missing from B; B is incomplete" -- \
  "$q4cts" compare a.json fewer.json
report lost.json -- $A:Pass:0.01 $B:Fail:3 $C:Pass:0:0.2 $D:Pass:0.5
expect 1 "result: REGRESSION, 0 of 0 changed verdicts got worse, 1 of A's cases missing from B" -- \
  "$q4cts" compare a.json lost.json
report killed.json --incomplete -- $A:Pass:0.01 $B:Fail:3 $C:Pass:0:0.2 $D:Pass:0.5 $E:Pass:0.1
expect 1 "result: INCOMPLETE, B's run did not complete; 0 changed verdicts, 0 margins moved" -- \
  "$q4cts" compare a.json killed.json
expect 0 'A: killed.json: 5 cases \(incomplete run\)' -- "$q4cts" compare killed.json a.json
expect 0 'result: no regression' -- "$q4cts" compare lost.json a.json
# A report from before reports said whether their run completed is read (format 1
# all the same), and says so.
grep -v '"planned"' a.json | sed 's/, "stat_margin": [^,]*//; s/, "truth_ms": [^,]*//' |
  sed 's/, "upload_ms": [^,]*//; s/, "readback_ms": [^,]*//; s/, "judge_ms": [^,]*//' |
  sed 's/, "truth_fused": [^,]*//' >old.json
expect 0 'B: old.json: 5 cases \(a report from before runs said whether they completed\)' -- \
  "$q4cts" compare a.json old.json
expect 0 'result: no regression, 0 changed verdicts, 0 margins moved' -- "$q4cts" compare a.json old.json

# Strictly JSON (RFC 8259): what json-c alone takes is refused, saying what and where.
lenient() {  # lenient NAME SED-SCRIPT MESSAGE
  sed "$2" a.json >"$1"
  expect 2 "the report $1 is not valid JSON.*$3" -- "$q4cts" compare a.json "$1"
}
lenient nan.json 's/"worst_margin": 3,/"worst_margin": NaN,/' 'NaN and Infinity are not JSON\) \(line 10, column 196\)'
lenient inf.json 's/"worst_margin": 3,/"worst_margin": -Infinity,/' 'NaN and Infinity are not JSON'
lenient big.json 's/"worst_margin": 3,/"worst_margin": 1e999,/' 'beyond the range of a double'
lenient quotes.json "s/\"device\": \"fixture\"/'device': 'fixture'/" 'a string must be in double quotes'
lenient comment.json 's|"format": 1,|"format": 1, /* c */|' 'JSON has no comments'
lenient comma.json 's/"seed": "0"}/"seed": "0",}/' 'comma after its last member'
lenient dupkey.json 's/"format": 1,/"format": 1, "format": 1,/' 'has the key "format" twice'
lenient nulesc.json 's/"device": "fixture"/"device": "fix\\u0000ture"/' '\\u0000, which would cut it short'

# Bad input: exit 2, one sentence.
expect 2 'compare needs two run reports: q4cts compare A.json B.json \(got 1\)' -- "$q4cts" compare a.json
expect 2 "unexpected argument 'c.json'" -- "$q4cts" compare a.json b.json c.json
expect 2 "--factor expects a number above 1, got '1'" -- "$q4cts" compare a.json a.json --factor 1
expect 2 "--factor expects a number above 1, got 'x2'" -- "$q4cts" compare a.json a.json --factor x2
expect 2 "--factor expects a number above 1, got 'nan'" -- "$q4cts" compare a.json a.json --factor nan
expect 2 "--factor expects a number above 1, got 'inf'" -- "$q4cts" compare a.json a.json --factor inf
expect 2 'cannot read the report missing.json: No such file or directory' -- "$q4cts" compare a.json missing.json
printf 'not json' >text.json
expect 2 'the report text.json is not valid JSON' -- "$q4cts" compare text.json a.json
printf '{"q4cts": {"format": 1' >cut.json
expect 2 'the report cut.json is not valid JSON: it ends in the middle of a value' -- "$q4cts" compare a.json cut.json
printf '{"q4cts_perf": {"format": 1}}' >perf.json
expect 2 'the report perf.json has no "q4cts" object; expected the --json report of a .q4cts run.' -- "$q4cts" compare a.json perf.json
sed 's/"format": 1/"format": 2/' a.json >format2.json
expect 2 'the report format2.json: q4cts.format must be an integer from 1 to 1' -- "$q4cts" compare a.json format2.json
report dup.json -- $A:Pass:0.01 $B:Fail:3 $A:Fail:2
expect 2 'the report dup.json holds case q4cts.linear_q4gsw.basic.m1 twice \(results\[0\] and results\[2\]\)' -- "$q4cts" compare a.json dup.json
sed 's/"verdict": "Fail"/"verdict": "Broken"/' a.json >verdict.json
expect 2 'the report verdict.json: results\[1\].verdict must be a verdict name' -- "$q4cts" compare verdict.json a.json
sed 's/, "elements": 64//' a.json >nokey.json
expect 2 'the report nokey.json: results\[0\].elements must be an integer' -- "$q4cts" compare nokey.json a.json
sed 's/"worst_margin": 3/"worst_margin": "3"/' a.json >strnum.json
expect 2 'the report strnum.json: results\[1\].worst_margin must be a number or null' -- "$q4cts" compare a.json strnum.json
sed 's/"device": "fixture"/"device": 7/' a.json >prop.json
expect 2 'the report prop.json: properties.device must be a string' -- "$q4cts" compare a.json prop.json
printf '{"q4cts": {"format": 1, "strict": false, "planned": null, "complete": true, "properties": {}, "results": [7]}}' >notobj.json
expect 2 'the report notobj.json: results\[0\] must be an object' -- "$q4cts" compare a.json notobj.json

echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
