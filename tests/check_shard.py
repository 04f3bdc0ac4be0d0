#!/usr/bin/env python3
"""check_shard.py — scale-out: `mls run FILE --shard K/N --format json --out part_K.json` for
K = 1..N, then `mls merge part_*.json --format F` must print exactly the bytes (and exit code)
of one `mls run FILE --format F`, for every format, for a sweep (binary64 and exact), a top-K
search and a Pareto search, top K and Pareto fronts per group (`top K per EXPR`), compiled sweeps
and searches over records (each column's assumptions), with more shards than chunks too. Broken merges must fail with
error[merge.part] (exit 65): a missing part, a part from another run, a truncated part, and
forty damaged parts (fixed seed) must each give that error or, if harmless, the right bytes.
Forged parts (issue 38, items 3 and 12), with the digest at their end recomputed so that only the
value checks can catch them: a row with fewer or more cells than columns, a search point without
its objectives, nan, inf, a boolean or a string in a number column, a point outside the part's
shard, counts that do not fit, each an error[merge.part] (exit 65) that leaves no --out file or
temporary behind; a value changed without recomputing the digest is refused by the digest.

usage: check_shard.py MLS TESTS_DIR
"""
import glob
import os
import random
import re
import subprocess
import sys
import tempfile

FORMATS = ["text", "json", "csv", "md"]


def run(mls, args, cwd):
    return subprocess.run([mls] + args, cwd=cwd, capture_output=True)


def main():
    mls, tests = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    failures = []
    cases = [
        ("sweep.mls", [], 3),
        ("sweep.mls", ["--exact-limit", "100000"], 2),  # exact rationals through the parts
        ("search_top.mls", [], 4),
        ("search_pareto.mls", [], 3),
        ("search_pareto.mls", ["--exact-limit", "0"], 5),
        ("search_pareto.mls", [], 40),  # more shards than chunks: empty parts
        ("search_top_per.mls", [], 3),  # top K per group (issue 36): per-group heaps and fronts
        ("search_top_per.mls", ["--exact-limit", "100000"], 5),
        ("search_top_per_compiled.mls", ["--exact-limit", "0"], 4),
        ("search_top_per_compiled.mls", ["--exact-limit", "0"], 40),
        # compiled sweeps over records: each column's assumptions hold every record's in each part
        ("sweep_records.mls", ["--exact-limit", "0"], 2),
        ("sweep_records.mls", ["--exact-limit", "0"], 3),
    ]
    with tempfile.TemporaryDirectory() as d:
        for name in ["sweep.mls", "search_top.mls", "search_pareto.mls", "search_top_per.mls",
                     "search_top_per_compiled.mls", "sweep_records.mls"]:
            with open(os.path.join(tests, "shard", name), "rb") as src, open(os.path.join(d, name), "wb") as dst:
                dst.write(src.read())
        for name, extra, n in cases:
            label = "%s %s N=%d" % (name, " ".join(extra), n)
            for old in glob.glob(os.path.join(d, "part_*.json")):
                os.remove(old)
            ok = True
            for k in range(1, n + 1):
                p = run(mls, ["run", name, "--shard", "%d/%d" % (k, n), "--format", "json", "--out",
                              "part_%d.json" % k, "--threads", "2"] + extra, d)
                if p.returncode not in (0, 1):
                    failures.append("%s: shard %d failed (%d): %s" % (label, k, p.returncode, p.stderr.decode()))
                    ok = False
            if not ok:
                continue
            parts = sorted(glob.glob(os.path.join(d, "part_*.json")))
            for fmt in FORMATS:
                single = run(mls, ["run", name, "--format", fmt] + extra, d)
                merged = run(mls, ["merge", "--format", fmt] + [os.path.basename(x) for x in parts], d)
                if single.returncode not in (0, 1):
                    failures.append("%s --format %s: the single run failed: %s" % (label, fmt, single.stderr.decode()))
                elif merged.stdout != single.stdout or merged.returncode != single.returncode:
                    failures.append("%s --format %s: merged output differs (exit %d vs %d, %d vs %d bytes)%s" % (
                        label, fmt, merged.returncode, single.returncode, len(merged.stdout), len(single.stdout),
                        ": " + merged.stderr.decode()[:400] if merged.stderr else ""))
        # Broken merges are errors, never wrong output.
        for old in glob.glob(os.path.join(d, "part_*.json")):
            os.remove(old)
        for k in (1, 2, 3):
            run(mls, ["run", "search_top.mls", "--shard", "%d/3" % k, "--format", "json", "--out", "part_%d.json" % k], d)
        run(mls, ["run", "search_top.mls", "--shard", "2/3", "--format", "json", "--out", "other_2.json",
                  "--exact-limit", "0"], d)
        with open(os.path.join(d, "part_3.json"), "rb") as f:
            whole = f.read()
        with open(os.path.join(d, "cut_3.json"), "wb") as f:
            f.write(whole[: len(whole) // 2])
        broken = {
            "a missing part": ["part_1.json", "part_3.json"],
            "a part given twice": ["part_1.json", "part_1.json", "part_3.json"],
            "a part from another run": ["part_1.json", "other_2.json", "part_3.json"],
            "a truncated part": ["part_1.json", "part_2.json", "cut_3.json"],
            "a file that is not a part": ["part_1.json", "part_2.json", "search_top.mls"],
        }
        for what, files in broken.items():
            p = run(mls, ["merge"] + files, d)
            err = p.stderr.decode()
            if p.returncode != 65 or "error[merge.part]" not in err or p.stdout:
                failures.append("merge with %s: expected error[merge.part] and exit 65, got exit %d: %s" % (
                    what, p.returncode, err[:300]))
        # Damaged parts (cut short, a byte changed; fixed seed): an error or, when the damage
        # is harmless (a digit of whitespace), the right output; never a crash or wrong bytes.
        rng = random.Random(14)
        want = run(mls, ["run", "search_top.mls"], d).stdout
        with open(os.path.join(d, "part_2.json"), "rb") as f:
            good = f.read()
        for i in range(40):
            bad = bytearray(good)
            if i % 2:
                del bad[rng.randrange(len(bad)):]
            else:
                bad[rng.randrange(len(bad))] = rng.choice(b'{}[],:"0123456789 x\\@')
            with open(os.path.join(d, "mut_2.json"), "wb") as f:
                f.write(bad)
            p = run(mls, ["merge", "part_1.json", "mut_2.json", "part_3.json"], d)
            if not (p.returncode == 65 and b"error[" in p.stderr) and not (p.returncode == 0 and p.stdout == want):
                failures.append("merge of a damaged part (mutation %d): exit %d, stderr %s" % (
                    i, p.returncode, p.stderr.decode()[:300]))
        forged_parts(mls, d, failures)
        p = run(mls, ["run", "search_top.mls", "--shard", "1/3"], d)
        if p.returncode != 64:
            failures.append("--shard without --format json must be a usage error, got exit %d" % p.returncode)
    for f in failures:
        print("FAIL:", f)
    if failures:
        return 1
    print("shard/merge: %d cases x %d formats equal to one run; broken merges rejected" % (len(cases), len(FORMATS)))
    return 0


def fnv1a(data):
    h = 1469598103934665603
    for c in data:
        h = ((h ^ c) * 1099511628211) & 0xFFFFFFFFFFFFFFFF
    return h


def redigest(data):
    """The part with its digest recomputed (a forger's part); unchanged if it has none."""
    m = re.search(rb',\n "digest": "[0-9a-f]{16}"\}\n$', data)
    if not m:
        return data
    body = data[:m.start()]
    return body + b',\n "digest": "%016x"}\n' % fnv1a(body)


def forged_parts(mls, d, failures):
    for old in glob.glob(os.path.join(d, "part_*.json")):
        os.remove(old)
    for k in (1, 2):
        run(mls, ["run", "sweep.mls", "--shard", "%d/2" % k, "--format", "json", "--out", "sweep_%d.json" % k], d)
        run(mls, ["run", "search_top.mls", "--shard", "%d/2" % k, "--format", "json", "--out", "top_%d.json" % k], d)
    sweep2 = open(os.path.join(d, "sweep_2.json"), "rb").read()
    top2 = open(os.path.join(d, "top_2.json"), "rb").read()
    half = b'"q:0.5:1/2@0"'  # the second cell of the first point of sweep `small` (tp = 1, half = 0.5)
    first_point = re.search(rb'\n    \[\d+, true, \[.*\], \[.*\]\]', top2).group(0)
    objectives = re.search(rb'\], (\[[^\]]*\])\]$', first_point).group(1)
    forged = {
        "a row with fewer cells than columns": ("sweep", sweep2.replace(b'"q:1:1/1@0", ' + half, b'"q:1:1/1@0"', 1)),
        "a row with an extra cell": ("sweep", sweep2.replace(half, half + b', "d:7@0"', 1)),
        "nan in a number column": ("sweep", sweep2.replace(half, b'"d:nan@0"', 1)),
        "inf in a number column": ("sweep", sweep2.replace(half, b'"d:inf@0"', 1)),
        "a boolean in a number column": ("sweep", sweep2.replace(half, b'"b:1@0"', 1)),
        "a string in a number column": ("sweep", sweep2.replace(half, b'"s:0.5@0"', 1)),
        "a point outside the part's shard": ("sweep", sweep2.replace(b'\n    [0, true, ["q:1:1/1@0"',
                                                                      b'\n    [9, true, ["q:1:1/1@0"', 1)),
        "counts that do not fit the points": ("sweep", sweep2.replace(b'"evaluated": 4,', b'"evaluated": 5,', 1)),
        "a search point whose objectives are []": ("top", top2.replace(
            first_point, first_point[:-len(objectives) - 1] + b"[]]", 1)),
        "a search point with a string objective": ("top", top2.replace(
            first_point, first_point[:-len(objectives) - 1] + b'["s:x@0"]]', 1)),
    }
    for what, (kind, data) in forged.items():
        if data in (sweep2, top2):
            failures.append("forged part (%s): the mutation did not apply" % what)
            continue
        cases = [("redigested", redigest(data))]
        if what == "nan in a number column":
            cases.append(("with its old digest", data))  # a hand edit: the digest catches it
        for how, part in cases:
            with open(os.path.join(d, "forged_2.json"), "wb") as f:
                f.write(part)
            first = "sweep_1.json" if kind == "sweep" else "top_1.json"
            for out in ([], ["--out", "merged.txt"]):
                p = run(mls, ["merge", first, "forged_2.json"] + out, d)
                err = p.stderr.decode(errors="replace")
                left = [n for n in os.listdir(d) if ".tmp" in n or n == "merged.txt"]
                if p.returncode != 65 or "error[merge.part]" not in err or left:
                    failures.append("merge of a forged part (%s, %s%s): expected error[merge.part], exit 65 and no "
                                    "file left, got exit %d, left %s: %s" % (
                                        what, how, " --out" if out else "", p.returncode, left, err[:300]))
                for n in left:
                    os.remove(os.path.join(d, n))


if __name__ == "__main__":
    sys.exit(main())
