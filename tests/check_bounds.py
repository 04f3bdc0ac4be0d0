#!/usr/bin/env python3
"""check_bounds.py — inputs that once took minutes or gigabytes stay within time and memory
(issue 19, items 6-9). Each case runs generated input (too large to check in) under a wall-clock
limit and an address-space limit, and checks the outcome; the limits are generous (a loaded
2-core machine) but far below what the unbounded behaviour needed.

usage: check_bounds.py MLS
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import Checklist, run_bounded  # noqa: E402  (shared with the other limit scripts)

MEM_LIMIT = 1536 << 20  # address space per run


def run(mls, args, cwd, stdin=b"", limit_s=60, mem=MEM_LIMIT):
    """(exit code or None on timeout, output, seconds, peak RSS in bytes, CPU seconds)."""
    return tuple(run_bounded(mls, args, cwd, stdin, limit_s, mem))


def repl_script(n):
    """n inputs of the kinds a long REPL session has: definitions, expressions, functions, `ans`,
    an input that fails (rolled back), a blank line and an input continued on a second line."""
    kinds = [lambda i: "let x%d = %d GB" % (i, i), lambda i: "x%d * 2" % (i - 1),
             lambda i: "let f%d(a) = a * x%d" % (i, i - 2), lambda i: "show f%d(3)" % (i - 1),
             lambda i: "ans + 1 GB", lambda i: "let bad%d = 1 GB + 1 s" % i, lambda i: "",
             lambda i: "let y%d = (1 +\n  2) * x%d" % (i, i - 7)]
    return "".join(kinds[i % 8](i) + "\n" for i in range(n)).encode()


def main():
    mls = os.path.abspath(sys.argv[1])
    checks = Checklist()
    check = checks.check

    # A sanitizer build cannot start under an address-space cap (its shadow memory is larger):
    # it runs the cases uncapped and skips the ones that need the cap.
    capped = run(mls, ["--version"], None)[0] == 0
    mem = MEM_LIMIT if capped else None
    if not capped:
        print("note: mls does not start under a %d MiB address-space cap (a sanitizer build?)" % (MEM_LIMIT >> 20))
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            return name

        # Item 7: a 16 MiB chain `1+1+...` stops at the depth limit while it is parsed.
        write("chain.mls", "show " + "1+" * (((16 << 20) - 10) // 2) + "1\n")
        rc, out, secs, rss, _ = run(mls, ["run", "chain.mls"], d, limit_s=30, mem=mem)
        check(rc == 65 and "parse.too_deep" in out and secs < 10,
              "16 MiB operator chain: parse.too_deep in %.1f s, %d MB (was 47 s and 7.7 GB)" % (secs, rss >> 20))

        # Item 6: a list literal of 300,000 elements (600 KB): its cost per element.
        n = 300000
        write("base.mls", "let xs = [1]\nshow n = len(xs)\n")
        write("list.mls", "let xs = [" + ",".join(["1"] * n) + "]\nshow n = len(xs)\n")
        rc0, _, _, rss0, _ = run(mls, ["run", "base.mls"], d, mem=mem)
        rc, out, secs, rss, _ = run(mls, ["run", "list.mls"], d, limit_s=120, mem=mem)
        per = (rss - rss0) / n
        # A sanitizer build pads every allocation with redzones: its bytes per element are not the
        # release build's, so only the release build (capped) checks the figure.
        check(rc0 == 0 and rc == 0 and "n = 300000" in out and (per < 1200 or not capped),
              "a list of %d literals: %.0f bytes per element (was ~2100), %.1f s" % (n, per, secs))

        # Item 6: running out of memory is a limit of the input (exit 65), not an internal error.
        if capped:
            write("huge.mls", "let xs = [" + ",".join(["1"] * 4000000) + "]\nshow n = len(xs)\n")
            rc, out, secs, _, _ = run(mls, ["run", "huge.mls"], d, limit_s=120, mem=1 << 30)
            check(rc == 65 and "error[limit.memory]" in out and "internal" not in out,
                  "a list that does not fit in 1 GiB: limit.memory, exit 65 (was internal, 70)")

        # Item 8: a KV allocation simulation is charged to the step budget: a huge trace stops
        # with limit.steps instead of running outside it (17 s on a loaded machine before).
        write("kv.mls", "let big = kv_trace with { requests = 100000, output_median = 900, max_new_tokens = 1024 }\n"
                        "show s = kv_allocation(1000000000 token, max_seq = 2048, trace = big).steps\n")
        rc, out, secs, _, _ = run(mls, ["run", "kv.mls"], d, limit_s=120, mem=mem)
        check(rc == 65 and "limit.steps" in out and secs < 20,
              "kv_alloc_sim of a huge trace: limit.steps in %.1f s" % secs)

        # Item 9: a REPL reading stdin costs about the same per input however long the session
        # is. Compared within this run, on CPU time (the machine's load changes wall time, not
        # CPU time), less the cost of starting: 4x the inputs must cost about 4x, not 16x (each
        # input copied every table of the session: 10^4 lines took 24 s of CPU, 10^5 never ended).
        n = 2000
        _, _, _, _, cpu0 = run(mls, ["repl"], d, stdin=b"", mem=mem)
        rc1, out1, _, _, cpu1 = run(mls, ["repl"], d, stdin=repl_script(n), limit_s=240, mem=mem)
        rc4, out4, _, _, cpu4 = run(mls, ["repl"], d, stdin=repl_script(4 * n), limit_s=480, mem=mem)
        ratio = (cpu4 - cpu0) / max(cpu1 - cpu0, 1e-3)
        # Every input of the kinds that succeed answered; the failing ones were reported and undone.
        last = max(i for i in range(4 * n) if i % 8 == 7)  # the last `let y...` input
        check(rc1 == 65 and rc4 == 65 and out4.count("error[dim.mismatch]") == 4 * n // 8 and
              ("y%d = " % last) in out4 and ratio < 7,
              "REPL on stdin: %d inputs %.2f s CPU, %d inputs %.2f s CPU (start %.2f s): ratio %.1f "
              "(linear 4, quadratic 16)" % (n, cpu1, 4 * n, cpu4, cpu0, ratio))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
