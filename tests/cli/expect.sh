# expect.sh: the checks the command-line tests share (sourced, not run).
# Counts checks and failures; the test prints them and exits non-zero on any failure.
failures=0 checks=0

fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
# expect STATUS PATTERN -- command...: exit status and a line of stdout+stderr matching PATTERN.
expect() {
  local want=$1 pattern=$2; shift 3
  checks=$((checks + 1))
  "$@" >out.txt 2>&1
  local got=$?
  [ "$got" -eq "$want" ] || { fail "$* exited $got, expected $want"; sed 's/^/    /' out.txt | tail -20; return; }
  grep -qE -- "$pattern" out.txt || { fail "$*: no line matches '$pattern'"; sed 's/^/    /' out.txt | tail -20; }
}
# await PATTERN FILE: waits up to 60 s until FILE has a line matching PATTERN (a run in
# the background got that far); returns 1 if it never does.
await() {
  for _ in $(seq 1 600); do grep -q -- "$1" "$2" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
