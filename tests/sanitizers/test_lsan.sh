#!/usr/bin/env bash
# test_lsan.sh PROBE SUPPRESSIONS ICD: the LeakSanitizer suppressions (lsan-suppressions.txt)
# suppress a leak made inside LLVM, the compiler of the Vulkan driver (ICD names it; its
# libLLVM is found with ldd), and still report a leak of our own code; and the LLVM leak
# is reported without them, so it is the file that silences it. Exit 77 if the driver
# loads no libLLVM.
set -uo pipefail
probe=$1 supp=$2 icd=$3
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
driver=$(sed -n 's/.*"library_path": *"\([^"]*\)".*/\1/p' "$icd" 2>/dev/null)
llvm=$([ -n "$driver" ] && ldd "$driver" 2>/dev/null | awk '/libLLVM/ { print $3; exit }')
if [ -z "$llvm" ]; then
  echo "SKIP: no libLLVM under the driver of $icd"
  exit 77
fi
# The runs' own options: reports to stderr (not scripts/test's log_path, which counts
# reports), leak detection on.
run() { env ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS="$1" "$probe" "${@:2}" >out.txt 2>&1; }

run "suppressions=$supp" llvm "$llvm"
rc=$?
[ $rc -eq 0 ] || fail "the leak inside $llvm is not suppressed (exit $rc): $(grep -m3 -E 'leak|#[0-9]' out.txt)"
run "" llvm "$llvm"
rc=$?
{ [ $rc -ne 0 ] && grep -q 'detected memory leaks' out.txt; } ||
  fail "without the suppressions, the probe's leak inside LLVM is not reported (exit $rc)"
run "suppressions=$supp" ours
rc=$?
{ [ $rc -ne 0 ] && grep -q 'detected memory leaks' out.txt && grep -q 'in main .*lsan_probe.c' out.txt; } ||
  fail "with the suppressions, a leak of our own code is not reported (exit $rc)"
echo "3 checks, $failures failures"
[ $failures -eq 0 ]
