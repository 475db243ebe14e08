#!/usr/bin/env bash
# sanitizer_reports.sh DIR: print the name of each file in DIR (a sanitizer's log_path
# folder) that is a report, one per line: a file with at least one line that
# benign-diagnostics.txt does not list as harmless. An empty file is no report.
set -uo pipefail
dir=$1
patterns=$(dirname "$0")/benign-diagnostics.txt
benign=$(mktemp) && trap 'rm -f "$benign"' EXIT
grep -v -e '^#' -e '^$' "$patterns" >"$benign"
for f in "$dir"/*; do
  [ -f "$f" ] || continue
  # grep -v -E -f: the lines that match no benign pattern; any such line makes a report.
  if grep -q -v -E -f "$benign" "$f"; then basename "$f"; fi
done
