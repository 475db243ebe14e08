#!/usr/bin/env python3
# sweep_small_device.py: runs a sweep of small_device cases, every op at 1..8
# workgroups a dimension (and the L4 limits at 3 and 6), over shapes whose grids span
# one group, a fold over y, a fold over z and more than any fold holds, through every
# launcher path (gemv, tiled, split-K, dense; each op's kernels); then says how the
# verdicts fell and fails (exit 1) on any InternalError or Fail. A legal case ends in
# Pass, NotSupported (a grid no fold fits, naming maxComputeWorkGroupCount) or
# ResourceError (a tensor over the lowered binding limit). About 30 s on lavapipe.
#   python3 tests/limits/sweep_small_device.py build/harness/q4cts [--list]
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter

L4 = "_binding8192_shared16384_invocations128"


def names():
    out = []

    def add(prefix, shape, g, extra=""):
        out.append(f"q4cts.{prefix}.small_device.{shape}_groups{g}{extra}")

    for g in range(1, 9):
        for m in (1, 4, 8, 9, 65, 257, 2050):
            for n, k, gs in ((16, 64, 32), (44, 96, 32), (192, 64, 32), (128, 1040, 16)):
                add("linear_q4gsw", f"m{m}_n{n}_k{k}_g{gs}", g)
                if g % 2 == 0:
                    add("linear_q4gsw", f"m{m}_n{n}_k{k}_g{gs}_b1", g)
                if g % 3 == 0:
                    add("linear_q4gsw", f"m{m}_n{n}_k{k}_g{gs}", g, L4)
            for n, k, gs in ((16, 64, 32), (44, 96, 32), (64, 192, 32), (1036, 64, 32)):
                add("linear_q4gsw_backward", f"m{m}_n{n}_k{k}_g{gs}", g)
                if g % 3 == 0:
                    add("linear_q4gsw_backward", f"m{m}_n{n}_k{k}_g{gs}", g, L4)
        for m in (1, 16, 130, 2050):
            for n, k in ((16, 64), (44, 96), (192, 192)):
                add("linear_dW", f"m{m}_n{n}_k{k}", g)
                if g % 3 == 0:
                    add("linear_dW", f"m{m}_n{n}_k{k}", g, L4)
        for n, k, gs in ((4, 4, 4), (64, 512, 32), (44, 96, 32), (256, 256, 64), (12, 36, 12),
                         (64, 100, 20)):
            for op in ("dequantize", "q4gsw_requant"):
                add(op, f"n{n}_k{k}_g{gs}", g)
                if g % 3 == 0:
                    add(op, f"n{n}_k{k}_g{gs}", g, L4)
        for r in (1, 7, 65, 300, 1000, 65539):
            for v in (8, 1001, 5000):
                if r * v <= 2_000_000:
                    add("fused_ce", f"r{r}_v{v}_p37", g)
                    if g % 3 == 0:
                        add("fused_ce", f"r{r}_v{v}_p37", g, L4)
        for n in (4, 1000, 5003, 70000):
            add("adamw_step", f"n{n}_t10_w1", g)
            if g % 3 == 0:
                add("adamw_step", f"n{n}_t10_w1", g, L4)
    return out


def main():
    if len(sys.argv) < 2:
        sys.exit("usage: sweep_small_device.py Q4CTS [--list]")
    cases = names()
    if "--list" in sys.argv[2:]:
        print("\n".join(cases))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        lst, rep = os.path.join(tmp, "cases.txt"), os.path.join(tmp, "run.json")
        with open(lst, "w") as f:
            f.write("\n".join(cases) + "\n")
        subprocess.run([sys.argv[1], "run", "--caselist", lst, "--json", rep],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(rep) as f:
            results = json.load(f)["q4cts"]["results"]
    verdicts = Counter(r["verdict"] for r in results)
    print(f"{len(results)} of {len(cases)} cases: " +
          ", ".join(f"{n} {v}" for v, n in sorted(verdicts.items())))
    bad = [r for r in results if r["verdict"] in ("InternalError", "Fail", "Crash", "Timeout")]
    for r in bad:
        print(f"{r['verdict']:14s} {r['name']}\n    {r['message']}")
    return 1 if bad or len(results) != len(cases) else 0


if __name__ == "__main__":
    sys.exit(main())
