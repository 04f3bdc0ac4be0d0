"""Session: `mls repl` as a Python object. Each input is a transaction of the session core: an
input that fails raises mls.Error and leaves the session exactly as it was (its definitions,
choices and ``ans``), as at the REPL's prompt."""

import json

from . import _display, _mls
from ._model import Quantity, Table


def _pairs(what, args, kwargs):
    """(name, value) pairs from ``use("mtbf_model", "gpu_only")``, ``use({"a": "b"})`` or ``use(a="b")``."""
    if len(args) == 2 and isinstance(args[0], str):
        pairs = [tuple(args)]
    elif len(args) == 1 and hasattr(args[0], "items"):
        pairs = list(args[0].items())
    elif not args:
        pairs = []
    else:
        raise TypeError("%s(NAME, VALUE), %s({NAME: VALUE, ...}) or %s(NAME=VALUE, ...)" % (what, what, what))
    return pairs + list(kwargs.items())


class Outcome:
    """What one input did: its shown ``results`` and ``tables``, ``defined`` (its lets and
    sets, with their values), choice ``changes`` and the REPL's ``text`` of it."""

    def __init__(self, d):
        self.data = json.loads(d["json"].decode("utf-8")) if d["json"] else {"results": [], "tables": []}
        self.text = d["text"]
        self.defined = [dict(x) for x in d["defined"]]
        self.changes = list(d["changes"])
        self.message = d["message"]
        self.warnings = list(d["warnings"])
        html, texts = d["result_html"], d["result_texts"]
        self.results = {r["name"]: Quantity(r, texts[i], html[i]) for i, r in enumerate(self.data["results"])}
        self.tables = {t["name"]: Table(t, html=d["table_html"][i]) for i, t in enumerate(self.data["tables"])}
        self.bare = list(d["bare"])

    def __str__(self):
        return self.text

    def __repr__(self):
        return "<Outcome: %s>" % (self.text.strip().splitlines()[0] if self.text.strip() else "nothing shown")

    def _repr_html_(self):
        parts = [q._html for q in self.results.values()] + [t._html for t in self.tables.values()]
        if not parts:
            parts = ["<pre>%s</pre>" % _display.esc(self.text)]
        return _display.wrap("".join(parts))


class Session:
    """An mls session, as `mls repl [FILE...]` keeps one: ``files`` load their definitions and
    choices (their statements are not run); ``use``/``set``/``preset`` are its first choices.

    >>> s = mls.Session()
    >>> s.eval("fleet_mtbf(fleet(DGX_H100, 64, InfiniBand_NDR)) -> h")
    >>> s.use("mtbf_model", "node_series"); s.eval("ans")

    ``eval`` returns the Quantity of a bare expression (also kept as ``ans``, in the session and
    here), else the input's Outcome. Every method raises mls.Error on failure, undoing the input.
    """

    def __init__(self, *files, use=None, set=None, preset=None):
        self._h = _mls.SessionHandle([str(f) for f in files], preset, use, set)
        self.ans = None

    def _outcome(self, d):
        o = Outcome(d)
        bare = [q for q, b in zip(o.results.values(), o.bare) if b]
        if len(o.results) == 1 and len(bare) == 1 and not o.tables:
            self.ans = bare[0]
            return bare[0]
        if bare:
            self.ans = bare[-1]
        return o

    def eval(self, text):
        """One input: an expression, or statements (``let``, ``set``, ``use``, ``show``,
        ``sweep``, ``assert``, definitions)."""
        return self._outcome(self._h.submit(text))

    def use(self, *args, **kwargs):
        """Switch conventions: ``use("mtbf_model", "gpu_only")`` or ``use(mtbf_model="gpu_only")``."""
        return self.eval("".join("use %s = %s\n" % (n, c) for n, c in _pairs("use", args, kwargs)))

    def set(self, *args, **kwargs):
        """Override values: ``set("H100.peak", "900 TFLOP/s")`` or ``set({"job": "30 day"})``."""
        return self.eval("".join("set %s = %s\n" % (n, v) for n, v in _pairs("set", args, kwargs)))

    def preset(self, name):
        return self.eval("preset %s\n" % name)

    def load(self, path):
        """`:load FILE`: its definitions and choices join the session."""
        return Outcome(self._h.load(str(path)))

    def reset(self):
        """`:reset`: forget every input; the prelude and loaded files are read again."""
        self.ans = None
        return Outcome(self._h.reset())

    def explain(self, expr):
        """`:explain EXPR`: the formula chain, as text."""
        return self._h.explain(expr)

    def assumptions(self, expr):
        """`:assumptions EXPR`: every assumption the value depends on, with file:line."""
        return self._h.assumptions(expr)

    def diff(self, expr):
        """`:diff EXPR`: the value under the default choices and under the session's."""
        return self._h.diff(expr)

    def conventions(self, *names):
        """`:conventions [NAME...]`: each convention's choices, the current one and who chose it."""
        return self._h.conventions(list(names))

    def _repr_html_(self):
        # The session's state as `:conventions` lists it, and its last answer.
        last = _display.quantity(self.ans) if self.ans is not None else ""
        return _display.wrap(last + "<pre>%s</pre>" % _display.esc(self.conventions()))
