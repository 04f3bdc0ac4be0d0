"""diff, explain, sensitivity, validate, list: the same data as the command line's JSON."""

import json
import os
import subprocess

import mls
from conftest import ROOT, THOUSAND, cli

TOKENS = "scale.tokens_per_s[gpus=1024]"


def test_diff_is_mls_diff():
    d = mls.diff(THOUSAND, use={"mtbf_model": "node_series"})
    assert d.data == json.loads(cli("diff", THOUSAND, "--use", "mtbf_model=node_series", "--format", "json"))
    assert d.differs and bool(d)
    assert str(d).encode() == cli("diff", THOUSAND, "--use", "mtbf_model=node_series")
    page = d._repr_html_()
    assert '<div class="mls-report">' in page and "<svg" in page and "<script" not in page


def test_diff_of_two_presets():
    d = mls.diff(THOUSAND, presets=("mls", "mlsysim"))
    assert d.data == json.loads(cli("diff", THOUSAND, "--preset", "mls", "--preset", "mlsysim", "--format", "json"))


def test_explain(thousand):
    e = thousand.explain("node_mtbf")
    assert e.name == "node_mtbf" and e.unit == "h"
    assert e.steps and e.steps[0]["text"]
    assert str(e).encode() == cli("explain", THOUSAND, "node_mtbf")
    assert mls.explain(THOUSAND, "node_mtbf").data == e.data


def test_sensitivity_and_its_tornado():
    s = mls.sensitivity(THOUSAND, TOKENS, top=5)
    assert s.data == json.loads(cli("sensitivity", THOUSAND, TOKENS, "--top", "5", "--format", "json"))
    assert s.svg.startswith("<svg") and "<svg" in s._repr_html_()
    assert len(s.to_records()) == len(s.entries) > 0


def test_list_with_where():
    c = mls.list("accelerators", where="it.hbm.size > 150 GB")
    assert c.data == json.loads(cli("list", "accelerators", "--where", "it.hbm.size > 150 GB", "--format", "json"))
    assert all(r["hbm_gb"] > 150 for r in c.to_records()) and len(c) > 0


def test_validate():
    # The command line's run alongside the module's (the GIL is released): half the wall time.
    exe = os.environ.get("MLS_EXECUTABLE", os.path.join(ROOT, "build", "mls"))
    p = subprocess.Popen([exe, "validate", "--format", "json"], stdout=subprocess.PIPE, cwd=ROOT)
    v = mls.validate()
    assert v.data == json.loads(p.communicate()[0])
    assert len(v.cases) > 70 and {"family", "set", "median_abs_error"} <= set(v.summary[0])


def test_listings():
    assert mls.conventions().encode() == cli("conventions")
    assert mls.presets().encode() == cli("presets")
