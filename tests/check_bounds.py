#!/usr/bin/env python3
"""check_bounds.py — inputs that once took minutes or gigabytes stay within time and memory
(issue 19, items 6-9). Each case runs generated input (too large to check in) under a wall-clock
limit and an address-space limit, and checks the outcome; the limits are generous (a loaded
2-core machine) but far below what the unbounded behaviour needed.

usage: check_bounds.py MLS
"""
import os
import resource
import subprocess
import sys
import tempfile
import time

MEM_LIMIT = 1536 << 20  # address space per run


def run(mls, args, cwd, stdin=b"", limit_s=60):
    def cap():
        resource.setrlimit(resource.RLIMIT_AS, (MEM_LIMIT, MEM_LIMIT))
    env = dict(os.environ, MLS_HISTORY="", NO_COLOR="1")
    t = time.monotonic()
    try:
        p = subprocess.run([mls] + args, cwd=cwd, input=stdin, capture_output=True, env=env, timeout=limit_s,
                           preexec_fn=cap)
    except subprocess.TimeoutExpired:
        return None, "", time.monotonic() - t
    return p.returncode, (p.stdout + p.stderr).decode("utf-8", "replace"), time.monotonic() - t


def main():
    mls = os.path.abspath(sys.argv[1])
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            return name

        # Item 7: a 16 MiB chain `1+1+...` stops at the depth limit while it is parsed.
        write("chain.mls", "show " + "1+" * (((16 << 20) - 10) // 2) + "1\n")
        rc, out, secs = run(mls, ["run", "chain.mls"], d, limit_s=30)
        check(rc == 65 and "parse.too_deep" in out and secs < 10,
              "16 MiB operator chain: parse.too_deep in %.1f s (was 47 s and 7.7 GB)" % secs)
    print("%d check(s) failed" % len(failures) if failures else "all ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
