"""What a run gives Python: the JSON `mls run --format json` prints (README "JSON output
contract"), read into objects, with the report layer's HTML and charts for rich display.

Every field of the JSON is kept: an Assumption is a read-only mapping of all its fields (``kind``,
``name``, ``value``, ``at``, ``via`` and any field a later mls adds, such as a validation band's),
and ``Run.data`` is the whole document.
"""

import builtins
import json
from collections.abc import Mapping

from . import _display


def _pandas():
    try:
        import pandas
    except ImportError as e:  # the module works without pandas; only DataFrames need it
        import sys

        raise ImportError(
            "to_pandas() needs pandas, which is not installed for this Python (%s); Debian's "
            "python3-pandas is for /usr/bin/python3 (cmake/setup.sh installs it); "
            "to_records() needs nothing" % sys.executable
        ) from e
    return pandas


class Assumption(Mapping):
    """One assumption a value depends on: every field of its JSON object, as keys and attributes."""

    __slots__ = ("_d",)

    def __init__(self, fields):
        object.__setattr__(self, "_d", dict(fields))

    def __getitem__(self, key):
        return self._d[key]

    def __iter__(self):
        return iter(self._d)

    def __len__(self):
        return len(self._d)

    def __getattr__(self, key):
        try:
            return self._d[key]
        except KeyError:
            raise AttributeError(key) from None

    def __setattr__(self, key, value):
        raise AttributeError("an Assumption is read-only")

    def __repr__(self):
        return "Assumption(%s)" % ", ".join("%s=%r" % kv for kv in self._d.items())

    def __str__(self):
        at = " (%s)" % self._d["at"] if self._d.get("at") else ""
        return "%s %s = %s%s" % (self.get("kind", ""), self.get("name", ""), self.get("value", ""), at)

    def _repr_html_(self):
        return _display.wrap(_display.assumptions([self]))


def _assumptions(items):
    return [Assumption(a) for a in items]


class Quantity:
    """A shown value: ``value`` in ``unit`` (a number, bool or string), its display ``text``,
    the ``assumptions`` it depends on, its validation ``band`` (None unless a validated model
    computed it) and, under ``uncertainty=N``, its P10/P50/P90 (``uncertainty``)."""

    def __init__(self, data, text, html=None):
        self.data = data
        self.name = data["name"]
        self.value = data["value"]
        self.unit = data["unit"]
        self.text = text
        self.assumptions = _assumptions(data.get("assumptions", []))
        self.uncertainty = data.get("uncertainty")
        self.note = data.get("note", "")
        self._html = html

    @property
    def band(self):
        """The validation assumption (the model's measured error against published runs), or None."""
        bands = [a for a in self.assumptions if a.get("kind") == "validation"]
        return bands[0] if bands else None

    def __float__(self):
        return float(self.value)

    def __repr__(self):
        return "<Quantity %s = %s>" % (self.name, self.text)

    def __str__(self):
        return "%s = %s" % (self.name, self.text)

    def _repr_html_(self):
        return _display.wrap(self._html() if callable(self._html) else self._html or _display.quantity(self))


class Column:
    """A table column: its name, its unit ("" dimensionless) and the assumptions of its cells."""

    def __init__(self, name, unit, assumptions):
        self.name, self.unit, self.assumptions = name, unit, _assumptions(assumptions)

    def __repr__(self):
        return "<Column %s%s>" % (self.name, " [%s]" % self.unit if self.unit else "")

    def _repr_html_(self):
        head = "<p><code>%s</code>%s</p>" % (_display.esc(self.name), " [%s]" % _display.esc(self.unit) if self.unit else "")
        return _display.wrap(head + _display.assumptions(self.assumptions))


class Table:
    """A sweep or search table: ``columns`` with units, ``rows`` of cells in those units, the
    sweep variables (``keys``), regime ``notes`` (where a column changes meaning), and for a
    search its objective and counts (``search``) and the points it evaluated (``points()``)."""

    def __init__(self, data, extra=None, handle=None, html=None):
        self.data = data
        self.name = data["name"]
        assumptions = data.get("assumptions", {})
        self.columns = [Column(c["name"], c["unit"], assumptions.get(c["name"], [])) for c in data["columns"]]
        self.rows = data["rows"]
        self.notes = data.get("notes", [])
        self.search = data.get("search")
        self.engine = data.get("engine", "")
        self.stopped = data.get("stopped")
        self._extra = extra
        self._handle = handle
        self._html = html

    @property
    def keys(self):
        """The sweep variables' names (those shown are also columns)."""
        return builtins.list(self._extra["keys"]) if self._extra else []

    @property
    def units(self):
        return {c.name: c.unit for c in self.columns}

    @property
    def assumptions(self):
        return {c.name: c.assumptions for c in self.columns}

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, column):
        """The cells of one column, as a list."""
        names = [c.name for c in self.columns]
        if column not in names:
            raise KeyError("%s (columns: %s)" % (column, ", ".join(names)))
        i = names.index(column)
        return [r[i] for r in self.rows]

    def _row_notes(self):
        notes = {}
        for n in self.notes:
            notes.setdefault(n["row"], []).append("%s: %s" % (n["column"], n["text"]))
        return {row: "; ".join(texts) for row, texts in notes.items()}

    def _note_column(self):
        names = {c.name for c in self.columns}
        return "note" if "note" not in names else "mls_note"

    def to_records(self):
        """The rows as dicts (column -> cell), with the row's regime notes under "note" when the
        table has any. Needs nothing beyond Python."""
        names = [c.name for c in self.columns]
        notes = self._row_notes()
        key = self._note_column()
        out = []
        for i, row in enumerate(self.rows):
            rec = dict(zip(names, row))
            if self.notes:
                rec[key] = notes.get(i, "")
            out.append(rec)
        return out

    def points(self):
        """A search's evaluated points (as `mls report` draws them): the sweep variables, each
        objective in its unit, and ``frontier``: whether the point is one of the table's rows
        (the Pareto front, or the best K). A sweep variable's value is typed as the rows' cells
        are: a number in the unit of the column that shows it (base units when none does), a
        bool, a string, or a record's global name. [] for a sweep."""
        if not self._extra or not self._extra["search"]:
            return []
        names = self._extra["objective_names"]
        out = []
        for p in self._extra["points"]:
            rec = dict(zip(self.keys, p["key"]))
            rec.update(zip(names, p["objectives"]))
            rec["frontier"] = p["frontier"]
            out.append(rec)
        return out

    def _attrs(self):
        return {
            "name": self.name,
            "units": self.units,
            "assumptions": {c.name: [dict(a) for a in c.assumptions] for c in self.columns},
            "notes": [dict(n) for n in self.notes],
            "keys": self.keys,
            "search": self.search,
            "engine": self.engine,
        }

    def to_pandas(self, points=False):
        """A DataFrame of the rows, a column per shown value; units, assumptions (per column),
        regime notes, sweep variables and search in ``df.attrs``, and a "note" column with each
        row's regime notes when there are any. ``points=True``: a search's evaluated points
        instead, the frontier marked (column ``frontier``)."""
        pd = _pandas()
        if points:
            df = pd.DataFrame(self.points())
            df.attrs.update(self._attrs())
            df.attrs["units"] = dict(zip(self._extra["objective_names"], self._extra["objective_units"]))
            return df
        columns = [c.name for c in self.columns]
        df = pd.DataFrame(self.rows, columns=columns)
        if self.notes:
            notes = self._row_notes()
            df[self._note_column()] = [notes.get(i, "") for i in range(len(self.rows))]
        df.attrs.update(self._attrs())
        return df

    def chart_svg(self, x=None, y=None, width=720):
        """The report's chart of this table (a search's among its evaluated points) as SVG, or
        None when it has no numeric column to draw; ``x``, ``y`` choose columns as `mls plot`."""
        if self._handle is None:
            return None
        if isinstance(y, str):
            y = [y]
        return self._handle.chart_svg(self.name, x or "", builtins.list(y or []), width)

    def __repr__(self):
        cols = ", ".join("%s [%s]" % (c.name, c.unit) if c.unit else c.name for c in self.columns)
        return "<Table %s: %d rows; %s>" % (self.name, len(self.rows), cols)

    def _repr_html_(self, max_rows=50):
        if self._handle is not None:
            return _display.wrap(self._handle.table_html(self.name, max_rows))
        return _display.wrap(self._html or "")


class Assert:
    """An assert's outcome: ``ok``, its text, the failure's detail and message, where it is."""

    def __init__(self, d):
        self.ok, self.text, self.detail, self.message, self.at = d["ok"], d["text"], d["detail"], d["message"], d["at"]

    def __bool__(self):
        return self.ok

    def _repr_html_(self):
        return _display.wrap(_display.asserts([self]))

    def __repr__(self):
        return "<Assert %s: %s%s>" % ("passed" if self.ok else "failed", self.text, " (%s)" % self.detail if self.detail else "")


class Run:
    """One run of a scenario: ``results`` (name -> Quantity), ``tables`` (name -> Table),
    ``asserts``, ``errors`` (statements that failed at run time while the run went on; only
    with ``keep_going=True``, else they raise), ``warnings``; ``preset`` and ``conventions`` in
    force; ``data`` the JSON document and ``json`` its text (the bytes `mls run --format json`
    prints). ``str(run)`` is the text `mls run` prints."""

    def __init__(self, handle):
        self._h = handle
        self.json = handle.json.decode("utf-8")
        self.data = json.loads(self.json)
        self.file = self.data["file"]
        self.preset = self.data["preset"]
        self.conventions = dict(self.data["conventions"])
        self.uncertainty = self.data.get("uncertainty")
        texts = handle.result_texts()
        self.results = {}
        for i, r in enumerate(self.data["results"]):
            self.results[r["name"]] = Quantity(r, texts[i], html=(lambda i=i: handle.result_html(i)))
        self.tables = {t["name"]: Table(t, handle.table_extra(t["name"]), handle) for t in self.data["tables"]}
        self.asserts = [Assert(a) for a in handle.asserts()]
        self.errors = handle.errors
        self.warnings = handle.warnings

    @property
    def ok(self):
        """No error, and every assert held."""
        return not self.errors and all(self.asserts)

    def __getitem__(self, name):
        if name in self.results:
            return self.results[name]
        if name in self.tables:
            return self.tables[name]
        raise KeyError("%s (results: %s; tables: %s)" % (name, ", ".join(self.results), ", ".join(self.tables)))

    def explain(self, name):
        """The formula chain behind one result (`mls explain`): a shown label,
        TABLE.COLUMN[KEY=VALUE] or a global."""
        from ._answers import Explanation

        return Explanation(self._h.explain(name))

    def sensitivity(self, name, top=None):
        """How much each assumption of one result moves it (`mls sensitivity`), with the
        report's tornado chart."""
        from ._answers import Sensitivity

        return Sensitivity(*self._h.sensitivity(name, top if top is not None else 2**63 - 1))

    def report_html(self):
        """The page `mls report` writes for this run (self-contained HTML)."""
        return self._h.report_html()

    def text(self, assumptions="changed"):
        """What `mls run` prints (``assumptions``: none, changed or all)."""
        return self._h.text(assumptions)

    def __str__(self):
        return self.text()

    def __repr__(self):
        return "<Run %s: %d results, %d tables, %d asserts%s>" % (
            self.file,
            len(self.results),
            len(self.tables),
            len(self.asserts),
            ", %d errors" % len(self.errors) if self.errors else "",
        )

    def _repr_html_(self):
        return _display.run(self)
