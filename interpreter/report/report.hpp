// report.hpp — `mls report`: a collected run as one self-contained HTML page. Every shown result
// with its unit and its assumptions (folded, grouped by kind), every table sortable, one SVG
// chart per sweep (regime rows marked on it and in the table), a search's best point
// highlighted, the validation status of validated results. No external reference: styles, the
// sort script and the charts are inline, and a Content-Security-Policy forbids any fetch.
#pragma once

#include <string>

#include "interpreter/results/diff.hpp"
#include "interpreter/results/run_result.hpp"
#include "tornado.hpp"

namespace mls {

struct ReportInfo {
  std::string file;                  // the scenario, as given on the command line
  std::string selection;             // "--use mtbf_model=node_series --preset mlsysim", "" as written
  std::vector<Tornado> sensitivity;  // `--sensitivity RESULT`: a section with its tornado chart
};

// The page. Same run, same bytes (no clock, no paths beyond the ones given).
// `scope`: what the run's program lends its results (units, provenance, sources; scope_of).
[[nodiscard]] std::string report_html(const ResultScope& scope, const RunResult& r, const ReportInfo& info);

// Diff mode (`mls report A.mls B.mls`, `--preset A --preset B`, `FILE --diff --use ...`): the
// comparison of two runs (results/diff) with both sides of each sweep on one chart.
[[nodiscard]] std::string report_diff_html(const DiffReport& d, const RunResult& left, const RunResult& right);

// Rows a report table shows at most (the chart uses them all, thinned); the rest are counted.
inline constexpr std::size_t kReportMaxRows = 5000;

// The page's parts one at a time, for a front end that shows a run piece by piece (the Python
// module's rich display, issue #35), drawn with the page's style (page.hpp): one shown result with
// its assumptions folded; one table or search with its chart, its first `max_rows` rows, its regime
// notes and its assumptions by column (`index` keeps its anchors apart from other tables').
[[nodiscard]] std::string report_result_html(const ResultScope& scope, const Shown& s);
[[nodiscard]] std::string report_table_html(const ResultScope& scope, const Table& t, std::size_t index,
                                            std::size_t max_rows = kReportMaxRows);

}  // namespace mls
