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
# await PATTERN FILE PID: waits until FILE has a line matching PATTERN (the run PID in
# the background got that far); returns 1 if PID ended first. No time limit: how long
# a run takes is the machine's business, and ctest's TIMEOUT catches a hang.
await() {
  while ! grep -q -- "$1" "$2" 2>/dev/null; do
    alive "$3" || { grep -q -- "$1" "$2" 2>/dev/null; return; }
    sleep 0.1
  done
}
# alive PID: the process is there and not a zombie.
alive() { local st; st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null); [ -n "$st" ] && [ "$st" != Z ]; }
# gone PID: waits until the process is gone (or a zombie); 1 if it is still there after
# 300 s. A process killed by the kernel (PR_SET_PDEATHSIG) goes at once; the bound only
# turns a defect into a failure instead of a hang, far above any loaded machine's delay.
gone() {
  local i
  for ((i = 0; i < 3000; i++)); do alive "$1" || return 0; sleep 0.1; done
  return 1
}
