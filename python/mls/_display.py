"""HTML for notebooks: the parts of `mls report`'s page (interpreter/report: a result with its
assumptions folded, a table with its units, regime notes and its SVG chart, a diff's view) inside
a ``<div class="mls-report">``, drawn with the page's own style, scoped to that div so that it
does not restyle the notebook. No HTML here draws a number or a chart of its own: those come from
the report layer; this file only frames them (and lists asserts and errors).
"""

import html
import re

from . import _mls

_STYLE = None

# The page centres a column of text; in a notebook the output area is the column.
_NOTEBOOK = ".mls-report{max-width:none;margin:0;padding:0 0 .5em}.mls-report h2{margin-top:.8em}"


def _scope_selector(sel, scope):
    if sel in ("body", "html", ":root"):
        return scope
    if sel.startswith("body "):
        return scope + sel[4:]
    return scope + " " + sel


def scope_css(css, scope):
    """Every rule of ``css`` limited to elements inside ``scope`` (``body`` becomes the scope);
    @media blocks are scoped inside."""
    out, i = [], 0
    while True:
        j = css.find("{", i)
        if j < 0:
            break
        head = css[i:j].strip()
        if head.startswith("@"):
            depth, k = 1, j + 1
            while depth and k < len(css):
                depth += {"{": 1, "}": -1}.get(css[k], 0)
                k += 1
            out.append(head + "{" + scope_css(css[j + 1 : k - 1], scope) + "}")
            i = k
        else:
            k = css.find("}", j)
            out.append(",".join(_scope_selector(s.strip(), scope) for s in head.split(",")) + css[j : k + 1])
            i = k + 1
    return "".join(out)


def style():
    """The report page's style (page.hpp), scoped to .mls-report."""
    global _STYLE
    if _STYLE is None:
        css = re.search(r"<style>(.*?)</style>", _mls.page_head(), re.S).group(1)
        _STYLE = "<style>" + scope_css(css, ".mls-report") + _NOTEBOOK + "</style>"
    return _STYLE


def wrap(inner):
    return style() + '<div class="mls-report">' + inner + "</div>"


def page_body(page):
    """A whole report page (`mls report`, its diff view) as a notebook output: its body without
    the sort script, in the scoped style."""
    body = re.search(r"<body>(.*)</body>", page, re.S)
    inner = body.group(1) if body else page
    inner = re.sub(r"<script>.*?</script>", "", inner, flags=re.S)
    return wrap(inner)


def esc(s):
    return html.escape(str(s), quote=True)


def assumptions(items):
    """Assumptions as the report's table of them: name, value, where it is set."""
    rows = "".join(
        "<tr><td><code>%s</code></td><td>%s</td><td>%s</td></tr>" % (esc(a.get("name")), esc(a.get("value")), esc(a.get("at")))
        for a in items
    )
    return '<table class="assumptions">%s</table>' % rows


def quantity(q):
    """A result without the report's own part (a session's): its value and assumptions."""
    return (
        '<details class="result"><summary><span class="name">%s</span> = <span class="value">%s</span>'
        ' <span class="counts">(%d assumptions)</span></summary>%s</details>'
        % (esc(q.name), esc(q.text), len(q.assumptions), assumptions(q.assumptions))
    )


def error(e):
    """An mls.Error as the command line prints it (caret included), with its code and place."""
    return '<section><p class="failed"><code>%s</code> at %s</p><pre>%s</pre></section>' % (esc(e.code), esc(e.at), esc(e.text))


def asserts(asserts):
    if not asserts:
        return ""
    failed = sum(1 for a in asserts if not a.ok)
    items = "".join(
        '<li class="%s">%s: <code>%s</code>%s%s <span class="counts">%s</span></li>'
        % (
            "ok" if a.ok else "failed",
            "passed" if a.ok else "failed",
            esc(a.text),
            " — " + esc(a.message) if a.message else "",
            ' <span class="counts">(%s)</span>' % esc(a.detail) if a.detail else "",
            esc(a.at),
        )
        for a in asserts
    )
    badge = ' <span class="badge fail">failed</span>' if failed else ""
    return "<section><h2>Assertions</h2><p>%d of %d passed%s</p><ul>%s</ul></section>" % (
        len(asserts) - failed,
        len(asserts),
        badge,
        items,
    )


def diagnostics(title, ds):
    if not ds:
        return ""
    items = "".join(
        '<li class="failed"><code>%s</code>: %s <span class="counts">%s</span></li>' % (esc(d["code"]), esc(d["message"]), esc(d["at"]))
        for d in ds
    )
    return "<section><h2>%s</h2><ul>%s</ul></section>" % (esc(title), items)


def run(r):
    """A run: its header, results, tables (the report's parts), asserts, errors and warnings."""
    sel = r._h.selection
    parts = [
        '<p class="meta">mls %s · <code>%s</code> · preset <code>%s</code>%s</p>'
        % (esc(_mls.version), esc(r.file), esc(r.preset), " · <code>%s</code>" % esc(sel) if sel else "")
    ]
    if r.results:
        parts.append("<section><h2>Results</h2>")
        parts.extend(q._html() for q in r.results.values())
        parts.append("</section>")
    parts.extend(r._h.table_html(name, 50) for name in r.tables)
    parts.append(asserts(r.asserts))
    parts.append(diagnostics("Errors", r.errors))
    parts.append(diagnostics("Warnings", r.warnings))
    return wrap("".join(parts))
