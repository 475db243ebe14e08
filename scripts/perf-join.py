#!/usr/bin/env python3
"""perf-join.py: joins `q4cts perf --json` with `bench-torch.py --json` into one
Markdown table: per case our time, PyTorch's, the ratio ours / PyTorch's, and our
percent of the device ceiling that binds the case. Without a PyTorch file, the table
has our columns only (as for lavapipe, where there is no CUDA).
Usage: perf-join.py Q4CTS_PERF.json [TORCH.json]"""
import json
import sys


def num(x):
    """Three significant digits, without an exponent for the rates we print."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    ours = json.load(open(sys.argv[1]))["q4cts_perf"]
    torch = None
    if len(sys.argv) == 3:
        torch = {r["name"]: r for r in json.load(open(sys.argv[2]))["torch_perf"]["results"]}
    c = ours["ceilings"]
    props = ours.get("properties", ours)   # format 1 keeps device and driver there
    print(f"Device: {props['device']}, driver {props['driver']}; measured ceilings: copy "
          f"{c['copy_gbs']:.0f} GB/s, fp32 FMA {c['fma_tflops']:.3g} TFLOP/s, one dispatch "
          f"{c.get('dispatch_us', float('nan')):.1f} us\n")
    head = ["case", "q4cts ms"] + (["PyTorch ms", "q4cts / PyTorch"] if torch is not None else [])
    head += ["GB/s", "TFLOP/s", "% of ceiling (bound by)"]
    print("| " + " | ".join(head) + " |")
    print("|---|" + "---:|" * (len(head) - 2) + "---|")
    for r in ours["results"]:
        if "error" in r:
            print(f"| {r['name']} | error: {r['error']} |" + " |" * (len(head) - 2))
            continue
        cells = [r["name"], f"{r['median_ms']:.4f}"]
        if torch is not None:
            t = torch.get(r["name"], {})
            tm = t.get("median_ms")
            cells += [f"{tm:.4f}" if tm else t.get("error", "n/a"),
                      f"{r['median_ms'] / tm:.2f}" if tm else "n/a"]
        cells += [num(r["gbs"]), num(r["tflops"]),
                  f"{r['pct_of_ceiling']:.1f} ({r['bound_by']})"]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
