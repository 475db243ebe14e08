#!/usr/bin/env bash
# test_safety.sh: q4cts reads what it is given without blocking, writes only where it
# was asked to, prints nothing raw to the terminal, and refuses options that are not
# its command's.
#   usage: test_safety.sh Q4CTS SOURCE_DIR WORK_DIR MODE SPV_DIR
# MODE "readers":  every reader refuses a FIFO without a writer, a device (/dev/zero)
#                  and a file too large, at once, with exit 2 (no device needed).
# MODE "outputs":  an output over an input or another output (through ./, a link, a
#                  dangling link), or in the case folders of a dump folder read or
#                  written, is refused with exit 2 and nothing written; --dump-dir is
#                  probed by writing; then, on the default device (exit 77 without
#                  one), links planted in a --dump-dir are never written through.
# MODE "terminal": escape sequences in a dump's case.json and in the WebGPU worker's
#                  words are escaped, never printed raw; the WebGPU set-up errors (a
#                  missing Q4CTS_WGSL_DIR, SPIR-V given as WGSL) are one sentence, exit 2.
# MODE "options":  each command refuses another's options; --interface for an op no
#                  selected case runs, beside --kernel for that op, or with a float
#                  beyond fp32 is refused before any case.
# Every command runs under `timeout`, so a reader that blocks fails the test instead
# of hanging it.
set -uo pipefail
q4cts=$1 src=$2 work=$3 mode=$4 spv=$5
. "$(dirname "${BASH_SOURCE[0]}")/expect.sh"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
q() { timeout "${Q4_SAFETY_TIMEOUT:-60}" "$q4cts" "$@"; }
# unchanged FILE SUM: FILE still has the checksum SUM (taken before the command).
sum() { md5sum <"$1" | cut -d' ' -f1; }
unchanged() {
  checks=$((checks + 1))
  [ "$(sum "$1")" = "$2" ] || fail "$1 was written over"
}
absent() {
  checks=$((checks + 1))
  [ ! -e "$1" ] && [ ! -L "$1" ] || fail "$1 was created"
}
# an interface file of adamw_step with its SPIR-V beside it
"$q4cts" kernels --interface adamw_step >adamw.json || fail "kernels --interface adamw_step failed"
cp "$spv/adamw_step.spv" . || fail "no $spv/adamw_step.spv"
sel=(--filter q4cts.adamw_step.wd_on.n1024_t1_w1)

case $mode in
readers)
  mkfifo fifo
  big() { truncate -s 2G "$1"; }   # sparse: no disk taken
  notreg='not a regular file'
  expect 2 "cannot read case list 'fifo': $notreg" -- q list --caselist fifo
  expect 2 "cannot read case list '/dev/zero': $notreg" -- q list --caselist /dev/zero
  big big.txt
  expect 2 "cannot read case list 'big.txt': larger than 64 MiB" -- q list --caselist big.txt
  expect 2 "cannot read case list '.': Is a directory" -- q list --caselist .
  expect 2 "cannot read the baseline fifo: $notreg" -- q run "${sel[@]}" --baseline fifo
  expect 2 "cannot read the baseline /dev/zero: $notreg" -- q run "${sel[@]}" --baseline /dev/zero
  expect 2 "cannot read fifo: $notreg" -- q run "${sel[@]}" --kernel adamw_step=fifo
  expect 2 "cannot read /dev/zero: $notreg" -- q run "${sel[@]}" --kernel adamw_step=/dev/zero
  big big.spv
  expect 2 'cannot read big.spv: File too large' -- q run "${sel[@]}" --kernel adamw_step=big.spv
  expect 2 "cannot read fifo: $notreg" -- q run "${sel[@]}" --interface fifo
  sed 's/"adamw_step.spv"/"fifo"/' adamw.json >modfifo.json
  expect 2 "cannot read (\./)?fifo: $notreg" -- q run "${sel[@]}" --interface modfifo.json
  expect 2 "cannot read the baseline fifo: $notreg" -- q perf "${sel[@]}" --baseline fifo
  expect 2 "cannot read the report fifo: $notreg" -- q compare fifo fifo
  expect 2 "cannot read the report /dev/zero: $notreg" -- q compare /dev/zero /dev/zero
  expect 2 "cannot read the report fifo: $notreg" -- q merge fifo --json merged.json
  expect 2 "cannot read fifo: $notreg" -- q report fifo -o page.html
  big big.json
  expect 2 'big.json.*(File too large|larger than)' -- q report big.json -o page.html
  mkdir -p dump/q4cts.adamw_step.wd_on.n1024_t1_w1 && mkfifo dump/q4cts.adamw_step.wd_on.n1024_t1_w1/case.json
  expect 2 "case.json: $notreg" -- q replay dump/q4cts.adamw_step.wd_on.n1024_t1_w1
  expect 2 "cannot read fifo: $notreg" -- \
    q run --api webgpu --filter 'q4cts.adamw_step.*' --kernel adamw_step=fifo
  ;;

outputs)
  echo 'q4cts.adamw_step.wd_on.*' >cl.txt
  s=$(sum cl.txt)
  expect 2 '--json cl.txt is the file read as --caselist cl.txt' -- q run --caselist cl.txt --json cl.txt
  unchanged cl.txt "$s"
  expect 2 '--junit ./cl.txt is the file read as --caselist cl.txt' -- q run --caselist cl.txt --junit ./cl.txt
  unchanged cl.txt "$s"
  ln -s cl.txt link.txt
  expect 2 '--json link.txt is the file read as --caselist cl.txt \(.*/cl.txt\)' -- q run --caselist cl.txt --json link.txt
  unchanged cl.txt "$s"
  echo 'q4cts.adamw_step.wd_on.n1024_t1_w1,Pass' >base.txt
  b=$(sum base.txt)
  expect 2 '--junit base.txt is the file read as --baseline base.txt' -- q run "${sel[@]}" --baseline base.txt --junit base.txt
  unchanged base.txt "$b"
  k=$(sum adamw_step.spv)
  expect 2 '--json adamw_step.spv is the file read as --kernel adamw_step.spv' -- \
    q run "${sel[@]}" --kernel adamw_step=adamw_step.spv --json adamw_step.spv
  unchanged adamw_step.spv "$k"
  a=$(sum adamw.json)
  expect 2 '--json adamw.json is the file read as --interface adamw.json' -- q run "${sel[@]}" --interface adamw.json --json adamw.json
  expect 2 '--shader-coverage adamw_step.spv is the file read as the module of --interface' -- \
    q run "${sel[@]}" --interface adamw.json --shader-coverage adamw_step.spv
  unchanged adamw.json "$a"
  unchanged adamw_step.spv "$k"
  # two outputs that are one file: new (./X), through a link that dangles, coverage
  expect 2 '--junit and --json name the same file ./new.xml' -- q run "${sel[@]}" --junit new.xml --json ./new.xml
  absent new.xml
  ln -s target.xml dangling.xml
  expect 2 '--junit and --json name the same file dangling.xml \(.*/target.xml\)' -- \
    q run "${sel[@]}" --junit target.xml --json dangling.xml
  absent target.xml
  expect 2 '--json and --shader-coverage name the same file cov.info' -- \
    q run "${sel[@]}" --json cov.info --shader-coverage cov.info
  absent cov.info
  # the commands that read reports
  echo '{}' >in.json
  r=$(sum in.json)
  expect 2 '-o in.json is the file read as report in.json' -- q report in.json -o in.json
  expect 2 '--json ./in.json is the file read as merge in.json' -- q merge in.json --json ./in.json
  expect 2 '--junit in.json is the file read as merge in.json' -- q merge other.json in.json --junit in.json
  unchanged in.json "$r"
  # dump folders read and written
  c=q4cts.adamw_step.wd_on.n1024_t1_w1
  mkdir -p dumps/$c && echo '{}' >dumps/$c/case.json
  d=$(sum dumps/$c/case.json)
  expect 2 "--dump-dir dumps writes case folders over the dumps read as replay dumps/$c" -- \
    q replay dumps/$c --rerun --dump-dir dumps
  expect 2 '--dump-dir ./dumps writes case folders over the dumps read as replay dumps' -- \
    q replay dumps --rerun --dump-dir ./dumps
  expect 2 "--json dumps/$c/case.json lies in the dumps read as replay dumps/$c" -- \
    q replay dumps/$c --json dumps/$c/case.json
  expect 2 "--junit dumps/$c/x.xml lies in the dumps read as replay dumps" -- \
    q replay dumps --junit dumps/$c/x.xml
  expect 2 "-o dumps/$c/case.json lies in the dumps read as --dumps dumps" -- \
    q report in.json --dumps dumps -o dumps/$c/case.json
  unchanged dumps/$c/case.json "$d"
  cp cl.txt dumps/$c/cl.txt
  expect 2 "--dump-dir dumps writes case folders over the file read as --caselist dumps/$c/cl.txt" -- \
    q run --caselist dumps/$c/cl.txt --dump-dir dumps
  expect 2 "--json dumps/$c/r.json lies in a case folder written by --dump-dir dumps" -- \
    q run "${sel[@]}" --dump-dir dumps --json dumps/$c/r.json
  # --dump-dir is probed by making what a dump makes (root may "access" /proc)
  expect 2 'cannot create --dump-dir /proc/q4cts-nowhere' -- q run "${sel[@]}" --dump-dir /proc/q4cts-nowhere
  expect 2 'cannot write in --dump-dir /proc' -- q run "${sel[@]}" --dump-dir /proc
  : >afile
  expect 2 '--dump-dir afile is not a directory' -- q run "${sel[@]}" --dump-dir afile
  mkdir -p unwritten && chmod 555 unwritten
  if [ "$(id -u)" != 0 ]; then
    expect 2 'cannot write in --dump-dir unwritten' -- q run "${sel[@]}" --dump-dir unwritten
  fi
  if ! "$q4cts" devices >devices.txt 2>&1; then
    echo "no Vulkan device found: $(cat devices.txt)"
    echo "$checks checks, $failures failed"
    [ "$failures" -eq 0 ] && exit 77 || exit 1
  fi
  q run "${sel[@]}" --dump-dir newdump >out.txt 2>&1 || fail "a passing run with a new --dump-dir failed: $(tail -3 out.txt)"
  absent newdump
  # a case folder planted as a link: the dump fails, nothing is written elsewhere
  mkdir -p planted elsewhere
  ln -s ../elsewhere planted/$c
  expect 0 'Pass' -- q run "${sel[@]}" --dump all --dump-dir planted --json planted.json
  checks=$((checks + 1))
  [ -z "$(ls elsewhere)" ] || fail "a dump went through the planted link planted/$c: $(ls elsewhere | head -3)"
  checks=$((checks + 1))
  grep -q "dump failed: planted/$c is a symbolic link" planted.json || fail "the failed dump is not in the case's message"
  # files planted as links in a case folder: replaced by the dump, their targets untouched
  mkdir -p files/$c
  echo victim >victim.txt && echo victim >victim.npy
  v=$(sum victim.txt)
  ln -s ../../victim.txt files/$c/case.json
  ln -s ../../victim.npy files/$c/param.npy
  ln -s ../../victim-new.npy files/$c/grad.npy   # dangling: a write through it would create it
  expect 0 'Pass' -- q run "${sel[@]}" --dump all --dump-dir files
  unchanged victim.txt "$v"
  unchanged victim.npy "$v"
  absent victim-new.npy
  checks=$((checks + 1))
  [ -f files/$c/case.json ] && [ ! -L files/$c/case.json ] && [ ! -L files/$c/param.npy ] ||
    fail "the planted links were not replaced by the dump's own files"
  expect 0 'the same verdict and margins as dumped' -- q replay files/$c
  ;;

terminal)
  # a dump whose case.json names a device with escape sequences in it
  if "$q4cts" devices >devices.txt 2>&1; then
    c=q4cts.adamw_step.wd_on.n1024_t1_w1
    expect 0 Pass -- q run "${sel[@]}" --dump all --dump-dir d
    python3 - d/$c/case.json <<'PY' || fail "editing case.json failed"
import json, sys
p = sys.argv[1]
d = json.load(open(p))
d['device']['name'] = 'GPU \x1b]0;pwned\x07 \x1b[2J'
d['device']['driver'] = 'drv \u009b31m'
d['device']['driver_info'] = 'info \u202eevil'
json.dump(d, open(p, 'w'))
PY
    expect 0 'on GPU \\x1B\]0;pwned\\x07 \\x1B\[2J \(driver drv \\u009B31m info \\u202Eevil\)' -- q replay d/$c
    checks=$((checks + 1))
    ! grep -q $'\x1b\|\xc2\x9b\|\xe2\x80\xae' out.txt || fail "replay printed case.json's escape bytes raw"
  else
    echo "no Vulkan device: the dump's part is skipped"
  fi
  # the WebGPU worker's words: a stand-in worker.mjs whose hello says ESC sequences
  mkdir -p fake
  cat >fake/worker.mjs <<'JS'
import fs from 'node:fs';
const frame = (type, json) => {
    const body = Buffer.from(JSON.stringify(json));
    const head = Buffer.alloc(16);
    head.writeUInt32LE(0x47573451, 0); head.writeUInt32LE(type, 4);
    head.writeUInt32LE(body.length, 8); head.writeUInt32LE(0, 12);
    fs.writeSync(4, Buffer.concat([head, body]));
};
if (process.env.FAKE === 'error')
    frame(1, { protocol: 1, error: 'no adapter \x1b]0;pwned\x07 \x1b[2J \u009b31m' });
else
    frame(1, { protocol: 1, node: 'v0 \x1b[2J', webgpu: '0', timestamps: false, features: [],
               limits: { maxStorageBufferBindingSize: 134217728, maxBufferSize: 268435456,
                         maxComputeWorkgroupsPerDimension: 65535,
                         maxComputeWorkgroupStorageSize: 16384,
                         maxComputeInvocationsPerWorkgroup: 256 },
               adapter: { description: 'Evil \x1b]0;pwned\x07 \u009b31m GPU',
                                      vendor: 'v', architecture: 'a' } });
fs.readSync(3, Buffer.alloc(16), 0, 16, null);
process.exit(0);
JS
  wg=(env Q4CTS_WEBGPU_DIR="$PWD/fake" Q4CTS_WGSL_DIR="$src/gpu/wgsl")
  expect 2 'the WebGPU worker could not start: no adapter \\x1B\]0;pwned\\x07 \\x1B\[2J \\u009B31m' -- \
    "${wg[@]}" FAKE=error timeout 600 "$q4cts" run --api webgpu "${sel[@]}"
  checks=$((checks + 1))
  ! grep -q $'\x1b\|\xc2\x9b' out.txt || fail "the worker's error reached the terminal raw"
  "${wg[@]}" FAKE=hello timeout 600 "$q4cts" run --api webgpu "${sel[@]}" >out.txt 2>&1
  checks=$((checks + 1))
  grep -q 'device: Evil \\x1B\]0;pwned\\x07 \\u009B31m GPU (WebGPU)' out.txt ||
    fail "the worker's device name is not shown escaped: $(head -3 out.txt)"
  checks=$((checks + 1))
  ! grep -q $'\x1b\|\xc2\x9b' out.txt || fail "the worker's device name reached the terminal raw"
  # set-up errors of --api webgpu: one sentence and exit 2 before any case
  expect 2 "the WGSL kernels' folder /nonexistent/wgsl \(Q4CTS_WGSL_DIR\) does not exist" -- \
    env Q4CTS_WGSL_DIR=/nonexistent/wgsl timeout 600 "$q4cts" run --api webgpu "${sel[@]}"
  expect 2 "the WGSL kernels' folder .* holds no .wgsl kernel" -- \
    env Q4CTS_WGSL_DIR="$PWD/fake" timeout 600 "$q4cts" perf --api webgpu "${sel[@]}"
  expect 2 "--kernel 'adamw_step=adamw_step.spv': adamw_step.spv is a SPIR-V module; with --api webgpu a kernel is WGSL source text" -- \
    q run --api webgpu "${sel[@]}" --kernel adamw_step=adamw_step.spv
  printf 'fn main() {}\0' >nul.wgsl
  expect 2 "nul.wgsl is not text \(it holds a NUL byte\)" -- \
    q run --api webgpu "${sel[@]}" --kernel adamw_step=nul.wgsl
  ;;

options)
  expect 2 '^q4cts: --rerun is an option of replay only, not of run$' -- q run --rerun
  expect 2 '^q4cts: -o/--output is an option of report only, not of run$' -- q run -o page.html
  expect 2 '^q4cts: -o/--output is an option of report only, not of run$' -- q run --output=page.html
  expect 2 '^q4cts: --dumps is an option of report only, not of run$' -- q run --dumps d
  expect 2 '^q4cts: --factor is an option of compare only, not of run$' -- q run --factor 3
  expect 2 '^q4cts: --reps is an option of perf only, not of run$' -- q run --reps 3
  expect 2 '^q4cts: --warmup-ms is an option of perf only, not of run$' -- q run --warmup-ms 3
  expect 2 '^q4cts: --json is an option of run, perf, replay and merge only, not of list$' -- q list --json x.json
  expect 2 '^q4cts: --strict is an option of run and replay only, not of merge$' -- q merge a.json --strict --json m.json
  expect 2 '^q4cts: --junit is an option of run, replay and merge only, not of compare$' -- q compare a.json b.json --junit j.xml
  expect 2 '^q4cts: --filter is an option of list, run and perf only, not of devices$' -- q devices --filter x
  expect 2 '^q4cts: --seed is an option of list, run and perf only, not of replay$' -- q replay d --seed 3
  expect 2 '^q4cts: --shader-coverage is an option of run only, not of perf$' -- q perf --shader-coverage c.info
  expect 2 '^q4cts: replay --device needs --rerun' -- q replay d --device 0
  expect 2 '^q4cts: replay --dump-dir needs --rerun' -- q replay d --dump-dir out
  expect 2 '^q4cts: replay --kernel needs --rerun' -- q replay d --kernel adamw_step=adamw_step.spv
  # an --interface file must be used, once per op, with values fp32 can hold
  expect 2 '--interface adamw.json is for op adamw_step, which no selected case runs' -- \
    q run --filter q4cts.dequantize.custom.n16_k32_g32 --interface adamw.json
  expect 2 '--kernel adamw_step=adamw_step.spv and --interface adamw.json both replace op adamw_step' -- \
    q run "${sel[@]}" --interface adamw.json --kernel adamw_step=adamw_step.spv
  sed 's/"value": "lr"/"value": "1e39"/' adamw.json >inf.json
  grep -q 1e39 inf.json || fail "inf.json was not made"
  expect 2 'inf.json: steps\[0\].push_constants\[1\].value: the value 1e\+39 is beyond the range of fp32' -- \
    q run "${sel[@]}" --interface inf.json
  sed 's/"value": "lr"/"value": "-3.5e38"/' adamw.json >ninf.json
  expect 2 'the value -3.5e\+38 is beyond the range of fp32 \(it would be -inf\)' -- \
    q run "${sel[@]}" --interface ninf.json
  # what each command takes still works
  expect 0 'q4cts.adamw_step.wd_on.n1024_t1_w1' -- q list "${sel[@]}" --seed 2 --shard 1/1
  ;;
*) echo "unknown mode $mode"; exit 2 ;;
esac

echo "$checks checks, $failures failed"
[ "$failures" -eq 0 ]
