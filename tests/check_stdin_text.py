#!/usr/bin/env python3
"""check_stdin_text.py — text that does not come from a file is checked like a file (issue 19,
items 11 and 14): a REPL script on stdin may start with a UTF-8 byte order mark (skipped); a
stdin line or a --set value that is not UTF-8 (a surrogate, an overlong form, a code point above
U+10FFFF) is a load.binary error whose bytes are never echoed, and the next line still runs.
(Golden files cannot carry raw bytes to stdin, hence a script.)

usage: check_stdin_text.py MLS
"""
import os
import subprocess
import sys
import tempfile

BAD = [b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xff"]


def run(mls, args, stdin=b"", cwd=None):
    env = dict(os.environ, MLS_HISTORY="", NO_COLOR="1")
    return subprocess.run([mls] + args, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=60)


def main():
    mls = os.path.abspath(sys.argv[1])
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    p = run(mls, ["repl"], b"\xef\xbb\xbfshow bom_repl = 3\n")
    check(p.returncode == 0 and b"bom_repl = 3" in p.stdout, "a byte order mark before stdin's first line is skipped")
    for bad in BAD:
        p = run(mls, ["repl"], b'show "' + bad + b'"\nshow ok_after = 1\n')
        out = p.stdout + p.stderr
        check(p.returncode == 65 and b"error[load.binary]" in p.stderr and bad not in out and b"ok_after = 1" in p.stdout,
              "stdin line with %r: load.binary, not echoed, the next line runs" % bad)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "s.mls"), "w") as f:
            f.write("let sx = 1\nshow sx\n")
        for bad in BAD:
            p = run(mls, ["run", "s.mls", "--set", (b"sx=" + bad).decode("utf-8", "surrogateescape")], cwd=d)
            check(p.returncode == 65 and b"error[load.binary]" in p.stderr and bad not in p.stdout + p.stderr,
                  "--set with %r: load.binary, not echoed" % bad)
    print("%d check(s) failed" % len(failures) if failures else "all ok")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
