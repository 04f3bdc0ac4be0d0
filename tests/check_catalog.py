#!/usr/bin/env python3
"""catalog/sources: no registry entry of the catalogue lacks a source.

Static part: in every registry file of stdlib/, each top-level `let NAME = { ... }` record and each
`let NAME = transformer(...)` call names its source, either as a `source` field/argument or as a
`# source:` comment directly above it (the convention of hardware.mls).
Dynamic part (when an mls binary is given): `mls list KIND --format json` prints a non-empty source
for every row, and the catalogue has at least the sizes issue 13 asks for.
Usage: check_catalog.py STDLIB_DIR [MLS]"""
import json
import re
import subprocess
import sys

REGISTRY_FILES = ["hardware.mls", "accelerators.mls", "systems.mls", "models.mls", "model_catalog.mls"]
MINIMUM = {"accelerators": 20, "systems": 10, "fabrics": 8, "links": 8, "models": 25, "grids": 10}


def entries(text):
    """(name, line, body, comment block above) of each top-level record or transformer() let."""
    lines = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        m = re.match(r"let ([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(\{|transformer\()", lines[i])
        if not m:
            i += 1
            continue
        # the body: up to the line where brackets balance
        depth, j, body = 0, i, []
        while j < len(lines):
            body.append(lines[j])
            depth += lines[j].count("{") + lines[j].count("(") + lines[j].count("[")
            depth -= lines[j].count("}") + lines[j].count(")") + lines[j].count("]")
            if depth <= 0:
                break
            j += 1
        k, above = i - 1, []
        while k >= 0 and lines[k].startswith("#"):
            above.append(lines[k])
            k -= 1
        out.append((m.group(1), i + 1, "\n".join(body), "\n".join(reversed(above))))
        i = j + 1
    return out


def main():
    stdlib = sys.argv[1]
    failures = []
    count = 0
    for f in REGISTRY_FILES:
        text = open(f"{stdlib}/{f}", encoding="utf-8").read()
        for name, line, body, above in entries(text):
            count += 1
            has_field = re.search(r'\bsource\s*[:=]\s*"[^"]+"', body) is not None
            has_comment = re.search(r"^# source: \S", above, re.M) is not None
            if not (has_field or has_comment):
                failures.append(f"stdlib/{f}:{line}: registry entry {name} names no source")
    if count < 60:
        failures.append(f"only {count} registry entries found: the parser of this check is broken")
    if len(sys.argv) > 2:
        mls = sys.argv[2]
        for kind, least in MINIMUM.items():
            r = subprocess.run([mls, "list", kind, "--format", "json"], capture_output=True, text=True)
            if r.returncode != 0:
                failures.append(f"mls list {kind}: exit {r.returncode}: {r.stderr.strip()}")
                continue
            rows = json.loads(r.stdout)["rows"]
            if len(rows) < least:
                failures.append(f"mls list {kind}: {len(rows)} rows, issue 13 asks for at least {least}")
            for row in rows:
                if not str(row.get("source", "")).strip():
                    failures.append(f"mls list {kind}: {row.get('id')} has no source")
    for f in failures:
        print(f)
    print(f"{count} registry entries checked, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
