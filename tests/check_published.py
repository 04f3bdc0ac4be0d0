#!/usr/bin/env python3
"""check_published.py — compare published study tables (tests/published/*.tsv) with mls, cell by cell.

Each TSV is one or more blocks: `#` comment lines, a header line of column names, then rows.
Block i is compared with the i-th table named in the TSV's mapping line below. A TSV row is
matched to the table row that agrees on its fewest leading columns that pick out one row
(the key: usually the first column; rows the TSV leaves out are not checked), and every TSV column must be a column of that table. A cell
matches when the JSON value, rounded half-up to the TSV cell's printed decimals, prints the
same (the JSON gives numbers in the column's shown unit, so `_ms` columns are in ms).
Strings and booleans compare as printed (`true`, `sgd`).

usage: check_published.py MLS [NAME.tsv ...]     (default: every TSV in tests/published/)
"""
import decimal
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# TSV file -> (scenario, [table per block], extra `mls run` arguments). One line per TSV.
# e2_local_batch_8.tsv is the right side of
#   mls diff scenarios/published/e2_scale_sweep.mls --use batch=local --set local_batch=8
# checked here as a run with the same switches (the right side of that diff is this run).
CHECKS = {
    "e1_3d_parallelism.tsv": ("scenarios/published/e1_3d_parallelism.mls", ["e1"], []),
    "e2_scale_sweep.tsv": ("scenarios/published/e2_scale_sweep.mls", ["e2"], []),
    "e2_tp_dp_split.tsv": ("scenarios/published/e2_scale_sweep.mls", ["e2"], []),
    "e2_local_batch_8.tsv": ("scenarios/published/e2_scale_sweep.mls", ["e2"], ["--use", "batch=local", "--set", "local_batch=8"]),
    "bubble_check.tsv": ("scenarios/published/bubble_check.mls", ["bubble"], []),
    "o1_reliability.tsv": ("scenarios/published/o1_reliability.mls", ["o1"], []),
    "o1_checkpoint.tsv": ("scenarios/published/o1_checkpoint.mls", ["ckpt_size", "ckpt_writers"], []),
}


def read_blocks(path):
    """[(header, rows)] of a TSV: a header follows comment lines; rows follow the header."""
    blocks, header = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip():
                continue
            if line.startswith("#"):
                header = None
                continue
            cells = line.split("\t")
            if header is None:
                header = cells
                blocks.append((header, []))
            else:
                blocks[-1][1].append(cells)
    return blocks


def shown(value, printed):
    """value as the TSV prints it: same decimals, rounded half-up; strings and bools as text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    places = len(printed.split(".", 1)[1]) if "." in printed else 0
    q = decimal.Decimal(1).scaleb(-places)
    d = decimal.Decimal(repr(float(value))).quantize(q, rounding=decimal.ROUND_HALF_UP)
    return format(d, "f")


def check(mls, tsv):
    name = os.path.basename(tsv)
    if name not in CHECKS:
        return ["%s: no mapping line in CHECKS (scenario, tables, arguments)" % name]
    scenario, tables, extra = CHECKS[name]
    argv = [mls, "run", os.path.join(ROOT, scenario), "--format", "json"] + extra
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return ["%s: `%s` exited %d\n%s" % (name, " ".join(argv), p.returncode, p.stderr)]
    doc = json.loads(p.stdout)
    by_name = {t["name"]: t for t in doc["tables"]}
    blocks = read_blocks(tsv)
    errors, checked = [], 0
    if len(blocks) != len(tables):
        return ["%s: %d blocks but %d tables in its mapping line" % (name, len(blocks), len(tables))]
    for (header, rows), tname in zip(blocks, tables):
        if tname not in by_name:
            errors.append("%s: %s has no table '%s'" % (name, scenario, tname))
            continue
        table = by_name[tname]
        cols = [c["name"] for c in table["columns"]]
        missing = [h for h in header if h not in cols]
        if missing:
            errors.append("%s: table %s has no column(s) %s (it has %s)" % (name, tname, missing, cols))
            continue
        idx = [cols.index(h) for h in header]
        for cells in rows:
            # The key: the fewest leading columns that pick out one table row.
            match = []
            for k in range(1, len(header) + 1):
                match = [r for r in table["rows"] if all(shown(r[idx[i]], cells[i]) == cells[i] for i in range(k))]
                if len(match) <= 1:
                    break
            if len(match) != 1:
                errors.append("%s: table %s has %d rows matching %s" % (name, tname, len(match), "\t".join(cells)))
                continue
            for h, want in zip(header, cells):
                got = shown(match[0][cols.index(h)], want)
                checked += 1
                if got != want:
                    errors.append("%s: table %s, %s = %s: %s is %s, published %s" % (name, tname, header[0], cells[0], h, got, want))
    if not errors:
        print("%s: %d cells match" % (name, checked))
    return errors


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mls = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or sorted(f for f in os.listdir(os.path.join(HERE, "published")) if f.endswith(".tsv"))
    errors = []
    for n in names:
        errors += check(mls, n if os.path.sep in n else os.path.join(HERE, "published", n))
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
