#!/usr/bin/env python3
"""run_golden.py — golden tests: run `mls` on a .mls file and compare with its .out file.

A golden file NAME.mls may start with comment lines that configure the run:
    # args: run --format json --use mtbf_model=gpu_only     (default: run)
    # stdin: text fed to mls (for `repl` goldens; \\n for newlines)
    # file: ../../../scenarios/X.mls    (run that file instead of NAME.mls: a shipped scenario)
NAME.out holds the exit code, stdout and stderr exactly:
    exit: 65
    --- stdout ---
    ...
    --- stderr ---
    ...
The folder names the outcome class and the expected exit code (ok 0, parse_error /
check_error / runtime_error 65, assert_error 1, usage_error 64, diff 0 or 1, explain 0).

usage: run_golden.py MLS FILE.mls [--update]      one file (ctest runs one test per file)
       run_golden.py MLS --all DIR [--update]     every .mls under DIR
"""
import os
import subprocess
import sys

CLASS_EXIT = {"ok": {0}, "parse_error": {65}, "check_error": {65}, "runtime_error": {65},
              "assert_error": {1}, "usage_error": {64}, "diff": {0, 1}, "explain": {0}, "sensitivity": {0}, "validate": {0, 1}, "list": {0, 64, 65}, "repl": {0, 64, 65, 66},
              "limits": {64, 65}, "report": {0}, "plot": {0}, "no_feasible": {2}, "catalog": None, "fuzz_regressions": None, "scenarios": {0}, "published": {0}}


def directives(path):
    args, stdin, target = ["run"], None, None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.startswith("#"):
                break
            body = line[1:].strip()
            if body.startswith("args:"):
                args = body[5:].split()
            elif body.startswith("stdin:"):
                stdin = body[6:].strip().encode().decode("unicode_escape")
            elif body.startswith("file:"):
                target = body[5:].strip()  # run this file (relative to the golden's folder) instead
    return args, stdin, target


def run_one(mls, path):
    folder, name = os.path.split(os.path.abspath(path))
    args, stdin, target = directives(path)
    name = target or name
    argv = [mls] + [a.replace("$FILE", name) for a in args]
    if "$FILE" not in " ".join(args) and args and args[0] in ("run", "check", "explain"):
        argv.insert(2, name)
    env = dict(os.environ, MLS_HISTORY="", NO_COLOR="1", LC_ALL="C.UTF-8")
    p = subprocess.run(argv, cwd=folder, input=(stdin or "").encode(), capture_output=True, env=env, timeout=300)
    out = "exit: %d\n--- stdout ---\n%s--- stderr ---\n%s" % (
        p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))
    return p.returncode, out


def check(mls, path, update):
    rc, actual = run_one(mls, path)
    klass = os.path.basename(os.path.dirname(os.path.abspath(path)))
    expected_codes = CLASS_EXIT.get(klass)
    if expected_codes is not None and rc not in expected_codes:
        print("%s: exit code %d is not allowed in %s/ (expected %s)" % (path, rc, klass, sorted(expected_codes)))
        print(actual)
        return False
    golden = os.path.splitext(path)[0] + ".out"
    if update:
        tmp = golden + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(actual)
        os.replace(tmp, golden)  # atomic: an interrupted update leaves the old golden intact
        return True
    if not os.path.exists(golden):
        print("%s: missing %s (run with --update after reviewing the output)" % (path, golden))
        print(actual)
        return False
    with open(golden, encoding="utf-8") as f:
        expected = f.read()
    if expected != actual:
        import difflib
        print("%s: output differs from %s" % (path, golden))
        sys.stdout.writelines(difflib.unified_diff(expected.splitlines(True), actual.splitlines(True), "expected", "actual"))
        return False
    return True


def main():
    argv = sys.argv[1:]
    update = "--update" in argv
    argv = [a for a in argv if a != "--update"]
    mls = os.path.abspath(argv[0])
    if argv[1] == "--all":
        files = []
        for root, _, names in os.walk(argv[2]):
            files += [os.path.join(root, n) for n in sorted(names) if n.endswith(".mls")]
    else:
        files = argv[1:]
    ok = all([check(mls, f, update) for f in sorted(files)])
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
