// sensitivity_test.cpp — `mls sensitivity` (issue #18 item 2): the ranking's top entries against
// finite differences computed here independently (a fresh session per move, the whole scenario
// run, the cell read from the run's table rather than evaluated alone as the tool does), and the
// edge cases: whole-number counts, a set that reads itself, zero and negative results, a result
// that is not a number.
#include "interpreter/tooling/sensitivity.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include "harness.hpp"

using namespace mls;

namespace {

const std::string kScenario = std::string(MLS_SOURCE_DIR) + "/scenarios/thousand_gpus.mls";

// tokens_per_s of the 1024-GPU row of `scale` in a full run of the scenario under `sel`.
double tokens_per_s_1024(const Selection& sel) {
  Harness s;
  REQUIRE(prepare(s, kScenario));
  const auto r = execute(s, sel, RunOptions{});
  REQUIRE(r);
  for (const auto& t : r->tables) {
    if (t.name != "scale") continue;
    std::size_t col = 0;
    while (col < t.cols.size() && t.cols[col].name != "tokens_per_s") ++col;
    REQUIRE(col < t.cols.size());
    for (const auto& row : t.rows)
      if (row.key[0].n.d == 1024) return row.cells[col].n.d;
  }
  FAIL("no row gpus=1024 in table scale");
  return 0;
}

Sensitivity of(Harness& s, const std::string& name) {
  const auto r = execute(s, Selection{}, RunOptions{});
  REQUIRE(r);
  return sensitivity(s.core, Selection{}, *r, name, RunOptions{});
}

const SensitivityEntry& entry(const Sensitivity& r, const std::string& name) {
  for (const auto& e : r.entries)
    if (e.name == name) return e;
  FAIL("no entry " << name);
  return r.entries.front();
}

}  // namespace

TEST_CASE("sensitivity: the top entries of thousand_gpus match finite differences of full runs") {
  Harness s;
  REQUIRE(prepare(s, kScenario));
  const Sensitivity r = of(s, "scale.tokens_per_s[gpus=1024]");
  REQUIRE(r.entries.size() >= 6);
  const double base = tokens_per_s_1024(Selection{});
  CHECK(r.base == doctest::Approx(base).epsilon(1e-12));
  std::size_t settings = 0, conventions = 0;
  for (const auto& e : r.entries) {
    if (settings >= 6 && conventions >= 1) break;
    Selection down, up;
    if (e.convention) {
      if (conventions++ >= 1) continue;
      // Each other choice, by a run of its own.
      for (const auto& sw : e.switches) {
        Selection use;
        use.uses.emplace_back(e.name, sw.choice);
        REQUIRE(sw.value);
        CHECK(*sw.value == doctest::Approx(tokens_per_s_1024(use)).epsilon(1e-12));
      }
      continue;
    }
    if (settings++ >= 6) continue;
    // The moves rebuilt here from the assumption's text: a whole count to the nearest other whole
    // numbers, anything else scaled by 0.9 and 1.1 where it is written.
    double f_down = 0.9, f_up = 1.1;
    if (e.value.find_first_not_of("0123456789") == std::string::npos && std::stod(e.value) >= 2) {
      const double x = std::stod(e.value);
      const double d = std::min(x - 1, std::round(0.9 * x)), u = std::max(x + 1, std::round(1.1 * x));
      f_down = d / x;
      f_up = u / x;
      down.sets.emplace_back(e.name, std::to_string(static_cast<long long>(d)));
      up.sets.emplace_back(e.name, std::to_string(static_cast<long long>(u)));
    } else {
      down.sets.emplace_back(e.name, "(" + e.value + ") * 0.9");
      up.sets.emplace_back(e.name, "(" + e.value + ") * 1.1");
    }
    const double rd = tokens_per_s_1024(down), ru = tokens_per_s_1024(up);
    const double elasticity = (std::log(ru) - std::log(rd)) / (std::log(f_up) - std::log(f_down));
    INFO(e.name << " elasticity " << elasticity);
    CHECK(e.f_down == doctest::Approx(f_down).epsilon(1e-15));
    CHECK(*e.down == doctest::Approx(rd).epsilon(1e-12));
    CHECK(*e.up == doctest::Approx(ru).epsilon(1e-12));
    REQUIRE(e.elasticity);
    CHECK(*e.elasticity == doctest::Approx(elasticity).epsilon(1e-9));
  }
  CHECK(settings >= 6);
  CHECK(conventions >= 1);
  // Ranked: no later entry moves the result more than an earlier one.
  auto weight = [&](const SensitivityEntry& e) {
    double w = 0;
    if (e.down) w = std::max({w, std::abs(*e.down - r.base), std::abs(*e.up - r.base)});
    for (const auto& sw : e.switches)
      if (sw.value) w = std::max(w, std::abs(*sw.value - r.base));
    return w;
  };
  for (std::size_t i = 1; i < r.entries.size(); ++i) CHECK(weight(r.entries[i - 1]) >= weight(r.entries[i]));
  // The model's largest levers, as the formulas make them: peak compute and the model's width.
  CHECK(entry(r, "H100.peak").elasticity.value() == doctest::Approx(0.88).epsilon(0.05));
  CHECK(entry(r, "Llama3_70B.hidden").elasticity.value() < -0.5);
}

TEST_CASE("sensitivity: whole counts, a set that reads itself, zero and negative results") {
  Harness s;
  REQUIRE(prepare(s, "main.mls",
                  "let n = 8\nlet x = 3 h\nset x = 2 * x\nlet k = 0.5\n"
                  "show a = x * n -> h\nshow neg = k - x / 1 h\nshow zero = x * 0 -> h\nshow flag = x > 1 h\n"));
  const Sensitivity a = of(s, "a");
  REQUIRE(a.entries.size() == 2);
  const auto& n = entry(a, "n");
  CHECK(n.whole);
  CHECK(n.down_text == "7");
  CHECK(n.up_text == "9");
  CHECK(*n.elasticity == doctest::Approx(1).epsilon(1e-12));  // a is proportional to n
  const auto& x = entry(a, "x");
  CHECK(x.value == "3 h; 2 * x");
  CHECK(x.down_text == "x * 0.9");  // scaled on top of both settings, not replacing the first
  CHECK(*x.down == doctest::Approx(0.9 * a.base).epsilon(1e-12));
  CHECK(*x.elasticity == doctest::Approx(1).epsilon(1e-12));
  CHECK_FALSE(x.uneven);

  // neg = 0.5 - 6 = -5.5: d ln|neg| / d ln x = -6 / -5.5, from the relative slope.
  const Sensitivity neg = of(s, "neg");
  CHECK(neg.base == doctest::Approx(-5.5));
  CHECK(*entry(neg, "x").elasticity == doctest::Approx(6 / 5.5).epsilon(1e-12));
  CHECK(*entry(neg, "k").elasticity == doctest::Approx(0.5 / -5.5).epsilon(1e-12));

  const Sensitivity zero = of(s, "zero");
  CHECK(zero.base == 0);
  CHECK_FALSE(entry(zero, "x").elasticity);
  CHECK(format_sensitivity_json(zero, 10).find("\"elasticity\": null") != std::string::npos);

  try {
    (void)of(s, "flag");
    FAIL("a true/false result was ranked");
  } catch (const DiagnosticError& e) {
    CHECK(e.diag.kind == ErrorKind::type_mismatch);
  }
}
