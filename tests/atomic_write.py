#!/usr/bin/env python3
"""atomic_write.py — `mls run --out FILE` writes atomically: a failed write (the target is a
directory, its folder is missing, the file-size limit is hit mid-write) exits 73 with an
io.write message and leaves the old file byte for byte, with no temporary file left over; a
successful write replaces the file and keeps its permissions.

usage: atomic_write.py MLS
"""
import os
import resource
import signal
import stat
import subprocess
import sys
import tempfile

SCENARIO = "sweep t over x in 1..3000 {\n  show x, y = x * 1 GB -> GB\n}\n"
OLD = b"precious old contents\n"


def run(mls, args, cwd, fsize=None):
    def limit():
        if fsize is not None:
            # Writes beyond the limit fail with EFBIG; the signal that would kill the process
            # instead is ignored (dispositions of ignored signals survive exec).
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
    return subprocess.run([mls] + args, cwd=cwd, capture_output=True, preexec_fn=limit, timeout=120)


def check(cond, what, failures):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def leftovers(folder):
    return [n for n in os.listdir(folder) if ".tmp" in n]


def main():
    mls = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "s.mls"), "w") as f:
            f.write(SCENARIO)
        expected = run(mls, ["run", "s.mls"], d).stdout
        check(len(expected) > 4096, "the scenario's output is larger than the file-size limit used below", failures)

        # A new file.
        p = run(mls, ["run", "s.mls", "--out", "new.txt"], d)
        check(p.returncode == 0 and open(os.path.join(d, "new.txt"), "rb").read() == expected,
              "--out to a new file writes the output", failures)

        # The target is a directory: nothing happens to it.
        os.mkdir(os.path.join(d, "dir"))
        p = run(mls, ["run", "s.mls", "--out", "dir"], d)
        check(p.returncode == 73 and b"error[io.write]" in p.stderr and os.path.isdir(os.path.join(d, "dir")),
              "--out to a directory exits 73 and leaves the directory", failures)

        # The folder does not exist.
        p = run(mls, ["run", "s.mls", "--out", "missing/out.txt"], d)
        check(p.returncode == 73 and b"error[io.write]" in p.stderr, "--out into a missing folder exits 73", failures)

        # The write fails half-way (file-size limit): the old file is untouched.
        old = os.path.join(d, "old.txt")
        with open(old, "wb") as f:
            f.write(OLD)
        os.chmod(old, 0o640)
        p = run(mls, ["run", "s.mls", "--out", "old.txt"], d, fsize=4096)
        check(p.returncode == 73 and b"error[io.write]" in p.stderr, "a write that fails half-way exits 73", failures)
        check(open(old, "rb").read() == OLD, "... and leaves the old file as it was", failures)
        check(not leftovers(d), "... and leaves no temporary file", failures)

        # A successful replacement keeps the permissions.
        p = run(mls, ["run", "s.mls", "--out", "old.txt"], d)
        check(p.returncode == 0 and open(old, "rb").read() == expected, "a successful write replaces the file", failures)
        check(stat.S_IMODE(os.stat(old).st_mode) == 0o640, "... and keeps its permissions", failures)
        check(not leftovers(d), "... and leaves no temporary file", failures)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
