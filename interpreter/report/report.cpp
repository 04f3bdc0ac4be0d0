// report.cpp — the HTML page of `mls report` (see report.hpp). Every piece of user text (names,
// values, units, notes, file names) goes through xml_escape; the markup around it is fixed.
#include "report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "chart.hpp"
#include "interpreter/results/format.hpp"
#include "page.hpp"

namespace mls {

namespace {

std::string esc(std::string_view s) { return xml_escape(s); }

std::string info_code(ErrorKind k) { return info(k).code; }

// The assumptions of one value or column, grouped by kind in the order the text output uses.
std::string assumption_html(const std::vector<AssumptionView>& as) {
  if (as.empty()) return "<p class=\"kind\">no assumptions: a formula of literals only</p>";
  std::string s;
  std::string kind;
  for (const auto& a : as) {
    if (kind_name(a.kind) != kind) {
      if (!kind.empty()) s += "</table></div>";
      kind = kind_name(a.kind);
      s +=
          "<div class=\"kind\" data-kind=\"" + esc(kind) + "\"><h4>" + esc(kind) + "</h4><table class=\"assumptions\">";
    }
    const std::string via = via_text(a);
    s += "<tr><td><code>" + esc(a.name) + "</code></td><td>" + esc(a.value) + (via.empty() ? "" : " " + esc(via)) +
         "</td><td>" + esc(a.at) + "</td></tr>";
  }
  return s + "</table></div>";
}

std::vector<AssumptionView> validations(const std::vector<AssumptionView>& as) {
  std::vector<AssumptionView> v;
  for (const auto& a : as)
    if (a.kind == AssumptionKind::validation) v.push_back(a);
  return v;
}

// "validated" only for a band measured on the value's own domain; a band carried over from the
// nearest validated domain is marked as extrapolated, and a summary without a band as neither.
std::string validated_badge(const std::vector<AssumptionView>& as) {
  std::string s;
  for (const auto& v : validations(as)) {
    if (v.in_domain())
      s += "<span class=\"badge validated\" title=\"" + esc(v.value) + "\">validated: " + esc(v.name) + " (" +
           esc(v.domain) + ")</span>";
    else if (v.extrapolated)
      s += "<span class=\"badge extrapolated\" title=\"" + esc(v.value) + "\">extrapolated: " + esc(v.name) + " (" +
           esc(v.domain) + ")</span>";
  }
  return s;
}

std::string number_attr(const Value& v, const Display& d) {
  return v.k == Value::K::num ? " data-v=\"" + fmt::format("{}", in_unit(v.n, d).d) + "\"" : "";
}

std::string counts(const Table& t) {
  if (t.search)
    return fmt::format("{}: {} point{} evaluated, {} infeasible, {} filtered; the best {} shown, the best first",
                       t.objective, t.evaluated, t.evaluated == 1 ? "" : "s", t.infeasible, t.filtered, t.row_count);
  std::string s = fmt::format("{} row{}", t.row_count, t.row_count == 1 ? "" : "s");
  if (t.filtered) s += fmt::format(", {} filtered out", t.filtered);
  if (t.infeasible) s += fmt::format(", {} infeasible (kept, feasible = false)", t.infeasible);
  if (!t.stopped.empty()) s += "; then stopped by " + t.stopped + " (see Errors)";
  return s;
}

struct Page {
  ResultScope scope;  // units, provenance and sources of the run's program
  std::string out;
  // Validation assumptions met on the way: name -> (summary, where it was used).
  std::map<std::string, std::pair<std::string, std::vector<std::string>>> validated;
  std::size_t max_rows = kReportMaxRows;  // rows of a table drawn (the chart uses them all)

  void note_validation(const std::vector<AssumptionView>& as, const std::string& where) {
    for (const auto& v : validations(as)) {
      auto& e = validated[v.name + (v.domain.empty() ? "" : " · " + v.domain)];
      e.first = v.value;
      if (std::find(e.second.begin(), e.second.end(), where) == e.second.end()) e.second.push_back(where);
    }
  }

  void result(const Shown& sh) {
    const auto as = assumptions_of(scope, sh.value.deps);
    note_validation(as, sh.name);
    const bool num = sh.value.k == Value::K::num;
    out += "<details class=\"result\"><summary><span class=\"name\">" + esc(sh.name) +
           "</span> = <span class=\"value\"" + number_attr(sh.value, sh.display) + ">" +
           esc(format_value(sh.value, sh.display)) + "</span>";
    if (num && !sh.display.unit.empty()) out += " <span class=\"unit\">" + esc(sh.display.unit) + "</span>";
    out += validated_badge(as) + fmt::format(" <span class=\"counts\">({} assumption{})</span></summary>", as.size(),
                                             as.size() == 1 ? "" : "s");
    if (!sh.note.empty()) out += "<p class=\"counts\">" + esc(sh.note) + "</p>\n";
    out += assumption_html(as) + "</details>\n";
  }

  void table(const Table& t, std::size_t index) {
    out += fmt::format("<section class=\"mls-table\" id=\"t-{}\">\n<h2>{} <code>{}</code></h2>\n", index,
                       t.search ? "search" : "table", esc(t.name));
    out += "<p class=\"counts\">" + esc(counts(t)) + "</p>\n";
    for (const auto& [why, n] : t.errors)
      out += fmt::format("<p class=\"counts\">{} infeasible: {}</p>\n", n, esc(why));
    if (t.rows.empty()) out += "<p>no feasible point</p>\n";
    if (!t.search && chartable(t)) out += chart_svg(chart_of(t, {}));
    if (const auto c = search_chart(t)) out += chart_svg(*c);
    // Regime notes per row.
    std::map<std::size_t, std::string> notes;
    for (const auto& n : t.notes) notes[n.row] += (notes[n.row].empty() ? "" : "; ") + n.text;
    const std::size_t shown = std::min(t.rows.size(), max_rows);
    out += "<table class=\"data\"><thead><tr>";
    if (t.search) out += "<th scope=\"col\"><button type=\"button\">rank</button></th>";
    for (const auto& c : t.cols)
      out += "<th scope=\"col\"><button type=\"button\">" + esc(header_text(c)) + "</button></th>";
    if (!notes.empty()) out += "<th scope=\"col\">regime note</th>";
    out += "</tr></thead>\n<tbody>\n";
    for (std::size_t i = 0; i < shown; ++i) {
      const Row& r = t.rows[i];
      const auto note = notes.find(i);
      std::string cls = note != notes.end() ? "regime" : "";
      if (t.search && i == 0) cls += cls.empty() ? "best" : " best";
      out += fmt::format("<tr data-i=\"{}\"{}>", i, cls.empty() ? "" : " class=\"" + cls + "\"");
      if (t.search) out += fmt::format("<td class=\"num\" data-v=\"{0}\">{0}</td>", i + 1);
      for (std::size_t c = 0; c < t.cols.size(); ++c) {
        const Value& v = r.cells[c];
        out += std::string("<td") + (v.k == Value::K::num ? " class=\"num\"" : "") + number_attr(v, t.cols[c].display) +
               ">" + esc(format_value(v, t.cols[c].display)) + "</td>";
      }
      // The note itself is listed under the table; the cell links to it (full text on hover).
      if (!notes.empty())
        out += note == notes.end()
                   ? "<td class=\"note\"></td>"
                   : fmt::format("<td class=\"note\" title=\"{}\"><a href=\"#t-{}-n{}\">&#9873; row {}</a></td>",
                                 esc(note->second), index, i + 1, i + 1);
      out += "</tr>\n";
    }
    out += "</tbody></table>\n";
    if (shown < t.rows.size())
      out += fmt::format(
          "<p class=\"counts\">the first {} of {} rows; <code>mls run --format csv</code> has them all</p>\n", shown,
          t.rows.size());
    if (!t.notes.empty()) {
      out += "<h3>Regime notes</h3><ul class=\"notes\">";
      std::set<std::size_t> anchored;  // one anchor per row (several notes may share it)
      for (const auto& n : t.notes)
        out += fmt::format("<li{}>",
                           anchored.insert(n.row).second ? fmt::format(" id=\"t-{}-n{}\"", index, n.row + 1) : "") +
               fmt::format("<span class=\"badge regime\">row {}</span> <code>{}</code>: {}</li>", n.row + 1, esc(n.key),
                           esc(n.text));
      out += "</ul>\n";
    }
    // Assumptions once per column, grouping columns that share the same list (as text does).
    std::vector<std::pair<std::vector<AssumptionView>, std::vector<std::string>>> groups;
    for (std::size_t c = 0; c < t.cols.size() && c < t.col_deps.size(); ++c) {
      auto as = assumptions_of(scope, t.col_deps[c]);
      if (as.empty()) continue;
      note_validation(as, t.name + "." + t.cols[c].name);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == as; });
      if (it == groups.end())
        groups.push_back({as, {t.cols[c].name}});
      else
        it->second.push_back(t.cols[c].name);
    }
    if (!groups.empty()) out += "<h3>Assumptions by column</h3>\n";
    for (const auto& [as, cols] : groups) {
      std::string names;
      for (const auto& c : cols) names += (names.empty() ? "" : ", ") + c;
      out += "<details class=\"result\"><summary><span class=\"name\">" + esc(names) + "</span>" + validated_badge(as) +
             fmt::format(" <span class=\"counts\">({} assumption{})</span></summary>", as.size(),
                         as.size() == 1 ? "" : "s") +
             assumption_html(as) + "</details>\n";
    }
    out += "</section>\n";
  }
};

// `--sensitivity RESULT`: each ranking as its tornado chart and the same numbers as a table.
std::string sensitivity_html(const std::vector<Tornado>& ts) {
  std::string s =
      "<section id=\"sensitivity\"><h2>Sensitivity</h2>\n<p class=\"counts\">Each input the result depends on "
      "moved down and up (a count to whole numbers), each convention switched to its other choices; the result's "
      "change, largest first (<code>mls sensitivity</code>, docs/sensitivity.md).</p>\n";
  for (const auto& t : ts) {
    s += "<figure>" + tornado_svg(t) + "</figure>\n<table class=\"sensitivity\"><thead><tr><th>input</th><th>-" +
         esc(t.step) + "</th><th>+" + esc(t.step) + " or switched</th><th>assumption</th></tr></thead><tbody>\n";
    for (const auto& b : t.bars)
      s += fmt::format(
          "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{:+.2f} %</td><td>{}</td></tr>\n",
          esc(b.label), b.convention ? std::string() : fmt::format("{:+.2f} %", b.down * 100), b.up * 100,
          esc(b.detail));
    s += "</tbody></table>\n";
    if (t.more) s += fmt::format("<p class=\"counts\">+ {} inputs with smaller changes</p>\n", t.more);
  }
  return s + "</section>\n";
}

}  // namespace

std::string report_html(const ResultScope& scope, const RunResult& r, const ReportInfo& info) {
  Page pg{scope, {}, {}};
  std::string& s = pg.out;
  s += page_head("mls report: " + info.file);
  s += "<header><h1>mls report: <code>" + esc(info.file) + "</code></h1>\n";
  s += "<p class=\"meta\">mls " + std::string(kVersion) + " · preset <code>" + esc(r.preset) + "</code> (" +
       esc(r.preset_via.kind == ViaKind::default_ ? "default: the scenario names no preset" : r.preset_via.text()) +
       ")" + (info.selection.empty() ? "" : " · <code>" + esc(info.selection) + "</code>") + "</p></header>\n";

  s += "<nav><h2>Contents</h2><ul>";
  if (!r.results.empty()) s += "<li><a href=\"#results\">Results</a></li>";
  for (std::size_t i = 0; i < r.tables.size(); ++i)
    s += fmt::format("<li><a href=\"#t-{}\">{} {}</a></li>", i, r.tables[i].search ? "search" : "table",
                     esc(r.tables[i].name));
  if (!r.asserts.empty()) s += "<li><a href=\"#asserts\">Assertions</a></li>";
  if (!r.errors.empty()) s += "<li><a href=\"#errors\">Errors</a></li>";
  if (!info.sensitivity.empty()) s += "<li><a href=\"#sensitivity\">Sensitivity</a></li>";
  s += "<li><a href=\"#validation\">Validation</a></li><li><a href=\"#conventions\">Conventions</a></li></ul></nav>\n";
  s += "<main>\n";
  if (!r.results.empty()) {
    s += "<section id=\"results\"><h2>Results</h2>\n<p class=\"counts\">Each result unfolds to the assumptions it "
         "depends on, grouped by kind.</p>\n";
    for (const auto& sh : r.results) pg.result(sh);
    s += "</section>\n";
  }
  for (std::size_t i = 0; i < r.tables.size(); ++i) pg.table(r.tables[i], i);
  if (!r.asserts.empty()) {
    std::size_t failed = 0;
    std::string items;
    for (const auto& a : r.asserts) {
      failed += a.ok ? 0 : 1;
      items += std::string("<li class=\"") + (a.ok ? "ok" : "failed") + "\">" + (a.ok ? "passed" : "failed") +
               ": <code>" + esc(a.text) + "</code>" + (a.message.empty() ? "" : " — " + esc(a.message)) +
               (a.detail.empty() ? "" : " <span class=\"counts\">(" + esc(a.detail) + ")</span>") +
               " <span class=\"counts\">" + esc(scope.sources.where_col(a.span)) + "</span></li>\n";
    }
    s += fmt::format("<section id=\"asserts\"><h2>Assertions</h2>\n<p>{} of {} passed{}</p><ul>\n",
                     r.asserts.size() - failed, r.asserts.size(),
                     failed ? " <span class=\"badge fail\">failed</span>" : "");
    s += items + "</ul></section>\n";
  }
  if (!r.errors.empty()) {
    // Statements that failed while the run went on: everything above was computed without them.
    s += fmt::format(
        "<section id=\"errors\"><h2>Errors</h2>\n<p>{} statement{} failed at run time <span class=\"badge "
        "fail\">failed</span>; the rest of the page was computed without {}.</p><ul>\n",
        r.errors.size(), r.errors.size() == 1 ? "" : "s", r.errors.size() == 1 ? "it" : "them");
    for (const auto& e : r.errors) {
      std::string help;
      for (const auto& h : e.help) help += (help.empty() ? "" : "; ") + h;
      s += "<li class=\"failed\"><code>" + esc(info_code(e.kind)) + "</code>: " + esc(e.message) +
           (help.empty() ? "" : " <span class=\"counts\">(" + esc(help) + ")</span>") + " <span class=\"counts\">" +
           esc(scope.sources.where_col(e.span)) + "</span></li>\n";
    }
    s += "</ul></section>\n";
  }
  if (!info.sensitivity.empty()) s += sensitivity_html(info.sensitivity);
  s += "<section id=\"validation\"><h2>Validation</h2>\n";
  if (pg.validated.empty()) {
    s += "<p>No result of this run depends on a validated model (<code>validated()</code>): its numbers are "
         "formulas of their inputs, not compared with measurements.</p>\n";
  } else {
    s += "<p>Results that depend on a model compared with published measurements (<code>mls validate</code> shows "
         "every case; a band is \"validated\" only on the domain its cases ran on):</p>\n<table><thead><tr><th>model "
         "family · domain</th><th>measured error</th><th>used by</th></tr></thead><tbody>\n";
    for (const auto& [name, e] : pg.validated) {
      std::string used;
      for (const auto& u : e.second) used += (used.empty() ? "" : ", ") + u;
      s += "<tr><td><code>" + esc(name) + "</code></td><td>" + esc(e.first) + "</td><td>" + esc(used) + "</td></tr>\n";
    }
    s += "</tbody></table>\n";
  }
  s += "</section>\n<section id=\"conventions\"><h2>Conventions</h2>\n<details><summary>";
  s += fmt::format("{} convention{} in effect</summary><table><tbody>\n", r.conventions.size(),
                   r.conventions.size() == 1 ? "" : "s");
  for (const auto& [n, c] : r.conventions)
    s += "<tr><td><code>" + esc(n) + "</code></td><td>" + esc(c) + "</td></tr>\n";
  s += "</tbody></table></details></section>\n</main>\n";
  s += page_foot();
  return s;
}

std::string report_result_html(const ResultScope& scope, const Shown& s) {
  Page pg{scope, {}, {}};
  pg.result(s);
  return pg.out;
}

std::string report_table_html(const ResultScope& scope, const Table& t, std::size_t index, std::size_t max_rows) {
  Page pg{scope, {}, {}, max_rows};
  pg.table(t, index);
  return pg.out;
}

}  // namespace mls
