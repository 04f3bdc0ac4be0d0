#!/usr/bin/env python3
"""check_engines.py — the compiled binary64 sweep engine agrees with the exact evaluator.

Runs every sweep in the given scenarios twice — exactly (the default for small sweeps) and
forced through the compiled fast path (--exact-limit 0) — and compares every numeric cell
to a relative 1e-9 (binary64 vs exact rationals), every other cell and every note exactly, and
each column's assumptions: the compiled engine's must be the exact engine's (a sweep over
records or over values of different parameters reads different assumptions at points that take
the same branches), but for the approximations the arithmetic made (`via: arithmetic`: the exact
engine's `sqrt = binary64` where a root is irrational, the binary64 engine's one `arithmetic =
binary64 (sweep fast path)` that stands for all of them).
Inside the fast path each new branch signature is also re-evaluated by the tree-walker and
must agree bit for bit (an internal error otherwise), so this also exercises that check.

usage: check_engines.py MLS SCENARIO.mls...
"""
import json
import subprocess
import sys

# Natives that run a whole simulation per call stay with the tree-walking evaluator by design:
# their configuration and result records (with strings) do not flatten into registers, and the
# simulation, not the interpretation, is the cost. Sweeps over them report that engine.
EVALUATED_NATIVES = ("kv_alloc_sim", "serve_sim", "hf_config")


def run(mls, path, extra):
    p = subprocess.run([mls, "run", path, "--format", "json"] + extra, capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("%s %s failed (%d):\n%s" % (path, extra, p.returncode, p.stderr))
    return json.loads(p.stdout)


def close(a, b):
    if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)):
        return a == b
    return a == b or abs(a - b) <= 1e-9 * max(abs(a), abs(b))


def assumptions(table):
    """Per column, its assumptions as (kind, name, value, at), the arithmetic's approximations aside."""
    return {col: [(a["kind"], a["name"], a["value"], a["at"]) for a in listed if a.get("via") != "arithmetic"]
            for col, listed in table.get("assumptions", {}).items()}


def main():
    mls, files = sys.argv[1], sys.argv[2:]
    bad = 0
    for path in files:
        exact = run(mls, path, [])
        fast = run(mls, path, ["--exact-limit", "0"])
        for te, tf in zip(exact["tables"], fast["tables"]):
            if te["columns"] != tf["columns"] or len(te["rows"]) != len(tf["rows"]):
                print("%s: table %s differs in shape" % (path, te["name"]))
                bad += 1
                continue
            for i, (re_, rf) in enumerate(zip(te["rows"], tf["rows"])):
                for c, (a, b) in enumerate(zip(re_, rf)):
                    if not close(a, b):
                        print("%s: %s row %d column %s: exact %r, compiled %r" % (path, te["name"], i, te["columns"][c]["name"], a, b))
                        bad += 1
            if [n["text"] for n in te["notes"]] != [n["text"] for n in tf["notes"]]:
                print("%s: table %s: regime notes differ between engines" % (path, te["name"]))
                bad += 1
            ae, af = assumptions(te), assumptions(tf)
            for col in sorted(set(ae) | set(af)):
                if ae.get(col) != af.get(col):
                    lost = sorted(set(ae.get(col, [])) - set(af.get(col, [])))
                    extra = sorted(set(af.get(col, [])) - set(ae.get(col, [])))
                    print("%s: table %s column %s: assumptions differ between engines (compiled lacks %s, adds %s)" % (
                        path, te["name"], col, [x[1] for x in lost], [x[1] for x in extra]))
                    bad += 1
            engine = tf.get("engine", "")
            by_design = any("native '%s'" % n in engine for n in EVALUATED_NATIVES)
            if "compiled" not in engine and not by_design:
                print("%s: table %s did not run compiled: %s" % (path, te["name"], tf.get("engine")))
                bad += 1
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
