#!/bin/sh
# test_validate_script.sh: reports/validate-junit accepts a report q4report wrote,
# rejects one the schema forbids (testsuite without tests/failures/errors) and a
# malformed one, and refuses bad usage with exit 2.
# Usage: test_validate_script.sh SAMPLE_WRITER VALIDATE_JUNIT WORKDIR
set -u
writer=$1 validate=$2 dir=$3
mkdir -p "$dir"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$writer" --write-sample "$dir/good.xml" || fail "could not write the sample report"
"$validate" "$dir/good.xml" 2>/dev/null || fail "a q4report JUnit file did not validate"

printf '<?xml version="1.0"?>\n<testsuites><testsuite name="x"/></testsuites>\n' > "$dir/invalid.xml"
"$validate" "$dir/invalid.xml" 2>/dev/null
[ $? -eq 1 ] || fail "a testsuite without its required attributes validated"

printf '<testsuites><testsuite name="x" tests="1" failures="0" errors="0">\n' > "$dir/cut.xml"
"$validate" "$dir/cut.xml" 2>/dev/null
[ $? -eq 1 ] || fail "a truncated file validated"

"$validate" "$dir/good.xml" "$dir/invalid.xml" 2>/dev/null
[ $? -eq 1 ] || fail "one bad file among good ones was not reported"

"$validate" 2>/dev/null
[ $? -eq 2 ] || fail "no arguments should be a usage error (exit 2)"
echo "validate-junit: ok"
