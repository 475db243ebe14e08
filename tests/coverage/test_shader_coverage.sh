#!/usr/bin/env bash
# test_shader_coverage.sh Q4CTS ROOT WORKDIR [TIMEOUT] [RUN OPTIONS...]: the per-device
# shader-coverage gate. The device q4cts runs on (RUN OPTIONS may pick one, e.g.
# --device 1) belongs to a class of tests/coverage/device-lists.txt; the class's runs
# go with --shader-coverage, their coverage is merged, and every GLSL line of every
# built-in kernel must have run in one of them, except the lines that
# gpu/shaders/coverage-allowlist.txt lists for every class or for this one
# ("file:line  [@class[,class]]  reason"). Fails on a line that did not run and is not
# listed, on a line listed for this class that now runs, on an entry that is no line
# of any kernel (stale), and on one without a reason. Exit 77: no Vulkan device, or a
# device of no class (the gate cannot know which lines its launchers reach).
set -uo pipefail
q4cts=$1 root=$2 work=$3 timeout=${4:-600}
shift $(($# < 4 ? $# : 4))
allow=$root/gpu/shaders/coverage-allowlist.txt
lists=$root/tests/coverage/device-lists.txt
mkdir -p "$work" && rm -f "$work"/coverage-*.info

if ! "$q4cts" devices >/dev/null 2>&1; then
  echo "skipped: no Vulkan device"
  exit 77
fi
# The device's class, from the line `q4cts run` prints of the device it opens.
first=$("$q4cts" list --caselist "$root/cases/mustpass.txt" | head -n 1)
device=$("$q4cts" run --filter "$first" "$@" 2>&1 | grep -m1 '^device:')
class=$(while read -r kind name pattern; do
          [ "$kind" = class ] && grep -qE -- "$pattern" <<<"$device" && { echo "$name"; break; }
        done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$lists"))
if [ -z "$class" ]; then
  echo "skipped: the device is of no class of $lists: $device"
  exit 77
fi
echo "$device"
echo "device class: $class"

# lavapipe: one compute thread, else the probes' stores from every thread into the
# same cache lines make the run ~50x slower (a GPU is unaffected). Even so the
# coverage probes make a kernel up to ~10x slower there (23 s for the slowest case), so
# --timeout is TIMEOUT (CMake's Q4CTS_TEST_RUN_TIMEOUT, 600 s): only a hang reaches it.
# (--bounds-check has a test of its own, harness.bounds_check, with all threads.)
# Instead, a worker per core (--jobs): each with its own probe buffers, their counts
# merged into the same tracefile as one worker's (ctest gives this test 2 processors).
jobs=$(nproc 2>/dev/null || echo 1)
runs=0
while read -r kind name args; do
  [ "$kind" = run ] && [ "$name" = "$class" ] || continue
  runs=$((runs + 1))
  info=$work/coverage-$runs.info
  read -r -a argv <<<"$args"
  echo "run $runs: q4cts run ${argv[*]}"
  (cd "$root" && LP_NUM_THREADS=1 "$q4cts" run "${argv[@]}" "$@" --shader-coverage "$info" \
     --jobs "$jobs" --timeout "$timeout") >"$work/run-$runs.log" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    tail -40 "$work/run-$runs.log"
    echo "FAIL: run $runs (q4cts run ${argv[*]}) with coverage probes exited $rc"
    exit 1
  fi
  grep -m1 '^result:' "$work/run-$runs.log"
done < <(grep -v -e '^#' -e '^[[:space:]]*$' "$lists")
if [ $runs -eq 0 ]; then
  echo "FAIL: device class $class has no run in $lists"
  exit 1
fi

awk -v allowfile="$allow" -v class="$class" -f "$root/tests/coverage/coverage_gate.awk" \
  "$work"/coverage-*.info
