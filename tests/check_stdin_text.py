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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checklib import Checklist, quiet_env  # noqa: E402  (shared with the other limit scripts)

BAD = [b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\xff"]


def run(mls, args, stdin=b"", cwd=None):
    return subprocess.run([mls] + args, input=stdin, capture_output=True, env=quiet_env(), cwd=cwd, timeout=60)


def main():
    mls = os.path.abspath(sys.argv[1])
    checks = Checklist()
    check = checks.check

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
    return checks.result()


if __name__ == "__main__":
    sys.exit(main())
