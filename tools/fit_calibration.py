#!/usr/bin/env python3
"""fit_calibration.py — refit train()'s calibration constants on the validation cases that are not
held out, and print the fit and the errors (fit set and held-out set separately).

usage: tools/fit_calibration.py build/mls [--rounds N]

The constants (stdlib/hardware.mls matmul_efficiency, stdlib/train.mls gemm_half_width,
elementwise_traffic, attention_kernel_share) are varied with `--set`; the objective is the sum of
squared log errors log(predicted / measured) over the training cases with held_out = false. Held-out
cases are never read by the objective. The result is copied into the stdlib by hand (the values are
rounded there) and recorded in docs/validation.md.
"""
import json
import math
import os
import subprocess
import sys
import tempfile

SCENARIO = """sweep v over c in validation_cases {
  where c.family == "training"
  show id = c.id, held_out = c.held_out, measured = c.measured, predicted = c.predicted
}
"""

# name -> (list of --set targets, start, lower, upper)
PARAMS = {
    "a100": (["A100.matmul_efficiency.fp16", "A100.matmul_efficiency.bf16"], 0.70, 0.3, 0.95),
    "h100_bf16": (["H100.matmul_efficiency.bf16", "H100.matmul_efficiency.fp16"], 0.60, 0.3, 0.95),
    "h100_fp8": (["H100.matmul_efficiency.fp8"], 0.45, 0.2, 0.95),
    "gemm_half_width": (["gemm_half_width"], 160, 0, 2000),
    "elementwise_traffic": (["elementwise_traffic"], 3, 0, 20),
    "attention_kernel_share": (["attention_kernel_share"], 1, 0.2, 1.5),
}


def run(mls, scen, values):
    args = [mls, "run", scen, "--format", "json"]
    for name, v in values.items():
        for target in PARAMS[name][0]:
            args += ["--set", "%s=%r" % (target, round(v, 6))]
    out = subprocess.run(args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stderr)
    rows = json.loads(out.stdout)["tables"][0]["rows"]
    return [dict(id=r[0], held_out=r[1], measured=r[2], predicted=r[3]) for r in rows]


def loss(rows):
    return sum(math.log(r["predicted"] / r["measured"]) ** 2 for r in rows if not r["held_out"])


def report(rows):
    for held in (False, True):
        errs = sorted(abs(r["predicted"] / r["measured"] - 1) for r in rows if r["held_out"] == held)
        if errs:
            med = errs[len(errs) // 2] if len(errs) % 2 else (errs[len(errs) // 2 - 1] + errs[len(errs) // 2]) / 2
            print("%s: %d cases, median |error| %.1f %%, max %.1f %%" % ("held out" if held else "fit set", len(errs), 100 * med, 100 * errs[-1]))
    for r in rows:
        print("  %-30s %s %+6.1f %%" % (r["id"], "H" if r["held_out"] else " ", 100 * (r["predicted"] / r["measured"] - 1)))


def main():
    mls = sys.argv[1]
    rounds = int(sys.argv[sys.argv.index("--rounds") + 1]) if "--rounds" in sys.argv else 6
    with tempfile.TemporaryDirectory() as d:
        scen = os.path.join(d, "fit.mls")
        with open(scen, "w") as f:
            f.write(SCENARIO)
        values = {k: v[1] for k, v in PARAMS.items()}
        best = loss(run(mls, scen, values))
        step = {k: (v[3] - v[2]) / 8 for k, v in PARAMS.items()}
        for _ in range(rounds):  # coordinate descent with shrinking steps
            for k in PARAMS:
                for sign in (1, -1):
                    while True:
                        trial = dict(values)
                        trial[k] = min(max(values[k] + sign * step[k], PARAMS[k][2]), PARAMS[k][3])
                        if trial[k] == values[k]:
                            break
                        l = loss(run(mls, scen, trial))
                        if l < best:
                            best, values = l, trial
                        else:
                            break
            step = {k: s / 2 for k, s in step.items()}
        print("fit:", json.dumps({k: round(v, 4) for k, v in values.items()}), "loss %.4f" % best)
        report(run(mls, scen, values))


if __name__ == "__main__":
    main()
