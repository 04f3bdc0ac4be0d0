#!/usr/bin/env python3
"""check_uncertainty.py — `mls run --uncertainty N --seed S` is reproducible byte for byte:
the same bytes twice and with --threads 1 and 2 (text and JSON); another seed gives other bytes
(so the check can fail); and without --uncertainty the scenario prints its default numbers.

usage: check_uncertainty.py MLS SCENARIO.mls
"""
import os
import subprocess
import sys


def run(mls, path, *extra):
    argv = [mls, "run", os.path.basename(path)] + list(extra)
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    p = subprocess.run(argv, cwd=os.path.dirname(os.path.abspath(path)), capture_output=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    mls, path = os.path.abspath(sys.argv[1]), sys.argv[2]
    bad = []
    for fmt in ("text", "json"):
        first = run(mls, path, "--uncertainty", "500", "--seed", "11", "--format", fmt, "--threads", "2")
        if first[0] != 0:
            bad.append("%s: exit %d: %s" % (fmt, first[0], first[2].decode(errors="replace")))
            continue
        for label, extra in (("second run", ["--threads", "2"]), ("--threads 1", ["--threads", "1"])):
            again = run(mls, path, "--uncertainty", "500", "--seed", "11", "--format", fmt, *extra)
            if again != first:
                bad.append("%s: %s differs from the first run" % (fmt, label))
        other = run(mls, path, "--uncertainty", "500", "--seed", "12", "--format", fmt)
        if other[1] == first[1]:
            bad.append("%s: seed 12 printed the same bytes as seed 11" % fmt)
        if b"P10" not in first[1] and b"p10" not in first[1]:
            bad.append("%s: no percentiles in the output" % fmt)
    nominal = run(mls, path)
    if b"P10" in nominal[1] or nominal[0] != 0:
        bad.append("without --uncertainty: exit %d or percentiles printed" % nominal[0])
    for b in bad:
        print("check_uncertainty: " + b)
    print("check_uncertainty: %d problems" % len(bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
