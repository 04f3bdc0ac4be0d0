#!/usr/bin/env python3
"""check_named_outputs.py — published scenarios emit, in JSON, the results and tables the study names.

The study's serving and data-pipeline experiments (issue 7 item 6) publish no values to compare
with, only names: these scenarios are checked independently against the study by their names.
For each scenario below, `mls run --format json` must exit 0 under its preset and contain every
named result and every named table with its named columns, the table's key column holding
exactly the listed values in order; every named cell must be a finite number, string or bool.

usage: check_named_outputs.py MLS [SCENARIO.mls ...]     (default: every scenario in EXPECTED)
"""
import json
import math
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# scenario -> (preset, [result names], {table: (key column, [key values], [other columns])})
EXPECTED = {
    "scenarios/published/data_wall.mls": (
        "mlsysim",
        ["baseline_step_ms", "baseline_throughput", "demand_gb_s", "bus_utilization_pct", "cpu_transform_ms",
         "gpu_util_pct", "slowdown", "workers_needed"],
        {"batch": ("batch", [16, 32, 64, 128, 256, 512, 1024], ["gpu_ms", "cpu_ms", "binding", "gpu_util_pct"]),
         "workers": ("workers", [8, 16, 32, 64, 128], ["cpu_throughput_gb_s", "gpu_util_pct"])}),
    "scenarios/published/spec_decoding.mls": (
        "mlsysim",
        ["itl_base_ms", "itl_spec_ms", "speedup"],
        {"alpha": ("alpha", [0.5, 0.75, 0.9], ["expected_tokens", "speedup"]),
         "draft": ("draft", ["GPT2", "Llama3_8B", "Llama3_70B"], ["speedup"])}),
    "scenarios/published/inference_scaling.mls": (
        "mlsysim",
        [],
        {"reasoning": ("k", [0, 8, 32], ["total_s", "energy_kj", "ttft_share_pct"])}),
    "scenarios/published/paged_kv.mls": (
        "mlsysim",
        ["kv_per_token_kb", "budget_tokens", "simulated_static_factor", "study_static_factor", "study_speedup_vs_static"],
        {"policy": ("allocator", ["static", "static", "paged", "paged"],
                    ["admission", "start_admitted", "mean_running", "internal_pct", "external_pct", "preemptions"]),
         "page_size": ("page_size", [1, 8, 16, 32, 64, 128, 256],
                       ["start_admitted", "mean_running", "internal_pct", "block_entries", "block_table_b"]),
         "prefix": ("prefix_tokens", [0, 1024, 1024, 1536, 1536], ["shared", "mean_running", "saved_pct"])}),
}


def cell_ok(v):
    return isinstance(v, (str, bool)) or (isinstance(v, (int, float)) and math.isfinite(v))


def check(mls, scenario):
    preset, results, tables = EXPECTED[scenario]
    argv = [mls, "run", os.path.join(ROOT, scenario), "--format", "json"]
    p = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        return ["%s: exit %d\n%s" % (scenario, p.returncode, p.stderr)]
    doc = json.loads(p.stdout)
    errors = []
    if doc.get("preset") != preset:
        errors.append("%s: runs under preset %s, expected %s" % (scenario, doc.get("preset"), preset))
    shown = {r["name"]: r for r in doc["results"]}
    for name in results:
        if name not in shown:
            errors.append("%s: no result named %s" % (scenario, name))
        elif not cell_ok(shown[name]["value"]):
            errors.append("%s: result %s = %r" % (scenario, name, shown[name]["value"]))
    by_name = {t["name"]: t for t in doc["tables"]}
    for name, (key, keys, columns) in tables.items():
        t = by_name.get(name)
        if t is None:
            errors.append("%s: no table named %s" % (scenario, name))
            continue
        cols = [c["name"] for c in t["columns"]]
        missing = [c for c in [key] + columns if c not in cols]
        if missing:
            errors.append("%s: table %s lacks columns %s (has %s)" % (scenario, name, missing, cols))
            continue
        got = [row[cols.index(key)] for row in t["rows"]]
        if got != keys:
            errors.append("%s: table %s column %s is %r, expected %r" % (scenario, name, key, got, keys))
        for row in t["rows"]:
            for c in columns:
                if not cell_ok(row[cols.index(c)]):
                    errors.append("%s: table %s cell %s = %r" % (scenario, name, c, row[cols.index(c)]))
    if not errors:
        print("%s: %d results, tables %s ok" % (scenario, len(results), ", ".join(tables)))
    return errors


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mls = os.path.abspath(sys.argv[1])
    names = sys.argv[2:] or list(EXPECTED)
    errors = []
    for n in names:
        errors += check(mls, n) if n in EXPECTED else ["%s: not in EXPECTED" % n]
    for e in errors:
        print(e)
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()
