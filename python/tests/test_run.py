"""mls.run: the Run's data is the command line's JSON, read into objects; tables as records and
DataFrames carrying units and assumptions; rich display from the report layer."""

import json
import subprocess
import sys

import pytest

import mls
from conftest import THOUSAND, cli


def test_json_is_the_command_lines_bytes(thousand):
    assert thousand.json.encode() == cli("run", THOUSAND, "--format", "json")


def test_choices_reach_the_run():
    r = mls.run(THOUSAND, use={"mtbf_model": "node_series"}, set={"job": "60 day"}, preset="mls")
    expected = cli("run", THOUSAND, "--format", "json", "--use", "mtbf_model=node_series", "--set", "job=60 day")
    assert r.json.encode() == expected
    assert r.conventions["mtbf_model"] == "node_series"


def test_results(thousand):
    q = thousand.results["node_mtbf"]
    assert q.unit == "h"
    assert q.text.endswith(" h")
    assert float(q) == q.value > 0
    assert all(isinstance(a, mls.Assumption) for a in q.assumptions)
    kinds = {a.kind for a in q.assumptions}
    assert "registry" in kinds or "default" in kinds
    # Every field of the JSON is kept, as a mapping and as attributes.
    a = q.assumptions[0]
    assert dict(a) == thousand.data["results"][0]["assumptions"][0]
    assert a.name == a["name"]


def test_a_validated_result_carries_its_band(thousand):
    mfu = thousand.tables["scale"].assumptions["mfu_pct"]
    assert any(a.kind == "validation" for a in mfu)


def test_table_to_pandas_carries_units_and_assumptions(thousand):
    t = thousand.tables["scale"]
    df = t.to_pandas()
    assert list(df.columns[: len(t.columns)]) == [c.name for c in t.columns]
    assert len(df) == len(t.rows) == 8
    assert df.attrs["units"]["step_s"] == "s"
    assert df.attrs["units"]["tco_musd"] == "MUSD"
    assert any(a["kind"] == "validation" for a in df.attrs["assumptions"]["mfu_pct"])
    assert df.attrs["keys"] == ["gpus"]
    assert df["gpus"].tolist() == [64, 128, 256, 512, 1024, 2048, 4096, 8192]
    # The regime notes: in attrs, and marked on their rows.
    assert df.attrs["notes"] == t.notes
    if t.notes:
        assert df.loc[t.notes[0]["row"], "note"]


def test_to_records_needs_no_pandas(thousand, monkeypatch):
    t = thousand.tables["scale"]
    monkeypatch.setitem(sys.modules, "pandas", None)  # `import pandas` now fails
    recs = t.to_records()
    assert recs[0]["gpus"] == 64 and set(recs[0]) >= {c.name for c in t.columns}
    with pytest.raises(ImportError, match="to_records"):
        t.to_pandas()


def test_source_text_and_search_points():
    src = """
search best over tp in [1, 2, 4, 8], pp in [1, 2, 4] {
  let gpus = tp * pp
  subject to gpus <= 16
  maximize 1 / (tp + pp)
  top 2
  show tp, pp, gpus
}
"""
    r = mls.run(src)
    assert r.file == "<string>"
    t = r.tables["best"]
    assert t.search["evaluated"] == 12 and len(t.rows) == 2
    pts = t.points()  # the feasible ones: tp=8, pp=4 (32 GPUs) breaks the constraint
    assert len(pts) == 11 and all(p["tp"] * p["pp"] <= 16 for p in pts)
    assert all(type(p["tp"]) is int for p in pts)  # typed as the rows' cells, not labels
    assert sum(p["frontier"] for p in pts) == 2
    assert t.to_pandas(points=True)["frontier"].sum() == 2


def test_html_is_the_reports(thousand):
    page = thousand._repr_html_()
    assert '<div class="mls-report">' in page
    assert page.count("<svg") >= 1  # the sweep's chart, from the report layer
    assert "step_s [s]" in page  # headers with units
    assert '<details class="result">' in page  # assumptions folded
    assert "<svg" in thousand.tables["scale"]._repr_html_()
    assert "node_mtbf" in thousand.results["node_mtbf"]._repr_html_()
    assert thousand.tables["scale"].chart_svg().startswith("<svg")
    assert thousand.report_html().startswith("<!DOCTYPE html>")


def test_text_is_what_mls_run_prints(thousand):
    assert str(thousand).encode() == cli("run", THOUSAND)


def test_json_numbers_round_trip(thousand):
    data = json.loads(thousand.json)
    assert thousand.tables["scale"].rows == data["tables"][0]["rows"]


def test_the_mls_command_shim_runs_the_command_line():
    # In the build tree the console script's main (mls/_cli.py) runs build/mls beside the package;
    # installed by pip, mls/bin/mls (ctest python/pip).
    from mls import _cli

    got = subprocess.run([sys.executable, "-m", "mls._cli", "run", THOUSAND], capture_output=True)
    assert got.returncode == 0 and got.stdout == cli("run", THOUSAND)
    bad = subprocess.run([sys.executable, "-m", "mls._cli", "run", "no_such.mls"], capture_output=True)
    assert bad.returncode == subprocess.run([_cli.executable(), "run", "no_such.mls"], capture_output=True).returncode != 0


def test_every_object_shows_itself_in_html(thousand):
    q = thousand.results["node_mtbf"]
    col = thousand.tables["scale"].columns[2]
    parts = [q.assumptions[0], col, mls.run("assert 1 h > 2 h\n", keep_going=True).asserts[0], mls.Session()]
    for o in parts:
        page = o._repr_html_()
        assert page.count('<div class="mls-report">') == 1, type(o).__name__
    assert "[s]" in col._repr_html_() and "failed" in parts[2]._repr_html_()
    with pytest.raises(mls.CheckError) as e:
        mls.run("show x = 1 h + 1 GB\n")
    assert "dim.mismatch" in e.value._repr_html_() and "&lt;string&gt;:1:" in e.value._repr_html_()


def test_search_points_keys_are_typed():
    src = """
let peak = 2 kW
search best over p in [1 kW, peak], tp in [1, 2], acc in [H100, B200], on in [true, false] {
  maximize p / (tp * 1 W)
  top 2
  show p -> kW, tp
}
"""
    pts = mls.run(src).tables["best"].points()
    assert len(pts) == 16
    first = pts[0]
    assert first["p"] == 1 and first["tp"] == 1  # p in its column's unit (kW)
    assert {p["acc"] for p in pts} == {"H100", "B200"}  # a record by its global name
    assert {p["on"] for p in pts} == {True, False}
