#!/usr/bin/env python3
"""check_format.py CLANG_FORMAT SOURCE_DIR — every C++ file of mls is formatted by .clang-format.

Fails listing the files that `clang-format` would change (fix: run the command it prints).
"""
import pathlib
import subprocess
import sys

DIRS = ["grammar", "interpreter", "cli", "tests", "bench", "python"]


def main() -> int:
    clang_format, root = sys.argv[1], pathlib.Path(sys.argv[2])
    files = sorted(str(p) for d in DIRS for ext in ("*.cpp", "*.hpp") for p in (root / d).rglob(ext))
    if not files:
        print("no C++ files found under", root)
        return 1
    bad = []
    for f in files:
        r = subprocess.run([clang_format, "--dry-run", "--Werror", f], capture_output=True, text=True)
        if r.returncode != 0:
            bad.append(f)
    if bad:
        print("not clang-formatted:\n  " + "\n  ".join(bad))
        print(f"fix: {clang_format} -i " + " ".join(bad))
        return 1
    print(f"{len(files)} files clang-formatted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
