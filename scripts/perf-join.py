#!/usr/bin/env python3
"""perf-join.py: joins `q4cts perf --json` with `bench-torch.py --json` into one
Markdown table: per case our time, PyTorch's, the ratio ours / PyTorch's, and our
percent of the device ceiling that binds the case. Without a PyTorch file, the table
has our columns only (as for lavapipe, where there is no CUDA).
With --wgsl, the table sets our WGSL kernels (`q4cts perf --api webgpu --json`) beside
the GLSL ones of the same device: each WGSL time against GLSL's and PyTorch's, and its
share of the ceilings measured through Vulkan (the device's) and through WebGPU (what
Dawn's own copy and FMA loops reach).
Usage: perf-join.py Q4CTS_PERF.json [TORCH.json]
       perf-join.py --wgsl WGSL_PERF.json Q4CTS_PERF.json [TORCH.json]"""
import json
import sys


def num(x):
    """Three significant digits, without an exponent for the rates we print."""
    return f"{x:.0f}" if x >= 100 else f"{x:.3g}"


def share(r, ceil):
    """Percent of the binding ceiling (FMA or copy, as the case is bound) in ceil."""
    rate, top = (r["tflops"], ceil["fma_tflops"]) if r["bound_by"] == "fma" else \
                (r["gbs"], ceil["copy_gbs"])
    return f"{100 * rate / top:.1f}" if rate and top else "n/a"


def ratio(a, b):
    return f"{a / b:.2f}" if a and b else "n/a"


def wgsl_table(wgsl, ours, torch):
    cw, cv = wgsl["ceilings"], ours["ceilings"]
    print(f"Device: {ours.get('properties', ours)['device']}; ceilings through Vulkan: copy "
          f"{cv['copy_gbs']:.0f} GB/s, FMA {cv['fma_tflops']:.3g} TFLOP/s; through WebGPU "
          f"(Dawn): copy {cw['copy_gbs']:.0f} GB/s, FMA {cw['fma_tflops']:.3g} TFLOP/s\n")
    print("| case | WGSL ms | GLSL ms | PyTorch ms | WGSL / GLSL | WGSL / PyTorch "
          "| WGSL % of Vulkan ceiling | WGSL % of WebGPU ceiling (bound by) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    glsl = {r["name"]: r for r in ours["results"]}
    for r in wgsl["results"]:
        g, t = glsl.get(r["name"], {}), (torch or {}).get(r["name"], {})
        if "error" in r:
            print(f"| {r['name']} | error: {r['error']} |" + " |" * 6)
            continue
        wm, gm, tm = r["median_ms"], g.get("median_ms"), t.get("median_ms")
        print(f"| {r['name']} | {wm:.4f} | {f'{gm:.4f}' if gm else 'n/a'} | "
              f"{f'{tm:.4f}' if tm else 'n/a'} | {ratio(wm, gm)} | {ratio(wm, tm)} | "
              f"{share(r, cv)} | {share(r, cw)} ({r['bound_by']}) |")


def main():
    args = sys.argv[1:]
    wgsl = None
    if args[:1] == ["--wgsl"] and len(args) >= 2:
        wgsl = json.load(open(args[1]))["q4cts_perf"]
        args = args[2:]
    if len(args) not in (1, 2):
        sys.exit(__doc__)
    ours = json.load(open(args[0]))["q4cts_perf"]
    torch = None
    if len(args) == 2:
        torch = {r["name"]: r for r in json.load(open(args[1]))["torch_perf"]["results"]}
    if wgsl is not None:
        return wgsl_table(wgsl, ours, torch)
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
