#!/usr/bin/env python3
"""check_catalog_fields.py — every accelerator and system of the catalogue has every field the
stdlib reads, and no field a formula reads is a silent zero (issue #33, item 5): a 0 is allowed only
where it means the part has none — a field the entry lists in its `none` field, or a rate for a
precision the part lacks (precision_flops, matmul_efficiency: the documented 0 of accelerators.mls).
An unknown figure is a borrowed() one, which every result using it lists as an `approx` assumption.
Then train() and replica() run on every accelerator of `mls list accelerators` and every system.

Which fields the stdlib reads is derived from the stdlib, not listed here: a field path a.b.c of an
entry is read when some stdlib file other than the catalogue's own writes `.a.b.c`, or writes `.a`
(or `.a.b`) not followed by a further field — the whole record handed to a formula (field_or).

usage: check_catalog_fields.py MLS STDLIB_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

CATALOGUE = {"accelerators.mls", "systems.mls", "hardware.mls", "model_catalog.mls", "models.mls"}
NONE_BY_RULE = ("precision_flops.", "matmul_efficiency.")


def stdlib_text(stdlib):
    text = []
    for name in sorted(os.listdir(stdlib)):
        if name.endswith(".mls") and name not in CATALOGUE and not name.startswith("validation"):
            text.append(open(os.path.join(stdlib, name), encoding="utf-8").read())
    return "\n".join(text)


def read_by_stdlib(path, text):
    parts = path.split(".")
    for k in range(len(parts), 0, -1):
        prefix = "." + ".".join(parts[:k])
        if k == len(parts):
            if re.search(re.escape(prefix) + r"(?![A-Za-z0-9_])", text):
                return True
        elif re.search(re.escape(prefix) + r"(?![A-Za-z0-9_.])", text):
            return True
    return False


def run(mls, text, fmt="json"):
    with tempfile.NamedTemporaryFile("w", suffix=".mls", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        p = subprocess.run([mls, "run", path, "--format", fmt, "--assumptions", "all"], capture_output=True,
                           text=True, timeout=600)
    finally:
        os.unlink(path)
    return p


def ids(mls, kind):
    p = subprocess.run([mls, "list", kind, "--format", "json"], capture_output=True, text=True, timeout=120)
    return [r["id"] for r in json.loads(p.stdout)["rows"]]


def main():
    mls, stdlib = sys.argv[1], sys.argv[2]
    text = stdlib_text(stdlib)
    errors = []
    accs, systems = ids(mls, "accelerators"), ids(mls, "systems")
    p = run(mls, "".join("show e_%s = %s\n" % (i, i) for i in accs + systems))
    if p.returncode != 0:
        print(p.stderr)
        return 1
    fields = {}
    for r in json.loads(p.stdout)["results"]:
        name, _, path = r["name"].partition(".")
        fields.setdefault(name[2:], {})[path] = r
    checked = 0
    for entry, fs in fields.items():
        none = fs.get("none", {}).get("value", "") or fs.get("accelerator.none", {}).get("value", "")
        none_fields = [x.split(" ")[0].strip() for x in none.split(";") if x.strip()]
        for path, r in fs.items():
            # A system's accelerator is an entry of its own, checked as such.
            if path.startswith("accelerator.") or not isinstance(r["value"], (int, float)) or \
                    not read_by_stdlib(path, text):
                continue
            checked += 1
            own = path[len("accelerator."):] if path.startswith("accelerator.") else path
            if r["value"] != 0 or own.startswith(NONE_BY_RULE):
                continue
            if any(own == n or own.startswith(n + ".") for n in none_fields):
                continue
            errors.append("%s.%s is 0, which a formula reads: a value, an estimate, borrowed(...) or a `none` entry"
                          % (entry, path))
    if checked < 100:
        errors.append("only %d read fields checked: the derivation of the fields the stdlib reads is broken" % checked)
    # train() and replica() on every accelerator (in a DGX H100-shaped node of its own: its scale-up link, or PCIe) and system.
    lines = []
    for a in accs:
        # A PCIe-only part (no scale-up link) talks to its neighbours over PCIe, as its servers do.
        lines.append("let bw_%s = if %s.nvlink.bw > 0 GB/s then %s.nvlink.bw else %s.pcie.bw" % (a, a, a, a))
        node = "DGX_H100 with { accelerator = %s, intra_node_bw = bw_%s, domain.bw = bw_%s }" % (a, a, a)
        lines.append("let n_%s = %s" % (a, node))
    for i, n in [("acc_" + a, "n_" + a) for a in accs] + [("sys_" + s, s) for s in systems]:
        lines.append("show t_%s = train(Llama3_8B, fleet(%s, 2, InfiniBand_NDR), global_batch = 64, seq_len = 4096).step -> s" % (i, n))
        lines.append("show r_%s = replica(Llama3_8B, %s, tp = 1, max_seq = 2048).gpu_hour -> USD/h" % (i, n))
    p = run(mls, "\n".join(lines) + "\n")
    if p.returncode != 0:
        errors.append("train() or replica() fails on a catalogue entry:\n" + p.stderr[:3000])
    else:
        shown = json.loads(p.stdout)["results"]
        want = 2 * (len(accs) + len(systems))
        bad = [r["name"] for r in shown if not isinstance(r["value"], (int, float)) or not r["value"] > 0]
        if len(shown) != want or bad:
            errors.append("train()/replica(): %d of %d results, non-positive: %s" % (len(shown), want, bad))
    for e in errors:
        print(e)
    print("catalogue fields: %d entries, %d read numeric fields checked; train() and replica() on %d accelerators "
          "and %d systems; %d problem(s)" % (len(fields), checked, len(accs), len(systems), len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
