"""checklib.py — what the limit and input scripts (check_bounds, check_exhaustion, check_memory,
check_stdin_text) share: a checklist that prints each outcome and counts the failures, and a run
of mls under a wall-clock limit and an address-space cap that reports its peak memory and CPU.
"""
import collections
import os
import resource
import subprocess
import tempfile
import time

Outcome = collections.namedtuple("Outcome", "code text seconds rss cpu")
Outcome.__doc__ = "exit code (None on timeout), stdout+stderr, seconds, peak RSS in bytes, CPU seconds"


class Checklist:
    """check(cond, what) prints ok/FAIL and remembers failures; result() prints the tally and
    gives the script's exit code."""

    def __init__(self):
        self.failures = []

    def check(self, cond, what):
        print(("ok   " if cond else "FAIL ") + what, flush=True)
        if not cond:
            self.failures.append(what)
        return cond

    def result(self):
        print("%d check(s) failed" % len(self.failures) if self.failures else "all ok")
        return 1 if self.failures else 0


def quiet_env(**extra):
    """The environment every script runs mls in: no history file, no colour."""
    return dict(os.environ, MLS_HISTORY="", NO_COLOR="1", **extra)


def run_bounded(mls, args, cwd=None, stdin=b"", limit_s=60, address_space=None, env=None):
    """mls ARGS under `limit_s` seconds of wall clock (killed past it: code None) and, when given,
    an address-space cap; stdin bytes or an open file; stdout and stderr together, decoded
    leniently."""
    def cap():
        if address_space:
            resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))
    t = time.monotonic()
    with tempfile.TemporaryFile() as out:
        piped = isinstance(stdin, (bytes, bytearray))
        p = subprocess.Popen([mls] + args, cwd=cwd, stdin=subprocess.PIPE if piped else stdin or subprocess.DEVNULL,
                             stdout=out, stderr=out, env=env or quiet_env(), preexec_fn=cap)
        if piped:
            p.stdin.write(stdin)
            p.stdin.close()
        while True:
            pid, status, usage = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() - t > limit_s:
                p.kill()
                os.wait4(p.pid, 0)
                return Outcome(None, "", time.monotonic() - t, 0, 0.0)
            time.sleep(0.02)
        out.seek(0)
        text = out.read().decode("utf-8", "replace")
    return Outcome(os.waitstatus_to_exitcode(status), text, time.monotonic() - t, usage.ru_maxrss * 1024,
                   usage.ru_utime + usage.ru_stime)
