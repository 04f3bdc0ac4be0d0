#!/usr/bin/env python3
"""fit_calibration.py — the calibration fits now live in mls (`mls validate --fit`, runtime/
validation_fit.cpp: Gauss-Newton on the log errors of a family's cases not held out, sensitivities
by moving each constant 10 %, bounds and the uninformed rule of stdlib/validation.mls's
training_calibration and serving_calibration; docs/validation.md, "Method and calibration"). This
wrapper runs it and prints each constant's family, committed value and optimum, to copy into the
stdlib (hardware.mls, accelerators.mls, train.mls, moe.mls, replica.mls) when a case is added; the
ctest validate/calibration fails until the committed values are within 1 % of the optimum.

usage: tools/fit_calibration.py build/mls [--preset NAME] [--use NAME=CHOICE]...
"""
import json
import subprocess
import sys


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    p = subprocess.run([sys.argv[1], "validate", "--fit", "--format", "json", *sys.argv[2:]], capture_output=True,
                       text=True)
    if not p.stdout:
        sys.exit(p.stderr)
    doc = json.loads(p.stdout)
    for k in doc["fit"]:
        names = "%s: %s" % (k["family"], ", ".join(k["names"]))
        if k["pinned"]:
            print("%-60s %10.4g  (set: not fitted)" % (names, k["committed"]))
            continue
        print("%-60s %10.4g -> %10.4g  (%+.2f %%, %d fit cases inform it)" % (
            names, k["committed"], k["optimum"], 100 * (k["optimum"] / k["committed"] - 1), k["informed_by"]))
    seen = set()
    for k in doc["fit"]:
        if k["family"] in seen:
            continue
        seen.add(k["family"])
        print("%s: sum of squared log errors %.6f committed, %.6f at the optimum (%d iterations)" % (
            k["family"], k["loss_committed"], k["loss_optimum"], k["iterations"]))


if __name__ == "__main__":
    main()
