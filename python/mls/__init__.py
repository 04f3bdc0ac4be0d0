"""mls — machine-learning-systems arithmetic with visible conventions, from Python.

The language is the model, Python the glue: every function here runs mls through the same facade
as the command line (no second evaluator), and gives back the data its JSON carries, as objects
that show themselves in a notebook the way `mls report` draws them.

    import mls
    r = mls.run("scenarios/thousand_gpus.mls")
    r.results["node_mtbf"]                   # Quantity: value, unit, text, assumptions, band
    r.tables["scale"].to_pandas()            # units and assumptions in df.attrs
    mls.diff("scenarios/thousand_gpus.mls", use={"mtbf_model": "node_series"})
    mls.sensitivity("scenarios/thousand_gpus.mls", "scale.tokens_per_s[gpus=1024]")

In Jupyter: ``%load_ext mls``, then a cell that starts with ``%%mls`` is an mls scenario.

Errors raise mls.Error subclasses with the diagnostic's code, message, file/line/col and
suggestions. mls evaluates with the GIL released, so threads run in parallel; a Ctrl-C
(KeyboardInterrupt) stops every mls evaluation in progress in the process, as the command line's
Ctrl-C stops its run (python/README.md).
"""

import builtins as _builtins
import os as _os

from . import _mls
from ._answers import Catalogue, Diff, Explanation, Sensitivity, Validation
from ._errors import (
    CheckError,
    Error,
    EvaluationError,
    InternalError,
    LimitError,
    LoadError,
    ParseError,
    UsageError,
)
from ._model import Assert, Assumption, Column, Quantity, Run, Table
from ._session import Outcome, Session

__version__ = _mls.version

__all__ = [
    "run", "diff", "explain", "sensitivity", "validate", "list", "conventions", "presets", "interrupt",
    "Session", "Run", "Quantity", "Table", "Column", "Assumption", "Assert", "Outcome",
    "Explanation", "Sensitivity", "Diff", "Validation", "Catalogue",
    "Error", "ParseError", "LoadError", "CheckError", "EvaluationError", "LimitError", "UsageError", "InternalError",
]  # fmt: skip


def _scenario(path_or_source, name=None):
    """(name, text): a file to read (text None), or source text under ``name``. A str is a path
    when it names an existing file or, on one line, ends in .mls; otherwise it is mls source."""
    if isinstance(path_or_source, _os.PathLike):
        return _os.fspath(path_or_source), None
    if not isinstance(path_or_source, str):
        raise TypeError("expected a path or mls source text, got %s" % type(path_or_source).__name__)
    s = path_or_source
    one_line = "\n" not in s
    if one_line and (s.endswith(".mls") or _os.path.isfile(s)):
        return s, None
    return name or "<string>", s


def _count(what, n, default):
    if n is None:
        return default
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UsageError("%s: expected a whole number >= 0, got %r" % (what, n))
    return n


def run(path_or_source, *, use=None, set=None, preset=None, uncertainty=None, seed=None, keep_going=False,
        max_points=None, threads=0, name=None):  # fmt: skip
    """Runs a scenario (a path, or mls source text) and returns a Run.

    ``use``: conventions ({"mtbf_model": "node_series"}, as --use); ``set``: values
    ({"job": "60 day"}, as --set; numbers may be Python numbers); ``preset``: as --preset;
    ``uncertainty``: N Monte Carlo samples (``seed`` S); ``max_points``: the sweep cap
    (--max-points, default 10^6); ``name``: what source text is called in messages.

    Raises mls.Error (a subclass by code) when the scenario does not load, check or configure;
    and when a statement fails at run time, unless ``keep_going``: then the Run lists them in
    ``errors`` (the raised error carries the Run too, as ``run``).
    """
    file, text = _scenario(path_or_source, name)
    h = _mls.run(
        file, text, preset, use, set,
        _count("uncertainty", uncertainty, 0), _count("seed", seed, 1),
        _count("max_points", max_points, 1_000_000), _count("threads", threads, 0),
    )  # fmt: skip
    r = Run(h)
    if r.errors and not keep_going:
        from ._errors import make_error

        err = make_error(r.errors, h.error_text)
        err.run = r
        raise err
    return r


def explain(path_or_source, name, *, use=None, set=None, preset=None):
    """`mls explain FILE NAME`: the formula chain behind one result."""
    return run(path_or_source, use=use, set=set, preset=preset).explain(name)


def sensitivity(path_or_source, name, *, top=None, use=None, set=None, preset=None):
    """`mls sensitivity FILE NAME`: each assumption of one result moved, ranked; the tornado."""
    return run(path_or_source, use=use, set=set, preset=preset).sensitivity(name, top)


def _flags(use, set):
    pairs = lambda o: _builtins.list(o.items()) if hasattr(o, "items") else _builtins.list(o or [])
    return "".join(" --use %s=%s" % kv for kv in pairs(use)) + "".join(" --set %s=%s" % kv for kv in pairs(set))


def diff(left, right=None, *, use=None, set=None, preset=None, presets=None):
    """`mls diff`: what moved between two runs and why, as `mls diff` decides the sides:

    - ``diff(A, B)``: two scenarios (``use``, ``set``, ``preset`` apply to both);
    - ``diff(A, presets=("mls", "mlsysim"))``: one scenario under two presets;
    - ``diff(A, use={...}, set={...})``: the scenario as written against it with the choices.
    """
    lf, lt = _scenario(left, "<left>")
    rf, rt = (lf, lt) if right is None else _scenario(right, "<right>")
    if presets is not None:
        presets = _builtins.list(presets)
        if len(presets) != 2:
            raise UsageError("presets: give two presets to compare")
        lp, rp = presets
    else:
        lp = rp = preset
    right_only = right is None and presets is None
    if right_only and not use and not set:
        raise UsageError("nothing to compare: give use/set for the right side, two presets, or two scenarios")
    luse, lset = (None, None) if right_only else (use, set)
    return Diff(*_mls.diff((lf, lt, lp, luse, lset, lf + _flags(luse, lset)), (rf, rt, rp, use, set, rf + _flags(use, set))))


def validate(*, preset=None, use=None, set=None):
    """`mls validate`: every validation case under the preset and conventions."""
    return Validation(_mls.validate(preset, use, set))


def list(kind, where=None, *, preset=None, use=None, set=None):  # noqa: A001 (mls list)
    """`mls list KIND [--where EXPR]`: the catalogue (accelerators, systems, fabrics, links,
    models, grids); ``where`` is an mls expression of ``it``."""
    return Catalogue(_mls.list(kind, where or "", preset, use, set))


def conventions():
    """`mls conventions`: every convention, its choices and its default."""
    return _mls.listing(False)


def presets():
    """`mls presets`: every preset and its choices."""
    return _mls.listing(True)


def interrupt():
    """Stops every mls evaluation in progress in this process, as Ctrl-C does (for a call on
    another thread while the main thread is not in mls): each raises KeyboardInterrupt."""
    _mls.interrupt()


def load_ipython_extension(ipython):
    """``%load_ext mls``: registers the ``%%mls`` cell magic."""
    from .magic import register

    register(ipython)
