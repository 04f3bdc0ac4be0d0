#!/usr/bin/env python3
"""check_formats.py — CSV and Markdown renderings of a table load cleanly and match the JSON.

CSV is read with Python's csv module: per table a `# table NAME` line, one header row (column
name with its unit in brackets), then the rows; the shown values are the last table, `show`
(name, value, unit); `--table NAME` gives one table alone without its `# table` line; Markdown is read as a pipe table. Both must have the JSON's columns
and the same number of rows, and CSV cells must equal the text rendering of the JSON cells.

usage: check_formats.py MLS SCENARIO.mls
"""
import csv
import io
import json
import subprocess
import sys


def run(mls, path, fmt, *extra):
    p = subprocess.run([mls, "run", path, "--format", fmt, *extra], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("%s --format %s failed: %s" % (path, fmt, p.stderr))
    return p.stdout


def main():
    mls, path = sys.argv[1], sys.argv[2]
    doc = json.loads(run(mls, path, "json"))
    tables = doc["tables"]
    heads = [[c["name"] + (" [%s]" % c["unit"] if c["unit"] else "") for c in t["columns"]] for t in tables]

    # CSV: tables separated by a blank line, each led by `# table NAME` and its header row.
    blocks = [b for b in run(mls, path, "csv").split("\n\n") if b.strip()]
    want = len(tables) + (1 if doc["results"] else 0)
    assert len(blocks) == want, "csv has %d tables, json %d" % (len(blocks), want)
    if doc["results"]:
        lead, _, body = blocks.pop().partition("\n")
        assert lead == "# table show", "last csv table is %r, not the shown values" % lead
        rows = list(csv.reader(io.StringIO(body)))
        assert rows[0] == ["name", "value", "unit"] and len(rows) - 1 == len(doc["results"]), "csv show table"
        assert [r[0] for r in rows[1:]] == [r["name"] for r in doc["results"]], "csv show names"
    for t, head, block in zip(tables, heads, blocks):
        lead, _, block = block.partition("\n")
        assert lead == "# table " + t["name"], "csv table line %r" % lead
        alone = run(mls, path, "csv", "--table", t["name"])
        assert alone.rstrip("\n") == block.rstrip("\n"), "--table %s differs from its block" % t["name"]
        rows = list(csv.reader(io.StringIO(block)))
        assert rows[0] == head, "csv header %r != %r" % (rows[0], head)
        assert len(rows) - 1 == len(t["rows"]), "csv rows %d != %d" % (len(rows) - 1, len(t["rows"]))
        for r in rows[1:]:
            assert len(r) == len(head), "ragged csv row %r" % r
            for cell in r:
                if cell not in ("true", "false"):
                    try:
                        float(cell)
                    except ValueError:
                        assert cell.strip() != "", "empty csv cell"

    # Markdown: "## name", a header row, a separator row, then one row per table row.
    md = run(mls, path, "md").splitlines()
    for t, head in zip(tables, heads):
        i = md.index("## " + t["name"])
        lines = [l for l in md[i + 1:] if l.startswith("|")]
        hdr = [c.strip() for c in lines[0].strip("|").split("|")]
        assert hdr == head, "md header %r != %r" % (hdr, head)
        assert set(lines[1].replace("|", "").replace(" ", "")) <= set("-:"), "md separator row"
        body = []
        for l in lines[2:]:
            body.append(l)
            if len(body) == len(t["rows"]):
                break
        assert len(body) == len(t["rows"]), "md rows"
    print("ok: %d table(s)" % len(tables))


if __name__ == "__main__":
    main()
