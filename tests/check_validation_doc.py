#!/usr/bin/env python3
"""check_validation_doc.py — docs/validation.md's results are what `mls validate --cross-validate
--format md` prints at this commit, byte for byte: the block between the BEGIN and END markers of
its "Results" section. ctest docs/validation_results fails when the two drift (a constant refitted,
a case added, a rule changed) and says how to regenerate the block.

usage: check_validation_doc.py MLS DOC [--write]
"""
import os
import subprocess
import sys

BEGIN = "<!-- BEGIN mls validate --cross-validate --format md (tests/check_validation_doc.py --write) -->\n"
END = "<!-- END mls validate --cross-validate --format md -->\n"


def generated(mls):
    r = subprocess.run([mls, "validate", "--cross-validate", "--format", "md"], capture_output=True, text=True)
    # Exit 1: a case is outside its band (listed in the block; docs/validation.md says why).
    if r.returncode not in (0, 1) or r.stderr:
        sys.exit(f"mls validate failed (exit {r.returncode}):\n{r.stderr}")
    return r.stdout


def split(doc):
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(BEGIN) > doc.index(END):
        sys.exit(f"docs/validation.md: expected one block between\n  {BEGIN}  and\n  {END}")
    head, rest = doc.split(BEGIN)
    body, tail = rest.split(END)
    return head, body, tail


def main():
    args = [a for a in sys.argv[1:] if a != "--write"]
    if len(args) != 2:
        sys.exit(__doc__)
    mls, path = args
    with open(path, encoding="utf-8") as f:
        doc = f.read()
    head, body, tail = split(doc)
    fresh = generated(mls)
    if "--write" in sys.argv:
        with open(path + ".tmp", "w", encoding="utf-8") as f:
            f.write(head + BEGIN + fresh + END + tail)
        os.replace(path + ".tmp", path)
        print(f"{path}: results block written ({len(fresh.splitlines())} lines)")
        return
    if body != fresh:
        old, new = body.splitlines(), fresh.splitlines()
        first = next((i for i in range(min(len(old), len(new))) if old[i] != new[i]), min(len(old), len(new)))
        sys.exit(
            f"{path}: the results block is not what `mls validate --cross-validate --format md` prints now\n"
            f"  first difference at block line {first + 1}:\n"
            f"  doc: {old[first] if first < len(old) else '(end)'}\n"
            f"  mls: {new[first] if first < len(new) else '(end)'}\n"
            f"regenerate it (after checking the new numbers and the prose around them):\n"
            f"  python3 tests/check_validation_doc.py build/mls {path} --write"
        )
    print(f"{path}: results block matches ({len(fresh.splitlines())} lines)")


if __name__ == "__main__":
    main()
