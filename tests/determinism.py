#!/usr/bin/env python3
"""determinism.py — every scenario (and every other checked-in .mls that runs) prints the same
bytes on every run and for every thread count, in text and in JSON.

usage: determinism.py MLS DIR...      each .mls under each DIR (recursively)

For each file and format: run with --threads 2 twice and with --threads 1 once; exit code,
stdout and stderr must be identical. Fails if no file was found at all.
"""
import os
import subprocess
import sys


def run(mls, path, fmt, threads):
    argv = [mls, "run", os.path.basename(path), "--format", fmt, "--threads", str(threads)]
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8")
    p = subprocess.run(argv, cwd=os.path.dirname(os.path.abspath(path)), capture_output=True, env=env, timeout=600)
    return p.returncode, p.stdout, p.stderr


def main():
    mls = os.path.abspath(sys.argv[1])
    files = []
    for d in sys.argv[2:]:
        for root, _, names in os.walk(d):
            files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".mls")]
    if not files:
        print("determinism: no .mls files under %s" % " ".join(sys.argv[2:]))
        return 1
    bad = 0
    for f in sorted(files):
        for fmt in ("text", "json"):
            first = run(mls, f, fmt, 2)
            for label, again in (("second run", run(mls, f, fmt, 2)), ("--threads 1", run(mls, f, fmt, 1))):
                if again != first:
                    bad += 1
                    print("%s (%s): %s differs from the first run (exit %d vs %d)" % (f, fmt, label, again[0], first[0]))
    print("determinism: %d files x 2 formats x 3 runs, %d differences" % (len(files), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
