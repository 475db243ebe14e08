#!/usr/bin/env bash
# run_fuzz.sh EXE SEED_CORPUS WORK_DIR [DICT]: fuzzes one libFuzzer target for
# $Q4CTS_FUZZ_SECONDS seconds (default 5) from the in-tree seed corpus. New inputs go
# to WORK_DIR/corpus (the tree is never written); a finding is saved under
# WORK_DIR/artifacts/ and ends the run with a non-zero status.
set -euo pipefail
exe=$1 seeds=$2 work=$3 dict=${4:-}
secs=${Q4CTS_FUZZ_SECONDS:-5}
mkdir -p "$work/corpus" "$work/artifacts"
args=(-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
      -artifact_prefix="$work/artifacts/")
[ -n "$dict" ] && args+=(-dict="$dict")
echo "fuzzing $(basename "$exe") for ${secs}s; artifacts in $work/artifacts"
exec "$exe" "${args[@]}" "$work/corpus" "$seeds"
