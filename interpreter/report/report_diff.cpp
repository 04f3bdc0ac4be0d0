// report_diff.cpp — `mls report` in diff mode: two runs compared (results/diff), as one page. The
// assumptions that differ first, then every changed result and table cell with the assumptions
// that explain it, and each sweep drawn with both sides on one chart (left solid, right dashed,
// one colour per column) so a reader sees where the curves part.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "axis.hpp"
#include "chart.hpp"
#include "page.hpp"
#include "report.hpp"

namespace mls {

namespace {

std::string esc(std::string_view s) { return xml_escape(s); }

const Table* table_named(const RunResult& r, const std::string& name) {
  for (const auto& t : r.tables)
    if (t.name == name) return &t;
  return nullptr;
}

// Both sides of a sweep on one chart, the columns that changed only: the right side's series take
// the style of the left's series of the same name, dashed. Nullopt when either side has no such
// chart (a search, a column that is not numeric) or their x differ.
std::optional<Chart> overlay(const Table* l, const Table* r, const TableDiff& t) {
  if (!l || !r || l->search || r->search || t.cells_changed == 0) return std::nullopt;
  ChartSpec spec;
  for (const auto& v : t.cells)
    if (std::find(spec.y.begin(), spec.y.end(), v.name) == spec.y.end()) spec.y.push_back(v.name);
  for (const auto& [column, n] : t.changed_columns)  // changed cells past the diff's listing limit
    if (std::find(spec.y.begin(), spec.y.end(), column) == spec.y.end()) spec.y.push_back(column);
  Chart a, b;
  try {
    a = chart_of(*l, spec);
    b = chart_of(*r, spec);
  } catch (const DiagnosticError&) {
    return std::nullopt;
  }
  if (a.x_name != b.x_name || a.x_unit != b.x_unit || a.categories != b.categories) return std::nullopt;
  Chart c;
  c.title = a.title;
  c.x_name = a.x_name;
  c.x_unit = a.x_unit;
  c.categories = a.categories;
  c.bars = a.bars;
  c.lines = a.lines && b.lines;
  std::size_t style = 0;
  std::map<std::pair<std::string, std::string>, std::size_t> style_of;  // (unit, series) -> style
  for (auto& p : a.panels) {
    ChartPanel panel{p.unit, {}};
    for (auto& s : p.series) {
      style_of[{p.unit, s.name}] = style;
      s.style = style++;
      s.name += " (left)";
      panel.series.push_back(std::move(s));
    }
    c.panels.push_back(std::move(panel));
  }
  for (auto& p : b.panels) {
    auto panel = std::find_if(c.panels.begin(), c.panels.end(), [&](const ChartPanel& q) { return q.unit == p.unit; });
    if (panel == c.panels.end()) {
      c.panels.push_back({p.unit, {}});
      panel = c.panels.end() - 1;
    }
    for (auto& s : p.series) {
      const auto it = style_of.find({p.unit, s.name});
      s.style = it != style_of.end() ? it->second : style++;
      s.dashed = true;
      s.name += " (right)";
      panel->series.push_back(std::move(s));
    }
  }
  c.x_values = a.x_values;
  c.x_values.insert(c.x_values.end(), b.x_values.begin(), b.x_values.end());
  std::sort(c.x_values.begin(), c.x_values.end());
  c.x_values.erase(std::unique(c.x_values.begin(), c.x_values.end()), c.x_values.end());
  c.x_log = c.categories.empty() && is_geometric(c.x_values);
  c.x_discrete = a.x_discrete && b.x_discrete && c.x_values.size() <= std::max(a.x_values.size(), b.x_values.size());
  for (auto m : a.marks) {
    m.text = "left, " + m.text;
    c.marks.push_back(std::move(m));
  }
  for (auto m : b.marks) {
    m.text = "right, " + m.text;
    c.marks.push_back(std::move(m));
  }
  return c;
}

std::string because_html(const DiffReport& d, const std::vector<AssumptionKey>& keys) {
  if (keys.empty()) return "no assumption it depends on differs: the formulas differ";
  std::string s;
  for (const auto& k : keys) {
    const AssumptionChange* c = d.change_of(k);
    s += (s.empty() ? "" : "<br>") + std::string("<code>") + esc(k.text()) + "</code>" +
         (c ? ": " + esc(assumption_change_text(*c)) : "");
  }
  return s;
}

std::string num_attr(const std::optional<double>& x) { return x ? fmt::format(" data-v=\"{}\"", *x) : std::string(); }

// The cells of a changed-values table: left, right, change, relative, note.
std::string value_cells(const ValueDiff& v) {
  const std::string dir = v.change && *v.change != 0 ? (*v.change > 0 ? " up" : " down") : "";
  return "<td class=\"num\">" + esc(diff_left_text(v)) + "</td><td class=\"num\">" + esc(diff_right_text(v)) +
         "</td><td class=\"num" + dir + "\"" + num_attr(v.change) + ">" + esc(diff_change_text(v)) +
         "</td><td class=\"num" + dir + "\"" + num_attr(v.relative_pct) + ">" + esc(diff_relative_text(v)) +
         "</td><td class=\"because\">" + esc(diff_note_text(v)) + "</td>";
}

std::string sortable_head(const std::vector<std::string>& names) {
  std::string s = "<thead><tr>";
  for (const auto& n : names) s += "<th scope=\"col\"><button type=\"button\">" + esc(n) + "</button></th>";
  return s + "</tr></thead>\n<tbody>\n";
}

void table_section(std::string& out, const DiffReport& d, const TableDiff& t, std::size_t index, const RunResult& lr,
                   const RunResult& rr) {
  out += fmt::format("<section class=\"mls-table diff\" id=\"t-{}\">\n<h2>{} <code>{}</code></h2>\n", index,
                     t.search ? "search" : "table", esc(t.name));
  if (t.only) {
    out += fmt::format("<p>only on the {} side ({} rows)</p>\n</section>\n",
                       *t.only == DiffStatus::added ? "right" : "left",
                       *t.only == DiffStatus::added ? t.right_rows : t.left_rows);
    return;
  }
  out += fmt::format("<p class=\"counts\">{} rows compared; {} cells changed, {} unchanged", t.rows_compared,
                     t.cells_changed, t.cells_unchanged);
  if (t.rows_added_count > 0) out += fmt::format("; {} rows only on the right", t.rows_added_count);
  if (t.rows_removed_count > 0) out += fmt::format("; {} rows only on the left", t.rows_removed_count);
  out += "</p>\n";
  if (t.keys_differ) out += "<p>The two sweeps range over different variables: their rows cannot be matched.</p>\n";
  for (const auto& c : t.columns_added) out += "<p>column <code>" + esc(c) + "</code> only on the right</p>\n";
  for (const auto& c : t.columns_removed) out += "<p>column <code>" + esc(c) + "</code> only on the left</p>\n";
  if (const auto c = overlay(table_named(lr, t.name), table_named(rr, t.name), t)) out += chart_svg(*c);
  if (t.cells_changed == 0) {
    out += "</section>\n";
    return;
  }
  // Which assumptions explain the table's changes, with how many cells each one touches (every
  // changed cell, listed or not: TableDiff::causes).
  std::vector<std::pair<AssumptionKey, std::size_t>> causes;
  for (const auto& cause : t.causes) {
    std::size_t cells = 0;
    for (const auto& [column, n] : cause.columns) cells += n;
    for (const auto& k : cause.because) {
      auto it = std::find_if(causes.begin(), causes.end(), [&](const auto& c) { return c.first == k; });
      if (it == causes.end())
        causes.push_back({k, cells});
      else
        it->second += cells;
    }
  }
  if (!causes.empty()) {
    out += "<h3>Because</h3><ul class=\"because\">";
    for (const auto& [k, n] : causes) {
      const AssumptionChange* c = d.change_of(k);
      out += "<li><code>" + esc(k.text()) + "</code>" + (c ? ": " + esc(assumption_change_text(*c)) : "") +
             fmt::format(" <span class=\"counts\">({} of {} changed cells)</span></li>", n, t.cells_changed);
    }
    out += "</ul>\n";
  }
  const std::size_t shown = std::min(t.cells.size(), kReportMaxRows);
  out += "<table class=\"data\">" + sortable_head({"row", "column", "left", "right", "change", "relative", "note"});
  for (std::size_t i = 0; i < shown; ++i) {
    const ValueDiff& v = t.cells[i];
    out +=
        fmt::format("<tr data-i=\"{}\"><td>{}</td><td><code>{}</code></td>", i, esc(t.row_text(v.row)), esc(v.name)) +
        value_cells(v) + "</tr>\n";
  }
  out += "</tbody></table>\n";
  if (shown < t.cells_changed)
    out += fmt::format("<p class=\"counts\">the first {} of {} changed cells; {}</p>\n", shown, t.cells_changed,
                       t.cells_changed > t.cells.size() ? "<code>mls run --format csv</code> of each side has them all"
                                                        : "<code>mls diff --format json</code> has them all");
  out += "</section>\n";
}

std::string side_line(const char* which, const std::string& label, const std::string& preset, const std::string& via) {
  return std::string("<p class=\"meta\">") + which + ": <code>" + esc(label) + "</code> · preset <code>" + esc(preset) +
         "</code> (" + esc(via) + ")</p>\n";
}

}  // namespace

std::string report_diff_html(const DiffReport& d, const RunResult& lr, const RunResult& rr) {
  std::string s = page_head("mls report: " + d.left_label + " vs " + d.right_label);
  s += "<header><h1>mls report: diff</h1>\n" +
       side_line("left", d.left_label, d.left_preset, d.left_preset_via.text()) +
       side_line("right", d.right_label, d.right_preset, d.right_preset_via.text()) + "</header>\n";
  s += "<nav><h2>Contents</h2><ul><li><a href=\"#assumptions\">Assumptions that differ</a></li>"
       "<li><a href=\"#results\">Results</a></li>";
  for (std::size_t i = 0; i < d.tables.size(); ++i)
    s += fmt::format("<li><a href=\"#t-{}\">{} {}</a></li>", i, d.tables[i].search ? "search" : "table",
                     esc(d.tables[i].name));
  s += "</ul></nav>\n<main>\n";

  s += fmt::format("<section id=\"assumptions\"><h2>Assumptions that differ ({})</h2>\n", d.assumptions.size());
  if (d.assumptions.empty()) {
    s += "<p>None: both sides make the same choices.</p>\n";
  } else {
    s += "<table class=\"data\">" + sortable_head({"kind", "name", "left → right"});
    for (std::size_t i = 0; i < d.assumptions.size(); ++i) {
      const AssumptionChange& c = d.assumptions[i];
      s += fmt::format("<tr data-i=\"{}\"><td>{}</td><td><code>{}</code></td><td>{}</td></tr>\n", i,
                       esc(kind_name(c.key.kind)), esc(c.key.name), esc(assumption_change_text(c)));
    }
    s += "</tbody></table>\n";
  }
  s += "</section>\n";

  s += "<section id=\"results\"><h2>Results</h2>\n";
  s += fmt::format("<p class=\"counts\">{} changed, {} unchanged</p>\n", d.results.size(), d.results_unchanged);
  if (!d.results.empty()) {
    s += "<table class=\"data\">" + sortable_head({"result", "left", "right", "change", "relative", "note", "because"});
    for (std::size_t i = 0; i < d.results.size(); ++i) {
      const ValueDiff& v = d.results[i];
      s += fmt::format("<tr data-i=\"{}\"><td><code>{}</code></td>", i, esc(v.name)) + value_cells(v) +
           "<td class=\"because\">" + because_html(d, v.because) + "</td></tr>\n";
    }
    s += "</tbody></table>\n";
  }
  s += "</section>\n";
  for (std::size_t i = 0; i < d.tables.size(); ++i) table_section(s, d, d.tables[i], i, lr, rr);
  s += "</main>\n" + page_foot();
  return s;
}

}  // namespace mls
