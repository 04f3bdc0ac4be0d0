#!/usr/bin/env python3
"""check_no_hang.py — inputs that once hung forever (issue 19, item 1: a `set` whose value names
what it sets waited on its own lock at 0 % CPU). Each must finish within a few seconds with the
documented exit code; ctest also puts a timeout on the whole script.

usage: check_no_hang.py MLS SCENARIOS_DIR
"""
import os
import subprocess
import sys
import tempfile

LIMIT_S = 20


def run(mls, args, text=None, cwd=None):
    env = dict(os.environ, MLS_HISTORY="", NO_COLOR="1")
    try:
        p = subprocess.run([mls] + args, input=(text or "").encode(), capture_output=True, env=env, cwd=cwd,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")


def main():
    mls, scenarios = sys.argv[1], sys.argv[2]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        def scenario(name, text):
            path = os.path.join(tmp, name)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return path

        x = scenario("x.mls", "let x = 1\nshow x\n")
        cases = [
            # (what, args, stdin, expected exit code, text the output must contain)
            ("set x = x", ["run", scenario("a.mls", "let x = 1\nset x = x\nshow x\n")], None, 0, "x = 1"),
            ("--set x=x", ["run", x, "--set", "x=x"], None, 0, "x = 1"),
            ("--set x=2*x", ["run", x, "--set", "x=2*x"], None, 0, "x = 2"),
            ("set x = y, set y = x", ["check", scenario("b.mls", "let x = 1\nlet y = 2\nset x = y\nset y = x\n")],
             None, 65, "name.cycle"),
            ("set r.a = r.a + 1", ["run", scenario("c.mls", "let r = {a: 1}\nset r.a = r.a + 1\nshow r.a\n")], None,
             0, "r.a = 2"),
            ("preset set x = x * 3", ["run", scenario("d.mls", "preset p \"p\" extends mls {\n  set x = x * 3\n}\n"
                                                                "preset p\nlet x = 2\nshow x\n")], None, 0, "x = 6"),
            ("thousand_gpus --set mttf.gpu=mttf.gpu*2",
             ["run", os.path.join(scenarios, "thousand_gpus.mls"), "--set", "mttf.gpu=mttf.gpu * 2"], None, 0, ""),
            ("repl set x = x", ["repl"], "let x = 4\nset x = x + 1\nx\n", 0, "5"),
        ]
        for what, args, stdin, code, needle in cases:
            rc, out = run(mls, args, stdin)
            if rc is None:
                failures.append("%s: still running after %d s (hang)" % (what, LIMIT_S))
            elif rc != code or needle not in out:
                failures.append("%s: exit %d (expected %d), output lacks %r:\n%s" % (what, rc, code, needle, out))
    for f in failures:
        print(f)
    print("%d case(s) failed" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
