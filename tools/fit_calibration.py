#!/usr/bin/env python3
"""fit_calibration.py — refit train()'s calibration constants on the validation cases that are not
held out, and print the fit and the errors (fit set and held-out set separately, and per family).

usage: tools/fit_calibration.py build/mls [--rounds N] [--loso] [--only NAME,NAME] [--start NAME=V,...]
                                           [--families dense,blackwell,moe,tpu]

The constants (stdlib/hardware.mls and stdlib/accelerators.mls matmul_efficiency fits, train.mls
gemm_half_width, elementwise_traffic, attention_kernel_share, moe.mls expert_gemm_half_rows) are
varied with `--set`; the objective is the sum of squared log errors log(predicted / measured) over
the training cases with held_out = false. Held-out cases are never read by the objective. The result
is copied into the stdlib by hand (the values are rounded there) and recorded in docs/validation.md.

The constants are fit family by family (docs/validation.md): the dense GPU constants (a100,
h100_bf16, h100_fp8, gemm_half_width, elementwise_traffic, attention_kernel_share) on the dense fit
cases, then blackwell_* on the Blackwell dense cases, tpu_bf16 on the TPU cases and
expert_gemm_half_rows on the MoE cases, each with the constants fit before it held fixed:
`--only NAMES --families FAMILY --start ...`.

--loso: leave one source out. For each source (the case id's prefix: megatron21, korthikanti22,
mtnlg22, llama3, nemo2412, nemo2407, torchtitan, mbridge2511, mbridge2602, maxtext_v5e, maxtext_v5p)
refit on every case (fit and held out) of the other sources and predict all of that source's cases;
report the median |error| of each family (dense GPU, MoE, TPU, Blackwell FP8/FP4) over those
predictions.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

SCENARIO = """sweep v over c in validation_cases {
  where c.family == "training"
  show id = c.id, held_out = c.held_out, measured = c.measured, predicted = c.predicted, fits = c.fits
}
"""

# name -> (list of --set targets, start, lower, upper)
PARAMS = {
    "a100": (["A100.matmul_efficiency.fp16", "A100.matmul_efficiency.bf16"], 0.73, 0.3, 0.95),
    "h100_bf16": (["H100.matmul_efficiency.bf16", "H100.matmul_efficiency.fp16"], 0.58, 0.3, 0.95),
    "h100_fp8": (["H100.matmul_efficiency.fp8"], 0.49, 0.2, 0.95),
    "blackwell_bf16": (["blackwell_fit.bf16", "blackwell_fit.fp16"], 0.59, 0.2, 0.95),
    "blackwell_fp8": (["blackwell_fit.fp8"], 0.48, 0.2, 0.95),
    "tpu_bf16": (["tpu_fit.bf16", "tpu_fit.fp16"], 0.92, 0.3, 1.0),
    "gemm_half_width": (["gemm_half_width"], 175, 0, 2000),
    "elementwise_traffic": (["elementwise_traffic"], 7.7, 0, 20),
    "attention_kernel_share": (["attention_kernel_share"], 0.77, 0.2, 1.5),
    "expert_gemm_half_rows": (["expert_gemm_half_rows"], 770, 0, 20000),
    "moe_host_time": (["moe_host_time"], 0.0064, 0, 0.02),
}


def source(case_id):
    if case_id.startswith("maxtext_"):
        return "_".join(case_id.split("_")[:2])
    return case_id.split("_")[0]


def family(case_id):
    if case_id.startswith("maxtext_"):
        return "tpu"
    if any(k in case_id for k in ("dsv3", "qwen3", "gpt_oss")):
        return "moe"
    if case_id.startswith("mbridge") and ("_b200_" in case_id or "_gb200_" in case_id):
        return "blackwell"
    return "dense"


def run(mls, scen, values):
    args = [mls, "run", scen, "--format", "json"]
    for name, v in values.items():
        for target in PARAMS[name][0]:
            args += ["--set", ("%s=%r s" if name == "moe_host_time" else "%s=%r") % (target, round(v, 6))]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    rows = json.loads(out.stdout)["tables"][0]["rows"]
    return [dict(id=r[0], held_out=r[1], measured=r[2], predicted=r[3], fits=r[4]) for r in rows]


FAMILIES = None  # --families: the families whose fit cases the objective reads (default: all)


def loss(rows, exclude=None):
    # the fit: the cases not held out; leave-one-source-out: every case of the other sources
    return sum(math.log(r["predicted"] / r["measured"]) ** 2 for r in rows
               if (not r["held_out"] if exclude is None else source(r["id"]) != exclude)
               and (FAMILIES is None or family(r["id"]) in FAMILIES))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return (xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2) if n else float("nan")


def fit(mls, scen, names, start, rounds, exclude=None):
    values = dict(start)
    best = loss(run(mls, scen, values), exclude)
    step = {k: (PARAMS[k][3] - PARAMS[k][2]) / 8 for k in names}
    for _ in range(rounds):  # coordinate descent with shrinking steps
        for k in names:
            for sign in (1, -1):
                while True:
                    trial = dict(values)
                    trial[k] = min(max(values[k] + sign * step[k], PARAMS[k][2]), PARAMS[k][3])
                    if trial[k] == values[k]:
                        break
                    l = loss(run(mls, scen, trial), exclude)
                    if l < best:
                        best, values = l, trial
                    else:
                        break
        step = {k: s / 2 for k, s in step.items()}
    return values, best


def report(rows):
    for held in (False, True):
        errs = [abs(r["predicted"] / r["measured"] - 1) for r in rows if r["held_out"] == held]
        if errs:
            print("%s: %d cases, median |error| %.1f %%, max %.1f %%" % ("held out" if held else "fit set", len(errs), 100 * median(errs), 100 * max(errs)))
    for fam in ("dense", "blackwell", "moe", "tpu"):
        for held in (False, True):
            errs = [abs(r["predicted"] / r["measured"] - 1) for r in rows if family(r["id"]) == fam and r["held_out"] == held]
            if errs:
                print("  %-9s %-8s %2d cases, median |error| %5.1f %%, max %5.1f %%" % (fam, "held out" if held else "fit", len(errs), 100 * median(errs), 100 * max(errs)))
    for r in rows:
        print("  %-40s %s %-9s %+7.1f %%%s" % (r["id"], "H" if r["held_out"] else " ", family(r["id"]), 100 * (r["predicted"] / r["measured"] - 1), "" if r["fits"] else "  (does not fit)"))


def main():
    global FAMILIES
    mls = sys.argv[1]
    if "--families" in sys.argv:
        FAMILIES = sys.argv[sys.argv.index("--families") + 1].split(",")
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 6
    names = sys.argv[sys.argv.index("--only") + 1].split(",") if "--only" in sys.argv else list(PARAMS)
    start = {k: v[1] for k, v in PARAMS.items()}
    if "--start" in sys.argv:
        for kv in sys.argv[sys.argv.index("--start") + 1].split(","):
            k, v = kv.split("=")
            start[k] = float(v)
    with tempfile.TemporaryDirectory() as d:
        scen = os.path.join(d, "fit.mls")
        with open(scen, "w") as f:
            f.write(SCENARIO)
        values, best = fit(mls, scen, names, start, rounds)
        print("fit:", json.dumps({k: round(v, 4) for k, v in values.items()}), "loss %.4f" % best)
        rows = run(mls, scen, values)
        report(rows)
        if "--loso" in sys.argv:
            sources = sorted({source(r["id"]) for r in rows if FAMILIES is None or family(r["id"]) in FAMILIES})
            loso = {}
            for src in sources:
                v, _ = fit(mls, scen, names, values, max(2, rounds // 2), exclude=src)
                for r in run(mls, scen, v):
                    if source(r["id"]) == src:
                        loso[r["id"]] = r
                print("  left out %-12s: %s" % (src, json.dumps({k: round(x, 4) for k, x in v.items()})))
            print("leave-one-source-out:")
            for fam in ("dense", "blackwell", "moe", "tpu"):
                if FAMILIES is not None and fam not in FAMILIES:
                    continue
                errs = [abs(r["predicted"] / r["measured"] - 1) for r in loso.values() if family(r["id"]) == fam]
                if errs:
                    print("  %-9s %2d cases, median |error| %5.1f %%, max %5.1f %%" % (fam, len(errs), 100 * median(errs), 100 * max(errs)))
            for r in loso.values():
                if FAMILIES is not None and family(r["id"]) not in FAMILIES:
                    continue
                print("  %-40s %-9s %+7.1f %%" % (r["id"], family(r["id"]), 100 * (r["predicted"] / r["measured"] - 1)))


if __name__ == "__main__":
    main()
