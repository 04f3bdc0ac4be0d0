#!/usr/bin/env python3
"""check_no_hang.py — inputs that once hung forever (issue 19, item 1: a `set` whose value names
what it sets waited on its own lock at 0 % CPU; issue 38, item 9: MLS_HISTORY naming a FIFO hung
the REPL at start, naming /dev/zero read it without end). Each must finish within a few seconds
with the documented exit code; ctest also puts a timeout on the whole script.

usage: check_no_hang.py MLS SCENARIOS_DIR
"""
import os
import pty
import resource
import select
import subprocess
import sys
import tempfile
import time

LIMIT_S = 20


def run(mls, args, text=None, cwd=None):
    env = dict(os.environ, MLS_HISTORY="", NO_COLOR="1")
    try:
        p = subprocess.run([mls] + args, input=(text or "").encode(), capture_output=True, env=env, cwd=cwd,
                           timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        return None, ""
    return p.returncode, p.stdout.decode("utf-8", "replace") + p.stderr.decode("utf-8", "replace")


def repl_on_terminal(mls, history):
    """`mls repl` on a pseudo-terminal (the line editor and its history file are used only there)
    with MLS_HISTORY=history: (whether its banner appeared, everything it printed). `:quit` once
    the banner is up; killed after LIMIT_S, and capped at 1.5 GiB of address space — except in a
    sanitizer build (MLS_TEST_SANITIZER, tests/CMakeLists.txt), which cannot start under a cap."""
    master, slave = pty.openpty()
    env = dict(os.environ, MLS_HISTORY=history, NO_COLOR="1", TERM="dumb")
    capped = not os.environ.get("MLS_TEST_SANITIZER")

    def cap():
        os.setsid()
        if capped:
            resource.setrlimit(resource.RLIMIT_AS, (1536 << 20, 1536 << 20))
    p = subprocess.Popen([mls, "repl"], stdin=slave, stdout=slave, stderr=slave, env=env, preexec_fn=cap)
    os.close(slave)
    out, up, deadline = b"", False, time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if not up and b"type an expression" in out:
            up = True
            os.write(master, b":quit\r")
        if p.poll() is not None and not ready:
            break
    if p.poll() is None:
        p.kill()
    p.wait()
    os.close(master)
    return up, out.decode("utf-8", "replace")


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
        # A history file that is not a regular file is refused with a warning, and the REPL starts.
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        for what, path in (("MLS_HISTORY=FIFO", fifo), ("MLS_HISTORY=/dev/zero", "/dev/zero")):
            if not os.path.exists(path):
                continue
            up, out = repl_on_terminal(mls, path)
            if not up or "not a regular file" not in out:
                failures.append("%s: the REPL %s:\n%s" % (what, "started without the warning" if up else
                                                          "did not start within %d s" % LIMIT_S, out[-2000:]))
    for f in failures:
        print(f)
    print("%d case(s) failed" % len(failures) if failures else "ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
