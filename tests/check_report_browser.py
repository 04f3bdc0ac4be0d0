#!/usr/bin/env python3
"""check_report_browser.py — `mls report` pages in a real browser (headless Chromium).

For scenarios/thousand_gpus.mls and the small report golden, the page is opened in Chromium with
two scripts of this test added (an error recorder first in <head>, a probe last in <body>); the
probe reads the page through the DOM and writes what it found as JSON into the DOM, which
`--dump-dom` returns. Checked:
  - no script error and no Content-Security-Policy violation (a blocked fetch would be one: the
    page must need no network), and no "Uncaught" on the browser's console;
  - the title, one <svg> chart per sweep and per search (its evaluated points, the ranked rows
    ringed), regime markers on the chart and
    regime rows in the table, assumptions in closed <details> that open;
  - sorting: a header click orders the rows by that column's numbers, a second click reverses
    them, and every row is still there;
  - user text is escaped: the small golden's "<b>fast</b>" shows as text, no <b> element exists;
  - `--sensitivity RESULT` on the scenario: a tornado chart with a bar per row of its table;
  - a screenshot is taken (a PNG of non-trivial size).
The diff page (`mls report FILE --diff --use mtbf_model=gpu_only`) is opened the same way: no
error, the differing assumptions listed, the changed result with its cause, and each sweep drawn
once with both sides: every "(left)" series has its dashed "(right)" twin, and its changed cells
sort by their change.
Chromium absent: exit 77 (ctest: skipped, with the reason) unless MLS_REQUIRE_CHROMIUM=1 (CI),
which makes it a failure.

usage: check_report_browser.py MLS REPO_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

RECORDER = """<script>
window.__mls_errors = [];
window.addEventListener('error', function (e) { window.__mls_errors.push('error: ' + e.message); });
document.addEventListener('securitypolicyviolation', function (e) {
  window.__mls_errors.push('csp: ' + e.violatedDirective + ' ' + e.blockedURI);
});
</script>"""

PROBE = """<script>
(function () {
  var out = {errors: window.__mls_errors, title: document.title, sections: []};
  var secs = document.querySelectorAll('section.mls-table');
  for (var i = 0; i < secs.length; i++) {
    var s = secs[i], table = s.querySelector('table.data');
    var info = {heading: s.querySelector('h2').textContent, svgs: s.querySelectorAll('svg').length,
                marks: s.querySelectorAll('svg .regime-mark').length, rings: s.querySelectorAll('svg circle.best').length,
                points: s.querySelectorAll('svg g.series > g').length,
                regime_rows: s.querySelectorAll('tr.regime').length, best_rows: s.querySelectorAll('tr.best').length,
                rows: table.tBodies[0].rows.length, sorts: [], pictures: []};
    var svgs = s.querySelectorAll('svg.chart');
    for (var v = 0; v < svgs.length; v++) {
      var svg = svgs[v], pic = {yscales: [], ytitles: [], xticks: [], series: []};
      var xa = svg.querySelector('g.axis.x');
      pic.xscale = xa ? xa.getAttribute('data-scale') : null;
      var xt = xa ? xa.querySelectorAll('text') : [];
      for (var q = 0; q < xt.length; q++) pic.xticks.push(xt[q].textContent);
      var ya = svg.querySelectorAll('g.axis.y');
      for (var q2 = 0; q2 < ya.length; q2++) {
        pic.yscales.push(ya[q2].getAttribute('data-scale'));
        var ut = ya[q2].querySelector('text.unit');
        pic.ytitles.push(ut ? ut.textContent : '');
      }
      pic.polylines = svg.querySelectorAll('g.series polyline').length;
      pic.bars = svg.querySelectorAll('rect.bar').length;
      var ss = svg.querySelectorAll('g.series');
      for (var q3 = 0; q3 < ss.length; q3++) {  // the colour it is drawn in: its line's, else its marks'
        var drawn = ss[q3].querySelector('polyline, circle, rect, path');
        pic.series.push([ss[q3].querySelector('title').textContent,
                         drawn ? (drawn.getAttribute('stroke') && drawn.tagName === 'polyline' ? drawn.getAttribute('stroke')
                                                                                               : drawn.getAttribute('fill')) : null]);
      }
      info.pictures.push(pic);
    }
    var heads = table.tHead.rows[0].cells;
    for (var c = 0; c < heads.length; c++) {
      var b = heads[c].querySelector('button');
      if (!b) continue;
      var cells = table.tBodies[0].rows;
      if (!cells.length || cells[0].cells[c].getAttribute('data-v') === null) continue;
      b.click();
      var asc = [], desc = [];
      for (var r = 0; r < cells.length; r++) asc.push(parseFloat(table.tBodies[0].rows[r].cells[c].getAttribute('data-v')));
      var a1 = heads[c].getAttribute('aria-sort');
      b.click();
      for (var r2 = 0; r2 < cells.length; r2++) desc.push(parseFloat(table.tBodies[0].rows[r2].cells[c].getAttribute('data-v')));
      info.sorts.push({column: b.textContent, asc: asc, desc: desc, aria: [a1, heads[c].getAttribute('aria-sort')]});
    }
    out.sections.push(info);
  }
  var ds = document.querySelectorAll('details'), closed = 0;
  for (var d = 0; d < ds.length; d++) if (!ds[d].open) closed++;
  out.details = ds.length;
  out.details_closed = closed;
  if (ds.length) { ds[0].open = true; out.opened_shows_kinds = ds[0].querySelectorAll('.kind').length; }
  out.kinds = [];
  var ks = document.querySelectorAll('.kind[data-kind]');
  for (var k = 0; k < ks.length; k++) if (out.kinds.indexOf(ks[k].getAttribute('data-kind')) < 0) out.kinds.push(ks[k].getAttribute('data-kind'));
  out.bold_elements = document.querySelectorAll('main b').length;
  out.validated_badges = document.querySelectorAll('.badge.validated').length;
  out.extrapolated_badges = document.querySelectorAll('.badge.extrapolated').length;
  // Which shown results are marked validated, by name (a band is "validated" only in its domain).
  out.validated_results = [];
  var rs = document.querySelectorAll('details.result');
  for (var q = 0; q < rs.length; q++)
    if (rs[q].querySelector('summary .badge.validated'))
      out.validated_results.push(rs[q].querySelector('summary .name').textContent);
  out.tornado_bars = document.querySelectorAll('#sensitivity svg.tornado g.bar').length;
  out.tornado_rows = document.querySelectorAll('#sensitivity table.sensitivity tbody tr').length;
  var pre = document.createElement('pre');
  pre.id = 'mls-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


DIFF_PROBE = """<script>
(function () {
  var out = {errors: window.__mls_errors, title: document.title};
  out.assumption_rows = document.querySelectorAll('#assumptions tbody tr').length;
  out.result_rows = document.querySelectorAll('#results tbody tr').length;
  var because = document.querySelector('#results tbody tr td.because:last-child');
  out.because = because ? because.textContent : '';
  var secs = document.querySelectorAll('section.mls-table.diff');
  out.tables = [];
  for (var i = 0; i < secs.length; i++) {
    var s = secs[i], info = {svgs: s.querySelectorAll('svg').length, left: [], right: [], dashed: 0, solid: 0};
    var titles = s.querySelectorAll('svg g.series > title');
    for (var t = 0; t < titles.length; t++) {
      var n = titles[t].textContent;
      if (/ \\(left\\)$/.test(n)) info.left.push(n.replace(/ \\(left\\)$/, ''));
      if (/ \\(right\\)$/.test(n)) info.right.push(n.replace(/ \\(right\\)$/, ''));
    }
    var lines = s.querySelectorAll('svg g.series polyline');
    for (var l = 0; l < lines.length; l++) lines[l].getAttribute('stroke-dasharray') ? info.dashed++ : info.solid++;
    var table = s.querySelector('table.data');
    info.rows = table ? table.tBodies[0].rows.length : 0;
    if (table) {
      var heads = table.tHead.rows[0].cells, col = -1;
      for (var h = 0; h < heads.length; h++) if (heads[h].textContent === 'change') col = h;
      heads[col].querySelector('button').click();
      info.sorted = [];
      for (var r = 0; r < table.tBodies[0].rows.length; r++)
        info.sorted.push(parseFloat(table.tBodies[0].rows[r].cells[col].getAttribute('data-v')));
    }
    out.tables.push(info);
  }
  var pre = document.createElement('pre');
  pre.id = 'mls-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


def check_diff_page(browser, mls, root, work):
    name = "diff"
    page = os.path.join(work, "diff.html")
    scenario = os.path.join(root, "scenarios", "thousand_gpus.mls")
    p = subprocess.run([mls, "report", scenario, "--diff", "--use", "mtbf_model=gpu_only", "--out", page],
                       capture_output=True, timeout=300)
    if p.returncode != 0:
        return ["diff: mls report --diff exited %d: %s" % (p.returncode, p.stderr.decode())]
    with open(page, encoding="utf-8") as f:
        html = f.read()
    problems = ["diff: an external reference %r" % m.group(1)
                for m in re.finditer(r'(?:src|href)\s*=\s*"(?!#)([^"]*)"', html)]
    probe_page = os.path.join(work, "diff.probe.html")
    with open(probe_page, "w", encoding="utf-8") as f:
        f.write(html.replace("<head>", "<head>\n" + RECORDER, 1).replace("</body>", DIFF_PROBE + "\n</body>", 1))
    dom, log = browse(browser, probe_page, work)
    m = re.search(r'<pre id="mls-probe">(.*?)</pre>', dom, re.S)
    if not m:
        return problems + ["diff: the probe did not run; browser log:\n%s" % log[-2000:]]
    got = json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&"))
    if got["errors"]:
        problems.append("diff: errors in the page: %s" % got["errors"])
    if not got["title"].startswith("mls report: ") or " vs " not in got["title"]:
        problems.append("diff: title %r" % got["title"])
    if got["assumption_rows"] < 1 or got["result_rows"] < 1 or "mtbf_model" not in got["because"]:
        problems.append("diff: assumptions %d, results %d, because %r" % (got["assumption_rows"], got["result_rows"],
                                                                          got["because"]))
    if len(got["tables"]) != 1:
        problems.append("diff: %d table sections, expected 1" % len(got["tables"]))
    for t in got["tables"]:
        if t["svgs"] != 1 or not t["left"] or sorted(t["left"]) != sorted(t["right"]):
            problems.append("diff: chart: %d SVGs, left series %s, right series %s" % (t["svgs"], t["left"], t["right"]))
        if t["dashed"] != len(t["right"]) or t["solid"] != len(t["left"]):
            problems.append("diff: %d dashed and %d solid lines for %d right and %d left series"
                            % (t["dashed"], t["solid"], len(t["right"]), len(t["left"])))
        if not t["rows"] or t.get("sorted") != sorted(t.get("sorted", [])) or len(t["sorted"]) != t["rows"]:
            problems.append("diff: changed cells sorted by change: %s" % t.get("sorted"))
    if not screenshot(browser, page, os.path.join(work, name + ".png"), work):
        problems.append("diff: no screenshot")
    return problems


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def browse(browser, html_path, work):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--user-data-dir=" + os.path.join(work, "profile"), "--enable-logging=stderr", "--v=0"]
    p = subprocess.run([browser] + flags + ["--virtual-time-budget=5000", "--dump-dom", "file://" + html_path],
                       capture_output=True, timeout=120)
    return p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def screenshot(browser, html_path, png, work):
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
             "--user-data-dir=" + os.path.join(work, "profile2"), "--hide-scrollbars", "--window-size=1100,1400"]
    subprocess.run([browser] + flags + ["--screenshot=" + png, "file://" + html_path], capture_output=True, timeout=120)
    return os.path.exists(png) and os.path.getsize(png) > 20000


def check_pictures(name, sections, expect):
    """The pictures of tests/golden/report/pictures.mls, section by section (issue #36)."""
    problems = []
    pics = {s["heading"]: s["pictures"] for s in sections}
    for heading, check in expect.items():
        if not pics.get(heading):
            problems.append("%s: %s has no chart" % (name, heading))
            continue
        pic = pics[heading][0]
        for what, want in check.items():
            if what == "ytitle_has":  # units on every axis: never "dimensionless" for money
                if not all(want in t for t in pic["ytitles"]) or any("dimensionless" in t for t in pic["ytitles"]):
                    problems.append("%s: %s: y axis titles %s, expected %r in each" % (name, heading, pic["ytitles"], want))
            elif what == "same_colour_per_group":  # one colour per group across panels
                colours = {}
                for title, colour in pic["series"]:
                    group = title[title.find("("):] if "(" in title else title
                    colours.setdefault(group, set()).add(colour)
                if len(colours) < 2 or any(len(c) != 1 for c in colours.values()) \
                        or len({next(iter(c)) for c in colours.values()}) != len(colours):
                    problems.append("%s: %s: colours by group %s" % (name, heading, colours))
            elif pic.get(what) != want:
                problems.append("%s: %s: %s is %r, expected %r" % (name, heading, what, pic.get(what), want))
    return problems


def check_page(browser, mls, scenario, work, expect):
    problems = []
    name = os.path.splitext(os.path.basename(scenario))[0]
    page = os.path.join(work, name + ".html")
    p = subprocess.run([mls, "report", scenario, "--out", page] + expect.get("args", []), capture_output=True,
                       timeout=300)
    if p.returncode != 0:
        return ["%s: mls report exited %d: %s" % (name, p.returncode, p.stderr.decode())]
    with open(page, encoding="utf-8") as f:
        html = f.read()
    # Anything the page could fetch: only the SVG namespace URI may appear (it is a name, not a fetch).
    for m in re.finditer(r'(?:src|href)\s*=\s*"(?!#)([^"]*)"', html):
        problems.append("%s: an external reference %r" % (name, m.group(1)))
    probe_page = os.path.join(work, name + ".probe.html")
    with open(probe_page, "w", encoding="utf-8") as f:
        f.write(html.replace("<head>", "<head>\n" + RECORDER, 1).replace("</body>", PROBE + "\n</body>", 1))
    dom, log = browse(browser, probe_page, work)
    m = re.search(r'<pre id="mls-probe">(.*?)</pre>', dom, re.S)
    if not m:
        return problems + ["%s: the probe did not run (no result in the DOM); browser log:\n%s" % (name, log[-2000:])]
    got = json.loads(m.group(1).replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace("&amp;", "&"))
    if got["errors"]:
        problems.append("%s: errors in the page: %s" % (name, got["errors"]))
    for line in log.splitlines():
        if "Uncaught" in line or ("CONSOLE" in line and "error" in line.lower()):
            problems.append("%s: console: %s" % (name, line))
    if got["title"] != "mls report: " + scenario:
        problems.append("%s: title %r" % (name, got["title"]))
    if len(got["sections"]) != len(expect["tables"]):
        problems.append("%s: %d table sections, expected %d" % (name, len(got["sections"]), len(expect["tables"])))
    for sec, (heading, svgs, marks, regime_rows, best_rows) in zip(got["sections"], expect["tables"]):
        if sec["heading"] != heading:
            problems.append("%s: section %r, expected %r" % (name, sec["heading"], heading))
        if sec["svgs"] != svgs:
            problems.append("%s: %s has %d SVG charts, expected %d" % (name, heading, sec["svgs"], svgs))
        if (sec["marks"] > 0) != marks:
            problems.append("%s: %s regime markers on the chart: %d" % (name, heading, sec["marks"]))
        if sec["regime_rows"] != regime_rows:
            problems.append("%s: %s has %d regime rows, expected %d" % (name, heading, sec["regime_rows"], regime_rows))
        if sec["best_rows"] != best_rows:
            problems.append("%s: %s has %d highlighted best rows, expected %d" % (name, heading, sec["best_rows"], best_rows))
        # A search is drawn among its evaluated points: every point a marker, its ranked rows ringed.
        if heading.startswith("search") and svgs and (sec["rings"] != sec["rows"] or sec["points"] <= sec["rows"]):
            problems.append("%s: %s: %d ringed of %d points on the chart, %d ranked rows"
                            % (name, heading, sec["rings"], sec["points"], sec["rows"]))
        if not sec["sorts"]:
            problems.append("%s: %s: no numeric column was sorted" % (name, heading))
        for srt in sec["sorts"]:
            if srt["asc"] != sorted(srt["asc"]) or srt["desc"] != sorted(srt["desc"], reverse=True):
                problems.append("%s: %s: sorting by %s gave %s then %s" % (name, heading, srt["column"], srt["asc"], srt["desc"]))
            if len(srt["asc"]) != sec["rows"] or sorted(srt["asc"]) != sorted(srt["desc"]):
                problems.append("%s: %s: sorting by %s lost rows" % (name, heading, srt["column"]))
            if srt["aria"] != ["ascending", "descending"]:
                problems.append("%s: %s: aria-sort after two clicks: %s" % (name, heading, srt["aria"]))
    if got["details"] == 0 or got["details_closed"] != got["details"]:
        problems.append("%s: %d <details>, %d closed: assumptions must be folded" % (name, got["details"], got["details_closed"]))
    if not got.get("opened_shows_kinds"):
        problems.append("%s: the first <details>, opened, shows no assumption kinds" % name)
    for k in expect["kinds"]:
        if k not in got["kinds"]:
            problems.append("%s: no assumptions of kind %s (got %s)" % (name, k, got["kinds"]))
    if got["validated_badges"] < expect["validated"]:
        problems.append("%s: %d validated badges, expected at least %d" % (name, got["validated_badges"], expect["validated"]))
    if "validated_results" in expect and got["validated_results"] != expect["validated_results"]:
        problems.append("%s: results marked validated: %s, expected %s (only a band of the result's own domain)"
                        % (name, got["validated_results"], expect["validated_results"]))
    if got["extrapolated_badges"] < expect.get("extrapolated", 0):
        problems.append("%s: %d extrapolated badges, expected at least %d"
                        % (name, got["extrapolated_badges"], expect.get("extrapolated", 0)))
    # `--sensitivity RESULT`: the tornado chart draws one bar group per table row, at least the --top asked.
    if got["tornado_bars"] != got["tornado_rows"] or got["tornado_bars"] < expect.get("tornado", 0):
        problems.append("%s: tornado chart: %d bars, %d table rows, expected at least %d"
                        % (name, got["tornado_bars"], got["tornado_rows"], expect.get("tornado", 0)))
    problems += check_pictures(name, got["sections"], expect.get("pictures", {}))
    if got["bold_elements"]:
        problems.append("%s: user text became markup (%d <b> elements)" % (name, got["bold_elements"]))
    if not screenshot(browser, page, os.path.join(work, name + ".png"), work):
        problems.append("%s: no screenshot" % name)
    return problems


def main():
    mls, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    browser = chromium()
    if not browser:
        msg = "check_report_browser: chromium is not installed (apt-get install chromium; cmake/setup.sh installs it)"
        if os.environ.get("MLS_REQUIRE_CHROMIUM") == "1":
            print(msg + ": failing, MLS_REQUIRE_CHROMIUM=1")
            return 1
        print(msg + ": skipped")
        return 77
    pages = [
        (os.path.join(root, "scenarios", "thousand_gpus.mls"),
         {"tables": [("table scale", 1, True, 1, 0)], "kinds": ["registry", "default", "validation"], "validated": 3,
          "args": ["--sensitivity", "scale.tokens_per_s[gpus=1024]", "--top", "8"], "tornado": 8}),
        (os.path.join(root, "tests", "golden", "report", "bands.mls"),
         {"tables": [], "kinds": ["validation", "approx"], "validated": 1, "validated_results": ["h100_step"],
          "extrapolated": 1}),
        (os.path.join(root, "tests", "golden", "report", "small.mls"),
         {"tables": [("table grow", 1, True, 3, 0), ("search pick", 1, False, 0, 1)], "kinds": ["validation"],
          "validated": 1}),
        (os.path.join(root, "tests", "golden", "report", "pictures.mls"),
         {"tables": [("search cheap", 1, False, 0, 1), ("table pair", 1, False, 0, 0), ("table grid", 1, False, 0, 0),
                     ("table decades", 1, False, 0, 0), ("table cmp", 1, False, 0, 0)],
          "kinds": [], "validated": 0,
          "pictures": {
              "search cheap": {"ytitle_has": "USD"},
              "table pair": {"xscale": "category", "xticks": ["4", "8"], "polylines": 0},
              "table grid": {"same_colour_per_group": True, "yscales": ["linear", "linear"]},
              "table decades": {"yscales": ["log"], "xscale": "log"},
              "table cmp": {"xscale": "category", "bars": 4, "xticks": ["Small", "Large"]},
          }}),
    ]
    problems = []
    with tempfile.TemporaryDirectory() as work:
        for scenario, expect in pages:
            problems += check_page(browser, mls, scenario, work, expect)
        problems += check_diff_page(browser, mls, root, work)
    if problems:
        print("\n".join(problems))
        return 1
    print("ok: %d pages and a diff page load in %s without errors; charts, regime marks, folded assumptions, "
          "sorting and both sides of a diff checked" % (len(pages), os.path.basename(browser)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
