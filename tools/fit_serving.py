#!/usr/bin/env python3
"""fit_serving.py — refit the serving calibration constants that are fitted (not sourced) on the
serving validation cases that are not held out, and print the fit and the errors of the fit set and
of the held-out set.

usage: tools/fit_serving.py build/mls

Each constant is fitted on the fit-set cases it acts on (stdlib/validation_serving.mls says which):
  fp4_gemm_efficiency  the fit set's FP4 rows (Blackwell NVFP4 GEMMs)
  moe_layer_overhead   the fit set's MoE rows on Hopper (FP8 experts)
  fp4_expert_gemm_share  the fit set's FP4 MoE row (NVFP4 expert GEMMs on Blackwell), after the two above
by a golden-section search of the sum of squared log errors log(predicted / measured) over those
cases, with `--set`. Held-out cases are never read by the objective. The result is copied into
stdlib/replica.mls by hand (rounded) and recorded in docs/validation.md.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

SCENARIO = """sweep v over c in serving_validation_cases {
  show id = c.id, held_out = c.held_out, measured = c.measured, predicted = c.predicted
}
"""

# name -> (--set target, unit suffix, lower, upper, the fit-set cases it is fitted on: id prefixes)
PARAMS = {
    "fp4_gemm_efficiency": ("fp4_gemm_efficiency", "", 0.15, 0.8, ["trtllm_b200_70b_fp4_"]),
    "moe_layer_overhead": ("moe_layer_overhead", " ms", 0.0, 2.0, ["trtllm_dep_h100_qwen3", "trtllm_dep_h200_qwen3"]),
    "fp4_expert_gemm_share": ("fp4_expert_gemm_share", "", 0.05, 1.0, ["trtllm_b200_qwen3_30b_fp4_"]),
}


def run(mls, scen, values):
    args = [mls, "run", scen, "--format", "json"]
    for name, v in values.items():
        target, unit = PARAMS[name][0], PARAMS[name][1]
        args += ["--set", "%s=%r%s" % (target, round(v, 6), unit)]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    rows = json.loads(out.stdout)["tables"][0]["rows"]
    return [dict(id=r[0], held_out=r[1], measured=r[2], predicted=r[3]) for r in rows]


def loss(rows, prefixes):
    sel = [r for r in rows if not r["held_out"] and any(r["id"].startswith(p) for p in prefixes)]
    if not sel:
        sys.exit("no fit-set case starts with %s" % prefixes)
    return sum(math.log(r["predicted"] / r["measured"]) ** 2 for r in sel)


def golden(f, lo, hi, tol):
    g = (math.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    while b - a > tol:
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    return (a + b) / 2


def report(rows):
    for held in (False, True):
        errs = sorted(abs(r["predicted"] / r["measured"] - 1) for r in rows if r["held_out"] == held)
        if errs:
            n = len(errs)
            med = errs[n // 2] if n % 2 else (errs[n // 2 - 1] + errs[n // 2]) / 2
            print("%s: %d cases, median |error| %.1f %%, max %.1f %%" % ("held out" if held else "fit set", n, 100 * med, 100 * errs[-1]))
    for r in rows:
        print("  %-42s %s %+7.1f %%" % (r["id"], "H" if r["held_out"] else " ", 100 * (r["predicted"] / r["measured"] - 1)))


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    mls = sys.argv[1]
    with tempfile.TemporaryDirectory() as d:
        scen = os.path.join(d, "fit.mls")
        with open(scen, "w") as f:
            f.write(SCENARIO)
        values = {}
        for name, (_, _, lo, hi, prefixes) in PARAMS.items():
            tol = (hi - lo) / 400
            values[name] = golden(lambda v: loss(run(mls, scen, {**values, name: v}), prefixes), lo, hi, tol)
            print("%s = %.4g%s" % (name, values[name], PARAMS[name][1]))
        report(run(mls, scen, values))


if __name__ == "__main__":
    main()
