#!/usr/bin/env python3
"""bench-torch.py: times with PyTorch (CUDA) what a user would run instead of q4cts's
kernels, on the shapes of a q4cts case list (default cases/perf.txt), and writes
JSON that scripts/perf-join.py joins with `q4cts perf --json`.

What is timed per op (CUDA events around the op only, warm-up, then the median):
  linear_q4gsw           dequantize (codes - 8) * scale, then x @ W^T (fp32, TF32 off)
  linear_q4gsw_backward  dequantize, then dout @ W
  linear_dW              dout^T @ x
  fused_ce               F.cross_entropy forward + backward (mean over rows)
  adamw_step             torch.optim.AdamW(fused=True).step() on one tensor
  q4gsw_requant          round(latent / scale), clamp, +8, pack two codes per byte
  dequantize             unpack nibbles, (code - 8) * scale
  train                  one training step of q4cts's model (docs/training.md) in eager
                         fp32: per layer dequantize and x @ W^T, F.cross_entropy forward
                         and backward through the layers (autograd: dW of each layer, d_x
                         of all but the first), the latents' gradients set from the
                         dequantized weights' (STE), torch.optim.AdamW(fused=True).step()
                         on every latent, then each layer's requant (round, clamp, pack)
Usage: bench-torch.py [--caselist FILE] [--reps N] [--json FILE]
"""
import argparse
import json
import math
import re
import statistics
import sys
import time

import torch
import torch.nn.functional as F


def parse(name):
    parts = name.split(".")
    op, params = parts[1], parts[3]
    if op == "train":   # the family names the layers: linear1, linear2, linear3
        params += "_L" + parts[2][len("linear"):]
    vals = {}
    for tok in params.split("_"):
        m = re.fullmatch(r"([a-zA-Z]+)([0-9x]+)", tok)
        key, val = m.group(1), m.group(2)
        vals[key] = math.prod(int(v) for v in val.split("x"))  # d2x3 -> 6 (leading dims)
    if "d" in vals:
        vals["m"] = vals["d"]
    return op, vals


def timed(fn, reps, warmup=3, warmup_s=0.5):
    # As `q4cts perf`: at least `warmup` runs and `warmup_s` seconds, so that the GPU is
    # back at full clocks (an idle H200 drops to 345 MHz) before anything is timed.
    t0 = time.monotonic()
    i = 0
    while i < warmup or time.monotonic() - t0 < warmup_s:
        fn()
        torch.cuda.synchronize()
        i += 1
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def dequant(codes, scales, gs):
    # codes [N, K] uint8, scales [K/gs, N]
    s = scales.t().repeat_interleave(gs, dim=1)
    return (codes.float() - 8.0) * s


def train_step(p, reps, dev, rnd, g):
    """One step of q4cts's training model (layers K -> h ... -> V, no bias, no
    nonlinearity), as eager PyTorch would run it: the weights dequantized from codes
    (unpacked, as the linears above), autograd for the gradients, STE for the latents."""
    L, M, gs = p["L"], p["m"], p["g"]
    widths = [p["k"]] + [p.get("h", 0)] * (L - 1) + [p["v"]]
    latents, scales, codes = [], [], []
    for l in range(L):
        n, k = widths[l + 1], widths[l]
        lat = torch.nn.Parameter(rnd(n, k) / math.sqrt(k))
        s = torch.full((k // gs, n), 2.0 ** -round(math.log2(7 * math.sqrt(k))), device=dev)
        latents.append(lat)
        scales.append(s)
        codes.append(requant(lat.detach(), s, gs)[0])
    x = rnd(M, widths[0])
    labels = torch.randint(0, widths[-1], (M,), device=dev, generator=g)
    opt = torch.optim.AdamW(latents, lr=p["l"] * 1e-4, betas=(0.9, 0.999), eps=1e-8,
                            weight_decay=0.01, fused=True)
    def step():
        weights = [dequant(codes[l], scales[l], gs).requires_grad_() for l in range(L)]
        act = x
        for w in weights:
            act = act @ w.t()
        F.cross_entropy(act, labels).backward()
        for lat, w in zip(latents, weights):
            lat.grad = w.grad
        opt.step()
        for l in range(L):
            codes[l] = requant(latents[l].detach(), scales[l], gs)[0]
    return timed(step, reps)


def requant(latent, scales, gs):
    """Codes (unpacked, for the next dequantize) and the packed bytes, as requant writes."""
    s = scales.t().repeat_interleave(gs, dim=1)
    c = (torch.round(latent / s).clamp(-8, 7) + 8).to(torch.uint8)
    return c, c[:, 0::2] | (c[:, 1::2] << 4)


def bench(op, p, reps, dev):
    g = torch.Generator(device=dev).manual_seed(0)
    rnd = lambda *shape: torch.rand(*shape, device=dev, generator=g) * 2 - 1
    if op in ("linear_q4gsw", "linear_q4gsw_backward", "dequantize", "q4gsw_requant"):
        n, k, gs = p["n"], p["k"], p["g"]
        codes = torch.randint(0, 16, (n, k), device=dev, dtype=torch.uint8, generator=g)
        scales = rnd(k // gs, n) * 0.01 + 0.02
    if op == "linear_q4gsw":
        x = rnd(p["m"], k)
        return timed(lambda: x @ dequant(codes, scales, gs).t(), reps)
    if op == "linear_q4gsw_backward":
        dout = rnd(p["m"], n)
        return timed(lambda: dout @ dequant(codes, scales, gs), reps)
    if op == "dequantize":
        flat = (codes[:, 0::2] | (codes[:, 1::2] << 4)).contiguous()
        def run():
            c = torch.stack((flat & 0xF, flat >> 4), dim=2).reshape(n, k)
            return dequant(c, scales, gs)
        return timed(run, reps)
    if op == "q4gsw_requant":
        latent = rnd(n, k) * 0.1
        return timed(lambda: requant(latent, scales, gs), reps)
    if op == "linear_dW":
        dout, x = rnd(p["m"], p["n"]), rnd(p["m"], p["k"])
        return timed(lambda: dout.t() @ x, reps)
    if op == "fused_ce":
        logits = (rnd(p["r"], p["v"]) * 10).requires_grad_()
        labels = torch.randint(0, p["v"], (p["r"],), device=dev, generator=g)
        def run():
            logits.grad = None
            F.cross_entropy(logits, labels).backward()
        return timed(run, reps)
    if op == "train":
        return train_step(p, reps, dev, rnd, g)
    if op == "adamw_step":
        param = torch.nn.Parameter(rnd(p["n"]))
        param.grad = rnd(p["n"]) * 0.1
        opt = torch.optim.AdamW([param], lr=1e-3, weight_decay=0.01 if p["w"] else 0.0,
                                fused=True)
        return timed(opt.step, reps)
    raise ValueError(f"no PyTorch equivalent for op {op}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--caselist", default="cases/perf.txt")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        sys.exit("bench-torch.py: PyTorch sees no CUDA device")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    names = [l.split("#")[0].strip() for l in open(args.caselist)]
    results = []
    for name in filter(None, names):
        op, p = parse(name)
        try:
            ms = bench(op, p, args.reps, "cuda")
            results.append({"name": name, "op": op, "median_ms": ms})
            print(f"{name:60s} {ms:10.4f} ms", flush=True)
        except (RuntimeError, ValueError) as e:  # e.g. out of memory: report, go on
            results.append({"name": name, "op": op, "error": str(e)})
            print(f"{name:60s} error: {e}", flush=True)
        torch.cuda.empty_cache()
    out = {"torch_perf": {"torch": torch.__version__, "device": torch.cuda.get_device_name(),
                          "results": results}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
