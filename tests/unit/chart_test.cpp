// chart_test.cpp — the report's axes and charts: nice ticks, log axes, geometric sweeps, tick
// labels, the chart of a real sweep (panels per unit, regime marks), its SVG and braille text.
#include "interpreter/report/chart.hpp"

#include <doctest/doctest.h>

#include <cmath>

#include "harness.hpp"
#include "interpreter/report/axis.hpp"

using namespace mls;

namespace {

std::vector<std::string> labels(const Axis& a) {
  std::vector<std::string> out;
  for (const auto& t : a.ticks) out.push_back(t.label);
  return out;
}

}  // namespace

TEST_CASE("nice steps are 1, 2 or 5 times a power of ten") {
  CHECK(nice_step(10, 5) == doctest::Approx(2));
  CHECK(nice_step(100, 5) == doctest::Approx(20));
  CHECK(nice_step(7, 5) == doctest::Approx(1));
  CHECK(nice_step(0.03, 5) == doctest::Approx(0.005));
  CHECK(nice_step(3e6, 4) == doctest::Approx(1e6));
  CHECK(nice_step(0, 5) == 1);  // an empty range still has a step
}

TEST_CASE("a linear axis extends the data to whole steps and labels them plainly") {
  const Axis a = linear_axis(0.66, 64.92, 4);
  CHECK(a.lo == 0);
  CHECK(a.hi == doctest::Approx(80));
  CHECK(labels(a) == std::vector<std::string>{"0", "20", "40", "60", "80"});
  CHECK(!a.log);
  CHECK(a.frac(40) == doctest::Approx(0.5));
  // Decimals come from the step: 0.1 + 0.2 is shown as 0.3, not 0.30000000000000004.
  CHECK(labels(linear_axis(0.1, 0.5, 4)) == std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5"});
  // Large and small values in exponent form, without + signs or leading zeros.
  CHECK(labels(linear_axis(0, 6.3e6, 4)) == std::vector<std::string>{"0", "2e6", "4e6", "6e6", "8e6"});
  CHECK(tick_label(1.5e-5, 1e-6) == "1.5e-5");
  // A single value gets a range around it (not a zero-width axis).
  const Axis one = linear_axis(5, 5, 4);
  CHECK(one.lo < 5);
  CHECK(one.hi > 5);
  // Negative ranges: zero is exactly 0, never -0.
  CHECK(labels(linear_axis(-1, 1, 2)) == std::vector<std::string>{"-1", "0", "1"});
}

TEST_CASE("a linear axis over the whole binary64 range has finite ticks and positions (#38 item 11)") {
  for (const auto& [lo, hi] : std::vector<std::pair<double, double>>{
           {-1e308, 1e308}, {-1.7976931348623157e308, 1.7976931348623157e308}, {1e308, 1e308}, {-1e308, -1e308}}) {
    const Axis a = linear_axis(lo, hi, 4);
    CHECK(std::isfinite(a.lo));
    CHECK(std::isfinite(a.hi));
    CHECK(a.lo < a.hi);
    REQUIRE(a.ticks.size() >= 2);
    for (const auto& t : a.ticks) {
      CHECK(std::isfinite(t.value));
      CHECK(t.label.find("nan") == std::string::npos);
      CHECK(t.label.find("inf") == std::string::npos);
      CHECK(std::isfinite(a.frac(t.value)));
    }
    CHECK(a.frac(lo) >= 0);
    CHECK(a.frac(hi) <= 1);
  }
  CHECK(fraction(0, -1e308, 1e308) == doctest::Approx(0.5));
  CHECK(around(1e20).first < 1e20);
  CHECK(around(1e20).second > 1e20);
  CHECK(std::isfinite(around(1.7976931348623157e308).second));
}

TEST_CASE("a log axis ticks at 1-2-5 within few decades and at powers of ten over many") {
  const Axis a = log_axis(64, 8192);
  CHECK(a.log);
  CHECK(labels(a) == std::vector<std::string>{"100", "200", "500", "1000", "2000", "5000"});
  CHECK(a.frac(64) == doctest::Approx(0));
  CHECK(a.frac(8192) == doctest::Approx(1));
  CHECK(a.frac(std::sqrt(64.0 * 8192)) == doctest::Approx(0.5));
  CHECK(labels(log_axis(1, 1e6)) == std::vector<std::string>{"1", "10", "100", "1000", "10000", "100000", "1e6"});
  // Twelve decades: every second power, at most about eight labels.
  CHECK(log_axis(1e-3, 1e9).ticks.size() <= 8);
  // Within a factor of two: linear ticks inside the range.
  const Axis narrow = log_axis(3, 5);
  REQUIRE(!narrow.ticks.empty());
  for (const auto& t : narrow.ticks) {
    CHECK(t.value >= 3);
    CHECK(t.value <= 5);
  }
}

TEST_CASE("a sweep is geometric when its distinct values have one ratio") {
  CHECK(is_geometric({64, 128, 256, 512, 1024}));
  CHECK(is_geometric({512, 64, 256, 128, 64}));  // order and repeats do not matter
  CHECK(is_geometric({1, 10, 100}));
  CHECK(!is_geometric({1, 2, 3, 4}));
  CHECK(!is_geometric({2, 4}));        // two points say nothing
  CHECK(!is_geometric({0, 1, 2, 4}));  // zero has no logarithm
  CHECK(!is_geometric({-4, -2, -1}));  // nor negative values
  CHECK(!is_geometric({1, 2, 4, 8, 17}));
}

TEST_CASE("the chart of a sweep: x the swept variable, one panel per unit, regime marks") {
  Harness s;
  const char* src = R"(
sweep grow over n in 2..64 by *2 {
  show n, t = 100 s / n, m = 1 GB * n, big = if n > 8 then "yes" else "no", k = min(n, 8)
}
)";
  REQUIRE(prepare(s, "grow.mls", std::string(src)));
  auto cfg = configure(s.prog, s.ck, Selection{});
  REQUIRE(cfg);
  const RunResult r = run_program(s.prog, s.ck, *cfg, RunOptions{});
  const Table& t = find_table(r, "grow");
  const Chart c = chart_of(t, {});
  CHECK(c.x_name == "n");
  CHECK(c.x_log);
  CHECK(c.x_values.size() == 6);
  // t [s], m [GB], k [dimensionless]: three panels; the string column is not plotted.
  REQUIRE(c.panels.size() == 3);
  CHECK(c.panels[0].unit == "s");
  CHECK(c.panels[0].series[0].pts.size() == 6);
  CHECK(c.panels[0].series[0].pts[0].y == doctest::Approx(50));  // 100 s / 2, in seconds
  // Choosing columns: --x and --y, errors for unknown and non-numeric columns.
  const Chart only = chart_of(t, {"n", {"m"}});
  REQUIRE(only.panels.size() == 1);
  CHECK(only.panels[0].unit == "GB");
  CHECK_THROWS_AS((void)chart_of(t, {"", {"mm"}}), DiagnosticError);
  try {
    (void)chart_of(t, {"", {"big"}});
    FAIL("a text column was plotted");
  } catch (const DiagnosticError& e) {
    CHECK(e.diag.kind == ErrorKind::plot_column);
    CHECK(e.diag.message.find("not numbers") != std::string::npos);
  }
  try {
    (void)find_table(r, "gorw");
    FAIL("an unknown table was found");
  } catch (const DiagnosticError& e) {
    CHECK(e.diag.kind == ErrorKind::plot_table);
    REQUIRE(!e.diag.help.empty());
    CHECK(e.diag.help[0] == "did you mean 'grow'?");
  }
  const std::string svg = chart_svg(c);
  CHECK(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0) == 0);
  CHECK(svg.find("n (log scale)") != std::string::npos);
  CHECK(svg == chart_svg(chart_of(t, {})));  // deterministic
  const std::string text = chart_text(c, 20, 4);
  CHECK(text.find("⠀") != std::string::npos);  // braille cells
  CHECK(text.find("t [s]") != std::string::npos);
}

TEST_CASE("xml_escape leaves no markup in user text") {
  CHECK(xml_escape("<b a=\"x\">'&'</b>") == "&lt;b a=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/b&gt;");
  CHECK(xml_escape(std::string("a\x01"
                               "b")) == "a\\x01b");
}

TEST_CASE("pictures: discrete x, categories as bars, one colour per group, log y (#36)") {
  Harness s;
  const char* src = R"(
sweep pair over tp in [4, 8] {
  show step = 10 s / tp
}
sweep grid over n in [1, 2, 4, 8], pp in [1, 2] {
  show step = 10 s * n / pp, mem = 80 GB / n / pp, big = 1 s * 10 ^ n
}
sweep cmp over node in [DGX_H100, DGX_B200] {
  show gpus = node.gpus
}
)";
  REQUIRE(prepare(s, "pictures.mls", std::string(src)));
  auto cfg = configure(s.prog, s.ck, Selection{});
  REQUIRE(cfg);
  const RunResult r = run_program(s.prog, s.ck, *cfg, RunOptions{});
  // Two whole numbers: two categories, no line between them, no tick at 4.5.
  const Chart pair = chart_of(find_table(r, "pair"), {});
  CHECK(pair.categories == std::vector<std::string>{"4", "8"});
  CHECK(!pair.lines);
  CHECK(chart_svg(pair).find(">4.5<") == std::string::npos);
  // Four whole numbers, geometric: ticks at the values; each pp in one colour in every panel.
  const Chart grid = chart_of(find_table(r, "grid"), {});
  CHECK(grid.x_discrete);
  const std::string svg = chart_svg(grid);
  auto colour_of = [&](const std::string& title) {
    const auto at = svg.find("<title>" + title + "</title>");
    REQUIRE(at != std::string::npos);
    const auto c = svg.rfind("data-colour=\"", at);
    return svg.substr(c + 13, 7);
  };
  CHECK(colour_of("step (pp=1)") == colour_of("mem (pp=1)"));
  CHECK(colour_of("step (pp=2)") == colour_of("mem (pp=2)"));
  CHECK(colour_of("step (pp=1)") != colour_of("step (pp=2)"));
  // big spans seven decades: a log y axis; step does not.
  REQUIRE(grid.panels.size() == 3);
  CHECK(!log_y(grid.panels[0]));
  CHECK(log_y(grid.panels[2]));
  CHECK(svg.find("big [day] (log scale)") != std::string::npos);  // in the unit of its largest values
  // No sweep variable is a number: a bar per row, labelled as the row is keyed everywhere: by the
  // global the record is (issue 36).
  const Chart cmp = chart_of(find_table(r, "cmp"), {});
  CHECK(cmp.bars);
  CHECK(cmp.categories == std::vector<std::string>{"DGX_H100", "DGX_B200"});
  const std::string bars = chart_svg(cmp);
  std::size_t n = 0;
  for (auto at = bars.find("class=\"bar\""); at != std::string::npos; at = bars.find("class=\"bar\"", at + 1)) ++n;
  CHECK(n == 2);
  CHECK(chart_text(cmp).find("node, left to right: DGX_H100, DGX_B200") != std::string::npos);
}
