#!/usr/bin/env python3
# check_labels.py — every label mls prints for a result is accepted back (issue 36): the shown
# values (a solve's `min NAME` / `max NAME[2]` among them), the table cells a regime note or a
# diff names (`T.C[KEY=VALUE]`, `C[KEY=VALUE]`), and the assumptions and uncertainty drivers
# (`H100.unit_cost`, `llama3_interruptions.gpu`) are each given to `mls explain`, which must
# explain it (exit 0); each result label is given to `mls sensitivity` too. Usage: check_labels.py MLS REPO_ROOT
import json
import os
import re
import subprocess
import sys

MLS, ROOT = sys.argv[1], sys.argv[2]
ENV = dict(os.environ, NO_COLOR="1", LC_ALL="C.UTF-8", MLS_HISTORY="")
# Scenarios and the extra arguments of the diff whose labels are collected too.
CASES = [
    ("scenarios/solve_checkpoint.mls", ["--set", "nodes=256"]),
    ("tests/golden/diff/record_keys.mls", ["--set", "DGX_B200.gpus=4", "--set", "DGX_H100.gpus=4"]),
    ("scenarios/uncertainty_llama3.mls", ["--set", "llama3_interruptions.gpu=300"]),
]
VALUE_KINDS = {"set", "registry", "default"}  # assumptions that name a value (not a convention)


def mls(*args):
    return subprocess.run([MLS, *args], capture_output=True, text=True, env=ENV, timeout=300)


def labels_of(path, diff_args):
    labels = set()
    run = mls("run", path, "--format", "json", "--uncertainty", "50")
    doc = json.loads(run.stdout)
    for r in doc["results"]:
        labels.add(r["name"])
        for d in (r.get("spread") or {}).get("drivers", []):
            labels.add(d["name"])
        for a in r.get("assumptions", []):
            if a["kind"] in VALUE_KINDS:
                labels.add(a["name"])
    for t in doc["tables"]:
        for n in t.get("notes", []):
            labels.add("%s.%s[%s]" % (t["name"], n["column"], n["key"]))
        for col, assumptions in t.get("assumptions", {}).items():
            for a in assumptions:
                if a["kind"] in VALUE_KINDS:
                    labels.add(a["name"])
    # A diff names the cells a change moved: `COLUMN[KEY=VALUE], ...` under "because:".
    diff = mls("diff", path, *diff_args)
    for line in diff.stdout.splitlines():
        m = re.match(r"^    (\S.*\]):$", line)
        if m:
            for cell in re.findall(r"[\w.]+\[[^\]]*\]", m.group(1)):
                labels.add(cell)
    return labels


def main():
    failures, checked, every = [], 0, set()
    for rel, diff_args in CASES:
        path = os.path.join(ROOT, rel)
        labels = labels_of(path, diff_args)
        every |= labels
        for label in sorted(labels):
            checked += 1
            r = mls("explain", path, label)
            if r.returncode != 0:
                failures.append("%s: explain %r: exit %d: %s" % (rel, label, r.returncode, r.stderr.strip()[:300]))
            # sensitivity finds its result as explain does: each result label (not an input's).
            if re.match(r"^(min |max )", label) or "[" in label:
                r = mls("sensitivity", path, label)
                if r.returncode != 0:
                    failures.append("%s: sensitivity %r: exit %d: %s" % (rel, label, r.returncode,
                                                                        r.stderr.strip()[:300]))
    # Each form is collected at least once, or the collection itself is broken.
    forms = {"a solve's answer": r"^(min|max) ", "a table cell": r"^\w+\.\w+\[", "a diff's cell": r"^\w+\[",
             "a record key": r"=DGX_B200", "a parameter's default": r"^train\.", "a field": r"^H100\."}
    for what, pattern in forms.items():
        if not any(re.search(pattern, l) for l in every):
            failures.append("no label of %s was collected" % what)
    for f in failures:
        print(f)
    print("%d labels checked, %d not accepted" % (checked, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
