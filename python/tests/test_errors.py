"""Errors raise mls.Error subclasses with the diagnostic's code, message, place and suggestions."""

import pytest

import mls
from conftest import THOUSAND


def test_a_unit_error_has_code_and_place():
    with pytest.raises(mls.CheckError) as e:
        mls.run("let a = 1\nshow x = 80 GB + 3 s\n")
    err = e.value
    assert err.code == "dim.mismatch"
    assert (err.file, err.line, err.col) == ("<string>", 2, 10)
    assert err.at == "<string>:2:10"
    assert "^" in str(err)  # the caret, as the command line draws it
    assert err.diagnostics[0]["code"] == "dim.mismatch"


def test_did_you_mean():
    with pytest.raises(mls.CheckError) as e:
        mls.run("show fleet_mtbff(8)\n")
    assert e.value.code == "name.unknown"
    assert "fleet_mtbf" in e.value.suggestions


def test_parse_and_load_errors():
    with pytest.raises(mls.ParseError) as e:
        mls.run("show (1 +\n")
    assert e.value.code.startswith("parse.")
    with pytest.raises(mls.LoadError) as e:
        mls.run("no/such/file.mls")
    assert e.value.code == "load.missing"


def test_unknown_convention_choice():
    with pytest.raises(mls.CheckError) as e:
        mls.run(THOUSAND, use={"mtbf_model": "node_seris"})
    assert e.value.code == "convention.choice"
    assert "node_series" in e.value.suggestions


def test_runtime_errors_raise_unless_keep_going():
    src = "show a = 1 h\nshow b = 1 / 0\nshow c = 2 h\n"
    with pytest.raises(mls.EvaluationError) as e:
        mls.run(src)
    assert e.value.code == "runtime.div_zero"
    assert e.value.at == "<string>:2:10"
    assert set(e.value.run.results) == {"a", "c"}  # what evaluated
    r = mls.run(src, keep_going=True)
    assert [d["code"] for d in r.errors] == ["runtime.div_zero"] and not r.ok


def test_usage_errors():
    with pytest.raises(mls.UsageError):
        mls.list("acelerators")
    with pytest.raises(ValueError):  # a UsageError is a ValueError too
        mls.run(THOUSAND, uncertainty=-1)
    with pytest.raises(mls.UsageError, match="nothing to compare"):
        mls.diff(THOUSAND)
