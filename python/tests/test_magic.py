"""`%load_ext mls` and the `%%mls` cell magic, in an IPython shell in this process."""

import pytest
from IPython.core.interactiveshell import InteractiveShell

import mls

CELL = "let job = 30 day\nshow job_days = job -> day\nsweep fleet over nodes in [8, 16, 32] {\n  show nodes, mtbf_h = fleet_mtbf(fleet(DGX_H100, nodes, InfiniBand_NDR)) -> h\n}\n"


@pytest.fixture(scope="module")
def ip():
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mls")
    return shell


def test_cell_runs_with_options_and_binds_the_run(ip):
    r = ip.run_cell_magic("mls", "-o fleet_run --use mtbf_model=node_series --set job='60 day'", CELL)
    assert ip.user_ns["fleet_run"] is r and isinstance(r, mls.Run)
    assert r.conventions["mtbf_model"] == "node_series"
    assert r.file == "<cell>" and r.results["job_days"].value == 60
    html = r._repr_html_()
    assert "<svg" in html and "mtbf_h [h]" in html


def test_error_in_a_cell_raises_with_code_and_place(ip):
    with pytest.raises(mls.CheckError) as e:
        ip.run_cell_magic("mls", "", "let a = 8 GB\nshow b = a + 3 s\n")
    assert e.value.code == "dim.mismatch" and e.value.at.startswith("<cell>:2:")


def test_bad_magic_options(ip):
    with pytest.raises(mls.UsageError, match="NAME=VALUE"):
        ip.run_cell_magic("mls", "--use mtbf_model", CELL)


def test_help_lists_every_option_and_runs_nothing(ip, capsys):
    assert ip.run_cell_magic("mls", "--help", "this is not mls\n") is None
    out = capsys.readouterr().out
    assert out.startswith("usage: %%mls")
    for flag in ["--output", "--use", "--set", "--preset", "--uncertainty", "--seed", "--max-points", "--keep-going", "--name"]:
        assert flag in out
    assert "repeatable" in out and "the cell is not run" in out
