#!/usr/bin/env python3
"""out_safety.py — `--out` never destroys what is at the path (issue 19, items 2, 3, 5):
a symbolic link is written through (the link stays, its target gets the output), a FIFO and a
device are written in place (never replaced by a regular file), an input of the run (the
scenario, an imported file, a link or hard link to either) is refused with a usage error and
left as it was, `--out ''` is a usage error, and a signal that ends the run removes the
temporary file and leaves the old output intact.

Issue 38: every file a command reads is an input (item 15): a request trace read while the run
evaluates (run, report, sensitivity, explain, diff) and merge's parts and scenario, compared by
identity (links followed). A temporary file that no handler could remove (SIGKILL, a crash
signal) is removed by the next write to the same target, while a live writer's is kept (item 17);
an --out name of 240 bytes (the temporary name must stay under NAME_MAX) works.

Devices: a character device made with mknod in the temporary folder (a copy of /dev/null's
numbers) when allowed; the real /dev/null and /dev/full are never used as targets here.

usage: out_safety.py MLS
"""
import os
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

SCENARIO = "sweep t over x in 1..3000 {\n  show x, y = x * 1 GB -> GB\n}\n"
# Long enough to be caught mid-run by a signal: an exact sweep of a recursive function.
SLOW = ("let slow_sum(n) = if n <= 0 then 0 else n + slow_sum(n - 1)\n"
        "sweep t over x in 1..200000 {\n  show x, y = slow_sum(150) + x\n}\n")
OLD = b"precious old contents\n"


def run(mls, args, cwd, **kw):
    return subprocess.run([mls] + args, cwd=cwd, capture_output=True, timeout=120, **kw)


def check(cond, what, failures):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def leftovers(folder):
    return [n for n in os.listdir(folder) if ".tmp" in n]


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    mls = os.path.abspath(sys.argv[1])
    failures = []
    with tempfile.TemporaryDirectory() as d:
        write(os.path.join(d, "s.mls"), SCENARIO.encode())
        expected = run(mls, ["run", "s.mls"], d).stdout
        check(len(expected) > 1000, "the scenario prints something", failures)

        # A symbolic link: its target is written, the link stays a link.
        write(os.path.join(d, "real.txt"), OLD)
        os.symlink("real.txt", os.path.join(d, "link.txt"))
        p = run(mls, ["run", "s.mls", "--out", "link.txt"], d)
        check(p.returncode == 0 and os.path.islink(os.path.join(d, "link.txt")),
              "--out through a symbolic link keeps the link", failures)
        check(read(os.path.join(d, "real.txt")) == expected, "... and writes the output to its target", failures)
        # A dangling link: the file it names is created.
        os.symlink("made.txt", os.path.join(d, "dangling.txt"))
        p = run(mls, ["run", "s.mls", "--out", "dangling.txt"], d)
        check(p.returncode == 0 and os.path.islink(os.path.join(d, "dangling.txt")) and
              read(os.path.join(d, "made.txt")) == expected, "--out through a dangling link creates its target",
              failures)
        check(not leftovers(d), "... and leaves no temporary file", failures)

        # A FIFO: written in place, still a FIFO afterwards.
        fifo = os.path.join(d, "pipe")
        os.mkfifo(fifo)
        got = []
        reader = threading.Thread(target=lambda: got.append(read(fifo)))
        reader.start()
        p = run(mls, ["run", "s.mls", "--out", "pipe"], d)
        reader.join(60)
        check(p.returncode == 0 and got and got[0] == expected, "--out to a FIFO writes the output into it", failures)
        check(stat.S_ISFIFO(os.lstat(fifo).st_mode), "... and the FIFO is still a FIFO", failures)

        # A character device (mknod needs privileges; skipped without them).
        dev = os.path.join(d, "null")
        try:
            os.mknod(dev, 0o666 | stat.S_IFCHR, os.stat("/dev/null").st_rdev)
        except (PermissionError, OSError):
            dev = None
            print("skip a character device (mknod not permitted)")
        if dev:
            p = run(mls, ["run", "s.mls", "--out", "null"], d)
            check(p.returncode == 0 and stat.S_ISCHR(os.lstat(dev).st_mode),
                  "--out to a character device writes it and leaves the device", failures)
        check(not leftovers(d), "... no temporary file next to a FIFO or device", failures)

        # The output is an input of the run: refused, the input untouched.
        write(os.path.join(d, "lib.mls"), b"let lib_x = 2 s\n")
        write(os.path.join(d, "main.mls"), b'import "lib.mls"\nshow lib_x\n')
        main_text, lib_text = read(os.path.join(d, "main.mls")), read(os.path.join(d, "lib.mls"))
        os.symlink("main.mls", os.path.join(d, "main_link.mls"))
        os.link(os.path.join(d, "lib.mls"), os.path.join(d, "lib_hard.mls"))
        for out, what in [("main.mls", "the scenario"), ("./lib.mls", "an imported file"),
                          ("main_link.mls", "a link to the scenario"), ("lib_hard.mls", "a hard link to an import")]:
            for cmd in (["run", "main.mls"], ["explain", "main.mls", "lib_x"], ["diff", "main.mls", "main.mls"]):
                p = run(mls, cmd + ["--out", out], d)
                check(p.returncode == 64 and b"input" in p.stderr,
                      "%s --out %s (%s) is refused with exit 64" % (cmd[0], out, what), failures)
        check(read(os.path.join(d, "main.mls")) == main_text and read(os.path.join(d, "lib.mls")) == lib_text,
              "... and the inputs are unchanged", failures)

        p = run(mls, ["run", "s.mls", "--out", ""], d)
        check(p.returncode == 64 and b"--out" in p.stderr, "--out '' is a usage error, not stdout", failures)

        # A signal ends the run: the temporary file goes, the old output stays.
        write(os.path.join(d, "slow.mls"), SLOW.encode())
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE, signal.SIGINT):
            target = os.path.join(d, "sig.txt")
            write(target, OLD)
            proc = subprocess.Popen([mls, "run", "slow.mls", "--out", "sig.txt", "--exact-limit", "1000000"], cwd=d,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            deadline = time.time() + 30
            while not leftovers(d) and time.time() < deadline and proc.poll() is None:
                time.sleep(0.01)
            started = bool(leftovers(d))
            time.sleep(0.2)
            proc.send_signal(sig)
            proc.wait(60)
            check(started and proc.poll() is not None, "%s: the run had started writing" % sig.name, failures)
            check(not leftovers(d), "%s ends the run without leaving a temporary file" % sig.name, failures)
            check(read(target) == OLD, "... and the old output is intact", failures)
        inputs_read_while_running(mls, d, failures)
        merge_inputs(mls, d, failures)
        leftovers_of_killed_writers(mls, d, failures)
    print("%d check(s) failed" % len(failures) if failures else "all ok")
    return 1 if failures else 0


TRACE = b"arrival_s,prompt_tokens,output_tokens\n0.0,512,128\n0.4,2048,64\n0.9,1024,32\n"
TRACED = ('let r = replica(Llama3_70B, DGX_H100, tp = 8)\n'
          'show t = serving_sim(r, 1 Hz, workload = serving_trace("trace.csv")).ttft.p99\n')


def inputs_read_while_running(mls, d, failures):
    """A trace is read only when the run evaluates serving_sim: --out over it is refused too."""
    write(os.path.join(d, "trace.csv"), TRACE)
    write(os.path.join(d, "traced.mls"), TRACED.encode())
    os.symlink("trace.csv", os.path.join(d, "trace_link.csv"))
    for out in ("trace.csv", "trace_link.csv"):
        for cmd in (["run", "traced.mls"], ["report", "traced.mls"], ["sensitivity", "traced.mls", "t"],
                    ["explain", "traced.mls", "t"], ["diff", "traced.mls", "traced.mls"]):
            p = run(mls, cmd + ["--out", out], d)
            check(p.returncode == 64 and b"input" in p.stderr and read(os.path.join(d, "trace.csv")) == TRACE,
                  "%s --out %s (the trace it reads) is refused with exit 64, the trace intact" % (cmd[0], out),
                  failures)
    check(not leftovers(d), "... and no temporary file is left", failures)


def merge_inputs(mls, d, failures):
    """merge reads its parts and the scenario they name: --out over any of them is refused."""
    for k in (1, 2):
        run(mls, ["run", "s.mls", "--shard", "%d/2" % k, "--format", "json", "--out", "part_%d.json" % k], d)
    parts = [read(os.path.join(d, "part_%d.json" % k)) for k in (1, 2)]
    scenario = read(os.path.join(d, "s.mls"))
    os.symlink("part_2.json", os.path.join(d, "part_link.json"))
    for out in ("part_1.json", "part_2.json", "part_link.json", "s.mls"):
        p = run(mls, ["merge", "part_1.json", "part_2.json", "--out", out], d)
        check(p.returncode == 64 and b"input" in p.stderr, "merge --out %s is refused with exit 64" % out, failures)
    check([read(os.path.join(d, "part_%d.json" % k)) for k in (1, 2)] == parts and
          read(os.path.join(d, "s.mls")) == scenario, "... and the parts and the scenario are unchanged", failures)


def start_slow_writer(mls, d, out):
    """A run writing `out` slowly, once its own temporary file exists."""
    proc = subprocess.Popen([mls, "run", "slow.mls", "--out", out, "--exact-limit", "1000000"], cwd=d,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 30
    while (not [n for n in leftovers(d) if "tmp%d-" % proc.pid in n] and time.time() < deadline and
           proc.poll() is None):
        time.sleep(0.01)
    return proc


def leftovers_of_killed_writers(mls, d, failures):
    expected = run(mls, ["run", "s.mls"], d).stdout
    sanitized = b"AddressSanitizer" in read(mls)
    # SIGKILL (no handler runs) and crash signals leave the temporary file at worst; the next
    # write to the same target removes it, and leaves another target's alone.
    for sig in (signal.SIGKILL, signal.SIGSEGV, signal.SIGABRT, signal.SIGBUS):
        write(os.path.join(d, "k.txt"), OLD)
        proc = start_slow_writer(mls, d, "k.txt")
        left = [n for n in leftovers(d) if "tmp%d-" % proc.pid in n]
        proc.send_signal(sig)
        proc.wait(60)
        # (under AddressSanitizer a SIGSEGV or SIGBUS ends the process through its report: exit 1)
        killed = [-sig] + ([1] if sanitized and sig in (signal.SIGSEGV, signal.SIGBUS) else [])
        check(bool(left) and proc.returncode in killed,
              "%s: the writer had started and was killed (exit %d)" % (sig.name, proc.returncode), failures)
        check(read(os.path.join(d, "k.txt")) == OLD, "... the old output is intact", failures)
        other = os.path.join(d, ".other.txt.tmp%d-0badcafe" % proc.pid)
        write(other, b"another target's leftover\n")
        p = run(mls, ["run", "s.mls", "--out", "k.txt"], d)
        check(p.returncode == 0 and read(os.path.join(d, "k.txt")) == expected,
              "... the next write to the same target succeeds", failures)
        check(leftovers(d) == [os.path.basename(other)],
              "... and removes the leftover, not another target's (%s)" % leftovers(d), failures)
        os.remove(other)
    # A live writer of the same target keeps its temporary file while another write happens,
    # and finishes with its own output.
    # (a shorter slow run: long enough for the other write to happen meanwhile)
    write(os.path.join(d, "slow.mls"), SLOW.replace("200000", "60000").encode())
    slow_expected = run(mls, ["run", "slow.mls", "--exact-limit", "1000000"], d).stdout
    proc = start_slow_writer(mls, d, "c.txt")
    live = [n for n in leftovers(d) if "tmp%d-" % proc.pid in n]
    p = run(mls, ["run", "s.mls", "--out", "c.txt"], d)
    check(p.returncode == 0 and live and all(os.path.exists(os.path.join(d, n)) for n in live),
          "a concurrent write of the same target leaves a live writer's temporary file", failures)
    proc.wait(120)
    check(proc.returncode == 0 and read(os.path.join(d, "c.txt")) == slow_expected,
          "... and the live writer completes its output", failures)
    # A name of 240 bytes: the temporary name (`.NAME.tmpPID-RAND`) would exceed NAME_MAX.
    long_name = "x" * 236 + ".txt"
    p = run(mls, ["run", "s.mls", "--out", long_name], d)
    check(p.returncode == 0 and read(os.path.join(d, long_name)) == expected,
          "--out with a 240-byte name writes the output (exit %d: %s)" % (p.returncode, p.stderr[:200]), failures)
    check(not leftovers(d), "... and leaves no temporary file", failures)


if __name__ == "__main__":
    sys.exit(main())
