// chart.cpp — from a Table to a Chart (columns, panels, series, regime marks), and the chart as
// SVG and as braille text. Coordinates are printed with fixed decimals: same input, same bytes.
#include "chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "axis.hpp"
#include "grammar/symbols.hpp"
#include "interpreter/semantics/resolve.hpp"

namespace mls {

std::string xml_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0 at all.
        if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n')
          out += fmt::format("\\x{:02X}", static_cast<unsigned char>(ch));
        else
          out += ch;
    }
  }
  return out;
}

namespace {

// `unknown`: the name that was not found among `names` (did-you-mean goes before `help`).
[[noreturn]] void plot_error(ErrorKind k, Span at, std::string msg, std::vector<std::string> help,
                             const std::string& unknown = "", const std::vector<std::string>& names = {}) {
  Diagnostic d = make_diagnostic(k, at, std::move(msg));
  d.subject = unknown;
  if (!unknown.empty()) suggest(d, unknown, names);
  for (auto& h : help) d.help.push_back(std::move(h));
  throw DiagnosticError{std::move(d)};
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

bool numeric_col(const Table& t, std::size_t c) {
  if (t.rows.empty()) return false;
  return std::all_of(t.rows.begin(), t.rows.end(), [&](const Row& r) { return r.cells[c].k == Value::K::num; });
}

std::vector<std::string> numeric_names(const Table& t) {
  std::vector<std::string> out;
  for (std::size_t c = 0; c < t.cols.size(); ++c)
    if (numeric_col(t, c)) out.push_back(t.cols[c].name);
  return out;
}

// The column `name` of `t`, numeric; plot.column otherwise.
std::size_t numeric_column(const Table& t, const std::string& name) {
  std::vector<std::string> names;
  for (std::size_t c = 0; c < t.cols.size(); ++c) {
    if (t.cols[c].name != name) {
      names.push_back(t.cols[c].name);
      continue;
    }
    if (numeric_col(t, c)) return c;
    const auto& v = t.rows.front().cells[c];
    const char* what = v.k == Value::K::boolean ? "true/false"
                       : v.k == Value::K::str   ? "text"
                                                : "values that are not numbers";
    plot_error(ErrorKind::plot_column, t.span,
               "column '" + name + "' of table '" + t.name + "' holds " + what + ", not numbers",
               {"numeric columns: " + joined(numeric_names(t))});
  }
  plot_error(ErrorKind::plot_column, t.span, "table '" + t.name + "' has no column '" + name + "'",
             {"columns of '" + t.name + "': " + joined(names)}, name, names);
}

double cell(const Table& t, const Row& r, std::size_t c) { return in_unit(r.cells[c].n, t.cols[c].display).d; }

std::optional<std::size_t> column_named(const Table& t, const std::string& name) {
  for (std::size_t c = 0; c < t.cols.size(); ++c)
    if (t.cols[c].name == name) return c;
  return std::nullopt;
}

// Short text of a data value (tick at a swept value, tooltips): up to 6 significant digits.
std::string short_number(double v, int digits = 6) {
  std::string s = fmt::format("{:.{}g}", v, digits);
  const auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::string ex = s.substr(e + 1);
  const bool neg = ex[0] == '-';
  std::size_t i = 1;
  while (i + 1 < ex.size() && ex[i] == '0') ++i;
  return s.substr(0, e) + "e" + (neg ? "-" : "") + ex.substr(i);
}

// A few whole numbers (tp, a node count): the axis ticks at them and nowhere else.
constexpr std::size_t kMaxDiscreteValues = 12;
// Categorical tables up to this many rows are bars; more are points.
constexpr std::size_t kMaxBarCategories = 24;

// `xs` ascending: three values or more, all positive, the largest over 100 times the smallest
// (1, 2, 5, ..., 1000): a log axis spreads them where a linear one piles them at the left.
bool spans_decades(const std::vector<double>& xs) {
  return xs.size() >= 3 && xs.front() > 0 && xs.back() / xs.front() > 100;
}

// `xs` ascending and distinct. Whole numbers only, and spread evenly enough that a tick at each
// leaves room for its label (1, 2, 5, ..., 1000 is not: its ticks would pile up at the left).
bool discrete(const std::vector<double>& xs) {
  if (xs.empty() || xs.size() > kMaxDiscreteValues) return false;
  if (!std::all_of(xs.begin(), xs.end(), [](double v) { return std::fabs(v) < 0x1p53 && v == std::floor(v); }))
    return false;
  double gap = INFINITY;
  for (std::size_t i = 1; i < xs.size(); ++i) gap = std::min(gap, xs[i] - xs[i - 1]);
  return xs.size() == 1 || (xs.back() - xs.front()) / gap <= 2 * static_cast<double>(kMaxDiscreteValues);
}

}  // namespace

std::string key_label(const Value& v) { return format_value(v, Display{}); }

bool log_y(const ChartPanel& p) {
  double lo = INFINITY, hi = 0;
  for (const auto& s : p.series)
    for (const auto& pt : s.pts) {
      if (!(pt.y > 0)) return false;
      lo = std::min(lo, pt.y);
      hi = std::max(hi, pt.y);
    }
  return hi > 0 && hi / lo > 100;
}

const Table& find_table(const RunResult& r, const std::string& name) {
  std::vector<std::string> names;
  for (const auto& t : r.tables) {
    if (t.name == name) {
      if (t.rows.empty())
        plot_error(ErrorKind::plot_table, t.span, "table '" + name + "' has no rows to plot",
                   {t.search ? "no point of the search is feasible" : "every row was filtered out"});
      return t;
    }
    names.push_back(t.name);
  }
  plot_error(ErrorKind::plot_table, Span{}, "the run has no table '" + name + "'",
             {names.empty() ? "the scenario has no sweep or search" : "tables: " + joined(names)}, name, names);
}

namespace {

// Each row's group: the other sweep variables' values (one line per combination), and the groups in
// order of first appearance. When x is a computed column, the first sweep variable is the one each
// line runs along (splitting by every variable would leave one point per line).
std::vector<std::string> row_groups(const Table& t, const std::string& x_name, bool categorical,
                                    std::vector<std::string>& groups) {
  const bool x_is_key = std::find(t.key_names.begin(), t.key_names.end(), x_name) != t.key_names.end();
  std::vector<std::size_t> other;  // none for a categorical x: each row is its own category
  for (std::size_t k = x_is_key ? 0 : 1; k < t.key_names.size() && !categorical; ++k)
    if (t.key_names[k] != x_name) other.push_back(k);
  std::vector<std::string> group_of(t.rows.size());
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    std::string g;
    for (std::size_t k : other) {
      if (k >= t.rows[i].key.size()) continue;
      const auto col = column_named(t, t.key_names[k]);
      const Display d = col ? t.cols[*col].display : Display{};
      const Value& kv = t.rows[i].key[k];
      g += (g.empty() ? "" : ", ") + t.key_names[k] + "=" +
           (kv.k == Value::K::record ? key_label(kv) : format_value(kv, d));
    }
    group_of[i] = g;
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  return group_of;
}

}  // namespace

Chart chart_of(const Table& t, const ChartSpec& spec) {
  if (t.rows.empty()) plot_error(ErrorKind::plot_table, t.span, "table '" + t.name + "' has no rows to plot", {});
  Chart c;
  c.title = t.name;
  // x: a column, or (a sweep variable not shown) the row keys in base units.
  std::optional<std::size_t> xcol;
  std::optional<std::size_t> xkey;  // index into key_names when x is a sweep variable
  bool categorical = false;
  if (!spec.x.empty()) {
    xcol = numeric_column(t, spec.x);
  } else {
    for (std::size_t k = 0; k < t.key_names.size() && !xcol && !xkey; ++k) {
      const auto col = column_named(t, t.key_names[k]);
      if (col && numeric_col(t, *col))
        xcol = col;
      else if (!col && std::all_of(t.rows.begin(), t.rows.end(),
                                   [&](const Row& r) { return k < r.key.size() && r.key[k].k == Value::K::num; }))
        xkey = k;
    }
    // No sweep variable is a number (records, strings): one category per row, in table order.
    categorical = !xcol && !xkey && !t.key_names.empty();
    for (std::size_t i = 0; i < t.cols.size() && !xcol && !xkey && !categorical; ++i)
      if (numeric_col(t, i)) xcol = i;
    if (!xcol && !xkey && !categorical)
      plot_error(ErrorKind::plot_column, t.span, "table '" + t.name + "' has no numeric column to plot", {});
  }
  std::vector<std::size_t> row_of;  // a categorical chart: each row's category index
  if (categorical) {
    for (const auto& k : t.key_names) c.x_name += (c.x_name.empty() ? "" : ", ") + k;
    for (const auto& r : t.rows) {
      std::string label;
      for (const auto& v : r.key) label += (label.empty() ? "" : ", ") + key_label(v);
      c.categories.push_back(label);
    }
  } else {
    c.x_name = xcol ? t.cols[*xcol].name : t.key_names[*xkey];
    c.x_unit = xcol ? t.cols[*xcol].display.unit : "";
  }
  auto x_of = [&](const Row& r) {
    if (categorical) return static_cast<double>(&r - t.rows.data());
    return xcol ? cell(t, r, *xcol) : r.key[*xkey].n.d;
  };

  std::vector<std::size_t> ycols;
  if (!spec.y.empty()) {
    for (const auto& n : spec.y) ycols.push_back(numeric_column(t, n));
  } else {
    for (std::size_t i = 0; i < t.cols.size(); ++i) {
      const bool is_key = std::find(t.key_names.begin(), t.key_names.end(), t.cols[i].name) != t.key_names.end();
      if (i != xcol && !is_key && numeric_col(t, i)) ycols.push_back(i);
    }
    if (ycols.empty())
      plot_error(ErrorKind::plot_column, t.span,
                 "table '" + t.name + "' has no numeric column to plot against '" + c.x_name + "'",
                 {"numeric columns: " + joined(numeric_names(t))});
  }

  std::vector<std::string> groups;
  const std::vector<std::string> group_of = row_groups(t, c.x_name, categorical, groups);

  for (std::size_t yc : ycols) {
    const std::string& unit = t.cols[yc].display.unit;
    auto panel = std::find_if(c.panels.begin(), c.panels.end(), [&](const ChartPanel& p) { return p.unit == unit; });
    if (panel == c.panels.end()) {
      c.panels.push_back({unit, {}});
      panel = c.panels.end() - 1;
    }
    for (const auto& g : groups) {
      ChartSeries s;
      s.name = t.cols[yc].name + (groups.size() > 1 ? " (" + g + ")" : "");
      s.column = t.cols[yc].name;
      s.group = groups.size() > 1 ? g : "";
      for (std::size_t i = 0; i < t.rows.size(); ++i)
        if (group_of[i] == g) s.pts.push_back({x_of(t.rows[i]), cell(t, t.rows[i], yc), i});
      // A search's rows come in rank order; lines join points left to right.
      std::stable_sort(s.pts.begin(), s.pts.end(), [](const ChartPoint& a, const ChartPoint& b) { return a.x < b.x; });
      panel->series.push_back(std::move(s));
    }
  }

  for (const auto& r : t.rows) c.x_values.push_back(x_of(r));
  std::sort(c.x_values.begin(), c.x_values.end());
  c.x_values.erase(std::unique(c.x_values.begin(), c.x_values.end()), c.x_values.end());
  c.x_log = !categorical && (is_geometric(c.x_values) || spans_decades(c.x_values));
  c.x_discrete = !categorical && discrete(c.x_values);
  // Lines join a trend: not categories, nor two whole numbers (nothing lies between tp 4 and 8).
  c.lines = !t.search && !categorical && !(c.x_discrete && c.x_values.size() < 3);
  c.bars = categorical && t.rows.size() <= kMaxBarCategories;
  if (t.search) c.best.push_back(0);

  for (const auto& n : t.notes) {
    if (n.row >= t.rows.size()) continue;
    const std::string text = "row " + std::to_string(n.row + 1) + " (" + n.key + "): " + n.text;
    auto m = std::find_if(c.marks.begin(), c.marks.end(), [&](const ChartMark& k) { return k.row == n.row; });
    if (m == c.marks.end())
      c.marks.push_back({x_of(t.rows[n.row]), n.row, text});
    else
      m->text += "; " + n.text;
  }
  // One or two whole numbers (tp in [4, 8]) are two categories, side by side in their slots.
  if (c.x_discrete && c.x_values.size() < 3) {
    auto slot = [&](double x) {
      return static_cast<double>(std::lower_bound(c.x_values.begin(), c.x_values.end(), x) - c.x_values.begin());
    };
    for (auto& p : c.panels)
      for (auto& se : p.series)
        for (auto& pt : se.pts) pt.x = slot(pt.x);
    for (auto& m : c.marks) m.x = slot(m.x);
    for (double v : c.x_values) c.categories.push_back(short_number(v));
    c.x_values.assign({0.0, 1.0});
    c.x_values.resize(c.categories.size());
    c.x_discrete = c.x_log = false;
  }
  return c;
}

std::optional<Chart> search_chart(const Table& t) {
  if (!t.search || t.points.empty() || t.objective_displays.size() != t.objective_names.size()) return std::nullopt;
  const bool pareto = t.objective_names.size() == 2;
  // The x of a ranked search: its first search variable that holds a number at every point.
  std::optional<std::size_t> xkey;
  for (std::size_t k = 0; k < t.key_names.size() && !pareto && !xkey; ++k)
    if (std::all_of(t.points.begin(), t.points.end(),
                    [&](const SearchPoint& p) { return k < p.key.size() && p.key[k].k == Value::K::num; }))
      xkey = k;
  if (!pareto && !xkey) return std::nullopt;
  auto shown = [&](std::size_t j, double si) { return in_unit(Num::of_double(si), t.objective_displays[j]).d; };
  Chart c;
  // `top K per EXPR` ranks within each group: the ringed points are the best of each.
  const std::string per = t.per.empty() ? "" : " per " + t.per;
  c.title = t.name + (pareto ? ": the Pareto front" + per + " among the evaluated points"
                             : ": the best " + std::to_string(t.per.empty() ? t.rows.size() : t.per_top) + per +
                                   " among the evaluated points");
  c.x_name = pareto ? t.objective_names[0] : t.key_names[*xkey];
  c.x_unit = pareto ? t.objective_displays[0].unit : "";
  const std::size_t yj = pareto ? 1 : 0;
  ChartSeries all{
      t.objective_names[yj] + (t.points_dropped ? " (the first " + std::to_string(t.points.size()) + " feasible points)"
                                                : " (every feasible point)"),
      {},
      {},
      false,
      t.objective_names[yj],
      ""};
  std::vector<std::size_t> ranked;
  for (const auto& r : t.rows) ranked.push_back(r.point);
  std::sort(ranked.begin(), ranked.end());
  for (std::size_t i = 0; i < t.points.size(); ++i) {
    const SearchPoint& sp = t.points[i];
    if (sp.objectives.size() != t.objective_names.size()) continue;
    const double x = pareto ? shown(0, sp.objectives[0]) : sp.key[*xkey].n.d;
    all.pts.push_back({x, shown(yj, sp.objectives[yj]), i});
    if (std::binary_search(ranked.begin(), ranked.end(), sp.point)) c.best.push_back(i);
    c.x_values.push_back(x);
  }
  if (all.pts.empty()) return std::nullopt;
  std::sort(c.x_values.begin(), c.x_values.end());
  c.x_values.erase(std::unique(c.x_values.begin(), c.x_values.end()), c.x_values.end());
  c.x_log = !pareto && (is_geometric(c.x_values) || spans_decades(c.x_values));
  c.x_discrete = !pareto && discrete(c.x_values);
  c.lines = false;
  c.panels.push_back({t.objective_displays[yj].unit, {std::move(all)}});
  return c;
}

bool chartable(const Table& t) {
  try {
    (void)chart_of(t, {});
    return true;
  } catch (const DiagnosticError&) {
    return false;
  }
}

// ---- SVG -------------------------------------------------------------------------------------

namespace {

// Okabe-Ito: told apart with the common colour-vision deficiencies (its yellow is left out: too
// light on white). Series past the seventh repeat the colours dashed; markers differ by shape.
constexpr const char* kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000"};
constexpr std::size_t kNColours = sizeof(kColours) / sizeof(kColours[0]);
constexpr std::size_t kMaxPointsDrawn = 2000;  // per series; more are thinned (every k-th, and the last)
constexpr std::size_t kMaxMarkers = 200;       // per series; beyond that the line alone

std::string f1(double v) { return fmt::format("{:.1f}", v); }

std::string marker(std::size_t shape, double x, double y, const char* colour) {
  switch (shape % 4) {
    case 0: return fmt::format(R"(<circle cx="{}" cy="{}" r="3.2" fill="{}"/>)", f1(x), f1(y), colour);
    case 1: return fmt::format(R"(<rect x="{}" y="{}" width="6" height="6" fill="{}"/>)", f1(x - 3), f1(y - 3), colour);
    case 2:
      return fmt::format(R"(<path d="M{} {}L{} {}L{} {}Z" fill="{}"/>)", f1(x), f1(y - 4), f1(x + 3.6), f1(y + 3),
                         f1(x - 3.6), f1(y + 3), colour);
    default:
      return fmt::format(R"(<path d="M{} {}L{} {}L{} {}L{} {}Z" fill="{}"/>)", f1(x), f1(y - 4), f1(x + 4), f1(y),
                         f1(x), f1(y + 4), f1(x - 4), f1(y), colour);
  }
}

std::vector<ChartPoint> thinned(const std::vector<ChartPoint>& pts) {
  if (pts.size() <= kMaxPointsDrawn) return pts;
  const std::size_t every = (pts.size() + kMaxPointsDrawn - 1) / kMaxPointsDrawn;
  std::vector<ChartPoint> out;
  for (std::size_t i = 0; i < pts.size(); i += every) out.push_back(pts[i]);
  if (out.back().row != pts.back().row) out.push_back(pts.back());
  return out;
}

// A category's tick label: long ones are cut (the full text is in each bar's tooltip).
std::string category_label(const std::string& s) { return s.size() <= 18 ? s : utf8_prefix(s, 16) + "…"; }

Axis x_axis_of(const Chart& c) {
  if (!c.categories.empty()) {
    // One slot per category, each label under its slot (every k-th when there are many).
    Axis a;
    const std::size_t n = c.categories.size(), every = (n + 9) / 10;
    a.lo = -0.5;
    a.hi = static_cast<double>(n) - 0.5;
    for (std::size_t i = 0; i < n; i += every)
      a.ticks.push_back({static_cast<double>(i), category_label(c.categories[i])});
    return a;
  }
  const double lo = c.x_values.front(), hi = c.x_values.back();
  if (!c.x_log) {
    Axis a = linear_axis(lo, hi, 6);
    if (c.x_discrete) {  // whole numbers: ticks at the values, never at 4.5
      a.ticks.clear();
      for (double v : c.x_values) a.ticks.push_back({v, short_number(v)});
    }
    return a;
  }
  Axis a = log_axis(lo, hi);
  // A geometric sweep's own values are the best ticks (64, 128, ... 8192), when not too many.
  if (c.x_values.size() <= 16) {
    a.ticks.clear();
    for (double v : c.x_values) a.ticks.push_back({v, short_number(v)});
  }
  return a;
}

std::string unit_label(const std::string& unit) { return unit.empty() ? "dimensionless" : unit; }

// The y axis's title: the columns it shows and their unit ("step_s [s]"), or the unit alone when
// the names would not fit.
std::string y_title(const ChartPanel& p, bool log) {
  std::vector<std::string> names;
  for (const auto& se : p.series) {
    const std::string& n = se.column.empty() ? se.name : se.column;
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  }
  std::string joined;
  for (const auto& n : names) joined += (joined.empty() ? "" : ", ") + n;
  std::string s = joined.empty() || joined.size() > 36 ? unit_label(p.unit)
                  : p.unit.empty()                     ? joined
                                                       : joined + " [" + p.unit + "]";
  return s + (log ? " (log scale)" : "");
}

// Colour and marker of every series: one colour per group across all panels (the same tp=4 in
// every panel), else one per column; a comparison's `style` wins. Markers follow the colour,
// or the column when several columns share a group's colour in a panel.
struct Styles {
  std::vector<std::string> groups, columns;
  static std::size_t index(std::vector<std::string>& v, const std::string& s) {
    const auto it = std::find(v.begin(), v.end(), s);
    if (it != v.end()) return static_cast<std::size_t>(it - v.begin());
    v.push_back(s);
    return v.size() - 1;
  }
  explicit Styles(const Chart& c) {
    for (const auto& p : c.panels)
      for (const auto& se : p.series) {
        if (!se.group.empty()) (void)index(groups, se.group);
        (void)index(columns, se.column.empty() ? se.name : se.column);
      }
  }
  std::size_t colour(const ChartSeries& se) {
    if (se.style) return *se.style;
    return groups.size() > 1 ? index(groups, se.group) : index(columns, se.column.empty() ? se.name : se.column);
  }
  std::size_t shape(const ChartSeries& se) {
    if (se.style) return *se.style;
    return groups.size() > 1 && columns.size() > 1 ? index(columns, se.column.empty() ? se.name : se.column)
                                                   : colour(se);
  }
};

}  // namespace

std::string chart_svg(const Chart& c, int width) {
  constexpr double kLeft = 78, kRight = 16, kTop = 34, kPlotH = 160, kPad = 10, kLegendLine = 16, kGap = 34;
  const double plot_w = width - kLeft - kRight;
  const Axis xa = x_axis_of(c);
  auto px = [&](double x) { return kLeft + kPad + xa.frac(x) * (plot_w - 2 * kPad); };
  Styles styles(c);

  // Legend lines per panel: items laid left to right, wrapped at the plot width.
  struct Item {
    double x;
    int line;
  };
  std::vector<std::vector<Item>> legend(c.panels.size());
  std::vector<int> legend_lines(c.panels.size(), 1);
  for (std::size_t p = 0; p < c.panels.size(); ++p) {
    double x = kLeft;
    int line = 0;
    for (const auto& s : c.panels[p].series) {
      const double w = 34 + 6.6 * static_cast<double>(s.name.size()) + 14;
      if (x + w > width - kRight && x > kLeft) {
        ++line;
        x = kLeft;
      }
      legend[p].push_back({x, line});
      x += w;
    }
    legend_lines[p] = line + 1;
  }
  double height = kTop;
  for (std::size_t p = 0; p < c.panels.size(); ++p) height += legend_lines[p] * kLegendLine + 6 + kPlotH + kGap;
  height += 12;

  std::string s = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {0} {1}" width="{0}" height="{1}" role="img">)",
      width, f1(height));
  std::string ynames;
  for (const auto& p : c.panels)
    for (const auto& se : p.series) ynames += (ynames.empty() ? "" : ", ") + se.name;
  s += "\n<title>" + xml_escape(c.title + ": " + ynames + " against " + c.x_name) + "</title>";
  s += "\n<g font-family=\"sans-serif\" font-size=\"11\" fill=\"#222\">";
  s += fmt::format("\n<text x=\"{}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>", f1(kLeft),
                   xml_escape(c.title));

  const char* x_scale = !c.categories.empty() ? "category" : c.x_log ? "log" : "linear";
  double top = kTop;
  for (std::size_t p = 0; p < c.panels.size(); ++p) {
    const ChartPanel& panel = c.panels[p];
    s += fmt::format("\n<g class=\"panel\" data-unit=\"{}\">", xml_escape(panel.unit));
    // Legend.
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const std::size_t si = styles.colour(panel.series[i]);
      const char* colour = kColours[si % kNColours];
      const bool dashed = panel.series[i].dashed || si >= kNColours;
      const double lx = legend[p][i].x, ly = top + legend[p][i].line * kLegendLine + 8;
      if (c.bars) {  // a bar's swatch
        s += fmt::format("\n<g class=\"legend\"><rect x=\"{}\" y=\"{}\" width=\"18\" height=\"10\" {}/>", f1(lx + 3),
                         f1(ly - 5),
                         dashed ? fmt::format(R"(fill="none" stroke="{}" stroke-dasharray="4 2")", colour)
                                : fmt::format(R"(fill="{}")", colour));
      } else {
        s += fmt::format(
            "\n<g class=\"legend\"><line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"2\"{}/>",
            f1(lx), f1(ly), f1(lx + 24), f1(ly), colour, dashed ? R"( stroke-dasharray="5 3")" : "");
        s += marker(styles.shape(panel.series[i]), lx + 12, ly, colour);
      }
      s += fmt::format("<text x=\"{}\" y=\"{}\" dy=\"0.32em\">{}</text></g>", f1(lx + 30), f1(ly),
                       xml_escape(panel.series[i].name));
    }
    const double y0 = top + legend_lines[p] * kLegendLine + 6, y1 = y0 + kPlotH;
    // y axis over every series of the panel: log when a column spans decades; bars stand on 0.
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& se : panel.series)
      for (const auto& pt : se.pts) {
        lo = std::min(lo, pt.y);
        hi = std::max(hi, pt.y);
      }
    const bool ylog = log_y(panel);
    const Axis ya = ylog     ? log_axis(lo, hi)
                    : c.bars ? linear_axis(std::min(lo, 0.0), std::max(hi, 0.0), 4)
                             : linear_axis(lo, hi, 4);
    auto py = [&](double y) { return y1 - kPad - ya.frac(y) * (kPlotH - 2 * kPad); };
    s += fmt::format("\n<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#fff\" stroke=\"#888\"/>", f1(kLeft),
                     f1(y0), f1(plot_w), f1(kPlotH));
    s += fmt::format("\n<g class=\"axis y\" data-scale=\"{}\">", ylog ? "log" : "linear");
    for (const Tick& t : ya.ticks) {
      const double y = py(t.value);
      s += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e3e3e3\"/><text x=\"{}\" y=\"{}\" dy=\"0.32em\" "
          "text-anchor=\"end\">{}</text>",
          f1(kLeft + 1), f1(y), f1(kLeft + plot_w - 1), f1(y), f1(kLeft - 5), f1(y), xml_escape(t.label));
    }
    const double ymid = (y0 + y1) / 2;
    s += fmt::format(
        "<text class=\"unit\" x=\"14\" y=\"{0}\" text-anchor=\"middle\" transform=\"rotate(-90 14 "
        "{0})\">{1}</text></g>",
        f1(ymid), xml_escape(y_title(panel, ylog)));
    s += fmt::format("\n<g class=\"axis x\" data-scale=\"{}\">", x_scale);
    for (const Tick& t : xa.ticks) {
      const double x = px(t.value);
      s += fmt::format(
          "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#e3e3e3\"/><text x=\"{0}\" y=\"{3}\" "
          "text-anchor=\"middle\">{4}</text>",
          f1(x), f1(y0 + 1), f1(y1 - 1), f1(y1 + 14), xml_escape(t.label));
    }
    s += "</g>";
    // Regime notes: a dashed line at the row where a column changes meaning.
    for (const auto& m : c.marks) {
      const double x = px(m.x);
      s += fmt::format(
          "\n<g class=\"regime-mark\" data-row=\"{0}\"><title>{1}</title><line x1=\"{2}\" y1=\"{3}\" x2=\"{2}\" "
          "y2=\"{4}\" stroke=\"#555\" stroke-width=\"1.5\" stroke-dasharray=\"4 3\"/><path d=\"M{5} {3}L{6} {3}L{2} "
          "{7}Z\" fill=\"#555\"/></g>",
          m.row + 1, xml_escape(m.text), f1(x), f1(y0), f1(y1), f1(x - 5), f1(x + 5), f1(y0 + 7));
    }
    // Bars: each category's slot split among the panel's series, from 0 (or the log axis' floor).
    const double slot = (plot_w - 2 * kPad) / std::max<double>(1, static_cast<double>(c.categories.size()));
    const double bar_w = slot * 0.8 / std::max<double>(1, static_cast<double>(panel.series.size()));
    const double base = py(ylog ? ya.lo : ya.lo <= 0 && ya.hi >= 0 ? 0.0 : ya.lo);
    for (std::size_t i = 0; i < panel.series.size(); ++i) {
      const ChartSeries& se = panel.series[i];
      const std::size_t si = styles.colour(se);
      const char* colour = kColours[si % kNColours];
      const bool dashed = se.dashed || si >= kNColours;
      const auto pts = thinned(se.pts);
      s += fmt::format("\n<g class=\"series\" data-colour=\"{}\"><title>{}</title>", colour, xml_escape(se.name));
      if (c.lines && pts.size() > 1) {
        s += "<polyline fill=\"none\" stroke=\"" + std::string(colour) + "\" stroke-width=\"2\"" +
             (dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"";
        for (std::size_t k = 0; k < pts.size(); ++k) s += (k ? " " : "") + f1(px(pts[k].x)) + "," + f1(py(pts[k].y));
        s += "\"/>";
      }
      auto tip = [&](const ChartPoint& pt) {
        const std::string at = c.categories.empty() ? short_number(pt.x) : c.categories[static_cast<std::size_t>(pt.x)];
        return "<title>" +
               xml_escape(c.x_name + " = " + at + ": " + se.name + " = " + short_number(pt.y) +
                          (panel.unit.empty() ? "" : " " + panel.unit)) +
               "</title>";
      };
      if (c.bars) {
        for (const auto& pt : pts) {
          const double x = px(pt.x) - slot * 0.4 + static_cast<double>(i) * bar_w, y = py(pt.y);
          s += fmt::format(
              R"(<rect class="bar" x="{}" y="{}" width="{}" height="{}" {}>)", f1(x), f1(std::min(y, base)), f1(bar_w),
              f1(std::fabs(base - y)),
              dashed ? fmt::format(R"(fill="none" stroke="{}" stroke-width="1.5" stroke-dasharray="4 2")", colour)
                     : fmt::format(R"(fill="{}")", colour));
          s += tip(pt) + "</rect>";
        }
      } else if (pts.size() <= kMaxMarkers) {
        for (const auto& pt : pts) s += "<g>" + marker(styles.shape(se), px(pt.x), py(pt.y), colour) + tip(pt) + "</g>";
      }
      for (const auto& pt : pts)
        if (std::find(c.best.begin(), c.best.end(), pt.row) != c.best.end())
          s += fmt::format(
              R"(<circle class="best" cx="{}" cy="{}" r="7" fill="none" stroke="#000" stroke-width="1.5"/>)",
              f1(px(pt.x)), f1(py(pt.y)));
      s += "</g>";
    }
    s += "\n</g>";
    top = y1 + kGap;
  }
  const std::string xtitle =
      c.x_name + (c.x_unit.empty() ? "" : " [" + c.x_unit + "]") + (c.x_log ? " (log scale)" : "");
  s += fmt::format("\n<text class=\"unit\" x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>", f1(kLeft + plot_w / 2),
                   f1(top - kGap + 30), xml_escape(xtitle));
  s += "\n</g>\n</svg>\n";
  return s;
}

// ---- terminal --------------------------------------------------------------------------------

namespace {

// A grid of braille cells, each 2 dots wide and 4 high (U+2800 + one bit per dot).
class Braille {
 public:
  Braille(int cols, int rows) : cols_(cols), rows_(rows), bits_(static_cast<std::size_t>(cols * rows), 0) {}
  void dot(int x, int y) {
    if (x < 0 || y < 0 || x >= cols_ * 2 || y >= rows_ * 4) return;
    static constexpr unsigned char kBit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};
    bits_[static_cast<std::size_t>((y / 4) * cols_ + x / 2)] |= kBit[y % 4][x % 2];
  }
  void line(int x0, int y0, int x1, int y1) {  // Bresenham
    const int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
      dot(x0, y0);
      if (x0 == x1 && y0 == y1) return;
      const int e2 = 2 * err;
      if (e2 >= dy) {
        err += dy;
        x0 += sx;
      }
      if (e2 <= dx) {
        err += dx;
        y0 += sy;
      }
    }
  }
  [[nodiscard]] std::string row(int r) const {
    std::string s;
    for (int c = 0; c < cols_; ++c) {
      const unsigned b = bits_[static_cast<std::size_t>(r * cols_ + c)];
      // U+2800 + b in UTF-8: E2, A0 + (b >> 6), 80 + (b & 3F).
      s += static_cast<char>(0xE2);
      s += static_cast<char>(0xA0 + (b >> 6));
      s += static_cast<char>(0x80 + (b & 0x3F));
    }
    return s;
  }

 private:
  int cols_, rows_;
  std::vector<unsigned char> bits_;
};

}  // namespace

std::string chart_text(const Chart& c, int cols, int rows) {
  cols = std::max(cols, 8);
  rows = std::max(rows, 2);
  Axis xa =
      c.x_log ? log_axis(c.x_values.front(), c.x_values.back()) : linear_axis(c.x_values.front(), c.x_values.back(), 4);
  // The data's own ends, not the nice ones: the labels under the plot are its first and last x.
  xa.lo = c.x_values.front();
  xa.hi = c.x_values.back();
  if (!c.categories.empty()) {  // each category in the middle of its slot
    xa.lo = -0.5;
    xa.hi = static_cast<double>(c.categories.size()) - 0.5;
  } else if (xa.lo == xa.hi) {
    if (c.x_log) {
      xa.lo /= 2;
      xa.hi *= 2;
    } else {
      std::tie(xa.lo, xa.hi) = around(xa.lo);
    }
  }
  const int w = cols * 2, h = rows * 4;
  auto dx = [&](double x) { return static_cast<int>(std::lround(xa.frac(x) * (w - 1))); };
  std::string out = c.title + ": " + c.x_name + (c.x_unit.empty() ? "" : " [" + c.x_unit + "]") +
                    (c.x_log ? " (log scale)" : "") + "\n";
  for (const auto& panel : c.panels)
    for (const auto& se : panel.series) {
      double lo = INFINITY, hi = -INFINITY;
      for (const auto& p : se.pts) {
        lo = std::min(lo, p.y);
        hi = std::max(hi, p.y);
      }
      const std::string top = short_number(hi, 4), bottom = short_number(lo, 4);
      // A series spanning more than two decades is drawn on a log scale, as the SVG does.
      const bool ylog = log_y(ChartPanel{panel.unit, {se}});
      if (lo == hi) std::tie(lo, hi) = around(lo);
      auto dy = [&](double y) {
        const double f = ylog ? fraction(std::log10(y), std::log10(lo), std::log10(hi)) : fraction(y, lo, hi);
        return static_cast<int>(std::lround((1 - f) * (h - 1)));
      };
      Braille b(cols, rows);
      for (std::size_t i = 0; i < se.pts.size(); ++i) {
        const int x = dx(se.pts[i].x), y = dy(se.pts[i].y);
        if (c.lines && i > 0)
          b.line(dx(se.pts[i - 1].x), dy(se.pts[i - 1].y), x, y);
        else
          b.dot(x, y);
      }
      const std::size_t gutter = std::max(top.size(), bottom.size());
      out += "\n" + se.name + (panel.unit.empty() ? "" : " [" + panel.unit + "]") + (ylog ? " (log scale)" : "") + "\n";
      for (int r = 0; r < rows; ++r) {
        const std::string label = r == 0 ? top : r == rows - 1 ? bottom : "";
        out += std::string(gutter - label.size() + 1, ' ') + label + (label.empty() ? " │" : " ┤") + b.row(r) + "\n";
      }
      out += std::string(gutter + 2, ' ') + "└";
      for (int i = 0; i < cols; ++i) out += "─";
      out += "\n";
      const std::string xl =
          c.categories.empty() ? short_number(c.x_values.front()) : category_label(c.categories.front());
      const std::string xr =
          c.categories.empty() ? short_number(c.x_values.back()) : category_label(c.categories.back());
      const std::size_t span = static_cast<std::size_t>(cols) + 1;
      out += std::string(gutter + 2, ' ') + xl +
             std::string(span > xl.size() + xr.size() ? span - xl.size() - xr.size() : 1, ' ') + xr + "\n";
      if (!c.marks.empty()) {
        std::string line(static_cast<std::size_t>(cols) + 1, ' ');
        for (const auto& m : c.marks) line[static_cast<std::size_t>(1 + dx(m.x) / 2)] = '^';
        while (!line.empty() && line.back() == ' ') line.pop_back();
        out += std::string(gutter + 2, ' ') + line + "\n";
      }
    }
  if (!c.categories.empty()) {
    out += "\n" + c.x_name + ", left to right:";
    for (std::size_t i = 0; i < c.categories.size(); ++i) out += (i ? ", " : " ") + c.categories[i];
    out += "\n";
  }
  for (const auto& m : c.marks) out += "\n^ regime: " + m.text;
  if (!c.marks.empty()) out += "\n";
  return out;
}

}  // namespace mls
