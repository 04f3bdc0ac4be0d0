#!/usr/bin/env python3
"""check_docs.py — the repository documents itself: stdlib/README.md lists every stdlib file, and
no document, stdlib file or scenario points at a file the repository does not hold (relative
Markdown links, and `reference/...` / `docs/...` paths written in prose or comments).

usage: check_docs.py ROOT      exit 1 listing each problem as file:line: what
"""
import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(__file__)))
SKIP_DIRS = {"build", "build-asan", "build-fuzz", ".git", "corpus"}
problems = []


def files(exts):
    for dirpath, dirnames, names in os.walk(ROOT):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith("build")]
        for n in names:
            if n.endswith(exts):
                yield os.path.join(dirpath, n)


# 1. Every stdlib file has a row in stdlib/README.md.
readme = open(os.path.join(ROOT, "stdlib", "README.md"), encoding="utf-8").read()
for n in sorted(os.listdir(os.path.join(ROOT, "stdlib"))):
    if n.endswith(".mls") and "`" + n + "`" not in readme:
        problems.append("stdlib/README.md: stdlib/%s is not described (add a row to its table)" % n)

# 2. Links and paths point at files that exist.
LINK = re.compile(r"\]\(([^)#\s]+)(#[^)]*)?\)")
# `reference/...` is the old, external study specification; docs/models.md replaced it. (Paths such
# as NeMo's docs/source/... name files of other repositories, with the repository named beside.)
PATH = re.compile(r"(?<![\w/.-])(reference/[\w./-]+\.(?:md|mls|tsv))")
for path in files((".md", ".mls")):
    rel = os.path.relpath(path, ROOT)
    with open(path, encoding="utf-8", errors="replace") as f:
        for lineno, line in enumerate(f, 1):
            for m in LINK.finditer(line):
                target = m.group(1)
                if "://" in target or target.startswith("mailto:"):
                    continue
                if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(path), target))):
                    problems.append("%s:%d: link to %s, which is not in the repository" % (rel, lineno, target))
            for m in PATH.finditer(line):
                target = m.group(1).rstrip(".")
                if not (os.path.exists(os.path.join(ROOT, target)) or
                        os.path.exists(os.path.join(os.path.dirname(path), target))):
                    problems.append("%s:%d: cites %s, which is not in the repository (docs/models.md is the "
                                    "model reference)" % (rel, lineno, target))

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
