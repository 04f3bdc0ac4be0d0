// chart.hpp — a sweep table as a chart: which column is x, which columns are plotted (grouped
// into one panel per display unit, so every y axis has one unit), which rows carry regime notes,
// and its two renderings: SVG (reports, `mls plot`) and Unicode braille (terminal, `:plot`).
// Reads the results layer's Table only; nothing here evaluates.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "interpreter/results/run_result.hpp"

namespace mls {

struct ChartPoint {
  double x = 0, y = 0;
  std::size_t row = 0;  // 0-based row of the table
};

struct ChartSeries {
  std::string name;  // the column, and the other sweep variables' values when there are several
  std::vector<ChartPoint> pts;
  // Colour and marker: by default one colour per group (the other sweep variables' values), the
  // same in every panel, or per column when there are no groups. A comparison draws both sides of
  // one column in one style, the right side dashed.
  std::optional<std::size_t> style;
  bool dashed = false;
  std::string column, group;  // what the series is: its column and its group ("" when none)
};

// One y axis: the columns that share a display unit.
struct ChartPanel {
  std::string unit;  // "" for dimensionless
  std::vector<ChartSeries> series;
};

// A regime note: the row where a column changes meaning, marked on the chart.
struct ChartMark {
  double x = 0;
  std::size_t row = 0;
  std::string text;
};

struct Chart {
  std::string title;  // the table's name
  std::string x_name, x_unit;
  bool x_log = false;            // the x values are geometric (64, 128, ...): a log axis
  std::vector<double> x_values;  // distinct x values, ascending (ticks of a geometric sweep)
  // Discrete x: a few whole numbers (tp in [4, 8]): ticks at the values only, never between.
  bool x_discrete = false;
  // Categorical x (no sweep variable is a number: records, strings): one slot per category, in
  // the table's order, x values the slot indices; drawn as bars when there are few.
  std::vector<std::string> categories;
  bool bars = false;
  std::vector<ChartPanel> panels;
  std::vector<ChartMark> marks;
  std::vector<std::size_t> best;  // rows highlighted (a search's best point)
  bool lines = true;              // join points (a sweep); a search's points stand alone
};

// Which columns to plot: empty x means the first sweep variable shown as a numeric column (else
// the first numeric column); empty y means every other numeric column but the sweep variables.
struct ChartSpec {
  std::string x;
  std::vector<std::string> y;
};

// The chart of a collected table. A column named by the spec that the table lacks is an error
// plot.column; so is a named column that is not numeric (each at the table's span, with a
// did-you-mean). Throws DiagnosticError.
[[nodiscard]] Chart chart_of(const Table& t, const ChartSpec& spec);

// A search among its evaluated points (Table::points, kept by RunOptions::keep_search_points):
// a Pareto search as its two objectives against each other, a ranked one as its objective
// against the first numeric search variable; every kept point drawn, the table's rows (the
// front, or the best `top`) ringed. Nullopt when the points were not kept or cannot be drawn.
[[nodiscard]] std::optional<Chart> search_chart(const Table& t);

// Whether the table has a chart with the default spec (a numeric x and at least one numeric y).
[[nodiscard]] bool chartable(const Table& t);

// The table of that name in a run, or the error plot.table (with the names it has).
[[nodiscard]] const Table& find_table(const RunResult& r, const std::string& name);

// Whether a panel's y axis is logarithmic: every value positive and the largest more than 100
// times the smallest (a column spanning decades).
[[nodiscard]] bool log_y(const ChartPanel& p);

// The text of a row key value on a chart: as rows are keyed everywhere (a record by its label).
[[nodiscard]] std::string key_label(const Value& v);

// Standalone SVG (an XML document, no external references), `width` pixels wide.
[[nodiscard]] std::string chart_svg(const Chart& c, int width = 720);

// Terminal rendering: one braille plot per series, `cols` characters wide for the plot area,
// axis labels at the ends, regime rows marked under the x axis. Plain text, no colour.
[[nodiscard]] std::string chart_text(const Chart& c, int cols = 60, int rows = 10);

// Text made safe inside XML/HTML element content and attribute values (& < > " ').
[[nodiscard]] std::string xml_escape(std::string_view s);

}  // namespace mls
