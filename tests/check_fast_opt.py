#!/usr/bin/env python3
"""check_fast_opt.py — the compiled sweep code's optimiser (interpreter/runtime/fastpath_opt.cpp)
changes no output: every sweep and search below runs on the compiled path (--exact-limit 0)
with the optimiser and without it (MLS_FAST_NO_OPT=1), and both must print the same bytes,
the same diagnostics and exit alike. The optimiser must have removed instructions from some
of them (MLS_DEBUG_FAST reports it), so the comparison is not between two unoptimised runs.

usage: check_fast_opt.py MLS DIR_OR_FILE...
"""
import glob
import os
import re
import subprocess
import sys

DEBUG = re.compile(rb"^(compiled|optimised|schedule|lanes)\b.*\n?", re.M)
SWEEP = re.compile(r"^\s*(sweep|search)\b", re.M)


def run(mls, path, env_extra):
    env = dict(os.environ)
    env.pop("MLS_FAST_NO_OPT", None)
    env.update(env_extra)
    args = [mls, "run", path, "--exact-limit", "0", "--format", "json", "--threads", "1"]
    if os.path.basename(path) == "e2_bench.mls":
        args += ["--set", "max_gpus=2000"]
    return subprocess.run(args, capture_output=True, env=env, cwd=os.path.dirname(path), timeout=300)


def main():
    mls = os.path.abspath(sys.argv[1])
    files = []
    for arg in sys.argv[2:]:
        files += sorted(glob.glob(os.path.join(arg, "**", "*.mls"), recursive=True)) if os.path.isdir(arg) else [arg]
    failures, compiled, before, after = [], 0, 0, 0
    for path in map(os.path.abspath, files):
        with open(path, encoding="utf-8", errors="replace") as f:
            if not SWEEP.search(f.read()):
                continue
        opt = run(mls, path, {"MLS_DEBUG_FAST": "1"})
        plain = run(mls, path, {"MLS_FAST_NO_OPT": "1"})
        for m in re.finditer(rb"^optimised: (\d+) -> (\d+) instructions", opt.stderr, re.M):
            compiled += 1
            before += int(m.group(1))
            after += int(m.group(2))
        if opt.stdout != plain.stdout:
            failures.append(f"{path}: output differs with the optimiser")
        if DEBUG.sub(b"", opt.stderr) != plain.stderr:
            failures.append(f"{path}: diagnostics differ with the optimiser")
        if opt.returncode != plain.returncode:
            failures.append(f"{path}: exit {opt.returncode} with the optimiser, {plain.returncode} without")
    print(f"{compiled} compiled programs: {before} -> {after} instructions")
    if compiled < 10 or after >= before:
        failures.append("too few compiled programs, or nothing optimised: the check compared nothing")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
