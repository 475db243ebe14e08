#!/usr/bin/env bash
# test_shader_coverage.sh Q4CTS ROOT WORKDIR [TIMEOUT]: the shader-coverage gate. Runs the
# mustpass with --shader-coverage, then requires that every GLSL
# line of every built-in kernel ran, except the lines of
# gpu/shaders/coverage-allowlist.txt ("file:line  reason", one each). Fails on a line
# that did not run and is not listed, on a listed line that now runs or does not
# exist (a stale entry), and on an entry without a reason. Exit 77: no Vulkan device.
set -uo pipefail
q4cts=$1 root=$2 work=$3 timeout=${4:-600}
allow=$root/gpu/shaders/coverage-allowlist.txt
mkdir -p "$work"
info=$work/shader-coverage.info

if ! "$q4cts" devices >/dev/null 2>&1; then
  echo "skipped: no Vulkan device"
  exit 77
fi
# lavapipe: one compute thread, else the probes' stores from every thread into the
# same cache lines make the run ~50x slower (a GPU is unaffected). Even so the
# coverage probes make a kernel up to ~10x slower there (23 s for the slowest case), so
# --timeout is TIMEOUT (CMake's Q4CTS_TEST_RUN_TIMEOUT, 600 s): only a hang reaches it.
# (--bounds-check has a test of its own, harness.bounds_check, with all threads.)
LP_NUM_THREADS=1 "$q4cts" run --caselist "$root/cases/mustpass.txt" --shader-coverage "$info" \
  --timeout "$timeout" >"$work/run.log" 2>&1
rc=$?
if [ $rc -ne 0 ]; then
  tail -40 "$work/run.log"
  echo "FAIL: the mustpass with coverage probes exited $rc"
  exit 1
fi
sed -n '/^shader coverage:/,$p' "$work/run.log"

awk -v shaders="$root/gpu/shaders/" -v allowfile="$allow" '
  BEGIN {
    bad = 0
    while ((getline line < allowfile) > 0) {
      if (line ~ /^[ \t]*(#|$)/) continue
      n = split(line, f, /[ \t]+/)
      if (n < 2 || f[2] == "") { print "FAIL: allowlist entry without a reason: " line; bad = 1 }
      allowed[f[1]] = 1
    }
  }
  /^SF:/ { file = substr($0, 4); own = index(file, shaders) == 1; base = file; sub(/.*\//, "", base) }
  /^DA:/ && own {
    split(substr($0, 4), d, ",")
    key = base ":" d[1]
    seen[key] = 1
    if (d[2] == 0 && !(key in allowed)) { print "FAIL: " key " never ran and is not in the allowlist"; bad = 1 }
    if (d[2] != 0 && (key in allowed)) { print "FAIL: " key " runs now: remove it from the allowlist"; bad = 1 }
    lines++; if (d[2] == 0) missed++
  }
  END {
    for (k in allowed) if (!(k in seen)) { print "FAIL: allowlist entry " k " is not a line of any kernel"; bad = 1 }
    printf "gate: %d GLSL lines, %d not run (all in the allowlist: %s)\n", lines, missed, bad ? "no" : "yes"
    exit bad
  }' "$info"
