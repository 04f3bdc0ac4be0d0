#!/usr/bin/env python3
"""check_readme.py — README.md's "Five minutes with mls" walkthrough, run as a reader would.

Usage: check_readme.py MLS README.md

Each ```mls block of the section is saved under the name its first line gives (`# NAME.mls — ...`)
in a fresh directory; each ```console block's `$ COMMAND` lines run there in order (with `mls` on
PATH being MLS), must exit 0 (or N, when the shown output ends in a line `[exit N]`), and must print the lines shown under them. A line `...` in the shown
output stands for any number of lines; a line ending in `...` matches any line that starts with the
rest. The walkthrough elides what moves when the models are refitted (validation bands), so that
the test fails when a command, a flag or a result a reader is told about changes, not when a band
is refreshed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SECTION = "## Five minutes with mls"


def blocks(readme):
    text = open(readme, encoding="utf-8").read()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    section = text[start:end if end >= 0 else len(text)]
    for m in re.finditer(r"^```(\w+)\n(.*?)^```$", section, re.S | re.M):
        yield m.group(1), m.group(2).splitlines()


def matches(expected, actual):
    """True if `actual` lines match `expected` with `...` wildcards (backtracking on gaps)."""
    def line_ok(e, a):
        if e.endswith("...") and e != "...":
            return a.rstrip().startswith(e[:-3].rstrip())
        return e.rstrip() == a.rstrip()

    memo = {}

    def go(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(expected):
            r = j == len(actual)
        elif expected[i] == "...":
            r = any(go(i + 1, k) for k in range(j, len(actual) + 1))
        else:
            r = j < len(actual) and line_ok(expected[i], actual[j]) and go(i + 1, j + 1)
        memo[(i, j)] = r
        return r

    return go(0, 0)


def commands(lines):
    cmd, out = None, []
    for line in lines:
        if line.startswith("$ "):
            if cmd is not None:
                yield cmd, out
            cmd, out = line[2:], []
        elif cmd is not None:
            out.append(line)
    if cmd is not None:
        yield cmd, out


def main():
    mls, readme = os.path.abspath(sys.argv[1]), sys.argv[2]
    work = tempfile.mkdtemp(prefix="mls-readme-")
    bindir = os.path.join(work, "bin")
    os.mkdir(bindir)
    os.symlink(mls, os.path.join(bindir, "mls"))
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
    env.pop("MLS_HISTORY", None)
    failures, ran, files = [], 0, 0
    try:
        for kind, lines in blocks(readme):
            if kind == "mls":
                m = re.match(r"# (\S+\.mls) ", lines[0]) if lines else None
                if not m:
                    failures.append(f"an mls block does not start with '# NAME.mls — ...': {lines[:1]}")
                    continue
                with open(os.path.join(work, m.group(1)), "w", encoding="utf-8") as f:
                    f.write("\n".join(lines) + "\n")
                files += 1
            elif kind == "console":
                for cmd, expected in commands(lines):
                    ran += 1
                    p = subprocess.run(cmd, shell=True, cwd=work, env=env, capture_output=True, text=True, timeout=120)
                    actual = p.stdout.splitlines()
                    while expected and expected[-1] == "":
                        expected.pop()
                    want = 0
                    if expected and re.fullmatch(r"\[exit \d+\]", expected[-1]):
                        want = int(expected.pop()[6:-1])
                    if p.returncode != want:
                        failures.append(f"$ {cmd}\n  exit {p.returncode}\n{p.stderr}")
                    elif not matches(expected, actual):
                        failures.append(f"$ {cmd}\n  the README shows:\n" + "\n".join("    " + e for e in expected) +
                                        "\n  mls printed:\n" + "\n".join("    " + a for a in actual))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if files == 0 or ran == 0:
        failures.append(f"the walkthrough has {files} scenario blocks and {ran} commands; expected some of each")
    for f in failures:
        print(f"check_readme: {f}", file=sys.stderr)
    if failures:
        print(f"check_readme: {len(failures)} of {ran} commands differ from README.md", file=sys.stderr)
        return 1
    print(f"check_readme: {files} scenarios, {ran} commands as README.md shows them")
    return 0


if __name__ == "__main__":
    sys.exit(main())
