// report.cpp — `mls report FILE` (one self-contained HTML page) and `mls plot FILE TABLE` (one
// chart as SVG or braille text): run the scenario collected, hand the result to
// interpreter/report/, write through the --out machinery.
#include "interpreter/report/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "commands.hpp"
#include "diff_run.hpp"
#include "interpreter/report/chart.hpp"
#include "interpreter/report/png.hpp"
#include "interpreter/tooling/sensitivity.hpp"

namespace mls {

namespace {

std::string selection_text(const Args& a) {
  std::string s;
  for (const auto& p : a.presets) s += (s.empty() ? "" : " ") + std::string("--preset ") + p;
  for (const auto& [n, c] : a.uses) s += (s.empty() ? "" : " ") + std::string("--use ") + n + "=" + c;
  for (const auto& [n, v] : a.sets) s += (s.empty() ? "" : " ") + std::string("--set ") + n + "=" + v;
  return s;
}

// Prepares, configures and runs FILE collected; nullopt after reporting (rc set). A statement
// that fails at run time does not stop the run (keep_going): what was computed is drawn, the
// errors are added to the scenario, reported after the page or chart is written.
std::optional<RunResult> collected_run(const Args& a, Scenario& s, const std::string& file, int& rc) {
  if (!s.prepare(file)) {
    rc = report(s);
    return std::nullopt;
  }
  if ((rc = refuse_output_over_input(a, s))) return std::nullopt;
  std::optional<RunResult> run;
  RunOptions opt = a.run;
  opt.keep_going = true;
  if (s.configure(selection_of(a))) run = s.run(opt);
  if (!run) rc = report(s);
  for (const auto& e : run ? run->errors : std::vector<Diagnostic>{}) s.add(e);
  return run;
}

// What write_capped is given: text (escaped as emit() escapes it) or a PNG's bytes.
enum class Payload { text, binary };

// The page or chart, within --max-output (limit.output otherwise), written with emit(); then
// the run's errors, if it had any (their exit code).
int write_capped(const Args& a, Scenario& s, const std::string& raw, bool run_errors = false,
                 Payload kind = Payload::text) {
  const bool binary = kind == Payload::binary;
  const std::string text = binary ? raw : escape_controls(raw);  // as emit() writes it
  if (text.size() > a.max_output) {
    s.add(output_limit_exceeded(a.max_output));
    return report(s);
  }
  if (const int rc = refuse_output_over_input(a, s)) return rc;  // with what the run read (traces)
  const int rc = emit(a, text, binary);
  return rc == 0 && run_errors ? report(s) : rc;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

int cmd_report(const Args& a) {
  if (!a.sensitivity.empty() && (a.diff || a.positional.size() == 3 || a.presets.size() == 2))
    return usage_error(a, "report --sensitivity draws one run, not a comparison");
  // Diff mode: two files, two presets, or --diff (FILE as written against FILE with --use/--set).
  if (a.diff || a.positional.size() == 3 || a.presets.size() == 2) {
    DiffRun d;
    if (const int rc = run_diff(a, "report", d)) return rc;
    if (const int rc = refuse_output_over_input(a, d.left->s)) return rc;  // the right side: in write_capped
    return write_capped(a, d.right->s, report_diff_html(d.report, *d.left->run, *d.right->run));
  }
  if (a.positional.size() != 2 || a.positional[1].empty()) return usage_error(a, "report expects one FILE");
  Args with_points = a;
  with_points.run.keep_search_points = true;  // a search is drawn among its evaluated points
  Scenario s(core_options());
  int rc = 0;
  const auto run = collected_run(with_points, s, a.positional[1], rc);
  if (!run) return rc;
  ReportInfo info{a.positional[1], selection_text(a), {}};
  for (const auto& name : a.sensitivity) {
    const auto sens = s.sensitivity(selection_of(a), *run, name, a.run);
    if (!sens) return report(s);
    info.sensitivity.push_back(tornado_of(*sens, std::min<std::size_t>(a.top, 20)));
  }
  return write_capped(a, s, s.report_html(*run, info), !run->errors.empty());
}

int cmd_plot(const Args& a) {
  if (a.positional.size() != 3 || a.positional[1].empty())
    return usage_error(
        "plot expects FILE TABLE (mls plot FILE TABLE [--x COL] [--y COL,...] [--out plot.svg|plot.png])");
  // A file named .svg or .png holds that whatever --format says (text is the terminal's default).
  std::string format = a.format;
  if (format == "text" && ends_with(a.out, ".svg")) format = "svg";
  if (format == "text" && ends_with(a.out, ".png")) format = "png";
  if (format == "png" && a.out.empty())
    return usage_error("plot --format png writes a binary image: give --out FILE.png");
  Scenario s(core_options());
  int rc = 0;
  const auto run = collected_run(a, s, a.positional[1], rc);
  if (!run) return rc;
  try {
    const Chart c = chart_of(find_table(*run, a.positional[2]), ChartSpec{a.plot_x, a.plot_y});
    const bool errors = !run->errors.empty();
    if (format != "png") return write_capped(a, s, format == "svg" ? chart_svg(c) : chart_text(c), errors);
    std::string why;
    const auto png = svg_to_png(chart_svg(c), 2.0, why);
    if (!png) return io_error(why);
    return write_capped(a, s, *png, errors, Payload::binary);
  } catch (DiagnosticError& e) {  // no such table or column (report/chart)
    s.add(std::move(e.diag));
    return report(s);
  }
}

}  // namespace mls
