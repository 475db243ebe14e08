# report_fixture.sh: writes small `q4cts run --json` reports by hand, so that the
# commands that read reports (compare, merge) are tested without a device (sourced).
#   report FILE [--planned N] [--incomplete] [--prop KEY=VALUE]... -- CASE... 
# CASE is NAME:VERDICT[:MARGIN[:STAT]] (margins default to null).
# A --prop of device or seed replaces the default's value (each key once: a report is
# strict JSON, which has no key twice).
report() {
  local file=$1 planned=null complete=true props='' k
  local -A prop=([device]=fixture [seed]=0)
  local -a order=(device seed)
  shift
  while [ "$1" != -- ]; do
    case $1 in
      --planned) planned=$2; shift 2 ;;
      --incomplete) complete=false; shift ;;
      --prop)
        k=${2%%=*}
        [ -n "${prop[$k]+set}" ] || order+=("$k")
        prop[$k]=${2#*=}
        shift 2 ;;
    esac
  done
  shift
  for k in "${order[@]}"; do
    props="$props${props:+, }\"$k\": \"${prop[$k]}\""
  done
  local sep='' body='' name verdict margin stat op family ok
  for c in "$@"; do
    IFS=: read -r name verdict margin stat <<<"$c"
    op=$(cut -d. -f2 <<<"$name"); family=$(cut -d. -f3 <<<"$name")
    ok=false; case $verdict in Pass|NotSupported|QualityWarning|Flake) ok=true ;; esac
    body="$body$sep
    {\"name\": \"$name\", \"op\": \"$op\", \"family\": \"$family\", \"verdict\": \"$verdict\", \"ok\": $ok, \"seconds\": 0.5, \"gpu_ms\": 1.25, \"truth_ms\": null, \"worst_err\": 0.001, \"worst_margin\": ${margin:-null}, \"stat_margin\": ${stat:-null}, \"got\": 1, \"expected\": 1.001, \"bound\": 0.1, \"output\": \"y\", \"index\": 3, \"where\": \"m=0, n=3\", \"elements\": 64, \"message\": \"\", \"repro\": \"q4cts run --filter $name --seed 0\"}"
    sep=,
  done
  cat >"$file" <<JSON
{"q4cts": {
  "version": "0.1.0",
  "format": 1,
  "strict": false,
  "started": "2026-01-01T00:00:00",
  "planned": $planned, "complete": $complete, "stopped": null,
  "properties": {$props},
  "results": [$body
  ],
  "summary": {"total": $#}
}}
JSON
}
