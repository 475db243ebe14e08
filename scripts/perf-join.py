#!/usr/bin/env python3
"""perf-join.py: joins `q4cts perf --json` with `bench-torch.py --json` into one
Markdown table: per case our time, PyTorch's, the ratio ours / PyTorch's, and our
percent of the device ceiling that binds the case.
Usage: perf-join.py Q4CTS_PERF.json TORCH.json"""
import json
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    ours = json.load(open(sys.argv[1]))["q4cts_perf"]
    torch = {r["name"]: r for r in json.load(open(sys.argv[2]))["torch_perf"]["results"]}
    c = ours["ceilings"]
    props = ours.get("properties", ours)   # format 1 keeps device and driver there
    print(f"Device: {props['device']}, driver {props['driver']}; measured ceilings: copy "
          f"{c['copy_gbs']:.0f} GB/s, fp32 FMA {c['fma_tflops']:.1f} TFLOP/s, one dispatch "
          f"{c.get('dispatch_us', float('nan')):.1f} us\n")
    print("| case | q4cts ms | PyTorch ms | q4cts / PyTorch | GB/s | TFLOP/s | % of ceiling (bound by) |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for r in ours["results"]:
        t = torch.get(r["name"], {})
        if "error" in r:
            print(f"| {r['name']} | error: {r['error']} | | | | | |")
            continue
        tm = t.get("median_ms")
        ratio = f"{r['median_ms'] / tm:.2f}" if tm else "n/a"
        tms = f"{tm:.4f}" if tm else t.get("error", "n/a")
        print(f"| {r['name']} | {r['median_ms']:.4f} | {tms} | {ratio} | {r['gbs']:.0f} | "
              f"{r['tflops']:.2f} | {r['pct_of_ceiling']:.1f} ({r['bound_by']}) |")


if __name__ == "__main__":
    main()
