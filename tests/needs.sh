#!/usr/bin/env bash
# needs.sh PART SOURCE_DIR [ICD] -- COMMAND...: runs COMMAND (exec) when PART, an optional
# part of the set-up (scripts/setup), is installed. Where it is not, one line says what is
# missing and how to get it, and the exit status is 77 (ctest: skipped); under CI (CI set
# and not false or 0) every part is required, so the line says FAIL and the status is 1.
#   webgpu    Node.js ($Q4CTS_NODE or node), Dawn's binding (gpu/webgpu/node_modules/webgpu)
#             and Mesa 25's lavapipe (ICD, the ICD file the WebGPU tests run on)
#   report    the chart libraries `q4cts report` inlines (reports/html/node_modules)
#   chromium  those, and Chromium with chromedriver (the page drawn: tests/report/render.py)
# A test script may also source it with no COMMAND (`. needs.sh PART SOURCE_DIR [ICD]`):
# it then returns where the part is installed and exits where it is not.
q4_needs() {
  local part=$1 src=$2 icd=${3:-} missing=()
  case "$part" in
    webgpu)
      command -v "${Q4CTS_NODE:-node}" >/dev/null 2>&1 || missing+=("Node.js (${Q4CTS_NODE:-node})")
      [ -f "$src/gpu/webgpu/node_modules/webgpu/package.json" ] ||
        missing+=("Dawn's binding (gpu/webgpu/node_modules/webgpu)")
      [ -n "$icd" ] && [ -f "$icd" ] || missing+=("Mesa 25's lavapipe (${icd:-no ICD file named})")
      ;;
    report|chromium)
      local lib
      for lib in chart.js/dist/chart.umd.min.js chartjs-chart-matrix/dist/chartjs-chart-matrix.min.js; do
        [ -f "$src/reports/html/node_modules/$lib" ] ||
          { missing+=("the report's chart libraries (reports/html/node_modules)"); break; }
      done
      if [ "$part" = chromium ]; then
        command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing+=("chromium")
        command -v chromedriver >/dev/null 2>&1 || [ -x /usr/bin/chromedriver ] ||
          missing+=("chromedriver")
      fi
      part=report
      ;;
    *) echo "needs.sh: unknown part '$part'" >&2; exit 2 ;;
  esac
  [ ${#missing[@]} -eq 0 ] && return 0
  local list
  list=$(printf '%s, ' "${missing[@]}")
  case "${CI:-}" in
    ""|false|0) echo "SKIP: ${list%, } missing (get it with scripts/setup $part)"; exit 77 ;;
    *) echo "FAIL: ${list%, } missing, and CI needs every part (get it with scripts/setup $part)"; exit 1 ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  part=$1 src=$2 icd=
  shift 2
  [ "${1:-}" != -- ] && { icd=$1; shift; }
  [ "${1:-}" = -- ] || { echo "usage: needs.sh PART SOURCE_DIR [ICD] -- COMMAND..." >&2; exit 2; }
  shift
  q4_needs "$part" "$src" "$icd"
  exec "$@"
fi
q4_needs "$@"
