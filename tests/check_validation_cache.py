#!/usr/bin/env python3
"""check_validation_cache.py — the on-disk cache of validation tables (the bands train() results
carry, refit per source: docs/validation.md, "What it costs") never changes what mls prints: a run
with a cold cache, a warm one, an unwritable one, a corrupted one and eight runs racing on one empty
directory print the same bytes (text and JSON); a `--set` of a fitted constant gets a table of its
own (its band differs) and prints the same cold and warm; no temporary file is left behind.

usage: check_validation_cache.py MLS SCENARIO
"""
import os
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor


def run(mls, scenario, cache, *extra):
    env = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8", MLS_CACHE_DIR=cache)
    outs = []
    for fmt in ("text", "json"):
        p = subprocess.run([mls, "run", scenario, "--format", fmt, "--assumptions", "all", *extra],
                           capture_output=True, env=env, timeout=600)
        outs.append((p.returncode, p.stdout, p.stderr))
    return outs


def main():
    mls, scenario = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        cold_dir = os.path.join(tmp, "cold")
        cold = run(mls, scenario, cold_dir)
        if cold[0][0] != 0:
            errors.append("the scenario fails: %s" % cold[0][2].decode(errors="replace")[:500])
        files = sorted(os.listdir(cold_dir)) if os.path.isdir(cold_dir) else []
        if not files:
            errors.append("a cold run wrote no table to MLS_CACHE_DIR")
        if b"validation" not in cold[0][1]:
            errors.append("the scenario shows no validation band (nothing to cache)")
        if run(mls, scenario, cold_dir) != cold:
            errors.append("a warm cache prints other bytes than a cold one")
        # A file where the directory should be: nothing can be written, the table is computed.
        blocked = os.path.join(tmp, "blocked")
        with open(blocked, "w") as f:
            f.write("not a directory\n")
        if run(mls, scenario, os.path.join(blocked, "sub")) != cold:
            errors.append("an unwritable cache directory changes the output")
        # Corrupted tables are ignored (and rewritten).
        for name in files:
            with open(os.path.join(cold_dir, name), "r+b") as f:
                f.seek(0, 2)
                size = f.tell()
                f.seek(size // 2)
                f.write(b"\x00garbage\tnot a number\n")
        if run(mls, scenario, cold_dir) != cold:
            errors.append("a corrupted cache file changes the output")
        # Eight processes computing and writing the same tables at once.
        race_dir = os.path.join(tmp, "race")
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(pool.map(lambda _: run(mls, scenario, race_dir), range(8)))
        if any(r != cold for r in results):
            errors.append("concurrent writers of one cache change the output")
        leftovers = [n for n in os.listdir(race_dir) if ".tmp." in n]
        if leftovers:
            errors.append("temporary files left in the cache: %s" % leftovers)
        # A --set of a fitted constant: a table of its own, the same bytes cold and warm.
        moved_dir = os.path.join(tmp, "moved")
        moved = run(mls, scenario, moved_dir, "--set", "gemm_half_width=300")
        if moved == cold:
            errors.append("--set gemm_half_width=300 does not change the output")
        if run(mls, scenario, moved_dir, "--set", "gemm_half_width=300") != moved:
            errors.append("with --set, a warm cache prints other bytes than a cold one")
        if run(mls, scenario, cold_dir, "--set", "gemm_half_width=300") != moved:
            errors.append("with --set, a cache holding the default's tables prints other bytes")
    for e in errors:
        print(e)
    print("validation cache: %d problem(s)" % len(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
