"""Session mirrors `mls repl`: answers with assumptions, choices, and inputs as transactions."""

import pytest

import mls

FLEET = "fleet_mtbf(fleet(DGX_H100, 64, InfiniBand_NDR)) -> h"


def test_eval_use_set_and_ans():
    s = mls.Session()
    q = s.eval(FLEET)
    assert isinstance(q, mls.Quantity) and q.unit == "h" and s.ans is q
    assert any(a.kind == "convention" and a.name == "mtbf_model" for a in q.assumptions)
    o = s.use("mtbf_model", "node_series")
    assert o.changes and "node_series" in o.changes[0]
    moved = s.eval(FLEET)
    assert moved.value != q.value
    assert s.eval("ans").value == moved.value
    s.eval("let job = 30 day")
    s.set(job="60 day")
    assert s.eval("job -> day").value == 60


def test_a_failing_input_leaves_the_session_as_it_was():
    s = mls.Session()
    s.eval("let x = 5 h")
    with pytest.raises(mls.CheckError) as e:
        s.eval("let y = 2\nlet x2 = x + 3 GB")
    assert e.value.code == "dim.mismatch" and e.value.line == 3  # the session's lines, as the REPL counts them
    with pytest.raises(mls.CheckError) as e:
        s.eval("y")  # the failed input's `let y` was undone with it
    assert e.value.code == "name.unknown"
    assert s.eval("x -> h").value == 5
    with pytest.raises(mls.CheckError):
        s.use("mtbf_model", "no_such_choice")
    assert "mtbf_model" in s.conventions("mtbf_model")


def test_statements_tables_and_inspectors():
    s = mls.Session(use={"mtbf_model": "gpu_only"})
    o = s.eval("sweep t over g in [8, 16] { show g, m = fleet_mtbf(fleet(DGX_H100, g / 8, InfiniBand_NDR)) -> h }")
    assert isinstance(o, mls.Outcome)
    assert o.tables["t"].to_records()[1]["g"] == 16
    assert "<svg" in o._repr_html_()
    assert "fleet_mtbf" in s.explain("fleet_mtbf(fleet(DGX_H100, 8, InfiniBand_NDR))")
    assert "mtbf_model" in s.assumptions("fleet_mtbf(fleet(DGX_H100, 8, InfiniBand_NDR))")
    assert "gpu_only" in s.diff("fleet_mtbf(fleet(DGX_H100, 8, InfiniBand_NDR))")
