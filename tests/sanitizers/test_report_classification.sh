#!/usr/bin/env bash
# test_report_classification.sh: sanitizer_reports.sh counts a log holding only a benign
# diagnostic as no report, and still counts a real report, also one that carries the
# benign line beside it, and an unknown line.
set -uo pipefail
here=$(dirname "$0")
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
printf '==32537==Unable to get registers from thread 32536.\n' >"$dir/asan.1"
printf '==7==Unable to get registers from thread 6.\n==7==ERROR: LeakSanitizer: detected memory leaks\n' >"$dir/asan.2"
printf '==9==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x1\n' >"$dir/asan.3"
printf 'harness/judge.c:12:3: runtime error: signed integer overflow\n' >"$dir/ubsan.4"
printf 'Unable to get registers from thread 5 and more\n' >"$dir/asan.5"
: >"$dir/asan.6"
got=$(bash "$here/sanitizer_reports.sh" "$dir" | sort | tr '\n' ' ')
want="asan.2 asan.3 asan.5 ubsan.4 "
if [ "$got" = "$want" ]; then echo "reports: $got(as expected)"; exit 0; fi
echo "FAIL: reports '$got', expected '$want'"
exit 1
