#!/usr/bin/env bash
# test_coverage_gate.sh: coverage_gate.awk on made-up tracefiles: two runs' coverage is
# merged (a line run in either ran); an entry tagged @lavapipe excuses a line on
# lavapipe only; a line that ran while listed for the class, an unlisted line that did
# not run, a stale entry and an entry without a reason each fail the gate.
set -uo pipefail
gate=$(dirname "$0")/coverage_gate.awk
dir=$(mktemp -d) && trap 'rm -rf "$dir"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# run 1 ran a.comp:1, run 2 a.comp:2; a.comp:3 and b.comp:7 ran in neither.
printf 'SF:/x/gpu/shaders/a.comp\nDA:1,5\nDA:2,0\nDA:3,0\nend_of_record\nSF:/x/gpu/shaders/b.comp\nDA:7,0\nend_of_record\nSF:/x/other/c.glsl\nDA:1,0\nend_of_record\n' >"$dir/1.info"
printf 'SF:/x/gpu/shaders/a.comp\nDA:1,0\nDA:2,9\nDA:3,0\nend_of_record\n' >"$dir/2.info"
gate() {   # ALLOWLIST-TEXT CLASS: the gate's exit status; its output in $dir/out
  printf '# a comment\n%b' "$1" >"$dir/allow.txt"
  awk -v allowfile="$dir/allow.txt" -v class="$2" -f "$gate" "$dir/1.info" "$dir/2.info" >"$dir/out" 2>&1
}
expect() {   # WANT-STATUS WHAT ALLOWLIST-TEXT CLASS [PATTERN]
  gate "$3" "$4"; local rc=$?
  [ "$rc" -eq "$1" ] || fail "$2: exit $rc, expected $1: $(cat "$dir/out")"
  [ -z "${5:-}" ] || grep -q -- "$5" "$dir/out" || fail "$2: no line matching '$5': $(cat "$dir/out")"
}
expect 0 "both unrun lines listed for every class" 'a.comp:3  why\nb.comp:7  why\n' nvidia "4 GLSL lines, 2 not run"
expect 0 "listed for this class" 'a.comp:3  @lavapipe,nvidia  why\nb.comp:7  @nvidia  why\n' nvidia
expect 1 "listed for another class only" 'a.comp:3  why\nb.comp:7  @lavapipe  why\n' nvidia "b.comp:7 never ran"
expect 1 "a listed line that ran in the second run" 'a.comp:2  why\na.comp:3  why\nb.comp:7  why\n' nvidia "a.comp:2 runs now"
expect 0 "a line that ran, listed for another class" 'a.comp:2  @lavapipe  why\na.comp:3  why\nb.comp:7  why\n' nvidia
expect 1 "a stale entry" 'a.comp:3  why\nb.comp:7  why\nb.comp:99  why\n' nvidia "b.comp:99 is not a line"
expect 1 "an entry without a reason" 'a.comp:3\nb.comp:7  why\n' nvidia "without a reason"
expect 1 "a tagged entry without a reason" 'a.comp:3  @nvidia\nb.comp:7  why\n' nvidia "without a reason"
: >"$dir/empty.info"
awk -v allowfile="$dir/allow.txt" -v class=nvidia -f "$gate" "$dir/empty.info" >"$dir/out" 2>&1 &&
  fail "no kernel line at all passes the gate"
echo "9 checks, $failures failures"
[ $failures -eq 0 ]
