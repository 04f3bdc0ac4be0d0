#!/usr/bin/env python3
"""check_exhaustion.py — inputs that once took minutes, hours or gigabytes (issue 38, "Hangs and
exhaustion") finish with a result or a documented error. Each case runs generated input (too
large to check in) under a wall-clock limit and an address-space cap. The limits are generous (a
loaded 2-core machine) and far below what the unbounded behaviour needed; no case asserts a
speed, only that the run ends, and what it printed.

usage: check_exhaustion.py MLS
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import Checklist, run_bounded  # noqa: E402  (shared with the other limit scripts)

MEM_LIMIT = 2048 << 20  # address space per run


def run(mls, args, cwd, limit_s=60, mem=MEM_LIMIT):
    """(exit code or None on timeout, output, seconds, peak RSS in bytes)."""
    return tuple(run_bounded(mls, args, cwd, limit_s=limit_s, address_space=mem))[:4]


def main():
    mls = os.path.abspath(sys.argv[1])
    checks = Checklist()
    check = checks.check

    # A sanitizer build cannot start under an address-space cap (its shadow memory is larger).
    capped = not os.environ.get("MLS_TEST_SANITIZER") and run(mls, ["--version"], None)[0] == 0
    mem = MEM_LIMIT if capped else None
    with tempfile.TemporaryDirectory() as d:
        def write(name, text):
            with open(os.path.join(d, name), "w") as f:
                f.write(text)
            return name

        # Item 4: a top K with K near N, and a Pareto front of N points, were quadratic (10^5
        # points: 100 s and 90 s; these 2 * 10^5 would take four times as long).
        n = 200000
        write("top.mls", "search s over x in 1..%d {\n  minimize x * 7919 - floor(x * 7919 / 100003) * 100003\n"
                         "  top %d\n  show x\n}\n" % (n, n - 1000))
        rc, out, secs, rss = run(mls, ["run", "top.mls", "--format", "csv"], d, mem=mem)
        check(rc == 0 and out.count("\n") == n - 1000 + 2,
              "search top %d of %d points: %s rows in %.1f s, %d MB" % (n - 1000, n, out.count("\n") - 2 if rc == 0
                                                                        else rc, secs, rss >> 20))
        write("front.mls", "search s over x in 1..%d {\n  pareto maximize x, minimize x\n  show x\n}\n" % n)
        rc, out, secs, rss = run(mls, ["run", "front.mls", "--format", "csv"], d, mem=mem)
        check(rc == 0 and out.count("\n") == n + 2,
              "a Pareto front of all %d points: %s rows in %.1f s, %d MB" % (n, out.count("\n") - 2 if rc == 0
                                                                          else rc, secs, rss >> 20))

        # Item 7: 40,000 chained `set x = x + 1` (560 KB): each value's provenance is one more
        # `set` than the last, and as sorted vectors the chain stored N^2 / 2 atoms twice over
        # (6.4 GB, 23.6 s, memory x4 per doubling).
        n = 40000
        write("chain.mls", "let x = 0\n" + "set x = x + 1\n" * n + "show x\n")
        rc, out, secs, rss = run(mls, ["run", "chain.mls"], d, mem=mem)
        check(rc == 0 and "x = %d" % n in out and out.count("set  x = x + 1") == n,
              "%d chained sets: exit %s in %.1f s, %d MB (was 6.4 GB)" % (n, rc, secs, rss >> 20))

        # Item 6: `mls sensitivity` of a sum over 1,000 inputs moves each one (2,000 reruns); the
        # sets each rerun made were kept after its rollback (1,000 inputs: 3 GB; 2,000: 23.6 GB).
        n = 1000
        write("sum.mls", "".join("let a%d = %d\n" % (i, i + 1) for i in range(n)) +
              "show s = sum([" + ", ".join("a%d" % i for i in range(n)) + "])\n")
        rc, out, secs, rss = run(mls, ["sensitivity", "sum.mls", "s"], d, limit_s=180, mem=mem)
        check(rc == 0 and out.count("sum.mls:") >= n,
              "sensitivity over %d inputs: exit %s in %.1f s, %d MB (was 3 GB)" % (n, rc, secs, rss >> 20))

        # Item 8: a diff of a sweep whose every cell moves listed each changed cell (10^6 points x
        # 13 columns: 16.2 GB, 107 s; these 2 * 10^5 x 11: 3.7 GB). It lists kDiffListed and
        # counts the rest.
        cols = ", ".join("c%d = (a * %d + b) * k" % (c, c) for c in range(1, 12))
        write("moved.mls", "let k = 1\nsweep g over a in 1..200, b in 1..1000 {\n  show a, b, %s\n}\n" % cols)
        rc, out, secs, rss = run(mls, ["diff", "moved.mls", "--set", "k=2"], d, mem=mem)
        check(rc == 1 and "2200000 cells changed" in out and "… and 2100000 more changed cells" in out,
              "diff of 200,000 rows x 11 moved columns: exit %s in %.1f s, %d MB (was 3.7 GB)" % (rc, secs, rss >> 20))
        rc, out, secs, rss = run(mls, ["diff", "moved.mls", "--set", "k=2", "--format", "json"], d, mem=mem)
        listed = out.count('"column": "c')
        check(rc == 1 and '"cells_changed": 2200000' in out and listed == 100000,
              "the same diff in JSON: exit %s, %d cells listed, in %.1f s, %d MB" % (rc, listed, secs, rss >> 20))

        # Item 13: arrivals so late that binary64 time absorbed every step (a makespan of 0, then
        # runtime.div_zero): a trace is simulated from its first arrival (a value); a span the
        # clock cannot resolve is a domain error at the call.
        write("one.csv", "1e20,5,10\n")
        write("late.mls", "let r = replica(Llama3_70B, DGX_H100, tp = 8)\n"
                          "let s = serving_sim(r, 1 Hz, workload = serving_trace(\"one.csv\"))\n"
                          "show s.throughput -> token/s @ 0.1, s.e2e.p50 -> ms @ 0.1\n")
        rc, out, secs, _ = run(mls, ["run", "late.mls"], d, mem=mem)
        check(rc == 0 and "s.throughput = " in out and "div_zero" not in out,
              "a one-row trace at 1e20 s: exit %s, %s" % (rc, " ".join(l for l in out.splitlines() if l.startswith("s."))))
        write("slow.mls", "let r = replica(Llama3_70B, DGX_H100, tp = 8)\n"
                          "show serving_sim(r, 1e-30 Hz, workload = chat_workload with { requests = 3 }).throughput\n")
        rc, out, secs, _ = run(mls, ["run", "slow.mls"], d, mem=mem)
        check(rc == 65 and "error[runtime.domain]" in out and "simulated clock" in out and "slow.mls:2" in out,
              "serving_sim at 1e-30 requests/s: exit %s, %s" % (rc, (out.split("error[") + [""])[1][:120]))
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
