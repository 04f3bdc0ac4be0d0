#!/usr/bin/env python3
"""error_catalog.py — docs/errors.md is generated from grammar/error_kinds.def and the
catalog goldens (tests/golden/catalog/CODE.mls with CODE.out), and checked so it cannot drift.

usage: error_catalog.py MLS             check (ctest): exit 1 on any drift
       error_catalog.py MLS --write     regenerate docs/errors.md (review the diff)

The check fails when
  - a kind in error_kinds.def has no catalog example (except the ones listed in SCRIPTED and
    NO_EXAMPLE), or an example exists for no kind;
  - an example's recorded exit code is not its kind's, or its output does not show the kind;
  - a kind is never raised by the code (no `ErrorKind::ID` in grammar/, interpreter/, cli/):
    such a kind must be removed from error_kinds.def;
  - a scripted example (load.too_large, run.interrupted, merge.part) no longer prints what the catalog says;
  - docs/errors.md differs from what this script generates.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEF = os.path.join(ROOT, "grammar", "error_kinds.def")
CATALOG = os.path.join(ROOT, "tests", "golden", "catalog")
DOC = os.path.join(ROOT, "docs", "errors.md")
SOURCES = ["grammar", "interpreter", "cli"]

# Kinds whose example cannot be a checked-in file: made by this script at check time.
SCRIPTED = {
    "load.too_large": (
        "A file larger than 16 MiB (mls files are written by hand; generated data belongs in several files).",
        "a file `big.mls` of 16 MiB + 1 bytes",
    ),
    "run.interrupted": (
        "Ctrl-C (SIGINT) during `mls run`, `diff` or `explain`, or while a REPL input runs: the evaluation "
        "stops at the next poll (every few thousand steps, every sweep point) and is reported at the "
        "statement it stopped. `--out` files keep their old contents; a REPL session keeps its state.",
        "`slow.mls` (a sweep of 1,000,000 points of `x + fib(20)`, "
        "`let fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)`), interrupted after one second",
    ),
    "limit.memory": (
        "The input needs more memory than mls may use (4 GiB of heap unless `MLS_MAX_MEMORY` says otherwise) "
        "or than the machine allows (an allocation failed, as under `ulimit -v`): reported as a limit of the "
        "input, never as an internal error, and never left to the kernel's out-of-memory killer. The example "
        "sets the limit to 256 MiB.",
        "a file `big.mls` holding `let xs = [1, 1, ...]` with 4,000,000 elements, run with `MLS_MAX_MEMORY=256M`",
    ),
    "merge.part": (
        "`mls merge` was given parts that do not make one run: a shard missing or given twice, a part "
        "of another scenario, selection or mls version, a scenario changed since, or a part cut short or "
        "damaged. Nothing is printed; rerun the missing or damaged shard.",
        "`grid.mls` (`sweep g over x in 1..3000 { show x, y = x * 2 }`) run as `--shard 1/3` and `--shard "
        "3/3` (`--format json --out part_K.json`); shard 2 is missing",
    ),
}
SLOW = """let fib(n) = if n < 2 then n else fib(n - 1) + fib(n - 2)
sweep slow over x in 1..1000000 {
  show y = x + fib(20)
}
"""
# Kinds no input should produce.
NO_EXAMPLE = {
    "internal": "A bug in mls: an invariant did not hold. No input should produce it; please report the input. Exit code 70.",
}


def read_kinds():
    kinds = []
    pat = re.compile(r'^X\((\w+), "([\w.]+)", (\d+), "(.*)"\)\s*$')
    with open(DEF, encoding="utf-8") as f:
        for line in f:
            m = pat.match(line)
            if m:
                kinds.append({"id": m.group(1), "code": m.group(2), "exit": int(m.group(3)), "summary": m.group(4)})
    return kinds


def raised_ids():
    text = ""
    for d in SOURCES:
        for root, _, names in os.walk(os.path.join(ROOT, d)):
            for n in names:
                if n.endswith((".cpp", ".hpp")):
                    with open(os.path.join(root, n), encoding="utf-8") as f:
                        text += f.read()
    return set(re.findall(r"ErrorKind::(\w+)", text))


def read_example(code):
    path = os.path.join(CATALOG, code + ".mls")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        source = f.read()
    about, args, body = [], ["run"], []
    for line in source.splitlines(True):
        if not body and line.startswith("# about:"):
            about.append(line[len("# about:"):].strip())
        elif not body and line.startswith("# args:"):
            args = line[len("# args:"):].split()
        else:
            body.append(line)
    with open(os.path.join(CATALOG, code + ".out"), encoding="utf-8") as f:
        out = f.read()
    m = re.match(r"exit: (\d+)\n--- stdout ---\n(.*)--- stderr ---\n(.*)\Z", out, re.S)
    name = code + ".mls"
    argv = [a.replace("$FILE", name) for a in args]
    if "$FILE" not in " ".join(args) and args and args[0] in ("run", "check", "explain"):
        argv.insert(1, name)
    return {"about": " ".join(about), "source": "".join(body), "command": "mls " + " ".join(argv),
            "exit": int(m.group(1)), "stdout": m.group(2), "stderr": m.group(3)}


def run_scripted(mls, code):
    """The output of a scripted example, in a temporary folder (so paths do not vary)."""
    if code == "run.interrupted":
        return run_interrupted(mls)
    if code == "limit.memory":
        return run_out_of_memory(mls)
    if code == "merge.part":
        return run_merge_part(mls)
    assert code == "load.too_large"
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "big.mls"), "wb") as f:
            f.write(b"# padding\n" + b"#" * (16 * 1024 * 1024 - 9))
        p = subprocess.run([mls, "run", "big.mls"], cwd=d, capture_output=True, timeout=120)
    return {"about": SCRIPTED[code][0], "source": None, "input": SCRIPTED[code][1], "command": "mls run big.mls",
            "exit": p.returncode, "stdout": p.stdout.decode(), "stderr": p.stderr.decode()}


def run_out_of_memory(mls):
    """A huge list literal past a 256 MiB memory limit: limit.memory, exit 65. The address space is
    capped at 1 GiB too, which a sanitizer build (no memory limit of its own) cannot start under."""
    import resource
    cap = 1 << 30

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "big.mls"), "w", encoding="utf-8") as f:
            f.write("let xs = [" + ",".join(["1"] * 4000000) + "]\nshow n = len(xs)\n")
        p = subprocess.run([mls, "run", "big.mls"], cwd=d, capture_output=True, timeout=300, preexec_fn=limit,
                           env=dict(os.environ, MLS_MAX_MEMORY="256M"))
    err = p.stderr.decode()
    if "Sanitizer" in err:
        # A sanitizer build cannot start under an address-space cap (its shadow memory alone is
        # larger): the page is not compared; the release build checks this example.
        return {"sanitizer": True}
    return {"about": SCRIPTED["limit.memory"][0], "source": None, "input": SCRIPTED["limit.memory"][1],
            "command": "MLS_MAX_MEMORY=256M mls run big.mls", "exit": p.returncode, "stdout": p.stdout.decode(),
            "stderr": err}
def run_merge_part(mls):
    """Two of three shards' parts merged: the missing one is named, exit 65."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "grid.mls"), "w", encoding="utf-8") as f:
            f.write("sweep g over x in 1..3000 { show x, y = x * 2 }\n")
        for k in (1, 3):
            subprocess.run([mls, "run", "grid.mls", "--shard", "%d/3" % k, "--format", "json", "--out",
                            "part_%d.json" % k], cwd=d, capture_output=True, timeout=120, check=True)
        p = subprocess.run([mls, "merge", "part_1.json", "part_3.json"], cwd=d, capture_output=True, timeout=120)
    return {"about": SCRIPTED["merge.part"][0], "source": None, "input": SCRIPTED["merge.part"][1],
            "command": "mls merge part_1.json part_3.json", "exit": p.returncode, "stdout": p.stdout.decode(),
            "stderr": p.stderr.decode()}


def run_interrupted(mls):
    """SIGINT one second into a long sweep written to --out: the error, exit 130, the old file kept."""
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "slow.mls"), "w", encoding="utf-8") as f:
            f.write(SLOW)
        with open(os.path.join(d, "out.csv"), "w", encoding="utf-8") as f:
            f.write("old\n")
        p = subprocess.Popen([mls, "run", "slow.mls", "--format", "csv", "--out", "out.csv"], cwd=d,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)
        with open(os.path.join(d, "out.csv"), encoding="utf-8") as f:
            kept = f.read()
        left = sorted(os.listdir(d))
    err = err.decode()
    if kept != "old\n" or left != ["out.csv", "slow.mls"]:
        err += "(the --out file was not left as it was: %r, files %r)\n" % (kept, left)
    return {"about": SCRIPTED["run.interrupted"][0], "source": None, "input": SCRIPTED["run.interrupted"][1],
            "command": "mls run slow.mls --format csv --out out.csv    # Ctrl-C after 1 s",
            "exit": p.returncode, "stdout": out.decode(), "stderr": err}


def generate(kinds, examples):
    out = ["# Error catalog", "",
           "<!-- Generated by tests/error_catalog.py from grammar/error_kinds.def and",
           "     tests/golden/catalog/; edit those and run `tests/error_catalog.py build/mls --write`. -->", "",
           "Every diagnostic mls prints has a kind, shown in brackets: `file:line:col: error[dim.mismatch]: ...`.",
           "The kind decides the exit code. Each example below is a golden test in",
           "`tests/golden/catalog/`, so the messages shown are exactly what mls prints.", "",
           "| exit code | meaning |", "|---|---|",
           "| 0 | success |", "| 1 | an `assert` failed |",
           "| 2 | `mls run`: a search found no feasible point (not an error: no diagnostic) |", "| 64 | usage error |",
           "| 65 | input error (syntax, names, units, dimensions, runtime errors, limits) |",
           "| 66 | an input file or import cannot be read |", "| 70 | internal error (a bug in mls) |",
           "| 73 | an output file cannot be written |", "| 130 | interrupted (Ctrl-C) |", "",
           "Several independent errors in one file are all reported, in source order (at most 50,",
           "then a count of the rest); the exit code is that of the first.", "",
           "| kind | exit | summary |", "|---|---|---|"]
    for k in kinds:
        out.append("| [`%s`](#%s) | %d | %s |" % (k["code"], k["code"].replace(".", ""), k["exit"], k["summary"]))
    out.append("")
    for k in kinds:
        out += ["## %s" % k["code"], "", "Exit code %d: %s." % (k["exit"], k["summary"]), ""]
        if k["code"] in NO_EXAMPLE:
            out += [NO_EXAMPLE[k["code"]], ""]
            continue
        ex = examples[k["code"]]
        out += [ex["about"], ""]
        if ex["source"] is not None:
            out += ["`tests/golden/catalog/%s.mls`:" % k["code"], "", "```mls", ex["source"].rstrip("\n"), "```", ""]
        else:
            out += ["Input: %s (made by `tests/error_catalog.py` when it checks this page)." % ex["input"], ""]
        shown = ex["stderr"] if ex["stderr"] else ex["stdout"]
        if ex["stderr"] and ex["exit"] == 1:
            shown = ex["stdout"] + ex["stderr"]
        out += ["```", "$ " + ex["command"], shown.rstrip("\n"), "$ echo $?", str(ex["exit"]), "```", ""]
    return "\n".join(out)


def main():
    mls = os.path.abspath(sys.argv[1])
    write = "--write" in sys.argv
    kinds = read_kinds()
    problems = []
    codes = {k["code"] for k in kinds}
    raised = raised_ids()
    examples = {}
    sanitizer = False
    for k in kinds:
        if k["id"] not in raised:
            problems.append("%s: no `ErrorKind::%s` in %s; remove the kind or raise it" % (k["code"], k["id"], ", ".join(SOURCES)))
        if k["code"] in NO_EXAMPLE:
            continue
        ex = run_scripted(mls, k["code"]) if k["code"] in SCRIPTED else read_example(k["code"])
        if ex is None:
            problems.append("%s: no example tests/golden/catalog/%s.mls" % (k["code"], k["code"]))
            continue
        if ex.get("sanitizer"):
            sanitizer = True
            continue
        examples[k["code"]] = ex
        if ex["exit"] != k["exit"]:
            problems.append("%s: the example exits %d, the kind says %d" % (k["code"], ex["exit"], k["exit"]))
        shows = "[%s]" % k["code"] in ex["stderr"] or (k["code"] == "usage" and ex["stderr"].startswith("mls: ")) or (
            k["code"] == "assert.failed" and "assertion failed" in ex["stdout"])
        if not shows:
            problems.append("%s: the example's output does not show this kind" % k["code"])
    for n in sorted(os.listdir(CATALOG)):
        if n.endswith(".mls") and n[:-4] not in codes:
            problems.append("tests/golden/catalog/%s: no such kind in error_kinds.def" % n)
    if problems:
        print("\n".join(problems))
        return 1
    if sanitizer:
        print("a sanitizer build: every example checked, docs/errors.md not compared (limit.memory cannot run)")
        return 0
    text = generate(kinds, examples) + "\n"
    if write:
        with open(DOC, "w", encoding="utf-8") as f:
            f.write(text)
        print("wrote %s (%d kinds)" % (DOC, len(kinds)))
        return 0
    current = open(DOC, encoding="utf-8").read() if os.path.exists(DOC) else ""
    if current != text:
        import difflib
        print("docs/errors.md is out of date: run tests/error_catalog.py MLS --write")
        sys.stdout.writelines(difflib.unified_diff(current.splitlines(True), text.splitlines(True), "docs/errors.md", "generated"))
        return 1
    print("error catalog: %d kinds, docs/errors.md up to date" % len(kinds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
