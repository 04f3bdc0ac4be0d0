"""The answers besides a run: explain, sensitivity, diff, validate and the catalogue, each the
data the command line's JSON gives (``data``), its text (``str()``) and its picture in a notebook
(the report layer's tornado chart and diff view)."""

import builtins
import json

from . import _display
from ._model import _pandas


class Explanation:
    """`mls explain`: the formula chain behind one result. ``data`` holds name, value, unit,
    what, formula, at, steps (nested: text, value, at, steps) and assumptions."""

    def __init__(self, data):
        self.data = data
        self.name, self.value, self.unit = data["name"], data["value"], data["unit"]
        self.steps, self.assumptions = data["steps"], data["assumptions"]

    def __str__(self):
        return self.data["text"]

    def __repr__(self):
        return "<Explanation %s = %s>" % (self.name, self.value)

    def _repr_html_(self):
        return _display.wrap("<pre>%s</pre>" % _display.esc(self.data["text"]))


class Sensitivity:
    """`mls sensitivity`: every assumption of one result ranked by how much it moves it.
    ``data`` is the JSON (docs/sensitivity.md); ``svg`` the report's tornado chart."""

    def __init__(self, json_text, text, svg):
        self.data = json.loads(json_text)
        self._text = text
        self.svg = svg

    @property
    def entries(self):
        return self.data["entries"]

    def to_records(self):
        return [dict(e) for e in self.entries]

    def to_pandas(self):
        return _pandas().DataFrame(self.to_records())

    def __str__(self):
        return self._text

    def __repr__(self):
        return "<Sensitivity %s: %d inputs ranked>" % (self.data.get("result", ""), len(self.entries))

    def _repr_html_(self):
        return _display.wrap(
            "<figure>%s</figure><details><summary>the ranking as text</summary><pre>%s</pre></details>"
            % (self.svg, _display.esc(self._text))
        )


class Diff:
    """`mls diff`: what moved between two runs and why. ``data`` is the diff JSON (docs/diff.md),
    ``differs`` whether anything did; in a notebook, `mls report`'s diff view."""

    def __init__(self, json_text, text, page, differs):
        self.data = json.loads(json_text)
        self._text = text
        self.page = page
        self.differs = differs

    def __bool__(self):
        return self.differs

    def __str__(self):
        return self._text

    def __repr__(self):
        return "<Diff: %s>" % ("differs" if self.differs else "no difference")

    def _repr_html_(self):
        return _display.page_body(self.page)


class _Rows:
    """Rows of a JSON answer as records and DataFrames."""

    _rows_key = "rows"

    def to_records(self):
        return [dict(r) for r in self.data[self._rows_key]]

    def to_pandas(self):
        return _pandas().DataFrame(self.to_records())

    def __len__(self):
        return len(self.data[self._rows_key])

    def _repr_html_(self):
        rows = self.to_records()
        if not rows:
            return _display.wrap("<p>no rows</p>")
        cols = builtins.list(rows[0])
        head = "".join("<th>%s</th>" % _display.esc(c) for c in cols)
        body = "".join(
            "<tr>%s</tr>"
            % "".join(
                '<td class="num">%s</td>' % _display.esc(r[c]) if isinstance(r[c], (int, float)) else "<td>%s</td>" % _display.esc(r[c])
                for c in cols
            )
            for r in rows
        )
        return _display.wrap('<table class="data"><thead><tr>%s</tr></thead><tbody>%s</tbody></table>' % (head, body))


class Validation(_Rows):
    """`mls validate`: every validation case (measured, predicted, error, band, the assumptions
    that move it most) and the summary per family. ``data`` is its JSON."""

    _rows_key = "cases"

    def __init__(self, json_text):
        self.data = json.loads(json_text)
        self.cases = self.data["cases"]
        self.summary = self.data["summary"]

    @property
    def ok(self):
        """Every case within its band."""
        return all(c["within_band"] for c in self.cases)

    def to_records(self):
        return [{k: (v if not isinstance(v, (builtins.list, dict)) else json.dumps(v)) for k, v in c.items()} for c in self.cases]

    def __repr__(self):
        outside = sum(1 for c in self.cases if not c["within_band"])
        return "<Validation: %d cases, %d outside their band>" % (len(self.cases), outside)


class Catalogue(_Rows):
    """`mls list KIND`: one row per registry entry, key fields with their units in the names."""

    def __init__(self, json_text):
        self.data = json.loads(json_text)
        self.kind = self.data["kind"]
        self.rows = self.data["rows"]

    def __repr__(self):
        return "<Catalogue %s: %d rows>" % (self.kind, len(self.rows))
