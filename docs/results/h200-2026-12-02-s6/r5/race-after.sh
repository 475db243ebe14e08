q=build/harness/q4cts
$q run --race-check --filter 'q4cts.linear_q4gsw.tile_aligned.*' --mma-min-m 1 2>&1 | tail -4
