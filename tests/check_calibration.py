#!/usr/bin/env python3
"""check_calibration.py — the calibration is what its fit says (issue #33, items 2 and 3):

1. The committed constants are the fits' optimum: `mls validate --fit` iterates the least-squares fit
   of each family's calibration (training_calibration, and serving_calibration of the serving
   throughput family) from the committed values; every fitted constant's optimum is within
   TOLERANCE of its committed value (the constants are committed to three significant digits), and
   each family that should have a fit has one.
2. Every accelerator of the catalogue is calibrated from its own measurements or says it borrows:
   each nonzero matmul efficiency is either a constant of the training fit informed by at least one
   fit case, or a constant of another family's fit informed by at least one fit case (the serving
   fit's fp4_gemm_efficiency on B200), or carries an `approx` assumption naming it (borrowed(),
   accelerators.mls).

usage: check_calibration.py MLS
"""
import json
import os
import subprocess
import sys
import tempfile

TOLERANCE = 0.01
# The families whose constants are fitted (stdlib/validation.mls, validation_families).
FITTED = ("training", "serving throughput")


def main():
    mls = sys.argv[1]
    errors = []
    p = subprocess.run([mls, "validate", "--fit", "--format", "json"], capture_output=True, text=True, timeout=1200)
    doc = json.loads(p.stdout)
    fit = [k for k in doc["fit"] if k["family"] in FITTED]
    for family in FITTED:
        if not any(k["family"] == family for k in fit):
            errors.append("the %s family declares no fitted constants" % family)
    own = {}
    for k in fit:
        if k["pinned"]:
            continue
        change = k["optimum"] / k["committed"] - 1
        if abs(change) > TOLERANCE:
            errors.append("%s (%s): committed %g, the fit's optimum %g (%+.2f %%): commit the optimum (mls validate --fit)"
                          % (", ".join(k["names"]), k["family"], k["committed"], k["optimum"], 100 * change))
        if k["informed_by"] == 0:
            errors.append("%s (%s): no fit case informs it" % (", ".join(k["names"]), k["family"]))
        for n in k["names"]:
            own[n] = k["informed_by"]
    p = subprocess.run([mls, "list", "accelerators", "--format", "json"], capture_output=True, text=True, timeout=120)
    accs = [r["id"] for r in json.loads(p.stdout)["rows"]]
    scenario = "".join("show e_%s = %s.matmul_efficiency\n" % (a, a) for a in accs)
    with tempfile.NamedTemporaryFile("w", suffix=".mls", delete=False) as f:
        f.write(scenario)
    try:
        p = subprocess.run([mls, "run", f.name, "--format", "json", "--assumptions", "all"], capture_output=True,
                           text=True, timeout=300)
    finally:
        os.unlink(f.name)
    if p.returncode != 0:
        errors.append("cannot read the matmul efficiencies: " + p.stderr[:500])
        results = []
    else:
        results = json.loads(p.stdout)["results"]
    checked = 0
    for r in results:
        acc, _, precision = r["name"][2:].partition(".")
        if not isinstance(r["value"], (int, float)) or r["value"] <= 0:
            continue
        checked += 1
        name = "%s.matmul_efficiency.%s" % (acc, precision)
        borrowed = any(a["kind"] == "approx" and a["name"].startswith(acc + ".matmul_efficiency")
                       for a in r["assumptions"])
        if borrowed:
            continue
        if own.get(name, 0) > 0:
            continue
        # A constant of another family's fit informed by its cases (the serving calibration:
        # fp4_gemm_efficiency); another accelerator's efficiency is no such constant (that is borrowing).
        if any(a["kind"] in ("default", "registry") and own.get(a["name"], 0) > 0 and ".matmul_efficiency" not in a["name"]
               for a in r["assumptions"]):
            continue
        errors.append("%s = %g is neither fitted on cases of its own (training_calibration) nor borrowed()"
                      % (name, r["value"]))
    if checked < 20:
        errors.append("only %d matmul efficiencies checked" % checked)
    for e in errors:
        print(e)
    print("calibration: %d fitted constants within %.0f %% of the optimum; %d matmul efficiencies own or borrowed; "
          "%d problem(s)" % (len(fit), 100 * TOLERANCE, checked, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
