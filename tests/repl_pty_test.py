#!/usr/bin/env python3
"""repl_pty_test.py — drives `mls repl` in a real pseudo-terminal (a private tmux server).

Checks what only a terminal shows: Tab completion (names, fields, units, convention choices),
the continuation prompt of a multi-line record, an error drawn under the prompt line that
leaves earlier bindings intact, Ctrl-C dropping an unfinished input and stopping output, a
multi-line input recalled as one history entry, and a history that survives a restart (Up arrow and Ctrl-R reverse search). Every wait polls the screen until the
expected text appears (10 s timeout); the tmux server is killed on the way out.

usage: repl_pty_test.py MLS
"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT = 10.0

SCENARIO = """\
convention repl_failures "how failures combine" {
  node_series: "every component"
  gpu_only: "GPUs only"
  default node_series
}
let repl_checkpoint_gap = 3 h
let repl_node = { gpus: 8, nics: 8, psus: 2 }
"""


class Failure(Exception):
    pass


class Terminal:
    """One tmux server on its own socket, with one window running a command."""

    count = 0

    def __init__(self):
        # Each terminal has its own server: runs and terminals never collide.
        Terminal.count += 1
        self.socket = "mls-test-%d-%d" % (os.getpid(), Terminal.count)
        self.env = {k: v for k, v in os.environ.items() if k != "TMUX"}

    def tmux(self, *args, check=True):
        return subprocess.run(["tmux", "-L", self.socket, "-f", "/dev/null", *args], env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT, check=check)

    def start(self, command):
        # The shell reports the exit status and keeps the pane open so that it can be read.
        wrapped = "%s; echo \"[exited $?]\"; sleep 60" % command
        self.tmux("new-session", "-d", "-x", "120", "-y", "50", "-s", "t", wrapped)
        self.path = self.tmux("display-message", "-p", "#{socket_path}").stdout.strip()

    def send(self, text):
        self.tmux("send-keys", "-t", "t", "-l", text)

    def key(self, *keys):
        self.tmux("send-keys", "-t", "t", *keys)

    def line(self, text):
        self.send(text)
        self.key("Enter")

    def screen(self):
        r = self.tmux("capture-pane", "-p", "-t", "t", "-S", "-500", check=False)
        return r.stdout if r.returncode == 0 else ""


    def wait_for(self, what, description):
        """Polls until `what` (text, or a predicate on the screen) holds."""
        test = what if callable(what) else (lambda s: what in s)
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            screen = self.screen()
            if test(screen):
                return screen
            time.sleep(0.05)
        raise Failure("timed out waiting for %s\n--- screen ---\n%s" % (description, self.screen()))

    def wait_prompt_line(self, expected, description):
        """Waits until the cursor line (the last non-blank one) reads exactly `expected`."""
        def ok(screen):
            lines = [l.rstrip() for l in screen.rstrip("\n").split("\n") if l.strip()]
            return bool(lines) and lines[-1] == expected
        return self.wait_for(ok, description + " (line %r)" % expected)

    def ready(self):
        """Waits for an empty prompt: typing earlier would race with the output (the tty echoes
        type-ahead while mls is not reading)."""
        return self.wait_prompt_line("mls>", "an empty prompt")

    def stop(self):
        self.tmux("kill-server", check=False)
        # The server may leave its socket file behind.
        if getattr(self, "path", "") and os.path.basename(self.path) == self.socket:
            try:
                os.unlink(self.path)
            except OSError:
                pass


def repl_command(mls, workdir, history):
    return "cd %s && env MLS_HISTORY=%s TERM=xterm LC_ALL=C.UTF-8 %s repl scenario.mls" % (
        workdir, history, mls)


def completion(t):
    t.wait_prompt_line("mls>", "the first prompt")
    t.send("repl_ch")
    t.key("Tab")
    t.wait_prompt_line("mls> repl_checkpoint_gap", "a name completed by Tab")
    t.key("Enter")
    t.wait_for("\n= 3 h\n", "the completed name evaluated")
    t.ready()
    t.send("repl_node.ps")
    t.key("Tab")
    t.wait_prompt_line("mls> repl_node.psus", "a record field completed after '.'")
    t.key("C-u")
    t.send("3 Gi")
    t.key("Tab")
    t.wait_prompt_line("mls> 3 GiB", "a unit completed after a number")
    t.key("C-u")
    t.send(":use repl_failures=gp")
    t.key("Tab")
    t.wait_prompt_line("mls> :use repl_failures=gpu_only", "a convention choice completed after :use")
    t.key("Enter")
    t.wait_for("repl_failures = gpu_only (was node_series)", "the choice applied")
    t.ready()
    t.send("repl_node.")
    t.key("Tab")
    t.wait_for(lambda s: "gpus  nics  psus" in s, "the candidate list for an ambiguous completion")
    t.key("C-u")


def multiline(t):
    t.line("let repl_r = {")
    t.wait_prompt_line("...>", "the continuation prompt")
    t.line("  a: 1")
    t.wait_prompt_line("...>", "the continuation prompt again")
    t.line("  b: 2 GB }")
    t.wait_for("repl_r.b = 2 GB", "the multi-line record defined")
    t.wait_prompt_line("mls>", "the main prompt after the record")


def multiline_history(t):
    """A multi-line input is one history entry: Up recalls all of it and Enter runs it again."""
    t.line("let repl_h = {")
    t.wait_prompt_line("...>", "the continuation prompt")
    t.line("  a: 3 GB }")
    t.wait_for("repl_h.a = 3 GB", "the multi-line record defined")
    t.ready()
    t.key("Up")
    t.wait_for(lambda s: s.rstrip().endswith("mls> let repl_h = {\n  a: 3 GB }"), "Up recalls both lines")
    t.key("Enter")
    t.wait_for(lambda s: s.count("repl_h.a = 3 GB") == 2, "the recalled input run again")


def interrupt_output(t):
    """A long table prints `:rows` rows at a time; `:more` with `:rows all` prints the rest, and
    Ctrl-C stops that output (not the session)."""
    t.line("sweep repl_many over x in 1..1000000 { show x }")
    t.wait_for("rows 1-50 of 1000000 shown; :more shows the next 50", "the table cut at 50 rows")
    t.ready()
    t.line(":rows all")
    t.ready()
    t.line(":more")
    time.sleep(0.3)
    t.key("C-c")
    t.wait_for("(output stopped: Ctrl-C)", "the output stopped by Ctrl-C")
    t.ready()
    if "of 1000000 shown (the end of the table)" in t.screen():
        raise Failure("the whole table was printed although Ctrl-C stopped the output")
    t.line("repl_checkpoint_gap")
    t.wait_for("\n= 3 h\n", "the session carrying on after the stopped output")


def error_keeps_bindings(t):
    t.line("let repl_keep = 42 GB")
    t.wait_for("\nrepl_keep = 42 GB", "a binding")
    t.ready()
    t.line("repl_keep + 1 s")

    def caret_under_prompt(screen):
        # The caret line comes right after the typed line, under its first character.
        lines = screen.split("\n")
        return "error[dim.mismatch]" in screen and any(
            l.startswith("mls> repl_keep + 1 s") and i + 1 < len(lines) and lines[i + 1].startswith("     ^~~~~~~~~~")
            for i, l in enumerate(lines))
    t.wait_for(caret_under_prompt, "the dimension error with its caret under the prompt line")
    t.ready()
    t.line("repl_keep")
    t.wait_for(lambda s: s.rstrip().endswith("= 42 GB\n  depends on: set repl_keep = 42 GB\nmls>") or
               "mls> repl_keep\n= 42 GB" in s, "the binding intact after the error")


def interrupt(t):
    t.line("let repl_pending = (")
    t.wait_prompt_line("...>", "an unfinished input")
    t.send("1 +")
    t.key("C-c")
    t.wait_prompt_line("mls>", "Ctrl-C back at the main prompt")
    t.line("repl_pending")
    t.wait_for("unknown name 'repl_pending'", "the dropped input left nothing behind")


def interrupt_evaluation(t):
    """Ctrl-C while an input runs stops it with an error; the session (and its bindings) stay."""
    t.line("let repl_before = 5 GB")
    t.ready()
    t.line("let repl_fib(n) = if n < 2 then n else repl_fib(n - 1) + repl_fib(n - 2)")
    t.ready()
    # y reads x, so every point evaluates repl_fib (a statement that reads no swept variable is
    # evaluated once and reused: the sweep would finish before the Ctrl-C).
    t.line("sweep repl_slow over x in 1..1000000 { show y = x + repl_fib(22) }")
    time.sleep(0.5)
    t.key("C-c")
    t.wait_for("error[run.interrupted]", "the interrupted evaluation reported")
    t.ready()
    t.line("repl_before")
    t.wait_for("= 5 GB", "the binding from before the interrupted input")


def plot(t):
    """`:plot` draws the last table as braille in the terminal: axes, the unit, the x range."""
    t.line("sweep repl_curve over g in [1, 2, 4, 8, 16] { show g, repl_t = g * g * 1 GB }")
    t.wait_for("(5 rows)", "the sweep's table")
    t.ready()
    t.line(":plot")
    t.wait_for(lambda s: "repl_curve: g (log scale)" in s and "repl_t [GB]" in s and "\u2514" in s and
               "\u28c0" in s, "a braille chart with its title, unit and x axis")
    t.ready()
    t.line(":plot repl_curv")
    t.wait_for("did you mean 'repl_curve'?", "an unknown table with a did-you-mean")


def history_survives(mls, workdir, history):
    first = Terminal()
    try:
        first.start(repl_command(mls, workdir, history))
        first.wait_prompt_line("mls>", "the first session's prompt")
        first.line("let repl_hist_marker = 7")
        first.wait_for("\nrepl_hist_marker = 7", "the marker defined")
        first.ready()
        first.line(":quit")
        first.wait_for("[exited 0]", "the first session to end")
    finally:
        first.stop()
    with open(history, encoding="utf-8", errors="replace") as f:
        if "repl_hist_marker" not in f.read():
            raise Failure("the history file does not hold the line typed")
    if not os.path.islink(history):
        raise Failure("MLS_HISTORY was a symbolic link and was replaced by a file")
    if any(".tmp" in n or n.startswith("history.") and n != "history.real" for n in os.listdir(workdir)):
        raise Failure("a temporary history file was left behind: %s" % os.listdir(workdir))
    second = Terminal()
    try:
        second.start(repl_command(mls, workdir, history))
        second.wait_prompt_line("mls>", "the second session's prompt")
        second.key("C-r")
        second.send("repl_hist_m")
        # libedit shows the search under the line it found: "bck:repl_hist_m".
        second.wait_for(lambda s: "mls> let repl_hist_marker = 7" in s and "bck:repl_hist_m" in s, "Ctrl-R finds the line")
        second.key("Enter")
        second.wait_for("\nrepl_hist_marker = 7", "the line found by Ctrl-R runs")
        second.wait_prompt_line("mls>", "the prompt after it")
        second.key("Up")
        second.wait_prompt_line("mls> let repl_hist_marker = 7", "Up recalls the line just run")
        second.key("Up")
        second.wait_prompt_line("mls> :quit", "Up again recalls the last line of the previous session")
        second.key("C-u")
        second.line(":quit")
        second.wait_for("[exited 0]", "the second session to end")
    finally:
        second.stop()


def main():
    mls = os.path.abspath(sys.argv[1])
    if shutil.which("tmux") is None:
        print("tmux is not installed; skipping")
        return 77
    workdir = tempfile.mkdtemp(prefix="mls-pty-")
    history = os.path.join(workdir, "history")
    # A link, as dotfile managers make: saved through it, the link stays (issue 19, item 2).
    os.symlink("history.real", history)
    with open(os.path.join(workdir, "scenario.mls"), "w", encoding="utf-8") as f:
        f.write(SCENARIO)
    failures = 0
    try:
        t = Terminal()
        try:
            t.start(repl_command(mls, workdir, history))
            for check in (completion, multiline, multiline_history, error_keeps_bindings, interrupt, interrupt_evaluation,
                          interrupt_output, plot):
                try:
                    t.ready()
                    check(t)
                    print("ok   %s" % check.__name__)
                except Failure as e:
                    failures += 1
                    print("FAIL %s: %s" % (check.__name__, e))
                    t.key("C-c")
        finally:
            t.stop()
        try:
            history_survives(mls, workdir, history)
            print("ok   history_survives")
        except Failure as e:
            failures += 1
            print("FAIL history_survives: %s" % e)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
