#!/usr/bin/env bash
# test_report.sh: `q4cts report`, the HTML page of a run.
#   usage: test_report.sh Q4CTS SOURCE_DIR WORK_DIR MODE [MUTATION_SPV_DIR]
# MODE "inputs":  bad inputs (one sentence, exit 2) and the page's contents, from
#                 reports made by hand; no device, no browser.
# MODE "browser": a run with two planted bugs (mutant kernels, --dump failing), its
#                 page with perf and PyTorch timings drawn in headless Chromium
#                 (render.py): heat maps, histograms, roofline, the time-per-case
#                 table (every case with its input and truth time), no console error,
#                 a screenshot of a failing case (WORK_DIR/report-example.png, what
#                 docs/report-example.png shows); and a page with a planted script
#                 error must fail the same check. Exit 77 if no device.
# Both need the chart libraries, the browser mode Chromium too: outside CI, where they
# are missing (scripts/setup report), exit 77 (tests/needs.sh).
set -uo pipefail
q4cts=$1 src=$2 work=$3 mode=$4 mutations=${5:-}
if [ "$mode" = browser ]; then . "$src/tests/needs.sh" chromium "$src"; else . "$src/tests/needs.sh" report "$src"; fi
. "$src/tests/cli/expect.sh"
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1

# A run report by hand: a Pass, a Fail, and a NotSupported.
run_json() {
  cat <<'EOF'
{"q4cts": {"version": "0.1.0", "format": 1, "strict": false, "planned": 3, "complete": true,
 "properties": {"device": "a test device"},
 "results": [
  {"name": "q4cts.fused_ce.basic.r4_v128_p0", "op": "fused_ce", "family": "basic", "verdict": "Pass", "worst_margin": 0.03, "stat_margin": 0.1, "seconds": 0.01},
  {"name": "q4cts.fused_ce.masked.r8_v256_p25", "op": "fused_ce", "family": "masked", "verdict": "Fail", "worst_margin": 3.5, "stat_margin": null, "seconds": 0.02,
   "message": "</script><script>alert(1)</script>", "repro": "q4cts run --filter q4cts.fused_ce.masked.r8_v256_p25"},
  {"name": "q4cts.adamw_step.custom.n4100_t2_w1", "op": "adamw_step", "family": "custom", "verdict": "NotSupported", "worst_margin": null}
 ]}}
EOF
}

if [ "$mode" = inputs ]; then
  run_json >run.json
  expect 2 'report needs the --json of a run or of a perf run' -- "$q4cts" report -o page.html
  expect 2 'report needs -o FILE, the HTML file to write' -- "$q4cts" report run.json
  expect 2 'option -o needs a value' -- "$q4cts" report run.json -o
  expect 2 "unexpected argument 'd.json'" -- "$q4cts" report a.json b.json c.json d.json -o page.html
  expect 2 'cannot read nope.json: No such file' -- "$q4cts" report nope.json -o page.html
  # refused FILE TEXT PATTERN [REPORT...]: FILE holding TEXT, given to `q4cts report`
  # after the other REPORTs, exits 2 with PATTERN.
  refused() {
    local file=$1 text=$2 pattern=$3; shift 3
    printf '%s' "$text" >"$file"
    expect 2 "$pattern" -- "$q4cts" report "$@" "$file" -o page.html
  }
  refused cut.json '{"q4cts": {"results": [' 'cut.json is not valid JSON: it ends in the middle of a value'
  refused tail.json '{"q4cts": {"results": []}} {}' 'tail.json is not valid JSON: text follows the object'
  refused array.json '[1]' 'array.json must hold a JSON object'
  # Strictly JSON (RFC 8259). NaN and Infinity would reach the page's data, which
  # JSON.parse then refuses: a blank page and exit 0; now the input is refused.
  refused nan.json '{"q4cts": {"results": [{"name": "a", "op": "b", "verdict": "Fail", "worst_margin": NaN}]}}' 'nan.json is not valid JSON: .*NaN and Infinity are not JSON'
  refused inf.json '{"q4cts": {"results": [{"name": "a", "op": "b", "verdict": "Fail", "worst_margin": Infinity}]}}' 'inf.json is not valid JSON: .*NaN and Infinity are not JSON'
  refused quote.json "{'q4cts': {'results': []}}" 'quote.json is not valid JSON: a string must be in double quotes \(line 1, column 2\)'
  refused comment.json '{"q4cts": {"results": []} // c
}' 'comment.json is not valid JSON: JSON has no comments \(line 1, column 27\)'
  refused comma.json '{"q4cts": {"results": [],}}' 'comma.json is not valid JSON: an object has a comma after its last member'
  refused dup.json '{"q4cts": {"results": [{"name": "a", "op": "b", "verdict": "Fail"}]}, "q4cts": {"results": []}}' 'dup.json is not valid JSON here: the object at line 1, column 1 has the key "q4cts" twice'
  refused nul.json '{"q4cts": {"results": [{"name": "a\u0000b", "op": "b", "verdict": "Fail"}]}}' 'nul.json is not valid JSON: a string holds .u0000'
  refused other.json '{"junit": 1}' 'other.json holds no "q4cts", "q4cts_perf" or "torch_perf" object'
  refused noresults.json '{"q4cts": {"format": 1}}' 'noresults.json: "q4cts" has no "results" array'
  refused verdict.json '{"q4cts": {"results": [{"name": "a", "op": "b", "verdict": "Great"}]}}' 'verdict.json: result 1 has no "verdict" \(Pass, Fail'
  refused noop.json '{"q4cts": {"results": [{"name": "a", "verdict": "Pass"}]}}' 'noop.json: result 1 is not an object with a "name" and an "op" string'
  refused margin.json '{"q4cts": {"results": [{"name": "a", "op": "b", "verdict": "Pass", "worst_margin": "0.1"}]}}' 'margin.json: result 1 has a "worst_margin" that is not a number or null'
  expect 2 'run.json is the second "q4cts" report given' -- "$q4cts" report run.json run.json -o page.html
  perf=$src/docs/results/h200-perf.json torch=$src/docs/results/h200-torch.json
  expect 2 "PyTorch's timings are compared with a perf run" -- "$q4cts" report run.json "$torch" -o page.html
  refused ceil.json '{"q4cts_perf": {"ceilings": {"copy_gbs": 0, "fma_tflops": 1}, "results": []}}' 'ceil.json: "q4cts_perf" has no "ceilings" with a positive "copy_gbs"'
  refused pname.json '{"q4cts_perf": {"ceilings": {"copy_gbs": 1.5, "fma_tflops": 1.5}, "results": [{"op": "x"}]}}' 'pname.json: result 1 is not an object with a "name" string'
  refused tres.json '{"torch_perf": {"torch": "2"}}' 'tres.json: "torch_perf" has no "results" array' "$perf"
  refused tname.json '{"torch_perf": {"results": [7]}}' 'tname.json: result 1 is not an object with a "name" string' "$perf"
  # The page's files: a missing chart library says how to install it; a missing
  # template names the variable that points at reports/html.
  mkdir -p assets && cp "$src"/reports/html/report.* assets/
  Q4CTS_REPORT_ASSETS=$PWD/assets expect 2 'the chart library .*chart.umd.min.js is missing .*run scripts/setup' -- "$q4cts" report run.json -o page.html
  mkdir -p assets/node_modules/chart.js/dist && : >assets/node_modules/chart.js/dist/chart.umd.min.js
  Q4CTS_REPORT_ASSETS=$PWD/assets expect 2 'the chart library .*chart.umd.min.js is missing \(No data available\)' -- "$q4cts" report run.json -o page.html
  Q4CTS_REPORT_ASSETS=$PWD/nowhere expect 2 'the chart library' -- "$q4cts" report run.json -o page.html
  mkdir -p notemplate && ln -s "$src/reports/html/node_modules" notemplate/node_modules
  Q4CTS_REPORT_ASSETS=$PWD/notemplate expect 2 "cannot read the page's .*report.js .*Q4CTS_REPORT_ASSETS must name" -- "$q4cts" report run.json -o page.html
  expect 2 'cannot .*report file run.json/page.html: Not a directory' -- "$q4cts" report run.json -o run.json/page.html
  expect 0 'report: new/dir/page.html' -- "$q4cts" report run.json -o new/dir/page.html
  # Dumps: a malformed case.json or one of another case stops the page (exit 2); a
  # case without a dump, or a run without --dumps, gets a note instead of a map.
  mkdir -p dumps/q4cts.fused_ce.masked.r8_v256_p25
  printf '{"format": 1,' >dumps/q4cts.fused_ce.masked.r8_v256_p25/case.json
  expect 2 'case.json is not valid JSON' -- "$q4cts" report run.json --dumps dumps -o page.html
  printf '{"format": 1, "name": "q4cts.fused_ce.basic.r4_v128_p0"}' >dumps/q4cts.fused_ce.masked.r8_v256_p25/case.json
  expect 2 'case.json' -- "$q4cts" report run.json --dumps dumps -o page.html
  mkdir -p empty
  expect 0 'report: page.html, 3 cases, 0 with an error map' -- "$q4cts" report run.json --dumps empty -o page.html
  # --dumps that names no folder is a mistake (a typo), not a page without maps.
  expect 2 '--dumps typo/: No such file or directory \(give the --dump-dir of the run\)' -- "$q4cts" report run.json --dumps typo/ -o page.html
  expect 2 '--dumps run.json is not a folder' -- "$q4cts" report run.json --dumps run.json -o page.html
  checks=$((checks + 1))
  grep -q 'no error map: --dumps holds no dump of this case' page.html || fail "a case without a dump has no note"
  expect 0 "report: page.html, 3 cases, 0 with an error map, perf with PyTorch's timings" -- "$q4cts" report "$torch" run.json "$perf" -o page.html
  checks=$((checks + 1))
  grep -q 'no error map: give --dumps DIR' page.html || fail "a run without --dumps has no note"
  # Self-contained and safe: the libraries inline, no src= or href= to fetch, and
  # the data's "</script>" (a message) escaped so it cannot end its element.
  checks=$((checks + 1))
  [ "$(grep -c '<script' page.html)" -eq 4 ] || fail "the page does not hold exactly its 4 scripts: $(grep -c '<script' page.html)"
  grep -q 'Chart.js v4' page.html || fail "Chart.js is not inlined"
  grep -Eq '<(script|link|img)[^>]* (src|href)=' page.html && fail "the page fetches something"
  grep -q '\\u003c/script>\\u003cscript>alert(1)' page.html || fail "the data's </script> is not escaped"
  # The page's own files cannot end their elements early either.
  mkdir -p inl && cp "$src"/reports/html/report.* inl/ && ln -s "$src/reports/html/node_modules" inl/node_modules
  echo 'var planted = "</script><p>";' >>inl/report.js
  echo '/* </STYLE> */' >>inl/report.css
  Q4CTS_REPORT_ASSETS=$PWD/inl expect 0 'report: inl.html' -- "$q4cts" report run.json -o inl.html
  checks=$((checks + 1))
  grep -qF 'var planted = "<\/script><p>";' inl.html || fail "a script's </script> is not escaped"
  grep -qF '/* <\/STYLE> */' inl.html || fail "the style's </STYLE> is not escaped"
  expect 0 'report: p2.html, perf' -- "$q4cts" report "$perf" -o p2.html
  echo "$checks checks, $failures failures"
  [ "$failures" -eq 0 ]
  exit
fi

# ---- browser ----
if "$q4cts" devices 2>&1 | grep -q 'no Vulkan device found'; then
  echo "no Vulkan device found"; exit 77
fi
# Two planted bugs: the backward GEMM's last column tile writes into the next row
# (a stripe of wrong columns; real outputs), and requant's flat path codes a wrong
# row span (code outputs).
bwd=q4cts.linear_q4gsw_backward.grouped.m24_n32_k96_g12
expect 1 "Fail +$bwd" -- "$q4cts" run --strict --dump-dir dumps --json run.json \
  --kernel linear_q4gsw_backward_tiled="$mutations/gemm_partial_n_unclamped.spv" \
  --kernel q4gsw_requant_flat="$mutations/requant_flat_row_span.spv" \
  --filter 'q4cts.linear_q4gsw_backward.grouped.*' --filter 'q4cts.q4gsw_requant.odd_n4.*' \
  --filter q4cts.adamw_step.unaligned.n1023_t5_w1
failing=$(ls dumps | wc -l)
checks=$((checks + 1))
[ "$failing" -ge 2 ] || fail "expected at least 2 failing cases dumped, got $failing"
perf=$src/docs/results/h200-perf.json torch=$src/docs/results/h200-torch.json
expect 0 "report: out/index.html, .* cases, $failing with an error map, perf with PyTorch's timings" -- \
  "$q4cts" report run.json "$perf" "$torch" --dumps dumps -o out/index.html
checks=$((checks + 1))
# The time-per-case table: the run's slowest cases (up to 20), each with its times.
timed=$(python3 -c 'import json, sys; print(min(20, len(json.load(open(sys.argv[1]))["q4cts"]["results"])))' run.json)
python3 "$here/render.py" out/index.html shots --heatmaps "$failing" --histograms 3 --roofline \
  --times "$timed" --case "$bwd" --screenshot report-example.png >render.txt 2>&1 || fail "the page is not drawn: $(cat render.txt)"
cat render.txt
[ -s report-example.png ] || fail "no screenshot of $bwd"

# A dump whose case ended before the read-back: a note, no map.
cp -r dumps nogot && python3 - "nogot/$bwd/case.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["outputs"][0]["got"] = False
json.dump(c, open(sys.argv[1], "w"))
EOF
expect 0 "report: nogot.html, .* cases, $((failing - 1)) with an error map" -- "$q4cts" report run.json --dumps nogot -o nogot.html
checks=$((checks + 1))
grep -q 'the case ended before its outputs were read back' nogot.html || fail "no note for a dump without GPU results"

# A dump folder whose case.json is of another case stops the page.
cp -r dumps other && python3 - "other/$bwd/case.json" <<'EOF'
import json, sys
c = json.load(open(sys.argv[1]))
c["name"] = "q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32"
json.dump(c, open(sys.argv[1], "w"))
EOF
expect 2 "other/$bwd/case.json holds the case q4cts.linear_q4gsw_backward.grouped.m8_n32_k64_g32, not $bwd" -- \
  "$q4cts" report run.json --dumps other -o other.html

# The check itself must fail a page with a console error (a planted one).
mkdir -p planted && cp "$src"/reports/html/report.* planted/ && ln -s "$src/reports/html/node_modules" planted/node_modules
sed -i '1i console.error("planted: the page broke");' planted/report.js
Q4CTS_REPORT_ASSETS=$PWD/planted "$q4cts" report run.json --dumps dumps -o planted.html >/dev/null
checks=$((checks + 1))
if python3 "$here/render.py" planted.html planted-shots --heatmaps "$failing" --histograms 3 >planted.txt 2>&1; then
  fail "a page that logs a console error passed the browser check"
fi
grep -q 'console SEVERE: .*planted: the page broke' planted.txt || fail "the planted console error is not named: $(cat planted.txt)"
# ... and a page whose maps are not drawn (the matrix chart type missing).
mkdir -p nomatrix/node_modules/chart.js/dist nomatrix/node_modules/chartjs-chart-matrix/dist
cp "$src"/reports/html/report.* nomatrix/
cp "$src"/reports/html/node_modules/chart.js/dist/chart.umd.min.js nomatrix/node_modules/chart.js/dist/
echo '/* not the matrix plugin */' >nomatrix/node_modules/chartjs-chart-matrix/dist/chartjs-chart-matrix.min.js
Q4CTS_REPORT_ASSETS=$PWD/nomatrix "$q4cts" report run.json --dumps dumps -o nomatrix.html >/dev/null
checks=$((checks + 1))
if python3 "$here/render.py" nomatrix.html nomatrix-shots --heatmaps "$failing" --histograms 3 >nomatrix.txt 2>&1; then
  fail "a page without its heat maps passed the browser check"
fi
grep -q "the page's script did not finish" nomatrix.txt || fail "the undrawn maps are not named: $(cat nomatrix.txt)"
echo "$checks checks, $failures failures"
[ "$failures" -eq 0 ]
