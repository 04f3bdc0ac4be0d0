#!/usr/bin/env python3
"""gather_corpus.py — collect seed inputs for the fuzzer: every scenario, stdlib, golden and
assert file of the repository, one file each, named by content hash (duplicates collapse).

usage: gather_corpus.py OUT_DIR          (then minimise into tests/fuzz/corpus, see docs/fuzzing.md)
"""
import hashlib
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = ["scenarios", "stdlib", "tests/golden", "tests/mls"]
MAX_BYTES = 4096  # the fuzz runs use -max_len=4096


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    count = 0
    for src in SOURCES:
        for root, _, names in os.walk(os.path.join(ROOT, src)):
            for n in sorted(names):
                if not n.endswith(".mls"):
                    continue
                with open(os.path.join(root, n), "rb") as f:
                    data = f.read()[:MAX_BYTES]
                name = hashlib.sha1(data).hexdigest()
                with open(os.path.join(out, name), "wb") as f:
                    f.write(data)
                count += 1
    print("gathered %d files into %s" % (count, out))


if __name__ == "__main__":
    main()
